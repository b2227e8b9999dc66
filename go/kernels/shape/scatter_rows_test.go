package shape

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
)

// Row scatters, split between workers by destination row or not, give the
// serial update-order result bit for bit: float adds of values of mixed
// magnitudes (whose sums depend on the order), replace (the last update
// wins), repeated and out-of-range indices, and negative indices moved by
// the wrap attribute.
func TestRowScatterMatchesSerialOrder(t *testing.T) {
	const rows, updates = 50, 6000 // 6000 rows of 12: above the parallel threshold
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
