package shape

import (
	"fmt"
	"math"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// Row scatters, split between workers by destination row or not, give the
// serial update-order result bit for bit: float adds of values of mixed
// magnitudes (whose sums depend on the order), replace (the last update
// wins), repeated and out-of-range indices, and negative indices moved by
// the wrap attribute.
func TestRowScatterMatchesSerialOrder(t *testing.T) {
	defer splitRowScatters()()
	const rows, updates = 50, 6000 // 6000 rows of 12: above the (lowered) parallel threshold
	c := scatterCase{operand: []int64{rows, 3, 4}, idx: []int64{updates}, upd: []int64{updates, 3, 4}, windowDims: []int64{1, 2},
		inserted: []int64{0}, sdo: []int64{0}, ivd: 1}
	idx := randIdx(updates, rows+20) // 20 past the end: skipped
	for i := 0; i < updates; i += 7 {
		idx[i] = -idx[i] - 1 // -1 .. -70: wrapped to 49 .. -20 (then skipped when still negative)
	}
	operand := make([]float32, rows*12)
	for i := range operand {
		operand[i] = float32(i)
	}
	upd := make([]float32, updates*12)
	for i, x := range randIdx(len(upd), 1<<20) {
		upd[i] = float32(x) * float32(math.Pow(2, float64(i%40-20)))
	}
	const wrap = rows
	wrapped := make([]int32, len(idx))
	for i, v := range idx {
		wrapped[i] = v
		if v < 0 {
			wrapped[i] += wrap
		}
	}
	for _, tc := range []struct {
		name string
		body *ir.Region
		f    func(a, b float32) float32
	}{
		{"add", binRegion("stablehlo.add", ir.F32), func(a, b float32) float32 { return a + b }},
		{"replace", replaceRegion(ir.F32), func(a, b float32) float32 { return b }},
	} {
		want := refScatter(c, operand, upd, wrapped, tc.f)
		for _, ctx := range testCtxs {
			op := scatterOp(c, tc.body)
			op.Attrs[WrapIndicesAttr] = ir.IntAttr{Value: wrap, Type: ir.S64}
			st := lower(t, ctx, op)
			out := make([]byte, len(operand)*4)
			require.NoError(t, st([][]byte{f32s(operand...), i32s(idx...), f32s(upd...)}, [][]byte{out}))
			got := toF32(out)
			for i := range want {
				require.Equal(t, math.Float32bits(want[i]), math.Float32bits(got[i]), "%s, chunk %d: element %d", tc.name, ctx.chunk, i)
			}
		}
	}
}

// Windows wider than an index step overlap and keep the general path;
// their result is still the spec's.
func TestRowScatterOverlappingWindows(t *testing.T) {
	c := scatterCase{operand: []int64{40, 5}, idx: []int64{300, 1}, upd: []int64{300, 3, 5}, windowDims: []int64{1, 2},
		sdo: []int64{0}, ivd: 1}
	idx := randIdx(300, 40)
	upd := make([]float32, 300*15)
	for i, x := range randIdx(len(upd), 1<<20) {
		upd[i] = float32(x) * float32(math.Pow(2, float64(i%30-15)))
	}
	operand := make([]float32, 200)
	want := refScatter(c, operand, upd, idx, func(a, b float32) float32 { return a + b })
	for _, ctx := range testCtxs {
		got := toF32(runOp(t, ctx, scatterOp(c, binRegion("stablehlo.add", ir.F32)), f32s(operand...), i32s(idx...), f32s(upd...))[0])
		for i := range want {
			require.Equal(t, math.Float32bits(want[i]), math.Float32bits(got[i]), "chunk %d: element %d", ctx.chunk, i)
		}
	}
}

// A scatter whose updates are one value standing for a whole shape
// (SplatUpdatesAttr) gives what it gives on the materialized updates: the
// point path reading the value, and the other paths on the expansion.
func TestScatterSplatUpdates(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    scatterCase
	}{
		{"points", scatterCase{operand: []int64{40}, idx: []int64{5000}, upd: []int64{5000}, inserted: []int64{0}, sdo: []int64{0}, ivd: 1}},
		{"rows", scatterCase{operand: []int64{40, 3}, idx: []int64{5000}, upd: []int64{5000, 3}, windowDims: []int64{1},
			inserted: []int64{0}, sdo: []int64{0}, ivd: 1}},
		{"general", scatterCase{operand: []int64{40, 3}, idx: []int64{500, 2}, upd: []int64{500}, inserted: []int64{0, 1},
			sdo: []int64{0, 1}, ivd: 1}},
	} {
		idx := randIdx(int(numElems(tc.c.idx)), 45) // some past the end
		operand := make([]float32, numElems(tc.c.operand))
		for i := range operand {
			operand[i] = float32(i)
		}
		full := make([]float32, numElems(tc.c.upd))
		for i := range full {
			full[i] = 1.5
		}
		for _, body := range []*ir.Region{binRegion("stablehlo.add", ir.F32), binRegion("stablehlo.maximum", ir.F32), replaceRegion(ir.F32)} {
			for _, ctx := range testCtxs {
				want := runOp(t, ctx, scatterOp(tc.c, body), f32s(operand...), i32s(idx...), f32s(full...))[0]
				op := scatterOp(tc.c, body)
				op.Operands[2] = &ir.Value{Type: ir.Tensor(ir.F32)}
				op.Attrs[SplatUpdatesAttr] = ir.DenseI64Attr{Values: tc.c.upd}
				got := runOp(t, ctx, op, f32s(operand...), i32s(idx...), f32s(1.5))[0]
				require.Equal(t, toF32(want), toF32(got), "%s chunk %d", tc.name, ctx.chunk)
			}
		}
	}
}

