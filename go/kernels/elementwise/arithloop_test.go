package elementwise

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/internal/cpufeat"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
	"github.com/stretchr/testify/require"
)

// TestArithLoopIsTheKernel: the loop fused members call for same-type
// f32/f64 arithmetic (arithLoop, without the kernel's wrapper) gives the
// op's kernel step's bits, on every vector set, for lengths around the
// vector width, with NaN, infinities and signed zeros among the operands.
func TestArithLoopIsTheKernel(t *testing.T) {
	defer useArith(cpufeat.Widest())
	rng := rand.New(rand.NewPCG(3, 4))
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1e-40, 3}
	for _, isa := range cpufeat.Sets() {
		useArith(isa)
		for name := range arithByName {
			for _, et := range []ir.ElemType{ir.F32, ir.F64} {
				for _, n := range []int64{1, 7, 16, 17, 100} {
					ty := ir.Tensor(et, n)
					blk := ir.NewBlock(ty, ty)
					op := blk.Append(ir.NewOp("stablehlo."+name, blk.Args, []ir.Type{ty}, nil))
					l, ok := kernel.TraitsOf(op.Name).Loop(op)
					require.True(t, ok, name)
					step, err := lowerWith(resolveBinary(name))(nil, op)
					require.NoError(t, err)
					a, b := make([]float64, n), make([]float64, n)
					for i := range a {
						a[i], b[i] = rng.NormFloat64(), rng.NormFloat64()
						if i%3 == 0 {
							b[i] = special[rng.IntN(len(special))]
						}
					}
					var ab, bb []byte
					if et == ir.F32 {
						a32, b32 := make([]float32, n), make([]float32, n)
						for i := range a {
							a32[i], b32[i] = float32(a[i]), float32(b[i])
						}
						ab, bb = byteview.Bytes(a32), byteview.Bytes(b32)
					} else {
						ab, bb = byteview.Bytes(a), byteview.Bytes(b)
					}
					want, got := make([]byte, len(ab)), make([]byte, len(ab))
					require.NoError(t, step([][]byte{ab, bb}, [][]byte{want}))
					l.F2(got, ab, bb)
					require.Equal(t, want, got, "isa %q %s %s n=%d", isa, name, et, n)
				}
			}
		}
	}
}
