package compiler

import (
	"math"
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// dotTransposeModule builds main(x, y) = transpose(dot_general(x, y), perm);
// with keepDot the dot's result is returned too, which keeps it from being
// folded (the reference the folded program must equal bit for bit).
func dotTransposeModule(xt, yt *ir.TensorType, batch, contract []int64, dotT, outT *ir.TensorType, perm []int64, keepDot bool) *ir.Module {
	mb := newMod()
	outs := []ir.Type{outT}
	if keepDot {
		outs = append(outs, dotT)
	}
	mb.fn("main", "public", []ir.Type{xt, yt}, outs, func(b *blkB, a []*ir.Value) []*ir.Value {
		d := b.v("stablehlo.dot_general", dotT, ir.Attrs{
			"lhs_batching_dimensions":    ir.DenseI64Attr{Values: batch},
			"rhs_batching_dimensions":    ir.DenseI64Attr{Values: batch},
			"lhs_contracting_dimensions": ir.DenseI64Attr{Values: contract},
			"rhs_contracting_dimensions": ir.DenseI64Attr{Values: contract},
			"precision_config": ir.ArrayAttr{Elems: []ir.Attr{
				ir.EnumAttr{Value: "DEFAULT"}, ir.EnumAttr{Value: "HIGHEST"}}},
		}, a[0], a[1])
		tr := b.v("stablehlo.transpose", outT, ir.Attrs{"permutation": ir.DenseI64Attr{Values: perm}}, d)
		if keepDot {
			return []*ir.Value{tr, d}
		}
		return []*ir.Value{tr}
	})
	return mb.m
}

func countIROps(m *ir.Module, name string) int {
	n := 0
	m.Main().Body.Walk(func(op *ir.Op) bool {
		if op.Name == name {
			n++
		}
		return true
	})
	return n
}

func pseudoRandom(n int, seed float64) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(math.Sin(seed+float64(i)*0.7311) * 3)
	}
	return out
}

func TestDotTransposeFoldsIntoSwappedDot(t *testing.T) {
	for _, tc := range []struct {
		name            string
		xt, yt          *ir.TensorType
		batch, contract []int64
		dotT, outT      *ir.TensorType
		perm            []int64
	}{
		// dW = transpose(dot(dy, x)) as JAX's matmul transpose rule emits it.
		{"weight gradient", f32t(300, 7), f32t(300, 9), nil, []int64{0}, f32t(7, 9), f32t(9, 7), []int64{1, 0}},
		{"batched", f32t(2, 40, 5), f32t(2, 40, 6), []int64{0}, []int64{1}, f32t(2, 5, 6), f32t(2, 6, 5), []int64{0, 2, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := dotTransposeModule(tc.xt, tc.yt, tc.batch, tc.contract, tc.dotT, tc.outT, tc.perm, false)
			st := &passState{module: m, entry: m.Main()}
			require.NoError(t, foldDotTranspose(st))
			require.NoError(t, checkInvariants(m))
			require.Equal(t, 0, countIROps(m, "stablehlo.transpose"))
			require.Equal(t, 1, countIROps(m, "stablehlo.dot_general"))
			var dot *ir.Op
			m.Main().Body.Walk(func(op *ir.Op) bool {
				if op.Name == "stablehlo.dot_general" {
					dot = op
				}
				return true
			})
			require.Equal(t, "HIGHEST", dot.Attrs["precision_config"].(ir.ArrayAttr).Elems[0].(ir.EnumAttr).Value, "precisions swap with the operands")
			require.True(t, ir.TypesEqual(tc.outT, dot.Results[0].Type))

			x := pseudoRandom(int(tc.xt.NumElements()), 1)
			y := pseudoRandom(int(tc.yt.NumElements()), 2)
			folded := run(t, compile(t, dotTransposeModule(tc.xt, tc.yt, tc.batch, tc.contract, tc.dotT, tc.outT, tc.perm, false)), f32s(x...), f32s(y...))
			refMod := dotTransposeModule(tc.xt, tc.yt, tc.batch, tc.contract, tc.dotT, tc.outT, tc.perm, true)
			ref := run(t, compile(t, refMod), f32s(x...), f32s(y...))
			require.Equal(t, ref[0], folded[0], "same products summed in the same order")
		})
	}
}

