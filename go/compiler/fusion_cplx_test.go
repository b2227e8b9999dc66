package compiler

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
)

// (x + conj(xᵀ))/2 on complex64, as JAX writes the symmetrization in front
// of a Cholesky factorization: conj arrives as complex(real(t), -imag(t)).
// real, imag and complex now join the fusion with the add and the divide
// by a broadcast 2 (the complex64 divide-by-scalar loop); the fused plan
// must give the unfused plan's bits, for specials (signed zeros,
// infinities, NaNs with payloads, subnormals) and random values, at an odd
// size that leaves a partial fusion block.
func TestFusionComplexSymmetrizeMatchesUnfused(t *testing.T) {
	needOps(t, "stablehlo.real", "stablehlo.imag", "stablehlo.complex", "stablehlo.negate", "stablehlo.transpose",
		"stablehlo.add", "stablehlo.divide", "stablehlo.broadcast_in_dim")
	const n = 37
	c64 := ir.Tensor(ir.C64, n, n)
	f32 := ir.Tensor(ir.F32, n, n)
	for _, div := range []complex64{2, 3, complex(0.25, float32(math.Copysign(0, -1)))} {
		mb := newMod()
		mb.fn("main", "public", []ir.Type{c64}, []ir.Type{c64}, func(b *blkB, a []*ir.Value) []*ir.Value {
			tr := b.v("stablehlo.transpose", c64, ir.Attrs{"permutation": ir.DenseI64Attr{Values: []int64{1, 0}}}, a[0])
			re := b.v("stablehlo.real", f32, nil, tr)
			im := b.v("stablehlo.negate", f32, nil, b.v("stablehlo.imag", f32, nil, tr))
			conj := b.v("stablehlo.complex", c64, nil, re, im)
			d := b.constant(ir.Tensor(ir.C64), f32s(real(div), imag(div)))
			two := b.v("stablehlo.broadcast_in_dim", c64, ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{}}, d)
			return []*ir.Value{b.hlo("divide", b.hlo("add", a[0], conj), two)}
		})
		ref, err := CompileModule(mb.m, Options{NoFuse: true})
		require.NoError(t, err)
		fused, err := CompileModule(mb.m, Options{})
		require.NoError(t, err)
		require.Less(t, fused.Stats().KernelSteps, 3, "transpose and one fusion\n%s", fused.PlanText())
		specials := []float32{0, float32(math.Copysign(0, -1)), 1, -2.5, float32(math.Inf(1)), float32(math.Inf(-1)),
			math.Float32frombits(0x7fc00001), math.Float32frombits(0xffc00abc), 0x1p-149, -0x1p-130, 3.4e38, -3.4e38}
		r := rand.New(rand.NewPCG(uint64(n), 7))
		parts := make([]float32, 2*n*n)
		for i := range parts {
			if r.IntN(3) == 0 {
				parts[i] = specials[r.IntN(len(specials))]
			} else {
				parts[i] = float32(r.NormFloat64() * math.Pow(10, float64(r.IntN(20)-10)))
			}
		}
		args := [][]byte{f32s(parts...)}
		want := runCopy(t, ref, args, []bool{false})
		got := runCopy(t, fused, args, []bool{false})
		require.Equal(t, want, got, "divisor %v\n%s", div, fused.PlanText())
	}
}
