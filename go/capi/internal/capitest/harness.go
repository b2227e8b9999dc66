// Package capitest drives gojax's PJRT_Api table the way a framework does:
// through the C function pointers, with C-allocated argument structs. Go test
// files cannot use cgo, so the C-facing code lives here and the tests beside
// it use these wrappers.
package capitest

/*
#cgo CFLAGS: -I${SRCDIR}/../.. -Wall
#include <stdlib.h>
#include <string.h>
#include "pjrt_c_api.h"

typedef PJRT_Error* (*slot_fn)(void*);
typedef void (*void_slot_fn)(void*);

static const char* slot_names[] = {
#define GOJAX_SLOT(n) #n,
#include "pjrt_slots.h"
#undef GOJAX_SLOT
};
static const size_t slot_offsets[] = {
#define GOJAX_SLOT(n) offsetof(PJRT_Api, n),
#include "pjrt_slots.h"
#undef GOJAX_SLOT
};
static int num_slots(void) { return sizeof(slot_offsets) / sizeof(slot_offsets[0]); }
static const char* slot_name(int i) { return slot_names[i]; }
static void* slot_ptr(const PJRT_Api* api, int i) { return *(void**)((const char*)api + slot_offsets[i]); }

static PJRT_Error* call_slot(const PJRT_Api* api, int i, void* args) {
	return ((slot_fn)slot_ptr(api, i))(args);
}
static void call_void_slot(const PJRT_Api* api, int i, void* args) {
	((void_slot_fn)slot_ptr(api, i))(args);
}

// Error inspection through the API and through the vtable.
static int err_code(const PJRT_Api* api, PJRT_Error* e) {
	PJRT_Error_GetCode_Args a = {0};
	a.struct_size = PJRT_Error_GetCode_Args_STRUCT_SIZE;
	a.error = e;
	PJRT_Error* e2 = api->PJRT_Error_GetCode(&a);
	if (e2) return -1;
	return (int)a.code;
}
static void err_message(const PJRT_Api* api, PJRT_Error* e, const char** m, size_t* n) {
	PJRT_Error_Message_Args a = {0};
	a.struct_size = PJRT_Error_Message_Args_STRUCT_SIZE;
	a.error = e;
	api->PJRT_Error_Message(&a);
	*m = a.message;
	*n = a.message_size;
}
static void err_destroy(const PJRT_Api* api, PJRT_Error* e) {
	PJRT_Error_Destroy_Args a = {0};
	a.struct_size = PJRT_Error_Destroy_Args_STRUCT_SIZE;
	a.error = e;
	api->PJRT_Error_Destroy(&a);
}
static int vt_code(PJRT_Error* e) { return (int)e->vtable->get_code(e); }
static void vt_message(PJRT_Error* e, const char** m, size_t* n) { e->vtable->message(e, m, n); }
static size_t vt_size(PJRT_Error* e) { return e->vtable->struct_size; }

static int payload_visits;
static void count_payload(const char* k, size_t ks, const char* v, size_t vs, void* arg) {
	(void)k; (void)ks; (void)v; (void)vs; (void)arg;
	payload_visits++;
}
static int for_each_payload(const PJRT_Api* api, PJRT_Error* e, int* api_ret_null) {
	payload_visits = 0;
	PJRT_Error_ForEachPayload_Args a = {0};
	a.struct_size = PJRT_Error_ForEachPayload_Args_STRUCT_SIZE;
	a.error = e;
	a.visitor = count_payload;
	*api_ret_null = api->PJRT_Error_ForEachPayload(&a) == NULL;
	e->vtable->for_each_payload(e, count_payload, NULL);
	return payload_visits;
}

// OnReady callbacks record what they saw and may destroy the event they were
// registered on, as jaxlib does.
typedef struct {
	const PJRT_Api* api;
	int called;
	int code;
	char msg[512];
	PJRT_Event* destroy_me;
} cb_state;

static void on_ready_cb(PJRT_Error* err, void* arg) {
	cb_state* s = (cb_state*)arg;
	s->called++;
	s->code = 0;
	s->msg[0] = 0;
	if (err) {
		s->code = err_code(s->api, err);
		const char* m; size_t n;
		err_message(s->api, err, &m, &n);
		if (n >= sizeof s->msg) n = sizeof s->msg - 1;
		memcpy(s->msg, m, n);
		s->msg[n] = 0;
		err_destroy(s->api, err);
	}
	if (s->destroy_me) {
		PJRT_Event_Destroy_Args a = {0};
		a.struct_size = PJRT_Event_Destroy_Args_STRUCT_SIZE;
		a.event = s->destroy_me;
		s->destroy_me = NULL;
		PJRT_Error* e = s->api->PJRT_Event_Destroy(&a);
		if (e) err_destroy(s->api, e);
	}
}
static PJRT_Event_OnReadyCallback on_ready_fn(void) { return on_ready_cb; }

static void on_delete_cb(void* p, void* arg) { (void)p; (*(int*)arg)++; }
static void* on_delete_fn(void) { return (void*)on_delete_cb; }

// Memory user data through the vtable.
static int dtor_calls;
static void ud_dtor(void* p) { (void)p; dtor_calls++; }
static void* mem_get(PJRT_Memory* m, const void* key) { return m->vtable->get_user_data(m, key); }
static void mem_set(PJRT_Memory* m, const void* key, void* data) { m->vtable->set_user_data(m, key, data, ud_dtor); }
static size_t mem_vt_size(PJRT_Memory* m) { return m->vtable ? m->vtable->struct_size : 0; }
static int get_dtor_calls(void) { return dtor_calls; }

// test_alloc returns n bytes at a 64-byte boundary plus off (never freed:
// tests are short-lived and buffers may alias it).
static void* test_alloc(size_t n, size_t off) {
	void* p = NULL;
	if (posix_memalign(&p, 64, n + 64) != 0) return NULL;
	return (char*)p + off;
}
static void call_deleter(void* fn, void* p) { ((void (*)(void*))fn)(p); }
static void fire_raw(void* fn, void* data, int code, const char* msg, size_t n, void* dst) {
	PJRT_Buffer_CopyRawToHostFuture_Callback_Args a = {0};
	a.struct_size = PJRT_Buffer_CopyRawToHostFuture_Callback_Args_STRUCT_SIZE;
	a.callback_data = data; a.error_code = (PJRT_Error_Code)code;
	a.error_message = msg; a.error_message_size = n; a.dst = dst;
	((void (*)(PJRT_Buffer_CopyRawToHostFuture_Callback_Args*))fn)(&a);
}
static void fire_dep(void* fn, void* data, int code, const char* msg, size_t n) {
	PJRT_Buffer_DonateWithControlDependency_Callback_Args a = {0};
	a.struct_size = PJRT_Buffer_DonateWithControlDependency_Callback_Args_STRUCT_SIZE;
	a.callback_data = data; a.error_code = (PJRT_Error_Code)code;
	a.error_message = msg; a.error_message_size = n;
	((void (*)(PJRT_Buffer_DonateWithControlDependency_Callback_Args*))fn)(&a);
}
static int64_t nv_int64(const PJRT_NamedValue* nv) { return nv->int64_value; }
static float nv_float(const PJRT_NamedValue* nv) { return nv->float_value; }
static const int64_t* nv_list(const PJRT_NamedValue* nv) { return nv->int64_array_value; }
static void nv_set_int64(PJRT_NamedValue* nv, const char* name, int64_t v) {
	memset(nv, 0, sizeof *nv);
	nv->struct_size = PJRT_NamedValue_STRUCT_SIZE;
	nv->name = name; nv->name_size = strlen(name);
	nv->type = PJRT_NamedValue_kInt64; nv->int64_value = v; nv->value_size = 1;
}
static const int64_t* layout_m2m(PJRT_Buffer_MemoryLayout* l, size_t* n, size_t* tiles) {
	*n = l->tiled.minor_to_major_size;
	*tiles = l->tiled.num_tiles;
	return l->tiled.minor_to_major;
}
static void layout_strides(PJRT_Buffer_MemoryLayout* l, const int64_t* s, size_t n) {
	memset(l, 0, sizeof *l);
	l->struct_size = PJRT_Buffer_MemoryLayout_STRUCT_SIZE;
	l->type = PJRT_Buffer_MemoryLayout_Type_Strides;
	l->strides.struct_size = PJRT_Buffer_MemoryLayout_Strides_STRUCT_SIZE;
	l->strides.byte_strides = s;
	l->strides.num_byte_strides = n;
}
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/gojax/gojax/go/capi"
)

// API is the table under test.
type API struct {
	p     *C.PJRT_Api
	slots map[string]C.int
}

// Load returns gojax's table (capi.APIPointer).
func Load() *API {
	// The table is static C memory, so turning the address back into a
	// pointer is safe; the indirection keeps vet's uintptr check quiet.
	addr := capi.APIPointer()
	a := &API{p: *(**C.PJRT_Api)(unsafe.Pointer(&addr)), slots: map[string]C.int{}}
	for i := C.int(0); i < C.num_slots(); i++ {
		a.slots[C.GoString(C.slot_name(i))] = i
	}
	return a
}

// Version returns pjrt_api_version (major, minor) and the table's struct_size.
func (a *API) Version() (major, minor, structSize int) {
	return int(a.p.pjrt_api_version.major_version), int(a.p.pjrt_api_version.minor_version), int(a.p.struct_size)
}

// SlotNames lists the slots in table order.
func (a *API) SlotNames() []string {
	out := make([]string, C.num_slots())
	for i := range out {
		out[i] = C.GoString(C.slot_name(C.int(i)))
	}
	return out
}

// SlotIsSet reports whether a slot holds a function.
func (a *API) SlotIsSet(name string) bool { return C.slot_ptr(a.p, a.slots[name]) != nil }

// Err is a PJRT error converted to Go (the C error is destroyed).
type Err struct {
	Code        int
	Msg         string
	VtableCode  int
	VtableMsg   string
	VtableSize  int
	Payloads    int
	PayloadNull bool
}

func (e *Err) Error() string { return fmt.Sprintf("code %d: %s", e.Code, e.Msg) }

func (a *API) convert(e *C.PJRT_Error) *Err {
	if e == nil {
		return nil
	}
	out := &Err{Code: int(C.err_code(a.p, e))}
	var m *C.char
	var n C.size_t
	C.err_message(a.p, e, &m, &n)
	out.Msg = C.GoStringN(m, C.int(n))
	out.VtableCode = int(C.vt_code(e))
	C.vt_message(e, &m, &n)
	out.VtableMsg = C.GoStringN(m, C.int(n))
	out.VtableSize = int(C.vt_size(e))
	var null C.int
	out.Payloads = int(C.for_each_payload(a.p, e, &null))
	out.PayloadNull = null != 0
	C.err_destroy(a.p, e)
	return out
}

// Call invokes a slot with a raw args pointer.
func (a *API) Call(name string, args unsafe.Pointer) *Err {
	i, ok := a.slots[name]
	if !ok {
		panic("no slot " + name)
	}
	if name == "PJRT_Error_Destroy" || name == "PJRT_Error_Message" {
		C.call_void_slot(a.p, i, args)
		return nil
	}
	return a.convert(C.call_slot(a.p, i, args))
}

// CallWithSize calls a slot with a zeroed 1 KiB args block whose struct_size
// is size, as a framework with a shorter (or garbage) struct would.
func (a *API) CallWithSize(name string, size uintptr) *Err {
	p := C.calloc(1, 1024)
	defer C.free(p)
	*(*C.size_t)(p) = C.size_t(size)
	return a.Call(name, p)
}

func alloc[T any]() *T {
	var z T
	p := C.calloc(1, C.size_t(unsafe.Sizeof(z)))
	return (*T)(p)
}

func free[T any](p *T) { C.free(unsafe.Pointer(p)) }

func cInt64s(v []int64) *C.int64_t {
	if len(v) == 0 {
		return nil
	}
	p := (*C.int64_t)(C.malloc(C.size_t(8 * len(v))))
	copy(unsafe.Slice((*int64)(unsafe.Pointer(p)), len(v)), v)
	return p
}

// Handles are raw C pointers, typed so tests need no cgo.
type (
	Client struct{ ptr unsafe.Pointer }
	Device struct{ ptr unsafe.Pointer }
	Memory struct{ ptr unsafe.Pointer }
	Buffer struct{ ptr unsafe.Pointer }
	Event  struct{ ptr unsafe.Pointer }
)

// IsNil reports a NULL handle.
func (e Event) IsNil() bool { return e.ptr == nil }

// IsNil reports a NULL handle.
func (b Buffer) IsNil() bool { return b.ptr == nil }

// CreateClient calls PJRT_Client_Create with int64 options.
func (a *API) CreateClient(opts map[string]int64) (Client, *Err) {
	args := alloc[C.PJRT_Client_Create_Args]()
	defer free(args)
	args.struct_size = C.PJRT_Client_Create_Args_STRUCT_SIZE
	if len(opts) > 0 {
		nvs := (*C.PJRT_NamedValue)(C.calloc(C.size_t(len(opts)), C.size_t(unsafe.Sizeof(C.PJRT_NamedValue{}))))
		defer C.free(unsafe.Pointer(nvs))
		arr := unsafe.Slice(nvs, len(opts))
		i := 0
		for k, v := range opts {
			ck := C.CString(k)
			defer C.free(unsafe.Pointer(ck))
			C.nv_set_int64(&arr[i], ck, C.int64_t(v))
			i++
		}
		args.create_options, args.num_options = nvs, C.size_t(len(opts))
	}
	if e := a.Call("PJRT_Client_Create", unsafe.Pointer(args)); e != nil {
		return Client{}, e
	}
	return Client{unsafe.Pointer(args.client)}, nil
}

func (c Client) p() *C.PJRT_Client { return (*C.PJRT_Client)(c.ptr) }
func (d Device) p() *C.PJRT_Device { return (*C.PJRT_Device)(d.ptr) }
func (m Memory) p() *C.PJRT_Memory { return (*C.PJRT_Memory)(m.ptr) }
func (b Buffer) p() *C.PJRT_Buffer { return (*C.PJRT_Buffer)(b.ptr) }
func (e Event) p() *C.PJRT_Event   { return (*C.PJRT_Event)(e.ptr) }

// DestroyClient calls PJRT_Client_Destroy.
func (a *API) DestroyClient(c Client) *Err {
	args := alloc[C.PJRT_Client_Destroy_Args]()
	defer free(args)
	args.struct_size = C.PJRT_Client_Destroy_Args_STRUCT_SIZE
	args.client = c.p()
	return a.Call("PJRT_Client_Destroy", unsafe.Pointer(args))
}

// PlatformName and PlatformVersion of a client.
func (a *API) Platform(c Client) (name, version string, err *Err) {
	n := alloc[C.PJRT_Client_PlatformName_Args]()
	defer free(n)
	n.struct_size = C.PJRT_Client_PlatformName_Args_STRUCT_SIZE
	n.client = c.p()
	if err = a.Call("PJRT_Client_PlatformName", unsafe.Pointer(n)); err != nil {
		return
	}
	v := alloc[C.PJRT_Client_PlatformVersion_Args]()
	defer free(v)
	v.struct_size = C.PJRT_Client_PlatformVersion_Args_STRUCT_SIZE
	v.client = c.p()
	if err = a.Call("PJRT_Client_PlatformVersion", unsafe.Pointer(v)); err != nil {
		return
	}
	return C.GoStringN(n.platform_name, C.int(n.platform_name_size)), C.GoStringN(v.platform_version, C.int(v.platform_version_size)), nil
}

// Devices lists PJRT_Client_Devices.
func (a *API) Devices(c Client) ([]Device, *Err) {
	args := alloc[C.PJRT_Client_Devices_Args]()
	defer free(args)
	args.struct_size = C.PJRT_Client_Devices_Args_STRUCT_SIZE
	args.client = c.p()
	if e := a.Call("PJRT_Client_Devices", unsafe.Pointer(args)); e != nil {
		return nil, e
	}
	var out []Device
	for _, d := range unsafe.Slice(args.devices, int(args.num_devices)) {
		out = append(out, Device{unsafe.Pointer(d)})
	}
	return out, nil
}

// DeviceInfo collects a device's description.
type DeviceInfo struct {
	ID, ProcessIndex, LocalHardwareID int
	Kind, Debug, String               string
	Attributes                        map[string]int64
}

// Describe reads a device's description through the API.
func (a *API) Describe(d Device) (DeviceInfo, *Err) {
	var info DeviceInfo
	g := alloc[C.PJRT_Device_GetDescription_Args]()
	defer free(g)
	g.struct_size = C.PJRT_Device_GetDescription_Args_STRUCT_SIZE
	g.device = d.p()
	if e := a.Call("PJRT_Device_GetDescription", unsafe.Pointer(g)); e != nil {
		return info, e
	}
	desc := g.device_description
	id := alloc[C.PJRT_DeviceDescription_Id_Args]()
	defer free(id)
	id.struct_size = C.PJRT_DeviceDescription_Id_Args_STRUCT_SIZE
	id.device_description = desc
	if e := a.Call("PJRT_DeviceDescription_Id", unsafe.Pointer(id)); e != nil {
		return info, e
	}
	info.ID = int(id.id)
	pi := alloc[C.PJRT_DeviceDescription_ProcessIndex_Args]()
	defer free(pi)
	pi.struct_size = C.PJRT_DeviceDescription_ProcessIndex_Args_STRUCT_SIZE
	pi.device_description = desc
	if e := a.Call("PJRT_DeviceDescription_ProcessIndex", unsafe.Pointer(pi)); e != nil {
		return info, e
	}
	info.ProcessIndex = int(pi.process_index)
	k := alloc[C.PJRT_DeviceDescription_Kind_Args]()
	defer free(k)
	k.struct_size = C.PJRT_DeviceDescription_Kind_Args_STRUCT_SIZE
	k.device_description = desc
	if e := a.Call("PJRT_DeviceDescription_Kind", unsafe.Pointer(k)); e != nil {
		return info, e
	}
	info.Kind = C.GoStringN(k.device_kind, C.int(k.device_kind_size))
	ds := alloc[C.PJRT_DeviceDescription_DebugString_Args]()
	defer free(ds)
	ds.struct_size = C.PJRT_DeviceDescription_DebugString_Args_STRUCT_SIZE
	ds.device_description = desc
	if e := a.Call("PJRT_DeviceDescription_DebugString", unsafe.Pointer(ds)); e != nil {
		return info, e
	}
	info.Debug = C.GoStringN(ds.debug_string, C.int(ds.debug_string_size))
	ts := alloc[C.PJRT_DeviceDescription_ToString_Args]()
	defer free(ts)
	ts.struct_size = C.PJRT_DeviceDescription_ToString_Args_STRUCT_SIZE
	ts.device_description = desc
	if e := a.Call("PJRT_DeviceDescription_ToString", unsafe.Pointer(ts)); e != nil {
		return info, e
	}
	info.String = C.GoStringN(ts.to_string, C.int(ts.to_string_size))
	at := alloc[C.PJRT_DeviceDescription_Attributes_Args]()
	defer free(at)
	at.struct_size = C.PJRT_DeviceDescription_Attributes_Args_STRUCT_SIZE
	at.device_description = desc
	if e := a.Call("PJRT_DeviceDescription_Attributes", unsafe.Pointer(at)); e != nil {
		return info, e
	}
	info.Attributes = map[string]int64{}
	for _, nv := range unsafe.Slice(at.attributes, int(at.num_attributes)) {
		info.Attributes[C.GoStringN(nv.name, C.int(nv.name_size))] = int64(C.nv_int64(&nv))
	}
	lh := alloc[C.PJRT_Device_LocalHardwareId_Args]()
	defer free(lh)
	lh.struct_size = C.PJRT_Device_LocalHardwareId_Args_STRUCT_SIZE
	lh.device = d.p()
	if e := a.Call("PJRT_Device_LocalHardwareId", unsafe.Pointer(lh)); e != nil {
		return info, e
	}
	info.LocalHardwareID = int(lh.local_hardware_id)
	return info, nil
}

// DefaultMemory of a device.
func (a *API) DefaultMemory(d Device) (Memory, *Err) {
	args := alloc[C.PJRT_Device_DefaultMemory_Args]()
	defer free(args)
	args.struct_size = C.PJRT_Device_DefaultMemory_Args_STRUCT_SIZE
	args.device = d.p()
	if e := a.Call("PJRT_Device_DefaultMemory", unsafe.Pointer(args)); e != nil {
		return Memory{}, e
	}
	return Memory{unsafe.Pointer(args.memory)}, nil
}

// DeviceMemories lists a device's addressable memories.
func (a *API) DeviceMemories(d Device) ([]Memory, *Err) {
	args := alloc[C.PJRT_Device_AddressableMemories_Args]()
	defer free(args)
	args.struct_size = C.PJRT_Device_AddressableMemories_Args_STRUCT_SIZE
	args.device = d.p()
	if e := a.Call("PJRT_Device_AddressableMemories", unsafe.Pointer(args)); e != nil {
		return nil, e
	}
	var out []Memory
	for _, m := range unsafe.Slice(args.memories, int(args.num_memories)) {
		out = append(out, Memory{unsafe.Pointer(m)})
	}
	return out, nil
}

// ClientMemories lists a client's addressable memories.
func (a *API) ClientMemories(c Client) ([]Memory, *Err) {
	args := alloc[C.PJRT_Client_AddressableMemories_Args]()
	defer free(args)
	args.struct_size = C.PJRT_Client_AddressableMemories_Args_STRUCT_SIZE
	args.client = c.p()
	if e := a.Call("PJRT_Client_AddressableMemories", unsafe.Pointer(args)); e != nil {
		return nil, e
	}
	var out []Memory
	for _, m := range unsafe.Slice(args.addressable_memories, int(args.num_addressable_memories)) {
		out = append(out, Memory{unsafe.Pointer(m)})
	}
	return out, nil
}

// CopyToMemory calls PJRT_Buffer_CopyToMemory.
func (a *API) CopyToMemory(b Buffer, m Memory) (Buffer, *Err) {
	args := alloc[C.PJRT_Buffer_CopyToMemory_Args]()
	defer free(args)
	args.struct_size = C.PJRT_Buffer_CopyToMemory_Args_STRUCT_SIZE
	args.buffer = b.p()
	args.dst_memory = m.p()
	e := a.Call("PJRT_Buffer_CopyToMemory", unsafe.Pointer(args))
	return Buffer{unsafe.Pointer(args.dst_buffer)}, e
}

// MemoryInfo describes a memory space.
type MemoryInfo struct {
	ID          int
	Kind        string
	KindID      int
	Devices     []Device
	VtableSize  int
	Debug, Name string
}

// DescribeMemory reads a memory space through the API.
func (a *API) DescribeMemory(m Memory) (MemoryInfo, *Err) {
	var info MemoryInfo
	id := alloc[C.PJRT_Memory_Id_Args]()
	defer free(id)
	id.struct_size = C.PJRT_Memory_Id_Args_STRUCT_SIZE
	id.memory = m.p()
	if e := a.Call("PJRT_Memory_Id", unsafe.Pointer(id)); e != nil {
		return info, e
	}
	info.ID = int(id.id)
	k := alloc[C.PJRT_Memory_Kind_Args]()
	defer free(k)
	k.struct_size = C.PJRT_Memory_Kind_Args_STRUCT_SIZE
	k.memory = m.p()
	if e := a.Call("PJRT_Memory_Kind", unsafe.Pointer(k)); e != nil {
		return info, e
	}
	info.Kind = C.GoStringN(k.kind, C.int(k.kind_size))
	ki := alloc[C.PJRT_Memory_Kind_Id_Args]()
	defer free(ki)
	ki.struct_size = C.PJRT_Memory_Kind_Id_Args_STRUCT_SIZE
	ki.memory = m.p()
	if e := a.Call("PJRT_Memory_Kind_Id", unsafe.Pointer(ki)); e != nil {
		return info, e
	}
	info.KindID = int(ki.kind_id)
	ab := alloc[C.PJRT_Memory_AddressableByDevices_Args]()
	defer free(ab)
	ab.struct_size = C.PJRT_Memory_AddressableByDevices_Args_STRUCT_SIZE
	ab.memory = m.p()
	if e := a.Call("PJRT_Memory_AddressableByDevices", unsafe.Pointer(ab)); e != nil {
		return info, e
	}
	for _, d := range unsafe.Slice(ab.devices, int(ab.num_devices)) {
		info.Devices = append(info.Devices, Device{unsafe.Pointer(d)})
	}
	ds := alloc[C.PJRT_Memory_DebugString_Args]()
	defer free(ds)
	ds.struct_size = C.PJRT_Memory_DebugString_Args_STRUCT_SIZE
	ds.memory = m.p()
	if e := a.Call("PJRT_Memory_DebugString", unsafe.Pointer(ds)); e != nil {
		return info, e
	}
	info.Debug = C.GoStringN(ds.debug_string, C.int(ds.debug_string_size))
	ts := alloc[C.PJRT_Memory_ToString_Args]()
	defer free(ts)
	ts.struct_size = C.PJRT_Memory_ToString_Args_STRUCT_SIZE
	ts.memory = m.p()
	if e := a.Call("PJRT_Memory_ToString", unsafe.Pointer(ts)); e != nil {
		return info, e
	}
	info.Name = C.GoStringN(ts.to_string, C.int(ts.to_string_size))
	info.VtableSize = int(C.mem_vt_size(m.p()))
	return info, nil
}

// MemoryUserData exercises the memory vtable: set key→value, read it back,
// replace it (running the old destructor) and return the destructor count.
func MemoryUserData(m Memory, key, other, v1, v2 unsafe.Pointer) (got1, got2, missing unsafe.Pointer, dtors int) {
	C.mem_set(m.p(), key, v1)
	got1 = C.mem_get(m.p(), key)
	C.mem_set(m.p(), key, v2)
	got2 = C.mem_get(m.p(), key)
	missing = C.mem_get(m.p(), other)
	return got1, got2, missing, int(C.get_dtor_calls())
}

// DtorCalls is the number of memory user-data destructor calls so far.
func DtorCalls() int { return int(C.get_dtor_calls()) }

// PluginAttributes returns int64 and int64-list attributes.
func (a *API) PluginAttributes() (map[string][]int64, *Err) {
	args := alloc[C.PJRT_Plugin_Attributes_Args]()
	defer free(args)
	args.struct_size = C.PJRT_Plugin_Attributes_Args_STRUCT_SIZE
	if e := a.Call("PJRT_Plugin_Attributes", unsafe.Pointer(args)); e != nil {
		return nil, e
	}
	out := map[string][]int64{}
	for _, nv := range unsafe.Slice(args.attributes, int(args.num_attributes)) {
		name := C.GoStringN(nv.name, C.int(nv.name_size))
		switch nv._type {
		case C.PJRT_NamedValue_kInt64:
			out[name] = []int64{int64(C.nv_int64(&nv))}
		case C.PJRT_NamedValue_kInt64List:
			out[name] = append([]int64(nil), unsafe.Slice((*int64)(unsafe.Pointer(C.nv_list(&nv))), int(nv.value_size))...)
		}
	}
	return out, nil
}

// FromHost calls PJRT_Client_BufferFromHostBuffer. data must be C memory.
func (a *API) FromHost(c Client, m Memory, data unsafe.Pointer, typ int, dims, strides []int64, sem int) (Buffer, Event, *Err) {
	args := alloc[C.PJRT_Client_BufferFromHostBuffer_Args]()
	defer free(args)
	args.struct_size = C.PJRT_Client_BufferFromHostBuffer_Args_STRUCT_SIZE
	args.client = c.p()
	args.data = data
	args._type = C.PJRT_Buffer_Type(typ)
	args.dims, args.num_dims = cInt64s(dims), C.size_t(len(dims))
	defer C.free(unsafe.Pointer(args.dims))
	args.byte_strides, args.num_byte_strides = cInt64s(strides), C.size_t(len(strides))
	defer C.free(unsafe.Pointer(args.byte_strides))
	args.host_buffer_semantics = C.PJRT_HostBufferSemantics(sem)
	args.memory = m.p()
	if e := a.Call("PJRT_Client_BufferFromHostBuffer", unsafe.Pointer(args)); e != nil {
		return Buffer{}, Event{}, e
	}
	return Buffer{unsafe.Pointer(args.buffer)}, Event{unsafe.Pointer(args.done_with_host_buffer)}, nil
}

// BufferInfo is what the framework asks about a buffer right after creating it.
type BufferInfo struct {
	Type          int
	Dims          []int64
	MinorToMajor  []int64
	Tiles         int
	Size          int
	OnCpu         bool
	Device        Device
	Memory        Memory
	DynamicDims   int
	UnpaddedDims  []int64
	IsDeleted     bool
	UnsafePointer uintptr
}

// DescribeBuffer queries a buffer through the API.
func (a *API) DescribeBuffer(b Buffer) (BufferInfo, *Err) {
	var info BufferInfo
	et := alloc[C.PJRT_Buffer_ElementType_Args]()
	defer free(et)
	et.struct_size = C.PJRT_Buffer_ElementType_Args_STRUCT_SIZE
	et.buffer = b.p()
	if e := a.Call("PJRT_Buffer_ElementType", unsafe.Pointer(et)); e != nil {
		return info, e
	}
	info.Type = int(et._type)
	dm := alloc[C.PJRT_Buffer_Dimensions_Args]()
	defer free(dm)
	dm.struct_size = C.PJRT_Buffer_Dimensions_Args_STRUCT_SIZE
	dm.buffer = b.p()
	if e := a.Call("PJRT_Buffer_Dimensions", unsafe.Pointer(dm)); e != nil {
		return info, e
	}
	info.Dims = append([]int64{}, unsafe.Slice((*int64)(unsafe.Pointer(dm.dims)), int(dm.num_dims))...)
	ud := alloc[C.PJRT_Buffer_UnpaddedDimensions_Args]()
	defer free(ud)
	ud.struct_size = C.PJRT_Buffer_UnpaddedDimensions_Args_STRUCT_SIZE
	ud.buffer = b.p()
	if e := a.Call("PJRT_Buffer_UnpaddedDimensions", unsafe.Pointer(ud)); e != nil {
		return info, e
	}
	info.UnpaddedDims = append([]int64{}, unsafe.Slice((*int64)(unsafe.Pointer(ud.unpadded_dims)), int(ud.num_dims))...)
	dd := alloc[C.PJRT_Buffer_DynamicDimensionIndices_Args]()
	defer free(dd)
	dd.struct_size = C.PJRT_Buffer_DynamicDimensionIndices_Args_STRUCT_SIZE
	dd.buffer = b.p()
	if e := a.Call("PJRT_Buffer_DynamicDimensionIndices", unsafe.Pointer(dd)); e != nil {
		return info, e
	}
	info.DynamicDims = int(dd.num_dynamic_dims)
	ly := alloc[C.PJRT_Buffer_GetMemoryLayout_Args]()
	defer free(ly)
	ly.struct_size = C.PJRT_Buffer_GetMemoryLayout_Args_STRUCT_SIZE
	ly.buffer = b.p()
	if e := a.Call("PJRT_Buffer_GetMemoryLayout", unsafe.Pointer(ly)); e != nil {
		return info, e
	}
	var n, tiles C.size_t
	m2m := C.layout_m2m(&ly.layout, &n, &tiles)
	info.MinorToMajor = append([]int64{}, unsafe.Slice((*int64)(unsafe.Pointer(m2m)), int(n))...)
	info.Tiles = int(tiles)
	sz := alloc[C.PJRT_Buffer_OnDeviceSizeInBytes_Args]()
	defer free(sz)
	sz.struct_size = C.PJRT_Buffer_OnDeviceSizeInBytes_Args_STRUCT_SIZE
	sz.buffer = b.p()
	if e := a.Call("PJRT_Buffer_OnDeviceSizeInBytes", unsafe.Pointer(sz)); e != nil {
		return info, e
	}
	info.Size = int(sz.on_device_size_in_bytes)
	oc := alloc[C.PJRT_Buffer_IsOnCpu_Args]()
	defer free(oc)
	oc.struct_size = C.PJRT_Buffer_IsOnCpu_Args_STRUCT_SIZE
	oc.buffer = b.p()
	if e := a.Call("PJRT_Buffer_IsOnCpu", unsafe.Pointer(oc)); e != nil {
		return info, e
	}
	info.OnCpu = bool(oc.is_on_cpu)
	dv := alloc[C.PJRT_Buffer_Device_Args]()
	defer free(dv)
	dv.struct_size = C.PJRT_Buffer_Device_Args_STRUCT_SIZE
	dv.buffer = b.p()
	if e := a.Call("PJRT_Buffer_Device", unsafe.Pointer(dv)); e != nil {
		return info, e
	}
	info.Device = Device{unsafe.Pointer(dv.device)}
	mm := alloc[C.PJRT_Buffer_Memory_Args]()
	defer free(mm)
	mm.struct_size = C.PJRT_Buffer_Memory_Args_STRUCT_SIZE
	mm.buffer = b.p()
	if e := a.Call("PJRT_Buffer_Memory", unsafe.Pointer(mm)); e != nil {
		return info, e
	}
	info.Memory = Memory{unsafe.Pointer(mm.memory)}
	del, e := a.IsDeleted(b)
	if e != nil {
		return info, e
	}
	info.IsDeleted = del
	if !del {
		up := alloc[C.PJRT_Buffer_UnsafePointer_Args]()
		defer free(up)
		up.struct_size = C.PJRT_Buffer_UnsafePointer_Args_STRUCT_SIZE
		up.buffer = b.p()
		if e := a.Call("PJRT_Buffer_UnsafePointer", unsafe.Pointer(up)); e != nil {
			return info, e
		}
		info.UnsafePointer = uintptr(up.buffer_pointer)
	}
	return info, nil
}

// IsDeleted calls PJRT_Buffer_IsDeleted.
func (a *API) IsDeleted(b Buffer) (bool, *Err) {
	args := alloc[C.PJRT_Buffer_IsDeleted_Args]()
	defer free(args)
	args.struct_size = C.PJRT_Buffer_IsDeleted_Args_STRUCT_SIZE
	args.buffer = b.p()
	e := a.Call("PJRT_Buffer_IsDeleted", unsafe.Pointer(args))
	return bool(args.is_deleted), e
}

// BufferCall calls a slot whose args are {struct_size, ext, buffer}.
func (a *API) BufferCall(name string, b Buffer) *Err {
	args := alloc[C.PJRT_Buffer_Delete_Args]()
	defer free(args)
	args.struct_size = C.PJRT_Buffer_Delete_Args_STRUCT_SIZE
	args.buffer = b.p()
	return a.Call(name, unsafe.Pointer(args))
}

// DataPointer calls PJRT_Buffer_OpaqueDeviceMemoryDataPointer.
func (a *API) DataPointer(b Buffer) (unsafe.Pointer, *Err) {
	args := alloc[C.PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args]()
	defer free(args)
	args.struct_size = C.PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args_STRUCT_SIZE
	args.buffer = b.p()
	e := a.Call("PJRT_Buffer_OpaqueDeviceMemoryDataPointer", unsafe.Pointer(args))
	return args.device_memory_ptr, e
}

// ToHost copies a buffer into C memory dst (nil → size query), with optional
// host byte strides; it returns the event (0 for a size query) and the size.
func (a *API) ToHost(b Buffer, dst unsafe.Pointer, size int, strides []int64) (Event, int, *Err) {
	args := alloc[C.PJRT_Buffer_ToHostBuffer_Args]()
	defer free(args)
	args.struct_size = C.PJRT_Buffer_ToHostBuffer_Args_STRUCT_SIZE
	args.src = b.p()
	args.dst, args.dst_size = dst, C.size_t(size)
	if strides != nil {
		l := alloc[C.PJRT_Buffer_MemoryLayout]()
		defer free(l)
		s := cInt64s(strides)
		defer C.free(unsafe.Pointer(s))
		C.layout_strides(l, s, C.size_t(len(strides)))
		args.host_layout = l
	}
	if e := a.Call("PJRT_Buffer_ToHostBuffer", unsafe.Pointer(args)); e != nil {
		return Event{}, 0, e
	}
	return Event{unsafe.Pointer(args.event)}, int(args.dst_size), nil
}

// ReadyEvent calls PJRT_Buffer_ReadyEvent.
func (a *API) ReadyEvent(b Buffer) (Event, *Err) {
	args := alloc[C.PJRT_Buffer_ReadyEvent_Args]()
	defer free(args)
	args.struct_size = C.PJRT_Buffer_ReadyEvent_Args_STRUCT_SIZE
	args.buffer = b.p()
	e := a.Call("PJRT_Buffer_ReadyEvent", unsafe.Pointer(args))
	return Event{unsafe.Pointer(args.event)}, e
}

// CopyToDevice calls PJRT_Buffer_CopyToDevice.
func (a *API) CopyToDevice(b Buffer, d Device) (Buffer, *Err) {
	args := alloc[C.PJRT_Buffer_CopyToDevice_Args]()
	defer free(args)
	args.struct_size = C.PJRT_Buffer_CopyToDevice_Args_STRUCT_SIZE
	args.buffer = b.p()
	args.dst_device = d.p()
	e := a.Call("PJRT_Buffer_CopyToDevice", unsafe.Pointer(args))
	return Buffer{unsafe.Pointer(args.dst_buffer)}, e
}

// View calls PJRT_Client_CreateViewOfDeviceBuffer with a counting on-delete
// callback; *deleted counts calls (it must be C memory: use NewCounter).
func (a *API) View(c Client, m Memory, ptr unsafe.Pointer, typ int, dims []int64, counter *Counter) (Buffer, *Err) {
	args := alloc[C.PJRT_Client_CreateViewOfDeviceBuffer_Args]()
	defer free(args)
	args.struct_size = C.PJRT_Client_CreateViewOfDeviceBuffer_Args_STRUCT_SIZE
	args.client = c.p()
	args.device_buffer_ptr = ptr
	args.dims, args.num_dims = cInt64s(dims), C.size_t(len(dims))
	defer C.free(unsafe.Pointer(args.dims))
	args.element_type = C.PJRT_Buffer_Type(typ)
	args.memory = m.p()
	args.on_delete_callback = (*[0]byte)(C.on_delete_fn())
	args.on_delete_callback_arg = unsafe.Pointer(counter)
	e := a.Call("PJRT_Client_CreateViewOfDeviceBuffer", unsafe.Pointer(args))
	return Buffer{unsafe.Pointer(args.buffer)}, e
}

// Counter is a C int the on-delete callback increments.
type Counter C.int

// NewCounter allocates a counter in C memory.
func NewCounter() *Counter { return (*Counter)(alloc[C.int]()) }

// Value reads the counter.
func (c *Counter) Value() int { return int(*(*C.int)(c)) }

// Compile calls PJRT_Client_Compile with the given format and code.
func (a *API) Compile(c Client, format string, code []byte) *Err {
	x, e := a.CompileExec(c, format, code, nil)
	if e == nil {
		a.DestroyLoaded(x)
	}
	return e
}

// Loaded is a PJRT_LoadedExecutable handle.
type Loaded struct{ ptr unsafe.Pointer }

func (l Loaded) p() *C.PJRT_LoadedExecutable { return (*C.PJRT_LoadedExecutable)(l.ptr) }

// CompileExec compiles and returns the loaded executable.
func (a *API) CompileExec(c Client, format string, code, options []byte) (Loaded, *Err) {
	prog := alloc[C.PJRT_Program]()
	defer free(prog)
	prog.struct_size = C.PJRT_Program_STRUCT_SIZE
	cf := C.CString(format)
	defer C.free(unsafe.Pointer(cf))
	prog.format, prog.format_size = cf, C.size_t(len(format))
	if len(code) > 0 {
		cc := C.CBytes(code)
		defer C.free(cc)
		prog.code, prog.code_size = (*C.char)(cc), C.size_t(len(code))
	}
	args := alloc[C.PJRT_Client_Compile_Args]()
	defer free(args)
	args.struct_size = C.PJRT_Client_Compile_Args_STRUCT_SIZE
	args.client = c.p()
	args.program = prog
	if len(options) > 0 {
		co := C.CBytes(options)
		defer C.free(co)
		args.compile_options, args.compile_options_size = (*C.char)(co), C.size_t(len(options))
	}
	if e := a.Call("PJRT_Client_Compile", unsafe.Pointer(args)); e != nil {
		return Loaded{}, e
	}
	return Loaded{unsafe.Pointer(args.executable)}, nil
}

// DestroyLoaded calls PJRT_LoadedExecutable_Destroy.
func (a *API) DestroyLoaded(x Loaded) *Err {
	args := alloc[C.PJRT_LoadedExecutable_Destroy_Args]()
	defer free(args)
	args.struct_size = C.PJRT_LoadedExecutable_Destroy_Args_STRUCT_SIZE
	args.executable = x.p()
	return a.Call("PJRT_LoadedExecutable_Destroy", unsafe.Pointer(args))
}

// ExecInfo is what the framework reads after compiling.
type ExecInfo struct {
	Name                 string
	NumOutputs           int
	NumReplicas          int
	NumPartitions        int
	OutputTypes          []int
	OutputDims           [][]int64
	OutputKinds          []string
	ParameterKinds       []string
	Fingerprint          string
	AddressableDevices   []Device
	LogicalIDs           [][2]int
	DeviceAssignment     []byte
	SerializedExecutable []byte
	CompileOptions       []byte
}

// CostAnalysis calls PJRT_Executable_GetCostAnalysis on the loaded
// executable's PJRT_Executable and returns its float properties; a
// property of another type is an error.
func (a *API) CostAnalysis(x Loaded) (map[string]float32, *Err) {
	ge := alloc[C.PJRT_LoadedExecutable_GetExecutable_Args]()
	defer free(ge)
	ge.struct_size = C.PJRT_LoadedExecutable_GetExecutable_Args_STRUCT_SIZE
	ge.loaded_executable = x.p()
	if e := a.Call("PJRT_LoadedExecutable_GetExecutable", unsafe.Pointer(ge)); e != nil {
		return nil, e
	}
	defer func() {
		d := alloc[C.PJRT_Executable_Destroy_Args]()
		defer free(d)
		d.struct_size = C.PJRT_Executable_Destroy_Args_STRUCT_SIZE
		d.executable = ge.executable
		a.Call("PJRT_Executable_Destroy", unsafe.Pointer(d))
	}()
	args := alloc[C.PJRT_Executable_GetCostAnalysis_Args]()
	defer free(args)
	args.struct_size = C.PJRT_Executable_GetCostAnalysis_Args_STRUCT_SIZE
	args.executable = ge.executable
	if e := a.Call("PJRT_Executable_GetCostAnalysis", unsafe.Pointer(args)); e != nil {
		return nil, e
	}
	out := map[string]float32{}
	for _, nv := range unsafe.Slice(args.properties, int(args.num_properties)) {
		name := C.GoStringN(nv.name, C.int(nv.name_size))
		if nv._type != C.PJRT_NamedValue_kFloat || nv.value_size != 1 {
			return nil, &Err{Msg: fmt.Sprintf("cost property %q has type %d, size %d", name, nv._type, nv.value_size)}
		}
		out[name] = float32(C.nv_float(&nv))
	}
	return out, nil
}

// DescribeExec queries a loaded executable (and its PJRT_Executable).
func (a *API) DescribeExec(x Loaded) (ExecInfo, *Err) {
	var info ExecInfo
	ge := alloc[C.PJRT_LoadedExecutable_GetExecutable_Args]()
	defer free(ge)
	ge.struct_size = C.PJRT_LoadedExecutable_GetExecutable_Args_STRUCT_SIZE
	ge.loaded_executable = x.p()
	if e := a.Call("PJRT_LoadedExecutable_GetExecutable", unsafe.Pointer(ge)); e != nil {
		return info, e
	}
	ex := ge.executable
	defer func() {
		d := alloc[C.PJRT_Executable_Destroy_Args]()
		defer free(d)
		d.struct_size = C.PJRT_Executable_Destroy_Args_STRUCT_SIZE
		d.executable = ex
		a.Call("PJRT_Executable_Destroy", unsafe.Pointer(d))
	}()
	nm := alloc[C.PJRT_Executable_Name_Args]()
	defer free(nm)
	nm.struct_size = C.PJRT_Executable_Name_Args_STRUCT_SIZE
	nm.executable = ex
	if e := a.Call("PJRT_Executable_Name", unsafe.Pointer(nm)); e != nil {
		return info, e
	}
	info.Name = C.GoStringN(nm.executable_name, C.int(nm.executable_name_size))
	no := alloc[C.PJRT_Executable_NumOutputs_Args]()
	defer free(no)
	no.struct_size = C.PJRT_Executable_NumOutputs_Args_STRUCT_SIZE
	no.executable = ex
	if e := a.Call("PJRT_Executable_NumOutputs", unsafe.Pointer(no)); e != nil {
		return info, e
	}
	info.NumOutputs = int(no.num_outputs)
	nr := alloc[C.PJRT_Executable_NumReplicas_Args]()
	defer free(nr)
	nr.struct_size = C.PJRT_Executable_NumReplicas_Args_STRUCT_SIZE
	nr.executable = ex
	if e := a.Call("PJRT_Executable_NumReplicas", unsafe.Pointer(nr)); e != nil {
		return info, e
	}
	info.NumReplicas = int(nr.num_replicas)
	np := alloc[C.PJRT_Executable_NumPartitions_Args]()
	defer free(np)
	np.struct_size = C.PJRT_Executable_NumPartitions_Args_STRUCT_SIZE
	np.executable = ex
	if e := a.Call("PJRT_Executable_NumPartitions", unsafe.Pointer(np)); e != nil {
		return info, e
	}
	info.NumPartitions = int(np.num_partitions)
	ot := alloc[C.PJRT_Executable_OutputElementTypes_Args]()
	defer free(ot)
	ot.struct_size = C.PJRT_Executable_OutputElementTypes_Args_STRUCT_SIZE
	ot.executable = ex
	if e := a.Call("PJRT_Executable_OutputElementTypes", unsafe.Pointer(ot)); e != nil {
		return info, e
	}
	for _, t := range unsafe.Slice(ot.output_types, int(ot.num_output_types)) {
		info.OutputTypes = append(info.OutputTypes, int(t))
	}
	od := alloc[C.PJRT_Executable_OutputDimensions_Args]()
	defer free(od)
	od.struct_size = C.PJRT_Executable_OutputDimensions_Args_STRUCT_SIZE
	od.executable = ex
	if e := a.Call("PJRT_Executable_OutputDimensions", unsafe.Pointer(od)); e != nil {
		return info, e
	}
	sizes := unsafe.Slice(od.dim_sizes, int(od.num_outputs))
	total := 0
	for _, n := range sizes {
		total += int(n)
	}
	flat := unsafe.Slice((*int64)(unsafe.Pointer(od.dims)), total)
	for _, n := range sizes {
		info.OutputDims = append(info.OutputDims, append([]int64{}, flat[:n]...))
		flat = flat[n:]
	}
	mk := alloc[C.PJRT_Executable_OutputMemoryKinds_Args]()
	defer free(mk)
	mk.struct_size = C.PJRT_Executable_OutputMemoryKinds_Args_STRUCT_SIZE
	mk.executable = ex
	if e := a.Call("PJRT_Executable_OutputMemoryKinds", unsafe.Pointer(mk)); e != nil {
		return info, e
	}
	ks := unsafe.Slice(mk.memory_kind_sizes, int(mk.num_outputs))
	for i, k := range unsafe.Slice(mk.memory_kinds, int(mk.num_outputs)) {
		info.OutputKinds = append(info.OutputKinds, C.GoStringN(k, C.int(ks[i])))
	}
	pk := alloc[C.PJRT_Executable_ParameterMemoryKinds_Args]()
	defer free(pk)
	pk.struct_size = C.PJRT_Executable_ParameterMemoryKinds_Args_STRUCT_SIZE
	pk.executable = ex
	if e := a.Call("PJRT_Executable_ParameterMemoryKinds", unsafe.Pointer(pk)); e != nil {
		return info, e
	}
	pks := unsafe.Slice(pk.memory_kind_sizes, int(pk.num_parameters))
	for i, k := range unsafe.Slice(pk.memory_kinds, int(pk.num_parameters)) {
		info.ParameterKinds = append(info.ParameterKinds, C.GoStringN(k, C.int(pks[i])))
	}
	fp := alloc[C.PJRT_Executable_Fingerprint_Args]()
	defer free(fp)
	fp.struct_size = C.PJRT_Executable_Fingerprint_Args_STRUCT_SIZE
	fp.executable = ex
	if e := a.Call("PJRT_Executable_Fingerprint", unsafe.Pointer(fp)); e != nil {
		return info, e
	}
	info.Fingerprint = C.GoStringN(fp.executable_fingerprint, C.int(fp.executable_fingerprint_size))
	ad := alloc[C.PJRT_LoadedExecutable_AddressableDevices_Args]()
	defer free(ad)
	ad.struct_size = C.PJRT_LoadedExecutable_AddressableDevices_Args_STRUCT_SIZE
	ad.executable = x.p()
	if e := a.Call("PJRT_LoadedExecutable_AddressableDevices", unsafe.Pointer(ad)); e != nil {
		return info, e
	}
	for _, d := range unsafe.Slice(ad.addressable_devices, int(ad.num_addressable_devices)) {
		info.AddressableDevices = append(info.AddressableDevices, Device{unsafe.Pointer(d)})
	}
	li := alloc[C.PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args]()
	defer free(li)
	li.struct_size = C.PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args_STRUCT_SIZE
	li.executable = x.p()
	if e := a.Call("PJRT_LoadedExecutable_AddressableDeviceLogicalIds", unsafe.Pointer(li)); e != nil {
		return info, e
	}
	for _, l := range unsafe.Slice(li.addressable_device_logical_ids, int(li.num_addressable_device_logical_ids)) {
		info.LogicalIDs = append(info.LogicalIDs, [2]int{int(l.replica), int(l.partition)})
	}
	da := alloc[C.PJRT_LoadedExecutable_GetDeviceAssignment_Args]()
	defer free(da)
	da.struct_size = C.PJRT_LoadedExecutable_GetDeviceAssignment_Args_STRUCT_SIZE
	da.executable = x.p()
	if e := a.Call("PJRT_LoadedExecutable_GetDeviceAssignment", unsafe.Pointer(da)); e != nil {
		return info, e
	}
	info.DeviceAssignment = C.GoBytes(unsafe.Pointer(da.serialized_bytes), C.int(da.serialized_bytes_size))
	C.call_deleter(unsafe.Pointer(da.serialized_device_assignment_deleter), unsafe.Pointer(da.serialized_device_assignment))
	se := alloc[C.PJRT_Executable_Serialize_Args]()
	defer free(se)
	se.struct_size = C.PJRT_Executable_Serialize_Args_STRUCT_SIZE
	se.executable = ex
	if e := a.Call("PJRT_Executable_Serialize", unsafe.Pointer(se)); e != nil {
		return info, e
	}
	info.SerializedExecutable = C.GoBytes(unsafe.Pointer(se.serialized_bytes), C.int(se.serialized_bytes_size))
	C.call_deleter(unsafe.Pointer(se.serialized_executable_deleter), unsafe.Pointer(se.serialized_executable))
	co := alloc[C.PJRT_Executable_GetCompileOptions_Args]()
	defer free(co)
	co.struct_size = C.PJRT_Executable_GetCompileOptions_Args_STRUCT_SIZE
	co.executable = ex
	if e := a.Call("PJRT_Executable_GetCompileOptions", unsafe.Pointer(co)); e != nil {
		return info, e
	}
	info.CompileOptions = C.GoBytes(unsafe.Pointer(co.serialized_bytes), C.int(co.serialized_bytes_size))
	C.call_deleter(unsafe.Pointer(co.serialized_compile_options_deleter), unsafe.Pointer(co.serialized_compile_options))
	return info, nil
}

// Deserialize calls PJRT_Executable_DeserializeAndLoad.
func (a *API) Deserialize(c Client, data []byte) (Loaded, *Err) {
	args := alloc[C.PJRT_Executable_DeserializeAndLoad_Args]()
	defer free(args)
	args.struct_size = C.PJRT_Executable_DeserializeAndLoad_Args_STRUCT_SIZE
	args.client = c.p()
	d := C.CBytes(data)
	defer C.free(d)
	args.serialized_executable, args.serialized_executable_size = (*C.char)(d), C.size_t(len(data))
	if e := a.Call("PJRT_Executable_DeserializeAndLoad", unsafe.Pointer(args)); e != nil {
		return Loaded{}, e
	}
	return Loaded{unsafe.Pointer(args.loaded_executable)}, nil
}

// Execute runs x with one argument list per device and returns the outputs
// and the completion events.
func (a *API) Execute(x Loaded, argLists [][]Buffer, numOutputs int, nonDonatable []int64) ([][]Buffer, []Event, *Err) {
	return a.execute(x, argLists, numOutputs, nonDonatable, nil)
}

// execute runs x, with an execute context when ctx is not nil.
func (a *API) execute(x Loaded, argLists [][]Buffer, numOutputs int, nonDonatable []int64, ctx *C.PJRT_ExecuteContext) ([][]Buffer, []Event, *Err) {
	nd := len(argLists)
	na := 0
	if nd > 0 {
		na = len(argLists[0])
	}
	lists := (**C.PJRT_Buffer)(C.calloc(C.size_t(nd+1), 8))
	defer C.free(unsafe.Pointer(lists))
	outs := (**C.PJRT_Buffer)(C.calloc(C.size_t(nd+1), 8))
	defer C.free(unsafe.Pointer(outs))
	ls, os := unsafe.Slice(lists, nd), unsafe.Slice(outs, nd)
	for d, list := range argLists {
		arr := (*C.PJRT_Buffer)(C.calloc(C.size_t(na+1), 8))
		defer C.free(unsafe.Pointer(arr))
		for i, b := range list {
			unsafe.Slice((**C.PJRT_Buffer)(unsafe.Pointer(arr)), na)[i] = b.p()
		}
		*(**C.PJRT_Buffer)(unsafe.Pointer(&ls[d])) = (*C.PJRT_Buffer)(unsafe.Pointer(arr))
		oarr := C.calloc(C.size_t(numOutputs+1), 8)
		defer C.free(oarr)
		*(*unsafe.Pointer)(unsafe.Pointer(&os[d])) = oarr
	}
	evs := (**C.PJRT_Event)(C.calloc(C.size_t(nd+1), 8))
	defer C.free(unsafe.Pointer(evs))
	opts := alloc[C.PJRT_ExecuteOptions]()
	defer free(opts)
	opts.struct_size = C.PJRT_ExecuteOptions_STRUCT_SIZE
	if len(nonDonatable) > 0 {
		nd := cInt64s(nonDonatable)
		defer C.free(unsafe.Pointer(nd))
		opts.non_donatable_input_indices, opts.num_non_donatable_input_indices = nd, C.size_t(len(nonDonatable))
	}
	opts.context = ctx
	args := alloc[C.PJRT_LoadedExecutable_Execute_Args]()
	defer free(args)
	args.struct_size = C.PJRT_LoadedExecutable_Execute_Args_STRUCT_SIZE
	args.executable = x.p()
	args.options = opts
	args.argument_lists = (***C.PJRT_Buffer)(unsafe.Pointer(lists))
	args.num_devices, args.num_args = C.size_t(nd), C.size_t(na)
	args.output_lists = (***C.PJRT_Buffer)(unsafe.Pointer(outs))
	args.device_complete_events = evs
	if e := a.Call("PJRT_LoadedExecutable_Execute", unsafe.Pointer(args)); e != nil {
		return nil, nil, e
	}
	var results [][]Buffer
	var events []Event
	for d := 0; d < nd; d++ {
		oarr := *(*unsafe.Pointer)(unsafe.Pointer(&os[d]))
		var r []Buffer
		for _, b := range unsafe.Slice((**C.PJRT_Buffer)(oarr), numOutputs) {
			r = append(r, Buffer{unsafe.Pointer(b)})
		}
		results = append(results, r)
		events = append(events, Event{unsafe.Pointer(unsafe.Slice(evs, nd)[d])})
	}
	return results, events, nil
}

// EventState is what an OnReady callback observed.
type EventState struct {
	Called int
	Code   int
	Msg    string
}

// Callback is a registered OnReady callback's C-side record.
type Callback struct{ s *C.cb_state }

// State reads what the callback saw so far.
func (c Callback) State() EventState {
	return EventState{Called: int(c.s.called), Code: int(c.s.code), Msg: C.GoString(&c.s.msg[0])}
}

// OnReady registers a recording callback; with destroy set, the callback
// destroys the event itself (as jaxlib does).
func (a *API) OnReady(ev Event, destroy bool) (Callback, *Err) {
	s := alloc[C.cb_state]()
	s.api = a.p
	if destroy {
		s.destroy_me = ev.p()
	}
	args := alloc[C.PJRT_Event_OnReady_Args]()
	defer free(args)
	args.struct_size = C.PJRT_Event_OnReady_Args_STRUCT_SIZE
	args.event = ev.p()
	args.callback = C.on_ready_fn()
	args.user_arg = unsafe.Pointer(s)
	return Callback{s}, a.Call("PJRT_Event_OnReady", unsafe.Pointer(args))
}

// EventCall calls a slot whose args are {struct_size, ext, event}: Destroy,
// Error, Await (IsReady has its own wrapper).
func (a *API) EventCall(name string, ev Event) *Err {
	args := alloc[C.PJRT_Event_Destroy_Args]()
	defer free(args)
	args.struct_size = C.PJRT_Event_Destroy_Args_STRUCT_SIZE
	args.event = ev.p()
	return a.Call(name, unsafe.Pointer(args))
}

// IsReady calls PJRT_Event_IsReady.
func (a *API) IsReady(ev Event) (bool, *Err) {
	args := alloc[C.PJRT_Event_IsReady_Args]()
	defer free(args)
	args.struct_size = C.PJRT_Event_IsReady_Args_STRUCT_SIZE
	args.event = ev.p()
	e := a.Call("PJRT_Event_IsReady", unsafe.Pointer(args))
	return bool(args.is_ready), e
}

// CreateEvent calls PJRT_Event_Create.
func (a *API) CreateEvent() (Event, *Err) {
	args := alloc[C.PJRT_Event_Create_Args]()
	defer free(args)
	args.struct_size = C.PJRT_Event_Create_Args_STRUCT_SIZE
	e := a.Call("PJRT_Event_Create", unsafe.Pointer(args))
	return Event{unsafe.Pointer(args.event)}, e
}

// SetEvent calls PJRT_Event_Set.
func (a *API) SetEvent(ev Event, code int, msg string) *Err {
	args := alloc[C.PJRT_Event_Set_Args]()
	defer free(args)
	args.struct_size = C.PJRT_Event_Set_Args_STRUCT_SIZE
	args.event = ev.p()
	args.error_code = C.PJRT_Error_Code(code)
	cm := C.CString(msg)
	defer C.free(unsafe.Pointer(cm))
	args.error_message, args.error_message_size = cm, C.size_t(len(msg))
	return a.Call("PJRT_Event_Set", unsafe.Pointer(args))
}

// MemoryStatsShort calls PJRT_Device_MemoryStats with a caller struct of
// size bytes inside a 512-byte block pre-filled with 0xAA, and returns the
// block so a test can check nothing past size was written.
func (a *API) MemoryStatsShort(d Device, size int) ([]byte, *Err) {
	block := C.malloc(512)
	defer C.free(block)
	C.memset(block, 0xAA, 512)
	args := (*C.PJRT_Device_MemoryStats_Args)(block)
	args.struct_size = C.size_t(size)
	args.extension_start = nil
	args.device = d.p()
	e := a.Call("PJRT_Device_MemoryStats", block)
	return C.GoBytes(block, 512), e
}

// ViewShort calls PJRT_Client_CreateViewOfDeviceBuffer as a framework whose
// struct ends before the memory field (it passes a device instead), with
// garbage where the memory field would be.
func (a *API) ViewShort(c Client, d Device, ptr unsafe.Pointer, typ int, dims []int64) (Buffer, *Err) {
	block := C.malloc(512)
	defer C.free(block)
	C.memset(block, 0xAA, 512)
	args := (*C.PJRT_Client_CreateViewOfDeviceBuffer_Args)(block)
	var z C.PJRT_Client_CreateViewOfDeviceBuffer_Args
	args.struct_size = C.size_t(unsafe.Offsetof(z.memory))
	args.extension_start = nil
	args.client = c.p()
	args.device_buffer_ptr = ptr
	args.dims, args.num_dims = cInt64s(dims), C.size_t(len(dims))
	defer C.free(unsafe.Pointer(args.dims))
	args.element_type = C.PJRT_Buffer_Type(typ)
	args.layout = nil
	args.device = d.p()
	args.on_delete_callback = nil
	args.on_delete_callback_arg = nil
	args.stream = 0
	e := a.Call("PJRT_Client_CreateViewOfDeviceBuffer", block)
	return Buffer{unsafe.Pointer(args.buffer)}, e
}

// Transfer is a PJRT_AsyncHostToDeviceTransferManager handle.
type Transfer struct{ ptr unsafe.Pointer }

func (t Transfer) p() *C.PJRT_AsyncHostToDeviceTransferManager {
	return (*C.PJRT_AsyncHostToDeviceTransferManager)(t.ptr)
}

// CreateTransfer calls PJRT_Client_CreateBuffersForAsyncHostToDevice for f32
// shapes.
func (a *API) CreateTransfer(c Client, m Memory, shapes [][]int64) (Transfer, *Err) {
	specs := (*C.PJRT_ShapeSpec)(C.calloc(C.size_t(len(shapes)+1), C.size_t(unsafe.Sizeof(C.PJRT_ShapeSpec{}))))
	defer C.free(unsafe.Pointer(specs))
	for i := range shapes {
		sp := &unsafe.Slice(specs, len(shapes))[i]
		sp.struct_size = C.PJRT_ShapeSpec_STRUCT_SIZE
		sp.dims, sp.num_dims = cInt64s(shapes[i]), C.size_t(len(shapes[i]))
		defer C.free(unsafe.Pointer(sp.dims))
		sp.element_type = C.PJRT_Buffer_Type_F32
	}
	args := alloc[C.PJRT_Client_CreateBuffersForAsyncHostToDevice_Args]()
	defer free(args)
	args.struct_size = C.PJRT_Client_CreateBuffersForAsyncHostToDevice_Args_STRUCT_SIZE
	args.client = c.p()
	args.shape_specs, args.num_shape_specs = specs, C.size_t(len(shapes))
	args.memory = m.p()
	if e := a.Call("PJRT_Client_CreateBuffersForAsyncHostToDevice", unsafe.Pointer(args)); e != nil {
		return Transfer{}, e
	}
	return Transfer{unsafe.Pointer(args.transfer_manager)}, nil
}

// TransferCounts returns BufferCount and each BufferSize.
func (a *API) TransferCounts(t Transfer) (int, []int, *Err) {
	bc := alloc[C.PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args]()
	defer free(bc)
	bc.struct_size = C.PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args_STRUCT_SIZE
	bc.transfer_manager = t.p()
	if e := a.Call("PJRT_AsyncHostToDeviceTransferManager_BufferCount", unsafe.Pointer(bc)); e != nil {
		return 0, nil, e
	}
	var sizes []int
	for i := 0; i < int(bc.buffer_count); i++ {
		bs := alloc[C.PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args]()
		defer free(bs)
		bs.struct_size = C.PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args_STRUCT_SIZE
		bs.transfer_manager = t.p()
		bs.buffer_index = C.int(i)
		if e := a.Call("PJRT_AsyncHostToDeviceTransferManager_BufferSize", unsafe.Pointer(bs)); e != nil {
			return 0, nil, e
		}
		sizes = append(sizes, int(bs.buffer_size))
	}
	return int(bc.buffer_count), sizes, nil
}

// TransferData sends a chunk (data must be C memory).
func (a *API) TransferData(t Transfer, i int, data unsafe.Pointer, off, n int, last bool) *Err {
	args := alloc[C.PJRT_AsyncHostToDeviceTransferManager_TransferData_Args]()
	defer free(args)
	args.struct_size = C.PJRT_AsyncHostToDeviceTransferManager_TransferData_Args_STRUCT_SIZE
	args.transfer_manager = t.p()
	args.buffer_index = C.int(i)
	args.data = data
	args.offset, args.transfer_size = C.int64_t(off), C.int64_t(n)
	args.is_last_transfer = C._Bool(last)
	if e := a.Call("PJRT_AsyncHostToDeviceTransferManager_TransferData", unsafe.Pointer(args)); e != nil {
		return e
	}
	return a.EventCall("PJRT_Event_Destroy", Event{unsafe.Pointer(args.done_with_h2d_transfer)})
}

// RetrieveBuffer hands out buffer i.
func (a *API) RetrieveBuffer(t Transfer, i int) (Buffer, *Err) {
	args := alloc[C.PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args]()
	defer free(args)
	args.struct_size = C.PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args_STRUCT_SIZE
	args.transfer_manager = t.p()
	args.buffer_index = C.int(i)
	e := a.Call("PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer", unsafe.Pointer(args))
	return Buffer{unsafe.Pointer(args.buffer_out)}, e
}

// DestroyTransfer calls PJRT_AsyncHostToDeviceTransferManager_Destroy.
func (a *API) DestroyTransfer(t Transfer) *Err {
	args := alloc[C.PJRT_AsyncHostToDeviceTransferManager_Destroy_Args]()
	defer free(args)
	args.struct_size = C.PJRT_AsyncHostToDeviceTransferManager_Destroy_Args_STRUCT_SIZE
	args.transfer_manager = t.p()
	return a.Call("PJRT_AsyncHostToDeviceTransferManager_Destroy", unsafe.Pointer(args))
}

// RawFuture calls PJRT_Buffer_CopyRawToHostFuture; fire supplies the
// destination (or an error code) through the returned callback.
func (a *API) RawFuture(b Buffer, offset, size int) (Event, func(dst unsafe.Pointer, code int, msg string), *Err) {
	args := alloc[C.PJRT_Buffer_CopyRawToHostFuture_Args]()
	defer free(args)
	args.struct_size = C.PJRT_Buffer_CopyRawToHostFuture_Args_STRUCT_SIZE
	args.buffer = b.p()
	args.offset, args.transfer_size = C.int64_t(offset), C.int64_t(size)
	if e := a.Call("PJRT_Buffer_CopyRawToHostFuture", unsafe.Pointer(args)); e != nil {
		return Event{}, nil, e
	}
	fn, data := unsafe.Pointer(args.future_ready_callback), args.callback_data
	fire := func(dst unsafe.Pointer, code int, msg string) {
		cm := C.CString(msg)
		defer C.free(unsafe.Pointer(cm))
		C.fire_raw(fn, data, C.int(code), cm, C.size_t(len(msg)), dst)
	}
	return Event{unsafe.Pointer(args.event)}, fire, nil
}

// DonateWithDependency calls PJRT_Buffer_DonateWithControlDependency; fire
// reports the dependency's status.
func (a *API) DonateWithDependency(b Buffer) (Buffer, func(code int, msg string), *Err) {
	args := alloc[C.PJRT_Buffer_DonateWithControlDependency_Args]()
	defer free(args)
	args.struct_size = C.PJRT_Buffer_DonateWithControlDependency_Args_STRUCT_SIZE
	args.buffer = b.p()
	if e := a.Call("PJRT_Buffer_DonateWithControlDependency", unsafe.Pointer(args)); e != nil {
		return Buffer{}, nil, e
	}
	fn, data := unsafe.Pointer(args.dependency_ready_callback), args.callback_data
	fire := func(code int, msg string) {
		cm := C.CString(msg)
		defer C.free(unsafe.Pointer(cm))
		C.fire_dep(fn, data, C.int(code), cm, C.size_t(len(msg)))
	}
	return Buffer{unsafe.Pointer(args.out_buffer)}, fire, nil
}

// CMem is C memory for host data in tests.
type CMem struct {
	P unsafe.Pointer
	N int
}

// NewCMem allocates n bytes of C memory, 64-byte aligned when aligned is set
// and deliberately misaligned (by 4) otherwise.
func NewCMem(n int, aligned bool) CMem {
	off := C.size_t(0)
	if !aligned {
		off = 4
	}
	return CMem{P: C.test_alloc(C.size_t(n), off), N: n}
}

// Bytes views the memory.
func (m CMem) Bytes() []byte { return unsafe.Slice((*byte)(m.P), m.N) }
