//go:build amd64 && !purego

package linalg

import "github.com/gojax/gojax/go/internal/cpufeat"

//go:generate go run gen_microkernel.go

// Go-assembly micro-kernels, picked at init from what the CPU and OS
// support (build tag purego keeps the plain-Go kernels):
//
//   - AVX-512 (microkernel512_amd64.s): 14×32 f32 and 14×16 f64, 28 ZMM
//     accumulators, and for edge panels of at most 4 rows the first 4
//     rows of those tiles alone (microkernel512edge_amd64.s);
//   - AVX512_BF16 (microkernelbf16_amd64.s): 14×32 bf16 dot products
//     into f32, for dots whose operands are both bf16, and their first 4
//     rows for edge panels (microkernelbf16edge_amd64.s);
//   - AMX-BF16 (amx_amd64.s): 32×32 bf16 dot products into f32 on
//     matrix tiles, with A packed row-wise (packAPairsRows);
//   - AVX2+FMA (microkernel_amd64.s): 4×16 f32 and 4×8 f64, eight YMM
//     accumulators plus two B vectors and a broadcast A element.
//
// Products are fused (FMA), so results differ from the plain kernels in the
// last bits; every accumulator is still a sequential sum over k, so results
// do not depend on the thread count.

//go:noescape
func kern4x16F32Asm(kc int, a, b, c []float32, ldc int, acc bool)

//go:noescape
func kern4x8F64Asm(kc int, a, b, c []float64, ldc int, acc bool)

//go:noescape
func kern14x32F32Asm(kc int, a, b, c []float32, ldc int, acc bool)

//go:noescape
func kern4of14x32F32Asm(kc int, a, b, c []float32, ldc int, acc bool)

//go:noescape
func kern4of14x16F64Asm(kc int, a, b, c []float64, ldc int, acc bool)

//go:noescape
func kern14x16F64Asm(kc int, a, b, c []float64, ldc int, acc bool)

//go:noescape
func kern14x32BF16Asm(kp int, a, b, c []float32, ldc int, acc bool)

//go:noescape
func kern4of14x32BF16Asm(kp int, a, b, c []float32, ldc int, acc bool)

var (
	ukF32AVX2   = microKernel[float32]{name: "avx2-4x16", mr: 4, nr: 16, fn: kern4x16F32Checked}
	ukF64AVX2   = microKernel[float64]{name: "avx2-4x8", mr: 4, nr: 8, fn: kern4x8F64Checked}
	ukF32AVX512 = microKernel[float32]{name: "avx512-14x32", mr: 14, nr: 32, fn: kern14x32F32Checked, edge: kern4of14x32F32Checked, edgeRows: 4}
	ukF64AVX512 = microKernel[float64]{name: "avx512-14x16", mr: 14, nr: 16, fn: kern14x16F64Checked, edge: kern4of14x16F64Checked, edgeRows: 4}
	ukBF16Dot   = microKernel[float32]{name: "avx512bf16-14x32", mr: 14, nr: 32, fn: kern14x32BF16Checked, edge: kern4of14x32BF16Checked, edgeRows: 4, pairs: true}
)

func init() {
	if cpufeat.AVX2FMA {
		kernelsF32 = append(kernelsF32, ukF32AVX2)
		kernelsF64 = append(kernelsF64, ukF64AVX2)
	}
	if cpufeat.AVX512 {
		kernelsF32 = append(kernelsF32, ukF32AVX512)
		kernelsF64 = append(kernelsF64, ukF64AVX512)
	}
	if cpufeat.AVX512BF16 {
		kernelsBF16 = append(kernelsBF16, ukBF16Dot)
		ukBF16 = &kernelsBF16[len(kernelsBF16)-1]
	}
	if cpufeat.AMXBF16 {
		// Tiles do 16×16×32 products per instruction: the widest path
		// wherever Linux grants them (cpufeat).
		kernelsBF16 = append(kernelsBF16, ukBF16AMX)
		ukBF16 = &kernelsBF16[len(kernelsBF16)-1]
	}
	ukF32 = kernelsF32[len(kernelsF32)-1]
	ukF64 = kernelsF64[len(kernelsF64)-1]
}

// The assembly reads mr·kc elements of a, nr·kc of b and mr rows of c; the
// bounds are checked here so a bad call panics in Go rather than touching
// foreign memory.
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

func kern14x32F32Checked(kc int, a, b, c []float32, ldc int, acc bool) {
	_ = a[14*kc-1]
	_ = b[32*kc-1]
	_ = c[13*ldc+31]
	kern14x32F32Asm(kc, a, b, c, ldc, acc)
}

// kern4of14x32F32Checked reads rows 0-3 of a 14-row A panel.
func kern4of14x32F32Checked(kc int, a, b, c []float32, ldc int, acc bool) {
	if kc > 0 {
		_ = a[14*(kc-1)+3]
	}
	_ = b[32*kc-1]
	_ = c[3*ldc+31]
	kern4of14x32F32Asm(kc, a, b, c, ldc, acc)
}

func kern4of14x16F64Checked(kc int, a, b, c []float64, ldc int, acc bool) {
	if kc > 0 {
		_ = a[14*(kc-1)+3]
	}
	_ = b[16*kc-1]
	_ = c[3*ldc+15]
	kern4of14x16F64Asm(kc, a, b, c, ldc, acc)
}

func kern14x16F64Checked(kc int, a, b, c []float64, ldc int, acc bool) {
	_ = a[14*kc-1]
	_ = b[16*kc-1]
	_ = c[13*ldc+15]
	kern14x16F64Asm(kc, a, b, c, ldc, acc)
}

// kern14x32BF16Checked: a and b hold bf16 pairs in float32 slots.
func kern14x32BF16Checked(kp int, a, b, c []float32, ldc int, acc bool) {
	_ = a[14*kp-1]
	_ = b[32*kp-1]
	_ = c[13*ldc+31]
	kern14x32BF16Asm(kp, a, b, c, ldc, acc)
}

// kern4of14x32BF16Checked reads rows 0-3 of a 14-row A pair panel.
func kern4of14x32BF16Checked(kp int, a, b, c []float32, ldc int, acc bool) {
	if kp > 0 {
		_ = a[14*(kp-1)+3]
	}
	_ = b[32*kp-1]
	_ = c[3*ldc+31]
	kern4of14x32BF16Asm(kp, a, b, c, ldc, acc)
}
