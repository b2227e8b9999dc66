//go:build amd64 && !purego

package linalg

import "github.com/gojax/gojax/go/internal/cpufeat"

//go:noescape
func narrowBF16AVX512(dst *uint16, src *float32, n int)

//go:noescape
func narrowBF16AVX2(dst *uint16, src *float32, n int)

// narrowBF16OK512 and narrowBF16OK2 pick the vector narrowing (tests turn
// them off to compare with the Go loop).
var (
	narrowBF16OK512 = cpufeat.AVX512
	narrowBF16OK2   = cpufeat.AVX2FMA
)

// narrowRowBF16 is fromF32 to bf16 on a typed row: f32ToBF16 on each
// element, in vector registers where the CPU allows.
func narrowRowBF16(dst []uint16, src []float32) {
	src = src[:len(dst)]
	n := len(dst)
	switch {
	case n == 0:
	case narrowBF16OK512:
		narrowBF16AVX512(&dst[0], &src[0], n)
	case narrowBF16OK2 && n >= 16:
		// Whole 16-element blocks in assembly, the rest in Go.
		v := n &^ 15
		narrowBF16AVX2(&dst[0], &src[0], v)
		narrowBF16Go(dst[v:], src[v:])
	default:
		narrowBF16Go(dst, src)
	}
}
