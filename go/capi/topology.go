package capi

/*
#include "gojax_capi.h"
*/
import "C"

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"unsafe"

	"github.com/gojax/gojax/go/engine"
)

type topology struct {
	cl      *client
	c       *C.PJRT_TopologyDescription
	owned   bool // created by TopologyDescription_Create/Deserialize: Destroy frees it
	descArr **C.PJRT_DeviceDescription
	attrs   *C.PJRT_NamedValue
	kindIDs *C.int
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
	// Static facts for a forked child (gojax_capi.h).
	t.c.descs, t.c.num_descs, t.c.attrs = t.descArr, C.size_t(len(cl.devices)), t.attrs
	t.c.name, t.c.name_size = cl.name.p, cl.name.n
	t.c.version, t.c.version_size = cl.version.p, cl.version.n
	ids := engine.MemoryKindIDs()
	t.kindIDs = cAlloc[C.int](len(ids))
	for i, id := range ids {
		cSlice(t.kindIDs, len(ids))[i] = C.int(id)
	}
	return t
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
	cFree(cl.addrDevArr)
	cFree(cl.addrMemArr)
	if cl.plane != nil {
		// Nothing of the job's data plane outlives its client.
		cl.plane.Close()
	}
	cl.name.free()
	cl.version.free()
	deleteHandle(cl.c.h)
	cl.c.h = 0
	cFree(cl.c)
}

func getTopology(fn string, t *C.PJRT_TopologyDescription) (*topology, pjrtErr) {
	if t == nil {
		return nil, errf(engine.CodeInvalidArgument, fn, "topology is NULL")
	}
	return value[*topology](fn, "topology", t.h)
}

// A gojax topology is fully described by its device count.
const topologyPrefix = "gojax-topology:"

//export gojax_PJRT_TopologyDescription_Create
func gojax_PJRT_TopologyDescription_Create(args *C.PJRT_TopologyDescription_Create_Args) (ret pjrtErr) {
	const fn = "PJRT_TopologyDescription_Create"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_TopologyDescription_Create_Args_STRUCT_SIZE); e != nil {
		return e
	}
	opts, _, _, err := clientOptions(args.create_options, args.num_options)
	if err != nil {
		return newErr(engine.CodeOf(err), fn+": "+err.Error())
	}
	t, err := standaloneTopology(opts)
	if err != nil {
		return fromErr(fn, err)
	}
	args.topology = t.c
	return nil
}

// standaloneTopology describes devices without a client the framework sees.
func standaloneTopology(opts engine.Options) (*topology, error) {
	rt, err := engine.NewClient(opts)
	if err != nil {
		return nil, err
	}
	cl := newClient(rt)
	cl.topo.owned = true
	return cl.topo, nil
}

//export gojax_PJRT_TopologyDescription_Destroy
func gojax_PJRT_TopologyDescription_Destroy(args *C.PJRT_TopologyDescription_Destroy_Args) (ret pjrtErr) {
	const fn = "PJRT_TopologyDescription_Destroy"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_TopologyDescription_Destroy_Args_STRUCT_SIZE); e != nil {
		return e
	}
	t, e := getTopology(fn, args.topology)
	if e != nil {
		return e
	}
	if t.owned {
		t.cl.free() // frees the topology with its private client
	}
	// A client's own topology lives as long as the client.
	return nil
}

//export gojax_PJRT_TopologyDescription_PlatformName
func gojax_PJRT_TopologyDescription_PlatformName(args *C.PJRT_TopologyDescription_PlatformName_Args) (ret pjrtErr) {
	const fn = "PJRT_TopologyDescription_PlatformName"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_TopologyDescription_PlatformName_Args_STRUCT_SIZE); e != nil {
		return e
	}
	t, e := getTopology(fn, (*C.PJRT_TopologyDescription)(unsafe.Pointer(args.topology)))
	if e != nil {
		return e
	}
	args.platform_name, args.platform_name_size = t.cl.name.p, t.cl.name.n
	return nil
}

//export gojax_PJRT_TopologyDescription_PlatformVersion
func gojax_PJRT_TopologyDescription_PlatformVersion(args *C.PJRT_TopologyDescription_PlatformVersion_Args) (ret pjrtErr) {
	const fn = "PJRT_TopologyDescription_PlatformVersion"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_TopologyDescription_PlatformVersion_Args_STRUCT_SIZE); e != nil {
		return e
	}
	t, e := getTopology(fn, args.topology)
	if e != nil {
		return e
	}
	args.platform_version, args.platform_version_size = t.cl.version.p, t.cl.version.n
	return nil
}

