package capi

/*
#include "gojax_capi.h"
*/
import "C"

import (
	"sync/atomic"
	"unsafe"

	"github.com/gojax/gojax/go/engine"
	"github.com/gojax/gojax/go/ir"
)

// buffer is the C-facing state of a runtime buffer.
type buffer struct {
	rt *engine.Buffer
	cl *client
	c  *C.PJRT_Buffer
}

// newBufferHandle wraps rb; the framework owns the handle until Buffer_Destroy.
// The handle caches what the C fast paths (capi.c) answer without Go.
func newBufferHandle(cl *client, rb *engine.Buffer) *C.PJRT_Buffer {
	b := &buffer{rt: rb, cl: cl}
	dims := rb.Dims()
	var dp *C.int64_t
	if len(dims) > 0 {
		dp = (*C.int64_t)(unsafe.Pointer(&dims[0]))
	}
	b.c = C.gojax_new_buffer(dp, C.size_t(len(dims)))
	if b.c == nil {
		panic("out of C memory")
	}
	if rb.IsToken() {
		b.c._type = C.PJRT_Buffer_Type(pjrtToken)
	} else {
		b.c._type = C.PJRT_Buffer_Type(elemToPjrt[rb.ElemType()])
	}
	if cl != nil && rb.Device() != nil && rb.Device().Index >= 0 && rb.Device().Index < len(cl.devices) {
		d := cl.devices[rb.Device().Index]
		b.c.device = d.c
		b.c.memory = cl.mem(rb.Memory()).ptr()
	}
	b.c.on_device_size = C.size_t(rb.ByteSize())
	if rb.ReadyEvent().FiredOK() {
		b.c.ready = 1
	}
	rb.MirrorDeleted((*int32)(unsafe.Pointer(&b.c.deleted)))
	b.c.h = C.uintptr_t(buffers.add(b))
	return b.c
}

func getBuffer(fn string, p *C.PJRT_Buffer) (*buffer, pjrtErr) {
	if p == nil {
		return nil, errf(engine.CodeInvalidArgument, fn, "buffer is NULL")
	}
	if b := buffers.get(uintptr(p.h)); b != nil {
		return b, nil
	}
	return nil, errf(engine.CodeInvalidArgument, fn, "invalid or destroyed buffer handle")
}

func (b *buffer) device() *device { return b.cl.devices[b.rt.Device().Index] }

// targetMemory picks the memory from an explicit memory or a device.
func targetMemory(fn string, cl *client, m *C.PJRT_Memory, d *C.PJRT_Device) (*memory, pjrtErr) {
	if m != nil {
		return getMemory(fn, m)
	}
	if d != nil {
		dev, e := getDevice(fn, d)
		if e != nil {
			return nil, e
		}
		return dev.mems[0], nil
	}
	return nil, errf(engine.CodeInvalidArgument, fn, "neither a memory nor a device was given")
}

// elemArg validates a PJRT_Buffer_Type argument.
func elemArg(fn string, t C.PJRT_Buffer_Type) (ir.ElemType, pjrtErr) {
	if int(t) == pjrtToken {
		return ir.Invalid, errf(engine.CodeInvalidArgument, fn, "token buffers cannot be created from data")
	}
	e, ok := elemFromPjrt(int(t))
	if !ok {
		return ir.Invalid, errf(engine.CodeInvalidArgument, fn, "unknown element type %d", int(t))
	}
	return e, nil
}

func dimsArg(fn string, p *C.int64_t, n C.size_t) ([]int64, pjrtErr) {
	if n > 0 && p == nil {
		return nil, errf(engine.CodeInvalidArgument, fn, "dims is NULL for %d dimensions", n)
	}
	if n > 64 {
		return nil, errf(engine.CodeInvalidArgument, fn, "rank %d is too large", n)
	}
	dims := goInt64s(p, n)
	for _, d := range dims {
		if d < 0 {
			return nil, errf(engine.CodeInvalidArgument, fn, "negative dimension in %v", dims)
		}
	}
	return dims, nil
}

