package linalg

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/kernels/internal/floatconv"
)

// An edge kernel must give exactly the bits of its full kernel's first
// edgeRows rows (which kernel computes a row depends on the tiling) and
// leave the rest of c alone.
func TestEdgeKernelsMatchFullKernel(t *testing.T) {
	r := rand.New(rand.NewSource(13))
	for _, uk := range kernelsF32 {
		testEdgeKernel(t, r, uk)
	}
	for _, uk := range kernelsF64 {
		testEdgeKernel(t, r, uk)
	}
	for _, uk := range kernelsBF16 {
		testEdgeKernel(t, r, uk)
	}
}

func testEdgeKernel[T float32 | float64](t *testing.T, r *rand.Rand, uk microKernel[T]) {
	if uk.edge == nil {
		return
	}
	rnd := func(n int) []T {
		v := make([]T, n)
		for i := range v {
			v[i] = T(r.NormFloat64())
			if uk.pairs {
				// Two bf16 values, as packAPairs/packBPairs store them.
				lo, hi := floatconv.F32ToBF16(float32(r.NormFloat64())), floatconv.F32ToBF16(float32(r.NormFloat64()))
				v[i] = T(math.Float32frombits(uint32(hi)<<16 | uint32(lo)))
			}
		}
		return v
	}
	for _, kc := range []int{1, 2, 7, 256, 512} {
		for _, acc := range []bool{false, true} {
			t.Run(fmt.Sprintf("%T/%s/kc%d/acc%v", T(0), uk.name, kc, acc), func(t *testing.T) {
				mr, nr, ldc := uk.mr, uk.nr, uk.nr+5
				a, b := rnd(mr*kc), rnd(nr*kc)
				c0 := rnd((mr-1)*ldc + nr + 2)
				full := append([]T(nil), c0...)
				uk.fn(kc, a, b, full, ldc, acc)
				got := append([]T(nil), c0...)
				uk.edge(kc, a, b, got, ldc, acc)
				for i := range got {
					if i/ldc < uk.edgeRows && i%ldc < nr {
						require.Equal(t, full[i], got[i], "element %d", i)
					} else {
						require.Equal(t, c0[i], got[i], "element %d outside the edge rows changed", i)
					}
				}
			})
		}
	}
}
