package engine

import (
	"sync"
	"unsafe"

	"github.com/gojax/gojax/go/devmem"
	"github.com/gojax/gojax/go/ir"
)

// HostBuffer describes caller memory: a base pointer, dims and optional byte
// strides (nil = dense row-major).
type HostBuffer struct {
	Data        unsafe.Pointer
	Elem        ir.ElemType
	Dims        []int64
	ByteStrides []int64
}

// BufferFromHost creates a buffer from host data. With a zero-copy semantics,
// dense row-major data at a 64-byte-aligned address is aliased, not copied; the
// returned event fires when gojax no longer needs the host memory.
func BufferFromHost(mem *Memory, h HostBuffer, sem HostSemantics) (*Buffer, *Event, error) {
	if sem < ImmutableOnlyDuringCall || sem > MutableZeroCopy {
		return nil, nil, Errorf(CodeInvalidArgument, "unknown host buffer semantics %d", sem)
	}
	b, err := newBuffer(mem, h.Elem, false, h.Dims)
	if err != nil {
		return nil, nil, err
	}
	es := int64(h.Elem.ByteSize())
	strides := h.ByteStrides
	if len(strides) != 0 && len(strides) != len(h.Dims) {
		b.discard()
		return nil, nil, Errorf(CodeInvalidArgument, "%d byte strides for %d dimensions", len(strides), len(h.Dims))
	}
	dense := len(strides) == 0 || isDense(h.Dims, strides, es)
	if b.size > 0 && h.Data == nil {
		b.discard()
		return nil, nil, Errorf(CodeInvalidArgument, "host data pointer is NULL for %d bytes", b.size)
	}
	zeroCopy := sem == ImmutableZeroCopy || sem == MutableZeroCopy
	if zeroCopy && dense && b.size > 0 && uintptr(h.Data)%devmem.Alignment == 0 {
		done := NewEvent()
		b.setData(unsafe.Slice((*byte)(h.Data), b.size), ownForeign, func() { done.Set(nil) })
		return b, done, nil
	}
	data, err := devmem.Alloc(int(b.size))
	if err != nil {
		b.discard()
		return nil, nil, WithCode(CodeResourceExhausted, err)
	}
	if b.size > 0 {
		if dense {
			copy(data, unsafe.Slice((*byte)(h.Data), b.size))
		} else {
			gather(data, h.Data, h.Dims, strides, es)
		}
	}
	b.setData(data, ownDevmem, nil)
	return b, DoneEvent(nil), nil
}

// isDense reports whether strides are the dense row-major strides of dims.
func isDense(dims, strides []int64, es int64) bool {
	acc := es
	for i := len(dims) - 1; i >= 0; i-- {
		if dims[i] != 1 && strides[i] != acc {
			return false
		}
		acc *= dims[i]
	}
	return true
}

// gather copies a strided host array into dense row-major dst.
func gather(dst []byte, src unsafe.Pointer, dims, strides []int64, es int64) {
	walk(dims, strides, es, func(off int64, i int64) {
		copy(dst[i*es:(i+1)*es], unsafe.Slice((*byte)(unsafe.Add(src, off)), es))
	})
}

// scatter copies dense row-major src into a strided host array.
func scatter(dst unsafe.Pointer, src []byte, dims, strides []int64, es int64) {
	walk(dims, strides, es, func(off int64, i int64) {
		copy(unsafe.Slice((*byte)(unsafe.Add(dst, off)), es), src[i*es:(i+1)*es])
	})
}

// walk visits every element in row-major order with its strided byte offset.
func walk(dims, strides []int64, es int64, f func(off, i int64)) {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	if n == 0 {
		return
	}
	idx := make([]int64, len(dims))
	off := int64(0)
	for i := int64(0); i < n; i++ {
		f(off, i)
		for k := len(dims) - 1; k >= 0; k-- {
			idx[k]++
			off += strides[k]
			if idx[k] < dims[k] {
				break
			}
			off -= strides[k] * dims[k]
			idx[k] = 0
		}
	}
}

