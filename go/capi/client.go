package capi

/*
#include "gojax_capi.h"
*/
import "C"

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"unsafe"

	"github.com/gojax/gojax/go/runtime"
	"github.com/gojax/gojax/go/vhlo"
)

// client is the C-facing state of a runtime client. All arrays and strings it
// hands to C live in C memory until Client_Destroy.
type client struct {
	rt       *runtime.Client
	c        *C.PJRT_Client
	devices  []*device
	memories []*memory
	devArr   **C.PJRT_Device
	memArr   **C.PJRT_Memory
	name     cstr
	version  cstr
	topo     *topology
}

type device struct {
	rt      *runtime.Device
	cl      *client
	c       *C.PJRT_Device
	desc    *C.PJRT_DeviceDescription
	mem     *memory
	memArr  **C.PJRT_Memory
	kind    cstr
	debug   cstr
	str     cstr
	attrs   *C.PJRT_NamedValue
	nattrs  int
	attrObj *C.PJRT_Device_Attributes
	names   []cstr
}

type memory struct {
	rt     *runtime.Memory
	c      *C.gojax_Memory
	kind   cstr
	debug  cstr
	str    cstr
	devArr **C.PJRT_Device
}

type topology struct {
	cl      *client
	c       *C.PJRT_TopologyDescription
	owned   bool // created by TopologyDescription_Create/Deserialize: Destroy frees it
	descArr **C.PJRT_DeviceDescription
	attrs   *C.PJRT_NamedValue
	kindIDs *C.int
}

func (m *memory) ptr() *C.PJRT_Memory { return (*C.PJRT_Memory)(unsafe.Pointer(m.c)) }

