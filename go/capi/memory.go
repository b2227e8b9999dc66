package capi

/*
#include "gojax_capi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gojax/gojax/go/engine"
)

// Memories: one default memory per device.

type memory struct {
	rt     *engine.Memory
	c      *C.gojax_Memory
	kind   cstr
	debug  cstr
	str    cstr
	devArr **C.PJRT_Device
}

func (m *memory) ptr() *C.PJRT_Memory { return (*C.PJRT_Memory)(unsafe.Pointer(m.c)) }

func getMemory(fn string, m *C.PJRT_Memory) (*memory, pjrtErr) {
	if m == nil {
		return nil, errf(engine.CodeInvalidArgument, fn, "memory is NULL")
	}
	g := (*C.gojax_Memory)(unsafe.Pointer(m))
	return value[*memory](fn, "memory", g.h)
}

// ---- memories ------------------------------------------------------------------

//export gojax_PJRT_Memory_Id
func gojax_PJRT_Memory_Id(args *C.PJRT_Memory_Id_Args) (ret pjrtErr) {
	const fn = "PJRT_Memory_Id"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Memory_Id_Args_STRUCT_SIZE); e != nil {
		return e
	}
	m, e := getMemory(fn, args.memory)
	if e != nil {
		return e
	}
	args.id = C.int(m.rt.ID)
	return nil
}

//export gojax_PJRT_Memory_Kind
func gojax_PJRT_Memory_Kind(args *C.PJRT_Memory_Kind_Args) (ret pjrtErr) {
	const fn = "PJRT_Memory_Kind"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Memory_Kind_Args_STRUCT_SIZE); e != nil {
		return e
	}
	m, e := getMemory(fn, args.memory)
	if e != nil {
		return e
	}
	args.kind, args.kind_size = m.kind.p, m.kind.n
	return nil
}

//export gojax_PJRT_Memory_Kind_Id
func gojax_PJRT_Memory_Kind_Id(args *C.PJRT_Memory_Kind_Id_Args) (ret pjrtErr) {
	const fn = "PJRT_Memory_Kind_Id"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Memory_Kind_Id_Args_STRUCT_SIZE); e != nil {
		return e
	}
	m, e := getMemory(fn, args.memory)
	if e != nil {
		return e
	}
	args.kind_id = C.int(m.rt.KindID())
	return nil
}

//export gojax_PJRT_Memory_DebugString
func gojax_PJRT_Memory_DebugString(args *C.PJRT_Memory_DebugString_Args) (ret pjrtErr) {
	const fn = "PJRT_Memory_DebugString"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Memory_DebugString_Args_STRUCT_SIZE); e != nil {
		return e
	}
	m, e := getMemory(fn, args.memory)
	if e != nil {
		return e
	}
	args.debug_string, args.debug_string_size = m.debug.p, m.debug.n
	return nil
}

//export gojax_PJRT_Memory_ToString
func gojax_PJRT_Memory_ToString(args *C.PJRT_Memory_ToString_Args) (ret pjrtErr) {
	const fn = "PJRT_Memory_ToString"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Memory_ToString_Args_STRUCT_SIZE); e != nil {
		return e
	}
	m, e := getMemory(fn, args.memory)
	if e != nil {
		return e
	}
	args.to_string, args.to_string_size = m.str.p, m.str.n
	return nil
}

//export gojax_PJRT_Memory_AddressableByDevices
func gojax_PJRT_Memory_AddressableByDevices(args *C.PJRT_Memory_AddressableByDevices_Args) (ret pjrtErr) {
	const fn = "PJRT_Memory_AddressableByDevices"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Memory_AddressableByDevices_Args_STRUCT_SIZE); e != nil {
		return e
	}
	m, e := getMemory(fn, args.memory)
	if e != nil {
		return e
	}
	args.devices, args.num_devices = m.devArr, C.size_t(len(m.rt.Devices()))
	return nil
}