//export gojax_PJRT_TopologyDescription_GetDeviceDescriptions
func gojax_PJRT_TopologyDescription_GetDeviceDescriptions(args *C.PJRT_TopologyDescription_GetDeviceDescriptions_Args) (ret pjrtErr) {
	const fn = "PJRT_TopologyDescription_GetDeviceDescriptions"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_TopologyDescription_GetDeviceDescriptions_Args_STRUCT_SIZE); e != nil {
		return e
	}
	t, e := getTopology(fn, (*C.PJRT_TopologyDescription)(unsafe.Pointer(args.topology)))
	if e != nil {
		return e
	}
	args.descriptions, args.num_descriptions = t.descArr, C.size_t(len(t.cl.devices))
	return nil
}

func (t *topology) serialize() string {
	return topologyPrefix + strconv.Itoa(len(t.cl.devices))
}

//export gojax_PJRT_TopologyDescription_Serialize
func gojax_PJRT_TopologyDescription_Serialize(args *C.PJRT_TopologyDescription_Serialize_Args) (ret pjrtErr) {
	const fn = "PJRT_TopologyDescription_Serialize"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_TopologyDescription_Serialize_Args_STRUCT_SIZE); e != nil {
		return e
	}
	t, e := getTopology(fn, args.topology)
	if e != nil {
		return e
	}
	s := t.serialize()
	p := C.CString(s)
	args.serialized_bytes, args.serialized_bytes_size = p, C.size_t(len(s))
	args.serialized_topology = (*C.PJRT_SerializedTopology)(unsafe.Pointer(p))
	args.serialized_topology_deleter = (*[0]byte)(C.gojax_free_serialized_topology)
	return nil
}

//export gojax_PJRT_TopologyDescription_Deserialize
func gojax_PJRT_TopologyDescription_Deserialize(args *C.PJRT_TopologyDescription_Deserialize_Args) (ret pjrtErr) {
	const fn = "PJRT_TopologyDescription_Deserialize"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_TopologyDescription_Deserialize_Args_STRUCT_SIZE); e != nil {
		return e
	}
	s := goString(args.serialized_topology, args.serialized_topology_size)
	n, err := strconv.Atoi(strings.TrimPrefix(s, topologyPrefix))
	if !strings.HasPrefix(s, topologyPrefix) || err != nil {
		return errf(engine.CodeInvalidArgument, fn, "not a serialized gojax topology")
	}
	t, err := standaloneTopology(engine.Options{NumDevices: n})
	if err != nil {
		return fromErr(fn, err)
	}
	args.topology = t.c
	return nil
}

//export gojax_PJRT_TopologyDescription_Attributes
func gojax_PJRT_TopologyDescription_Attributes(args *C.PJRT_TopologyDescription_Attributes_Args) (ret pjrtErr) {
	const fn = "PJRT_TopologyDescription_Attributes"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_TopologyDescription_Attributes_Args_STRUCT_SIZE); e != nil {
		return e
	}
	t, e := getTopology(fn, args.topology)
	if e != nil {
		return e
	}
	args.attributes, args.num_attributes = t.attrs, 0
	return nil
}

//export gojax_PJRT_TopologyDescription_Fingerprint
func gojax_PJRT_TopologyDescription_Fingerprint(args *C.PJRT_TopologyDescription_Fingerprint_Args) (ret pjrtErr) {
	const fn = "PJRT_TopologyDescription_Fingerprint"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_TopologyDescription_Fingerprint_Args_STRUCT_SIZE); e != nil {
		return e
	}
	t, e := getTopology(fn, (*C.PJRT_TopologyDescription)(unsafe.Pointer(args.topology)))
	if e != nil {
		return e
	}
	h := fnv.New64a()
	fmt.Fprint(h, t.serialize(), engine.Version)
	args.fingerprint = C.uint64_t(h.Sum64())
	return nil
}

//export gojax_PJRT_TopologyDescription_GetMemorySpaceKindIds
func gojax_PJRT_TopologyDescription_GetMemorySpaceKindIds(args *C.PJRT_TopologyDescription_GetMemorySpaceKindIds_Args) (ret pjrtErr) {
	const fn = "PJRT_TopologyDescription_GetMemorySpaceKindIds"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_TopologyDescription_GetMemorySpaceKindIds_Args_STRUCT_SIZE); e != nil {
		return e
	}
	t, e := getTopology(fn, (*C.PJRT_TopologyDescription)(unsafe.Pointer(args.topology)))
	if e != nil {
		return e
	}
	args.memory_space_kind_ids, args.num_memory_space_kind_ids = t.kindIDs, C.size_t(len(engine.MemoryKinds))
	return nil
}

//export gojax_PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace
func gojax_PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace(args *C.PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace_Args) (ret pjrtErr) {
	const fn = "PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace_Args_STRUCT_SIZE); e != nil {
		return e
	}
	// The answer is a serialized xla.ShapeProto, which gojax does not produce.
	return unimplemented(fn)
}