// ToHost copies the buffer into dst (dstSize bytes), dense row-major unless
// byteStrides are given. The copy happens once the buffer is ready; the event
// fires when dst has been written.
func (b *Buffer) ToHost(dst unsafe.Pointer, dstSize int64, byteStrides []int64) (*Event, error) {
	if b.token {
		return nil, Errorf(CodeInvalidArgument, "ToHostBuffer: token buffers have no data")
	}
	es := int64(b.elem.ByteSize())
	if len(byteStrides) != 0 {
		if len(byteStrides) != len(b.dims) {
			return nil, Errorf(CodeInvalidArgument, "ToHostBuffer: %d byte strides for %d dimensions", len(byteStrides), len(b.dims))
		}
		if isDense(b.dims, byteStrides, es) {
			byteStrides = nil
		} else if err := checkStridedFits(b.dims, byteStrides, es, dstSize); err != nil {
			return nil, err
		}
	}
	if len(byteStrides) == 0 && dstSize < b.size {
		return nil, Errorf(CodeInvalidArgument, "ToHostBuffer: destination has %d bytes, buffer needs %d", dstSize, b.size)
	}
	if b.size > 0 && dst == nil {
		return nil, Errorf(CodeInvalidArgument, "ToHostBuffer: destination is NULL")
	}
	if err := b.hold("ToHostBuffer"); err != nil {
		return nil, err
	}
	done := NewEvent()
	run := func() {
		defer b.unhold()
		data, err := b.bytes()
		if err != nil {
			done.Set(err)
			return
		}
		if b.size > 0 {
			if byteStrides == nil {
				copy(unsafe.Slice((*byte)(dst), b.size), data)
			} else {
				scatter(dst, data, b.dims, byteStrides, es)
			}
		}
		done.Set(nil)
	}
	if b.ready.IsReady() {
		run()
	} else {
		go run()
	}
	return done, nil
}

// checkStridedFits verifies that a strided destination lies within
// [dst, dst+dstSize) for non-negative strides.
func checkStridedFits(dims, strides []int64, es, dstSize int64) error {
	last := int64(0)
	for i, d := range dims {
		if d == 0 {
			return nil
		}
		if strides[i] < 0 {
			return Errorf(CodeInvalidArgument, "ToHostBuffer: negative host strides %v are not supported", strides)
		}
		last += (d - 1) * strides[i]
	}
	if last+es > dstSize {
		return Errorf(CodeInvalidArgument, "ToHostBuffer: strides %v need %d bytes, destination has %d", strides, last+es, dstSize)
	}
	return nil
}

// CopyRawToHost copies size bytes starting at offset of the raw data.
func (b *Buffer) CopyRawToHost(dst unsafe.Pointer, offset, size int64) (*Event, error) {
	if offset < 0 || size < 0 || offset+size > b.size {
		return nil, Errorf(CodeInvalidArgument, "CopyRawToHost: range [%d, %d) outside buffer of %d bytes", offset, offset+size, b.size)
	}
	if size > 0 && dst == nil {
		return nil, Errorf(CodeInvalidArgument, "CopyRawToHost: destination is NULL")
	}
	if err := b.hold("CopyRawToHost"); err != nil {
		return nil, err
	}
	done := NewEvent()
	go func() {
		defer b.unhold()
		data, err := b.bytes()
		if err == nil && size > 0 {
			copy(unsafe.Slice((*byte)(dst), size), data[offset:offset+size])
		}
		done.Set(err)
	}()
	return done, nil
}

// CopyToMemory copies the buffer into another memory space (asynchronously).
func (b *Buffer) CopyToMemory(mem *Memory) (*Buffer, error) {
	nb, err := newBuffer(mem, b.elem, b.token, b.dims)
	if err != nil {
		return nil, err
	}
	if err := b.hold("CopyToMemory"); err != nil {
		nb.discard()
		return nil, err
	}
	go func() {
		defer b.unhold()
		data, err := b.bytes()
		if err != nil {
			nb.fail(err)
			return
		}
		out, err := devmem.Alloc(len(data))
		if err != nil {
			nb.fail(WithCode(CodeResourceExhausted, err))
			return
		}
		copy(out, data)
		nb.setData(out, ownDevmem, nil)
	}()
	return nb, nil
}

// NewUninitializedBuffer allocates a buffer without initializing its memory.
func NewUninitializedBuffer(mem *Memory, elem ir.ElemType, dims []int64) (*Buffer, error) {
	b, err := newBuffer(mem, elem, false, dims)
	if err != nil {
		return nil, err
	}
	data, err := devmem.Alloc(int(b.size))
	if err != nil {
		b.discard()
		return nil, WithCode(CodeResourceExhausted, err)
	}
	b.setData(data, ownDevmem, nil)
	return b, nil
}

