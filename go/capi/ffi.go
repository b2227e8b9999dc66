package capi

/*
#include "gojax_capi.h"
*/
import "C"

import (
	"sync/atomic"
	"unsafe"

	"github.com/gojax/gojax/go/engine"
)

// contextUserData returns the FFI user data attached to an execute context,
// in the order it was attached. Contexts live in C (capi.c); their entries
// are published with release stores and never change afterwards.
func contextUserData(ctx *C.PJRT_ExecuteContext) []engine.UserData {
	var out []engine.UserData
	next := func(p *unsafe.Pointer) *C.gojax_ContextData { return (*C.gojax_ContextData)(atomic.LoadPointer(p)) }
	for d := next((*unsafe.Pointer)(unsafe.Pointer(&ctx.head))); d != nil; d = next((*unsafe.Pointer)(unsafe.Pointer(&d.next))) {
		out = append(out, engine.UserData{TypeID: int64(d.type_id), Data: d.data})
	}
	return out
}

// ffiTypeIDs hands out type ids to types registered without one. XLA's own
// registry would number them; gojax only needs them distinct.
var ffiTypeIDs atomic.Int64

//export gojax_FFI_TypeRegister
func gojax_FFI_TypeRegister(args *C.gojax_FFI_TypeRegister_Args) (ret pjrtErr) {
	const fn = "PJRT_FFI_Type_Register"
	defer guard(fn, &ret)
	var a C.gojax_FFI_TypeRegister_Args
	if e := checkArgs(fn, unsafe.Pointer(args), C.size_t(unsafe.Offsetof(a.type_id)+unsafe.Sizeof(a.type_id))); e != nil {
		return e
	}
	if args.type_id == 0 {
		args.type_id = C.int64_t(1<<20 + ffiTypeIDs.Add(1))
	}
	return nil
}

//export gojax_FFI_RegisterHandler
func gojax_FFI_RegisterHandler(args unsafe.Pointer) (ret pjrtErr) {
	const fn = "PJRT_FFI_Register_Handler"
	defer guard(fn, &ret)
	return errf(engine.CodeUnimplemented, fn, "gojax runs its own kernels; XLA FFI handlers cannot be registered with it")
}
