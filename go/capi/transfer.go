package capi

/*
#include "gojax_capi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gojax/gojax/go/engine"
)

// Asynchronous host-to-device transfers: buffers created first, filled by
// chunks later (PJRT_AsyncHostToDeviceTransferManager).

type transferManager struct {
	rt  *engine.HostTransfer
	cl  *client
	mem *memory
}

func getTransfer(fn string, p *C.PJRT_AsyncHostToDeviceTransferManager) (*transferManager, pjrtErr) {
	if p == nil {
		return nil, errf(engine.CodeInvalidArgument, fn, "transfer_manager is NULL")
	}
	return value[*transferManager](fn, "transfer manager", p.h)
}

//export gojax_PJRT_Client_CreateBuffersForAsyncHostToDevice
func gojax_PJRT_Client_CreateBuffersForAsyncHostToDevice(args *C.PJRT_Client_CreateBuffersForAsyncHostToDevice_Args) (ret pjrtErr) {
	const fn = "PJRT_Client_CreateBuffersForAsyncHostToDevice"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Client_CreateBuffersForAsyncHostToDevice_Args_STRUCT_SIZE); e != nil {
		return e
	}
	cl, e := getClient(fn, args.client)
	if e != nil {
		return e
	}
	mem, e := getMemory(fn, args.memory)
	if e != nil {
		return e
	}
	n := int(args.num_shape_specs)
	if n > 0 && args.shape_specs == nil {
		return errf(engine.CodeInvalidArgument, fn, "shape_specs is NULL")
	}
	var layouts []*C.PJRT_Buffer_MemoryLayout
	if args.num_device_layouts > 0 {
		if int(args.num_device_layouts) != n || args.device_layouts == nil {
			return errf(engine.CodeInvalidArgument, fn, "%d device layouts for %d shapes", args.num_device_layouts, n)
		}
		layouts = unsafe.Slice(args.device_layouts, n)
	}
	var shapes []engine.Shape
	if n > 0 {
		for i, s := range unsafe.Slice(args.shape_specs, n) {
			elem, e := elemArg(fn, s.element_type)
			if e != nil {
				return e
			}
			dims, e := dimsArg(fn, s.dims, s.num_dims)
			if e != nil {
				return e
			}
			if layouts != nil {
				if e := denseOnly(fn, layouts[i], dims, int64(elem.ByteSize())); e != nil {
					return e
				}
			}
			shapes = append(shapes, engine.Shape{Elem: elem, Dims: dims})
		}
	}
	ht, err := engine.NewHostTransfer(mem.rt, shapes)
	if err != nil {
		return fromErr(fn, err)
	}
	tm := cAlloc[C.PJRT_AsyncHostToDeviceTransferManager](1)
	tm.h = newHandle(&transferManager{rt: ht, cl: cl, mem: mem})
	args.transfer_manager = tm
	return nil
}

//export gojax_PJRT_AsyncHostToDeviceTransferManager_Destroy
func gojax_PJRT_AsyncHostToDeviceTransferManager_Destroy(args *C.PJRT_AsyncHostToDeviceTransferManager_Destroy_Args) (ret pjrtErr) {
	const fn = "PJRT_AsyncHostToDeviceTransferManager_Destroy"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_AsyncHostToDeviceTransferManager_Destroy_Args_STRUCT_SIZE); e != nil {
		return e
	}
	t, e := getTransfer(fn, args.transfer_manager)
	if e != nil {
		return e
	}
	t.rt.Close()
	deleteHandle(args.transfer_manager.h)
	args.transfer_manager.h = 0
	cFree(args.transfer_manager)
	return nil
}

//export gojax_PJRT_AsyncHostToDeviceTransferManager_TransferData
func gojax_PJRT_AsyncHostToDeviceTransferManager_TransferData(args *C.PJRT_AsyncHostToDeviceTransferManager_TransferData_Args) (ret pjrtErr) {
	const fn = "PJRT_AsyncHostToDeviceTransferManager_TransferData"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_AsyncHostToDeviceTransferManager_TransferData_Args_STRUCT_SIZE); e != nil {
		return e
	}
	t, e := getTransfer(fn, args.transfer_manager)
	if e != nil {
		return e
	}
	if args.transfer_size < 0 {
		return errf(engine.CodeInvalidArgument, fn, "negative transfer_size %d", args.transfer_size)
	}
	if args.transfer_size > 0 && args.data == nil {
		return errf(engine.CodeInvalidArgument, fn, "data is NULL")
	}
	data := goBytes(args.data, C.size_t(args.transfer_size))
	if err := t.rt.Write(int(args.buffer_index), data, int64(args.offset), bool(args.is_last_transfer)); err != nil {
		return fromErr(fn, err)
	}
	// The copy is synchronous: the host data is free as soon as we return.
	args.done_with_h2d_transfer = newEvent(engine.DoneEvent(nil))
	return nil
}

//export gojax_PJRT_AsyncHostToDeviceTransferManager_TransferLiteral
func gojax_PJRT_AsyncHostToDeviceTransferManager_TransferLiteral(args *C.PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args) (ret pjrtErr) {
	const fn = "PJRT_AsyncHostToDeviceTransferManager_TransferLiteral"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args_STRUCT_SIZE); e != nil {
		return e
	}
	t, e := getTransfer(fn, args.transfer_manager)
	if e != nil {
		return e
	}
	elem, e := elemArg(fn, args.shape_element_type)
	if e != nil {
		return e
	}
	dims, e := dimsArg(fn, args.shape_dims, args.shape_num_dims)
	if e != nil {
		return e
	}
	strides, e := layoutStrides(fn, args.shape_layout, dims, int64(elem.ByteSize()))
	if e != nil {
		return e
	}
	err := t.rt.WriteLiteral(int(args.buffer_index), engine.HostBuffer{Data: args.data, Elem: elem, Dims: dims, ByteStrides: strides})
	if err != nil {
		return fromErr(fn, err)
	}
	args.done_with_h2d_transfer = newEvent(engine.DoneEvent(nil))
	return nil
}

//export gojax_PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer
func gojax_PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer(args *C.PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args) (ret pjrtErr) {
	const fn = "PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args_STRUCT_SIZE); e != nil {
		return e
	}
	t, e := getTransfer(fn, args.transfer_manager)
	if e != nil {
		return e
	}
	b, err := t.rt.Retrieve(int(args.buffer_index))
	if err != nil {
		return fromErr(fn, err)
	}
	args.buffer_out = newBufferHandle(t.cl, b)
	return nil
}

//export gojax_PJRT_AsyncHostToDeviceTransferManager_Device
func gojax_PJRT_AsyncHostToDeviceTransferManager_Device(args *C.PJRT_AsyncHostToDeviceTransferManager_Device_Args) (ret pjrtErr) {
	const fn = "PJRT_AsyncHostToDeviceTransferManager_Device"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_AsyncHostToDeviceTransferManager_Device_Args_STRUCT_SIZE); e != nil {
		return e
	}
	t, e := getTransfer(fn, args.transfer_manager)
	if e != nil {
		return e
	}
	args.device_out = t.cl.devices[t.mem.rt.Device().Index].c
	return nil
}

//export gojax_PJRT_AsyncHostToDeviceTransferManager_BufferCount
func gojax_PJRT_AsyncHostToDeviceTransferManager_BufferCount(args *C.PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args) (ret pjrtErr) {
	const fn = "PJRT_AsyncHostToDeviceTransferManager_BufferCount"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args_STRUCT_SIZE); e != nil {
		return e
	}
	t, e := getTransfer(fn, args.transfer_manager)
	if e != nil {
		return e
	}
	args.buffer_count = C.size_t(t.rt.Len())
	return nil
}

//export gojax_PJRT_AsyncHostToDeviceTransferManager_BufferSize
func gojax_PJRT_AsyncHostToDeviceTransferManager_BufferSize(args *C.PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args) (ret pjrtErr) {
	const fn = "PJRT_AsyncHostToDeviceTransferManager_BufferSize"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args_STRUCT_SIZE); e != nil {
		return e
	}
	t, e := getTransfer(fn, args.transfer_manager)
	if e != nil {
		return e
	}
	n, err := t.rt.Size(int(args.buffer_index))
	if err != nil {
		return fromErr(fn, err)
	}
	args.buffer_size = C.size_t(n)
	return nil
}

//export gojax_PJRT_AsyncHostToDeviceTransferManager_SetBufferError
func gojax_PJRT_AsyncHostToDeviceTransferManager_SetBufferError(args *C.PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args) (ret pjrtErr) {
	const fn = "PJRT_AsyncHostToDeviceTransferManager_SetBufferError"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args_STRUCT_SIZE); e != nil {
		return e
	}
	t, e := getTransfer(fn, args.transfer_manager)
	if e != nil {
		return e
	}
	code := engine.Code(args.error_code)
	if code == engine.CodeOK {
		return errf(engine.CodeInvalidArgument, fn, "error_code is OK")
	}
	err := engine.Errorf(code, "%s", goString(args.error_message, args.error_message_size))
	return fromErr(fn, t.rt.SetError(int(args.buffer_index), err))
}

//export gojax_PJRT_AsyncHostToDeviceTransferManager_AddMetadata
func gojax_PJRT_AsyncHostToDeviceTransferManager_AddMetadata(args *C.PJRT_AsyncHostToDeviceTransferManager_AddMetadata_Args) (ret pjrtErr) {
	const fn = "PJRT_AsyncHostToDeviceTransferManager_AddMetadata"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_AsyncHostToDeviceTransferManager_AddMetadata_Args_STRUCT_SIZE); e != nil {
		return e
	}
	// Metadata tunes transfers on devices with DMA engines; a CPU copy has no
	// use for it, so accepting and ignoring it is the complete behaviour.
	_, e := getTransfer(fn, args.transfer_manager)
	return e
}
