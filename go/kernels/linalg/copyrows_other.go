//go:build !amd64 || purego

package linalg

func copyRows[T float32 | float64](dst, src []T, o, ld, ldd, w, k int) bool { return false }

func copyBlock[T float32 | float64](dst, src []T, o, ld, ldd, w, n, k, sstride, dstride int) bool {
	return false
}
