// Package devmem allocates gojax device memory: host memory outside the Go
// heap, 64-byte aligned, so its pointers may be handed to JAX, DLPack and
// Arrow without breaking cgo's pointer rules.
//
// Large blocks that are freed go to a cache (see cache.go) so that the next
// execution of a program gets memory whose pages are already mapped instead
// of fresh pages the kernel has to fault in and zero.
package devmem

/*
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
static void* gojax_aligned_alloc(size_t n) {
	void* p = NULL;
	if (posix_memalign(&p, 64, n == 0 ? 64 : n) != 0) return NULL;
	return p;
}
// Blocks of a cached size class are mapped directly, so evicting one gives
// its pages back to the OS for certain (free() may keep them in an arena).
// Blocks of at least two huge pages start on a huge-page boundary and ask
// for transparent huge pages (the system default is often "madvise"): a
// kernel streaming through 64 MiB then takes 32 TLB misses instead of
// 16384, and XLA's own buffers get huge pages too.
#define GOJAX_HUGE ((size_t)2 << 20)
static void* gojax_map(size_t n) {
	size_t extra = n >= 2 * GOJAX_HUGE ? GOJAX_HUGE : 0;
	char* p = mmap(NULL, n + extra, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) return NULL;
	if (extra == 0) return p;
	size_t head = (GOJAX_HUGE - ((size_t)p & (GOJAX_HUGE - 1))) & (GOJAX_HUGE - 1);
	if (head > 0) munmap(p, head);
	if (extra - head > 0) munmap(p + head + n, extra - head);
	madvise(p + head, n, MADV_HUGEPAGE);
	return p + head;
}
static void gojax_unmap(void* p, size_t n) { munmap(p, n); }
static long long gojax_phys_bytes(void) {
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	if (pages <= 0 || size <= 0) return 0;
	return (long long)pages * (long long)size;
}
*/
import "C"

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/gojax/gojax/go/config"
)

// Alignment is the byte alignment of every allocation.
const Alignment = 64

var (
	bytesInUse atomic.Int64
	peakBytes  atomic.Int64
	numAllocs  atomic.Int64
	liveAllocs atomic.Int64
)

// OutOfMemoryError is Alloc's error when the system, or the memory limit,
// has no room for the request; callers report it as RESOURCE_EXHAUSTED.
type OutOfMemoryError struct {
	Bytes int
	// Limit is the memory limit that refused it (0: the system did), with
	// the bytes in use then.
	Limit, InUse int64
	// Machine is set when the request would take the bytes in use past the
	// machine's memory (MachineBytes); Limit is 0 then.
	Machine int64
}

func (e *OutOfMemoryError) Error() string {
	if e.Machine > 0 {
		return fmt.Sprintf("devmem: out of memory allocating %d bytes: more than this machine can hold "+
			"(%d bytes of RAM, within the cgroup limit, plus swap) with %d in use", e.Bytes, e.Machine, e.InUse)
	}
	if e.Limit > 0 {
		return fmt.Sprintf("devmem: out of memory allocating %d bytes: over the memory limit of %d bytes "+
			"(gojax.config.memory_limit, GOJAX_MEMORY_LIMIT) with %d in use", e.Bytes, e.Limit, e.InUse)
	}
	return fmt.Sprintf("devmem: out of memory allocating %d bytes", e.Bytes)
}

// limit is the memory limit in bytes, -1 for none.
var limit atomic.Int64

func init() { limit.Store(config.Env().MemoryLimit) }

// SetLimit bounds the bytes of live allocations, and each program-sized
// Go-heap allocation checked by CheckHostBytes, to n, and makes n the Go
// runtime's soft memory limit (goheap.go); n < 0 removes the limit (only
// what the host can give then counts). Buffers already held
// stay; later allocations that would pass it fail.
func SetLimit(n int64) {
	if n < 0 {
		n = -1
	}
	limit.Store(n)
	setGoLimit(n)
}

