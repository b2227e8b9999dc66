//go:build amd64 && !purego

package elementwise

// tanh32x8Asm writes tanhRational of src (or of src*aff[0] + aff[1]) into
// dst, eight floats per step.
//
//go:noescape
func tanh32x8Asm(dst, src []float32, aff *[2]float32)

// tanh32x8 checks the lengths: len(src) must be a multiple of 8 and
// len(dst) at least len(src).
func tanh32x8(dst, src []float32, aff *[2]float32) {
	if len(src)%8 != 0 || len(dst) < len(src) {
		panic("tanh32x8: bad lengths")
	}
	tanh32x8Asm(dst, src, aff)
}

//go:noescape
func tanh32x16Asm(dst, src []float32, aff *[2]float32)

// tanh32x16 is tanh32x8 with AVX-512; len(src) must be a multiple of 16.
func tanh32x16(dst, src []float32, aff *[2]float32) {
	if len(src)%16 != 0 || len(dst) < len(src) {
		panic("tanh32x16: bad lengths")
	}
	tanh32x16Asm(dst, src, aff)
}
