package capi

/*
#include "gojax_capi.h"
*/
import "C"

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gojax/gojax/go/engine"
	"github.com/gojax/gojax/go/ir"
)

// executable is the C-facing state shared by the PJRT_LoadedExecutable and the
// PJRT_Executable handles of one program; C arrays live until the last handle
// is destroyed.
type executable struct {
	rt *engine.Executable
	cl *client // nil when compiled without a client (PJRT_Compile)

	mu   sync.Mutex
	refs int

	name          cstr
	fingerprint   cstr
	kinds         [len(engine.MemoryKinds)]cstr // the kind names the kind lists point into
	outTypes      *C.PJRT_Buffer_Type
	outDims       *C.int64_t
	outDimSizes   *C.size_t
	outKinds      **C.char
	outKindSizes  *C.size_t
	paramKinds    **C.char
	paramKindSize *C.size_t
	devArr        **C.PJRT_Device
	logical       *C.PJRT_LogicalDeviceIds
	paramShard    shardingList // nil lists when the program is not partitioned
	outShard      shardingList
	paramLayouts  layoutList
	outLayouts    layoutList
	info          *C.gojax_ExecInfo // the static facts its handles share (gojax_capi.h)

	// The cost analysis, made at the first request.
	costOnce  sync.Once
	cost      *C.PJRT_NamedValue
	costN     int
	costNames []cstr

	// The optimized program text, made at the first request so that the
	// size query and the copy see the same bytes.
	progOnce sync.Once
	progCode []byte
	progErr  string // why there is none (progCode nil)
}

// shardingList is a C array of serialized OpShardings with their sizes.
type shardingList struct {
	n     int
	ptrs  **C.char
	sizes *C.size_t
}

func newShardingList(list [][]byte, ok bool, n int) shardingList {
	if !ok {
		return shardingList{n: n}
	}
	l := shardingList{n: len(list), ptrs: cAlloc[*C.char](len(list)), sizes: cAlloc[C.size_t](len(list))}
	for i, b := range list {
		p := (*C.char)(C.malloc(C.size_t(max(len(b), 1))))
		copy(unsafe.Slice((*byte)(unsafe.Pointer(p)), len(b)), b)
		cSlice(l.ptrs, len(list))[i] = p
		cSlice(l.sizes, len(list))[i] = C.size_t(len(b))
	}
	return l
}

func (l shardingList) free() {
	if l.ptrs == nil {
		return
	}
	for _, p := range cSlice(l.ptrs, l.n) {
		cFree(p)
	}
	cFree(l.ptrs)
	cFree(l.sizes)
}

func newExecutable(rt *engine.Executable, cl *client) *executable {
	x := &executable{rt: rt, cl: cl}
	x.name = newCstr(rt.Name())
	x.fingerprint = newCstr(rt.Fingerprint())
	for k, name := range engine.MemoryKinds {
		x.kinds[k] = newCstr(name)
	}
	kind := func(name string) cstr { return x.kinds[slices.Index(engine.MemoryKinds[:], name)] }
	outKinds, inKinds := rt.OutputMemoryKinds(), rt.ParameterMemoryKinds()
	outs := rt.OutputTypes()
	x.outTypes = cAlloc[C.PJRT_Buffer_Type](len(outs))
	x.outDimSizes = cAlloc[C.size_t](len(outs))
	x.outKinds = cAlloc[*C.char](len(outs))
	x.outKindSizes = cAlloc[C.size_t](len(outs))
	var flat []int64
	for i, t := range outs {
		cSlice(x.outTypes, len(outs))[i] = C.PJRT_Buffer_Type(pjrtType(t))
		dims := typeDims(t)
		cSlice(x.outDimSizes, len(outs))[i] = C.size_t(len(dims))
		flat = append(flat, dims...)
		cSlice(x.outKinds, len(outs))[i] = kind(outKinds[i]).p
		cSlice(x.outKindSizes, len(outs))[i] = kind(outKinds[i]).n
	}
	x.outDims = cAlloc[C.int64_t](len(flat))
	for i, v := range flat {
		cSlice(x.outDims, len(flat))[i] = C.int64_t(v)
	}
	ins := rt.InputTypes()
	x.paramKinds = cAlloc[*C.char](len(ins))
	x.paramKindSize = cAlloc[C.size_t](len(ins))
	for i := range ins {
		cSlice(x.paramKinds, len(ins))[i] = kind(inKinds[i]).p
		cSlice(x.paramKindSize, len(ins))[i] = kind(inKinds[i]).n
	}
	ps, ok := rt.ParameterShardings()
	x.paramShard = newShardingList(ps, ok, len(ins))
	os, ok := rt.OutputShardings()
	x.outShard = newShardingList(os, ok, len(outs))
	x.paramLayouts = newLayoutList(ins)
	x.outLayouts = newLayoutList(outs)
	if cl != nil {
		devs := rt.AddressableDevices()
		x.devArr = cAlloc[*C.PJRT_Device](len(devs))
		x.logical = cAlloc[C.PJRT_LogicalDeviceIds](len(devs))
		for i, d := range devs {
			cSlice(x.devArr, len(devs))[i] = cl.devices[d.Index].c
			l := &cSlice(x.logical, len(devs))[i]
			l.replica = C.int(rt.LogicalIDs()[i][0])
			l.partition = C.int(rt.LogicalIDs()[i][1])
		}
	}
	x.fillInfo()
	return x
}