// layoutStrides turns a layout into byte strides for dims (nil = dense
// row-major). Tiled layouts other than a plain dimension order are rejected.
func layoutStrides(fn string, l *C.PJRT_Buffer_MemoryLayout, dims []int64, es int64) ([]int64, pjrtErr) {
	if l == nil {
		return nil, nil
	}
	switch l._type {
	case C.PJRT_Buffer_MemoryLayout_Type_Tiled:
		var n, tiles C.size_t
		p := C.gojax_layout_tiled_m2m(l, &n, &tiles)
		if tiles > 0 {
			return nil, errf(engine.CodeUnimplemented, fn, "tiled layouts (%d tiles) are not supported; use a plain row-major layout", tiles)
		}
		if int(n) != len(dims) || (n > 0 && p == nil) {
			return nil, errf(engine.CodeInvalidArgument, fn, "layout has %d minor_to_major entries for rank %d", n, len(dims))
		}
		m2m := goInt64s(p, n)
		seen := make([]bool, len(dims))
		strides := make([]int64, len(dims))
		acc := es
		for _, d := range m2m {
			if d < 0 || int(d) >= len(dims) || seen[d] {
				return nil, errf(engine.CodeInvalidArgument, fn, "minor_to_major %v is not a permutation", m2m)
			}
			seen[d] = true
			strides[d] = acc
			acc *= dims[d]
		}
		return strides, nil
	case C.PJRT_Buffer_MemoryLayout_Type_Strides:
		var n C.size_t
		p := C.gojax_layout_strides(l, &n)
		if int(n) != len(dims) || (n > 0 && p == nil) {
			return nil, errf(engine.CodeInvalidArgument, fn, "layout has %d byte strides for rank %d", n, len(dims))
		}
		return goInt64s(p, n), nil
	}
	return nil, errf(engine.CodeInvalidArgument, fn, "unknown layout type %d", int(l._type))
}

// denseOnly accepts only layouts that describe dense row-major data.
func denseOnly(fn string, l *C.PJRT_Buffer_MemoryLayout, dims []int64, es int64) pjrtErr {
	strides, e := layoutStrides(fn, l, dims, es)
	if e != nil || strides == nil {
		return e
	}
	acc := es
	for i := len(dims) - 1; i >= 0; i-- {
		if dims[i] != 1 && strides[i] != acc {
			return errf(engine.CodeUnimplemented, fn, "gojax buffers are dense row-major; device layout with byte strides %v is not supported", strides)
		}
		acc *= dims[i]
	}
	return nil
}

//export gojax_PJRT_Client_BufferFromHostBuffer
func gojax_PJRT_Client_BufferFromHostBuffer(args *C.PJRT_Client_BufferFromHostBuffer_Args) (ret pjrtErr) {
	const fn = "PJRT_Client_BufferFromHostBuffer"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Client_BufferFromHostBuffer_Args_STRUCT_SIZE); e != nil {
		return e
	}
	cl, e := getClient(fn, args.client)
	if e != nil {
		return e
	}
	elem, e := elemArg(fn, args._type)
	if e != nil {
		return e
	}
	dims, e := dimsArg(fn, args.dims, args.num_dims)
	if e != nil {
		return e
	}
	var strides []int64
	if args.num_byte_strides > 0 {
		if args.byte_strides == nil {
			return errf(engine.CodeInvalidArgument, fn, "byte_strides is NULL")
		}
		strides = goInt64s(args.byte_strides, args.num_byte_strides)
	}
	mem, e := targetMemory(fn, cl, args.memory, args.device)
	if e != nil {
		return e
	}
	if e := denseOnly(fn, args.device_layout, dims, int64(elem.ByteSize())); e != nil {
		return e
	}
	rb, done, err := engine.BufferFromHost(mem.rt, engine.HostBuffer{
		Data: args.data, Elem: elem, Dims: dims, ByteStrides: strides,
	}, engine.HostSemantics(args.host_buffer_semantics))
	if err != nil {
		return fromErr(fn, err)
	}
	args.done_with_host_buffer = newEvent(done)
	args.buffer = newBufferHandle(cl, rb)
	return nil
}

//export gojax_PJRT_Client_CreateUninitializedBuffer
func gojax_PJRT_Client_CreateUninitializedBuffer(args *C.PJRT_Client_CreateUninitializedBuffer_Args) (ret pjrtErr) {
	const fn = "PJRT_Client_CreateUninitializedBuffer"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Client_CreateUninitializedBuffer_Args_STRUCT_SIZE); e != nil {
		return e
	}
	cl, e := getClient(fn, args.client)
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
	if e := denseOnly(fn, args.shape_layout, dims, int64(elem.ByteSize())); e != nil {
		return e
	}
	mem, e := targetMemory(fn, cl, args.memory, args.device)
	if e != nil {
		return e
	}
	rb, err := engine.NewUninitializedBuffer(mem.rt, elem, dims)
	if err != nil {
		return fromErr(fn, err)
	}
	args.buffer = newBufferHandle(cl, rb)
	return nil
}

