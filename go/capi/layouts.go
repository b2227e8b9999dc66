package capi

/*
#include "gojax_capi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gojax/gojax/go/engine"
	"github.com/gojax/gojax/go/ir"
)

// The Layouts extension's Go half (the rest is in capi.c): the calls that
// need a live handle. gojax keeps every array dense and row-major, so an
// executable's layouts follow from its parameter and output ranks.

// layoutList is a C array of an executable's own layouts.
type layoutList struct {
	n   int
	arr **C.gojax_Layout
}

func newLayoutList(types []ir.Type) layoutList {
	l := layoutList{n: len(types), arr: cAlloc[*C.gojax_Layout](len(types))}
	for i, t := range types {
		p := C.gojax_layout_row_major(C.size_t(len(typeDims(t))), 0)
		if p == nil {
			panic("gojax: out of host memory for a layout")
		}
		cSlice(l.arr, l.n)[i] = p
	}
	return l
}

func (l layoutList) free() {
	if l.arr == nil {
		return
	}
	for _, p := range cSlice(l.arr, l.n) {
		cFree(p)
	}
	cFree(l.arr)
}

func executableLayouts(fn string, args *C.gojax_Layouts_Executable_Args, pick func(*executable) layoutList) (ret pjrtErr) {
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.gojax_Layouts_Executable_Args_STRUCT_SIZE); e != nil {
		return e
	}
	x, e := getExec(fn, args.executable)
	if e != nil {
		return e
	}
	l := pick(x)
	args.num, args.layouts = C.size_t(l.n), l.arr
	return nil
}

//export gojax_Layouts_ExecutableOutputs
func gojax_Layouts_ExecutableOutputs(args *C.gojax_Layouts_Executable_Args) pjrtErr {
	return executableLayouts("PJRT_Layouts_PJRT_Executable_GetOutputLayouts", args,
		func(x *executable) layoutList { return x.outLayouts })
}

//export gojax_Layouts_ExecutableParameters
func gojax_Layouts_ExecutableParameters(args *C.gojax_Layouts_Executable_Args) pjrtErr {
	return executableLayouts("PJRT_Layouts_PJRT_Executable_GetParameterLayouts", args,
		func(x *executable) layoutList { return x.paramLayouts })
}

//export gojax_Layouts_BufferLayout
func gojax_Layouts_BufferLayout(args *C.gojax_Layouts_Buffer_Args) (ret pjrtErr) {
	const fn = "PJRT_Layouts_PJRT_Buffer_MemoryLayout"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.gojax_Layouts_Buffer_Args_STRUCT_SIZE); e != nil {
		return e
	}
	b, e := getBuffer(fn, args.buffer)
	if e != nil {
		return e
	}
	if args.layout = C.gojax_layout_new(b.c.minor_to_major, b.c.num_dims, 1); args.layout == nil {
		return errf(engine.CodeResourceExhausted, fn, "out of host memory for a layout")
	}
	return nil
}