// fillInfo copies the executable's static facts into C, for its handles to
// answer in a forked child; the arrays stay owned by x.
func (x *executable) fillInfo() {
	i := cAlloc[C.gojax_ExecInfo](1)
	i.name, i.name_size = x.name.p, x.name.n
	i.fingerprint, i.fingerprint_size = x.fingerprint.p, x.fingerprint.n
	i.num_replicas = C.size_t(x.rt.NumReplicas())
	i.num_partitions = C.size_t(x.rt.NumPartitions())
	i.num_outputs = C.size_t(len(x.rt.OutputTypes()))
	i.code_size = C.int64_t(x.rt.CodeSize())
	i.out_types, i.out_dims, i.out_dim_sizes = x.outTypes, x.outDims, x.outDimSizes
	i.out_kinds, i.out_kind_sizes = x.outKinds, x.outKindSizes
	if x.cl != nil {
		i.devices, i.num_devices = x.devArr, C.size_t(len(x.rt.AddressableDevices()))
	}
	x.info = i
}

// typeDims returns a tensor type's dims (none for tokens).
func typeDims(t ir.Type) []int64 {
	if tt, ok := t.(*ir.TensorType); ok {
		return tt.Shape
	}
	return nil
}

func (x *executable) acquire() { x.mu.Lock(); x.refs++; x.mu.Unlock() }

func (x *executable) releaseRef() {
	x.mu.Lock()
	x.refs--
	last := x.refs == 0
	x.mu.Unlock()
	if !last {
		return
	}
	x.name.free()
	x.fingerprint.free()
	for _, k := range x.kinds {
		k.free()
	}
	cFree(x.outTypes)
	cFree(x.outDims)
	cFree(x.outDimSizes)
	cFree(x.outKinds)
	cFree(x.outKindSizes)
	cFree(x.paramKinds)
	cFree(x.paramKindSize)
	cFree(x.devArr)
	cFree(x.logical)
	x.paramShard.free()
	x.outShard.free()
	x.paramLayouts.free()
	x.outLayouts.free()
	cFree(x.info)
	cFree(x.cost)
	for _, n := range x.costNames {
		n.free()
	}
}

// costAnalysis builds the C list of the program's cost properties, once;
// false when the program has no cost analysis.
func (x *executable) costAnalysis() bool {
	x.costOnce.Do(func() {
		c, ok := x.rt.Cost()
		if !ok {
			return
		}
		ps := c.Properties()
		x.cost = cAlloc[C.PJRT_NamedValue](len(ps))
		x.costN = len(ps)
		arr := cSlice(x.cost, len(ps))
		for i, p := range ps {
			n := newCstr(p.Name)
			x.costNames = append(x.costNames, n)
			// XLA's cost analysis reports its properties as floats.
			C.gojax_nv_set_float(&arr[i], n.p, C.float(p.Value))
		}
	})
	return x.cost != nil
}

func (x *executable) newLoaded() *C.PJRT_LoadedExecutable {
	x.acquire()
	p := cAlloc[C.PJRT_LoadedExecutable](1)
	p.h = newHandle(x)
	p.info = x.info
	return p
}

func (x *executable) newUnloaded() *C.PJRT_Executable {
	x.acquire()
	p := cAlloc[C.PJRT_Executable](1)
	p.num_outputs = C.size_t(len(x.rt.OutputTypes()))
	p.h = newHandle(x)
	p.info = x.info
	return p
}

func getLoaded(fn string, p *C.PJRT_LoadedExecutable) (*executable, pjrtErr) {
	if p == nil {
		return nil, errf(engine.CodeInvalidArgument, fn, "executable is NULL")
	}
	return value[*executable](fn, "loaded executable", p.h)
}

func getExec(fn string, p *C.PJRT_Executable) (*executable, pjrtErr) {
	if p == nil {
		return nil, errf(engine.CodeInvalidArgument, fn, "executable is NULL")
	}
	return value[*executable](fn, "executable", p.h)
}

// programArg validates a PJRT_Program and returns its code.
func programArg(fn string, p *C.PJRT_Program) ([]byte, pjrtErr) {
	if p == nil {
		return nil, errf(engine.CodeInvalidArgument, fn, "program is NULL")
	}
	if e := checkArgs(fn+" (program)", unsafe.Pointer(p), C.PJRT_Program_STRUCT_SIZE); e != nil {
		return nil, e
	}
	format := goString(p.format, p.format_size)
	if format != "mlir" {
		return nil, errf(engine.CodeInvalidArgument, fn, "program format %q is not supported; gojax compiles \"mlir\" (StableHLO portable artifacts)", format)
	}
	if p.code == nil || p.code_size == 0 {
		return nil, errf(engine.CodeInvalidArgument, fn, "program code is empty")
	}
	return goBytes(unsafe.Pointer(p.code), p.code_size), nil
}

