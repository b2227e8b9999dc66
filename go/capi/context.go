package capi

/*
#include "gojax_capi.h"
*/
import "C"

import "unsafe"

//export gojax_PJRT_ExecuteContext_Create
func gojax_PJRT_ExecuteContext_Create(args *C.PJRT_ExecuteContext_Create_Args) (ret pjrtErr) {
	const fn = "PJRT_ExecuteContext_Create"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_ExecuteContext_Create_Args_STRUCT_SIZE); e != nil {
		return e
	}
	// Contexts carry FFI user data; gojax has none, so an empty one suffices.
	args.context = cAlloc[C.PJRT_ExecuteContext](1)
	return nil
}

//export gojax_PJRT_ExecuteContext_Destroy
func gojax_PJRT_ExecuteContext_Destroy(args *C.PJRT_ExecuteContext_Destroy_Args) (ret pjrtErr) {
	const fn = "PJRT_ExecuteContext_Destroy"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_ExecuteContext_Destroy_Args_STRUCT_SIZE); e != nil {
		return e
	}
	cFree(args.context)
	return nil
}
