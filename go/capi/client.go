package capi

/*
#include "gojax_capi.h"
*/
import "C"

import (
	"fmt"
	"os"
	"strconv"
	"unsafe"

	"github.com/gojax/gojax/go/config"
	"github.com/gojax/gojax/go/dataplane"
	"github.com/gojax/gojax/go/engine"
)

// client is the C-facing state of a runtime client. All arrays and strings it
// hands to C live in C memory until Client_Destroy.
type client struct {
	rt       *engine.Client
	c        *C.PJRT_Client
	devices  []*device
	memories []*memory
	devArr   **C.PJRT_Device
	memArr   **C.PJRT_Memory
	name     cstr
	version  cstr
	topo     *topology
	// The addressable devices and memories (this process's), as arrays
	// for C; in a single process the same as devArr and memArr.
	addrDevArr **C.PJRT_Device
	addrMemArr **C.PJRT_Memory
	plane      *dataplane.Plane // nil in a single process
}

// newClient builds the C handles for a runtime client.
func newClient(rt *engine.Client) *client {
	cl := &client{rt: rt, name: newCstr(rt.PlatformName()), version: newCstr(rt.PlatformVersion())}
	cl.c = cAlloc[C.PJRT_Client](1)
	cl.c.h = newHandle(cl)
	cl.c.process_index = C.int(rt.ProcessIndex())
	rdevs := rt.Devices()
	cl.devArr = cAlloc[*C.PJRT_Device](len(rdevs))
	rmems := rt.Memories()
	cl.memArr = cAlloc[*C.PJRT_Memory](len(rmems))
	devArr := cSlice(cl.devArr, len(rdevs))
	memArr := cSlice(cl.memArr, len(rmems))
	for i, rd := range rdevs {
		d := &device{rt: rd, cl: cl, kind: newCstr(rd.Kind()), debug: newCstr(rd.DebugString()), str: newCstr(rd.String())}
		d.c = cAlloc[C.PJRT_Device](1)
		d.c.h = newHandle(d)
		d.desc = cAlloc[C.PJRT_DeviceDescription](1)
		d.desc.h = d.c.h
		d.attrObj = cAlloc[C.PJRT_Device_Attributes](1)
		d.buildAttrs()
		d.fillStatic()
		drm := rd.Memories()
		d.memArr = cAlloc[*C.PJRT_Memory](len(drm))
		for j, rm := range drm {
			m := &memory{rt: rm, kind: newCstr(rm.Kind()), debug: newCstr(rm.DebugString()), str: newCstr(rm.String())}
			m.c = C.gojax_new_memory(0)
			if m.c == nil {
				panic("out of C memory")
			}
			m.c.h = newHandle(m)
			m.c.kind, m.c.kind_size = m.kind.p, m.kind.n
			m.c.id, m.c.kind_id = C.int(rm.ID), C.int(rm.KindID())
			m.c.debug, m.c.debug_size = m.debug.p, m.debug.n
			m.c.str, m.c.str_size = m.str.p, m.str.n
			d.mems = append(d.mems, m)
			cSlice(d.memArr, len(drm))[j] = m.ptr()
			// The engine numbers memories densely in client order, so
			// cl.memories[rm.Index] is rm's handle (see client.mem).
			memArr[rm.Index] = m.ptr()
			cl.memories = append(cl.memories, m)
		}
		d.c.memories, d.c.num_memories = d.memArr, C.size_t(len(drm))
		devArr[i] = d.c
		cl.devices = append(cl.devices, d)
	}
	for i, m := range cl.memories {
		if m.rt.Index != i {
			panic("capi: engine memory ids are not dense in client order")
		}
	}
	for _, m := range cl.memories {
		devs := m.rt.Devices()
		m.devArr = cAlloc[*C.PJRT_Device](len(devs))
		arr := cSlice(m.devArr, len(devs))
		for i, rd := range devs {
			arr[i] = cl.devices[rd.Index].c
		}
		m.c.devices, m.c.num_devices = m.devArr, C.size_t(len(devs))
	}
	local, localMems := rt.AddressableDevices(), rt.AddressableMemories()
	cl.addrDevArr = cAlloc[*C.PJRT_Device](len(local))
	for i, rd := range local {
		cSlice(cl.addrDevArr, len(local))[i] = cl.devices[rd.Index].c
	}
	cl.addrMemArr = cAlloc[*C.PJRT_Memory](len(localMems))
	for i, rm := range localMems {
		cSlice(cl.addrMemArr, len(localMems))[i] = cl.memories[rm.Index].ptr()
	}
	cl.topo = newTopology(cl, false)
	return cl
}

func (t *topology) free() {
	deleteHandle(t.c.h)
	t.c.h = 0
	cFree(t.c)
	cFree(t.descArr)
	cFree(t.attrs)
	cFree(t.kindIDs)
}

