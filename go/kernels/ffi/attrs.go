package ffi

/*
#include <stdlib.h>
#include <string.h>
#include "xla_ffi.h"
*/
import "C"

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"unsafe"

	"github.com/gojax/gojax/go/ir"
)

// cmem owns the C memory of one step's static call-frame parts (buffer
// templates, attributes): handlers read them through C pointers, so they
// cannot live in Go's heap. It is freed when the step is dropped.
type cmem struct{ ptrs []unsafe.Pointer }

func (m *cmem) alloc(n int) unsafe.Pointer {
	p := C.calloc(1, C.size_t(max(n, 1)))
	if p == nil {
		panic("ffi: out of C memory")
	}
	m.ptrs = append(m.ptrs, p)
	return p
}

func (m *cmem) bytes(b []byte) unsafe.Pointer {
	p := m.alloc(len(b))
	if len(b) > 0 {
		C.memcpy(p, unsafe.Pointer(&b[0]), C.size_t(len(b)))
	}
	return p
}

func (m *cmem) free() {
	for _, p := range m.ptrs {
		C.free(p)
	}
	m.ptrs = nil
}

// encodeAttrs encodes a typed custom call's attributes (the entries of its
// mhlo.backend_config dictionary) as XLA does: sorted by name, scalars as
// (dtype, value), dense arrays as (dtype, size, data), strings as byte
// spans, dictionaries as nested attribute lists.
func encodeAttrs(m *cmem, entries ir.Attrs, path string) (C.XLA_FFI_Attrs, error) {
	names := make([]string, 0, len(entries))
	for k := range entries {
		names = append(names, k)
	}
	sort.Strings(names)
	n := len(names)
	out := C.XLA_FFI_Attrs{struct_size: C.size_t(unsafe.Offsetof(C.XLA_FFI_Attrs{}.attrs) + unsafe.Sizeof(C.XLA_FFI_Attrs{}.attrs)), size: C.int64_t(n)}
	if n == 0 {
		return out, nil
	}
	types := unsafe.Slice((*C.int)(m.alloc(n*int(unsafe.Sizeof(C.int(0))))), n)
	spans := unsafe.Slice((**C.XLA_FFI_ByteSpan)(m.alloc(n*int(unsafe.Sizeof(uintptr(0))))), n)
	vals := unsafe.Slice((*unsafe.Pointer)(m.alloc(n*int(unsafe.Sizeof(uintptr(0))))), n)
	for i, name := range names {
		spans[i] = m.span(name)
		kind, val, err := encodeAttr(m, entries[name], path+name)
		if err != nil {
			return out, err
		}
		types[i], vals[i] = kind, val
	}
	out.types = &types[0]
	out.names = &spans[0]
	out.attrs = &vals[0]
	return out, nil
}

func (m *cmem) span(s string) *C.XLA_FFI_ByteSpan {
	sp := (*C.XLA_FFI_ByteSpan)(m.alloc(int(unsafe.Sizeof(C.XLA_FFI_ByteSpan{}))))
	sp.ptr = (*C.char)(m.bytes([]byte(s)))
	sp.len = C.size_t(len(s))
	return sp
}

