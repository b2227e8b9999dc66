// Package ffi runs XLA FFI handlers (typed custom calls, api_version 4) on
// gojax: handlers compiled against jaxlib's xla/ffi/api headers and
// registered for platform "cpu" (jax.ffi.register_ffi_target, or the PJRT
// FFI extension's register_handler) become kernel steps.
//
// xla_ffi.h declares the FFI C ABI, api.c implements its function table
// (errors, state, user data, scratch memory, tasks, futures) and keeps the
// process-wide handler and type registries. A custom call whose target is
// registered here lowers to a step (lower.go) that encodes the call's
// attributes once (attrs.go), runs the instantiate stage at compile time, and
// at each run builds a call frame over the step's buffers and calls the
// prepare, initialize and execute stages through gojax_ffi_run, turning a
// returned XLA_FFI_Error into the op's error. Targets with a kernel of their
// own keep it (jaxlib registers its LAPACK handlers for "cpu" too).
package ffi

/*
#include <stdlib.h>
#include "xla_ffi.h"

// Addresses arrive from Python and the PJRT extension as integers.
static XLA_FFI_Handler_Bundle bundle_of(uintptr_t inst, uintptr_t prep, uintptr_t init, uintptr_t exec) {
  XLA_FFI_Handler_Bundle b = {(XLA_FFI_Handler*)inst, (XLA_FFI_Handler*)prep, (XLA_FFI_Handler*)init,
                              (XLA_FFI_Handler*)exec, NULL};
  return b;
}

static int type_register_at(const char* name, size_t len, uintptr_t id, uintptr_t deleter, char** err) {
  return gojax_ffi_type_register(name, len, (int64_t*)id, (void (*)(void*))deleter, err);
}
*/
import "C"

import (
	"errors"
	"unsafe"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

func init() { kernel.SetCustomCallFallback(lookupLower) }

// Bundle is a handler's stages as C function addresses (0 = absent);
// Execute is required.
type Bundle struct {
	Instantiate, Prepare, Initialize, Execute uintptr
}

// Register adds an FFI handler under target for platform ("cpu" or
// "Host"; others are refused). Registering the same bundle again is
// accepted; another bundle under a registered name is an error.
func Register(target, platform string, b Bundle, traits uint32) error {
	cb := C.bundle_of(C.uintptr_t(b.Instantiate), C.uintptr_t(b.Prepare), C.uintptr_t(b.Initialize), C.uintptr_t(b.Execute))
	name := C.CString(target)
	defer C.free(unsafe.Pointer(name))
	plat := C.CString(platform)
	defer C.free(unsafe.Pointer(plat))
	var msg *C.char
	if C.gojax_ffi_register(name, C.size_t(len(target)), plat, C.size_t(len(platform)), &cb, C.uint32_t(traits), &msg) == 0 {
		return takeMessage(msg)
	}
	return nil
}

// Registered reports whether target has an FFI handler.
func Registered(target string) bool {
	_, _, ok := lookup(target)
	return ok
}

// RegisterType registers an FFI type by name (for state and user data).
// idAddr is the address of the type's XLA_FFI_TypeId (C memory): 0 there
// asks for a new id, written back; a nonzero id (one XLA's registry gave
// the same type) is kept. deleter, a C function address or 0, frees the
// type's objects.
func RegisterType(name string, idAddr, deleter uintptr) error {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var msg *C.char
	if C.type_register_at(cname, C.size_t(len(name)), C.uintptr_t(idAddr), C.uintptr_t(deleter), &msg) == 0 {
		return takeMessage(msg)
	}
	return nil
}

// APIAddress is the address of gojax's XLA_FFI_Api table.
func APIAddress() uintptr { return uintptr(unsafe.Pointer(&C.gojax_ffi_api)) }

func lookup(target string) (C.XLA_FFI_Handler_Bundle, uint32, bool) {
	var b C.XLA_FFI_Handler_Bundle
	var traits C.uint32_t
	name := C.CString(target)
	defer C.free(unsafe.Pointer(name))
	ok := C.gojax_ffi_lookup(name, C.size_t(len(target)), &b, &traits) != 0
	return b, uint32(traits), ok
}

func lookupLower(target string) (kernel.Lower, bool) {
	b, _, ok := lookup(target)
	if !ok {
		return nil, false
	}
	return func(ctx kernel.Context, op *ir.Op) (kernel.Step, error) { return lower(ctx, op, target, b) }, true
}

func takeMessage(msg *C.char) error {
	if msg == nil {
		return errors.New("FFI registration failed")
	}
	defer C.free(unsafe.Pointer(msg))
	return errors.New(C.GoString(msg))
}

// takeError turns a handler's error into Go and destroys it.
func takeError(err *C.XLA_FFI_Error) (code int, msg string) {
	var c C.int
	m := C.gojax_ffi_error_take(err, &c)
	defer C.free(unsafe.Pointer(m))
	return int(c), C.GoString(m)
}