// mem is the handle of an engine memory of this client.
func (cl *client) mem(rm *engine.Memory) *memory { return cl.memories[rm.Index] }

func getClient(fn string, c *C.PJRT_Client) (*client, pjrtErr) {
	if c == nil {
		return nil, errf(engine.CodeInvalidArgument, fn, "client is NULL")
	}
	return value[*client](fn, "client", c.h)
}

// ---- client ----------------------------------------------------------------

// clientOptions reads the create options gojax understands and ignores
// others. node and nodes are the process's index and the process count
// (jax.distributed; 0 and 1 alone).
func clientOptions(opts *C.PJRT_NamedValue, n C.size_t) (o engine.Options, node, nodes int, err error) {
	nodes = 1
	if n > 0 && opts == nil {
		return o, 0, 0, engine.Errorf(engine.CodeInvalidArgument, "create_options is NULL but num_options is %d", n)
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
			return 0, engine.Errorf(engine.CodeInvalidArgument, "option %q must be an integer", name)
		}
		switch name {
		case "num_devices":
			v, err := intVal()
			if err != nil {
				return o, 0, 0, engine.Errorf(engine.CodeInvalidArgument, "option num_devices: %v", err)
			}
			if v < 1 {
				return o, 0, 0, engine.Errorf(engine.CodeInvalidArgument, "option num_devices must be at least 1, got %d", v)
			}
			o.NumDevices = int(v)
		case "jax_num_cpu_devices":
			// JAX's jax_num_cpu_devices (-1 when unset); the plugin passes
			// it, and engine.NumDevicesFor weighs it against GOJAX_NUM_DEVICES.
			v, err := intVal()
			if err != nil {
				return o, 0, 0, engine.Errorf(engine.CodeInvalidArgument, "option jax_num_cpu_devices: %v", err)
			}
			if v > int64(config.MaxNumDevices) {
				return o, 0, 0, engine.Errorf(engine.CodeInvalidArgument, "option jax_num_cpu_devices must be at most %d, got %d", config.MaxNumDevices, v)
			}
			if v > 0 {
				o.JAXNumCPUDevices = int(v)
			}
		case "num_nodes", "node_id":
			v, err := intVal()
			if err != nil {
				return o, 0, 0, engine.Errorf(engine.CodeInvalidArgument, "option %s: %v", name, err)
			}
			if name == "num_nodes" {
				nodes = int(v)
			} else {
				node = int(v)
			}
		}
	}
	if nodes < 1 || nodes > 1<<11 || node < 0 || node >= nodes {
		return o, 0, 0, engine.Errorf(engine.CodeInvalidArgument, "node_id=%d and num_nodes=%d do not make a job", node, nodes)
	}
	return o, node, nodes, nil
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
	opts, node, nodes, err := clientOptions(args.create_options, args.num_options)
	var plane *dataplane.Plane
	if err == nil && nodes > 1 {
		// The key-value callbacks are set only in a multi-process job.
		if args.kv_get_callback == nil || args.kv_put_callback == nil {
			err = engine.Errorf(engine.CodeInvalidArgument, "num_nodes=%d but the framework passed no key-value store callbacks", nodes)
		} else {
			kv := &kvStore{get: args.kv_get_callback, getArg: args.kv_get_user_arg, put: args.kv_put_callback, putArg: args.kv_put_user_arg}
			if opts.NumDevices == 0 {
				opts.NumDevices = engine.DefaultNumDevices()
			}
			opts.Job, plane, err = joinJob(&jobSetup{node: node, nodes: nodes, kv: kv}, opts.NumDevices)
		}
	}
	if err == nil {
		var rt *engine.Client
		if rt, err = engine.NewClient(opts); err == nil {
			cl := newClient(rt)
			cl.plane = plane
			args.client = cl.c
			return nil
		}
	}
	if plane != nil {
		plane.Close()
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
	args.addressable_devices, args.num_addressable_devices = cl.addrDevArr, C.size_t(len(cl.rt.AddressableDevices()))
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
	args.device = cl.devices[rd.Index].c
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
	args.addressable_device = cl.devices[rd.Index].c
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
	args.addressable_memories, args.num_addressable_memories = cl.addrMemArr, C.size_t(len(cl.rt.AddressableMemories()))
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
		return errf(engine.CodeInvalidArgument, fn, "%d replicas x %d partitions do not fit on %d devices", r, p, len(cl.devices))
	}
	// The job's devices in order, process by process (global ids).
	if int(args.default_assignment_size) < r*p || args.default_assignment == nil {
		return errf(engine.CodeInvalidArgument, fn, "default_assignment has room for %d ids, need %d", args.default_assignment_size, r*p)
	}
	out := cSlice(args.default_assignment, r*p)
	for i := range out {
		out[i] = C.int(cl.devices[i].rt.ID) // replica-major: replica i/p, partition i%p
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