//export gojax_PJRT_Client_CreateErrorBuffer
func gojax_PJRT_Client_CreateErrorBuffer(args *C.PJRT_Client_CreateErrorBuffer_Args) (ret pjrtErr) {
	const fn = "PJRT_Client_CreateErrorBuffer"
	defer guard(fn, &ret)
	var a C.PJRT_Client_CreateErrorBuffer_Args
	if e := checkArgs(fn, unsafe.Pointer(args), C.size_t(unsafe.Offsetof(a.buffer)+unsafe.Sizeof(a.buffer))); e != nil {
		return e
	}
	cl, e := getClient(fn, args.client)
	if e != nil {
		return e
	}
	token := int(args.shape_element_type) == pjrtToken
	elem := ir.Invalid
	if !token {
		if elem, e = elemArg(fn, args.shape_element_type); e != nil {
			return e
		}
	}
	dims, e := dimsArg(fn, args.shape_dims, args.shape_num_dims)
	if e != nil {
		return e
	}
	mem, e := getMemory(fn, args.memory)
	if e != nil {
		return e
	}
	code := engine.Code(args.error_code)
	if code == engine.CodeOK {
		return errf(engine.CodeInvalidArgument, fn, "error_code is OK")
	}
	rb, err := engine.NewErrorBuffer(mem.rt, elem, token, dims,
		engine.Errorf(code, "%s", goString(args.error_message, args.error_message_size)))
	if err != nil {
		return fromErr(fn, err)
	}
	args.buffer = newBufferHandle(cl, rb)
	return nil
}

//export gojax_PJRT_Client_CreateViewOfDeviceBuffer
func gojax_PJRT_Client_CreateViewOfDeviceBuffer(args *C.PJRT_Client_CreateViewOfDeviceBuffer_Args) (ret pjrtErr) {
	const fn = "PJRT_Client_CreateViewOfDeviceBuffer"
	defer guard(fn, &ret)
	var a C.PJRT_Client_CreateViewOfDeviceBuffer_Args
	if e := checkArgs(fn, unsafe.Pointer(args), C.size_t(unsafe.Offsetof(a.buffer)+unsafe.Sizeof(a.buffer))); e != nil {
		return e
	}
	cl, e := getClient(fn, args.client)
	if e != nil {
		return e
	}
	elem, e := elemArg(fn, args.element_type)
	if e != nil {
		return e
	}
	dims, e := dimsArg(fn, args.dims, args.num_dims)
	if e != nil {
		return e
	}
	if e := denseOnly(fn, args.layout, dims, int64(elem.ByteSize())); e != nil {
		return e
	}
	var memArg *C.PJRT_Memory
	if has(args.struct_size, unsafe.Offsetof(a.memory), unsafe.Sizeof(a.memory)) {
		memArg = args.memory
	}
	mem, e := targetMemory(fn, cl, memArg, args.device)
	if e != nil {
		return e
	}
	ptr := args.device_buffer_ptr
	var onDelete func()
	if cb := args.on_delete_callback; cb != nil {
		cbArg := args.on_delete_callback_arg
		onDelete = func() { C.gojax_call_on_delete(cb, ptr, cbArg) }
	}
	rb, err := engine.NewViewBuffer(mem.rt, elem, dims, ptr, onDelete)
	if err != nil {
		return fromErr(fn, err)
	}
	args.buffer = newBufferHandle(cl, rb)
	return nil
}

// gojax_PJRT_Buffer_Destroy is PJRT_Buffer_Destroy minus freeing the handle,
// which its C wrapper does.
//
//export gojax_PJRT_Buffer_Destroy
func gojax_PJRT_Buffer_Destroy(args *C.PJRT_Buffer_Destroy_Args) (ret pjrtErr) {
	const fn = "PJRT_Buffer_Destroy"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Buffer_Destroy_Args_STRUCT_SIZE); e != nil {
		return e
	}
	b, e := getBuffer(fn, args.buffer)
	if e != nil {
		return e
	}
	b.rt.Destroy()
	buffers.remove(uintptr(b.c.h))
	b.c.h = 0
	// c_Buffer_Destroy (capi.c) frees b.c (one allocation with its dims and
	// layout) after this returns without error, saving a call back into C.
	return nil
}