// Float row adds run the elementwise family's loop (registered in these
// tests, as in the plugin), which TestRowScatterMatchesSerialOrder checks
// bit for bit against the serial scalar sums.
func TestVectorRowRegistered(t *testing.T) {
	require.NotNil(t, vectorRow("stablehlo.add", ir.F32, 64))
	require.NotNil(t, vectorRow("stablehlo.add", ir.F64, 3))
	src, dst := f32s(1, 2, 3, 1e-8), f32s(1e8, -2, 0.5, 1)
	vectorRow("stablehlo.add", ir.F32, 4)(dst, src, 0, 1, 0, 1, 4)
	require.Equal(t, []float32{1e8 + 1, 0, 3.5, 1 + 1e-8}, toF32(dst))
}

// The block row adds (vector loops where the CPU has them, the row calls
// otherwise) give the serial loop's bits for f32 and f64 rows of every
// length around the vector widths, rows narrower than the operand's rows
// (gaps left as they were), repeated, wrapped and out-of-range indices,
// NaNs with payloads and signed zeros, on one worker or split.
func TestRowScatterAddBlocks(t *testing.T) {
	defer splitRowScatters()()
	for _, vec := range []bool{false, true} {
		saved := vectorAddRows
		vectorAddRows = vec && saved
		for _, et := range []ir.ElemType{ir.F32, ir.F64} {
			for _, w := range []int{2, 7, 8, 9, 15, 16, 17, 33, 64, 100} {
				for _, cols := range []int{w, w + 3} {
					t.Run(fmt.Sprintf("vec=%v/%s/w%d/cols%d", vectorAddRows, et, w, cols), func(t *testing.T) {
						for _, it := range []ir.ElemType{ir.S32, ir.S64} {
							if et == ir.F32 {
								checkRowAdds[float32](t, et, it, w, cols)
							} else {
								checkRowAdds[float64](t, et, it, w, cols)
							}
						}
					})
				}
			}
		}
		vectorAddRows = saved
	}
}

// splitRowScatters lowers the row scatters' parallel threshold to the
// plans' usual one, so that small scatters split; it returns the undo.
func splitRowScatters() func() {
	saved := rowScatterParallelMin
	rowScatterParallelMin = parallelMinElems
	return func() { rowScatterParallelMin = saved }
}