// Limit returns the memory limit, -1 when there is none.
func Limit() int64 { return limit.Load() }

// overLimit is the error for n more bytes past the limit or past the
// machine's memory (MachineBytes), else nil. It is a bound checked before
// allocating, not a reservation: allocations racing with each other may
// pass it together by their own sizes.
func overLimit(n int64) error {
	in := bytesInUse.Load()
	bytes := int(min(n, int64(^uint(0)>>1)))
	if l := limit.Load(); l >= 0 && n > l-in {
		return &OutOfMemoryError{Bytes: bytes, Limit: l, InUse: in}
	}
	if m := machineBytes(); m > 0 && n > m-max(in, 0) {
		return &OutOfMemoryError{Bytes: bytes, Machine: m, InUse: in}
	}
	return nil
}

// Alloc returns n bytes of uninitialized, 64-byte-aligned memory outside the Go
// heap. It returns an error instead of crashing when the system is out of memory.
// A zero-size request still gets a distinct, valid pointer (JAX compares them).
// Large requests may get a block an earlier Free left in the cache: its
// contents are whatever its last owner wrote.
func Alloc(n int) ([]byte, error) {
	if n < 0 {
		return nil, fmt.Errorf("devmem: negative allocation size %d", n)
	}
	if err := overLimit(int64(n)); err != nil {
		return nil, err
	}
	var p unsafe.Pointer
	class := classOf(n)
	if class > 0 {
		p = theCache.get(class)
	}
	if p == nil {
		p = sysAlloc(n, class)
		if p == nil && theCache.trim(0) > 0 {
			// Memory pressure: give the cached blocks back and try again.
			p = sysAlloc(n, class)
		}
		if p == nil {
			return nil, &OutOfMemoryError{Bytes: n}
		}
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

// Free releases memory from Alloc. Freeing nil is a no-op. b must be the
// slice Alloc returned (or a reslice of it from index 0): its cap says which
// block it is. The caller must be the memory's last user: a cached block is
// handed to the next Alloc of its size class.
func Free(b []byte) {
	if cap(b) == 0 {
		return
	}
	n := len(b)
	p := unsafe.Pointer(unsafe.SliceData(b))
	account(-int64(n), false)
	class := classOf(cap(b))
	if class > 0 && theCache.put(p, class) {
		return
	}
	sysFree(p, class)
}

// sysAlloc gets memory from the system: a mapping of class bytes for a
// cached size class, else malloc.
func sysAlloc(n, class int) unsafe.Pointer {
	if class > 0 {
		return C.gojax_map(C.size_t(class))
	}
	return C.gojax_aligned_alloc(C.size_t(n))
}

// sysFree undoes sysAlloc.
func sysFree(p unsafe.Pointer, class int) {
	if class > 0 {
		C.gojax_unmap(p, C.size_t(class))
		return
	}
	C.free(p)
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
	BytesInUse int64 // bytes of live allocations (as requested)
	PeakBytes  int64
	NumAllocs  int64 // allocations ever made
	LiveAllocs int64
	// CachedBytes is memory held by the cache: freed blocks kept for reuse,
	// not counted in BytesInUse.
	CachedBytes int64
	// CacheHits counts allocations served from the cache.
	CacheHits int64
}

// ReadStats returns the current counters.
func ReadStats() Stats {
	return Stats{
		BytesInUse:  bytesInUse.Load(),
		PeakBytes:   peakBytes.Load(),
		NumAllocs:   numAllocs.Load(),
		LiveAllocs:  liveAllocs.Load(),
		CachedBytes: theCache.cached.Load(),
		CacheHits:   theCache.hits.Load(),
	}
}

// ResetPeak restarts peak tracking from the current usage.
func ResetPeak() { peakBytes.Store(bytesInUse.Load()) }

// physBytes is the machine's RAM (0 when unknown).
func physBytes() int64 { return int64(C.gojax_phys_bytes()) }
