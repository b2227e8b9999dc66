package conformance

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/gojax/gojax/go/ir"
)

// This file reads elements out of gojax buffers (little endian, row major,
// one byte per element for i1 and sub-byte types, complex as re,im pairs)
// so checks can compare them.

// intAt returns integer element i (sign- or zero-extended from its width).
func intAt(e ir.ElemType, buf []byte, i int) int64 {
	size := e.ByteSize()
	var u uint64
	for b := 0; b < size; b++ {
		u |= uint64(buf[i*size+b]) << (8 * b)
	}
	bits := e.Bits()
	if e.IsBool() {
		if u&0xff != 0 {
			return 1
		}
		return 0
	}
	if bits < 64 {
		u &= 1<<bits - 1
		if e.IsSigned() && u&(1<<(bits-1)) != 0 {
			u |= ^uint64(0) << bits
		}
	}
	return int64(u)
}

// uintAt returns the raw bits of element i (for ULP distances), masked to
// the type's width.
func bitsAt(e ir.ElemType, buf []byte, i int) uint64 {
	size := e.ByteSize()
	var u uint64
	for b := 0; b < size; b++ {
		u |= uint64(buf[i*size+b]) << (8 * b)
	}
	if e.Bits() < 64 && !e.IsComplex() {
		u &= 1<<e.Bits() - 1
	}
	return u
}

// floatAt decodes floating-point element i to float64.
func floatAt(e ir.ElemType, buf []byte, i int) float64 {
	switch e {
	case ir.F64:
		return math.Float64frombits(binary.LittleEndian.Uint64(buf[8*i:]))
	case ir.F32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(buf[4*i:])))
	case ir.BF16:
		return float64(math.Float32frombits(uint32(binary.LittleEndian.Uint16(buf[2*i:])) << 16))
	case ir.F16:
		return decodeMinifloat(uint64(binary.LittleEndian.Uint16(buf[2*i:])), f16Format)
	}
	if f, ok := smallFormats[e]; ok {
		return decodeMinifloat(bitsAt(e, buf, i), f)
	}
	return math.NaN()
}

// complexAt decodes complex element i.
func complexAt(e ir.ElemType, buf []byte, i int) complex128 {
	part := ir.F32
	if e == ir.C128 {
		part = ir.F64
	}
	return complex(floatAt(part, buf, 2*i), floatAt(part, buf, 2*i+1))
}

// minifloat describes a narrow float format.
type minifloat struct {
	exp, mant int
	bias      int
	ieee      bool // top exponent encodes inf/NaN
	fn        bool // no inf; all-ones exponent and mantissa is NaN
	uz        bool // no negative zero; 0x80 (sign only) is NaN
	unsigned  bool // no sign bit (f8E8M0FNU)
}

var f16Format = minifloat{exp: 5, mant: 10, bias: 15, ieee: true}

var smallFormats = map[ir.ElemType]minifloat{
	ir.F4E2M1FN:      {exp: 2, mant: 1, bias: 1},
	ir.F6E2M3FN:      {exp: 2, mant: 3, bias: 1},
	ir.F6E3M2FN:      {exp: 3, mant: 2, bias: 3},
	ir.F8E3M4:        {exp: 3, mant: 4, bias: 3, ieee: true},
	ir.F8E4M3:        {exp: 4, mant: 3, bias: 7, ieee: true},
	ir.F8E4M3FN:      {exp: 4, mant: 3, bias: 7, fn: true},
	ir.F8E4M3FNUZ:    {exp: 4, mant: 3, bias: 8, uz: true},
	ir.F8E4M3B11FNUZ: {exp: 4, mant: 3, bias: 11, uz: true},
	ir.F8E5M2:        {exp: 5, mant: 2, bias: 15, ieee: true},
	ir.F8E5M2FNUZ:    {exp: 5, mant: 2, bias: 16, uz: true},
	ir.F8E8M0FNU:     {exp: 8, mant: 0, bias: 127, unsigned: true},
}

func decodeMinifloat(bits uint64, f minifloat) float64 {
	width := f.exp + f.mant
	if !f.unsigned {
		width++
	}
	sign := 1.0
	if !f.unsigned && bits>>(width-1)&1 == 1 {
		sign = -1
	}
	e := int(bits>>f.mant) & (1<<f.exp - 1)
	m := bits & (1<<f.mant - 1)
	maxE := 1<<f.exp - 1
	switch {
	case f.unsigned:
		if e == maxE {
			return math.NaN()
		}
		return math.Ldexp(1, e-f.bias)
	case f.uz && bits == 1<<(width-1):
		return math.NaN()
	case f.ieee && e == maxE:
		if m == 0 {
			return math.Inf(int(sign))
		}
		return math.NaN()
	case f.fn && e == maxE && m == 1<<f.mant-1:
		return math.NaN()
	}
	if e == 0 {
		return sign * math.Ldexp(float64(m), 1-f.bias-f.mant)
	}
	return sign * math.Ldexp(float64(m|1<<f.mant), e-f.bias-f.mant)
}

// formatAt prints element i for failure messages.
func formatAt(e ir.ElemType, buf []byte, i int) string {
	switch {
	case e.IsBool():
		return fmt.Sprint(intAt(e, buf, i) != 0)
	case e.IsSigned():
		return fmt.Sprint(intAt(e, buf, i))
	case e.IsUnsigned():
		return fmt.Sprint(uint64(intAt(e, buf, i)) & mask(e.Bits()))
	case e.IsComplex():
		c := complexAt(e, buf, i)
		return fmt.Sprintf("(%.17g, %.17g)", real(c), imag(c))
	}
	return fmt.Sprintf("%.17g", floatAt(e, buf, i))
}

func mask(bits int) uint64 {
	if bits >= 64 {
		return ^uint64(0)
	}
	return 1<<bits - 1
}

// index formats a flat index as a multi-index of the shape.
func index(shape []int64, flat int) string {
	if len(shape) == 0 {
		return "[]"
	}
	idx := make([]int64, len(shape))
	f := int64(flat)
	for d := len(shape) - 1; d >= 0; d-- {
		if shape[d] > 0 {
			idx[d] = f % shape[d]
			f /= shape[d]
		}
	}
	return fmt.Sprint(idx)
}
