package engine

import (
	"sync"
	"unsafe"

	"github.com/gojax/gojax/go/devmem"
	"github.com/gojax/gojax/go/ir"
)

// Shape is an array shape for buffers created before their data arrives.
type Shape struct {
	Elem ir.ElemType
	Dims []int64
}

// HostTransfer is a set of buffers whose data the host sends later in chunks
// (PJRT's async host-to-device transfer manager). Each buffer becomes ready
// after its last chunk, or fails with SetError.
type HostTransfer struct {
	mem       *Memory
	mu        sync.Mutex
	buffers   []*Buffer
	retrieved []bool
	done      []bool
}

// NewHostTransfer allocates one pending buffer per shape in mem.
func NewHostTransfer(mem *Memory, shapes []Shape) (*HostTransfer, error) {
	t := &HostTransfer{mem: mem}
	for i, s := range shapes {
		b, err := newBuffer(mem, s.Elem, false, s.Dims)
		if err != nil {
			t.Close()
			return nil, Errorf(CodeOf(err), "shape %d: %v", i, err)
		}
		data, err := devmem.Alloc(int(b.size))
		if err != nil {
			b.discard()
			t.Close()
			return nil, WithCode(CodeResourceExhausted, err)
		}
		// Memory is attached now; the ready event fires after the last chunk.
		b.data, b.own, b.local = data, ownDevmem, true
		t.buffers = append(t.buffers, b)
	}
	t.retrieved = make([]bool, len(t.buffers))
	t.done = make([]bool, len(t.buffers))
	return t, nil
}

// Len is the number of buffers.
func (t *HostTransfer) Len() int { return len(t.buffers) }

// Memory is where the buffers live.
func (t *HostTransfer) Memory() *Memory { return t.mem }

func (t *HostTransfer) index(i int) error {
	if i < 0 || i >= len(t.buffers) {
		return Errorf(CodeInvalidArgument, "buffer index %d out of range [0, %d)", i, len(t.buffers))
	}
	return nil
}

// Size is buffer i's size in bytes.
func (t *HostTransfer) Size(i int) (int64, error) {
	if err := t.index(i); err != nil {
		return 0, err
	}
	return t.buffers[i].size, nil
}

// Retrieve hands out buffer i (once).
func (t *HostTransfer) Retrieve(i int) (*Buffer, error) {
	if err := t.index(i); err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.retrieved[i] {
		return nil, Errorf(CodeFailedPrecondition, "buffer %d was already retrieved", i)
	}
	t.retrieved[i] = true
	return t.buffers[i], nil
}

// Write copies data into buffer i at byte offset off; last marks it ready.
func (t *HostTransfer) Write(i int, data []byte, off int64, last bool) error {
	if err := t.index(i); err != nil {
		return err
	}
	t.mu.Lock()
	if t.done[i] {
		t.mu.Unlock()
		return Errorf(CodeFailedPrecondition, "buffer %d is already complete", i)
	}
	b := t.buffers[i]
	if off < 0 || off+int64(len(data)) > b.size {
		t.mu.Unlock()
		return Errorf(CodeInvalidArgument, "transfer of %d bytes at offset %d exceeds buffer %d of %d bytes", len(data), off, i, b.size)
	}
	b.mu.Lock()
	if !b.released {
		copy(b.data[off:], data)
	}
	b.mu.Unlock()
	if last {
		t.done[i] = true
	}
	t.mu.Unlock()
	if last {
		b.ready.Set(nil)
	}
	return nil
}

// SetError fails buffer i.
func (t *HostTransfer) SetError(i int, err error) error {
	if e := t.index(i); e != nil {
		return e
	}
	t.mu.Lock()
	if t.done[i] {
		t.mu.Unlock()
		return Errorf(CodeFailedPrecondition, "buffer %d is already complete", i)
	}
	t.done[i] = true
	t.mu.Unlock()
	t.buffers[i].fail(err)
	return nil
}

// Close abandons the transfer: unretrieved buffers are deleted and buffers
// still waiting for data fail.
func (t *HostTransfer) Close() {
	t.mu.Lock()
	var pending, unretrieved []*Buffer
	for i, b := range t.buffers {
		if i < len(t.done) && !t.done[i] {
			t.done[i] = true
			pending = append(pending, b)
		}
		if i >= len(t.retrieved) || !t.retrieved[i] {
			unretrieved = append(unretrieved, b)
		}
	}
	t.mu.Unlock()
	for _, b := range pending {
		b.fail(Errorf(CodeCancelled, "host-to-device transfer was abandoned before its last chunk"))
	}
	for _, b := range unretrieved {
		b.Delete()
	}
}

// WriteLiteral copies a whole (possibly strided) host array into buffer i and
// marks it ready. Its element type and dims must match the buffer's.
func (t *HostTransfer) WriteLiteral(i int, h HostBuffer) error {
	if err := t.index(i); err != nil {
		return err
	}
	b := t.buffers[i]
	if !ir.TypesEqual(ir.Tensor(h.Elem, h.Dims...), b.Type()) {
		return Errorf(CodeInvalidArgument, "literal of type %v does not match buffer %d of type %v", ir.Tensor(h.Elem, h.Dims...), i, b.Type())
	}
	if len(h.ByteStrides) != 0 && len(h.ByteStrides) != len(h.Dims) {
		return Errorf(CodeInvalidArgument, "%d byte strides for %d dimensions", len(h.ByteStrides), len(h.Dims))
	}
	if b.size > 0 && h.Data == nil {
		return Errorf(CodeInvalidArgument, "literal data is NULL")
	}
	// Staged on the Go heap: checked first, as its size is the caller's.
	if err := devmem.CheckHostBytes(b.size); err != nil {
		return WithCode(CodeResourceExhausted, err)
	}
	dense := make([]byte, b.size)
	es := int64(h.Elem.ByteSize())
	if b.size > 0 {
		if len(h.ByteStrides) == 0 || isDense(h.Dims, h.ByteStrides, es) {
			copy(dense, unsafe.Slice((*byte)(h.Data), b.size))
		} else {
			gather(dense, h.Data, h.Dims, h.ByteStrides, es)
		}
	}
	return t.Write(i, dense, 0, true)
}
