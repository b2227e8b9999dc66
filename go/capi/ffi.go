package capi

/*
#include "gojax_capi.h"
*/
import "C"

import (
	"runtime/cgo"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gojax/gojax/go/runtime"
)

// execContext is what a PJRT_ExecuteContext holds: the FFI user data the
// framework attached (JAX's host callbacks) and their deleters.
type execContext struct {
	mu       sync.Mutex
	data     []runtime.UserData
	deleters []func()
}

func (c *execContext) snapshot() []runtime.UserData {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]runtime.UserData(nil), c.data...)
}

// lookupContext returns the Go side of a context handle (nil for NULL).
func lookupContext(ctx *C.PJRT_ExecuteContext) *execContext {
	if ctx == nil || ctx.h == 0 {
		return nil
	}
	c, _ := cgo.Handle(ctx.h).Value().(*execContext)
	return c
}

// contextMu serializes giving contexts their Go side.
var contextMu sync.Mutex

// contextFor returns the Go side of a context, creating it for a context made
// by the C fast path (capi.c creates contexts with h == 0, since JAX makes one
// per execution and rarely attaches anything).
func contextFor(ctx *C.PJRT_ExecuteContext) *execContext {
	contextMu.Lock()
	defer contextMu.Unlock()
	if ctx.h == 0 {
		c := &execContext{}
		atomic.StoreUintptr((*uintptr)(unsafe.Pointer(&ctx.h)), uintptr(cgo.NewHandle(c)))
		return c
	}
	return lookupContext(ctx)
}

//export gojax_PJRT_ExecuteContext_Create
func gojax_PJRT_ExecuteContext_Create(args *C.PJRT_ExecuteContext_Create_Args) (ret pjrtErr) {
	const fn = "PJRT_ExecuteContext_Create"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_ExecuteContext_Create_Args_STRUCT_SIZE); e != nil {
		return e
	}
	ctx := cAlloc[C.PJRT_ExecuteContext](1)
	ctx.h = C.uintptr_t(cgo.NewHandle(&execContext{}))
	args.context = ctx
	return nil
}

//export gojax_PJRT_ExecuteContext_Destroy
func gojax_PJRT_ExecuteContext_Destroy(args *C.PJRT_ExecuteContext_Destroy_Args) (ret pjrtErr) {
	const fn = "PJRT_ExecuteContext_Destroy"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_ExecuteContext_Destroy_Args_STRUCT_SIZE); e != nil {
		return e
	}
	if args.context == nil {
		return nil
	}
	if c := lookupContext(args.context); c != nil {
		c.mu.Lock()
		dels := c.deleters
		c.deleters = nil
		c.mu.Unlock()
		for _, d := range dels {
			d()
		}
		cgo.Handle(args.context.h).Delete()
	}
	cFree(args.context)
	return nil
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

//export gojax_FFI_UserDataAdd
func gojax_FFI_UserDataAdd(args *C.gojax_FFI_UserDataAdd_Args) (ret pjrtErr) {
	const fn = "PJRT_FFI_UserData_Add"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.gojax_FFI_UserDataAdd_Args_MIN_SIZE); e != nil {
		return e
	}
	if args.context == nil {
		return errf(runtime.CodeInvalidArgument, fn, "context is NULL or was not created by gojax")
	}
	c := contextFor(args.context)
	if c == nil {
		return errf(runtime.CodeInvalidArgument, fn, "context is NULL or was not created by gojax")
	}
	var a C.gojax_FFI_UserDataAdd_Args
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, d := range c.data {
		if d.TypeID == int64(args.type_id) {
			return errf(runtime.CodeInvalidArgument, fn, "user data of type %d is already attached", int64(args.type_id))
		}
	}
	c.data = append(c.data, runtime.UserData{TypeID: int64(args.type_id), Data: unsafe.Pointer(args.data)})
	if has(args.struct_size, unsafe.Offsetof(a.deleter), unsafe.Sizeof(a.deleter)) && args.deleter != nil {
		del, data := args.deleter, args.data
		c.deleters = append(c.deleters, func() { C.gojax_call_deleter(del, data) })
	}
	return nil
}

//export gojax_FFI_RegisterHandler
func gojax_FFI_RegisterHandler(args unsafe.Pointer) (ret pjrtErr) {
	const fn = "PJRT_FFI_Register_Handler"
	defer guard(fn, &ret)
	return errf(runtime.CodeUnimplemented, fn, "gojax runs its own kernels; XLA FFI handlers cannot be registered with it")
}
