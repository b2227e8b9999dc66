//go:build !purego

package linalg

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFFTAVX2MatchesGo runs whole transforms with and without the AVX2
// butterflies: they do the same operations, so results agree bit for bit.
func TestFFTAVX2MatchesGo(t *testing.T) {
	if !fftAVX2 {
		t.Skip("no AVX2")
	}
	rng := rand.New(rand.NewSource(4))
	for _, n := range []int{4, 16, 64, 256, 1024, 2048, 4096, 12, 40, 5, 25, 125, 1000, 3125, 2, 8, 32, 512, 3, 9, 27, 243, 8640, 6, 60, 500, 20, 36, 44} {
		p64, p128 := newFFTLine[complex64](n), newFFTLine[complex128](n)
		for _, vec := range []int{1, 3, 4, 8} {
			x64 := make([]complex64, n*vec)
			x128 := make([]complex128, n*vec)
			for i := range x64 {
				x128[i] = complex(rng.NormFloat64(), rng.NormFloat64())
				x64[i] = complex64(x128[i])
			}
			run := func(avx bool) ([]complex64, []complex128) {
				defer func(v bool) { fftAVX2 = v }(fftAVX2)
				fftAVX2 = avx
				a, b := append([]complex64(nil), x64...), append([]complex128(nil), x128...)
				fftRunVec64(p64, a, make([]complex64, len(a)), vec, nil)
				fftRunVec128(p128, b, make([]complex128, len(b)), vec, nil)
				return a, b
			}
			a1, b1 := run(true)
			a0, b0 := run(false)
			require.Equal(t, a0, a1, "complex64 n=%d vec=%d", n, vec)
			require.Equal(t, b0, b1, "complex128 n=%d vec=%d", n, vec)
		}
	}
}