//export gojax_PJRT_Buffer_ElementType
func gojax_PJRT_Buffer_ElementType(args *C.PJRT_Buffer_ElementType_Args) (ret pjrtErr) {
	const fn = "PJRT_Buffer_ElementType"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Buffer_ElementType_Args_STRUCT_SIZE); e != nil {
		return e
	}
	b, e := getBuffer(fn, args.buffer)
	if e != nil {
		return e
	}
	args._type = C.PJRT_Buffer_Type(pjrtType(b.rt.Type()))
	return nil
}

//export gojax_PJRT_Buffer_Dimensions
func gojax_PJRT_Buffer_Dimensions(args *C.PJRT_Buffer_Dimensions_Args) (ret pjrtErr) {
	const fn = "PJRT_Buffer_Dimensions"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Buffer_Dimensions_Args_STRUCT_SIZE); e != nil {
		return e
	}
	b, e := getBuffer(fn, args.buffer)
	if e != nil {
		return e
	}
	args.dims, args.num_dims = b.c.dims, b.c.num_dims
	return nil
}

//export gojax_PJRT_Buffer_UnpaddedDimensions
func gojax_PJRT_Buffer_UnpaddedDimensions(args *C.PJRT_Buffer_UnpaddedDimensions_Args) (ret pjrtErr) {
	const fn = "PJRT_Buffer_UnpaddedDimensions"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Buffer_UnpaddedDimensions_Args_STRUCT_SIZE); e != nil {
		return e
	}
	b, e := getBuffer(fn, args.buffer)
	if e != nil {
		return e
	}
	args.unpadded_dims, args.num_dims = b.c.dims, b.c.num_dims
	return nil
}

//export gojax_PJRT_Buffer_DynamicDimensionIndices
func gojax_PJRT_Buffer_DynamicDimensionIndices(args *C.PJRT_Buffer_DynamicDimensionIndices_Args) (ret pjrtErr) {
	const fn = "PJRT_Buffer_DynamicDimensionIndices"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Buffer_DynamicDimensionIndices_Args_STRUCT_SIZE); e != nil {
		return e
	}
	if _, e := getBuffer(fn, args.buffer); e != nil {
		return e
	}
	args.dynamic_dim_indices, args.num_dynamic_dims = nil, 0 // all shapes are static
	return nil
}

//export gojax_PJRT_Buffer_GetMemoryLayout
func gojax_PJRT_Buffer_GetMemoryLayout(args *C.PJRT_Buffer_GetMemoryLayout_Args) (ret pjrtErr) {
	const fn = "PJRT_Buffer_GetMemoryLayout"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Buffer_GetMemoryLayout_Args_STRUCT_SIZE); e != nil {
		return e
	}
	b, e := getBuffer(fn, args.buffer)
	if e != nil {
		return e
	}
	C.gojax_layout_set_tiled(&args.layout, b.c.minor_to_major, b.c.num_dims)
	return nil
}

//export gojax_PJRT_Buffer_OnDeviceSizeInBytes
func gojax_PJRT_Buffer_OnDeviceSizeInBytes(args *C.PJRT_Buffer_OnDeviceSizeInBytes_Args) (ret pjrtErr) {
	const fn = "PJRT_Buffer_OnDeviceSizeInBytes"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Buffer_OnDeviceSizeInBytes_Args_STRUCT_SIZE); e != nil {
		return e
	}
	b, e := getBuffer(fn, args.buffer)
	if e != nil {
		return e
	}
	args.on_device_size_in_bytes = C.size_t(b.rt.ByteSize())
	return nil
}

//export gojax_PJRT_Buffer_Device
func gojax_PJRT_Buffer_Device(args *C.PJRT_Buffer_Device_Args) (ret pjrtErr) {
	const fn = "PJRT_Buffer_Device"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Buffer_Device_Args_STRUCT_SIZE); e != nil {
		return e
	}
	b, e := getBuffer(fn, args.buffer)
	if e != nil {
		return e
	}
	args.device = b.device().c
	return nil
}