// newClient builds the C handles for a runtime client.
func newClient(rt *runtime.Client) *client {
	cl := &client{rt: rt, name: newCstr(rt.PlatformName()), version: newCstr(rt.PlatformVersion())}
	cl.c = cAlloc[C.PJRT_Client](1)
	cl.c.h = newHandle(cl)
	rdevs := rt.Devices()
	cl.devArr = cAlloc[*C.PJRT_Device](len(rdevs))
	cl.memArr = cAlloc[*C.PJRT_Memory](len(rdevs))
	devArr := cSlice(cl.devArr, len(rdevs))
	memArr := cSlice(cl.memArr, len(rdevs))
	for i, rd := range rdevs {
		d := &device{rt: rd, cl: cl, kind: newCstr(rd.Kind()), debug: newCstr(rd.DebugString()), str: newCstr(rd.String())}
		d.c = cAlloc[C.PJRT_Device](1)
		d.c.h = newHandle(d)
		d.desc = cAlloc[C.PJRT_DeviceDescription](1)
		d.desc.h = d.c.h
		d.attrObj = cAlloc[C.PJRT_Device_Attributes](1)
		d.buildAttrs()
		rm := rd.DefaultMemory()
		m := &memory{rt: rm, kind: newCstr(rm.Kind()), debug: newCstr(rm.DebugString()), str: newCstr(rm.String())}
		m.c = C.gojax_new_memory(0)
		if m.c == nil {
			panic("out of C memory")
		}
		m.c.h = newHandle(m)
		m.c.kind, m.c.kind_size = m.kind.p, m.kind.n
		d.mem = m
		d.memArr = cAlloc[*C.PJRT_Memory](1)
		*d.memArr = m.ptr()
		devArr[i] = d.c
		memArr[i] = m.ptr()
		cl.devices = append(cl.devices, d)
		cl.memories = append(cl.memories, m)
	}
	for _, m := range cl.memories {
		devs := m.rt.Devices()
		m.devArr = cAlloc[*C.PJRT_Device](len(devs))
		arr := cSlice(m.devArr, len(devs))
		for i, rd := range devs {
			arr[i] = cl.devices[rd.ID].c
		}
	}
	cl.topo = newTopology(cl, false)
	return cl
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

func newTopology(cl *client, owned bool) *topology {
	t := &topology{cl: cl, owned: owned}
	t.c = cAlloc[C.PJRT_TopologyDescription](1)
	t.c.h = newHandle(t)
	t.descArr = cAlloc[*C.PJRT_DeviceDescription](len(cl.devices))
	arr := cSlice(t.descArr, len(cl.devices))
	for i, d := range cl.devices {
		arr[i] = d.desc
	}
	t.attrs = cAlloc[C.PJRT_NamedValue](1)
	t.kindIDs = cAlloc[C.int](1)
	*t.kindIDs = C.int(0)
	return t
}

func (t *topology) free() {
	deleteHandle(t.c.h)
	t.c.h = 0
	cFree(t.c)
	cFree(t.descArr)
	cFree(t.attrs)
	cFree(t.kindIDs)
}

func (cl *client) free() {
	cl.topo.free()
	for _, d := range cl.devices {
		deleteHandle(d.c.h)
		d.c.h, d.desc.h = 0, 0
		cFree(d.c)
		cFree(d.desc)
		cFree(d.memArr)
		cFree(d.attrs)
		cFree(d.attrObj)
		d.kind.free()
		d.debug.free()
		d.str.free()
		for _, n := range d.names {
			n.free()
		}
	}
	for _, m := range cl.memories {
		deleteHandle(m.c.h)
		m.c.h = 0
		C.gojax_free_memory(m.c)
		cFree(m.devArr)
		m.kind.free()
		m.debug.free()
		m.str.free()
	}
	cFree(cl.devArr)
	cFree(cl.memArr)
	cl.name.free()
	cl.version.free()
	deleteHandle(cl.c.h)
	cl.c.h = 0
	cFree(cl.c)
}

func getClient(fn string, c *C.PJRT_Client) (*client, pjrtErr) {
	if c == nil {
		return nil, errf(runtime.CodeInvalidArgument, fn, "client is NULL")
	}
	return value[*client](fn, "client", c.h)
}

func getDevice(fn string, d *C.PJRT_Device) (*device, pjrtErr) {
	if d == nil {
		return nil, errf(runtime.CodeInvalidArgument, fn, "device is NULL")
	}
	return value[*device](fn, "device", d.h)
}

func getDesc(fn string, d *C.PJRT_DeviceDescription) (*device, pjrtErr) {
	if d == nil {
		return nil, errf(runtime.CodeInvalidArgument, fn, "device_description is NULL")
	}
	return value[*device](fn, "device description", d.h)
}

func getMemory(fn string, m *C.PJRT_Memory) (*memory, pjrtErr) {
	if m == nil {
		return nil, errf(runtime.CodeInvalidArgument, fn, "memory is NULL")
	}
	g := (*C.gojax_Memory)(unsafe.Pointer(m))
	return value[*memory](fn, "memory", g.h)
}

func getTopology(fn string, t *C.PJRT_TopologyDescription) (*topology, pjrtErr) {
	if t == nil {
		return nil, errf(runtime.CodeInvalidArgument, fn, "topology is NULL")
	}
	return value[*topology](fn, "topology", t.h)
}

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

// ---- client ----------------------------------------------------------------

// clientOptions reads the create options gojax understands and ignores others.
func clientOptions(opts *C.PJRT_NamedValue, n C.size_t) (runtime.Options, error) {
	var o runtime.Options
	if n > 0 && opts == nil {
		return o, runtime.Errorf(runtime.CodeInvalidArgument, "create_options is NULL but num_options is %d", n)
	}
	for i := 0; i < int(n); i++ {
		nv := &cSlice(opts, int(n))[i]
		name := goString(nv.name, nv.name_size)
		intVal := func() (int64, error) {
			switch nv._type {
			case C.PJRT_NamedValue_kInt64:
				return int64(C.gojax_nv_int64(nv)), nil
			case C.PJRT_NamedValue_kString:
				s := goString(C.gojax_nv_string(nv), nv.value_size)
				return strconv.ParseInt(s, 10, 64)
			}
			return 0, runtime.Errorf(runtime.CodeInvalidArgument, "option %q must be an integer", name)
		}
		switch name {
		case "num_devices":
			v, err := intVal()
			if err != nil {
				return o, runtime.Errorf(runtime.CodeInvalidArgument, "option num_devices: %v", err)
			}
			if v < 1 {
				return o, runtime.Errorf(runtime.CodeInvalidArgument, "option num_devices must be at least 1, got %d", v)
			}
			o.NumDevices = int(v)
		case "num_nodes":
			v, err := intVal()
			if err == nil && v > 1 {
				return o, runtime.Errorf(runtime.CodeUnimplemented, "gojax runs in a single process; num_nodes=%d is not supported", v)
			}
		}
	}
	return o, nil
}

//export gojax_PJRT_Client_Create
func gojax_PJRT_Client_Create(args *C.PJRT_Client_Create_Args) (ret pjrtErr) {
	const fn = "PJRT_Client_Create"
	defer guard(fn, &ret)
	var a C.PJRT_Client_Create_Args
	if e := checkArgs(fn, unsafe.Pointer(args), C.size_t(unsafe.Offsetof(a.client)+unsafe.Sizeof(a.client))); e != nil {
		return e
	}
	setupProcess()
	opts, err := clientOptions(args.create_options, args.num_options)
	if err == nil {
		var rt *runtime.Client
		if rt, err = runtime.NewClient(opts); err == nil {
			args.client = newClient(rt).c
			return nil
		}
	}
	// JAX may swallow backend-initialisation errors; say it here too.
	fmt.Fprintf(os.Stderr, "gojax: %s: %v\n", fn, err)
	return fromErr(fn, err)
}

//export gojax_PJRT_Client_Destroy
func gojax_PJRT_Client_Destroy(args *C.PJRT_Client_Destroy_Args) (ret pjrtErr) {
	const fn = "PJRT_Client_Destroy"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Client_Destroy_Args_STRUCT_SIZE); e != nil {
		return e
	}
	cl, e := getClient(fn, args.client)
	if e != nil {
		return e
	}
	cl.free()
	return nil
}

