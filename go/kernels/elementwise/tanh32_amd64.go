//go:build amd64 && !purego

package elementwise

// tanh32x8 writes tanhRational of src into dst, eight floats per step;
// len(src) must be a multiple of 8 and len(dst) at least len(src).
//
//go:noescape
func tanh32x8Asm(dst, src []float32)

func tanh32x8(dst, src []float32) {
	if len(src)%8 != 0 || len(dst) < len(src) {
		panic("tanh32x8: bad lengths")
	}
	tanh32x8Asm(dst, src)
}
