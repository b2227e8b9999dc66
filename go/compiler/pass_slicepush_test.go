package compiler

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
)

// slice(pad(concatenate(a, b))) with random starts, limits and strides: the
// pushed-down program gives the bits of the same program whose pad and
// concatenate are also returned (which keeps the pass from moving the
// slice), and no full-size pad or concatenate is left unless a dimension
// keeps padding only.
func TestSlicePushMatchesUnpushed(t *testing.T) {
	needOps(t, "stablehlo.slice", "stablehlo.pad", "stablehlo.concatenate")
	rng := rand.New(rand.NewSource(7))
	aShape, bShape := []int64{2, 5, 4}, []int64{2, 3, 4}
	low, high := []int64{0, 1, 2}, []int64{1, 2, 0}
	catShape := []int64{2, 8, 4}
	padShape := []int64{3, 11, 6}
	build := func(start, limit, stride []int64, keep bool) *ir.Module {
		count := make([]int64, 3)
		for i := range count {
			count[i] = (limit[i] - start[i] + stride[i] - 1) / stride[i]
		}
		outs := []ir.Type{f32t(count...)}
		if keep {
			outs = append(outs, f32t(padShape...), f32t(catShape...))
		}
		mb := newMod()
		mb.fn("main", "public", []ir.Type{f32t(aShape...), f32t(bShape...)}, outs, func(b *blkB, a []*ir.Value) []*ir.Value {
			cat := b.v("stablehlo.concatenate", f32t(catShape...), ir.Attrs{"dimension": ir.IntAttr{Value: 1}}, a[0], a[1])
			pad := b.v("stablehlo.pad", f32t(padShape...), ir.Attrs{
				"edge_padding_low": ir.DenseI64Attr{Values: low}, "edge_padding_high": ir.DenseI64Attr{Values: high},
				"interior_padding": ir.DenseI64Attr{Values: []int64{0, 0, 0}}}, cat, b.f32c(nil, -7.5))
			sl := b.v("stablehlo.slice", f32t(count...), ir.Attrs{
				"start_indices": ir.DenseI64Attr{Values: start}, "limit_indices": ir.DenseI64Attr{Values: limit},
				"strides": ir.DenseI64Attr{Values: stride}}, pad)
			if keep {
				return []*ir.Value{sl, pad, cat}
			}
			return []*ir.Value{sl}
		})
		return mb.m
	}
	av, bv := make([]float32, 2*5*4), make([]float32, 2*3*4)
	for i := range av {
		av[i] = float32(i) + 0.25
	}
	for i := range bv {
		bv[i] = -float32(i) - 0.5
	}
	for c := range 80 {
		start, limit, stride := make([]int64, 3), make([]int64, 3), make([]int64, 3)
		for i, n := range padShape {
			start[i] = rng.Int63n(n)
			limit[i] = start[i] + 1 + rng.Int63n(n-start[i])
			stride[i] = 1 + rng.Int63n(3)
		}
		if c == 0 { // the broad suite's [:, ::2, 1:-1]
			start, limit, stride = []int64{0, 0, 1}, []int64{3, 11, 5}, []int64{1, 2, 1}
		}
		name := fmt.Sprint(start, limit, stride)
		m := build(start, limit, stride, false)
		st := &passState{module: m, entry: m.Main()}
		require.NoError(t, pushSlices(st), name)
		require.NoError(t, checkInvariants(m), name)
		require.NoError(t, eliminateDeadCode(st), name)
		// Pushed unless a dimension keeps padding only.
		keepsOperand := true
		for i := range start {
			some := false
			for q := start[i]; q < limit[i]; q += stride[i] {
				some = some || (q >= low[i] && q < low[i]+catShape[i])
			}
			keepsOperand = keepsOperand && some
		}
		m.Main().Body.Walk(func(op *ir.Op) bool {
			if keepsOperand && (op.Name == "stablehlo.pad" || op.Name == "stablehlo.concatenate") {
				out := op.Results[0].StaticTensor()
				require.False(t, ir.TypesEqual(out, f32t(padShape...)) || ir.TypesEqual(out, f32t(catShape...)), "%s: %s left whole", name, op.Name)
			}
			return true
		})
		got := run(t, compile(t, build(start, limit, stride, false)), f32s(av...), f32s(bv...))[0]
		want := run(t, compile(t, build(start, limit, stride, true)), f32s(av...), f32s(bv...))[0]
		require.Equal(t, toF32(want), toF32(got), name)
	}
}