// NewErrorBuffer creates a buffer whose ready event carries err.
func NewErrorBuffer(mem *Memory, elem ir.ElemType, token bool, dims []int64, err error) (*Buffer, error) {
	b, e := newBuffer(mem, elem, token, dims)
	if e != nil {
		return nil, e
	}
	b.fail(err)
	return b, nil
}

// NewViewBuffer wraps memory the caller owns (e.g. a DLPack tensor); onDelete
// runs once gojax no longer uses it.
func NewViewBuffer(mem *Memory, elem ir.ElemType, dims []int64, ptr unsafe.Pointer, onDelete func()) (*Buffer, error) {
	b, err := newBuffer(mem, elem, false, dims)
	if err != nil {
		return nil, err
	}
	if ptr == nil && b.size > 0 {
		b.discard()
		return nil, Errorf(CodeInvalidArgument, "CreateViewOfDeviceBuffer: device pointer is NULL")
	}
	var data []byte
	if ptr != nil {
		data = unsafe.Slice((*byte)(ptr), b.size)
	}
	b.setData(data, ownForeign, onDelete)
	return b, nil
}

// NewTokenBuffer creates a ready token.
func NewTokenBuffer(mem *Memory) (*Buffer, error) {
	b, err := newBuffer(mem, ir.Invalid, true, nil)
	if err != nil {
		return nil, err
	}
	b.setData(nil, ownNone, nil)
	return b, nil
}

// CopyRawToHostLater starts a raw copy whose destination arrives later:
// deliver(dst, nil) supplies it (deliver(nil, err) abandons the copy). The
// event fires when dst has been written or the copy failed.
func (b *Buffer) CopyRawToHostLater(offset, size int64) (*Event, func(dst unsafe.Pointer, err error), error) {
	if offset < 0 || size < 0 || offset+size > b.size {
		return nil, nil, Errorf(CodeInvalidArgument, "CopyRawToHostFuture: range [%d, %d) outside buffer of %d bytes", offset, offset+size, b.size)
	}
	if err := b.hold("CopyRawToHostFuture"); err != nil {
		return nil, nil, err
	}
	done := NewEvent()
	var once sync.Once
	deliver := func(dst unsafe.Pointer, err error) {
		once.Do(func() {
			if err == nil && dst == nil && size > 0 {
				err = Errorf(CodeInvalidArgument, "CopyRawToHostFuture: destination is NULL")
			}
			if err != nil {
				b.unhold()
				done.Set(err)
				return
			}
			go func() {
				defer b.unhold()
				data, err := b.bytes()
				if err == nil && size > 0 {
					copy(unsafe.Slice((*byte)(dst), size), data[offset:offset+size])
				}
				done.Set(err)
			}()
		})
	}
	return done, deliver, nil
}

// DonateWithDependency moves the buffer's memory into a new buffer once
// dependencyReady is called (with nil) and the data is ready. The original
// reads as deleted at once; the new buffer fails if the dependency does.
func (b *Buffer) DonateWithDependency() (*Buffer, func(error), error) {
	nb, err := newBuffer(b.memory, b.elem, b.token, b.dims)
	if err != nil {
		return nil, nil, err
	}
	b.mu.Lock()
	switch {
	case b.deleted:
		b.mu.Unlock()
		nb.discard()
		return nil, nil, Errorf(CodeInvalidArgument, "DonateWithControlDependency: buffer has been deleted or donated")
	case b.extRefs > 0:
		b.mu.Unlock()
		nb.discard()
		return nil, nil, Errorf(CodeFailedPrecondition, "DonateWithControlDependency: buffer has %d external references", b.extRefs)
	}
	b.holds++
	b.setDeletedLocked()
	nb.local = b.local
	b.mu.Unlock()
	dep := NewEvent()
	go func() {
		err := dep.Wait()
		if err == nil {
			err = b.ready.Wait()
		}
		if err != nil {
			b.unhold()
			nb.fail(err)
			return
		}
		b.waitSoleHolder()
		b.mu.Lock()
		data, own, rel := b.data, b.own, b.release
		b.data, b.own, b.release = nil, ownNone, nil
		b.markReleasedLocked()
		b.mu.Unlock()
		b.unhold()
		nb.setData(data, own, rel)
	}()
	return nb, func(err error) { dep.Set(err) }, nil
}