func encodeAttr(m *cmem, a ir.Attr, name string) (C.int, unsafe.Pointer, error) {
	switch a := a.(type) {
	case ir.StringAttr:
		return C.GOJAX_FFI_ATTR_STRING, unsafe.Pointer(m.span(a.Value)), nil
	case ir.DictAttr:
		d, err := encodeAttrs(m, a.Entries, name+".")
		if err != nil {
			return 0, nil, err
		}
		p := (*C.XLA_FFI_Attrs)(m.alloc(int(unsafe.Sizeof(d))))
		*p = d
		return C.GOJAX_FFI_ATTR_DICTIONARY, unsafe.Pointer(p), nil
	case ir.BoolAttr:
		return scalar(m, C.GOJAX_FFI_PRED, boolBytes(a.Value))
	case ir.IntAttr:
		t := a.Type
		if t == ir.Invalid { // index
			t = ir.S64
		}
		dt, ok := dtypes[t]
		if !ok || !t.IsInteger() && t != ir.Pred {
			return 0, nil, fmt.Errorf("attribute %q: %s integers cannot be passed to FFI handlers", name, t)
		}
		b := make([]byte, 8)
		binary.LittleEndian.PutUint64(b, uint64(a.Value))
		return scalar(m, dt, b[:t.ByteSize()])
	case ir.FloatAttr:
		switch a.Type {
		case ir.F32:
			return scalar(m, C.GOJAX_FFI_F32, binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(a.Value))))
		case ir.F64:
			return scalar(m, C.GOJAX_FFI_F64, binary.LittleEndian.AppendUint64(nil, math.Float64bits(a.Value)))
		}
		return 0, nil, fmt.Errorf("attribute %q: %s scalars cannot be passed to FFI handlers (f32 and f64 can)", name, a.Type)
	case ir.DenseI64Attr:
		b := make([]byte, 0, 8*len(a.Values))
		for _, v := range a.Values {
			b = binary.LittleEndian.AppendUint64(b, uint64(v))
		}
		return array(m, C.GOJAX_FFI_S64, len(a.Values), b)
	case ir.DenseBoolAttr:
		b := make([]byte, 0, len(a.Values))
		for _, v := range a.Values {
			b = append(b, boolBytes(v)...)
		}
		return array(m, C.GOJAX_FFI_PRED, len(a.Values), b)
	case *ir.ElementsAttr:
		dt, ok := dtypes[a.Type.Elem]
		if !ok {
			return 0, nil, fmt.Errorf("attribute %q: %s arrays cannot be passed to FFI handlers", name, a.Type.Elem)
		}
		return array(m, dt, int(a.Type.NumElements()), a.Data)
	}
	return 0, nil, fmt.Errorf("attribute %q: %s cannot be passed to FFI handlers (scalars, dense arrays, strings and dictionaries can)", name, a)
}

func scalar(m *cmem, dt C.int, value []byte) (C.int, unsafe.Pointer, error) {
	s := (*C.XLA_FFI_Scalar)(m.alloc(int(unsafe.Sizeof(C.XLA_FFI_Scalar{}))))
	s.dtype = dt
	s.value = m.bytes(value)
	return C.GOJAX_FFI_ATTR_SCALAR, unsafe.Pointer(s), nil
}

func array(m *cmem, dt C.int, n int, data []byte) (C.int, unsafe.Pointer, error) {
	a := (*C.XLA_FFI_Array)(m.alloc(int(unsafe.Sizeof(C.XLA_FFI_Array{}))))
	a.dtype = dt
	a.size = C.size_t(n)
	a.data = m.bytes(data)
	return C.GOJAX_FFI_ATTR_ARRAY, unsafe.Pointer(a), nil
}

func boolBytes(v bool) []byte {
	if v {
		return []byte{1}
	}
	return []byte{0}
}

// dtypes maps gojax element types to XLA's. gojax stores sub-byte integers
// a byte per element; handlers get them packed, as XLA passes them (see
// packed in lower.go). Sub-byte floats, i1 and f6 are not passed.
var dtypes = map[ir.ElemType]C.int{
	ir.Pred: C.GOJAX_FFI_PRED,
	ir.S8:   C.GOJAX_FFI_S8, ir.S16: C.GOJAX_FFI_S16, ir.S32: C.GOJAX_FFI_S32, ir.S64: C.GOJAX_FFI_S64,
	ir.U8: C.GOJAX_FFI_U8, ir.U16: C.GOJAX_FFI_U16, ir.U32: C.GOJAX_FFI_U32, ir.U64: C.GOJAX_FFI_U64,
	ir.F16: C.GOJAX_FFI_F16, ir.BF16: C.GOJAX_FFI_BF16, ir.F32: C.GOJAX_FFI_F32, ir.F64: C.GOJAX_FFI_F64,
	ir.C64: C.GOJAX_FFI_C64, ir.C128: C.GOJAX_FFI_C128,
	ir.F8E5M2: C.GOJAX_FFI_F8E5M2, ir.F8E4M3FN: C.GOJAX_FFI_F8E4M3FN, ir.F8E4M3B11FNUZ: C.GOJAX_FFI_F8E4M3B11FNUZ,
	ir.F8E5M2FNUZ: C.GOJAX_FFI_F8E5M2FNUZ, ir.F8E4M3FNUZ: C.GOJAX_FFI_F8E4M3FNUZ, ir.F8E4M3: C.GOJAX_FFI_F8E4M3,
	ir.F8E3M4: C.GOJAX_FFI_F8E3M4, ir.F8E8M0FNU: C.GOJAX_FFI_F8E8M0FNU,
	ir.S2: C.GOJAX_FFI_S2, ir.S4: C.GOJAX_FFI_S4, ir.U2: C.GOJAX_FFI_U2, ir.U4: C.GOJAX_FFI_U4,
}