func checkRowAdds[T float32 | float64](t *testing.T, et, it ir.ElemType, w, cols int) {
	const rows, wrap = 37, 37
	updates := max(3000, 2*parallelMinElems/w) // split between workers (threshold lowered)
	idx32 := randIdx(updates, rows+10)         // 10 past the end: skipped
	idx := make([]int64, updates)
	for i, v := range idx32 {
		idx[i] = int64(v)
		if i%5 == 0 {
			idx[i] = -idx[i] - 1 // wrapped to rows-1 .. -10 (still negative: skipped)
		}
	}
	extremes := []int64{math.MinInt32, math.MaxInt32, -wrap, -wrap - 1, rows, rows - 1}
	if it == ir.S64 {
		extremes = append(extremes, math.MinInt64, math.MaxInt64, math.MinInt64+wrap, math.MaxInt64-rows, -1<<40, 1<<40)
	}
	for i, v := range extremes {
		idx[(i*7919+3)%updates] = v
	}
	operand := make([]T, rows*cols)
	for i := range operand {
		operand[i] = T(i%11) - 5.5
	}
	operand[3] = T(math.Copysign(0, -1))
	upd := make([]T, updates*w)
	for i, x := range randIdx(len(upd), 1<<20) {
		upd[i] = T(x) * T(math.Pow(2, float64(i%40-20)))
		switch i % 997 {
		case 1:
			upd[i] = T(math.Copysign(0, -1))
		case 2:
			upd[i] = nanWithPayload[T](uint64(i))
		}
	}
	operand[cols+1] = nanWithPayload[T](5)
	want := append([]T(nil), operand...)
	for j, v := range idx {
		r := v
		if r < 0 {
			r += wrap
		}
		if r < 0 || r >= rows {
			continue
		}
		for k := range w {
			want[int(r)*cols+k] += upd[j*w+k]
		}
	}
	op := mkOpR("stablehlo.scatter",
		[]ir.Type{ir.Tensor(et, rows, int64(cols)), ir.Tensor(it, int64(updates)), ir.Tensor(et, int64(updates), int64(w))},
		[]ir.Type{ir.Tensor(et, rows, int64(cols))}, ir.Attrs{
			"update_window_dims": i64a(1), "inserted_window_dims": i64a(0),
			"input_batching_dims": i64a(), "scatter_indices_batching_dims": i64a(),
			"scatter_dims_to_operand_dims": i64a(0), "index_vector_dim": ir.IntAttr{Value: 1},
			"indices_are_sorted": ir.BoolAttr{}, "unique_indices": ir.BoolAttr{}, WrapIndicesAttr: ir.IntAttr{Value: wrap, Type: ir.S64}},
		binRegion("stablehlo.add", et))
	ctxs := []kernel.Context{nil, &poolCtx{}}
	for _, c := range testCtxs {
		ctxs = append(ctxs, c)
	}
	for ci, ctx := range ctxs {
		got := runOp(t, ctx, op, bytesOf(operand), encodeIndices(it, idx), bytesOf(upd))[0]
		g := byteview.As[T](got)
		for i := range want {
			require.Equal(t, bitsOf(want[i]), bitsOf(g[i]), "context %d: element %d (row %d)", ci, i, i/cols)
		}
	}
}

func nanWithPayload[T float32 | float64](p uint64) T {
	var z T
	if any(z) == any(float32(0)) {
		return T(math.Float32frombits(0x7fc00000 | uint32(p&0x3fffff)))
	}
	return T(math.Float64frombits(0x7ff8000000000000 | p&0xfffffffffffff))
}

func bitsOf[T float32 | float64](v T) uint64 {
	if f, ok := any(v).(float32); ok {
		return uint64(math.Float32bits(f))
	}
	return math.Float64bits(float64(v))
}

func bytesOf[T byteview.Elem](v []T) []byte {
	b := make([]byte, len(v)*int(unsafe.Sizeof(v[0])))
	copy(byteview.As[T](b), v)
	return b
}