//export gojax_PJRT_Client_Compile
func gojax_PJRT_Client_Compile(args *C.PJRT_Client_Compile_Args) (ret pjrtErr) {
	const fn = "PJRT_Client_Compile"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Client_Compile_Args_STRUCT_SIZE); e != nil {
		return e
	}
	cl, e := getClient(fn, args.client)
	if e != nil {
		return e
	}
	code, e := programArg(fn, args.program)
	if e != nil {
		return e
	}
	opts := goBytes(unsafe.Pointer(args.compile_options), args.compile_options_size)
	rt, err := engine.Compile(cl.rt, code, opts, compileOptions())
	if err != nil {
		return fromErr(fn, err)
	}
	args.executable = newExecutable(rt, cl).newLoaded()
	return nil
}

//export gojax_PJRT_Compile
func gojax_PJRT_Compile(args *C.PJRT_Compile_Args) (ret pjrtErr) {
	const fn = "PJRT_Compile"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Compile_Args_STRUCT_SIZE); e != nil {
		return e
	}
	if _, e := getTopology(fn, args.topology); e != nil {
		return e
	}
	code, e := programArg(fn, args.program)
	if e != nil {
		return e
	}
	opts := goBytes(unsafe.Pointer(args.compile_options), args.compile_options_size)
	rt, err := engine.Compile(nil, code, opts, compileOptions())
	if err != nil {
		return fromErr(fn, err)
	}
	args.executable = newExecutable(rt, nil).newUnloaded()
	return nil
}

//export gojax_PJRT_Client_Load
func gojax_PJRT_Client_Load(args *C.PJRT_Client_Load_Args) (ret pjrtErr) {
	const fn = "PJRT_Client_Load"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Client_Load_Args_STRUCT_SIZE); e != nil {
		return e
	}
	cl, e := getClient(fn, args.client)
	if e != nil {
		return e
	}
	x, e := getExec(fn, args.executable)
	if e != nil {
		return e
	}
	rt := x.rt
	if args.compile_options != nil && args.compile_options_size > 0 {
		var err error
		opts := goBytes(unsafe.Pointer(args.compile_options), args.compile_options_size)
		if rt, err = engine.Deserialize(cl.rt, rt.Serialize(), opts, compileOptions()); err != nil {
			return fromErr(fn, err)
		}
	} else {
		var err error
		if rt, err = rt.Load(cl.rt); err != nil {
			return fromErr(fn, err)
		}
	}
	args.loaded_executable = newExecutable(rt, cl).newLoaded()
	return nil
}

//export gojax_PJRT_Executable_DeserializeAndLoad
func gojax_PJRT_Executable_DeserializeAndLoad(args *C.PJRT_Executable_DeserializeAndLoad_Args) (ret pjrtErr) {
	const fn = "PJRT_Executable_DeserializeAndLoad"
	defer guard(fn, &ret)
	var a C.PJRT_Executable_DeserializeAndLoad_Args
	if e := checkArgs(fn, unsafe.Pointer(args), C.size_t(unsafe.Offsetof(a.loaded_executable)+unsafe.Sizeof(a.loaded_executable))); e != nil {
		return e
	}
	cl, e := getClient(fn, args.client)
	if e != nil {
		return e
	}
	data := goBytes(unsafe.Pointer(args.serialized_executable), args.serialized_executable_size)
	var opts []byte
	if has(args.struct_size, unsafe.Offsetof(a.overridden_serialized_compile_options_size), unsafe.Sizeof(a.overridden_serialized_compile_options_size)) &&
		args.overridden_serialized_compile_options != nil && args.overridden_serialized_compile_options_size > 0 {
		opts = goBytes(unsafe.Pointer(args.overridden_serialized_compile_options), args.overridden_serialized_compile_options_size)
	}
	rt, err := engine.Deserialize(cl.rt, data, opts, compileOptions())
	if err != nil {
		return fromErr(fn, err)
	}
	args.loaded_executable = newExecutable(rt, cl).newLoaded()
	return nil
}

//export gojax_PJRT_LoadedExecutable_Destroy
func gojax_PJRT_LoadedExecutable_Destroy(args *C.PJRT_LoadedExecutable_Destroy_Args) (ret pjrtErr) {
	const fn = "PJRT_LoadedExecutable_Destroy"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_LoadedExecutable_Destroy_Args_STRUCT_SIZE); e != nil {
		return e
	}
	x, e := getLoaded(fn, args.executable)
	if e != nil {
		return e
	}
	deleteHandle(args.executable.h)
	args.executable.h = 0
	cFree(args.executable)
	x.releaseRef()
	return nil
}

