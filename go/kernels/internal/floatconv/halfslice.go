package floatconv

import "github.com/gojax/gojax/go/internal/cpufeat"

//go:generate go run gen_half.go

// Slice conversions between f16/bf16 and f32, bit for bit the scalar
// functions (half.go): whole vectors of 16 (AVX-512) or 8 (AVX2) elements
// run in assembly where the CPU has it (vecSet), the rest in Go.

// vecSet is the widest vector set the slice conversions use: "Z", "Y" or
// "" (see cpufeat.Sets); tests run every set the CPU has.
var vecSet = cpufeat.Widest()

// F16sToF32 widens src[i] into dst[i] for every i of dst.
func F16sToF32(dst []float32, src []uint16) { f16sToF32(vecSet, dst, src) }

// F32sToF16 rounds src[i] into dst[i] for every i of dst.
func F32sToF16(dst []uint16, src []float32) { f32sToF16(vecSet, dst, src) }

// BF16sToF32 widens src[i] into dst[i] for every i of dst.
func BF16sToF32(dst []float32, src []uint16) { bf16sToF32(vecSet, dst, src) }

// F32sToBF16 rounds src[i] into dst[i] for every i of dst.
func F32sToBF16(dst []uint16, src []float32) { f32sToBF16(vecSet, dst, src) }

func f16sToF32(set string, dst []float32, src []uint16) {
	src = src[:len(dst)]
	n := vecF16ToF32(set, dst, src)
	for i := n; i < len(dst); i++ {
		dst[i] = F16ToF32(src[i])
	}
}

func f32sToF16(set string, dst []uint16, src []float32) {
	src = src[:len(dst)]
	n := vecF32ToF16(set, dst, src)
	for i := n; i < len(dst); i++ {
		dst[i] = F32ToF16(src[i])
	}
}

func bf16sToF32(set string, dst []float32, src []uint16) {
	src = src[:len(dst)]
	n := vecBF16ToF32(set, dst, src)
	for i := n; i < len(dst); i++ {
		dst[i] = BF16ToF32(src[i])
	}
}

func f32sToBF16(set string, dst []uint16, src []float32) {
	src = src[:len(dst)]
	n := vecF32ToBF16(set, dst, src)
	for i := n; i < len(dst); i++ {
		dst[i] = F32ToBF16(src[i])
	}
}
