//go:build amd64 && !purego

package reduce

import "github.com/gojax/gojax/go/internal/cpufeat"

//go:noescape
func addAccF32Asm(dst, src []float32)

//go:noescape
func addAccF64Asm(dst, src []float64)

//go:noescape
func addAccF32Z(dst, src []float32)

//go:noescape
func addAccF64Z(dst, src []float64)

func init() { useAccumulate(cpufeat.Widest()) }

// useAccumulate selects the vector dst[i] += src[i] (sums along a leading
// axis) for a cpufeat set; tests run each. Every element gets the same
// single IEEE addition as in sumAcc, so results are identical to the Go
// loop whatever the width or the split.
func useAccumulate(isa string) {
	addAccF32, addAccF64 = sumAcc[float32], sumAcc[float64]
	switch isa {
	case "Z":
		addAccF32 = func(dst, src []float32) {
			src = src[:len(dst)]
			n := len(dst) &^ 63
			addAccF32Z(dst[:n], src[:n])
			sumAcc(dst[n:], src[n:])
		}
		addAccF64 = func(dst, src []float64) {
			src = src[:len(dst)]
			n := len(dst) &^ 31
			addAccF64Z(dst[:n], src[:n])
			sumAcc(dst[n:], src[n:])
		}
	case "Y":
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
}
