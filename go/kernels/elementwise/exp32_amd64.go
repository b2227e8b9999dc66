//go:build amd64 && !purego

package elementwise

//go:noescape
func exp32x8Asm(dst, src []float32)

// exp32x8 writes expPoly of src into dst; len(src) must be a multiple of 8.
func exp32x8(dst, src []float32) {
	if len(src)%8 != 0 || len(dst) < len(src) {
		panic("exp32x8: bad lengths")
	}
	exp32x8Asm(dst, src)
}

//go:noescape
func exp32x16Asm(dst, src []float32)

// exp32x16 is exp32x8 with AVX-512; len(src) must be a multiple of 16.
func exp32x16(dst, src []float32) {
	if len(src)%16 != 0 || len(dst) < len(src) {
		panic("exp32x16: bad lengths")
	}
	exp32x16Asm(dst, src)
}
