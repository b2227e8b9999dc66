//go:build amd64 && !purego

package linalg

import "github.com/gojax/gojax/go/internal/cpufeat"

//go:generate go run gen_int8gemm.go

// The 8-bit integer GEMM's assembly micro-kernels (int8gemm_amd64.s),
// picked at init: AVX512_VNNI (VPDPBUSD, four k per instruction) where the
// CPU has it, else AVX2 (VPMADDWD over int16 pairs).

//go:noescape
func i8Kern14x32VNNI(kq int, a, b []byte, c []int32, ldc int, bias []int32)

//go:noescape
func i8Kern6x16AVX2(kq int, a, b []byte, c []int32, ldc int, bias []int32)

func init() {
	if cpufeat.AVX2FMA {
		kernelsI8 = append(kernelsI8, i8Kernel{name: "avx2-6x16", mr: 6, nr: 16, fn: checkedI8(6, 16, i8Kern6x16AVX2)})
	}
	if cpufeat.AVX512VNNI {
		kernelsI8 = append(kernelsI8, i8Kernel{name: "vnni-14x32", mr: 14, nr: 32, quads: true, fn: checkedI8(14, 32, i8Kern14x32VNNI)})
	}
	ukI8 = kernelsI8[len(kernelsI8)-1]
}

// checkedI8 bounds-checks the slices the assembly reads and writes, so a
// bad call panics in Go rather than touching foreign memory.
func checkedI8(mr, nr int, fn i8KernelFn) i8KernelFn {
	return func(kq int, a, b []byte, c []int32, ldc int, bias []int32) {
		if kq < 1 {
			panic("linalg: int8 micro-kernel needs kq >= 1")
		}
		_ = a[4*mr*kq-1]
		_ = b[4*nr*kq-1]
		_ = c[(mr-1)*ldc+nr-1]
		_ = bias[mr+nr-1]
		fn(kq, a, b, c, ldc, bias)
	}
}
