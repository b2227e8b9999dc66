package capi

/*
#include "gojax_capi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gojax/gojax/go/engine"
)

// Devices and their descriptions (one handle value serves both).

type device struct {
	rt      *engine.Device
	cl      *client
	c       *C.PJRT_Device
	desc    *C.PJRT_DeviceDescription
	mems    []*memory // in engine order, the default first
	memArr  **C.PJRT_Memory
	kind    cstr
	debug   cstr
	str     cstr
	attrs   *C.PJRT_NamedValue
	nattrs  int
	attrObj *C.PJRT_Device_Attributes
	names   []cstr
}

// buildAttrs fills the device's attribute list (string / int64 values only, as
// the framework requires).
func (d *device) buildAttrs() {
	type kv struct {
		name string
		v    int64
	}
	list := []kv{{"local_hardware_id", int64(d.rt.LocalHardwareID)}, {"process_index", int64(d.rt.ProcessIndex)}}
	d.nattrs = len(list)
	d.attrs = cAlloc[C.PJRT_NamedValue](len(list))
	arr := cSlice(d.attrs, len(list))
	for i, a := range list {
		n := newCstr(a.name)
		d.names = append(d.names, n)
		C.gojax_nv_set_int64(&arr[i], n.p, C.int64_t(a.v))
	}
}

// fillStatic copies what a forked child may be asked into the C handles
// (gojax_capi.h); the strings and attributes stay owned by d.
func (d *device) fillStatic() {
	c, desc := d.c, d.desc
	c.desc = desc
	c.local_hardware_id = C.int(d.rt.LocalHardwareID)
	if d.rt.Addressable() {
		c.addressable = 1
	}
	desc.id, desc.process_index = C.int(d.rt.ID), C.int(d.rt.ProcessIndex)
	desc.kind, desc.kind_size = d.kind.p, d.kind.n
	desc.debug, desc.debug_size = d.debug.p, d.debug.n
	desc.str, desc.str_size = d.str.p, d.str.n
	desc.attrs, desc.num_attrs = d.attrs, C.size_t(d.nattrs)
}

func getDevice(fn string, d *C.PJRT_Device) (*device, pjrtErr) {
	if d == nil {
		return nil, errf(engine.CodeInvalidArgument, fn, "device is NULL")
	}
	return value[*device](fn, "device", d.h)
}

func getDesc(fn string, d *C.PJRT_DeviceDescription) (*device, pjrtErr) {
	if d == nil {
		return nil, errf(engine.CodeInvalidArgument, fn, "device_description is NULL")
	}
	return value[*device](fn, "device description", d.h)
}

// ---- device descriptions -----------------------------------------------------

//export gojax_PJRT_DeviceDescription_Id
func gojax_PJRT_DeviceDescription_Id(args *C.PJRT_DeviceDescription_Id_Args) (ret pjrtErr) {
	const fn = "PJRT_DeviceDescription_Id"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_DeviceDescription_Id_Args_STRUCT_SIZE); e != nil {
		return e
	}
	d, e := getDesc(fn, args.device_description)
	if e != nil {
		return e
	}
	args.id = C.int(d.rt.ID)
	return nil
}

//export gojax_PJRT_DeviceDescription_ProcessIndex
func gojax_PJRT_DeviceDescription_ProcessIndex(args *C.PJRT_DeviceDescription_ProcessIndex_Args) (ret pjrtErr) {
	const fn = "PJRT_DeviceDescription_ProcessIndex"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_DeviceDescription_ProcessIndex_Args_STRUCT_SIZE); e != nil {
		return e
	}
	d, e := getDesc(fn, args.device_description)
	if e != nil {
		return e
	}
	args.process_index = C.int(d.rt.ProcessIndex)
	return nil
}

//export gojax_PJRT_DeviceDescription_Attributes
func gojax_PJRT_DeviceDescription_Attributes(args *C.PJRT_DeviceDescription_Attributes_Args) (ret pjrtErr) {
	const fn = "PJRT_DeviceDescription_Attributes"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_DeviceDescription_Attributes_Args_STRUCT_SIZE); e != nil {
		return e
	}
	d, e := getDesc(fn, args.device_description)
	if e != nil {
		return e
	}
	args.attributes, args.num_attributes = d.attrs, C.size_t(d.nattrs)
	return nil
}

//export gojax_PJRT_DeviceDescription_Kind
func gojax_PJRT_DeviceDescription_Kind(args *C.PJRT_DeviceDescription_Kind_Args) (ret pjrtErr) {
	const fn = "PJRT_DeviceDescription_Kind"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_DeviceDescription_Kind_Args_STRUCT_SIZE); e != nil {
		return e
	}
	d, e := getDesc(fn, args.device_description)
	if e != nil {
		return e
	}
	args.device_kind, args.device_kind_size = d.kind.p, d.kind.n
	return nil
}

//export gojax_PJRT_DeviceDescription_DebugString
func gojax_PJRT_DeviceDescription_DebugString(args *C.PJRT_DeviceDescription_DebugString_Args) (ret pjrtErr) {
	const fn = "PJRT_DeviceDescription_DebugString"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_DeviceDescription_DebugString_Args_STRUCT_SIZE); e != nil {
		return e
	}
	d, e := getDesc(fn, args.device_description)
	if e != nil {
		return e
	}
	args.debug_string, args.debug_string_size = d.debug.p, d.debug.n
	return nil
}

//export gojax_PJRT_DeviceDescription_ToString
func gojax_PJRT_DeviceDescription_ToString(args *C.PJRT_DeviceDescription_ToString_Args) (ret pjrtErr) {
	const fn = "PJRT_DeviceDescription_ToString"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_DeviceDescription_ToString_Args_STRUCT_SIZE); e != nil {
		return e
	}
	d, e := getDesc(fn, args.device_description)
	if e != nil {
		return e
	}
	args.to_string, args.to_string_size = d.str.p, d.str.n
	return nil
}

// ---- devices -----------------------------------------------------------------

//export gojax_PJRT_Device_GetDescription
func gojax_PJRT_Device_GetDescription(args *C.PJRT_Device_GetDescription_Args) (ret pjrtErr) {
	const fn = "PJRT_Device_GetDescription"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Device_GetDescription_Args_STRUCT_SIZE); e != nil {
		return e
	}
	d, e := getDevice(fn, args.device)
	if e != nil {
		return e
	}
	args.device_description = d.desc
	return nil
}

//export gojax_PJRT_Device_IsAddressable
func gojax_PJRT_Device_IsAddressable(args *C.PJRT_Device_IsAddressable_Args) (ret pjrtErr) {
	const fn = "PJRT_Device_IsAddressable"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Device_IsAddressable_Args_STRUCT_SIZE); e != nil {
		return e
	}
	d, e := getDevice(fn, args.device)
	if e != nil {
		return e
	}
	args.is_addressable = C.bool(d.rt.Addressable())
	return nil
}

//export gojax_PJRT_Device_LocalHardwareId
func gojax_PJRT_Device_LocalHardwareId(args *C.PJRT_Device_LocalHardwareId_Args) (ret pjrtErr) {
	const fn = "PJRT_Device_LocalHardwareId"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Device_LocalHardwareId_Args_STRUCT_SIZE); e != nil {
		return e
	}
	d, e := getDevice(fn, args.device)
	if e != nil {
		return e
	}
	args.local_hardware_id = C.int(d.rt.LocalHardwareID)
	return nil
}

//export gojax_PJRT_Device_AddressableMemories
func gojax_PJRT_Device_AddressableMemories(args *C.PJRT_Device_AddressableMemories_Args) (ret pjrtErr) {
	const fn = "PJRT_Device_AddressableMemories"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Device_AddressableMemories_Args_STRUCT_SIZE); e != nil {
		return e
	}
	d, e := getDevice(fn, args.device)
	if e != nil {
		return e
	}
	args.memories, args.num_memories = d.memArr, C.size_t(len(d.mems))
	return nil
}

//export gojax_PJRT_Device_DefaultMemory
func gojax_PJRT_Device_DefaultMemory(args *C.PJRT_Device_DefaultMemory_Args) (ret pjrtErr) {
	const fn = "PJRT_Device_DefaultMemory"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Device_DefaultMemory_Args_STRUCT_SIZE); e != nil {
		return e
	}
	d, e := getDevice(fn, args.device)
	if e != nil {
		return e
	}
	args.memory = d.mems[0].ptr()
	return nil
}

//export gojax_PJRT_Device_MemoryStats
func gojax_PJRT_Device_MemoryStats(args *C.PJRT_Device_MemoryStats_Args) (ret pjrtErr) {
	const fn = "PJRT_Device_MemoryStats"
	defer guard(fn, &ret)
	var a C.PJRT_Device_MemoryStats_Args
	if e := checkArgs(fn, unsafe.Pointer(args), C.size_t(unsafe.Offsetof(a.bytes_in_use)+unsafe.Sizeof(a.bytes_in_use))); e != nil {
		return e
	}
	if _, e := getDevice(fn, args.device); e != nil {
		return e
	}
	// devmem is shared by all devices of the process: report its totals.
	s := devmemStats()
	args.bytes_in_use = C.int64_t(s.BytesInUse)
	sz := args.struct_size
	if has(sz, unsafe.Offsetof(a.peak_bytes_in_use_is_set), 1) {
		args.peak_bytes_in_use, args.peak_bytes_in_use_is_set = C.int64_t(s.PeakBytes), true
	}
	if has(sz, unsafe.Offsetof(a.num_allocs_is_set), 1) {
		args.num_allocs, args.num_allocs_is_set = C.int64_t(s.NumAllocs), true
	}
	// Unset flags stay as the caller left them only if they lie outside its
	// struct; inside it, clear them explicitly.
	clear := func(off uintptr, flag *C._Bool) {
		if has(sz, off, 1) {
			*flag = false
		}
	}
	clear(unsafe.Offsetof(a.largest_alloc_size_is_set), &args.largest_alloc_size_is_set)
	clear(unsafe.Offsetof(a.bytes_limit_is_set), &args.bytes_limit_is_set)
	clear(unsafe.Offsetof(a.bytes_reserved_is_set), &args.bytes_reserved_is_set)
	clear(unsafe.Offsetof(a.peak_bytes_reserved_is_set), &args.peak_bytes_reserved_is_set)
	clear(unsafe.Offsetof(a.bytes_reservable_limit_is_set), &args.bytes_reservable_limit_is_set)
	clear(unsafe.Offsetof(a.largest_free_block_bytes_is_set), &args.largest_free_block_bytes_is_set)
	clear(unsafe.Offsetof(a.pool_bytes_is_set), &args.pool_bytes_is_set)
	clear(unsafe.Offsetof(a.peak_pool_bytes_is_set), &args.peak_pool_bytes_is_set)
	clear(unsafe.Offsetof(a.peak_allocated_bytes_is_set), &args.peak_allocated_bytes_is_set)
	return nil
}

//export gojax_PJRT_Device_ClearMemoryStats
func gojax_PJRT_Device_ClearMemoryStats(args *C.PJRT_Device_ClearMemoryStats_Args) (ret pjrtErr) {
	const fn = "PJRT_Device_ClearMemoryStats"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Device_ClearMemoryStats_Args_STRUCT_SIZE); e != nil {
		return e
	}
	if _, e := getDevice(fn, args.device); e != nil {
		return e
	}
	devmemResetPeak()
	return nil
}

//export gojax_PJRT_Device_GetAttributes
func gojax_PJRT_Device_GetAttributes(args *C.PJRT_Device_GetAttributes_Args) (ret pjrtErr) {
	const fn = "PJRT_Device_GetAttributes"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Device_GetAttributes_Args_STRUCT_SIZE); e != nil {
		return e
	}
	d, e := getDevice(fn, args.device)
	if e != nil {
		return e
	}
	args.attributes, args.num_attributes = d.attrs, C.size_t(d.nattrs)
	args.device_attributes = d.attrObj
	args.attributes_deleter = (*[0]byte)(C.gojax_free_device_attributes)
	return nil
}

//export gojax_PJRT_Device_PoisonExecution
func gojax_PJRT_Device_PoisonExecution(args *C.PJRT_Device_PoisonExecution_Args) (ret pjrtErr) {
	const fn = "PJRT_Device_PoisonExecution"
	defer guard(fn, &ret)
	var a C.PJRT_Device_PoisonExecution_Args
	if e := checkArgs(fn, unsafe.Pointer(args), C.size_t(unsafe.Offsetof(a.poisoned)+unsafe.Sizeof(a.poisoned))); e != nil {
		return e
	}
	if _, e := getDevice(fn, args.device); e != nil {
		return e
	}
	// gojax does not track executions by launch id, so none can be poisoned.
	args.poisoned = false
	return nil
}

//export gojax_PJRT_Device_CreateAsyncTrackingEvent
func gojax_PJRT_Device_CreateAsyncTrackingEvent(args *C.PJRT_Device_CreateAsyncTrackingEvent_Args) (ret pjrtErr) {
	const fn = "PJRT_Device_CreateAsyncTrackingEvent"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Device_CreateAsyncTrackingEvent_Args_STRUCT_SIZE); e != nil {
		return e
	}
	if _, e := getDevice(fn, args.device); e != nil {
		return e
	}
	// Tracking events only mark spans for profilers; gojax has none to feed.
	args.event = cAlloc[C.PJRT_AsyncTrackingEvent](1)
	return nil
}
