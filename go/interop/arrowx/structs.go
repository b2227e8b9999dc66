package arrowx

/*
#include <stdint.h>
#include <stdlib.h>
void arrowx_set_get_pointer(uintptr_t fn);
void arrowx_capsule_free_schema(void* capsule);
void arrowx_capsule_free_array(void* capsule);
*/
import "C"

import (
	"reflect"
	"unsafe"

	"github.com/apache/arrow/go/v15/arrow/cdata"
)

// The Python side moves structs by address. NewSchema and NewArray allocate
// zeroed (released) structs in C memory, the form PyCapsules and pyarrow's
// _import_from_c/_export_to_c expect.
func NewSchema() uintptr {
	return uintptr(C.calloc(1, C.size_t(unsafe.Sizeof(cdata.CArrowSchema{}))))
}

// NewArray: see NewSchema.
func NewArray() uintptr {
	return uintptr(C.calloc(1, C.size_t(unsafe.Sizeof(cdata.CArrowArray{}))))
}

// FreeSchema releases (if still owned) and frees a struct from NewSchema.
func FreeSchema(addr uintptr) {
	if addr == 0 {
		return
	}
	s := cdata.SchemaFromPtr(addr)
	cdata.ReleaseCArrowSchema(s)
	C.free(unsafe.Pointer(s))
}

// FreeArray releases (if still owned) and frees a struct from NewArray.
func FreeArray(addr uintptr) {
	if addr == 0 {
		return
	}
	a := cdata.ArrayFromPtr(addr)
	cdata.ReleaseCArrowArray(a)
	C.free(unsafe.Pointer(a))
}

// The release callbacks' offsets, taken from Arrow Go's own struct
// definitions: a struct is released when its release callback is NULL.
var (
	schemaRelease = releaseOffset(reflect.TypeOf(cdata.CArrowSchema{}))
	arrayRelease  = releaseOffset(reflect.TypeOf(cdata.CArrowArray{}))
)

func releaseOffset(t reflect.Type) uintptr {
	f, ok := t.FieldByName("release")
	if !ok {
		panic("arrowx: " + t.String() + " has no release field")
	}
	return f.Offset
}

func released(addr, off uintptr) bool { return *(*unsafe.Pointer)(unsafe.Add(ptrAt(addr), off)) == nil }

// SchemaReleased says whether the ArrowSchema at addr is released (not owned).
func SchemaReleased(addr uintptr) bool { return released(addr, schemaRelease) }

// ArrayReleased says whether the ArrowArray at addr is released (not owned).
func ArrayReleased(addr uintptr) bool { return released(addr, arrayRelease) }

//export arrowxFreeSchema
func arrowxFreeSchema(p unsafe.Pointer) { FreeSchema(uintptr(p)) }

//export arrowxFreeArray
func arrowxFreeArray(p unsafe.Pointer) { FreeArray(uintptr(p)) }

// SetCapsuleGetPointer gives the capsule destructors the address of
// PyCapsule_GetPointer (void* (*)(PyObject*, const char*)); this library
// does not link against libpython.
func SetCapsuleGetPointer(fn uintptr) { C.arrowx_set_get_pointer(C.uintptr_t(fn)) }

// CapsuleDestructor is the C address of the PyCapsule destructor for an
// "arrow_array" (array true) or "arrow_schema" capsule holding a NewArray or
// NewSchema struct: it releases the struct if no consumer moved it out, then
// frees it.
func CapsuleDestructor(array bool) uintptr {
	if array {
		return uintptr(unsafe.Pointer((*[0]byte)(C.arrowx_capsule_free_array)))
	}
	return uintptr(unsafe.Pointer((*[0]byte)(C.arrowx_capsule_free_schema)))
}
