// Package lowerutil holds the attribute and index helpers that the shape and
// reduce kernel families share when lowering ops.
package lowerutil

import (
	"github.com/gojax/gojax/go/ir"
)

// tensorOperand returns operand i as a tensor type or an error naming the op.
func TensorOperand(op *ir.Op, i int) (*ir.TensorType, error) {
	if i >= len(op.Operands) {
		return nil, op.Errorf("expected at least %d operands, got %d", i+1, len(op.Operands))
	}
	t := op.Operands[i].Tensor()
	if t == nil {
		return nil, op.Errorf("operand %d is %s, not a tensor", i, op.Operands[i].Type)
	}
	return t, nil
}

// tensorResult returns result i as a tensor type.
func TensorResult(op *ir.Op, i int) (*ir.TensorType, error) {
	if i >= len(op.Results) {
		return nil, op.Errorf("expected at least %d results, got %d", i+1, len(op.Results))
	}
	t := op.Results[i].Tensor()
	if t == nil {
		return nil, op.Errorf("result %d is %s, not a tensor", i, op.Results[i].Type)
	}
	return t, nil
}

// unary checks a one-operand one-result op and returns both types.
func Unary(op *ir.Op) (in, out *ir.TensorType, err error) {
	if len(op.Operands) != 1 || len(op.Results) != 1 {
		return nil, nil, op.Errorf("expected 1 operand and 1 result, got %d and %d", len(op.Operands), len(op.Results))
	}
	if in, err = TensorOperand(op, 0); err != nil {
		return nil, nil, err
	}
	if out, err = TensorResult(op, 0); err != nil {
		return nil, nil, err
	}
	return in, out, nil
}

// i64s reads a required integer-list attribute.
func I64s(op *ir.Op, name string) ([]int64, error) {
	v, ok := op.Attrs.I64s(name)
	if !ok {
		if _, present := op.Attrs[name]; present {
			return nil, op.Errorf("attribute %s is %s, not an integer list", name, op.Attrs[name])
		}
		return nil, op.Errorf("missing attribute %s", name)
	}
	return v, nil
}

// optI64s reads an optional integer-list attribute (nil when absent).
func OptI64s(op *ir.Op, name string) ([]int64, error) {
	if _, present := op.Attrs[name]; !present {
		return nil, nil
	}
	return I64s(op, name)
}

// optBool reads an optional boolean attribute, accepting BoolAttr or an i1 IntAttr.
func OptBool(op *ir.Op, name string) (bool, error) {
	a, present := op.Attrs[name]
	if !present {
		return false, nil
	}
	switch v := a.(type) {
	case ir.BoolAttr:
		return v.Value, nil
	case ir.IntAttr:
		return v.Value != 0, nil
	case ir.UnitAttr:
		return true, nil
	}
	return false, op.Errorf("attribute %s is %s, not a bool", name, a)
}

// ints converts dims to int.
func Ints(v []int64) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}

// isPerm reports whether p is a permutation of [0,n).
func IsPerm(p []int64, n int) bool {
	if len(p) != n {
		return false
	}
	seen := make([]bool, n)
	for _, x := range p {
		if x < 0 || int(x) >= n || seen[x] {
			return false
		}
		seen[x] = true
	}
	return true
}

// sameShape compares two shapes.
func SameShape(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// readIndex reads element i of an integer tensor of type et as int64.
// Unsigned 64-bit values above MaxInt64 saturate, which is enough for clamping.
func ReadIndex(b []byte, et ir.ElemType, i int) int64 {
	switch et.ByteSize() {
	case 1:
		v := b[i]
		if et.IsSigned() {
			return SignExtend(uint64(v), et.Bits())
		}
		if et.IsUnsigned() {
			return int64(v) & (1<<et.Bits() - 1)
		}
		return int64(v)
	case 2:
		v := uint16(b[2*i]) | uint16(b[2*i+1])<<8
		if et.IsSigned() {
			return int64(int16(v))
		}
		return int64(v)
	case 4:
		o := 4 * i
		v := uint32(b[o]) | uint32(b[o+1])<<8 | uint32(b[o+2])<<16 | uint32(b[o+3])<<24
		if et.IsSigned() {
			return int64(int32(v))
		}
		return int64(v)
	default:
		o := 8 * i
		v := uint64(b[o]) | uint64(b[o+1])<<8 | uint64(b[o+2])<<16 | uint64(b[o+3])<<24 |
			uint64(b[o+4])<<32 | uint64(b[o+5])<<40 | uint64(b[o+6])<<48 | uint64(b[o+7])<<56
		if et.IsUnsigned() && v > 1<<63-1 {
			return 1<<63 - 1
		}
		return int64(v)
	}
}

// signExtend interprets the low bits of v as a two's-complement number.
func SignExtend(v uint64, bits int) int64 {
	s := 64 - uint(bits)
	return int64(v<<s) >> s
}

// isIndexType reports element types usable as indices.
func IsIndexType(et ir.ElemType) bool { return et.IsInteger() }

func Clamp(v, lo, hi int64) int64 {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// intAttr reads a required integer attribute.
func IntAttr(op *ir.Op, name string) (int64, error) {
	v, ok := op.Attrs.Int(name)
	if !ok {
		if a, present := op.Attrs[name]; present {
			return 0, op.Errorf("attribute %s is %s, not an integer", name, a)
		}
		return 0, op.Errorf("missing attribute %s", name)
	}
	return v, nil
}

func Numel(shape []int64) int64 {
	n := int64(1)
	for _, d := range shape {
		n *= d
	}
	return n
}
