package arrowx

/*
#include <stdint.h>
void arrowx_call_hook(uintptr_t fn, int64_t handle);
*/
import "C"

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/cdata"
	"github.com/apache/arrow/go/v15/arrow/memory"
)

// Tensor describes dense row-major memory to export.
type Tensor struct {
	Data  uintptr // address of element 0; may be 0 only when the tensor is empty
	DType string
	Shape []int64
}

// owner is the memory.Allocator of an exported tensor's buffer. The memory
// belongs to gojax, so Free, which Arrow calls once the buffer's last
// reference is released, gives nothing back to any allocator: it tells the
// owner, at most once, that Arrow is done with the memory.
type owner struct {
	release func()
	done    atomic.Bool
}

var _ memory.Allocator = (*owner)(nil)

func (*owner) Allocate(int) []byte {
	panic("arrowx: an exported tensor's buffer cannot allocate")
}

func (*owner) Reallocate(int, []byte) []byte {
	panic("arrowx: an exported tensor's buffer cannot reallocate")
}

func (o *owner) Free([]byte) {
	if o.done.CompareAndSwap(false, true) && o.release != nil {
		o.release()
	}
}

// hooksOff silences C release hooks process-wide (at interpreter shutdown a
// hook into a finalizing Python must not run).
var hooksOff atomic.Bool

// SetHooksEnabled turns the hooks from Hook on or off.
func SetHooksEnabled(on bool) { hooksOff.Store(!on) }

// Hook returns a release function that calls the C function hook
// (void(int64_t)) with handle, or nil when hook is 0.
func Hook(hook uintptr, handle int64) func() {
	if hook == 0 {
		return nil
	}
	return func() {
		if !hooksOff.Load() {
			C.arrowx_call_hook(C.uintptr_t(hook), C.int64_t(handle))
		}
	}
}

// ptrAt turns an address gojax owns (C memory, never Go's) into a pointer.
func ptrAt(addr uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&addr)) }

// Array returns an Arrow array whose values buffer is t's memory (no copy).
// release (may be nil) runs once, when the array and everything derived from
// it (slices, exports) have been released; it does not run when Array fails.
func (t Tensor) Array(release func()) (arrow.Array, error) {
	dt, err := Format(t.DType)
	if err != nil {
		return nil, err
	}
	total, inner, err := checkShape(t.Shape)
	if err != nil {
		return nil, err
	}
	if len(t.Shape) > 1 && inner == 0 {
		// arrow.FixedSizeListOf panics on size 0; pyarrow has such lists.
		return nil, fmt.Errorf("arrowx: shape %v: Arrow Go v15 has no fixed_size_list of size 0", t.Shape)
	}
	width := uintptr(byteWidth(dt))
	if total > 0 && t.Data == 0 {
		return nil, fmt.Errorf("arrowx: NULL data pointer for a non-empty tensor")
	}
	if t.Data%width != 0 {
		return nil, fmt.Errorf("arrowx: data pointer %#x is not aligned to its %d-byte elements", t.Data, width)
	}
	var mem []byte
	if total > 0 {
		mem = unsafe.Slice((*byte)(ptrAt(t.Data)), total*int64(width))
	}
	buf := memory.NewBufferWithAllocator(mem, &owner{release: release})
	defer buf.Release()
	values := array.NewData(dt, int(total), []*memory.Buffer{nil, buf}, nil, 0, 0)
	defer values.Release()
	if len(t.Shape) == 1 {
		return array.MakeFromData(values), nil
	}
	typ := NewTensorType(dt, t.Shape[1:])
	data := array.NewData(typ, int(t.Shape[0]), []*memory.Buffer{nil}, []arrow.ArrayData{values}, 0, 0)
	defer data.Release()
	return array.MakeFromData(data), nil
}

// Export fills the released ArrowArray at out (and, unless schema is 0, the
// released ArrowSchema at schema) with t, aliasing t.Data. release runs once
// the consumer has released the array and all it moved out of it; not at all
// when Export fails.
func Export(out, schema uintptr, t Tensor, release func()) error {
	if out == 0 {
		return fmt.Errorf("arrowx: NULL ArrowArray")
	}
	if !ArrayReleased(out) {
		return fmt.Errorf("arrowx: ArrowArray at %#x is still owned (not released)", out)
	}
	if schema != 0 && !SchemaReleased(schema) {
		return fmt.Errorf("arrowx: ArrowSchema at %#x is still owned (not released)", schema)
	}
	a, err := t.Array(release)
	if err != nil {
		return err
	}
	defer a.Release()
	var sc *cdata.CArrowSchema
	if schema != 0 {
		sc = cdata.SchemaFromPtr(schema)
	}
	cdata.ExportArrowArray(a, cdata.ArrayFromPtr(out), sc)
	return nil
}

// ExportSchema fills the released ArrowSchema at out with the Arrow type of a
// tensor of dtype and shape.
func ExportSchema(out uintptr, dtype string, shape []int64) error {
	if out == 0 {
		return fmt.Errorf("arrowx: NULL ArrowSchema")
	}
	if !SchemaReleased(out) {
		return fmt.Errorf("arrowx: ArrowSchema at %#x is still owned (not released)", out)
	}
	if _, _, err := checkShape(shape); err != nil {
		return err
	}
	empty := append([]int64{0}, shape[1:]...) // same type, no data
	tmp := NewArray()
	defer FreeArray(tmp)
	return Export(tmp, out, Tensor{DType: dtype, Shape: empty}, nil)
}
