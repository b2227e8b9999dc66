package reduce

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/lowerutil"
)

func sasOp(et ir.ElemType, in, src, win, strides, pads []int64, sel, sc *ir.Region) *ir.Op {
	return mkOp("stablehlo.select_and_scatter", []ir.Type{ir.Tensor(et, in...), ir.Tensor(et, src...), ir.Tensor(et)},
		[]ir.Type{ir.Tensor(et, in...)}, ir.Attrs{"window_dimensions": i64a(win...), "window_strides": i64a(strides...),
			"padding": i64a(pads...)}, sel, sc)
}

// refSelectAndScatter: first valid element of each window wins unless a later
// one is not "kept" by select (GE keeps the first maximum).
func refSelectAndScatter(in []float32, shape, src, win, strides, pads []int64, source []float32, init float32) []float32 {
	out := make([]float32, len(in))
	for i := range out {
		out[i] = init
	}
	for s := range lowerutil.Numel(src) {
		si := unravel(s, src)
		best := int64(-1)
		for w := range lowerutil.Numel(win) {
			wi := unravel(w, win)
			off := int64(0)
			ok := true
			for d := range shape {
				c := si[d]*strides[d] + wi[d] - pads[2*d]
				if c < 0 || c >= shape[d] {
					ok = false
				}
				off = off*shape[d] + c
			}
			if !ok {
				continue
			}
			if best < 0 || !(in[best] >= in[off]) {
				best = off
			}
		}
		if best >= 0 {
			out[best] += source[s]
		}
	}
	return out
}

func TestSelectAndScatter(t *testing.T) {
	cases := []struct{ shape, src, win, strides, pads []int64 }{
		{[]int64{4, 4}, []int64{2, 2}, []int64{2, 2}, []int64{2, 2}, []int64{0, 0, 0, 0}},
		{[]int64{5, 5}, []int64{5, 5}, []int64{3, 3}, []int64{1, 1}, []int64{1, 1, 1, 1}},
		{[]int64{6}, []int64{3}, []int64{3}, []int64{2}, []int64{1, 0}},
		{[]int64{2, 40, 40}, []int64{2, 20, 20}, []int64{1, 3, 3}, []int64{1, 2, 2}, []int64{0, 0, 1, 0, 1, 0}},
	}
	rng := rand.New(rand.NewSource(8))
	for _, c := range cases {
		in := make([]float32, lowerutil.Numel(c.shape))
		for i := range in {
			in[i] = float32(rng.Intn(5)) // many ties: GE keeps the first
		}
		source := make([]float32, lowerutil.Numel(c.src))
		for i := range source {
			source[i] = float32(rng.Intn(9) + 1)
		}
		want := refSelectAndScatter(in, c.shape, c.src, c.win, c.strides, c.pads, source, 0.5)
		for _, generic := range []bool{false, true} {
			for _, ctx := range testCtxs {
				t.Run(fmt.Sprint(c.shape, generic, ctx.chunk), func(t *testing.T) {
					sel := simpleComparator(ir.F32, "GE", "FLOAT", 1)
					sc := binRegion("stablehlo.add", ir.F32)
					if generic {
						// An unused constant defeats pattern matching: regions are interpreted.
						for _, r := range []*ir.Region{sel, sc} {
							b := r.Blocks[0]
							extra := ir.NewOp("stablehlo.constant", nil, []ir.Type{scalarT(ir.F32)},
								ir.Attrs{"value": &ir.ElementsAttr{Type: scalarT(ir.F32), Data: f32s(1)}})
							extra.Block = b
							b.Ops = append([]*ir.Op{extra}, b.Ops...)
						}
					}
					got := runOp(t, ctx, sasOp(ir.F32, c.shape, c.src, c.win, c.strides, c.pads, sel, sc),
						f32s(in...), f32s(source...), f32s(0.5))
					require.Equal(t, want, toF32(got[0]))
				})
			}
		}
	}
}
