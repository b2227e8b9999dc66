//go:build amd64 && !purego

package linalg

import "github.com/gojax/gojax/go/internal/cpufeat"

// AVX2+FMA micro-kernels in Go assembly (microkernel_amd64.s): 4×16 for f32
// and 4×8 for f64, eight YMM accumulators plus two B vectors and a broadcast
// A element, selected at init when the CPU and OS support AVX2, FMA and the
// YMM state (build tag purego keeps the plain-Go kernels). Products are
// fused (FMA), so results differ from the plain kernels in the last bits;
// they are still independent of the thread count.

//go:noescape
func kern4x16F32Asm(kc int, a, b, c []float32, ldc int, acc bool)

//go:noescape
func kern4x8F64Asm(kc int, a, b, c []float64, ldc int, acc bool)

func init() {
	if cpufeat.AVX2FMA {
		ukF32 = microKernel[float32]{mr: 4, nr: 16, fn: kern4x16F32Checked}
		ukF64 = microKernel[float64]{mr: 4, nr: 8, fn: kern4x8F64Checked}
	}
}

// The assembly reads 4·kc elements of a, 16·kc (8·kc) of b and four rows
// of c; the bounds are checked here so a bad call panics in Go rather than
// touching foreign memory.
func kern4x16F32Checked(kc int, a, b, c []float32, ldc int, acc bool) {
	_ = a[4*kc-1]
	_ = b[16*kc-1]
	_ = c[3*ldc+15]
	kern4x16F32Asm(kc, a, b, c, ldc, acc)
}

func kern4x8F64Checked(kc int, a, b, c []float64, ldc int, acc bool) {
	_ = a[4*kc-1]
	_ = b[8*kc-1]
	_ = c[3*ldc+7]
	kern4x8F64Asm(kc, a, b, c, ldc, acc)
}
