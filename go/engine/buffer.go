package engine

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gojax/gojax/go/devmem"
	"github.com/gojax/gojax/go/ir"
)

// HostSemantics says how long BufferFromHost may use the caller's memory
// (PJRT_HostBufferSemantics values).
type HostSemantics int

const (
	ImmutableOnlyDuringCall         HostSemantics = 0
	ImmutableUntilTransferCompletes HostSemantics = 1
	ImmutableZeroCopy               HostSemantics = 2
	MutableZeroCopy                 HostSemantics = 3
)

// ownership says who frees a buffer's memory.
type ownership int

const (
	ownNone    ownership = iota // no memory (error buffers, pending outputs)
	ownDevmem                   // devmem allocation: gojax frees it, donation may reuse it
	ownForeign                  // caller's memory (zero-copy host data, views): release hook
)

// Buffer is an array on a device. Its memory is released when it has been
// deleted (or destroyed), no execution or copy is using it, and no external
// reference (DLPack, NumPy view) remains.
type Buffer struct {
	memory *Memory
	elem   ir.ElemType
	token  bool
	dims   []int64
	size   int64
	ready  *Event
	// readyEv is ready's storage unless a constructor replaces ready.
	readyEv Event

	mu       sync.Mutex
	cond     *sync.Cond // on mu; made by the first waitSoleHolder that waits
	data     []byte
	own      ownership
	local    bool   // memory is (or will be) a devmem allocation gojax may reuse
	release  func() // frees foreign memory
	deleted  bool
	donated  bool
	released bool
	holds    int // executions/copies in flight that read the memory
	extRefs  int
	// abandon, set on the pending outputs of a run on a goroutine, is
	// called once when the output is deleted with no reader left before it
	// was produced (see abandonOnDelete).
	abandon func()
	// mirror, when set, is a word outside Go's heap (the C handle's) kept
	// equal to deleted, so that the C API answers IsDeleted without calling
	// into Go (see MirrorDeleted).
	mirror *int32
}

// MirrorDeleted makes p (nil: none) follow the deleted flag: it is set to 1,
// atomically, from the moment the buffer is deleted or donated. p must stay
// valid until MirrorDeleted(nil) returns.
func (b *Buffer) MirrorDeleted(p *int32) {
	b.mu.Lock()
	b.mirror = p
	if p != nil {
		v := int32(0)
		if b.deleted {
			v = 1
		}
		atomic.StoreInt32(p, v)
	}
	b.mu.Unlock()
}

// setDeletedLocked marks the buffer deleted (b.mu held).
func (b *Buffer) setDeletedLocked() {
	b.deleted = true
	if b.mirror != nil {
		atomic.StoreInt32(b.mirror, 1)
	}
}

func newBuffer(mem *Memory, elem ir.ElemType, token bool, dims []int64) (*Buffer, error) {
	if mem == nil {
		return nil, Errorf(CodeInvalidArgument, "buffer needs a memory space")
	}
	size := int64(0)
	if !token {
		if elem == ir.Invalid || elem.ByteSize() == 0 {
			return nil, Errorf(CodeInvalidArgument, "invalid element type %v", elem)
		}
		n, err := numElements(dims)
		if err != nil {
			return nil, err
		}
		size = n * int64(elem.ByteSize())
		if size/int64(elem.ByteSize()) != n || size > maxBufferBytes {
			return nil, Errorf(CodeResourceExhausted, "buffer of shape %v x %v is too large", dims, elem)
		}
	}
	b := &Buffer{memory: mem, elem: elem, token: token, dims: append([]int64(nil), dims...), size: size}
	b.ready = &b.readyEv
	counters.liveBuffers.Add(1)
	counters.buffersCreated.Add(1)
	return b, nil
}

// maxBufferBytes rejects absurd sizes before they reach the allocator.
const maxBufferBytes = 1 << 46

func numElements(dims []int64) (int64, error) {
	n := int64(1)
	for _, d := range dims {
		if d < 0 {
			return 0, Errorf(CodeInvalidArgument, "negative dimension in %v", dims)
		}
		if d != 0 && n > maxBufferBytes/d {
			return 0, Errorf(CodeResourceExhausted, "shape %v has too many elements", dims)
		}
		n *= d
	}
	return n, nil
}

// ElemType is the element type (ir.Invalid for tokens).
func (b *Buffer) ElemType() ir.ElemType { return b.elem }

// IsToken reports a token buffer (no data).
func (b *Buffer) IsToken() bool { return b.token }

// Dims are the dimensions (row-major, dense).
func (b *Buffer) Dims() []int64 { return b.dims }

// ByteSize is the size of the dense row-major data.
func (b *Buffer) ByteSize() int64 { return b.size }

// Memory is the memory space holding the buffer.
func (b *Buffer) Memory() *Memory { return b.memory }

// Device is the device holding the buffer.
func (b *Buffer) Device() *Device { return b.memory.device }

// ReadyEvent fires when the data is available (or failed to be produced).
func (b *Buffer) ReadyEvent() *Event { return b.ready }

// Type returns the buffer's IR type.
func (b *Buffer) Type() ir.Type {
	if b.token {
		return &ir.TokenType{}
	}
	return ir.Tensor(b.elem, b.dims...)
}

