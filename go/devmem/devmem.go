// Package devmem allocates gojax device memory: host memory outside the Go
// heap, 64-byte aligned, so its pointers may be handed to JAX, DLPack and
// Arrow without breaking cgo's pointer rules.
package devmem

/*
#include <stdlib.h>
#include <string.h>
static void* gojax_aligned_alloc(size_t n) {
	void* p = NULL;
	if (posix_memalign(&p, 64, n == 0 ? 64 : n) != 0) return NULL;
	return p;
}
*/
import "C"

import (
	"fmt"
	"sync/atomic"
	"unsafe"
)

// Alignment is the byte alignment of every allocation.
const Alignment = 64

var (
	bytesInUse atomic.Int64
	peakBytes  atomic.Int64
	numAllocs  atomic.Int64
	liveAllocs atomic.Int64
)

// Alloc returns n bytes of uninitialized, 64-byte-aligned memory outside the Go
// heap. It returns an error instead of crashing when the system is out of memory.
// A zero-size request still gets a distinct, valid pointer (JAX compares them).
func Alloc(n int) ([]byte, error) {
	if n < 0 {
		return nil, fmt.Errorf("devmem: negative allocation size %d", n)
	}
	p := C.gojax_aligned_alloc(C.size_t(n))
	if p == nil {
		return nil, fmt.Errorf("devmem: out of memory allocating %d bytes", n)
	}
	account(int64(n), true)
	return unsafe.Slice((*byte)(p), capOf(n))[:n], nil
}

// AllocZeroed is Alloc followed by clearing the memory.
func AllocZeroed(n int) ([]byte, error) {
	b, err := Alloc(n)
	if err == nil && n > 0 {
		C.memset(unsafe.Pointer(&b[0]), 0, C.size_t(n))
	}
	return b, err
}

// capOf keeps a usable cap for zero-size allocations so &b[:1][0] is the pointer.
func capOf(n int) int {
	if n == 0 {
		return Alignment
	}
	return n
}

// Free releases memory from Alloc. Freeing nil is a no-op.
func Free(b []byte) {
	if cap(b) == 0 {
		return
	}
	n := len(b)
	C.free(unsafe.Pointer(unsafe.SliceData(b)))
	account(-int64(n), false)
}

// Pointer returns the address of a buffer, valid even when its length is 0.
func Pointer(b []byte) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(b)) }

func account(delta int64, alloc bool) {
	v := bytesInUse.Add(delta)
	if alloc {
		numAllocs.Add(1)
		liveAllocs.Add(1)
		for {
			p := peakBytes.Load()
			if v <= p || peakBytes.CompareAndSwap(p, v) {
				break
			}
		}
	} else {
		liveAllocs.Add(-1)
	}
}

// Stats is a snapshot of allocator counters.
type Stats struct {
	BytesInUse int64
	PeakBytes  int64
	NumAllocs  int64 // allocations ever made
	LiveAllocs int64
}

// ReadStats returns the current counters.
func ReadStats() Stats {
	return Stats{bytesInUse.Load(), peakBytes.Load(), numAllocs.Load(), liveAllocs.Load()}
}

// ResetPeak restarts peak tracking from the current usage.
func ResetPeak() { peakBytes.Store(bytesInUse.Load()) }
