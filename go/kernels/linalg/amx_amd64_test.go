//go:build amd64 && !purego

package linalg

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/internal/cpufeat"
	"github.com/gojax/gojax/go/kernels/internal/floatconv"
)

// The AMX kernel computes what kern32x32TileRef computes on the same
// panels (to rounding: the tiles add a step's products in their own
// order), accumulates into c only when asked, and writes nothing outside
// its 32×32 block.
func TestAMXKernelMatchesTileRef(t *testing.T) {
	if !cpufeat.AMXBF16 {
		t.Skip("no AMX-BF16 tiles on this machine (or GOJAX_VECTOR caps them)")
	}
	r := rand.New(rand.NewSource(7))
	pairs := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			lo, hi := floatconv.F32ToBF16(float32(r.NormFloat64())), floatconv.F32ToBF16(float32(r.NormFloat64()))
			v[i] = math.Float32frombits(uint32(hi)<<16 | uint32(lo))
		}
		return v
	}
	for _, kp := range []int{16, 32, 48, 256} {
		for _, acc := range []bool{false, true} {
			t.Run(fmt.Sprintf("kp%d/acc%v", kp, acc), func(t *testing.T) {
				ldc := 37
				a, b := pairs(32*kp), pairs(32*kp)
				c0 := make([]float32, 33*ldc)
				for i := range c0 {
					c0[i] = float32(r.NormFloat64())
				}
				want := append([]float32(nil), c0...)
				kern32x32TileRef(kp, a, b, want, ldc, acc)
				got := append([]float32(nil), c0...)
				kern32x32AMXChecked(kp, a, b, got, ldc, acc)
				for i := range got {
					if i/ldc < 32 && i%ldc < 32 {
						// |terms| <= ~|a||b| each; 2kp terms of f32 rounding.
						require.InDelta(t, want[i], got[i], 1e-6*float64(2*kp)*8, "element %d", i)
					} else {
						require.Equal(t, c0[i], got[i], "element %d outside the block changed", i)
					}
				}
			})
		}
	}
}
