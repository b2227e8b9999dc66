package linalg

import (
	"encoding/binary"

	"github.com/gojax/gojax/go/ir"
)

// The VHLO reader normalizes integer lists to ir.DenseI64Attr, but older
// producers and hand-built IR may carry them as dense tensors or arrays of
// integers; accepting every spelling keeps the kernels independent of that.

// i64List reads an integer-list attribute; ok is false when the attribute is
// absent, and err is set when it is present in a form that is not a list.
func i64List(op *ir.Op, name string) (vals []int64, ok bool, err error) {
	a, present := op.Attrs[name]
	if !present {
		return nil, false, nil
	}
	switch a := a.(type) {
	case ir.DenseI64Attr:
		return a.Values, true, nil
	case *ir.ElementsAttr:
		if a.Type == nil || !a.Type.Elem.IsInteger() {
			break
		}
		n := int(a.Type.NumElements())
		sz := a.Type.Elem.ByteSize()
		if len(a.Data) != n*sz {
			break
		}
		out := make([]int64, n)
		for i := range out {
			out[i] = loadInt(a.Type.Elem, a.Data, i)
		}
		return out, true, nil
	case ir.ArrayAttr:
		out := make([]int64, len(a.Elems))
		for i, e := range a.Elems {
			v, isInt := e.(ir.IntAttr)
			if !isInt {
				return nil, true, op.Errorf("attribute %s: element %d is %s, want an integer", name, i, e)
			}
			out[i] = v.Value
		}
		return out, true, nil
	}
	return nil, true, op.Errorf("attribute %s is %s, want an integer list", name, a)
}

// boolList reads a bool-list attribute (window_reversal).
func boolList(op *ir.Op, name string) (vals []bool, ok bool, err error) {
	a, present := op.Attrs[name]
	if !present {
		return nil, false, nil
	}
	switch a := a.(type) {
	case ir.DenseBoolAttr:
		return a.Values, true, nil
	case *ir.ElementsAttr:
		if a.Type == nil {
			break
		}
		n := int(a.Type.NumElements())
		if len(a.Data) != n*a.Type.Elem.ByteSize() {
			break
		}
		out := make([]bool, n)
		for i := range out {
			out[i] = loadInt(a.Type.Elem, a.Data, i) != 0
		}
		return out, true, nil
	case ir.ArrayAttr:
		out := make([]bool, len(a.Elems))
		for i, e := range a.Elems {
			switch v := e.(type) {
			case ir.BoolAttr:
				out[i] = v.Value
			case ir.IntAttr:
				out[i] = v.Value != 0
			default:
				return nil, true, op.Errorf("attribute %s: element %d is %s, want a bool", name, i, e)
			}
		}
		return out, true, nil
	}
	return nil, true, op.Errorf("attribute %s is %s, want a bool list", name, a)
}

// intAttr reads a scalar integer attribute, with def when absent.
func intAttr(op *ir.Op, name string, def int64) (int64, error) {
	a, present := op.Attrs[name]
	if !present {
		return def, nil
	}
	switch a := a.(type) {
	case ir.IntAttr:
		return a.Value, nil
	case *ir.ElementsAttr:
		if a.Type != nil && a.Type.Elem.IsInteger() && a.Type.NumElements() == 1 && len(a.Data) == a.Type.Elem.ByteSize() {
			return loadInt(a.Type.Elem, a.Data, 0), nil
		}
	}
	return 0, op.Errorf("attribute %s is %s, want an integer", name, a)
}

// boolAttr reads a scalar bool attribute, with def when absent.
func boolAttr(op *ir.Op, name string, def bool) (bool, error) {
	a, present := op.Attrs[name]
	if !present {
		return def, nil
	}
	switch a := a.(type) {
	case ir.BoolAttr:
		return a.Value, nil
	case ir.IntAttr:
		return a.Value != 0, nil
	case ir.UnitAttr:
		return true, nil
	}
	return false, op.Errorf("attribute %s is %s, want a bool", name, a)
}

// enumAttr reads an enum attribute (or a string spelling of one), with def when absent.
func enumAttr(op *ir.Op, name, def string) (string, error) {
	a, present := op.Attrs[name]
	if !present {
		return def, nil
	}
	switch a := a.(type) {
	case ir.EnumAttr:
		return a.Value, nil
	case ir.StringAttr:
		return a.Value, nil
	}
	return "", op.Errorf("attribute %s is %s, want an enum", name, a)
}

// checkPrecision accepts precision_config: every value is computed at full
// precision of the compute type, which satisfies DEFAULT, HIGH and HIGHEST.
func checkPrecision(op *ir.Op, n int) error {
	a, present := op.Attrs["precision_config"]
	if !present {
		return nil
	}
	arr, ok := a.(ir.ArrayAttr)
	if !ok {
		return op.Errorf("precision_config is %s, want an array of precisions", a)
	}
	if len(arr.Elems) != 0 && len(arr.Elems) != n {
		return op.Errorf("precision_config has %d entries, want 0 or %d", len(arr.Elems), n)
	}
	for _, e := range arr.Elems {
		var v string
		switch e := e.(type) {
		case ir.EnumAttr:
			v = e.Value
		case ir.StringAttr:
			v = e.Value
		default:
			return op.Errorf("precision_config entry %s is not a precision", e)
		}
		switch v {
		case "DEFAULT", "HIGH", "HIGHEST":
		default:
			return op.Errorf("unknown precision %q", v)
		}
	}
	return nil
}

// loadInt reads element i of an integer or bool buffer, sign- or zero-extended.
func loadInt(t ir.ElemType, b []byte, i int) int64 {
	switch t.ByteSize() {
	case 1:
		v := b[i]
		// Sub-byte types take one byte; use only their low bits so the
		// result does not depend on how the upper bits were filled.
		sh := uint(8 - t.Bits())
		if t.IsSigned() {
			return int64(int8(v<<sh) >> sh)
		}
		if t == ir.Pred {
			if v != 0 {
				return 1
			}
			return 0
		}
		return int64(v << sh >> sh)
	case 2:
		v := binary.LittleEndian.Uint16(b[2*i:])
		if t.IsSigned() {
			return int64(int16(v))
		}
		return int64(v)
	case 4:
		v := binary.LittleEndian.Uint32(b[4*i:])
		if t.IsSigned() {
			return int64(int32(v))
		}
		return int64(v)
	default:
		return int64(binary.LittleEndian.Uint64(b[8*i:]))
	}
}
