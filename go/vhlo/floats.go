package vhlo

import (
	"encoding/binary"
	"math"

	"github.com/gojax/gojax/go/ir"
)

// miniFloat describes a small IEEE-like binary float format.
type miniFloat struct {
	exp, man int
	bias     int
	mode     uint8 // ieee: inf and NaNs; fn: no inf, NaN = all ones; fnuz: NaN = 0x80 pattern, no -0; finite: no inf/NaN
	unsigned bool
}

const (
	modeIEEE = iota
	modeFN
	modeFNUZ
	modeFinite
)

var miniFloats = map[ir.ElemType]miniFloat{
	ir.F16:           {5, 10, 15, modeIEEE, false},
	ir.BF16:          {8, 7, 127, modeIEEE, false},
	ir.F8E5M2:        {5, 2, 15, modeIEEE, false},
	ir.F8E4M3:        {4, 3, 7, modeIEEE, false},
	ir.F8E3M4:        {3, 4, 3, modeIEEE, false},
	ir.F8E4M3FN:      {4, 3, 7, modeFN, false},
	ir.F8E4M3FNUZ:    {4, 3, 8, modeFNUZ, false},
	ir.F8E5M2FNUZ:    {5, 2, 16, modeFNUZ, false},
	ir.F8E4M3B11FNUZ: {4, 3, 11, modeFNUZ, false},
	ir.F8E8M0FNU:     {8, 0, 127, modeFN, true},
	ir.F4E2M1FN:      {2, 1, 1, modeFinite, false},
	ir.F6E2M3FN:      {2, 3, 1, modeFinite, false},
	ir.F6E3M2FN:      {3, 2, 3, modeFinite, false},
}

// floatValue converts the little-endian bit pattern of a float of type t to
// float64.
func floatValue(t ir.ElemType, b []byte) float64 {
	switch t {
	case ir.F32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	case ir.F64:
		return math.Float64frombits(binary.LittleEndian.Uint64(b))
	}
	f, ok := miniFloats[t]
	if !ok {
		return math.NaN()
	}
	bits := binary.LittleEndian.Uint64(b)
	return f.value(bits)
}

func (f miniFloat) value(bits uint64) float64 {
	total := f.exp + f.man
	if !f.unsigned {
		total++
	}
	bits &= 1<<total - 1
	neg := !f.unsigned && bits>>(total-1)&1 == 1
	e := int(bits >> f.man & (1<<f.exp - 1))
	m := bits & (1<<f.man - 1)
	sign := 1.0
	if neg {
		sign = -1
	}
	allExp := 1<<f.exp - 1
	switch f.mode {
	case modeIEEE:
		if e == allExp {
			if m == 0 {
				return math.Inf(int(sign))
			}
			return math.NaN()
		}
	case modeFN:
		if e == allExp && m == 1<<f.man-1 {
			return math.NaN()
		}
	case modeFNUZ:
		if neg && e == 0 && m == 0 {
			return math.NaN()
		}
	}
	if f.man == 0 { // e8m0: pure power of two
		return math.Ldexp(1, e-f.bias)
	}
	if e == 0 {
		return sign * math.Ldexp(float64(m), 1-f.bias-f.man)
	}
	return sign * math.Ldexp(float64(m|1<<f.man), e-f.bias-f.man)
}
