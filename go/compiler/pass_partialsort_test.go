package compiler

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/reduce"
)

// topKModule is what jaxlib hands plugins for lax.top_k(x, k) over the
// last dim of x: sort (x, iota) by TOTALORDER GT, then slices [.., 0:k]
// of both results; with alsoFull the sorted values are returned whole too.
func topKModule(rows, n, k int64, alsoFull bool, wideK int64) *ir.Module {
	mb := newMod()
	xt, it := f32t(rows, n), ir.Tensor(ir.S32, rows, n)
	outs := []ir.Type{f32t(rows, k), ir.Tensor(ir.S32, rows, k)}
	if alsoFull {
		outs = append(outs, xt)
	}
	if wideK > 0 {
		outs = append(outs, f32t(rows, wideK))
	}
	mb.fn("main", "public", []ir.Type{xt}, outs, func(b *blkB, a []*ir.Value) []*ir.Value {
		iota := b.v("stablehlo.iota", it, ir.Attrs{"iota_dimension": ir.IntAttr{Value: 1}})
		s := b.op("stablehlo.sort", []*ir.Value{a[0], iota}, []ir.Type{xt, it},
			ir.Attrs{"dimension": ir.IntAttr{Value: 1}, "is_stable": ir.BoolAttr{Value: true}})
		f, i := ir.Tensor(ir.F32), ir.Tensor(ir.S32)
		s.AddRegion(b.region([]ir.Type{f, f, i, i}, func(rb *blkB, r []*ir.Value) []*ir.Value {
			return []*ir.Value{rb.v("stablehlo.compare", ir.Tensor(ir.Pred), ir.Attrs{
				"comparison_direction": ir.EnumAttr{Kind: "comparison_direction", Value: "GT"},
				"compare_type":         ir.EnumAttr{Kind: "comparison_type", Value: "TOTALORDER"}}, r[0], r[1])}
		}))
		slice := func(v *ir.Value, t ir.Type, kk int64) *ir.Value {
			return b.v("stablehlo.slice", t, ir.Attrs{
				"start_indices": ir.DenseI64Attr{Values: []int64{0, 0}},
				"limit_indices": ir.DenseI64Attr{Values: []int64{rows, kk}},
				"strides":       ir.DenseI64Attr{Values: []int64{1, 1}}}, v)
		}
		res := []*ir.Value{slice(s.Results[0], outs[0], k), slice(s.Results[1], outs[1], k)}
		if alsoFull {
			res = append(res, s.Results[0])
		}
		if wideK > 0 {
			res = append(res, slice(s.Results[0], f32t(rows, wideK), wideK))
		}
		return res
	})
	return mb.m
}

func TestSortPrefixesBecomePartialSort(t *testing.T) {
	rows, n := int64(3), int64(1000)
	x := pseudoRandom(int(rows*n), 3)
	for i := range x {
		x[i] = float32(int(x[i] * 4)) // many equal values: positions break the ties
	}
	for _, k := range []int64{0, 1, 7, 100, 600} {
		m := topKModule(rows, n, k, false, k+50)
		require.NoError(t, sortPrefixes(&passState{module: m, entry: m.Main()}))
		require.NoError(t, checkInvariants(m))
		require.Equal(t, 1, countIROps(m, reduce.PartialSortOp))
		require.Equal(t, 0, countIROps(m, "stablehlo.sort"))
		require.Equal(t, 2, countIROps(m, "stablehlo.slice"), "the shorter prefixes still slice; the longest is the result")

		got := run(t, compile(t, topKModule(rows, n, k, false, k+50)), f32s(x...))
		ref := run(t, compile(t, topKModule(rows, n, k, true, k+50)), f32s(x...))
		full := toF32(ref[2])
		for r := range rows {
			require.Equal(t, full[r*n:r*n+k], toF32(got[0])[r*k:(r+1)*k])
			require.Equal(t, full[r*n:r*n+k+50], toF32(got[2])[r*(k+50):(r+1)*(k+50)])
		}
		require.Equal(t, ref[0], got[0])
		require.Equal(t, ref[1], got[1])
	}
}

func TestSortPrefixesWholeArgsort(t *testing.T) {
	// The whole sorted array is a result: the sort keeps everything, but
	// its iota operand goes (the kernel writes the positions).
	m := topKModule(2, 50, 5, true, 0)
	require.NoError(t, sortPrefixes(&passState{module: m, entry: m.Main()}))
	require.NoError(t, checkInvariants(m))
	require.Equal(t, 0, countIROps(m, "stablehlo.sort"))
	require.Equal(t, 1, countIROps(m, reduce.PartialSortOp))
	m.Main().Body.Walk(func(op *ir.Op) bool {
		if op.Name == reduce.PartialSortOp {
			require.Len(t, op.Operands, 1)
			require.Equal(t, ir.DenseI64Attr{Values: []int64{1}}, op.Attrs["positions"])
			k, _ := op.Attrs.Int("k")
			require.EqualValues(t, 50, k)
		}
		return true
	})
}

func TestSortPrefixesLeftAlone(t *testing.T) {
	// A whole sort without iota operands stays a sort.
	mb := newMod()
	xt := f32t(4, 30)
	mb.fn("main", "public", []ir.Type{xt, xt}, []ir.Type{xt, xt}, func(b *blkB, a []*ir.Value) []*ir.Value {
		s := b.op("stablehlo.sort", a, []ir.Type{xt, xt}, ir.Attrs{"dimension": ir.IntAttr{Value: 1}})
		f := ir.Tensor(ir.F32)
		s.AddRegion(b.region([]ir.Type{f, f, f, f}, func(rb *blkB, r []*ir.Value) []*ir.Value {
			return []*ir.Value{rb.v("stablehlo.compare", ir.Tensor(ir.Pred), ir.Attrs{
				"comparison_direction": ir.EnumAttr{Kind: "comparison_direction", Value: "LT"}}, r[0], r[1])}
		}))
		return s.Results
	})
	require.NoError(t, sortPrefixes(&passState{module: mb.m, entry: mb.m.Main()}))
	require.Equal(t, 1, countIROps(mb.m, "stablehlo.sort"))
	require.Equal(t, 0, countIROps(mb.m, reduce.PartialSortOp))
}
