package capi

/*
#include "gojax_capi.h"
*/
import "C"

import (
	"runtime/cgo"
	"unsafe"

	"github.com/gojax/gojax/go/engine"
)

// Calls whose completion the framework triggers later through a callback
// gojax hands out: the callback_data is a C cell holding a handle to the Go
// continuation, consumed by the first (and only) callback.

type callbackCell struct{ h C.uintptr_t }

func newCallbackCell(f any) unsafe.Pointer {
	cell := cAlloc[callbackCell](1)
	cell.h = newHandle(f)
	return unsafe.Pointer(cell)
}

// takeCallback resolves and frees a cell; a second use finds h == 0.
func takeCallback[T any](data unsafe.Pointer) (T, bool) {
	var zero T
	if data == nil {
		return zero, false
	}
	cell := (*callbackCell)(data)
	if cell.h == 0 {
		return zero, false
	}
	v, ok := func() (v T, ok bool) {
		defer func() {
			if recover() != nil {
				ok = false
			}
		}()
		v, ok = cgo.Handle(cell.h).Value().(T)
		return v, ok
	}()
	if !ok {
		return zero, false
	}
	deleteHandle(cell.h)
	cell.h = 0
	cFree(cell)
	return v, true
}

func callbackErr(code C.PJRT_Error_Code, msg *C.char, n C.size_t) error {
	if code == C.PJRT_Error_Code_OK {
		return nil
	}
	return engine.Errorf(engine.Code(code), "%s", goString(msg, n))
}

type rawFuture func(dst unsafe.Pointer, err error)

//export gojax_PJRT_Buffer_CopyRawToHostFuture
func gojax_PJRT_Buffer_CopyRawToHostFuture(args *C.PJRT_Buffer_CopyRawToHostFuture_Args) (ret pjrtErr) {
	const fn = "PJRT_Buffer_CopyRawToHostFuture"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Buffer_CopyRawToHostFuture_Args_STRUCT_SIZE); e != nil {
		return e
	}
	b, e := getBuffer(fn, args.buffer)
	if e != nil {
		return e
	}
	ev, deliver, err := b.rt.CopyRawToHostLater(int64(args.offset), int64(args.transfer_size))
	if err != nil {
		return fromErr(fn, err)
	}
	args.event = newEvent(ev)
	args.callback_data = newCallbackCell(rawFuture(deliver))
	args.future_ready_callback = (*[0]byte)(C.gojax_raw_future_ready)
	return nil
}

//export gojaxRawFutureReady
func gojaxRawFutureReady(args *C.PJRT_Buffer_CopyRawToHostFuture_Callback_Args) {
	defer func() { _ = recover() }() // a callback has no way to report failure
	if args == nil {
		return
	}
	deliver, ok := takeCallback[rawFuture](args.callback_data)
	if !ok {
		return
	}
	deliver(args.dst, callbackErr(args.error_code, args.error_message, args.error_message_size))
}

type dependencyReady func(err error)

//export gojax_PJRT_Buffer_DonateWithControlDependency
func gojax_PJRT_Buffer_DonateWithControlDependency(args *C.PJRT_Buffer_DonateWithControlDependency_Args) (ret pjrtErr) {
	const fn = "PJRT_Buffer_DonateWithControlDependency"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Buffer_DonateWithControlDependency_Args_STRUCT_SIZE); e != nil {
		return e
	}
	b, e := getBuffer(fn, args.buffer)
	if e != nil {
		return e
	}
	nb, ready, err := b.rt.DonateWithDependency()
	if err != nil {
		return fromErr(fn, err)
	}
	args.out_buffer = newBufferHandle(b.cl, nb)
	args.callback_data = newCallbackCell(dependencyReady(ready))
	args.dependency_ready_callback = (*[0]byte)(C.gojax_donate_dependency_ready)
	return nil
}

//export gojaxDonateDependencyReady
func gojaxDonateDependencyReady(args *C.PJRT_Buffer_DonateWithControlDependency_Callback_Args) {
	defer func() { _ = recover() }()
	if args == nil {
		return
	}
	ready, ok := takeCallback[dependencyReady](args.callback_data)
	if !ok {
		return
	}
	ready(callbackErr(args.error_code, args.error_message, args.error_message_size))
}