//export gojax_PJRT_Executable_Destroy
func gojax_PJRT_Executable_Destroy(args *C.PJRT_Executable_Destroy_Args) (ret pjrtErr) {
	const fn = "PJRT_Executable_Destroy"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Executable_Destroy_Args_STRUCT_SIZE); e != nil {
		return e
	}
	x, e := getExec(fn, args.executable)
	if e != nil {
		return e
	}
	deleteHandle(args.executable.h)
	args.executable.h = 0
	cFree(args.executable)
	x.releaseRef()
	return nil
}

//export gojax_PJRT_LoadedExecutable_GetExecutable
func gojax_PJRT_LoadedExecutable_GetExecutable(args *C.PJRT_LoadedExecutable_GetExecutable_Args) (ret pjrtErr) {
	const fn = "PJRT_LoadedExecutable_GetExecutable"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_LoadedExecutable_GetExecutable_Args_STRUCT_SIZE); e != nil {
		return e
	}
	x, e := getLoaded(fn, args.loaded_executable)
	if e != nil {
		return e
	}
	args.executable = x.newUnloaded()
	return nil
}

//export gojax_PJRT_LoadedExecutable_AddressableDevices
func gojax_PJRT_LoadedExecutable_AddressableDevices(args *C.PJRT_LoadedExecutable_AddressableDevices_Args) (ret pjrtErr) {
	const fn = "PJRT_LoadedExecutable_AddressableDevices"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_LoadedExecutable_AddressableDevices_Args_STRUCT_SIZE); e != nil {
		return e
	}
	x, e := getLoaded(fn, args.executable)
	if e != nil {
		return e
	}
	args.addressable_devices = x.devArr
	args.num_addressable_devices = C.size_t(len(x.rt.AddressableDevices()))
	return nil
}

//export gojax_PJRT_LoadedExecutable_AddressableDeviceLogicalIds
func gojax_PJRT_LoadedExecutable_AddressableDeviceLogicalIds(args *C.PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args) (ret pjrtErr) {
	const fn = "PJRT_LoadedExecutable_AddressableDeviceLogicalIds"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args_STRUCT_SIZE); e != nil {
		return e
	}
	x, e := getLoaded(fn, args.executable)
	if e != nil {
		return e
	}
	args.addressable_device_logical_ids = x.logical
	args.num_addressable_device_logical_ids = C.size_t(len(x.rt.LogicalIDs()))
	return nil
}

//export gojax_PJRT_LoadedExecutable_GetDeviceAssignment
func gojax_PJRT_LoadedExecutable_GetDeviceAssignment(args *C.PJRT_LoadedExecutable_GetDeviceAssignment_Args) (ret pjrtErr) {
	const fn = "PJRT_LoadedExecutable_GetDeviceAssignment"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_LoadedExecutable_GetDeviceAssignment_Args_STRUCT_SIZE); e != nil {
		return e
	}
	x, e := getLoaded(fn, args.executable)
	if e != nil {
		return e
	}
	data := x.rt.Assignment.Marshal()
	p := C.malloc(C.size_t(max(len(data), 1)))
	copy(unsafe.Slice((*byte)(p), len(data)), data)
	args.serialized_bytes = (*C.char)(p)
	args.serialized_bytes_size = C.size_t(len(data))
	args.serialized_device_assignment = (*C.PJRT_DeviceAssignmentSerialized)(p)
	args.serialized_device_assignment_deleter = (*[0]byte)(C.gojax_free_device_assignment)
	return nil
}

//export gojax_PJRT_LoadedExecutable_Delete
func gojax_PJRT_LoadedExecutable_Delete(args *C.PJRT_LoadedExecutable_Delete_Args) (ret pjrtErr) {
	const fn = "PJRT_LoadedExecutable_Delete"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_LoadedExecutable_Delete_Args_STRUCT_SIZE); e != nil {
		return e
	}
	x, e := getLoaded(fn, args.executable)
	if e != nil {
		return e
	}
	x.rt.Delete()
	atomic.StoreInt32((*int32)(unsafe.Pointer(&x.info.deleted)), 1)
	return nil
}

//export gojax_PJRT_LoadedExecutable_IsDeleted
func gojax_PJRT_LoadedExecutable_IsDeleted(args *C.PJRT_LoadedExecutable_IsDeleted_Args) (ret pjrtErr) {
	const fn = "PJRT_LoadedExecutable_IsDeleted"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_LoadedExecutable_IsDeleted_Args_STRUCT_SIZE); e != nil {
		return e
	}
	x, e := getLoaded(fn, args.executable)
	if e != nil {
		return e
	}
	args.is_deleted = C._Bool(x.rt.IsDeleted())
	return nil
}

