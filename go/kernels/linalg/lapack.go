package linalg

import (
	"fmt"
	"strings"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// The LAPACK custom calls jaxlib registers for the CPU platform
// (lapack_<s|d|c|z><routine>_ffi, typed FFI). Their operands and results are
// the logical matrices LAPACK sees: JAX gives every matrix-rank operand and
// result a column-major layout, so element (i, j) of a gojax row-major buffer
// is LAPACK's A(i, j). Attributes arrive as a dictionary (backend_config, or
// mhlo.backend_config in older serializations) of ui8 characters ('L', 'N',
// 'V', …) and i32 integers.

type lapackLower func(ctx kernel.Context, cc *customCall) (kernel.Step, error)

func registerLapack(prefixes string, routine string, l lapackLower) {
	for _, p := range prefixes {
		target := fmt.Sprintf("lapack_%c%s_ffi", p, routine)
		elem := map[rune]ir.ElemType{'s': ir.F32, 'd': ir.F64, 'c': ir.C64, 'z': ir.C128}[p]
		kernel.RegisterCustomCall(target, func(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
			cc, err := newCustomCall(op, target, elem)
			if err != nil {
				return failWhenRun(err), nil
			}
			step, err := l(ctx, cc)
			if err != nil {
				return failWhenRun(err), nil
			}
			return step, nil
		})
	}
}

// failWhenRun is the step of a call whose operands, results or attributes
// do not fit its target: the program compiles and the call fails when it
// runs, as XLA's FFI binding checks them per call.
func failWhenRun(err error) kernel.Step {
	return func(_, _ [][]byte) error { return err }
}

// customCall is a parsed LAPACK custom call.
type customCall struct {
	op     *ir.Op
	target string
	elem   ir.ElemType // the element type the target name promises
	cfg    ir.Attrs
	ins    []*ir.TensorType
	outs   []*ir.TensorType
}

func newCustomCall(op *ir.Op, target string, elem ir.ElemType) (*customCall, error) {
	cc := &customCall{op: op, target: target, elem: elem, cfg: ir.Attrs{}}
	for _, key := range []string{"backend_config", "mhlo.backend_config"} {
		switch a := op.Attrs[key].(type) {
		case ir.DictAttr:
			cc.cfg = a.Entries
		case ir.StringAttr:
			if a.Value != "" {
				return nil, op.Errorf("%s: backend_config is an opaque string; typed-FFI attributes (a dictionary) were expected", target)
			}
		}
		if len(cc.cfg) > 0 {
			break
		}
	}
	for i, v := range op.Operands {
		t := v.Tensor()
		if t == nil {
			return nil, op.Errorf("%s: operand %d is not a tensor", target, i)
		}
		cc.ins = append(cc.ins, t)
	}
	for i, v := range op.Results {
		t := v.Tensor()
		if t == nil {
			return nil, op.Errorf("%s: result %d is not a tensor (tuple results are not supported)", target, i)
		}
		cc.outs = append(cc.outs, t)
	}
	if err := cc.checkLayouts("operand_layouts", cc.ins); err != nil {
		return nil, err
	}
	if err := cc.checkLayouts("result_layouts", cc.outs); err != nil {
		return nil, err
	}
	return cc, nil
}

// checkLayouts accepts the layouts JAX emits: column-major matrices for the
// highest-rank values and row-major (default) for the rest. Anything else
// would change what LAPACK sees, so it is refused rather than misread.
func (cc *customCall) checkLayouts(name string, types []*ir.TensorType) error {
	a, ok := cc.op.Attrs[name]
	if !ok {
		for i, t := range types {
			if t.Rank() >= 2 {
				return cc.errorf("%s: value %d (%s) has the default row-major layout; LAPACK targets need column-major matrices", name, i, t)
			}
		}
		return nil
	}
	arr, ok := a.(ir.ArrayAttr)
	if !ok || len(arr.Elems) != len(types) {
		return cc.errorf("%s is %s, want one layout per value", name, a)
	}
	maxRank := 0
	for _, t := range types {
		maxRank = max(maxRank, t.Rank())
	}
	for i, e := range arr.Elems {
		layout, err := attrI64s(e)
		if err != nil {
			return cc.errorf("%s[%d]: %v", name, i, err)
		}
		r := types[i].Rank()
		want := make([]int64, 0, r)
		if r >= 2 && r == maxRank {
			want = append(want, int64(r-2), int64(r-1))
			for d := r - 3; d >= 0; d-- {
				want = append(want, int64(d))
			}
		} else {
			for d := r - 1; d >= 0; d-- {
				want = append(want, int64(d))
			}
		}
		if r <= 1 && len(layout) == r {
			continue // a vector or scalar has only one layout
		}
		if fmt.Sprint(layout) != fmt.Sprint(want) {
			return cc.errorf("%s[%d] = %v for %s: only the layouts JAX emits (%v) are supported", name, i, layout, types[i], want)
		}
	}
	return nil
}

func attrI64s(a ir.Attr) ([]int64, error) {
	switch a := a.(type) {
	case ir.DenseI64Attr:
		return a.Values, nil
	case *ir.ElementsAttr:
		if a.Type == nil || len(a.Data) != int(a.Type.ByteSize()) {
			break
		}
		et := a.Type.Elem
		if !et.IsInteger() && et != ir.Invalid {
			break
		}
		n := int(a.Type.NumElements())
		out := make([]int64, n)
		sz := 8
		if n > 0 {
			sz = len(a.Data) / n
		}
		for i := range out {
			switch sz {
			case 4:
				out[i] = loadInt(ir.S32, a.Data, i)
			default:
				out[i] = loadInt(ir.S64, a.Data, i)
			}
		}
		return out, nil
	case ir.ArrayAttr:
		out := make([]int64, len(a.Elems))
		for i, e := range a.Elems {
			v, ok := e.(ir.IntAttr)
			if !ok {
				return nil, fmt.Errorf("element %d is %s", i, e)
			}
			out[i] = v.Value
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s is not an integer list", a)
}

func (cc *customCall) errorf(format string, args ...any) error {
	return cc.op.Errorf("%s: %s", cc.target, fmt.Sprintf(format, args...))
}

// char reads a ui8 character attribute ('L', 'N', …); def when absent.
func (cc *customCall) char(name string, def byte, allowed string) (byte, error) {
	a, ok := cc.cfg[name]
	if !ok {
		if def == 0 {
			return 0, cc.errorf("missing attribute %s", name)
		}
		return def, nil
	}
	v, isInt := a.(ir.IntAttr)
	if !isInt || v.Value < 0 || v.Value > 255 {
		return 0, cc.errorf("attribute %s is %s, want a ui8 character", name, a)
	}
	c := byte(v.Value)
	if !strings.ContainsRune(allowed, rune(c)) {
		return 0, cc.errorf("attribute %s = %q, want one of %q", name, c, allowed)
	}
	return c, nil
}

// bool reads a boolean attribute (a BoolAttr, or an i1 integer).
func (cc *customCall) bool(name string) (bool, error) {
	switch a := cc.cfg[name].(type) {
	case ir.BoolAttr:
		return a.Value, nil
	case ir.IntAttr:
		return a.Value != 0, nil
	case nil:
		return false, cc.errorf("missing attribute %s", name)
	default:
		return false, cc.errorf("attribute %s is %s, want a bool", name, a)
	}
}

// int reads an integer attribute.
func (cc *customCall) int(name string) (int, error) {
	a, ok := cc.cfg[name]
	if !ok {
		return 0, cc.errorf("missing attribute %s", name)
	}
	v, isInt := a.(ir.IntAttr)
	if !isInt {
		return 0, cc.errorf("attribute %s is %s, want an integer", name, a)
	}
	return int(v.Value), nil
}

// expect checks operand and result counts and types. Each shape is given as
// the trailing dims after a batch shape shared by all values; -1 matches any.
func (cc *customCall) expect(ins, outs []spec) (batch []int64, err error) {
	if len(cc.ins) != len(ins) || len(cc.outs) != len(outs) {
		return nil, cc.errorf("want %d operands and %d results, have %d and %d", len(ins), len(outs), len(cc.ins), len(cc.outs))
	}
	check := func(what string, i int, t *ir.TensorType, s spec) error {
		if t.Elem != s.elem {
			return cc.errorf("%s %d is %s, want element type %s", what, i, t, s.elem)
		}
		if t.Rank() < len(s.dims) {
			return cc.errorf("%s %d is %s, want rank at least %d", what, i, t, len(s.dims))
		}
		nb := t.Rank() - len(s.dims)
		if batch == nil {
			batch = append([]int64{}, t.Shape[:nb]...)
		} else if fmt.Sprint(batch) != fmt.Sprint(t.Shape[:nb]) {
			return cc.errorf("%s %d is %s: batch dims differ from %v", what, i, t, batch)
		}
		for k, d := range s.dims {
			if d >= 0 && t.Shape[nb+k] != int64(d) {
				return cc.errorf("%s %d is %s, want trailing dims %v", what, i, t, s.dims)
			}
		}
		return nil
	}
	for i, s := range ins {
		if err := check("operand", i, cc.ins[i], s); err != nil {
			return nil, err
		}
	}
	for i, s := range outs {
		if err := check("result", i, cc.outs[i], s); err != nil {
			return nil, err
		}
	}
	return batch, nil
}

type spec struct {
	elem ir.ElemType
	dims []int
}

func realOf(t ir.ElemType) ir.ElemType {
	switch t {
	case ir.C64:
		return ir.F32
	case ir.C128:
		return ir.F64
	}
	return t
}

func complexOf(t ir.ElemType) ir.ElemType {
	switch t {
	case ir.F32:
		return ir.C64
	case ir.F64:
		return ir.C128
	}
	return t
}

func numel(shape []int64) int { return int(ir.Tensor(ir.F32, shape...).NumElements()) }

// putI32s writes int32 values into a buffer.
func putI32s(dst []byte, vals []int32) {
	for i, v := range vals {
		putU32(dst[4*i:], uint32(v))
	}
}

func putU32(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}
