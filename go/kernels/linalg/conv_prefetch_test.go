package linalg

import (
	"math/rand"
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// The pack's input prefetching only moves loads earlier: every f32
// convolution of convCases (the implicit-im2col ones include more rows than
// one A block, so the next block's prefetch runs) gives the same bits with
// it off and on, whatever the worker count.
func TestConvPrefetchKeepsBits(t *testing.T) {
	defer func(old bool) { convPrefetch = old }(convPrefetch)
	r := rand.New(rand.NewSource(7))
	for _, c := range convCases {
		nl, nr := 1, 1
		for _, x := range c.lhsShape {
			nl *= int(x)
		}
		for _, x := range c.rhsShape {
			nr *= int(x)
		}
		op := mkOp("stablehlo.convolution", []*ir.TensorType{ir.Tensor(ir.F32, c.lhsShape...), ir.Tensor(ir.F32, c.rhsShape...)},
			[]*ir.TensorType{ir.Tensor(ir.F32, c.outShape()...)}, c.attrs())
		x, y := f32Bytes(randF32(r, nl)), f32Bytes(randF32(r, nr))
		convPrefetch = false
		want := runOp(t, fakeCtx{1}, op, x, y)[0]
		convPrefetch = true
		for _, w := range []int{1, 2, 3} {
			require.Equal(t, want, runOp(t, fakeCtx{w}, op, x, y)[0], "%s workers=%d", c.name, w)
		}
	}
}
