package arrowx

/*
#include "arrowx.h"

static void arrowx_call_destructor(uintptr_t fn, uintptr_t capsule) {
  ((void (*)(void*))fn)((void*)capsule);
}
*/
import "C"

import (
	"encoding/binary"
	"unsafe"
)

// schemaView and arrayView read exported structs back into Go; the tests use
// them because cgo is not available in _test.go files.
type schemaView struct {
	Format, Name string
	Metadata     map[string]string
	Flags        int64
	Children     []schemaView
	Released     bool
}

type arrayView struct {
	Length, NullCount, Offset int64
	Buffers                   []uintptr
	Children                  []arrayView
	Released                  bool
}

func inspectSchema(addr uintptr) schemaView {
	s := C.arrowx_schema_at(C.uintptr_t(addr))
	if s.release == nil {
		return schemaView{Released: true}
	}
	v := schemaView{Format: C.GoString(s.format), Name: C.GoString(s.name), Flags: int64(s.flags)}
	if s.metadata != nil {
		v.Metadata = decodeMetadata(unsafe.Pointer(s.metadata))
	}
	kids := unsafe.Slice(s.children, int(s.n_children))
	for _, k := range kids {
		v.Children = append(v.Children, inspectSchema(uintptr(unsafe.Pointer(k))))
	}
	return v
}

func decodeMetadata(p unsafe.Pointer) map[string]string {
	next := func(n int) []byte {
		b := C.GoBytes(p, C.int(n))
		p = unsafe.Add(p, n)
		return b
	}
	m := map[string]string{}
	count := binary.LittleEndian.Uint32(next(4))
	for range count {
		k := string(next(int(binary.LittleEndian.Uint32(next(4)))))
		m[k] = string(next(int(binary.LittleEndian.Uint32(next(4)))))
	}
	return m
}

func inspectArray(addr uintptr) arrayView {
	a := C.arrowx_array_at(C.uintptr_t(addr))
	if a.release == nil {
		return arrayView{Released: true}
	}
	v := arrayView{Length: int64(a.length), NullCount: int64(a.null_count), Offset: int64(a.offset)}
	for _, b := range unsafe.Slice(a.buffers, int(a.n_buffers)) {
		v.Buffers = append(v.Buffers, uintptr(b))
	}
	for _, k := range unsafe.Slice(a.children, int(a.n_children)) {
		v.Children = append(v.Children, inspectArray(uintptr(unsafe.Pointer(k))))
	}
	return v
}

// releaseArray calls the struct's own release callback, as a consumer would.
func releaseArray(addr uintptr) {
	C.arrowx_release_array(C.arrowx_array_at(C.uintptr_t(addr)))
}

func recordingHook() uintptr { return uintptr(C.arrowx_recording_hook_addr()) }
func recordedLast() int64    { return int64(C.arrowx_recorded_last()) }
func recordedCalls() int64   { return int64(C.arrowx_recorded_calls()) }

func fakeGetPointer() uintptr { return uintptr(C.arrowx_fake_get_pointer_addr()) }

func fakeGetPointerLastName() string { return C.GoString(C.arrowx_fake_get_pointer_last_name()) }

// callCapsuleDestructor calls a destructor from CapsuleDestructor the way
// CPython would, with the "capsule" (here the struct address itself).
func callCapsuleDestructor(fn, capsule uintptr) {
	C.arrowx_call_destructor(C.uintptr_t(fn), C.uintptr_t(capsule))
}