//export gojax_PJRT_LoadedExecutable_Fingerprint
func gojax_PJRT_LoadedExecutable_Fingerprint(args *C.PJRT_LoadedExecutable_Fingerprint_Args) (ret pjrtErr) {
	const fn = "PJRT_LoadedExecutable_Fingerprint"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_LoadedExecutable_Fingerprint_Args_STRUCT_SIZE); e != nil {
		return e
	}
	x, e := getLoaded(fn, args.executable)
	if e != nil {
		return e
	}
	args.executable_fingerprint, args.executable_fingerprint_size = x.fingerprint.p, x.fingerprint.n
	return nil
}

//export gojax_PJRT_LoadedExecutable_Execute
func gojax_PJRT_LoadedExecutable_Execute(args *C.PJRT_LoadedExecutable_Execute_Args) (ret pjrtErr) {
	const fn = "PJRT_LoadedExecutable_Execute"
	defer guard(fn, &ret)
	var a C.PJRT_LoadedExecutable_Execute_Args
	if e := checkArgs(fn, unsafe.Pointer(args), C.size_t(unsafe.Offsetof(a.device_complete_events)+unsafe.Sizeof(a.device_complete_events))); e != nil {
		return e
	}
	x, e := getLoaded(fn, args.executable)
	if e != nil {
		return e
	}
	if x.cl == nil {
		return errf(engine.CodeFailedPrecondition, fn, "executable is not loaded on a client")
	}
	var opts engine.ExecuteOptions
	if o := args.options; o != nil {
		var oo C.PJRT_ExecuteOptions
		if has(o.struct_size, unsafe.Offsetof(oo.num_non_donatable_input_indices), unsafe.Sizeof(oo.num_non_donatable_input_indices)) &&
			o.num_non_donatable_input_indices > 0 {
			if o.non_donatable_input_indices == nil {
				return errf(engine.CodeInvalidArgument, fn, "non_donatable_input_indices is NULL")
			}
			// A view, not a copy: Execute reads it only during the call.
			opts.NonDonatable = unsafe.Slice((*int64)(unsafe.Pointer(o.non_donatable_input_indices)), int(o.num_non_donatable_input_indices))
		}
		if has(o.struct_size, unsafe.Offsetof(oo.context), unsafe.Sizeof(oo.context)) && o.context != nil {
			if x.rt.UsesHostCallbacks() { // JAX attaches its table to every execution
				opts.UserData = contextUserData(o.context)
			}
		}
	}
	nd, na := int(args.num_devices), int(args.num_args)
	if nd < 0 || na < 0 || (nd > 0 && args.argument_lists == nil) || (na > 0 && nd > 0 && args.argument_lists == nil) {
		return errf(engine.CodeInvalidArgument, fn, "argument_lists is NULL")
	}
	if nd > 0 && args.output_lists == nil {
		return errf(engine.CodeInvalidArgument, fn, "output_lists is NULL")
	}
	var devices []*engine.Device
	if has(args.struct_size, unsafe.Offsetof(a.execute_device), unsafe.Sizeof(a.execute_device)) && args.execute_device != nil {
		d, e := getDevice(fn, args.execute_device)
		if e != nil {
			return e
		}
		if nd != 1 {
			return errf(engine.CodeInvalidArgument, fn, "execute_device is set but num_devices is %d", nd)
		}
		devices = []*engine.Device{d.rt}
	}
	lists := make([][]*engine.Buffer, nd)
	if nd > 0 {
		argLists := unsafe.Slice(args.argument_lists, nd)
		flat := make([]*engine.Buffer, nd*na) // one allocation for all lists
		for d := range lists {
			if na > 0 && argLists[d] == nil {
				return errf(engine.CodeInvalidArgument, fn, "argument list %d is NULL", d)
			}
			lists[d] = flat[d*na : (d+1)*na : (d+1)*na]
			if na == 0 {
				continue
			}
			for i, p := range unsafe.Slice(argLists[d], na) {
				b, e := getBuffer(fn, p)
				if e != nil {
					return e
				}
				lists[d][i] = b.rt
			}
		}
	}
	// Check the output lists before anything runs, so an error never leaves
	// executions in flight with nowhere to put their results.
	var outLists []**C.PJRT_Buffer
	if nd > 0 {
		outLists = unsafe.Slice(args.output_lists, nd)
	}
	if len(x.rt.OutputTypes()) > 0 {
		for d, l := range outLists {
			if l == nil {
				return errf(engine.CodeInvalidArgument, fn, "output list %d is NULL", d)
			}
		}
	}
	outs, events, err := x.rt.Execute(lists, devices, opts)
	if err != nil {
		return fromErr(fn, err)
	}
	for d := range outs {
		if len(outs[d]) == 0 {
			continue
		}
		dst := unsafe.Slice(outLists[d], len(outs[d]))
		for i, b := range outs[d] {
			dst[i] = newBufferHandle(x.cl, b)
		}
	}
	if args.device_complete_events != nil {
		evs := unsafe.Slice(args.device_complete_events, nd)
		for d := range events {
			evs[d] = newEvent(events[d])
		}
	}
	return nil
}

