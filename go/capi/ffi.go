package capi

/*
#include "gojax_capi.h"
*/
import "C"

import (
	"sync/atomic"
	"unsafe"

	"github.com/gojax/gojax/go/engine"
	"github.com/gojax/gojax/go/kernels/ffi"
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

//export gojax_FFI_TypeRegister
func gojax_FFI_TypeRegister(args *C.gojax_FFI_TypeRegister_Args) (ret pjrtErr) {
	const fn = "PJRT_FFI_Type_Register"
	defer guard(fn, &ret)
	var a C.gojax_FFI_TypeRegister_Args
	if e := checkArgs(fn, unsafe.Pointer(args), C.size_t(unsafe.Offsetof(a.type_id)+unsafe.Sizeof(a.type_id))); e != nil {
		return e
	}
	var deleter uintptr
	if has(args.struct_size, unsafe.Offsetof(a.type_info), unsafe.Sizeof(a.type_info)) && args.type_info != nil {
		deleter = uintptr(unsafe.Pointer(*args.type_info))
	}
	name := C.GoStringN(args.type_name, C.int(args.type_name_size))
	if err := ffi.RegisterType(name, uintptr(unsafe.Pointer(&args.type_id)), deleter); err != nil {
		return errf(engine.CodeInvalidArgument, fn, "%v", err)
	}
	return nil
}

//export gojax_FFI_RegisterHandler
func gojax_FFI_RegisterHandler(args *C.gojax_FFI_RegisterHandler_Args) (ret pjrtErr) {
	const fn = "PJRT_FFI_Register_Handler"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.gojax_FFI_RegisterHandler_Args_STRUCT_SIZE); e != nil {
		return e
	}
	// The older layout differs from the handler field on; read each
	// layout only through its own struct.
	target := C.GoStringN(args.target_name, C.int(args.target_name_size))
	var handler uintptr
	var platform string
	var traits uint32
	if args.struct_size == C.gojax_FFI_RegisterHandlerV1_Args_STRUCT_SIZE {
		old := (*C.gojax_FFI_RegisterHandlerV1_Args)(unsafe.Pointer(args))
		if old.api_version != 1 {
			return errf(engine.CodeUnimplemented, fn, "%q: gojax runs typed FFI handlers (api_version 1), not api_version %d", target, int(old.api_version))
		}
		handler = uintptr(old.handler)
		platform = C.GoStringN(old.platform_name, C.int(old.platform_name_size))
	} else {
		handler = uintptr(args.handler)
		platform = C.GoStringN(args.platform_name, C.int(args.platform_name_size))
		traits = uint32(args.traits)
	}
	if handler == 0 {
		return errf(engine.CodeInvalidArgument, fn, "%q: handler is NULL", target)
	}
	if err := ffi.Register(target, platform, ffi.Bundle{Execute: handler}, traits); err != nil {
		return errf(engine.CodeInvalidArgument, fn, "%v", err)
	}
	return nil
}
