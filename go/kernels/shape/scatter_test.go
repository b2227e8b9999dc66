package shape

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/lowerutil"
	"github.com/gojax/gojax/go/kernels/kernel"
)

type scatterCase struct {
	name                                 string
	operand, idx, upd                    []int64
	windowDims, inserted, opB, idxB, sdo []int64
	ivd                                  int64
	unique                               bool
}

// refScatter follows the spec per update element, skipping every element of
// a window whose start does not fit (XLA semantics).
func refScatter(c scatterCase, operand, updates []float32, indices []int32, f func(a, b float32) float32) []float32 {
	out := append([]float32(nil), operand...)
	var scatterDims []int64
	for d := range c.upd {
		if !contains(c.windowDims, int64(d)) {
			scatterDims = append(scatterDims, int64(d))
		}
	}
	winSize := make([]int64, len(c.operand))
	wi := 0
	for d := range c.operand {
		winSize[d] = 1
		if !contains(c.inserted, int64(d)) && !contains(c.opB, int64(d)) {
			winSize[d] = c.upd[c.windowDims[wi]]
			wi++
		}
	}
	for u := range lowerutil.Numel(c.upd) {
		ui := unravel(u, c.upd)
		usi := make([]int64, len(scatterDims))
		for i, d := range scatterDims {
			usi[i] = ui[d]
		}
		siIdx := make([]int64, len(c.idx))
		bi := 0
		for d := range c.idx {
			if int64(d) != c.ivd {
				siIdx[d] = usi[bi]
				bi++
			}
		}
		n := 1
		if int(c.ivd) < len(c.idx) {
			n = int(c.idx[c.ivd])
		}
		full := make([]int64, len(c.operand))
		ok := true
		for k := range n {
			if int(c.ivd) < len(c.idx) {
				siIdx[c.ivd] = int64(k)
			}
			s := int64(indices[ravel(siIdx, c.idx)])
			d := c.sdo[k]
			if s < 0 || s > c.operand[d]-winSize[d] {
				ok = false
			}
			full[d] = s
		}
		if !ok {
			continue
		}
		for i, od := range c.opB {
			p := c.idxB[i]
			if p >= c.ivd {
				p--
			}
			full[od] += usi[p]
		}
		wi := 0
		for d := range c.operand {
			if contains(c.inserted, int64(d)) || contains(c.opB, int64(d)) {
				continue
			}
			full[d] += ui[c.windowDims[wi]]
			wi++
		}
		o := ravel(full, c.operand)
		out[o] = f(out[o], updates[u])
	}
	return out
}

func scatterOp(c scatterCase, body *ir.Region) *ir.Op {
	return mkOpR("stablehlo.scatter",
		[]ir.Type{ir.Tensor(ir.F32, c.operand...), ir.Tensor(ir.S32, c.idx...), ir.Tensor(ir.F32, c.upd...)},
		[]ir.Type{ir.Tensor(ir.F32, c.operand...)}, ir.Attrs{
			"update_window_dims": i64a(c.windowDims...), "inserted_window_dims": i64a(c.inserted...),
			"input_batching_dims": i64a(c.opB...), "scatter_indices_batching_dims": i64a(c.idxB...),
			"scatter_dims_to_operand_dims": i64a(c.sdo...), "index_vector_dim": ir.IntAttr{Value: c.ivd},
			"indices_are_sorted": ir.BoolAttr{}, "unique_indices": ir.BoolAttr{Value: c.unique}}, body)
}

func mkOpR(name string, operands, results []ir.Type, attrs ir.Attrs, regions ...*ir.Region) *ir.Op {
	op := mkOp(name, operands, results, attrs)
	for _, r := range regions {
		op.AddRegion(r)
	}
	return op
}

// binRegion builds ^bb(a, b): r = opName(a, b); return r.
func binRegion(opName string, et ir.ElemType) *ir.Region {
	b := ir.NewBlock(ir.Tensor(et), ir.Tensor(et))
	o := b.Append(ir.NewOp(opName, []*ir.Value{b.Args[0], b.Args[1]}, []ir.Type{ir.Tensor(et)}, nil))
	b.Append(ir.NewOp("stablehlo.return", []*ir.Value{o.Result()}, nil, nil))
	return ir.NewRegion(b)
}

func replaceRegion(et ir.ElemType) *ir.Region {
	b := ir.NewBlock(ir.Tensor(et), ir.Tensor(et))
	b.Append(ir.NewOp("stablehlo.return", []*ir.Value{b.Args[1]}, nil, nil))
	return ir.NewRegion(b)
}

// affine is a fake compiled region computing 2*cur + upd on f32 scalars.
type affine struct{ calls int }