// ---- Shardings extension ---------------------------------------------------

func shardingsCall(fn string, args *C.gojax_Shardings_Args, pick func(*executable) shardingList) (ret pjrtErr) {
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.gojax_Shardings_Args_STRUCT_SIZE); e != nil {
		return e
	}
	x, e := getExec(fn, args.executable)
	if e != nil {
		return e
	}
	l := pick(x)
	args.num = C.size_t(l.n)
	args.shardings, args.sharding_sizes = l.ptrs, l.sizes
	return nil
}

//export gojax_Shardings_ParameterShardings
func gojax_Shardings_ParameterShardings(args *C.gojax_Shardings_Args) pjrtErr {
	return shardingsCall("PJRT_Shardings_PJRT_Executable_ParameterShardings", args,
		func(x *executable) shardingList { return x.paramShard })
}

//export gojax_Shardings_OutputShardings
func gojax_Shardings_OutputShardings(args *C.gojax_Shardings_Args) pjrtErr {
	return shardingsCall("PJRT_Shardings_PJRT_Executable_OutputShardings", args,
		func(x *executable) shardingList { return x.outShard })
}

// ---- PJRT_Executable ------------------------------------------------------

//export gojax_PJRT_Executable_Name
func gojax_PJRT_Executable_Name(args *C.PJRT_Executable_Name_Args) (ret pjrtErr) {
	const fn = "PJRT_Executable_Name"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Executable_Name_Args_STRUCT_SIZE); e != nil {
		return e
	}
	x, e := getExec(fn, args.executable)
	if e != nil {
		return e
	}
	args.executable_name, args.executable_name_size = x.name.p, x.name.n
	return nil
}

//export gojax_PJRT_Executable_NumReplicas
func gojax_PJRT_Executable_NumReplicas(args *C.PJRT_Executable_NumReplicas_Args) (ret pjrtErr) {
	const fn = "PJRT_Executable_NumReplicas"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Executable_NumReplicas_Args_STRUCT_SIZE); e != nil {
		return e
	}
	x, e := getExec(fn, args.executable)
	if e != nil {
		return e
	}
	args.num_replicas = C.size_t(x.rt.NumReplicas())
	return nil
}

//export gojax_PJRT_Executable_NumPartitions
func gojax_PJRT_Executable_NumPartitions(args *C.PJRT_Executable_NumPartitions_Args) (ret pjrtErr) {
	const fn = "PJRT_Executable_NumPartitions"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Executable_NumPartitions_Args_STRUCT_SIZE); e != nil {
		return e
	}
	x, e := getExec(fn, args.executable)
	if e != nil {
		return e
	}
	args.num_partitions = C.size_t(x.rt.NumPartitions())
	return nil
}

//export gojax_PJRT_Executable_NumOutputs
func gojax_PJRT_Executable_NumOutputs(args *C.PJRT_Executable_NumOutputs_Args) (ret pjrtErr) {
	const fn = "PJRT_Executable_NumOutputs"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Executable_NumOutputs_Args_STRUCT_SIZE); e != nil {
		return e
	}
	x, e := getExec(fn, args.executable)
	if e != nil {
		return e
	}
	args.num_outputs = C.size_t(len(x.rt.OutputTypes()))
	return nil
}

//export gojax_PJRT_Executable_SizeOfGeneratedCodeInBytes
func gojax_PJRT_Executable_SizeOfGeneratedCodeInBytes(args *C.PJRT_Executable_SizeOfGeneratedCodeInBytes_Args) (ret pjrtErr) {
	const fn = "PJRT_Executable_SizeOfGeneratedCodeInBytes"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Executable_SizeOfGeneratedCodeInBytes_Args_STRUCT_SIZE); e != nil {
		return e
	}
	x, e := getExec(fn, args.executable)
	if e != nil {
		return e
	}
	args.size_in_bytes = C.int64_t(x.rt.CodeSize())
	return nil
}

//export gojax_PJRT_Executable_GetCostAnalysis
func gojax_PJRT_Executable_GetCostAnalysis(args *C.PJRT_Executable_GetCostAnalysis_Args) (ret pjrtErr) {
	const fn = "PJRT_Executable_GetCostAnalysis"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Executable_GetCostAnalysis_Args_STRUCT_SIZE); e != nil {
		return e
	}
	x, e := getExec(fn, args.executable)
	if e != nil {
		return e
	}
	if !x.costAnalysis() {
		return unimplemented(fn) // jax treats UNIMPLEMENTED as "no cost analysis"
	}
	args.num_properties = C.size_t(x.costN)
	args.properties = x.cost
	return nil
}

