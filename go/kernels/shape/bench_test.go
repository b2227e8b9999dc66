package shape

import (
	"math"
	"slices"
	"testing"

	"github.com/gojax/gojax/go/internal/workers"
	"github.com/gojax/gojax/go/ir"
)

// poolCtx splits Parallel over the runtime's worker pool, as plans do.
type poolCtx struct{ fakeCtx }

func (poolCtx) Parallel(n, grain int, fn func(lo, hi int)) { workers.Shared().Parallel(n, grain, fn) }

func benchStep(b *testing.B, op *ir.Op, ins ...[]byte) {
	ctx := &poolCtx{}
	l, _ := lookup(op.Name)
	st, err := l(ctx, op)
	if err != nil {
		b.Fatal(err)
	}
	outs := make([][]byte, len(op.Results))
	var bytes int64
	for i, r := range op.Results {
		outs[i] = make([]byte, r.Tensor().ByteSize())
		bytes += r.Tensor().ByteSize()
	}
	b.SetBytes(bytes)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := st(ins, outs); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTranspose2048F32(b *testing.B) {
	op := mkOp("stablehlo.transpose", []ir.Type{ir.Tensor(ir.F32, 2048, 2048)}, []ir.Type{ir.Tensor(ir.F32, 2048, 2048)},
		ir.Attrs{"permutation": i64a(1, 0)})
	benchStep(b, op, make([]byte, 2048*2048*4))
}

func BenchmarkTranspose3DF32(b *testing.B) {
	op := mkOp("stablehlo.transpose", []ir.Type{ir.Tensor(ir.F32, 64, 128, 256)}, []ir.Type{ir.Tensor(ir.F32, 256, 64, 128)},
		ir.Attrs{"permutation": i64a(2, 0, 1)})
	benchStep(b, op, make([]byte, 64*128*256*4))
}

func BenchmarkBroadcastRowF32(b *testing.B) {
	op := mkOp("stablehlo.broadcast_in_dim", []ir.Type{ir.Tensor(ir.F32, 1024)}, []ir.Type{ir.Tensor(ir.F32, 2048, 1024)},
		ir.Attrs{"broadcast_dimensions": i64a(1)})
	benchStep(b, op, make([]byte, 1024*4))
}

func BenchmarkBroadcastColF32(b *testing.B) {
	op := mkOp("stablehlo.broadcast_in_dim", []ir.Type{ir.Tensor(ir.F32, 2048)}, []ir.Type{ir.Tensor(ir.F32, 2048, 1024)},
		ir.Attrs{"broadcast_dimensions": i64a(0)})
	benchStep(b, op, make([]byte, 2048*4))
}

func BenchmarkGatherRows(b *testing.B) {
	c := gatherCase{operand: []int64{10000, 64}, idx: []int64{50000, 1}, offsetDims: []int64{1}, collapsed: []int64{0},
		sim: []int64{0}, ivd: 1, sizes: []int64{1, 64}}
	idx := make([]int32, 50000)
	for i := range idx {
		idx[i] = int32(i * 7 % 10000)
	}
	benchStep(b, gatherOp(c), make([]byte, 10000*64*4), i32s(idx...))
}

func BenchmarkGatherScalars(b *testing.B) {
	c := gatherCase{operand: []int64{100000}, idx: []int64{200000, 1}, collapsed: []int64{0},
		sim: []int64{0}, ivd: 1, sizes: []int64{1}}
	idx := make([]int32, 200000)
	for i := range idx {
		idx[i] = int32(i * 7 % 100000)
	}
	benchStep(b, gatherOp(c), make([]byte, 100000*4), i32s(idx...))
}

func BenchmarkScatterAddScalars(b *testing.B) {
	c := scatterCase{operand: []int64{100000}, idx: []int64{200000, 1}, upd: []int64{200000}, inserted: []int64{0}, sdo: []int64{0}, ivd: 1}
	idx := make([]int32, 200000)
	for i := range idx {
		idx[i] = int32(i * 7 % 100000)
	}
	benchStep(b, scatterOp(c, binRegion("stablehlo.add", ir.F32)), make([]byte, 100000*4), i32s(idx...), make([]byte, 200000*4))
}

// randIdx is n pseudo-random indices in [0, hi): scattered loads and
// stores, as real index data makes them.
func randIdx(n, hi int) []int32 {
	idx := make([]int32, n)
	x := uint64(88172645463325252)
	for i := range idx {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		idx[i] = int32(x % uint64(hi))
	}
	return idx
}

// randF32 is n pseudo-random floats in [-1, 1).
func randF32(n int) []byte {
	v := make([]float32, n)
	for i, x := range randIdx(n, 1<<24) {
		v[i] = float32(x)/(1<<23) - 1
	}
	return f32s(v...)
}

func BenchmarkScatterAddRowsRandom(b *testing.B) {
	c := scatterCase{operand: []int64{10000, 64}, idx: []int64{16384}, upd: []int64{16384, 64}, windowDims: []int64{1},
		inserted: []int64{0}, sdo: []int64{0}, ivd: 1}
	benchStep(b, scatterOp(c, binRegion("stablehlo.add", ir.F32)), make([]byte, 10000*64*4), i32s(randIdx(16384, 10000)...),
		randF32(16384*64))
}

func BenchmarkScatterMaxScalarsRandom(b *testing.B) {
	c := scatterCase{operand: []int64{1000}, idx: []int64{1 << 20}, upd: []int64{1 << 20}, inserted: []int64{0}, sdo: []int64{0}, ivd: 1}
	benchStep(b, scatterOp(c, binRegion("stablehlo.maximum", ir.F32)), make([]byte, 1000*4), i32s(randIdx(1<<20, 1000)...),
		randF32(1<<20))
}

// take_along_axis as JAX's preamble folding leaves it: a batched fill
// gather reading the int32 indices themselves, negative ones wrapped.
func BenchmarkTakeAlongAxisFill(b *testing.B) {
	c := gatherCase{operand: []int64{256, 4096}, idx: []int64{256, 4096}, collapsed: []int64{1}, opB: []int64{0},
		idxB: []int64{0}, sim: []int64{1}, ivd: 2, sizes: []int64{1, 1}}
	op := gatherOp(c)
	op.Attrs[GatherFillAttr] = &ir.ElementsAttr{Type: ir.Tensor(ir.F32), Data: f32s(float32(math.NaN()))}
	op.Attrs[WrapIndicesAttr] = ir.IntAttr{Value: 4096, Type: ir.S64}
	benchStep(b, op, randF32(256*4096), i32s(randIdx(256*4096, 4096)...))
}

func BenchmarkTakeAlongAxisFillGoLoop(b *testing.B) {
	saved := vectorTakeFill
	vectorTakeFill = false
	defer func() { vectorTakeFill = saved }()
	BenchmarkTakeAlongAxisFill(b)
}

// jnp.zeros(65536).at[i].add(v): f32 point adds in update order.
func BenchmarkScatterAddScalarsRandom(b *testing.B) {
	c := scatterCase{operand: []int64{65536}, idx: []int64{1 << 20}, upd: []int64{1 << 20}, inserted: []int64{0}, sdo: []int64{0}, ivd: 1}
	benchStep(b, scatterOp(c, binRegion("stablehlo.add", ir.F32)), make([]byte, 65536*4), i32s(randIdx(1<<20, 65536)...),
		randF32(1<<20))
}

// bincount(x, length=1000): one int32 one (splat) added per index.
func BenchmarkBincountRandom(b *testing.B) {
	op := mkOpR("stablehlo.scatter",
		[]ir.Type{ir.Tensor(ir.S32, 1000), ir.Tensor(ir.S32, 1<<20), ir.Tensor(ir.S32)},
		[]ir.Type{ir.Tensor(ir.S32, 1000)}, ir.Attrs{
			"update_window_dims": i64a(), "inserted_window_dims": i64a(0), "input_batching_dims": i64a(),
			"scatter_indices_batching_dims": i64a(), "scatter_dims_to_operand_dims": i64a(0),
			"index_vector_dim": ir.IntAttr{Value: 1}}, binRegion("stablehlo.add", ir.S32))
	op.Attrs[SplatUpdatesAttr] = ir.DenseI64Attr{Values: []int64{1 << 20}}
	benchStep(b, op, make([]byte, 1000*4), i32s(randIdx(1<<20, 1000)...), i32s(1))
}

// segment_sum(d, sorted ids, 1000): runs of about a thousand equal indices.
func BenchmarkSegmentSumSorted(b *testing.B) {
	c := scatterCase{operand: []int64{1000}, idx: []int64{1 << 20}, upd: []int64{1 << 20}, inserted: []int64{0}, sdo: []int64{0}, ivd: 1}
	idx := randIdx(1<<20, 1000)
	slices.Sort(idx)
	benchStep(b, scatterOp(c, binRegion("stablehlo.add", ir.F32)), make([]byte, 1000*4), i32s(idx...), randF32(1<<20))
}
