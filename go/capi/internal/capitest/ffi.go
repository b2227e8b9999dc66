package capitest

/*
#cgo CFLAGS: -I${SRCDIR}/../.. -I${SRCDIR}/../../../kernels/ffi -Wall
#include <stdlib.h>
#include <string.h>
#include "pjrt_c_api.h"
#include "xla_ffi.h"

// A typed FFI handler written against the FFI ABI directly: it copies the
// first float of the execution's user data of type 4242 into its result.
static XLA_FFI_Error* user_data_handler(XLA_FFI_CallFrame* f) {
	if (f->extension_start != NULL && f->extension_start->type == GOJAX_FFI_EXTENSION_METADATA) {
		XLA_FFI_Metadata* m = ((XLA_FFI_Metadata_Extension*)f->extension_start)->metadata;
		m->api_version.major_version = GOJAX_FFI_API_MAJOR;
		m->api_version.minor_version = GOJAX_FFI_API_MINOR;
		return NULL;
	}
	XLA_FFI_TypeId id = {4242};
	XLA_FFI_InvokeContext_Get_Args a;
	memset(&a, 0, sizeof a);
	a.struct_size = GOJAX_FFI_SIZE(XLA_FFI_InvokeContext_Get_Args, data);
	a.ctx = f->ctx;
	a.type_id = &id;
	XLA_FFI_Error* e = f->api->XLA_FFI_InvokeContext_Get(&a);
	if (e != NULL) return e;
	XLA_FFI_Buffer* out = (XLA_FFI_Buffer*)f->rets.rets[0];
	*(float*)out->data = *(const float*)a.data;
	return NULL;
}

// The FFI extension's register_handler and user_data_add, found in the
// extension chain (type 5) as a framework finds them.
typedef struct {
	size_t struct_size;
	const char* target_name;
	size_t target_name_size;
	void* handler;
	const char* platform_name;
	size_t platform_name_size;
	uint32_t traits;
} reg_args;

typedef struct {
	size_t struct_size;
	PJRT_Extension_Base* extension_start;
	PJRT_ExecuteContext* context;
	int64_t type_id;
	void* data;
} user_data_args;

static PJRT_Extension_Base* ffi_ext(const PJRT_Api* api) {
	for (PJRT_Extension_Base* e = api->extension_start; e != NULL; e = e->next)
		if (e->type == 5) return e;
	return NULL;
}

static PJRT_Error* register_user_data_handler(const PJRT_Api* api, const char* name) {
	PJRT_Extension_Base* e = ffi_ext(api);
	reg_args r;
	memset(&r, 0, sizeof r);
	r.struct_size = offsetof(reg_args, traits) + sizeof(r.traits);
	r.target_name = name;
	r.target_name_size = strlen(name);
	r.handler = (void*)user_data_handler;
	r.platform_name = "cpu";
	r.platform_name_size = 3;
	return (*(PJRT_Error* (**)(reg_args*))((char*)e + 40))(&r);
}

static PJRT_Error* context_with_user_data(const PJRT_Api* api, int64_t type_id, void* data, PJRT_ExecuteContext** out) {
	PJRT_ExecuteContext_Create_Args c;
	memset(&c, 0, sizeof c);
	c.struct_size = PJRT_ExecuteContext_Create_Args_STRUCT_SIZE;
	PJRT_Error* err = api->PJRT_ExecuteContext_Create(&c);
	if (err != NULL) return err;
	user_data_args u;
	memset(&u, 0, sizeof u);
	u.struct_size = sizeof u;
	u.context = c.context;
	u.type_id = type_id;
	u.data = data;
	*out = c.context;
	return (*(PJRT_Error* (**)(user_data_args*))((char*)ffi_ext(api) + 32))(&u);
}

static PJRT_Error* destroy_context(const PJRT_Api* api, PJRT_ExecuteContext* ctx) {
	PJRT_ExecuteContext_Destroy_Args d;
	memset(&d, 0, sizeof d);
	d.struct_size = PJRT_ExecuteContext_Destroy_Args_STRUCT_SIZE;
	d.context = ctx;
	return api->PJRT_ExecuteContext_Destroy(&d);
}
*/
import "C"

import "unsafe"

// RegisterUserDataHandler registers, through the PJRT FFI extension, an FFI
// handler that writes the first float of the execution's user data of type
// 4242 into its one f32 result.
func (a *API) RegisterUserDataHandler(target string) *Err {
	name := C.CString(target)
	defer C.free(unsafe.Pointer(name))
	return a.convert(C.register_user_data_handler(a.p, name))
}

// ExecuteWithUserData runs x with an execute context carrying one piece of
// user data (type typeID); the context is destroyed once wait returns.
func (a *API) ExecuteWithUserData(x Loaded, args []Buffer, numOutputs int, typeID int64, data unsafe.Pointer, wait func([]Buffer, Event)) *Err {
	var ctx *C.PJRT_ExecuteContext
	if e := a.convert(C.context_with_user_data(a.p, C.int64_t(typeID), data, &ctx)); e != nil {
		return e
	}
	defer C.destroy_context(a.p, ctx)
	outs, events, e := a.execute(x, [][]Buffer{args}, numOutputs, nil, ctx)
	if e != nil {
		return e
	}
	wait(outs[0], events[0])
	return nil
}