//export gojax_PJRT_Executable_OutputMemoryKinds
func gojax_PJRT_Executable_OutputMemoryKinds(args *C.PJRT_Executable_OutputMemoryKinds_Args) (ret pjrtErr) {
	const fn = "PJRT_Executable_OutputMemoryKinds"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Executable_OutputMemoryKinds_Args_STRUCT_SIZE); e != nil {
		return e
	}
	x, e := getExec(fn, args.executable)
	if e != nil {
		return e
	}
	args.num_outputs = C.size_t(len(x.rt.OutputTypes()))
	args.memory_kinds, args.memory_kind_sizes = x.outKinds, x.outKindSizes
	return nil
}

//export gojax_PJRT_Executable_ParameterMemoryKinds
func gojax_PJRT_Executable_ParameterMemoryKinds(args *C.PJRT_Executable_ParameterMemoryKinds_Args) (ret pjrtErr) {
	const fn = "PJRT_Executable_ParameterMemoryKinds"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Executable_ParameterMemoryKinds_Args_STRUCT_SIZE); e != nil {
		return e
	}
	x, e := getExec(fn, args.executable)
	if e != nil {
		return e
	}
	args.num_parameters = C.size_t(len(x.rt.InputTypes()))
	args.memory_kinds, args.memory_kind_sizes = x.paramKinds, x.paramKindSize
	return nil
}

//export gojax_PJRT_Executable_OptimizedProgram
func gojax_PJRT_Executable_OptimizedProgram(args *C.PJRT_Executable_OptimizedProgram_Args) (ret pjrtErr) {
	const fn = "PJRT_Executable_OptimizedProgram"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Executable_OptimizedProgram_Args_STRUCT_SIZE); e != nil {
		return e
	}
	x, e := getExec(fn, args.executable)
	if e != nil {
		return e
	}
	prog := args.program
	if prog == nil {
		return errf(engine.CodeInvalidArgument, fn, "program is NULL")
	}
	if prog.struct_size < C.PJRT_Program_STRUCT_SIZE {
		return errf(engine.CodeInvalidArgument, fn, "program struct_size %d is smaller than %d", prog.struct_size, C.PJRT_Program_STRUCT_SIZE)
	}
	code := x.optimizedProgram()
	if code == nil {
		// UNIMPLEMENTED makes compile().as_text() None instead of an error.
		return errf(engine.CodeUnimplemented, fn, "%s", x.progErr)
	}
	prog.format, prog.format_size = mlirFormat.p, mlirFormat.n
	if prog.code == nil {
		prog.code_size = C.size_t(len(code))
		return nil
	}
	if int(prog.code_size) < len(code) {
		return errf(engine.CodeInvalidArgument, fn, "code buffer of %d bytes is smaller than the program's %d", prog.code_size, len(code))
	}
	copy(unsafe.Slice((*byte)(unsafe.Pointer(prog.code)), len(code)), code)
	prog.code_size = C.size_t(len(code))
	return nil
}

// optimizedProgram is what PJRT_Executable_OptimizedProgram answers, in
// the "mlir" format that jaxlib converts to HLO for compile().as_text()
// and hlo_modules(): gojax's optimized program as StableHLO text
// (compiler/export.go), or, where that cannot be written, the StableHLO
// program as received unless it holds Shardy ops, which jaxlib's converter
// refuses (nil then, and progErr says why).
func (x *executable) optimizedProgram() []byte {
	x.progOnce.Do(func() {
		text, err := x.rt.OptimizedStableHLO()
		if err == nil {
			x.progCode = []byte(text)
			return
		}
		if op := x.rt.ShardyOp(); op != "" {
			x.progErr = fmt.Sprintf("%v; the program as received holds %s, which has no HLO text", err, op)
			return
		}
		x.progCode = x.rt.Code()
	})
	return x.progCode
}

// mlirFormat is PJRT's name of the MLIR program format; the string lives as
// long as the library, as the format member of PJRT_Program must.
var mlirFormat = newCstr("mlir")

//export gojax_PJRT_Executable_Serialize
func gojax_PJRT_Executable_Serialize(args *C.PJRT_Executable_Serialize_Args) (ret pjrtErr) {
	const fn = "PJRT_Executable_Serialize"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Executable_Serialize_Args_STRUCT_SIZE); e != nil {
		return e
	}
	x, e := getExec(fn, (*C.PJRT_Executable)(unsafe.Pointer(args.executable)))
	if e != nil {
		return e
	}
	data := x.rt.Serialize()
	p := C.malloc(C.size_t(max(len(data), 1)))
	copy(unsafe.Slice((*byte)(p), len(data)), data)
	args.serialized_bytes = (*C.char)(p)
	args.serialized_bytes_size = C.size_t(len(data))
	args.serialized_executable = (*C.PJRT_SerializedExecutable)(p)
	args.serialized_executable_deleter = (*[0]byte)(C.gojax_free_serialized_executable)
	return nil
}

