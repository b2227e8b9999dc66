package capi

/*
#include "gojax_capi.h"
*/
import "C"

import (
	"sync"
	"unsafe"

	"github.com/gojax/gojax/go/vhlo"
)

// The plugin-level entry points, called before any client exists.

// ---- plugin ----------------------------------------------------------------

//export gojax_PJRT_Plugin_Initialize
func gojax_PJRT_Plugin_Initialize(args *C.PJRT_Plugin_Initialize_Args) (ret pjrtErr) {
	const fn = "PJRT_Plugin_Initialize"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Plugin_Initialize_Args_STRUCT_SIZE); e != nil {
		return e
	}
	setupProcess()
	return nil
}

var (
	pluginAttrsOnce sync.Once
	pluginAttrs     *C.PJRT_NamedValue
	pluginAttrsN    int
)

// pluginAttributes builds the static attribute list once; it lives for the
// life of the process.
func pluginAttributes() (*C.PJRT_NamedValue, int) {
	pluginAttrsOnce.Do(func() {
		cur := cAlloc[C.int64_t](3)
		for i, v := range vhlo.MaxVersion {
			cSlice(cur, 3)[i] = C.int64_t(v)
		}
		minv := cAlloc[C.int64_t](3)
		cSlice(minv, 3)[1] = 9
		pluginAttrsN = 3
		pluginAttrs = cAlloc[C.PJRT_NamedValue](pluginAttrsN)
		arr := cSlice(pluginAttrs, pluginAttrsN)
		C.gojax_nv_set_int64(&arr[0], C.CString("xla_version"), 2)
		C.gojax_nv_set_int64_list(&arr[1], C.CString("stablehlo_current_version"), cur, 3)
		C.gojax_nv_set_int64_list(&arr[2], C.CString("stablehlo_minimum_version"), minv, 3)
	})
	return pluginAttrs, pluginAttrsN
}

//export gojax_PJRT_Plugin_Attributes
func gojax_PJRT_Plugin_Attributes(args *C.PJRT_Plugin_Attributes_Args) (ret pjrtErr) {
	const fn = "PJRT_Plugin_Attributes"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Plugin_Attributes_Args_STRUCT_SIZE); e != nil {
		return e
	}
	p, n := pluginAttributes()
	args.attributes, args.num_attributes = p, C.size_t(n)
	return nil
}
