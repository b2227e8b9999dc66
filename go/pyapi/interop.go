package pyapi

import (
	"github.com/gojax/gojax/go/interop/arrowx"
)

// The Arrow* functions back gojax.interop's zero-copy Arrow export. Structs are
// passed by address (uintptr) and shapes as "d0,d1,..." strings so gopy maps
// every argument natively.

// ArrowNewSchema allocates a released ArrowSchema in C memory.
func ArrowNewSchema() uintptr { return arrowx.NewSchema() }

// ArrowNewArray allocates a released ArrowArray in C memory.
func ArrowNewArray() uintptr { return arrowx.NewArray() }

// ArrowFreeSchema releases (if still owned) and frees a struct from ArrowNewSchema.
func ArrowFreeSchema(addr uintptr) { arrowx.FreeSchema(addr) }

// ArrowFreeArray releases (if still owned) and frees a struct from ArrowNewArray.
func ArrowFreeArray(addr uintptr) { arrowx.FreeArray(addr) }

// ArrowFreeSchemaFunc is the C address of void free_schema(struct ArrowSchema*),
// for PyCapsule destructors.
func ArrowFreeSchemaFunc() uintptr { return arrowx.FreeSchemaFunc() }

// ArrowFreeArrayFunc is the C address of void free_array(struct ArrowArray*).
func ArrowFreeArrayFunc() uintptr { return arrowx.FreeArrayFunc() }

// ArrowSetHooksEnabled turns release hooks on or off (off at interpreter exit).
func ArrowSetHooksEnabled(on bool) { arrowx.SetHooksEnabled(on) }

// ArrowExportSchema fills the ArrowSchema at out with the Arrow type of a dense
// tensor of dtype and shape ("d0,d1,...").
func ArrowExportSchema(out uintptr, dtype string, shape string) error {
	s, err := arrowx.ParseShape(shape)
	if err != nil {
		return err
	}
	return arrowx.ExportSchema(out, dtype, s)
}

// ArrowExportArray fills the ArrowArray at out so that its values buffer is the
// memory at data (no copy). Its release calls hook(handle) once (hook is a C
// function void(int64_t); 0 for none).
func ArrowExportArray(out uintptr, data uintptr, dtype string, shape string, handle int64, hook uintptr) error {
	s, err := arrowx.ParseShape(shape)
	if err != nil {
		return err
	}
	return arrowx.ExportArray(out, arrowx.Tensor{Data: data, DType: dtype, Shape: s}, handle, hook)
}

// ArrowSetCapsuleGetPointer hands the capsule destructors PyCapsule_GetPointer's address.
func ArrowSetCapsuleGetPointer(fn uintptr) { arrowx.SetCapsuleGetPointer(fn) }

// ArrowCapsuleDestructor is the C address of the PyCapsule destructor for
// "arrow_array" (array true) or "arrow_schema" capsules.
func ArrowCapsuleDestructor(array bool) uintptr { return arrowx.CapsuleDestructor(array) }
