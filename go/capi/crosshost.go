package capi

/*
#include "gojax_capi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gojax/gojax/go/engine"
)

// The cross-host transfers extension's Go half (the rest is in capi.c):
// the send/receive pair jaxlib calls for device_put between processes.

//export gojax_CrossHost_SendBuffers
func gojax_CrossHost_SendBuffers(args *C.gojax_CrossHostSend_Args) (ret pjrtErr) {
	const fn = "PJRT_Transfers_PJRT_Client_CrossHostSendBuffers"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.gojax_CrossHostSend_Args_STRUCT_SIZE); e != nil {
		return e
	}
	cl, e := getClient(fn, args.client)
	if e != nil {
		return e
	}
	n := int(args.num_buffers)
	if n == 0 {
		return nil
	}
	if args.buffers == nil || args.dst_global_device_ids == nil || args.transfer_keys == nil || args.send_events == nil {
		return errf(engine.CodeInvalidArgument, fn, "buffers, dst_global_device_ids, transfer_keys or send_events is NULL for %d buffers", n)
	}
	bufs := make([]*engine.Buffer, n)
	for i, p := range unsafe.Slice(args.buffers, n) {
		b, e := getBuffer(fn, p)
		if e != nil {
			return e
		}
		bufs[i] = b.rt
	}
	events, err := cl.rt.CrossHostSend(bufs, deviceIDs(args.dst_global_device_ids, n), goInt64s(args.transfer_keys, args.num_buffers))
	if err != nil {
		return fromErr(fn, err)
	}
	out := unsafe.Slice(args.send_events, n)
	for i, ev := range events {
		out[i] = newEvent(ev)
	}
	return nil
}

//export gojax_CrossHost_ReceiveBuffers
func gojax_CrossHost_ReceiveBuffers(args *C.gojax_CrossHostReceive_Args) (ret pjrtErr) {
	const fn = "PJRT_Transfers_PJRT_Client_CrossHostReceiveBuffers"
	defer guard(fn, &ret)
	if e := checkArgs(fn, unsafe.Pointer(args), C.gojax_CrossHostReceive_Args_STRUCT_SIZE); e != nil {
		return e
	}
	cl, e := getClient(fn, args.client)
	if e != nil {
		return e
	}
	dev, e := getDevice(fn, args.device)
	if e != nil {
		return e
	}
	n := int(args.num_shapes)
	if n == 0 {
		return nil
	}
	if args.shape_num_dims == nil || args.num_dims == nil || args.element_types == nil ||
		args.src_global_device_ids == nil || args.transfer_keys == nil || args.buffers == nil {
		return errf(engine.CodeInvalidArgument, fn, "a shape, source device, transfer key or output array is NULL for %d shapes", n)
	}
	ranks := unsafe.Slice(args.shape_num_dims, n)
	dimPtrs := unsafe.Slice(args.num_dims, n)
	elems := unsafe.Slice(args.element_types, n)
	var layouts []*C.PJRT_Buffer_MemoryLayout
	if args.layouts != nil {
		layouts = unsafe.Slice(args.layouts, n)
	}
	shapes := make([]engine.Shape, n)
	for i := range shapes {
		elem, e := elemArg(fn, elems[i])
		if e != nil {
			return e
		}
		dims, e := dimsArg(fn, dimPtrs[i], ranks[i])
		if e != nil {
			return e
		}
		if layouts != nil {
			if e := denseOnly(fn, layouts[i], dims, int64(elem.ByteSize())); e != nil {
				return e
			}
		}
		shapes[i] = engine.Shape{Elem: elem, Dims: dims}
	}
	bufs, err := cl.rt.CrossHostReceive(dev.rt, shapes, deviceIDs(args.src_global_device_ids, n), goInt64s(args.transfer_keys, args.num_shapes))
	if err != nil {
		return fromErr(fn, err)
	}
	out := unsafe.Slice(args.buffers, n)
	for i, b := range bufs {
		out[i] = newBufferHandle(cl, b)
	}
	return nil
}

// deviceIDs reads n global device ids (int32 in the extension's args).
func deviceIDs(p *C.int32_t, n int) []int64 {
	out := make([]int64, n)
	for i, id := range unsafe.Slice(p, n) {
		out[i] = int64(id)
	}
	return out
}
