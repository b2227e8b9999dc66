//go:build !purego

package linalg

import (
	"unsafe"

	"github.com/gojax/gojax/go/internal/cpufeat"
)

// fftAVX2 enables the assembly radix-4 butterflies (cpufeat honours
// GOJAX_VECTOR=none).
var fftAVX2 = cpufeat.AVX2FMA

// fftR4AVX264 runs the radix-4 butterfly of fftStage64 on n (a multiple of
// 4) elements of x0..x3 into y0..y3 with twiddles w[0..2]: the same
// float32 operations in the same order, four elements per instruction.
//
//go:noescape
func fftR4AVX264(x0, x1, x2, x3, y0, y1, y2, y3 unsafe.Pointer, n int, w unsafe.Pointer)

// fftR4AVX2128 is fftR4AVX264 for complex128, n a multiple of 2.
//
//go:noescape
func fftR4AVX2128(x0, x1, x2, x3, y0, y1, y2, y3 unsafe.Pointer, n int, w unsafe.Pointer)

// fftR5AVX264 is the radix-5 butterfly of fftStage64 on n (a multiple of
// 4) elements of x[0..4] into y[0..4], twiddles w[0..3].
//
//go:noescape
func fftR5AVX264(x, y *[5]unsafe.Pointer, n int, w unsafe.Pointer)

// fftR5AVX2128 is fftR5AVX264 for complex128, n a multiple of 2.
//
//go:noescape
func fftR5AVX2128(x, y *[5]unsafe.Pointer, n int, w unsafe.Pointer)

// fftR2AVX264 and fftR2AVX2128 are the radix-2 butterflies of fftStage64
// and fftStage128, as fftR5AVX264.
//
//go:noescape
func fftR2AVX264(x, y *[2]unsafe.Pointer, n int, w unsafe.Pointer)

//go:noescape
func fftR2AVX2128(x, y *[2]unsafe.Pointer, n int, w unsafe.Pointer)

// fftR3AVX264 and fftR3AVX2128 are the radix-3 butterflies of fftStage64
// and fftStage128, as fftR5AVX264.
//
//go:noescape
func fftR3AVX264(x, y *[3]unsafe.Pointer, n int, w unsafe.Pointer)

//go:noescape
func fftR3AVX2128(x, y *[3]unsafe.Pointer, n int, w unsafe.Pointer)

// fftR4M1AVX264 is fftStage64's radix-4 stage with M' = 1 for ns (a
// multiple of 4) values of s: in[4s+j] → out[s + l·k], with the twiddles
// regrouped by fftLine.twLast (for each 4 s, w1, w2, w3 as vectors).
//
//go:noescape
func fftR4M1AVX264(in, out unsafe.Pointer, l, ns int, tw unsafe.Pointer)

// fftR4M1AVX2128 is fftR4M1AVX264 for complex128 (ns a multiple of 2).
//
//go:noescape
func fftR4M1AVX2128(in, out unsafe.Pointer, l, ns int, tw unsafe.Pointer)
