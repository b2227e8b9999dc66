package reduce

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
)

// Fold gives each element what the region gives it (the test interpreter),
// across the chunks that f16/bf16 widen in; values are small integers so
// every type holds them and their sums and products exactly.
func TestFoldMatchesRegion(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	types := []ir.ElemType{ir.F32, ir.F64, ir.F16, ir.BF16, ir.S8, ir.U8, ir.S32, ir.U32, ir.S64}
	for _, et := range types {
		ops := []string{"stablehlo.add", "stablehlo.multiply", "stablehlo.maximum", "stablehlo.minimum"}
		if et.IsInteger() {
			ops = append(ops, "stablehlo.and", "stablehlo.or", "stablehlo.xor")
		}
		for _, name := range ops {
			t.Run(fmt.Sprintf("%s/%s", et, name), func(t *testing.T) {
				region := binRegion(name, et)
				fold := Fold(region, et)
				require.NotNil(t, fold)
				fn, err := (&fakeCtx{}).CompileRegion(region)
				require.NoError(t, err)
				const n = foldChunk*2 + 37
				es := et.ByteSize()
				dst, src := make([]byte, n*es), make([]byte, n*es)
				for i := range n {
					lo := int64(-40)
					if et.IsUnsigned() {
						lo = 0
					}
					encode(dst[i*es:], scalar{t: et, f: float64(lo + rng.Int64N(41)), i: lo + rng.Int64N(41)})
					encode(src[i*es:], scalar{t: et, f: float64(lo + rng.Int64N(41)), i: lo + rng.Int64N(41)})
				}
				want := make([]byte, len(dst))
				for i := range n {
					e := i * es
					require.NoError(t, fn.Call([][]byte{dst[e : e+es], src[e : e+es]}, [][]byte{want[e : e+es]}))
				}
				fold(dst, src)
				require.Equal(t, want, dst)
			})
		}
	}
	// A region that is not one binary op has no typed loop.
	require.Nil(t, Fold(binRegion("stablehlo.subtract", ir.F32), ir.F32))
}
