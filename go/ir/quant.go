package ir

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Quant is the quantization of a tensor whose element type is
// !quant.uniform: each stored integer q stands for the real value
// (q - zero_point) * scale (StableHLO spec, "Quantized element types").
// The tensor's Elem is the storage type, so ops that only move elements
// (reshape, transpose, slice, gather, …) run on the storage values as they
// are; the compiler's quant pass rewrites every other op into storage and
// float arithmetic before any kernel sees it.
type Quant struct {
	Expressed  ElemType  // the float type the values are expressed in
	Scales     []float64 // one per tensor, or one per index along Axis
	ZeroPoints []int64   // as many as Scales
	Axis       int       // the quantized dimension; -1 for per-tensor quantization
	Min, Max   int64     // storage range, within the storage type's
}

// PerAxis reports per-axis quantization (a scale per index of Axis).
func (q *Quant) PerAxis() bool { return q.Axis >= 0 }

// Equal compares every parameter; two nil Quants are equal.
func (q *Quant) Equal(o *Quant) bool {
	if q == nil || o == nil {
		return q == o
	}
	return q.Expressed == o.Expressed && q.Axis == o.Axis && q.Min == o.Min && q.Max == o.Max &&
		slices.Equal(q.Scales, o.Scales) && slices.Equal(q.ZeroPoints, o.ZeroPoints)
}

// StorageRange is the full range of a storage type: [-2^(b-1), 2^(b-1)-1]
// signed, [0, 2^b-1] unsigned.
func StorageRange(storage ElemType) (lo, hi int64) {
	b := storage.Bits()
	if storage.IsUnsigned() {
		if b >= 64 {
			return 0, math.MaxInt64
		}
		return 0, 1<<b - 1
	}
	if b >= 64 {
		return math.MinInt64, math.MaxInt64
	}
	return -(1 << (b - 1)), 1<<(b-1) - 1
}

// ElemString is the MLIR spelling of the element type with storage type
// storage: !quant.uniform<i8:f32, 0.5:-3> or, per axis,
// !quant.uniform<i8<-127:127>:f32:1, {0.5,0.25:2}>.
func (q *Quant) ElemString(storage ElemType) string {
	var b strings.Builder
	b.WriteString("!quant.uniform<")
	if storage.IsUnsigned() {
		b.WriteString("u" + strconv.Itoa(storage.Bits()))
	} else {
		b.WriteString("i" + strconv.Itoa(storage.Bits()))
	}
	if lo, hi := StorageRange(storage); q.Min != lo || q.Max != hi {
		b.WriteString("<" + strconv.FormatInt(q.Min, 10) + ":" + strconv.FormatInt(q.Max, 10) + ">")
	}
	b.WriteString(":" + q.Expressed.String())
	param := func(i int) {
		b.WriteString(strconv.FormatFloat(q.Scales[i], 'g', -1, 64))
		if q.ZeroPoints[i] != 0 {
			b.WriteString(":" + strconv.FormatInt(q.ZeroPoints[i], 10))
		}
	}
	if q.PerAxis() {
		b.WriteString(":" + strconv.Itoa(q.Axis) + ", {")
		for i := range q.Scales {
			if i > 0 {
				b.WriteString(",")
			}
			param(i)
		}
		b.WriteString("}>")
		return b.String()
	}
	b.WriteString(", ")
	param(0)
	b.WriteString(">")
	return b.String()
}

// Quantized builds a tensor type of quantized elements stored as storage.
func Quantized(storage ElemType, q *Quant, shape ...int64) *TensorType {
	t := Tensor(storage, shape...)
	t.Quant = q
	return t
}

// StorageType is t without its quantization: the tensor of stored integers.
func (t *TensorType) StorageType() *TensorType {
	if t.Quant == nil {
		return t
	}
	return &TensorType{Shape: t.Shape, Elem: t.Elem}
}

// ExpressedType is the float tensor a quantized t stands for (t itself when
// it is not quantized).
func (t *TensorType) ExpressedType() *TensorType {
	if t.Quant == nil {
		return t
	}
	return &TensorType{Shape: t.Shape, Elem: t.Quant.Expressed}
}

// TypeQuantized reports a quantized tensor type, or a tuple holding one.
func TypeQuantized(t Type) bool {
	switch t := t.(type) {
	case *TensorType:
		return t.Quant != nil
	case *TupleType:
		for _, e := range t.Elems {
			if TypeQuantized(e) {
				return true
			}
		}
	}
	return false
}

// OpQuantized reports an op with a quantized operand, result or region
// argument.
func OpQuantized(op *Op) bool {
	for _, v := range op.Operands {
		if v != nil && TypeQuantized(v.Type) {
			return true
		}
	}
	for _, v := range op.Results {
		if v != nil && TypeQuantized(v.Type) {
			return true
		}
	}
	for _, r := range op.Regions {
		if r == nil {
			continue
		}
		for _, b := range r.Blocks {
			if b == nil {
				continue
			}
			for _, a := range b.Args {
				if a != nil && TypeQuantized(a.Type) {
					return true
				}
			}
		}
	}
	return false
}

// CheckQuant checks the spec's constraints on a quantized element type
// stored as storage: an integer storage type, a float expressed type, a
// storage range within the storage type's, positive finite scales, zero
// points in the range, as many zero points as scales, and one of each per
// tensor unless quantized per axis. (Per axis, the tensor's shape must have
// len(Scales) along Axis: CheckQuantShape.)
func CheckQuant(storage ElemType, q *Quant) error {
	if !storage.IsInteger() {
		return fmt.Errorf("storage type %s is not an integer type", storage)
	}
	if !q.Expressed.IsFloat() {
		return fmt.Errorf("expressed type %s is not a float type", q.Expressed)
	}
	lo, hi := StorageRange(storage)
	if q.Min < lo || q.Max > hi || q.Min > q.Max {
		return fmt.Errorf("storage range [%d, %d] outside %s", q.Min, q.Max, storage)
	}
	if len(q.Scales) == 0 || len(q.Scales) != len(q.ZeroPoints) || !q.PerAxis() && (q.Axis != -1 || len(q.Scales) != 1) {
		return fmt.Errorf("%d scales and %d zero points", len(q.Scales), len(q.ZeroPoints))
	}
	for i, s := range q.Scales {
		if !(s > 0) || math.IsInf(s, 0) {
			return fmt.Errorf("scale %v is not positive and finite", s)
		}
		if zp := q.ZeroPoints[i]; zp < q.Min || zp > q.Max {
			return fmt.Errorf("zero point %d outside the storage range [%d, %d]", zp, q.Min, q.Max)
		}
	}
	return nil
}

// CheckQuantShape checks that per-axis quantization fits a tensor shape:
// one scale per index of dimension Axis.
func CheckQuantShape(q *Quant, shape []int64) error {
	if q.PerAxis() && (q.Axis >= len(shape) || int64(len(q.Scales)) != shape[q.Axis]) {
		return fmt.Errorf("per-axis quantization along dimension %d does not fit the shape %v (%d scales)", q.Axis, shape, len(q.Scales))
	}
	return nil
}
