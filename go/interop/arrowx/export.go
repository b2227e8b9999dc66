// Package arrowx exports gojax's dense tensors through the Arrow C Data
// Interface without copying: the exported ArrowArray's data buffer is the
// tensor's own memory, and its release callback tells the owner (through a
// C hook and a handle) that the consumer is done with it.
//
// A 1-D tensor becomes a primitive array; an N-D tensor becomes the canonical
// extension "arrow.fixed_shape_tensor" whose storage is a
// fixed_size_list<item: T>[prod(shape[1:])] of length shape[0].
package arrowx

/*
#include <stdlib.h>
#include <string.h>
#include "arrowx.h"
*/
import "C"

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unsafe"
)

// formats maps gojax/NumPy dtype names to Arrow format strings. Only types whose
// Arrow layout is byte-identical to gojax's storage are here: bool (bit-packed
// in Arrow, one byte per element in gojax), bfloat16 and complex have no
// matching Arrow primitive and must be converted by the caller.
var formats = map[string]string{
	"int8": "c", "uint8": "C",
	"int16": "s", "uint16": "S",
	"int32": "i", "uint32": "I",
	"int64": "l", "uint64": "L",
	"float16": "e", "float32": "f", "float64": "g",
}

var itemSizes = map[string]int64{
	"int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "int32": 4, "uint32": 4,
	"int64": 8, "uint64": 8, "float16": 2, "float32": 4, "float64": 8,
}

// ExtensionName is the canonical Arrow extension type for N-D tensors.
const ExtensionName = "arrow.fixed_shape_tensor"

// Format returns the Arrow format string of a dtype, or an error naming the
// dtype when Arrow has no zero-copy equivalent.
func Format(dtype string) (string, error) {
	f, ok := formats[dtype]
	if !ok {
		return "", fmt.Errorf("arrowx: dtype %q has no zero-copy Arrow equivalent (supported: %s)", dtype, supported())
	}
	return f, nil
}

func supported() string {
	return "int8/16/32/64, uint8/16/32/64, float16, float32, float64"
}

// ParseShape reads a comma-separated shape ("2,3,4"); the Python binding passes
// shapes this way because gopy maps strings natively.
func ParseShape(s string) ([]int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("arrowx: empty shape (0-d tensors must be reshaped to 1-D first)")
	}
	parts := strings.Split(s, ",")
	shape := make([]int64, len(parts))
	for i, p := range parts {
		d, err := strconv.ParseInt(strings.TrimSpace(p), 10, 64)
		if err != nil || d < 0 {
			return nil, fmt.Errorf("arrowx: bad dimension %q in shape %q", p, s)
		}
		shape[i] = d
	}
	return shape, nil
}

// Tensor describes dense row-major memory to export.
type Tensor struct {
	Data  uintptr // address of element 0; may be 0 only when the tensor is empty
	DType string
	Shape []int64
}

func (t Tensor) check() (format string, inner int64, err error) {
	format, err = Format(t.DType)
	if err != nil {
		return "", 0, err
	}
	if len(t.Shape) == 0 {
		return "", 0, fmt.Errorf("arrowx: 0-d tensor (reshape it to 1-D first)")
	}
	inner = 1
	total := int64(1)
	for _, d := range t.Shape {
		if d < 0 {
			return "", 0, fmt.Errorf("arrowx: negative dimension in shape %v", t.Shape)
		}
		if d != 0 && total > math.MaxInt64/d {
			return "", 0, fmt.Errorf("arrowx: shape %v overflows int64", t.Shape)
		}
		total *= d
	}
	for _, d := range t.Shape[1:] {
		inner *= d
	}
	if len(t.Shape) > 1 && inner > math.MaxInt32 {
		return "", 0, fmt.Errorf("arrowx: inner size %d of shape %v exceeds Arrow's int32 list size", inner, t.Shape)
	}
	if total > 0 && t.Data == 0 {
		return "", 0, fmt.Errorf("arrowx: NULL data pointer for a non-empty tensor")
	}
	if t.Data%uintptr(itemSizes[t.DType]) != 0 {
		return "", 0, fmt.Errorf("arrowx: data pointer %#x is not aligned to its %d-byte elements", t.Data, itemSizes[t.DType])
	}
	return format, inner, nil
}

// NewSchema and NewArray allocate zeroed (released) structs in C memory, the
// form the C Data Interface's PyCapsules and _import_from_c expect.
func NewSchema() uintptr { return uintptr(C.calloc(1, C.sizeof_struct_ArrowSchema)) }

// NewArray: see NewSchema.
func NewArray() uintptr { return uintptr(C.calloc(1, C.sizeof_struct_ArrowArray)) }

// FreeSchema releases (if still owned) and frees a struct from NewSchema.
func FreeSchema(addr uintptr) { C.arrowx_free_schema(C.arrowx_schema_at(C.uintptr_t(addr))) }

// FreeArray releases (if still owned) and frees a struct from NewArray.
func FreeArray(addr uintptr) { C.arrowx_free_array(C.arrowx_array_at(C.uintptr_t(addr))) }

// FreeSchemaFunc and FreeArrayFunc are the C addresses of FreeSchema/FreeArray's
// workers (void f(struct*)), for PyCapsule destructors.
func FreeSchemaFunc() uintptr { return uintptr(C.arrowx_free_schema_addr()) }

// FreeArrayFunc: see FreeSchemaFunc.
func FreeArrayFunc() uintptr { return uintptr(C.arrowx_free_array_addr()) }

// SetCapsuleGetPointer gives the capsule destructors the address of
// PyCapsule_GetPointer (void* (*)(PyObject*, const char*)).
func SetCapsuleGetPointer(fn uintptr) { C.arrowx_set_capsule_get_pointer(C.uintptr_t(fn)) }

