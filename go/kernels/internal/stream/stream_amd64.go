//go:build amd64 && !purego

package stream

import "unsafe"

//go:noescape
func streamLines(dst, src *byte, n int)

// StreamFence makes the non-temporal stores of earlier StreamCopy calls
// visible before any later store (the worker pool's completion signal):
// one fence per run of copies, not per copy, so the write-combining
// buffers drain while the next block computes.
func StreamFence()

// StreamCopy copies src to dst (as copy does) writing dst's whole cache
// lines with non-temporal stores: a large result written once is not read
// into the cache first (no read for ownership), which saves a third of the
// memory traffic of a kernel that reads one array and writes another.
// Call StreamFence before publishing dst to another thread.
func StreamCopy(dst, src []byte) {
	n := min(len(dst), len(src))
	// Plain copies up to the first line boundary of dst and after the last.
	head := int(-uintptr(unsafe.Pointer(unsafe.SliceData(dst))) & 63)
	if head >= n {
		copy(dst[:n], src)
		return
	}
	copy(dst[:head], src)
	body := (n - head) &^ 63
	if body > 0 {
		streamLines(&dst[head], &src[head], body)
	}
	copy(dst[head+body:n], src[head+body:n])
}
