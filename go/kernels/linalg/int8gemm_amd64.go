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

// i8PackB16VNNI packs 16 columns of kq full k groups for the VNNI kernel
// (see gen_int8gemm.go).
//
//go:noescape
func i8PackB16VNNI(kq int, b *byte, off *int64, dst *byte, stride int, flip uint32, sums *int32)

// i8PackARowVNNI packs 16·n16 bytes of one A row for the VNNI kernel and
// returns their sum (see gen_int8gemm.go).
//
//go:noescape
func i8PackARowVNNI(n16 int, src, dst *byte, stride int, flip uint32) int32

func init() {
	if cpufeat.AVX2FMA {
		kernelsI8 = append(kernelsI8, i8Kernel{name: "avx2-6x16", mr: 6, nr: 16, fn: checkedI8(6, 16, i8Kern6x16AVX2)})
	}
	if cpufeat.AVX512VNNI {
		kernelsI8 = append(kernelsI8, i8Kernel{name: "vnni-14x32", mr: 14, nr: 32, quads: true, fn: checkedI8(14, 32, i8Kern14x32VNNI), packB16: packB16VNNI, packARow: packARowVNNI})
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

// packB16VNNI bounds-checks i8PackB16VNNI's reads and writes: kq groups of
// the rows at b[off[4q+t]:] (16 bytes each) into dst (kq·stride bytes) and
// sums (16 int32).
func packB16VNNI(kq int, b []byte, off []int64, dst []byte, stride int, flip byte, sums []int32) {
	if kq < 1 {
		return
	}
	_ = off[4*kq-1]
	for _, o := range off[:4*kq] {
		_ = b[o : o+16]
	}
	_ = dst[(kq-1)*stride+63]
	_ = sums[15]
	i8PackB16VNNI(kq, &b[0], &off[0], &dst[0], stride, uint32(flip)*0x01010101, &sums[0])
}

// packARowVNNI bounds-checks i8PackARowVNNI: the first 16·(len(src)/16)
// bytes of src into the dwords dst[4q·…], q·stride bytes apart; it returns
// how many bytes it packed and their sum.
func packARowVNNI(src, dst []byte, stride int, flip byte) (int, int32) {
	n16 := len(src) / 16
	if n16 == 0 {
		return 0, 0
	}
	_ = dst[(4*n16-1)*stride+3]
	return 16 * n16, i8PackARowVNNI(n16, &src[0], &dst[0], stride, uint32(flip)*0x01010101)
}