// CapsuleDestructor is the C address of the PyCapsule destructor for an
// "arrow_array" (array true) or "arrow_schema" capsule made from a NewArray or
// NewSchema struct: it releases the struct if no consumer moved it out, then
// frees it.
func CapsuleDestructor(array bool) uintptr {
	if array {
		return uintptr(C.arrowx_capsule_free_array_addr())
	}
	return uintptr(C.arrowx_capsule_free_schema_addr())
}

// SetHooksEnabled turns release hooks on or off process-wide (off at
// interpreter shutdown, when calling back into Python is unsafe).
func SetHooksEnabled(on bool) {
	v := C.int(0)
	if on {
		v = 1
	}
	C.arrowx_set_hooks_enabled(v)
}

// ExportSchema fills the released struct at out with t's Arrow type.
func ExportSchema(out uintptr, dtype string, shape []int64) error {
	s := C.arrowx_schema_at(C.uintptr_t(out))
	if s == nil {
		return fmt.Errorf("arrowx: NULL ArrowSchema")
	}
	if s.release != nil {
		return fmt.Errorf("arrowx: ArrowSchema at %#x is still owned (not released)", out)
	}
	format, inner, err := Tensor{Data: 1 << 12, DType: dtype, Shape: shape}.check()
	if err != nil {
		return err
	}
	C.memset(unsafe.Pointer(s), 0, C.sizeof_struct_ArrowSchema)
	if len(shape) == 1 {
		fillSchema(s, format, "", nil)
		return nil
	}
	meta := encodeMetadata([][2]string{
		{"ARROW:extension:name", ExtensionName},
		{"ARROW:extension:metadata", shapeJSON(shape[1:])},
	})
	fillSchema(s, "+w:"+strconv.FormatInt(inner, 10), "", meta)
	child := (*C.struct_ArrowSchema)(C.calloc(1, C.sizeof_struct_ArrowSchema))
	fillSchema(child, format, "item", nil)
	kids := (**C.struct_ArrowSchema)(C.calloc(1, C.size_t(unsafe.Sizeof(child))))
	*kids = child
	s.n_children = 1
	s.children = kids
	return nil
}

func fillSchema(s *C.struct_ArrowSchema, format, name string, meta []byte) {
	s.format = C.CString(format)
	s.name = C.CString(name)
	if meta != nil {
		s.metadata = (*C.char)(C.CBytes(meta))
	}
	s.flags = C.ARROW_FLAG_NULLABLE // pyarrow's default field nullability
	s.release = (*[0]byte)(C.arrowx_release_schema)
}

// ExportArray fills the released struct at out with t's data, aliasing
// t.Data. When the consumer releases it, hook (a C function
// void(int64_t), or 0 for none) is called once with handle.
func ExportArray(out uintptr, t Tensor, handle int64, hook uintptr) error {
	a := C.arrowx_array_at(C.uintptr_t(out))
	if a == nil {
		return fmt.Errorf("arrowx: NULL ArrowArray")
	}
	if a.release != nil {
		return fmt.Errorf("arrowx: ArrowArray at %#x is still owned (not released)", out)
	}
	_, _, err := t.check()
	if err != nil {
		return err
	}
	C.memset(unsafe.Pointer(a), 0, C.sizeof_struct_ArrowArray)
	total := int64(1)
	for _, d := range t.Shape {
		total *= d
	}
	if len(t.Shape) == 1 {
		fillPrimitive(a, t.Data, total)
	} else {
		child := (*C.struct_ArrowArray)(C.calloc(1, C.sizeof_struct_ArrowArray))
		fillPrimitive(child, t.Data, total)
		kids := (**C.struct_ArrowArray)(C.calloc(1, C.size_t(unsafe.Sizeof(child))))
		*kids = child
		bufs := (*unsafe.Pointer)(C.calloc(1, C.size_t(unsafe.Sizeof(uintptr(0)))))
		a.length = C.int64_t(t.Shape[0])
		a.n_buffers = 1 // validity only, absent
		a.buffers = (*unsafe.Pointer)(unsafe.Pointer(bufs))
		a.n_children = 1
		a.children = kids
		a.release = (*[0]byte)(C.arrowx_release_array)
	}
	C.arrowx_set_owner(a, C.int64_t(handle), C.uintptr_t(hook))
	return nil
}

func fillPrimitive(a *C.struct_ArrowArray, data uintptr, length int64) {
	bufs := (*[2]unsafe.Pointer)(C.calloc(2, C.size_t(unsafe.Sizeof(uintptr(0)))))
	bufs[1] = unsafe.Pointer(C.arrowx_data_ptr(C.uintptr_t(data)))
	a.length = C.int64_t(length)
	a.n_buffers = 2 // validity (absent: no nulls), values
	a.buffers = (*unsafe.Pointer)(unsafe.Pointer(bufs))
	a.release = (*[0]byte)(C.arrowx_release_array)
}

func shapeJSON(shape []int64) string {
	parts := make([]string, len(shape))
	for i, d := range shape {
		parts[i] = strconv.FormatInt(d, 10)
	}
	return `{"shape":[` + strings.Join(parts, ",") + `]}`
}

// encodeMetadata lays out key/value pairs as the C Data Interface requires:
// int32 count, then per pair int32 length + bytes for key and value (native
// byte order; every platform gojax builds for is little endian).
func encodeMetadata(kv [][2]string) []byte {
	var b []byte
	b = binary.LittleEndian.AppendUint32(b, uint32(len(kv)))
	for _, p := range kv {
		for _, s := range p {
			b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
			b = append(b, s...)
		}
	}
	return b
}
