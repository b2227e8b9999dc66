package capi

/*
#include "gojax_capi.h"
*/
import "C"

import "unsafe"

// Slots gojax does not implement. jaxlib tolerates UNIMPLEMENTED on each of
// these paths: either it passes the error status up as a Python exception
// to the caller that asked for the feature, without failing anything
// else, or the call is reachable only through an object gojax never hands
// out (a CopyToDeviceStream exists only
// for host receive callbacks, which gojax programs do not have). Each still
// checks its arguments like every other entry point.

func notImplemented(fn string, args unsafe.Pointer, need C.size_t) pjrtErr {
	if e := checkArgs(fn, args, need); e != nil {
		return e
	}
	return unimplemented(fn)
}

//export gojax_PJRT_CopyToDeviceStream_Destroy
func gojax_PJRT_CopyToDeviceStream_Destroy(args *C.PJRT_CopyToDeviceStream_Destroy_Args) (ret pjrtErr) {
	const fn = "PJRT_CopyToDeviceStream_Destroy"
	defer guard(fn, &ret)
	return notImplemented(fn, unsafe.Pointer(args), C.PJRT_CopyToDeviceStream_Destroy_Args_STRUCT_SIZE)
}

//export gojax_PJRT_CopyToDeviceStream_AddChunk
func gojax_PJRT_CopyToDeviceStream_AddChunk(args *C.PJRT_CopyToDeviceStream_AddChunk_Args) (ret pjrtErr) {
	const fn = "PJRT_CopyToDeviceStream_AddChunk"
	defer guard(fn, &ret)
	return notImplemented(fn, unsafe.Pointer(args), C.PJRT_CopyToDeviceStream_AddChunk_Args_STRUCT_SIZE)
}

//export gojax_PJRT_CopyToDeviceStream_TotalBytes
func gojax_PJRT_CopyToDeviceStream_TotalBytes(args *C.PJRT_CopyToDeviceStream_TotalBytes_Args) (ret pjrtErr) {
	const fn = "PJRT_CopyToDeviceStream_TotalBytes"
	defer guard(fn, &ret)
	return notImplemented(fn, unsafe.Pointer(args), C.PJRT_CopyToDeviceStream_TotalBytes_Args_STRUCT_SIZE)
}

//export gojax_PJRT_CopyToDeviceStream_GranuleSize
func gojax_PJRT_CopyToDeviceStream_GranuleSize(args *C.PJRT_CopyToDeviceStream_GranuleSize_Args) (ret pjrtErr) {
	const fn = "PJRT_CopyToDeviceStream_GranuleSize"
	defer guard(fn, &ret)
	return notImplemented(fn, unsafe.Pointer(args), C.PJRT_CopyToDeviceStream_GranuleSize_Args_STRUCT_SIZE)
}

//export gojax_PJRT_CopyToDeviceStream_CurrentBytes
func gojax_PJRT_CopyToDeviceStream_CurrentBytes(args *C.PJRT_CopyToDeviceStream_CurrentBytes_Args) (ret pjrtErr) {
	const fn = "PJRT_CopyToDeviceStream_CurrentBytes"
	defer guard(fn, &ret)
	return notImplemented(fn, unsafe.Pointer(args), C.PJRT_CopyToDeviceStream_CurrentBytes_Args_STRUCT_SIZE)
}

//export gojax_PJRT_Client_CreateAliasBuffer
func gojax_PJRT_Client_CreateAliasBuffer(args *C.PJRT_Client_CreateAliasBuffer_Args) (ret pjrtErr) {
	const fn = "PJRT_Client_CreateAliasBuffer"
	defer guard(fn, &ret)
	return notImplemented(fn, unsafe.Pointer(args), C.PJRT_Client_CreateAliasBuffer_Args_STRUCT_SIZE)
}

//export gojax_PJRT_Client_FulfillAliasBuffer
func gojax_PJRT_Client_FulfillAliasBuffer(args *C.PJRT_Client_FulfillAliasBuffer_Args) (ret pjrtErr) {
	const fn = "PJRT_Client_FulfillAliasBuffer"
	defer guard(fn, &ret)
	return notImplemented(fn, unsafe.Pointer(args), C.PJRT_Client_FulfillAliasBuffer_Args_STRUCT_SIZE)
}

//export gojax_PJRT_Buffer_Bitcast
func gojax_PJRT_Buffer_Bitcast(args *C.PJRT_Buffer_Bitcast_Args) (ret pjrtErr) {
	const fn = "PJRT_Buffer_Bitcast"
	defer guard(fn, &ret)
	return notImplemented(fn, unsafe.Pointer(args), C.PJRT_Buffer_Bitcast_Args_STRUCT_SIZE)
}
