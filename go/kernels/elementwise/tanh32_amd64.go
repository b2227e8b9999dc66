//go:build amd64 && !purego

package elementwise

// tanh32x8Asm writes tanh32Chain's result for src into dst, eight floats
// per step.
//
//go:noescape
func tanh32x8Asm(dst, src []float32, aff *[2]float32, w *float32, epi int)

// tanh32x8 checks the arguments: len(src) must be a multiple of 8, len(dst)
// at least len(src), w (when epi > 0) holds len(src) floats, which the
// caller checks.
func tanh32x8(dst, src []float32, aff *[2]float32, w *float32, epi int) {
	if len(src)%8 != 0 || len(dst) < len(src) || epi < 0 || epi > 8 || (epi > 0) != (w != nil) {
		panic("tanh32x8: bad arguments")
	}
	tanh32x8Asm(dst, src, aff, w, epi)
}

//go:noescape
func tanh32x16Asm(dst, src []float32, aff *[2]float32, w *float32, epi int)

// tanh32x16 is tanh32x8 with AVX-512; len(src) must be a multiple of 16.
func tanh32x16(dst, src []float32, aff *[2]float32, w *float32, epi int) {
	if len(src)%16 != 0 || len(dst) < len(src) || epi < 0 || epi > 8 || (epi > 0) != (w != nil) {
		panic("tanh32x16: bad arguments")
	}
	tanh32x16Asm(dst, src, aff, w, epi)
}
