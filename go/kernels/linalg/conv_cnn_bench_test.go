//go:build unix

package linalg

import (
	"math/rand"
	"testing"

	"github.com/gojax/gojax/go/ir"
)

// BenchmarkConvCNN: the five convolutions of an MNIST CNN training step
// (batch 128; 3x3 SAME convolutions 1->32 at 28x28 and 32->64 at 14x14),
// with the dimension numbers JAX emits for the forward pass and for the
// weight (wgrad) and input (dgrad) gradients.
func BenchmarkConvCNN(b *testing.B) {
	pad := []int64{1, 1, 1, 1}
	cases := []convCase{
		{name: "fwd1", lhsShape: []int64{128, 28, 28, 1}, rhsShape: []int64{3, 3, 1, 32}, inB: 0, inF: 3, inSp: []int64{1, 2}, kI: 2, kO: 3, kSp: []int64{0, 1}, outB: 0, outF: 3, outSp: []int64{1, 2}, pad: pad},
		{name: "wgrad1", lhsShape: []int64{128, 28, 28, 1}, rhsShape: []int64{128, 28, 28, 32}, inB: 3, inF: 0, inSp: []int64{1, 2}, kI: 0, kO: 3, kSp: []int64{1, 2}, outB: 2, outF: 3, outSp: []int64{0, 1}, pad: pad},
		{name: "fwd2", lhsShape: []int64{128, 14, 14, 32}, rhsShape: []int64{3, 3, 32, 64}, inB: 0, inF: 3, inSp: []int64{1, 2}, kI: 2, kO: 3, kSp: []int64{0, 1}, outB: 0, outF: 3, outSp: []int64{1, 2}, pad: pad},
		{name: "wgrad2", lhsShape: []int64{128, 14, 14, 32}, rhsShape: []int64{128, 14, 14, 64}, inB: 3, inF: 0, inSp: []int64{1, 2}, kI: 0, kO: 3, kSp: []int64{1, 2}, outB: 2, outF: 3, outSp: []int64{0, 1}, pad: pad},
		{name: "dgrad2", lhsShape: []int64{128, 14, 14, 64}, rhsShape: []int64{3, 3, 32, 64}, inB: 0, inF: 3, inSp: []int64{1, 2}, kI: 3, kO: 2, kSp: []int64{0, 1}, outB: 0, outF: 3, outSp: []int64{1, 2}, pad: pad, rev: []bool{true, true}},
	}
	r := rand.New(rand.NewSource(1))
	for _, c := range cases {
		nl, nr := 1, 1
		for _, x := range c.lhsShape {
			nl *= int(x)
		}
		for _, x := range c.rhsShape {
			nr *= int(x)
		}
		op := mkOp("stablehlo.convolution", []*ir.TensorType{ir.Tensor(ir.F32, c.lhsShape...), ir.Tensor(ir.F32, c.rhsShape...)},
			[]*ir.TensorType{ir.Tensor(ir.F32, c.outShape()...)}, c.attrs())
		flops := float64(convCost(op).Flops)
		ins := [][]byte{f32Bytes(f32of(randF64(r, nl))), f32Bytes(f32of(randF64(r, nr)))}
		b.Run(c.name, func(b *testing.B) { benchStep(b, op, ins, flops) })
	}
}
