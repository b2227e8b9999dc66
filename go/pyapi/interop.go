package pyapi

import (
	"errors"
	"sync"

	"github.com/gojax/gojax/go/interop/arrowx"
)

// The Arrow* functions back gojax.interop's Arrow exchange (go/interop/arrowx,
// on Apache Arrow Go's cdata). Structs are passed by address (uintptr) and
// shapes as "d0,d1,..." strings so gopy maps every argument natively.

// ArrowNewSchema allocates a released ArrowSchema in C memory.
func ArrowNewSchema() uintptr { return arrowx.NewSchema() }

// ArrowNewArray allocates a released ArrowArray in C memory.
func ArrowNewArray() uintptr { return arrowx.NewArray() }

// ArrowFreeSchema releases (if still owned) and frees a struct from ArrowNewSchema.
func ArrowFreeSchema(addr uintptr) { arrowx.FreeSchema(addr) }

// ArrowFreeArray releases (if still owned) and frees a struct from ArrowNewArray.
func ArrowFreeArray(addr uintptr) { arrowx.FreeArray(addr) }

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

// ArrowExportArray fills the ArrowArray at out (and the ArrowSchema at schema
// unless it is 0) so that its values buffer is the memory at data (no copy).
// Once the consumer releases it, hook(handle) is called once (hook is a C
// function void(int64_t); 0 for none); never when the export fails.
func ArrowExportArray(out uintptr, schema uintptr, data uintptr, dtype string, shape string, handle int64, hook uintptr) error {
	s, err := arrowx.ParseShape(shape)
	if err != nil {
		return err
	}
	return arrowx.Export(out, schema, arrowx.Tensor{Data: data, DType: dtype, Shape: s}, arrowx.Hook(hook, handle))
}

// ArrowSetCapsuleGetPointer hands the capsule destructors PyCapsule_GetPointer's address.
func ArrowSetCapsuleGetPointer(fn uintptr) { arrowx.SetCapsuleGetPointer(fn) }

// ArrowCapsuleDestructor is the C address of the PyCapsule destructor for
// "arrow_array" (array true) or "arrow_schema" capsules.
func ArrowCapsuleDestructor(array bool) uintptr { return arrowx.CapsuleDestructor(array) }

var imports = struct {
	sync.Mutex
	next int64
	m    map[int64]*arrowx.Imported
}{m: map[int64]*arrowx.Imported{}}

// ArrowImport takes ownership of the ArrowArray at array and releases the
// ArrowSchema at schema, and returns a handle to the imported tensor (read it
// with ArrowImportData/DType/Shape/Copied; ArrowImportRelease lets go of it).
// hasFill says whether fillBits (the fill value's little-endian bit pattern in
// the tensor's dtype) replaces nulls. Errors start with "TypeError: " (no JAX
// dtype) or "ValueError: " (nulls without a fill value) when Python should
// raise those.
func ArrowImport(array uintptr, schema uintptr, hasFill bool, fillBits uint64) (int64, error) {
	var fill *uint64
	if hasFill {
		fill = &fillBits
	}
	im, err := arrowx.Import(array, schema, fill)
	switch {
	case errors.Is(err, arrowx.ErrType):
		return 0, errors.New("TypeError: " + err.Error())
	case errors.Is(err, arrowx.ErrNulls):
		return 0, errors.New("ValueError: " + err.Error())
	case err != nil:
		return 0, err
	}
	imports.Lock()
	defer imports.Unlock()
	imports.next++
	imports.m[imports.next] = im
	return imports.next, nil
}

func imported(h int64) *arrowx.Imported {
	imports.Lock()
	defer imports.Unlock()
	if im := imports.m[h]; im != nil {
		return im
	}
	return &arrowx.Imported{}
}

// ArrowImportData is the address of element 0 of an imported tensor (0 when empty).
func ArrowImportData(h int64) uintptr { return imported(h).Data }

// ArrowImportDType is an imported tensor's dtype name.
func ArrowImportDType(h int64) string { return imported(h).DType }

// ArrowImportShape is an imported tensor's shape ("d0,d1,...").
func ArrowImportShape(h int64) string { return arrowx.FormatShape(imported(h).Shape) }

// ArrowImportCopied says whether the import had to copy (nulls filled, booleans unpacked).
func ArrowImportCopied(h int64) bool { return imported(h).Copied }

// ArrowImportRelease lets go of an imported tensor: the producer's release
// callback runs (unless something else still holds its array) or the copy is
// freed. Unknown or already released handles are ignored.
func ArrowImportRelease(h int64) {
	imports.Lock()
	im := imports.m[h]
	delete(imports.m, h)
	imports.Unlock()
	if im != nil {
		im.Release() // outside the lock: the producer's callback may import again
	}
}

// ArrowLiveImports is the number of imports not yet released.
func ArrowLiveImports() int {
	imports.Lock()
	defer imports.Unlock()
	return len(imports.m)
}
