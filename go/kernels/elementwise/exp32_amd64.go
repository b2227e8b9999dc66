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