//export gojax_PJRT_Client_PlatformName
func gojax_PJRT_Client_PlatformName(args *C.PJRT_Client_PlatformName_Args) (ret pjrtErr) {
	const fn = "PJRT_Client_PlatformName"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Client_PlatformName_Args_STRUCT_SIZE); e != nil {
		return e
	}
	cl, e := getClient(fn, args.client)
	if e != nil {
		return e
	}
	args.platform_name, args.platform_name_size = cl.name.p, cl.name.n
	return nil
}

//export gojax_PJRT_Client_ProcessIndex
func gojax_PJRT_Client_ProcessIndex(args *C.PJRT_Client_ProcessIndex_Args) (ret pjrtErr) {
	const fn = "PJRT_Client_ProcessIndex"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Client_ProcessIndex_Args_STRUCT_SIZE); e != nil {
		return e
	}
	cl, e := getClient(fn, args.client)
	if e != nil {
		return e
	}
	args.process_index = C.int(cl.rt.ProcessIndex())
	return nil
}

//export gojax_PJRT_Client_PlatformVersion
func gojax_PJRT_Client_PlatformVersion(args *C.PJRT_Client_PlatformVersion_Args) (ret pjrtErr) {
	const fn = "PJRT_Client_PlatformVersion"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Client_PlatformVersion_Args_STRUCT_SIZE); e != nil {
		return e
	}
	cl, e := getClient(fn, args.client)
	if e != nil {
		return e
	}
	args.platform_version, args.platform_version_size = cl.version.p, cl.version.n
	return nil
}

//export gojax_PJRT_Client_Devices
func gojax_PJRT_Client_Devices(args *C.PJRT_Client_Devices_Args) (ret pjrtErr) {
	const fn = "PJRT_Client_Devices"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Client_Devices_Args_STRUCT_SIZE); e != nil {
		return e
	}
	cl, e := getClient(fn, args.client)
	if e != nil {
		return e
	}
	args.devices, args.num_devices = cl.devArr, C.size_t(len(cl.devices))
	return nil
}

//export gojax_PJRT_Client_AddressableDevices
func gojax_PJRT_Client_AddressableDevices(args *C.PJRT_Client_AddressableDevices_Args) (ret pjrtErr) {
	const fn = "PJRT_Client_AddressableDevices"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Client_AddressableDevices_Args_STRUCT_SIZE); e != nil {
		return e
	}
	cl, e := getClient(fn, args.client)
	if e != nil {
		return e
	}
	args.addressable_devices, args.num_addressable_devices = cl.devArr, C.size_t(len(cl.devices))
	return nil
}

//export gojax_PJRT_Client_LookupDevice
func gojax_PJRT_Client_LookupDevice(args *C.PJRT_Client_LookupDevice_Args) (ret pjrtErr) {
	const fn = "PJRT_Client_LookupDevice"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Client_LookupDevice_Args_STRUCT_SIZE); e != nil {
		return e
	}
	cl, e := getClient(fn, args.client)
	if e != nil {
		return e
	}
	rd, err := cl.rt.LookupDevice(int(args.id))
	if err != nil {
		return fromErr(fn, err)
	}
	args.device = cl.devices[rd.ID].c
	return nil
}

//export gojax_PJRT_Client_LookupAddressableDevice
func gojax_PJRT_Client_LookupAddressableDevice(args *C.PJRT_Client_LookupAddressableDevice_Args) (ret pjrtErr) {
	const fn = "PJRT_Client_LookupAddressableDevice"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Client_LookupAddressableDevice_Args_STRUCT_SIZE); e != nil {
		return e
	}
	cl, e := getClient(fn, args.client)
	if e != nil {
		return e
	}
	rd, err := cl.rt.LookupAddressableDevice(int(args.local_hardware_id))
	if err != nil {
		return fromErr(fn, err)
	}
	args.addressable_device = cl.devices[rd.ID].c
	return nil
}