func (a *affine) Call(ins, outs [][]byte) error {
	a.calls++
	x := math.Float32frombits(binary.LittleEndian.Uint32(ins[0]))
	y := math.Float32frombits(binary.LittleEndian.Uint32(ins[1]))
	binary.LittleEndian.PutUint32(outs[0], math.Float32bits(2*x+y))
	return nil
}

func TestScatterMatchesSpec(t *testing.T) {
	cases := []scatterCase{
		{name: "rows", operand: []int64{6, 4}, idx: []int64{5, 1}, upd: []int64{5, 4}, windowDims: []int64{1}, inserted: []int64{0}, sdo: []int64{0}, ivd: 1},
		{name: "rows of 7", operand: []int64{6, 7}, idx: []int64{9, 1}, upd: []int64{9, 7}, windowDims: []int64{1}, inserted: []int64{0}, sdo: []int64{0}, ivd: 1},
		{name: "points implicit ivd", operand: []int64{7}, idx: []int64{9}, upd: []int64{9}, inserted: []int64{0}, sdo: []int64{0}, ivd: 1},
		{name: "2d points", operand: []int64{5, 5}, idx: []int64{6, 2}, upd: []int64{6}, inserted: []int64{0, 1}, sdo: []int64{0, 1}, ivd: 1},
		{name: "windows", operand: []int64{6, 5, 4}, idx: []int64{2, 3, 2}, upd: []int64{2, 3, 3, 2}, windowDims: []int64{2, 3}, inserted: []int64{1}, sdo: []int64{1, 0}, ivd: 2},
		{name: "window dims first", operand: []int64{7, 3}, idx: []int64{4}, upd: []int64{3, 4}, windowDims: []int64{0}, inserted: []int64{0}, sdo: []int64{0}, ivd: 1},
		{name: "batching", operand: []int64{3, 6, 4}, idx: []int64{3, 5, 1}, upd: []int64{3, 5, 4}, windowDims: []int64{2}, inserted: []int64{1}, opB: []int64{0}, idxB: []int64{0}, sdo: []int64{1}, ivd: 2},
		{name: "unique big", operand: []int64{3000, 30}, idx: []int64{2500, 1}, upd: []int64{2500, 30}, windowDims: []int64{1}, inserted: []int64{0}, sdo: []int64{0}, ivd: 1, unique: true},
		{name: "empty", operand: []int64{3, 2}, idx: []int64{0, 1}, upd: []int64{0, 2}, windowDims: []int64{1}, inserted: []int64{0}, sdo: []int64{0}, ivd: 1},
	}
	ops := map[string]func(a, b float32) float32{
		"stablehlo.add":      func(a, b float32) float32 { return a + b },
		"stablehlo.maximum":  func(a, b float32) float32 { return float32(math.Max(float64(a), float64(b))) },
		"stablehlo.multiply": func(a, b float32) float32 { return a * b },
		"replace":            func(a, b float32) float32 { return b },
		"generic":            func(a, b float32) float32 { return 2*a + b },
	}
	rng := rand.New(rand.NewSource(3))
	for _, c := range cases {
		indices := make([]int32, lowerutil.Numel(c.idx))
		for i := range indices {
			indices[i] = int32(rng.Intn(9) - 2)
		}
		if c.unique {
			perm := rng.Perm(int(c.operand[0]))
			for i := range indices {
				indices[i] = int32(perm[i])
			}
		}
		operand := make([]float32, lowerutil.Numel(c.operand))
		for i := range operand {
			operand[i] = float32(i%13) - 3
		}
		updates := make([]float32, lowerutil.Numel(c.upd))
		for i := range updates {
			updates[i] = float32(i%7) - 2
		}
		for name, f := range ops {
			want := refScatter(c, operand, updates, indices, f)
			for _, ctx := range testCtxs {
				t.Run(fmt.Sprint(c.name, name, ctx.chunk), func(t *testing.T) {
					var body *ir.Region
					cx := &fakeCtx{chunk: ctx.chunk, regions: map[*ir.Region]kernel.Callable{}}
					aff := &affine{}
					switch name {
					case "replace":
						body = replaceRegion(ir.F32)
					case "generic":
						body = binRegion("stablehlo.subtract", ir.F32)
						cx.regions[body] = aff
					default:
						body = binRegion(name, ir.F32)
					}
					got := runOp(t, cx, scatterOp(c, body), f32s(operand...), i32s(indices...), f32s(updates...))
					require.Equal(t, want, toF32(got[0]))
				})
			}
		}
	}
}

