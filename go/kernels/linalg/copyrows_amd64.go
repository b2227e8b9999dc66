//go:build amd64 && !purego

package linalg

import "unsafe"

//go:noescape
func copyRowsMasked(dst, src unsafe.Pointer, ld, ldd, k int, m0, m1 uint16)

//go:noescape
func copyBlockMasked(dst, src unsafe.Pointer, ld, ldd, n, k, sstride, dstride int, m0, m1 uint16)

// copyRows sets dst[p*ldd : p*ldd+w] = src[o+p*ld : o+p*ld+w] for p < k
// (rows of at most 128 bytes, ld and ldd > 0) in one assembly loop, and
// reports false, doing nothing, without AVX-512 (packTransOK, so tests
// can compare with the Go copies).
func copyRows[T float32 | float64](dst, src []T, o, ld, ldd, w, k int) bool {
	var z T
	size := int(unsafe.Sizeof(z))
	lanes := w * size / 4
	if !packTransOK || k <= 0 || ld <= 0 || ldd <= 0 || w <= 0 || lanes > 32 {
		return false
	}
	_ = dst[(k-1)*ldd+w-1]
	_ = src[o+(k-1)*ld+w-1]
	m0, m1 := laneMasks(lanes)
	copyRowsMasked(unsafe.Pointer(&dst[0]), unsafe.Pointer(&src[o]), ld*size, ldd*size, k, m0, m1)
	return true
}

// copyBlock is copyRows over k source rows at once: for p < k and j < n,
// dst[p*dstride + j*ldd :][:w] = src[o + p*sstride + j*ld :][:w] (all
// strides > 0). It reports false, doing nothing, where copyRows would.
func copyBlock[T float32 | float64](dst, src []T, o, ld, ldd, w, n, k, sstride, dstride int) bool {
	var z T
	size := int(unsafe.Sizeof(z))
	lanes := w * size / 4
	if !packTransOK || k <= 0 || n <= 0 || ld <= 0 || ldd <= 0 || sstride <= 0 || dstride <= 0 || w <= 0 || lanes > 32 {
		return false
	}
	_ = dst[(k-1)*dstride+(n-1)*ldd+w-1]
	_ = src[o+(k-1)*sstride+(n-1)*ld+w-1]
	m0, m1 := laneMasks(lanes)
	copyBlockMasked(unsafe.Pointer(&dst[0]), unsafe.Pointer(&src[o]), ld*size, ldd*size, n, k, sstride*size, dstride*size, m0, m1)
	return true
}

// laneMasks returns the masks of the first lanes (1 to 32) 4-byte lanes of
// a 128-byte row: lanes 0-15 in m0, 16-31 in m1.
func laneMasks(lanes int) (m0, m1 uint16) {
	if lanes < 16 {
		return 1<<lanes - 1, 0
	}
	return 0xFFFF, uint16(1<<(lanes-16) - 1)
}
