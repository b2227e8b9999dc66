package capi

/*
#include "gojax_capi.h"
*/
import "C"

import "unsafe"

// Asynchronous host-to-device transfers. Client_CreateBuffersForAsyncHostToDevice
// is a "status" call (errors become Python exceptions); the manager functions
// are reachable only through a manager it returns, which gojax does not.

//export gojax_PJRT_Client_CreateBuffersForAsyncHostToDevice
func gojax_PJRT_Client_CreateBuffersForAsyncHostToDevice(args *C.PJRT_Client_CreateBuffersForAsyncHostToDevice_Args) (ret pjrtErr) {
	const fn = "PJRT_Client_CreateBuffersForAsyncHostToDevice"
	defer guard(fn, &ret)
	return notImplemented(fn, unsafe.Pointer(args), C.PJRT_Client_CreateBuffersForAsyncHostToDevice_Args_STRUCT_SIZE)
}

//export gojax_PJRT_AsyncHostToDeviceTransferManager_Destroy
func gojax_PJRT_AsyncHostToDeviceTransferManager_Destroy(args *C.PJRT_AsyncHostToDeviceTransferManager_Destroy_Args) (ret pjrtErr) {
	const fn = "PJRT_AsyncHostToDeviceTransferManager_Destroy"
	defer guard(fn, &ret)
	return notImplemented(fn, unsafe.Pointer(args), C.PJRT_AsyncHostToDeviceTransferManager_Destroy_Args_STRUCT_SIZE)
}

//export gojax_PJRT_AsyncHostToDeviceTransferManager_TransferData
func gojax_PJRT_AsyncHostToDeviceTransferManager_TransferData(args *C.PJRT_AsyncHostToDeviceTransferManager_TransferData_Args) (ret pjrtErr) {
	const fn = "PJRT_AsyncHostToDeviceTransferManager_TransferData"
	defer guard(fn, &ret)
	return notImplemented(fn, unsafe.Pointer(args), C.PJRT_AsyncHostToDeviceTransferManager_TransferData_Args_STRUCT_SIZE)
}

//export gojax_PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer
func gojax_PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer(args *C.PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args) (ret pjrtErr) {
	const fn = "PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer"
	defer guard(fn, &ret)
	return notImplemented(fn, unsafe.Pointer(args), C.PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args_STRUCT_SIZE)
}

//export gojax_PJRT_AsyncHostToDeviceTransferManager_Device
func gojax_PJRT_AsyncHostToDeviceTransferManager_Device(args *C.PJRT_AsyncHostToDeviceTransferManager_Device_Args) (ret pjrtErr) {
	const fn = "PJRT_AsyncHostToDeviceTransferManager_Device"
	defer guard(fn, &ret)
	return notImplemented(fn, unsafe.Pointer(args), C.PJRT_AsyncHostToDeviceTransferManager_Device_Args_STRUCT_SIZE)
}

//export gojax_PJRT_AsyncHostToDeviceTransferManager_BufferCount
func gojax_PJRT_AsyncHostToDeviceTransferManager_BufferCount(args *C.PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args) (ret pjrtErr) {
	const fn = "PJRT_AsyncHostToDeviceTransferManager_BufferCount"
	defer guard(fn, &ret)
	return notImplemented(fn, unsafe.Pointer(args), C.PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args_STRUCT_SIZE)
}

//export gojax_PJRT_AsyncHostToDeviceTransferManager_BufferSize
func gojax_PJRT_AsyncHostToDeviceTransferManager_BufferSize(args *C.PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args) (ret pjrtErr) {
	const fn = "PJRT_AsyncHostToDeviceTransferManager_BufferSize"
	defer guard(fn, &ret)
	return notImplemented(fn, unsafe.Pointer(args), C.PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args_STRUCT_SIZE)
}

//export gojax_PJRT_AsyncHostToDeviceTransferManager_SetBufferError
func gojax_PJRT_AsyncHostToDeviceTransferManager_SetBufferError(args *C.PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args) (ret pjrtErr) {
	const fn = "PJRT_AsyncHostToDeviceTransferManager_SetBufferError"
	defer guard(fn, &ret)
	return notImplemented(fn, unsafe.Pointer(args), C.PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args_STRUCT_SIZE)
}

//export gojax_PJRT_AsyncHostToDeviceTransferManager_AddMetadata
func gojax_PJRT_AsyncHostToDeviceTransferManager_AddMetadata(args *C.PJRT_AsyncHostToDeviceTransferManager_AddMetadata_Args) (ret pjrtErr) {
	const fn = "PJRT_AsyncHostToDeviceTransferManager_AddMetadata"
	defer guard(fn, &ret)
	return notImplemented(fn, unsafe.Pointer(args), C.PJRT_AsyncHostToDeviceTransferManager_AddMetadata_Args_STRUCT_SIZE)
}

//export gojax_PJRT_AsyncHostToDeviceTransferManager_TransferLiteral
func gojax_PJRT_AsyncHostToDeviceTransferManager_TransferLiteral(args *C.PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args) (ret pjrtErr) {
	const fn = "PJRT_AsyncHostToDeviceTransferManager_TransferLiteral"
	defer guard(fn, &ret)
	return notImplemented(fn, unsafe.Pointer(args), C.PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args_STRUCT_SIZE)
}