func TestScatterTypes(t *testing.T) {
	// bf16 add: 1 + 2 at index 1; pred or; i32 min; f16 max with NaN.
	c := scatterCase{operand: []int64{3}, idx: []int64{1, 1}, upd: []int64{1}, inserted: []int64{0}, sdo: []int64{0}, ivd: 1}
	mk := func(et ir.ElemType, body string) *ir.Op {
		return mkOpR("stablehlo.scatter", []ir.Type{ir.Tensor(et, 3), ir.Tensor(ir.S64, 1, 1), ir.Tensor(et, 1)},
			[]ir.Type{ir.Tensor(et, 3)}, ir.Attrs{
				"update_window_dims": i64a(), "inserted_window_dims": i64a(0), "input_batching_dims": i64a(),
				"scatter_indices_batching_dims": i64a(), "scatter_dims_to_operand_dims": i64a(0),
				"index_vector_dim": ir.IntAttr{Value: 1}}, binRegion(body, et))
	}
	_ = c
	got := runOp(t, testCtxs[0], mk(ir.BF16, "stablehlo.add"), []byte{0x80, 0x3f, 0x80, 0x3f, 0x80, 0x3f}, i64s_(1), []byte{0, 0x40})
	require.Equal(t, []byte{0x80, 0x3f, 0x40, 0x40, 0x80, 0x3f}, got[0])
	got = runOp(t, testCtxs[0], mk(ir.Pred, "stablehlo.or"), []byte{0, 0, 0}, i64s_(2), []byte{1})
	require.Equal(t, []byte{0, 0, 1}, got[0])
	got = runOp(t, testCtxs[0], mk(ir.S32, "stablehlo.minimum"), i32s(5, 5, 5), i64s_(0), i32s(-7))
	require.Equal(t, []int32{-7, 5, 5}, toI32(got[0]))
	got = runOp(t, testCtxs[0], mk(ir.F16, "stablehlo.maximum"), []byte{0, 0x3c, 0, 0x3c, 0, 0x3c}, i64s_(0), []byte{0, 0x7e})
	require.Equal(t, []byte{0, 0x7e, 0, 0x3c, 0, 0x3c}, got[0])
}

func TestScatterRegionFastPathDetection(t *testing.T) {
	require.Equal(t, "replace", scatterBody(replaceRegion(ir.F32), 1))
	require.Equal(t, "stablehlo.add", scatterBody(binRegion("stablehlo.add", ir.F32), 1))
	require.Equal(t, "", scatterBody(binRegion("stablehlo.subtract", ir.F32), 1))
}

func TestScatterEmptyWindow(t *testing.T) {
	c := scatterCase{operand: []int64{3, 0}, idx: []int64{2, 1}, upd: []int64{2, 0}, windowDims: []int64{1}, inserted: []int64{0}, sdo: []int64{0}, ivd: 1}
	for _, body := range []*ir.Region{binRegion("stablehlo.add", ir.F32), replaceRegion(ir.F32)} {
		got := runOp(t, testCtxs[0], scatterOp(c, body), nil, i32s(0, 1), nil)
		require.Empty(t, got[0])
	}
}

func TestScatterBoolAndSignedZeros(t *testing.T) {
	mk := func(et ir.ElemType, body string) *ir.Op {
		return mkOpR("stablehlo.scatter", []ir.Type{ir.Tensor(et, 2), ir.Tensor(ir.S32, 2, 1), ir.Tensor(et, 2)},
			[]ir.Type{ir.Tensor(et, 2)}, ir.Attrs{
				"update_window_dims": i64a(), "inserted_window_dims": i64a(0), "input_batching_dims": i64a(),
				"scatter_indices_batching_dims": i64a(), "scatter_dims_to_operand_dims": i64a(0),
				"index_vector_dim": ir.IntAttr{Value: 1}}, binRegion(body, et))
	}
	// i1 add is logical or: 1 + 1 stays 1.
	got := runOp(t, testCtxs[0], mk(ir.Pred, "stablehlo.add"), []byte{1, 0}, i32s(0, 0), []byte{1, 1})
	require.Equal(t, []byte{1, 0}, got[0])
	negZero := float32(math.Copysign(0, -1))
	got = runOp(t, testCtxs[0], mk(ir.F32, "stablehlo.maximum"), f32s(negZero, 0), i32s(0, 1), f32s(0, negZero))
	require.Equal(t, f32s(0, 0), got[0])
	got = runOp(t, testCtxs[0], mk(ir.F32, "stablehlo.minimum"), f32s(negZero, 0), i32s(0, 1), f32s(0, negZero))
	require.Equal(t, f32s(negZero, negZero), got[0])
}

func TestScatterInPlace(t *testing.T) {
	c := scatterCase{operand: []int64{4}, idx: []int64{2, 1}, upd: []int64{2}, inserted: []int64{0}, sdo: []int64{0}, ivd: 1}
	st := lower(t, testCtxs[0], scatterOp(c, binRegion("stablehlo.add", ir.F32)))
	buf := f32s(1, 2, 3, 4)
	require.NoError(t, st([][]byte{buf, i32s(3, 3), f32s(10, 20)}, [][]byte{buf}))
	require.Equal(t, []float32{1, 2, 3, 34}, toF32(buf))
}
