//go:build amd64 && !purego

package reduce

import "github.com/gojax/gojax/go/internal/cpufeat"

//go:noescape
func addAccF32Asm(dst, src []float32)

//go:noescape
func addAccF64Asm(dst, src []float64)

// Vector dst[i] += src[i] (sums along a leading axis): each element gets the
// same single IEEE addition as in sumAcc, so results are identical to the Go
// loop whatever the split.
func init() {
	if !cpufeat.AVX2FMA {
		return
	}
	addAccF32 = func(dst, src []float32) {
		src = src[:len(dst)]
		n := len(dst) &^ 31
		addAccF32Asm(dst[:n], src[:n])
		sumAcc(dst[n:], src[n:])
	}
	addAccF64 = func(dst, src []float64) {
		src = src[:len(dst)]
		n := len(dst) &^ 15
		addAccF64Asm(dst[:n], src[:n])
		sumAcc(dst[n:], src[n:])
	}
}
