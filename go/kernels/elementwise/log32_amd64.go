//go:build amd64 && !purego

package elementwise

import "github.com/gojax/gojax/go/internal/cpufeat"

//go:noescape
func log32x16Asm(d, a *float32, n int, c *logVecConsts, plusOne bool) int

// log32Vec runs log32x16Asm when AVX-512 is in use (the float64 lanes need
// VCVTQQ2PD, AVX-512 DQ) and returns the elements done.
func log32Vec(d, a []float32, c *logVecConsts, plusOne bool) int {
	if !cpufeat.AVX512 || len(a) < 16 {
		return 0
	}
	return log32x16Asm(&d[0], &a[0], min(len(d), len(a)), c, plusOne)
}
