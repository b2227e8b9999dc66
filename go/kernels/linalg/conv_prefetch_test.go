package linalg

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// TestConvPrefetchKeepsBits runs f32 NHWC/HWIO convolutions of odd shapes
// (widths not multiples of 14, channels not multiples of 16, padding,
// strides, dilations, 1-D and 3-D, more rows than one A block so the next
// block's prefetch runs) with the pack's prefetching on and off: the
// results must be the same bits, independent of the worker count and
// close to the reference.
func TestConvPrefetchKeepsBits(t *testing.T) {
	type geo struct {
		in, k       []int64 // spatial sizes
		ci, co      int64
		pad, st, rd []int64
	}
	geos := []geo{
		{in: []int64{9, 17}, k: []int64{3, 3}, ci: 5, co: 7, pad: []int64{1, 1, 1, 1}},
		{in: []int64{7, 31}, k: []int64{3, 3}, ci: 20, co: 33, pad: []int64{1, 1, 1, 1}},
		{in: []int64{6, 29}, k: []int64{3, 5}, ci: 17, co: 9},                            // VALID
		{in: []int64{8, 23}, k: []int64{2, 3}, ci: 16, co: 40, pad: []int64{0, 1, 2, 0}}, // asymmetric
		{in: []int64{9, 21}, k: []int64{3, 3}, ci: 19, co: 12, pad: []int64{1, 1, 1, 1}, st: []int64{2, 1}},
		{in: []int64{9, 21}, k: []int64{3, 3}, ci: 6, co: 12, pad: []int64{2, 2, 2, 2}, rd: []int64{2, 2}},
		{in: []int64{10, 20}, k: []int64{3, 3}, ci: 33, co: 35, pad: []int64{1, 1, 1, 1}, st: []int64{1, 2}},
		{in: []int64{5, 3}, k: []int64{3, 3}, ci: 32, co: 16, pad: []int64{1, 1, 1, 1}}, // lines shorter than a panel
		{in: []int64{40}, k: []int64{5}, ci: 18, co: 20, pad: []int64{2, 2}},
		{in: []int64{3, 4, 15}, k: []int64{2, 2, 3}, ci: 16, co: 8, pad: []int64{1, 0, 0, 1, 1, 1}},
	}
	r := rand.New(rand.NewSource(7))
	defer func(old bool) { convPrefetch = old }(convPrefetch)
	for gi, g := range geos {
		for _, nb := range []int64{1, 3} {
			s := int64(len(g.in))
			sp := make([]int64, s)
			kSp := make([]int64, s)
			for d := range sp {
				sp[d], kSp[d] = 1+int64(d), int64(d)
			}
			c := convCase{lhsShape: append(append([]int64{nb}, g.in...), g.ci), rhsShape: append(append([]int64{}, g.k...), g.ci, g.co),
				inB: 0, inF: s + 1, inSp: sp, kSp: kSp, kI: s, kO: s + 1, outB: 0, outF: s + 1, outSp: sp,
				pad: g.pad, strides: g.st, rhsDil: g.rd}
			t.Run(fmt.Sprintf("%d/n%d", gi, nb), func(t *testing.T) {
				nl, nr := 1, 1
				for _, x := range c.lhsShape {
					nl *= int(x)
				}
				for _, x := range c.rhsShape {
					nr *= int(x)
				}
				lhs, rhs := randF64(r, nl), randF64(r, nr)
				op := mkOp("stablehlo.convolution", []*ir.TensorType{ir.Tensor(ir.F32, c.lhsShape...), ir.Tensor(ir.F32, c.rhsShape...)},
					[]*ir.TensorType{ir.Tensor(ir.F32, c.outShape()...)}, c.attrs())
				x, y := f32Bytes(f32of(lhs)), f32Bytes(f32of(rhs))
				convPrefetch = false
				want := runOp(t, fakeCtx{1}, op, x, y)[0]
				convPrefetch = true
				for _, w := range []int{1, 2, 3} {
					require.Equal(t, want, runOp(t, fakeCtx{w}, op, x, y)[0], "workers=%d", w)
				}
				ref := refConv(c, lhs, rhs)
				for i, v := range bytesF32(want) {
					require.InDelta(t, ref[i], float64(v), 1e-4*(1+math.Abs(ref[i])), "element %d", i)
				}
			})
		}
	}
}
