package ffi

/*
#include "xla_ffi.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/gojax/gojax/go/internal/workers"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// typedCall reports whether a custom call uses the typed FFI calling
// convention: api_version 4, or, as JAX emits ffi_call, api_version 1 with
// its attributes in an mhlo.backend_config dictionary (XLA reads both so).
func typedCall(op *ir.Op) (bool, string) {
	v, _ := op.Attrs.Enum("api_version")
	if v == "API_VERSION_TYPED_FFI" {
		return true, v
	}
	_, dict := op.Attrs["mhlo.backend_config"].(ir.DictAttr)
	return dict && (v == "API_VERSION_ORIGINAL" || v == ""), v
}

// lower compiles a custom call to a registered handler into a step.
func lower(ctx kernel.Context, op *ir.Op, target string, b C.XLA_FFI_Handler_Bundle) (kernel.Step, error) {
	if ok, v := typedCall(op); !ok {
		return nil, op.Errorf("%q is an XLA FFI handler, which is called with api_version = 4 (typed FFI) "+
			"or with its attributes in mhlo.backend_config; this custom call has api_version %s and no such dictionary", target, v)
	}
	if err := checkVersion(target, b.execute); err != nil {
		return nil, op.Errorf("%v", err)
	}
	if err := rowMajor(op); err != nil {
		return nil, op.Errorf("%q: %v", target, err)
	}
	config, err := backendConfig(op)
	if err != nil {
		return nil, op.Errorf("%q: %v", target, err)
	}
	m := &cmem{}
	ok := false
	defer func() {
		if !ok {
			m.free()
		}
	}()
	// The step is m's first allocation: the cleanup below finds it there.
	step := (*C.gojax_ffi_step)(m.alloc(int(unsafe.Sizeof(C.gojax_ffi_step{}))))
	step.bundle = b
	args, err := buffers(m, op.Operands, "operand")
	if err != nil {
		return nil, op.Errorf("%q: %v", target, err)
	}
	rets, err := buffers(m, op.Results, "result")
	if err != nil {
		return nil, op.Errorf("%q: %v", target, err)
	}
	step.nargs, step.args = C.int64_t(len(op.Operands)), args
	step.nrets, step.rets = C.int64_t(len(op.Results)), rets
	if step.attrs, err = encodeAttrs(m, config, ""); err != nil {
		return nil, op.Errorf("%q: %v", target, err)
	}
	if e := C.gojax_ffi_instantiate(step, C.int64_t(workers.Count())); e != nil {
		_, msg := takeError(e)
		return nil, op.Errorf("FFI handler %q failed to instantiate: %s", target, msg)
	}
	ok = true
	// Handlers may ask for the execution's user data, run id and device
	// ordinal: marking the table makes Execute pass each run its context.
	var table *kernel.HostCallbacks
	if hc, isHC := ctx.(kernel.HostCallbackContext); isHC {
		table = hc.HostCallbacks()
		table.RequireUserData()
	}

	// The step owns the C memory and the instantiate stage's state; both
	// go when the compiled program drops the step.
	owner := &struct{ step *C.gojax_ffi_step }{step}
	runtime.AddCleanup(owner, func(m *cmem) {
		C.gojax_ffi_step_release_state((*C.gojax_ffi_step)(m.ptrs[0]))
		m.free()
	}, m)
	n := len(op.Operands) + len(op.Results)
	subs := subByteBuffers(op)
	cs := func(rc *kernel.RunContext, ins, outs [][]byte) error {
		var pin runtime.Pinner
		defer pin.Unpin()
		ptrs := make([]unsafe.Pointer, n+1) // +1: never empty, so &ptrs[0] is valid
		all := append(ins[:len(ins):len(ins)], outs...)
		// Sub-byte buffers go packed; results are unpacked after the call.
		var packedOut [][]byte
		if len(subs) > 0 {
			all = append([][]byte(nil), all...)
			packedOut = make([][]byte, len(outs))
			for _, s := range subs {
				p := make([]byte, (len(all[s.index])*s.bits+7)/8)
				if s.index < len(ins) {
					pack(p, all[s.index], s.bits)
				} else {
					packedOut[s.index-len(ins)] = p
				}
				all[s.index] = p
			}
		}
		for i, buf := range all {
			if len(buf) > 0 {
				p := unsafe.Pointer(unsafe.SliceData(buf))
				pin.Pin(p)
				ptrs[i] = p
			}
		}
		// User data points to the framework's memory, never Go's. The
		// run's own context is preferred: the table holds the data of the
		// executable's latest execution, which concurrent runs share.
		var run C.gojax_ffi_runinfo
		data := []kernel.UserData(nil)
		if rc != nil {
			run = C.gojax_ffi_runinfo{has_run: 1, run_id: C.int64_t(rc.RunID), device_ordinal: C.int32_t(rc.DeviceOrdinal)}
			data = rc.UserData
		} else if table != nil {
			data = table.UserData()
		}
		var ud []C.gojax_ffi_userdata
		for _, d := range data {
			ud = append(ud, C.gojax_ffi_userdata{type_id: C.int64_t(d.TypeID), data: d.Data})
		}
		var udp *C.gojax_ffi_userdata
		if len(ud) > 0 {
			udp = &ud[0]
		}
		e := C.gojax_ffi_run(owner.step, &ptrs[0], &ptrs[len(ins)], C.int64_t(workers.Count()), udp, C.int64_t(len(ud)), run)
		runtime.KeepAlive(owner)
		if e != nil {
			_, msg := takeError(e)
			return op.Errorf("FFI handler %q failed: %s", target, msg)
		}
		for _, s := range subs {
			if s.index >= len(ins) {
				unpack(outs[s.index-len(ins)], packedOut[s.index-len(ins)], s.bits, s.signed)
			}
		}
		return nil
	}
	if rl, ok := ctx.(kernel.RunContextLowering); ok {
		return rl.WithRunContext(op, cs), nil
	}
	return func(ins, outs [][]byte) error { return cs(nil, ins, outs) }, nil
}

// buffers builds the call-frame buffer templates of operands or results.
func buffers(m *cmem, vals []*ir.Value, role string) (*C.XLA_FFI_Buffer, error) {
	size := int(unsafe.Sizeof(C.XLA_FFI_Buffer{}))
	out := unsafe.Slice((*C.XLA_FFI_Buffer)(m.alloc(len(vals)*size)), max(len(vals), 1))
	for i, v := range vals {
		b := &out[i]
		b.struct_size = C.size_t(unsafe.Offsetof(b.dims) + unsafe.Sizeof(b.dims))
		switch t := v.Type.(type) {
		case *ir.TokenType:
			b.dtype = C.GOJAX_FFI_TOKEN
		case *ir.TensorType:
			dt, ok := dtypes[t.Elem]
			if !ok {
				return nil, fmt.Errorf("%s %d has element type %s, which gojax does not pass to FFI handlers", role, i, t.Elem)
			}
			b.dtype = dt
			b.rank = C.int64_t(len(t.Shape))
			if len(t.Shape) > 0 {
				dims := unsafe.Slice((*C.int64_t)(m.alloc(8*len(t.Shape))), len(t.Shape))
				for j, d := range t.Shape {
					dims[j] = C.int64_t(d)
				}
				b.dims = &dims[0]
			}
		default:
			return nil, fmt.Errorf("%s %d has type %s, not a tensor or token", role, i, v.Type)
		}
	}
	return &out[0], nil
}

// backendConfig is the dictionary of a typed custom call's attributes.
func backendConfig(op *ir.Op) (ir.Attrs, error) {
	for _, key := range []string{"mhlo.backend_config", "backend_config"} {
		switch a := op.Attrs[key].(type) {
		case ir.DictAttr:
			return a.Entries, nil
		case ir.StringAttr:
			if a.Value != "" {
				return nil, fmt.Errorf("%s is a string; typed FFI calls take their attributes as a dictionary", key)
			}
		}
	}
	return nil, nil
}

// rowMajor checks that explicit operand and result layouts are the dense
// row-major layout gojax's buffers have.
func rowMajor(op *ir.Op) error {
	for _, key := range []string{"operand_layouts", "result_layouts"} {
		arr, ok := op.Attrs[key].(ir.ArrayAttr)
		if !ok {
			continue
		}
		for i, l := range arr.Elems {
			var perm []int64
			switch l := l.(type) {
			case ir.DenseI64Attr:
				perm = l.Values
			case *ir.ElementsAttr:
				for j := 0; j < int(l.Type.NumElements()); j++ {
					perm = append(perm, int64(int64le(l.Data, l.Type.Elem.ByteSize(), j)))
				}
			default:
				return fmt.Errorf("%s[%d] is %s, not a layout", key, i, l)
			}
			for j, d := range perm {
				if d != int64(len(perm)-1-j) {
					return fmt.Errorf("%s[%d] is %v; gojax passes FFI handlers row-major buffers only", key, i, perm)
				}
			}
		}
	}
	return nil
}

func int64le(b []byte, size, i int) int64 {
	var v uint64
	for k := size - 1; k >= 0; k-- {
		v = v<<8 | uint64(b[i*size+k])
	}
	return int64(v)
}

// versions caches each execute handler's answer to the metadata query.
var versions sync.Map // execute handler address -> error (nil: compatible)

// checkVersion asks a handler which FFI API version it was built against,
// once, as XLA does when it registers one: a newer API than gojax's table
// is refused rather than called.
func checkVersion(target string, execute *C.XLA_FFI_Handler) error {
	key := uintptr(unsafe.Pointer(execute))
	if v, ok := versions.Load(key); ok {
		err, _ := v.(error)
		return err
	}
	var md C.XLA_FFI_Metadata
	var err error
	if e := C.gojax_ffi_metadata(execute, &md); e != nil {
		_, msg := takeError(e)
		err = fmt.Errorf("FFI handler %q did not report its metadata: %s", target, msg)
	} else if major, minor := int(md.api_version.major_version), int(md.api_version.minor_version); major != C.GOJAX_FFI_API_MAJOR || minor > C.GOJAX_FFI_API_MINOR {
		err = fmt.Errorf("FFI handler %q was built for XLA FFI API %d.%d; gojax implements %d.%d", target, major, minor, C.GOJAX_FFI_API_MAJOR, C.GOJAX_FFI_API_MINOR)
	}
	versions.Store(key, err)
	return err
}

// subByte is an operand or result (index in operands then results) of a
// sub-byte integer type.
type subByte struct {
	index, bits int
	signed      bool
}

func subByteBuffers(op *ir.Op) []subByte {
	var out []subByte
	for i, v := range append(op.Operands[:len(op.Operands):len(op.Operands)], op.Results...) {
		if t, ok := v.Type.(*ir.TensorType); ok {
			switch t.Elem {
			case ir.S2, ir.S4, ir.U2, ir.U4:
				out = append(out, subByte{index: i, bits: t.Elem.Bits(), signed: t.Elem == ir.S2 || t.Elem == ir.S4})
			}
		}
	}
	return out
}

// pack stores src's elements (a byte each) bits wide into dst, element k
// at bit (k*bits)%8 of byte k*bits/8: XLA's packing of sub-byte arrays.
func pack(dst, src []byte, bits int) {
	mask := byte(1)<<bits - 1
	per := 8 / bits
	for k, v := range src {
		dst[k/per] |= (v & mask) << ((k % per) * bits)
	}
}

// unpack is pack's inverse, sign-extending signed elements to a byte.
func unpack(dst, src []byte, bits int, signed bool) {
	mask := byte(1)<<bits - 1
	per := 8 / bits
	shift := 8 - bits
	for k := range dst {
		v := src[k/per] >> ((k % per) * bits) & mask
		if signed {
			v = byte(int8(v<<shift) >> shift)
		}
		dst[k] = v
	}
}
