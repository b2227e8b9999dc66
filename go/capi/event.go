package capi

/*
#include "gojax_capi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gojax/gojax/go/engine"
)

// newEvent hands a runtime event to C; the caller owns the handle and frees it
// with PJRT_Event_Destroy. An event that has already fired without error
// becomes the shared static gojax_ready_event, which costs no allocation and
// whose queries capi.c answers without entering Go.
func newEvent(ev *engine.Event) *C.PJRT_Event {
	if ev.FiredOK() {
		return readyEvent()
	}
	e := cAlloc[C.PJRT_Event](1)
	e.h = newHandle(ev)
	return e
}

func readyEvent() *C.PJRT_Event { return &C.gojax_ready_event }

// firedOK is the Go side of gojax_ready_event, for entry points that take an
// event as input.
var firedOK = engine.DoneEvent(nil)

func getEvent(fn string, e *C.PJRT_Event) (*engine.Event, pjrtErr) {
	if e == nil {
		return nil, errf(engine.CodeInvalidArgument, fn, "event is NULL")
	}
	if e == readyEvent() {
		return firedOK, nil
	}
	return value[*engine.Event](fn, "event", e.h)
}

//export gojax_PJRT_Event_Destroy
func gojax_PJRT_Event_Destroy(args *C.PJRT_Event_Destroy_Args) (ret pjrtErr) {
	const fn = "PJRT_Event_Destroy"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Event_Destroy_Args_STRUCT_SIZE); e != nil {
		return e
	}
	if args.event == nil || args.event == readyEvent() {
		return nil
	}
	if _, e := getEvent(fn, args.event); e != nil {
		return e
	}
	deleteHandle(args.event.h)
	args.event.h = 0
	cFree(args.event)
	return nil
}

//export gojax_PJRT_Event_IsReady
func gojax_PJRT_Event_IsReady(args *C.PJRT_Event_IsReady_Args) (ret pjrtErr) {
	const fn = "PJRT_Event_IsReady"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Event_IsReady_Args_STRUCT_SIZE); e != nil {
		return e
	}
	ev, e := getEvent(fn, args.event)
	if e != nil {
		return e
	}
	args.is_ready = C._Bool(ev.IsReady())
	return nil
}

//export gojax_PJRT_Event_Error
func gojax_PJRT_Event_Error(args *C.PJRT_Event_Error_Args) (ret pjrtErr) {
	const fn = "PJRT_Event_Error"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Event_Error_Args_STRUCT_SIZE); e != nil {
		return e
	}
	ev, e := getEvent(fn, args.event)
	if e != nil {
		return e
	}
	if !ev.IsReady() {
		return errf(engine.CodeFailedPrecondition, fn, "event is not ready yet")
	}
	return eventErr(ev.Err())
}

//export gojax_PJRT_Event_Await
func gojax_PJRT_Event_Await(args *C.PJRT_Event_Await_Args) (ret pjrtErr) {
	const fn = "PJRT_Event_Await"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Event_Await_Args_STRUCT_SIZE); e != nil {
		return e
	}
	ev, e := getEvent(fn, args.event)
	if e != nil {
		return e
	}
	return eventErr(ev.Wait())
}

//export gojax_PJRT_Event_OnReady
func gojax_PJRT_Event_OnReady(args *C.PJRT_Event_OnReady_Args) (ret pjrtErr) {
	const fn = "PJRT_Event_OnReady"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Event_OnReady_Args_STRUCT_SIZE); e != nil {
		return e
	}
	ev, e := getEvent(fn, args.event)
	if e != nil {
		return e
	}
	if args.callback == nil {
		return errf(engine.CodeInvalidArgument, fn, "callback is NULL")
	}
	// Copy what the callback needs: the framework may destroy the event (and
	// reuse args) from inside the callback, even when it runs synchronously here.
	cb, userArg := args.callback, args.user_arg
	ev.OnReady(func(err error) {
		C.gojax_call_on_ready(cb, eventErr(err), userArg)
	})
	return nil
}

//export gojax_PJRT_Event_Create
func gojax_PJRT_Event_Create(args *C.PJRT_Event_Create_Args) (ret pjrtErr) {
	const fn = "PJRT_Event_Create"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Event_Create_Args_STRUCT_SIZE); e != nil {
		return e
	}
	args.event = newEvent(engine.NewEvent())
	return nil
}

//export gojax_PJRT_Event_Set
func gojax_PJRT_Event_Set(args *C.PJRT_Event_Set_Args) (ret pjrtErr) {
	const fn = "PJRT_Event_Set"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Event_Set_Args_STRUCT_SIZE); e != nil {
		return e
	}
	ev, e := getEvent(fn, args.event)
	if e != nil {
		return e
	}
	var err error
	if code := engine.Code(args.error_code); code != engine.CodeOK {
		err = engine.Errorf(code, "%s", goString(args.error_message, args.error_message_size))
	}
	if !ev.Set(err) {
		return errf(engine.CodeFailedPrecondition, fn, "event was already set")
	}
	return nil
}

//export gojax_PJRT_AsyncTrackingEvent_Destroy
func gojax_PJRT_AsyncTrackingEvent_Destroy(args *C.PJRT_AsyncTrackingEvent_Destroy_Args) (ret pjrtErr) {
	const fn = "PJRT_AsyncTrackingEvent_Destroy"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_AsyncTrackingEvent_Destroy_Args_STRUCT_SIZE); e != nil {
		return e
	}
	cFree(args.event)
	return nil
}