//export gojax_PJRT_Buffer_Memory
func gojax_PJRT_Buffer_Memory(args *C.PJRT_Buffer_Memory_Args) (ret pjrtErr) {
	const fn = "PJRT_Buffer_Memory"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Buffer_Memory_Args_STRUCT_SIZE); e != nil {
		return e
	}
	b, e := getBuffer(fn, args.buffer)
	if e != nil {
		return e
	}
	args.memory = b.cl.mem(b.rt.Memory()).ptr()
	return nil
}

//export gojax_PJRT_Buffer_Delete
func gojax_PJRT_Buffer_Delete(args *C.PJRT_Buffer_Delete_Args) (ret pjrtErr) {
	const fn = "PJRT_Buffer_Delete"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Buffer_Delete_Args_STRUCT_SIZE); e != nil {
		return e
	}
	b, e := getBuffer(fn, args.buffer)
	if e != nil {
		return e
	}
	b.rt.Delete()
	return nil
}

//export gojax_PJRT_Buffer_IsDeleted
func gojax_PJRT_Buffer_IsDeleted(args *C.PJRT_Buffer_IsDeleted_Args) (ret pjrtErr) {
	const fn = "PJRT_Buffer_IsDeleted"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Buffer_IsDeleted_Args_STRUCT_SIZE); e != nil {
		return e
	}
	b, e := getBuffer(fn, args.buffer)
	if e != nil {
		return e
	}
	args.is_deleted = C._Bool(b.rt.IsDeleted())
	return nil
}

//export gojax_PJRT_Buffer_CopyToDevice
func gojax_PJRT_Buffer_CopyToDevice(args *C.PJRT_Buffer_CopyToDevice_Args) (ret pjrtErr) {
	const fn = "PJRT_Buffer_CopyToDevice"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Buffer_CopyToDevice_Args_STRUCT_SIZE); e != nil {
		return e
	}
	b, e := getBuffer(fn, args.buffer)
	if e != nil {
		return e
	}
	d, e := getDevice(fn, args.dst_device)
	if e != nil {
		return e
	}
	nb, err := b.rt.CopyToMemory(d.mems[0].rt)
	if err != nil {
		return fromErr(fn, err)
	}
	args.dst_buffer = newBufferHandle(d.cl, nb)
	return nil
}

//export gojax_PJRT_Buffer_CopyToMemory
func gojax_PJRT_Buffer_CopyToMemory(args *C.PJRT_Buffer_CopyToMemory_Args) (ret pjrtErr) {
	const fn = "PJRT_Buffer_CopyToMemory"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Buffer_CopyToMemory_Args_STRUCT_SIZE); e != nil {
		return e
	}
	b, e := getBuffer(fn, args.buffer)
	if e != nil {
		return e
	}
	m, e := getMemory(fn, args.dst_memory)
	if e != nil {
		return e
	}
	nb, err := b.rt.CopyToMemory(m.rt)
	if err != nil {
		return fromErr(fn, err)
	}
	args.dst_buffer = newBufferHandle(b.cl, nb)
	return nil
}

//export gojax_PJRT_Buffer_ToHostBuffer
func gojax_PJRT_Buffer_ToHostBuffer(args *C.PJRT_Buffer_ToHostBuffer_Args) (ret pjrtErr) {
	const fn = "PJRT_Buffer_ToHostBuffer"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Buffer_ToHostBuffer_Args_STRUCT_SIZE); e != nil {
		return e
	}
	b, e := getBuffer(fn, args.src)
	if e != nil {
		return e
	}
	if b.rt.IsToken() {
		return errf(engine.CodeInvalidArgument, fn, "token buffers have no data")
	}
	strides, e := layoutStrides(fn, args.host_layout, b.rt.Dims(), int64(b.rt.ElemType().ByteSize()))
	if e != nil {
		return e
	}
	if args.dst == nil {
		// Size query: report the bytes the copy needs.
		args.dst_size = C.size_t(b.rt.ByteSize())
		return nil
	}
	ev, err := b.rt.ToHost(args.dst, int64(args.dst_size), strides)
	if err != nil {
		return fromErr(fn, err)
	}
	args.event = newEvent(ev)
	return nil
}

