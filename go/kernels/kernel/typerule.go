package kernel

import (
	"slices"

	"github.com/gojax/gojax/go/ir"
)

// TypeRule is an op's StableHLO type rule beyond its counts, registered
// with its kernel (Traits.TypeRule) and applied by the verifier once it
// has checked that the op has Arity tensor operands, one tensor result
// and no regions. The helpers below word its errors as the verifier words
// its own, so a rule reads the same wherever it is written.
type TypeRule func(op *ir.Op, ins []*ir.TensorType, out *ir.TensorType) error

// Has reports whether e belongs to the class.
func (c ElemClass) Has(e ir.ElemType) bool {
	switch {
	case e.IsBool():
		return c&ClassBool != 0
	case e.IsSigned():
		return c&ClassSigned != 0
	case e.IsUnsigned():
		return c&ClassUnsigned != 0
	case e.IsFloat():
		return c&ClassFloat != 0
	case e.IsComplex():
		return c&ClassComplex != 0
	}
	return false
}

// String lists the class's kinds in words ("signed integer or floating-point").
func (c ElemClass) String() string {
	var parts []string
	for _, p := range []struct {
		c ElemClass
		s string
	}{{ClassBool, "boolean"}, {ClassSigned, "signed integer"}, {ClassUnsigned, "unsigned integer"}, {ClassFloat, "floating-point"}, {ClassComplex, "complex"}} {
		if c&p.c != 0 {
			parts = append(parts, p.s)
		}
	}
	s := ""
	for i, p := range parts {
		if i > 0 {
			if i == len(parts)-1 {
				s += " or "
			} else {
				s += ", "
			}
		}
		s += p
	}
	return s
}

// ElemIn checks that a tensor's element type belongs to the class.
func ElemIn(op *ir.Op, role string, t *ir.TensorType, c ElemClass) error {
	if !c.Has(t.Elem) {
		return op.Errorf("%s has element type %s; expected %s", role, t.Elem, c)
	}
	return nil
}

// SameType checks two tensors are of equal type.
func SameType(op *ir.Op, what string, a, b *ir.TensorType) error {
	if !a.Equal(b) {
		return op.Errorf("%s: %s vs %s", what, a, b)
	}
	return nil
}

// SameShape checks equal shapes whatever the element types.
func SameShape(op *ir.Op, what string, a, b *ir.TensorType) error {
	if !slices.Equal(a.Shape, b.Shape) {
		return op.Errorf("%s: shape %v vs %v", what, a.Shape, b.Shape)
	}
	return nil
}

// WantShape checks a shape against the inferred one.
func WantShape(op *ir.Op, role string, t *ir.TensorType, shape []int64) error {
	if !slices.Equal(t.Shape, shape) {
		// A copy goes to the message, so callers may build shape on the stack.
		return op.Errorf("%s has shape %v; expected %v", role, t.Shape, slices.Clone(shape))
	}
	return nil
}

// WantElem checks an element type.
func WantElem(op *ir.Op, role string, t *ir.TensorType, e ir.ElemType) error {
	if t.Elem != e {
		return op.Errorf("%s has element type %s; expected %s", role, t.Elem, e)
	}
	return nil
}

// IntAttr returns an integer attribute (def when absent and not required).
func IntAttr(op *ir.Op, name string, required bool, def int64) (int64, error) {
	a, ok := op.Attrs[name]
	if !ok {
		if required {
			return 0, op.Errorf("missing required attribute %s", name)
		}
		return def, nil
	}
	if x, ok := a.(ir.IntAttr); ok {
		return x.Value, nil
	}
	return 0, op.Errorf("attribute %s must be an integer, is %s", name, a)
}

// EnumAttr returns an enum attribute's value (def when absent and not
// required), checking it against the allowed spellings.
func EnumAttr(op *ir.Op, name string, required bool, def string, allowed ...string) (string, error) {
	a, ok := op.Attrs[name]
	if !ok {
		if required {
			return "", op.Errorf("missing required attribute %s", name)
		}
		return def, nil
	}
	x, ok := a.(ir.EnumAttr)
	if !ok {
		return "", op.Errorf("attribute %s must be an enum, is %s", name, a)
	}
	if !slices.Contains(allowed, x.Value) {
		return "", op.Errorf("attribute %s has value %s; expected one of %v", name, x.Value, allowed)
	}
	return x.Value, nil
}