//export gojax_PJRT_Client_AddressableMemories
func gojax_PJRT_Client_AddressableMemories(args *C.PJRT_Client_AddressableMemories_Args) (ret pjrtErr) {
	const fn = "PJRT_Client_AddressableMemories"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Client_AddressableMemories_Args_STRUCT_SIZE); e != nil {
		return e
	}
	cl, e := getClient(fn, args.client)
	if e != nil {
		return e
	}
	args.addressable_memories, args.num_addressable_memories = cl.memArr, C.size_t(len(cl.memories))
	return nil
}

//export gojax_PJRT_Client_DefaultDeviceAssignment
func gojax_PJRT_Client_DefaultDeviceAssignment(args *C.PJRT_Client_DefaultDeviceAssignment_Args) (ret pjrtErr) {
	const fn = "PJRT_Client_DefaultDeviceAssignment"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Client_DefaultDeviceAssignment_Args_STRUCT_SIZE); e != nil {
		return e
	}
	cl, e := getClient(fn, args.client)
	if e != nil {
		return e
	}
	r, p := int(args.num_replicas), int(args.num_partitions)
	if r < 1 || p < 1 || r*p > len(cl.devices) {
		return errf(runtime.CodeInvalidArgument, fn, "%d replicas x %d partitions do not fit on %d devices", r, p, len(cl.devices))
	}
	if int(args.default_assignment_size) < r*p || args.default_assignment == nil {
		return errf(runtime.CodeInvalidArgument, fn, "default_assignment has room for %d ids, need %d", args.default_assignment_size, r*p)
	}
	out := cSlice(args.default_assignment, r*p)
	for i := range out {
		out[i] = C.int(i) // replica-major: replica i/p, partition i%p
	}
	return nil
}

//export gojax_PJRT_Client_TopologyDescription
func gojax_PJRT_Client_TopologyDescription(args *C.PJRT_Client_TopologyDescription_Args) (ret pjrtErr) {
	const fn = "PJRT_Client_TopologyDescription"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Client_TopologyDescription_Args_STRUCT_SIZE); e != nil {
		return e
	}
	cl, e := getClient(fn, args.client)
	if e != nil {
		return e
	}
	args.topology = cl.topo.c
	return nil
}

//export gojax_PJRT_Client_DmaMap
func gojax_PJRT_Client_DmaMap(args *C.PJRT_Client_DmaMap_Args) (ret pjrtErr) {
	const fn = "PJRT_Client_DmaMap"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Client_DmaMap_Args_STRUCT_SIZE); e != nil {
		return e
	}
	// Host memory needs no mapping for a CPU device.
	_, e := getClient(fn, args.client)
	return e
}

//export gojax_PJRT_Client_DmaUnmap
func gojax_PJRT_Client_DmaUnmap(args *C.PJRT_Client_DmaUnmap_Args) (ret pjrtErr) {
	const fn = "PJRT_Client_DmaUnmap"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Client_DmaUnmap_Args_STRUCT_SIZE); e != nil {
		return e
	}
	_, e := getClient(fn, args.client)
	return e
}

//export gojax_PJRT_Client_UpdateGlobalProcessInfo
func gojax_PJRT_Client_UpdateGlobalProcessInfo(args *C.PJRT_Client_UpdateGlobalProcessInfo_Args) (ret pjrtErr) {
	const fn = "PJRT_Client_UpdateGlobalProcessInfo"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Client_UpdateGlobalProcessInfo_Args_STRUCT_SIZE); e != nil {
		return e
	}
	// Single process: there is no other process whose state could matter.
	_, e := getClient(fn, args.client)
	return e
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
	if _, e := getDevice(fn, args.device); e != nil {
		return e
	}
	args.is_addressable = true
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
	args.memories, args.num_memories = d.memArr, 1
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
	args.memory = d.mem.ptr()
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

//export gojax_PJRT_AsyncTrackingEvent_Destroy
func gojax_PJRT_AsyncTrackingEvent_Destroy(args *C.PJRT_AsyncTrackingEvent_Destroy_Args) (ret pjrtErr) {
	const fn = "PJRT_AsyncTrackingEvent_Destroy"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_AsyncTrackingEvent_Destroy_Args_STRUCT_SIZE); e != nil {
		return e
	}
	cFree(args.event)
	return nil
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
