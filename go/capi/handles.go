package capi

import (
	"sync"
	"sync/atomic"
)

// bufferTable maps PJRT_Buffer handles to their Go state. Buffers are made
// and destroyed on every execution and looked up by every call that takes
// one, so they do not use runtime/cgo.Handle (a process-wide concurrent map:
// an insertion allocates, and each lookup hashes): a handle is a slot index
// plus the slot's generation, a lookup is two atomic loads, and a destroyed
// (stale) handle is recognized by its generation.
type bufferTable struct {
	mu     sync.Mutex
	free   []uint32 // released slot indices
	next   uint32   // slots ever used
	chunks [1 << (handleIndexBits - handleChunkBits)]atomic.Pointer[[1 << handleChunkBits]bufferSlot]
}

const (
	handleIndexBits = 28 // at most 2^28 live buffers
	handleChunkBits = 12
)

type bufferSlot struct {
	b   atomic.Pointer[buffer]
	gen atomic.Uint32
}

var buffers bufferTable

// add stores b and returns its handle (never 0).
func (t *bufferTable) add(b *buffer) uintptr {
	t.mu.Lock()
	defer t.mu.Unlock()
	var i uint32
	if n := len(t.free); n > 0 {
		i = t.free[n-1]
		t.free = t.free[:n-1]
	} else {
		if t.next == 1<<handleIndexBits {
			panic("too many live buffers")
		}
		i = t.next
		t.next++
	}
	c := t.chunks[i>>handleChunkBits].Load()
	if c == nil {
		c = new([1 << handleChunkBits]bufferSlot)
		t.chunks[i>>handleChunkBits].Store(c)
	}
	s := &c[i&(1<<handleChunkBits-1)]
	gen := s.gen.Load()
	s.b.Store(b)
	return uintptr(gen)<<32 | uintptr(i+1)
}

// slot returns the slot of h and h's generation (nil for a malformed h).
func (t *bufferTable) slot(h uintptr) (*bufferSlot, uint32) {
	i := uint32(h) - 1
	if h == 0 || uint32(h) == 0 || i >= 1<<handleIndexBits {
		return nil, 0
	}
	c := t.chunks[i>>handleChunkBits].Load()
	if c == nil {
		return nil, 0
	}
	return &c[i&(1<<handleChunkBits-1)], uint32(h >> 32)
}

// get returns the buffer of h, or nil for a stale or malformed handle.
func (t *bufferTable) get(h uintptr) *buffer {
	s, gen := t.slot(h)
	if s == nil || s.gen.Load() != gen {
		return nil
	}
	b := s.b.Load()
	// A remove and re-add between the two loads would hand out the slot's
	// next buffer: check the generation again.
	if s.gen.Load() != gen {
		return nil
	}
	return b
}

// remove releases h; later lookups of h fail.
func (t *bufferTable) remove(h uintptr) {
	s, gen := t.slot(h)
	if s == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if s.gen.Load() != gen || s.b.Load() == nil {
		return
	}
	s.b.Store(nil)
	s.gen.Add(1)
	t.free = append(t.free, uint32(h)-1)
}