//export gojax_PJRT_Buffer_CopyRawToHost
func gojax_PJRT_Buffer_CopyRawToHost(args *C.PJRT_Buffer_CopyRawToHost_Args) (ret pjrtErr) {
	const fn = "PJRT_Buffer_CopyRawToHost"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Buffer_CopyRawToHost_Args_STRUCT_SIZE); e != nil {
		return e
	}
	b, e := getBuffer(fn, args.buffer)
	if e != nil {
		return e
	}
	ev, err := b.rt.CopyRawToHost(args.dst, int64(args.offset), int64(args.transfer_size))
	if err != nil {
		return fromErr(fn, err)
	}
	args.event = newEvent(ev)
	return nil
}

//export gojax_PJRT_Buffer_IsOnCpu
func gojax_PJRT_Buffer_IsOnCpu(args *C.PJRT_Buffer_IsOnCpu_Args) (ret pjrtErr) {
	const fn = "PJRT_Buffer_IsOnCpu"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Buffer_IsOnCpu_Args_STRUCT_SIZE); e != nil {
		return e
	}
	if _, e := getBuffer(fn, args.buffer); e != nil {
		return e
	}
	args.is_on_cpu = true
	return nil
}

//export gojax_PJRT_Buffer_ReadyEvent
func gojax_PJRT_Buffer_ReadyEvent(args *C.PJRT_Buffer_ReadyEvent_Args) (ret pjrtErr) {
	const fn = "PJRT_Buffer_ReadyEvent"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Buffer_ReadyEvent_Args_STRUCT_SIZE); e != nil {
		return e
	}
	b, e := getBuffer(fn, args.buffer)
	if e != nil {
		return e
	}
	ev := b.rt.ReadyEvent()
	if b.rt.IsDeleted() {
		// The framework aborts on errors here; report the state through the event.
		ev = engine.DoneEvent(engine.Errorf(engine.CodeFailedPrecondition, "buffer has been deleted or donated"))
	} else if ev.FiredOK() {
		atomic.StoreInt32((*int32)(unsafe.Pointer(&b.c.ready)), 1) // later calls are answered in C
	}
	args.event = newEvent(ev)
	return nil
}

//export gojax_PJRT_Buffer_UnsafePointer
func gojax_PJRT_Buffer_UnsafePointer(args *C.PJRT_Buffer_UnsafePointer_Args) (ret pjrtErr) {
	const fn = "PJRT_Buffer_UnsafePointer"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Buffer_UnsafePointer_Args_STRUCT_SIZE); e != nil {
		return e
	}
	b, e := getBuffer(fn, args.buffer)
	if e != nil {
		return e
	}
	p, err := b.rt.Pointer()
	if err != nil {
		return fromErr(fn, err)
	}
	args.buffer_pointer = C.uintptr_t(uintptr(p))
	return nil
}

//export gojax_PJRT_Buffer_IncreaseExternalReferenceCount
func gojax_PJRT_Buffer_IncreaseExternalReferenceCount(args *C.PJRT_Buffer_IncreaseExternalReferenceCount_Args) (ret pjrtErr) {
	const fn = "PJRT_Buffer_IncreaseExternalReferenceCount"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Buffer_IncreaseExternalReferenceCount_Args_STRUCT_SIZE); e != nil {
		return e
	}
	b, e := getBuffer(fn, args.buffer)
	if e != nil {
		return e
	}
	return fromErr(fn, b.rt.IncExternalRef())
}

//export gojax_PJRT_Buffer_DecreaseExternalReferenceCount
func gojax_PJRT_Buffer_DecreaseExternalReferenceCount(args *C.PJRT_Buffer_DecreaseExternalReferenceCount_Args) (ret pjrtErr) {
	const fn = "PJRT_Buffer_DecreaseExternalReferenceCount"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Buffer_DecreaseExternalReferenceCount_Args_STRUCT_SIZE); e != nil {
		return e
	}
	b, e := getBuffer(fn, args.buffer)
	if e != nil {
		return e
	}
	return fromErr(fn, b.rt.DecExternalRef())
}

//export gojax_PJRT_Buffer_OpaqueDeviceMemoryDataPointer
func gojax_PJRT_Buffer_OpaqueDeviceMemoryDataPointer(args *C.PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args) (ret pjrtErr) {
	const fn = "PJRT_Buffer_OpaqueDeviceMemoryDataPointer"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args_STRUCT_SIZE); e != nil {
		return e
	}
	b, e := getBuffer(fn, args.buffer)
	if e != nil {
		return e
	}
	p, err := b.rt.Pointer()
	if err != nil {
		return fromErr(fn, err)
	}
	args.device_memory_ptr = p
	return nil
}