//export gojax_PJRT_Executable_GetCompileOptions
func gojax_PJRT_Executable_GetCompileOptions(args *C.PJRT_Executable_GetCompileOptions_Args) (ret pjrtErr) {
	const fn = "PJRT_Executable_GetCompileOptions"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Executable_GetCompileOptions_Args_STRUCT_SIZE); e != nil {
		return e
	}
	x, e := getExec(fn, args.executable)
	if e != nil {
		return e
	}
	data := x.rt.CompileOptions()
	p := C.malloc(C.size_t(max(len(data), 1)))
	copy(unsafe.Slice((*byte)(p), len(data)), data)
	args.serialized_bytes = (*C.char)(p)
	args.serialized_bytes_size = C.size_t(len(data))
	args.serialized_compile_options = (*C.PJRT_SerializedCompileOptions)(p)
	args.serialized_compile_options_deleter = (*[0]byte)(C.gojax_free_serialized_compile_options)
	return nil
}

//export gojax_PJRT_Executable_OutputElementTypes
func gojax_PJRT_Executable_OutputElementTypes(args *C.PJRT_Executable_OutputElementTypes_Args) (ret pjrtErr) {
	const fn = "PJRT_Executable_OutputElementTypes"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Executable_OutputElementTypes_Args_STRUCT_SIZE); e != nil {
		return e
	}
	x, e := getExec(fn, args.executable)
	if e != nil {
		return e
	}
	args.output_types, args.num_output_types = x.outTypes, C.size_t(len(x.rt.OutputTypes()))
	return nil
}

//export gojax_PJRT_Executable_OutputDimensions
func gojax_PJRT_Executable_OutputDimensions(args *C.PJRT_Executable_OutputDimensions_Args) (ret pjrtErr) {
	const fn = "PJRT_Executable_OutputDimensions"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Executable_OutputDimensions_Args_STRUCT_SIZE); e != nil {
		return e
	}
	x, e := getExec(fn, args.executable)
	if e != nil {
		return e
	}
	args.num_outputs = C.size_t(len(x.rt.OutputTypes()))
	args.dims, args.dim_sizes = x.outDims, x.outDimSizes
	return nil
}

//export gojax_PJRT_Executable_Fingerprint
func gojax_PJRT_Executable_Fingerprint(args *C.PJRT_Executable_Fingerprint_Args) (ret pjrtErr) {
	const fn = "PJRT_Executable_Fingerprint"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.PJRT_Executable_Fingerprint_Args_STRUCT_SIZE); e != nil {
		return e
	}
	x, e := getExec(fn, args.executable)
	if e != nil {
		return e
	}
	args.executable_fingerprint, args.executable_fingerprint_size = x.fingerprint.p, x.fingerprint.n
	return nil
}

//export gojax_PJRT_Executable_GetCompiledMemoryStats
func gojax_PJRT_Executable_GetCompiledMemoryStats(args *C.PJRT_Executable_GetCompiledMemoryStats_Args) (ret pjrtErr) {
	const fn = "PJRT_Executable_GetCompiledMemoryStats"
	defer guard(fn, &ret)
	var a C.PJRT_Executable_GetCompiledMemoryStats_Args
	if e := checkArgs(fn, unsafe.Pointer(args), C.size_t(unsafe.Offsetof(a.temp_size_in_bytes)+unsafe.Sizeof(a.temp_size_in_bytes))); e != nil {
		return e
	}
	x, e := getExec(fn, args.executable)
	if e != nil {
		return e
	}
	// One device's program, as XLA reports it (per device for SPMD).
	in, out, temp := x.rt.MemorySizes()
	// Offsets 24.. are int64 fields; write those the caller's struct covers.
	fields := []struct {
		off uintptr
		v   int64
	}{
		{unsafe.Offsetof(a.generated_code_size_in_bytes), x.rt.CodeSize()},
		{unsafe.Offsetof(a.argument_size_in_bytes), in},
		{unsafe.Offsetof(a.output_size_in_bytes), out},
		{unsafe.Offsetof(a.alias_size_in_bytes), 0},
		{unsafe.Offsetof(a.temp_size_in_bytes), temp},
		{unsafe.Offsetof(a.host_generated_code_size_in_bytes), 0},
		{unsafe.Offsetof(a.host_argument_size_in_bytes), 0},
		{unsafe.Offsetof(a.host_output_size_in_bytes), 0},
		{unsafe.Offsetof(a.host_alias_size_in_bytes), 0},
		{unsafe.Offsetof(a.host_temp_size_in_bytes), 0},
		{unsafe.Offsetof(a.peak_memory_in_bytes), in + out + temp},
		{unsafe.Offsetof(a.total_size_in_bytes), in + out + temp},
		{unsafe.Offsetof(a.total_allocation_bytes), 0},
		{unsafe.Offsetof(a.indefinite_allocations), 0},
		{unsafe.Offsetof(a.peak_unpadded_heap_bytes), 0},
	}
	for _, f := range fields {
		if has(args.struct_size, f.off, 8) {
			*(*int64)(unsafe.Add(unsafe.Pointer(args), f.off)) = f.v
		}
	}
	return nil
}