// IsDeleted reports whether Delete was called or the buffer was donated.
func (b *Buffer) IsDeleted() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.deleted
}

// Delete drops the buffer's memory (once nothing uses it any more). Later uses
// fail; deleting twice is harmless.
func (b *Buffer) Delete() {
	b.mu.Lock()
	b.setDeletedLocked()
	free := b.takeMemoryLocked()
	b.mu.Unlock()
	free.run()
}

// Destroy is Delete for the owner's last handle: it also detaches the
// MirrorDeleted word, which the caller is about to free.
func (b *Buffer) Destroy() {
	b.mu.Lock()
	b.setDeletedLocked()
	b.mirror = nil
	free := b.takeMemoryLocked()
	b.mu.Unlock()
	free.run()
}

// takeMemoryLocked detaches the memory when it may be released and returns
// what releases it (call its run method without the lock). It is a value, not
// a closure, so that the common case allocates nothing.
func (b *Buffer) takeMemoryLocked() memRelease {
	if !b.deleted || b.holds > 0 || b.extRefs > 0 || b.released {
		return memRelease{}
	}
	if b.own == ownNone && !b.ready.IsReady() {
		// Output not produced yet: setData frees it on arrival.
		r := memRelease{abandon: b.abandon}
		b.abandon = nil
		return r
	}
	b.markReleasedLocked()
	r := memRelease{data: b.data, own: b.own, rel: b.release}
	b.data, b.own, b.release = nil, ownNone, nil
	return r
}

// memRelease is memory detached from a buffer, to release outside its lock.
type memRelease struct {
	data    []byte
	own     ownership
	rel     func()
	abandon func()
}

func (r memRelease) run() {
	if r.abandon != nil {
		r.abandon()
	}
	switch r.own {
	case ownDevmem:
		devmem.Free(r.data)
	case ownForeign:
		// The owner's hook may need locks of its own (jaxlib's take the
		// Python GIL), so it never runs on a thread that executions or
		// event waiters depend on.
		if r.rel != nil {
			go r.rel()
		}
	}
}

// setData installs produced memory and fires the ready event.
func (b *Buffer) setData(data []byte, own ownership, release func()) {
	b.mu.Lock()
	b.data, b.own, b.release = data, own, release
	b.local = own == ownDevmem
	b.abandon = nil
	free := b.takeMemoryLocked()
	b.mu.Unlock()
	b.ready.Set(nil)
	free.run()
}

// fail marks the buffer as never produced.
func (b *Buffer) fail(err error) {
	b.ready.Set(err)
	b.mu.Lock()
	b.abandon = nil
	free := b.takeMemoryLocked()
	b.mu.Unlock()
	free.run()
}

// hold registers an in-flight reader; it fails on a deleted buffer.
func (b *Buffer) hold(what string) error { return b.holdArg(what, -1) }

// holdArg is hold for argument arg of an execution (arg < 0: none); the
// message is formatted only on failure, as this runs for every argument of
// every call.
func (b *Buffer) holdArg(what string, arg int) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.deleted {
		if arg >= 0 {
			what = fmt.Sprintf("%s %d", what, arg)
		}
		return Errorf(CodeInvalidArgument, "%s: buffer has been deleted or donated", what)
	}
	b.holds++
	return nil
}

// unhold ends an in-flight use.
func (b *Buffer) unhold() {
	b.mu.Lock()
	b.holds--
	if b.cond != nil {
		b.cond.Broadcast()
	}
	free := b.takeMemoryLocked()
	b.mu.Unlock()
	free.run()
}

// bytes returns the data after the buffer is ready; the caller holds it.
func (b *Buffer) bytes() ([]byte, error) {
	if err := b.ready.Wait(); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.released {
		return nil, Errorf(CodeFailedPrecondition, "buffer memory has been released")
	}
	return b.data, nil
}

// IncExternalRef pins the memory for an outside user (DLPack, NumPy views).
func (b *Buffer) IncExternalRef() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.deleted {
		return Errorf(CodeInvalidArgument, "IncreaseExternalReferenceCount: buffer has been deleted or donated")
	}
	b.extRefs++
	return nil
}

// DecExternalRef drops a pin taken by IncExternalRef.
func (b *Buffer) DecExternalRef() error {
	b.mu.Lock()
	if b.extRefs == 0 {
		b.mu.Unlock()
		return Errorf(CodeFailedPrecondition, "DecreaseExternalReferenceCount: no external reference is held")
	}
	b.extRefs--
	free := b.takeMemoryLocked()
	b.mu.Unlock()
	free.run()
	return nil
}

// ExternalRefs returns the number of external references.
func (b *Buffer) ExternalRefs() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.extRefs
}

// Pointer waits for the data and returns its address (valid while the buffer
// is alive or externally referenced).
func (b *Buffer) Pointer() (unsafe.Pointer, error) {
	if err := b.ready.Wait(); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.released {
		return nil, Errorf(CodeInvalidArgument, "buffer has been deleted or donated")
	}
	if b.token {
		return nil, Errorf(CodeInvalidArgument, "token buffers have no memory")
	}
	return devmem.Pointer(b.data), nil
}

// aliasesHost reports whether the memory belongs to someone else.
func (b *Buffer) foreign() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.own == ownForeign
}
