package ir

import (
	"fmt"
	"strings"
)

// Type is a value type: *TensorType, *TokenType or *TupleType.
type Type interface {
	String() string
	isType()
}

// TensorType is a statically shaped tensor. Bounded-dynamic and unranked
// tensors are rejected by the reader, so every dim is >= 0.
type TensorType struct {
	Shape []int64
	Elem  ElemType
	// Quant is set when the elements are !quant.uniform; Elem is then the
	// storage type (quant.go).
	Quant *Quant
}

// TokenType orders side effects; it carries no data.
type TokenType struct{}

// TupleType groups values (only at function boundaries and in a few legacy ops).
type TupleType struct{ Elems []Type }

func (*TensorType) isType() {}
func (*TokenType) isType()  {}
func (*TupleType) isType()  {}

// Tensor builds a tensor type.
func Tensor(elem ElemType, shape ...int64) *TensorType {
	return &TensorType{Shape: append([]int64(nil), shape...), Elem: elem}
}

func (t *TensorType) Rank() int { return len(t.Shape) }

// NumElements is the product of the dims (1 for a scalar).
func (t *TensorType) NumElements() int64 {
	n := int64(1)
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// ByteSize is the storage size of a dense row-major buffer of this type.
func (t *TensorType) ByteSize() int64 { return t.NumElements() * int64(t.Elem.ByteSize()) }

// Strides returns row-major element strides.
func (t *TensorType) Strides() []int64 {
	s := make([]int64, len(t.Shape))
	acc := int64(1)
	for i := len(t.Shape) - 1; i >= 0; i-- {
		s[i] = acc
		acc *= t.Shape[i]
	}
	return s
}

// Equal compares shape and element type (quantization included).
func (t *TensorType) Equal(o *TensorType) bool {
	if o == nil || t.Elem != o.Elem || len(t.Shape) != len(o.Shape) || !t.Quant.Equal(o.Quant) {
		return false
	}
	for i := range t.Shape {
		if t.Shape[i] != o.Shape[i] {
			return false
		}
	}
	return true
}

func (t *TensorType) String() string {
	var b strings.Builder
	b.WriteString("tensor<")
	for _, d := range t.Shape {
		fmt.Fprintf(&b, "%dx", d)
	}
	if t.Quant != nil {
		b.WriteString(t.Quant.ElemString(t.Elem))
	} else {
		b.WriteString(t.Elem.String())
	}
	b.WriteString(">")
	return b.String()
}

func (*TokenType) String() string { return "!stablehlo.token" }

func (t *TupleType) String() string {
	parts := make([]string, len(t.Elems))
	for i, e := range t.Elems {
		parts[i] = e.String()
	}
	return "tuple<" + strings.Join(parts, ", ") + ">"
}

// TypesEqual compares two types structurally.
func TypesEqual(a, b Type) bool {
	switch a := a.(type) {
	case *TensorType:
		bt, ok := b.(*TensorType)
		return ok && a.Equal(bt)
	case *TokenType:
		_, ok := b.(*TokenType)
		return ok
	case *TupleType:
		bt, ok := b.(*TupleType)
		if !ok || len(a.Elems) != len(bt.Elems) {
			return false
		}
		for i := range a.Elems {
			if !TypesEqual(a.Elems[i], bt.Elems[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// FuncType is a function signature.
type FuncType struct {
	Inputs  []Type
	Results []Type
}