func TestDotTransposeLeftAlone(t *testing.T) {
	// The dot's result is also returned: folding would compute it twice.
	m := dotTransposeModule(f32t(3, 4), f32t(3, 5), nil, []int64{0}, f32t(4, 5), f32t(5, 4), []int64{1, 0}, true)
	require.NoError(t, foldDotTranspose(&passState{module: m, entry: m.Main()}))
	require.Equal(t, 1, countIROps(m, "stablehlo.transpose"))

	// A permutation that moves the batch dimension is not a block swap.
	m = dotTransposeModule(f32t(2, 3, 4), f32t(2, 3, 5), []int64{0}, []int64{1}, f32t(2, 4, 5), f32t(4, 2, 5), []int64{1, 0, 2}, false)
	require.NoError(t, foldDotTranspose(&passState{module: m, entry: m.Main()}))
	require.Equal(t, 1, countIROps(m, "stablehlo.transpose"))
}

// A partitioned program all-reduces a weight gradient between its dot and
// its transpose: the transpose still folds, and the all_reduce reduces the
// swapped dot's result instead.
func TestDotTransposeFoldsThroughAllReduce(t *testing.T) {
	xt, yt, dotT, outT := f32t(300, 7), f32t(300, 9), f32t(7, 9), f32t(9, 7)
	build := func() *ir.Module {
		mb := newMod()
		mb.fn("main", "public", []ir.Type{xt, yt}, []ir.Type{outT}, func(b *blkB, a []*ir.Value) []*ir.Value {
			d := b.v("stablehlo.dot_general", dotT, ir.Attrs{
				"lhs_batching_dimensions":    ir.DenseI64Attr{},
				"rhs_batching_dimensions":    ir.DenseI64Attr{},
				"lhs_contracting_dimensions": ir.DenseI64Attr{Values: []int64{0}},
				"rhs_contracting_dimensions": ir.DenseI64Attr{Values: []int64{0}},
			}, a[0], a[1])
			s := b.psum(d, &ir.ElementsAttr{Type: ir.Tensor(ir.S64, 1, 1), Data: make([]byte, 8)})
			return []*ir.Value{b.v("stablehlo.transpose", outT, ir.Attrs{"permutation": ir.DenseI64Attr{Values: []int64{1, 0}}}, s)}
		})
		return mb.m
	}
	m := build()
	st := &passState{module: m, entry: m.Main()}
	require.NoError(t, foldDotTranspose(st))
	require.NoError(t, checkInvariants(m))
	require.Equal(t, 0, countIROps(m, "stablehlo.transpose"))
	ops := m.Main().Body.Blocks[0].Ops
	var ar *ir.Op
	for _, op := range ops {
		if op.Name == "stablehlo.all_reduce" {
			ar = op
		}
	}
	require.NotNil(t, ar)
	require.Equal(t, "stablehlo.dot_general", ar.Operands[0].Def.Name)
	require.True(t, ir.TypesEqual(outT, ar.Results[0].Type))
	require.Len(t, ar.Regions, 1)
	require.Same(t, ar, ar.Regions[0].Parent)

	x := pseudoRandom(int(xt.NumElements()), 1)
	y := pseudoRandom(int(yt.NumElements()), 2)
	got := run(t, compile(t, build()), f32s(x...), f32s(y...))
	ref := run(t, compile(t, dotTransposeModule(xt, yt, nil, []int64{0}, dotT, outT, []int64{1, 0}, true)), f32s(x...), f32s(y...))
	require.Equal(t, ref[0], got[0])
}
