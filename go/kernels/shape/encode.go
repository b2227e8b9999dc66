package shape

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/lowerutil"
)

// floatFormat describes a binary floating-point storage format.
type floatFormat struct {
	exp, mant, bias int
	maxFinite       float64
	unsignedE8M0    bool // f8E8M0FNU: exponent only, no sign
}

func ieeeMax(e, m, bias int) float64 { return (2 - math.Ldexp(1, -m)) * math.Ldexp(1, (1<<e)-2-bias) }
func fullMax(e, m, bias int) float64 { return (2 - math.Ldexp(1, -m)) * math.Ldexp(1, (1<<e)-1-bias) }

var floatFormats = map[ir.ElemType]floatFormat{
	ir.F16:           {5, 10, 15, ieeeMax(5, 10, 15), false},
	ir.BF16:          {8, 7, 127, ieeeMax(8, 7, 127), false},
	ir.F8E5M2:        {5, 2, 15, ieeeMax(5, 2, 15), false},
	ir.F8E4M3:        {4, 3, 7, ieeeMax(4, 3, 7), false},
	ir.F8E3M4:        {3, 4, 3, ieeeMax(3, 4, 3), false},
	ir.F8E4M3FN:      {4, 3, 7, 448, false},
	ir.F8E4M3FNUZ:    {4, 3, 8, fullMax(4, 3, 8), false},
	ir.F8E4M3B11FNUZ: {4, 3, 11, fullMax(4, 3, 11), false},
	ir.F8E5M2FNUZ:    {5, 2, 16, fullMax(5, 2, 16), false},
	ir.F6E2M3FN:      {2, 3, 1, fullMax(2, 3, 1), false},
	ir.F6E3M2FN:      {3, 2, 3, fullMax(3, 2, 3), false},
	ir.F4E2M1FN:      {2, 1, 1, fullMax(2, 1, 1), false},
	ir.F8E8M0FNU:     {8, 0, 127, math.Ldexp(1, 127), true},
}

// encodeFinite rounds v (finite, |v| <= maxFinite) to the format, nearest even.
func (f floatFormat) encodeFinite(v float64) uint64 {
	sign := uint64(0)
	if math.Signbit(v) {
		sign = 1 << (f.exp + f.mant)
		v = -v
	}
	if v == 0 {
		return sign
	}
	if f.unsignedE8M0 {
		_, e := math.Frexp(v)
		return uint64(e - 1 + f.bias)
	}
	_, e := math.Frexp(v)
	ue := e - 1
	minExp := 1 - f.bias
	if ue < minExp {
		q := math.RoundToEven(math.Ldexp(v, f.mant-minExp))
		return sign | uint64(q)
	}
	q := math.RoundToEven(math.Ldexp(v, f.mant-ue))
	return sign | (uint64(ue+f.bias)<<f.mant + uint64(q) - 1<<f.mant)
}

// encodeInt writes the integer value k into dst as element type et (wrapping
// for integers, rounding for floats). It fails for floats too narrow to hold k.
func encodeInt(dst []byte, et ir.ElemType, k int64) error {
	switch {
	case et == ir.Pred:
		if k != 0 {
			dst[0] = 1
		} else {
			dst[0] = 0
		}
	case et.IsInteger():
		u := uint64(k)
		switch et.ByteSize() {
		case 1:
			if et.Bits() < 8 {
				if et.IsSigned() {
					u = uint64(lowerutil.SignExtend(u, et.Bits()))
				} else {
					u &= 1<<et.Bits() - 1
				}
			}
			dst[0] = byte(u)
		case 2:
			binary.LittleEndian.PutUint16(dst, uint16(u))
		case 4:
			binary.LittleEndian.PutUint32(dst, uint32(u))
		case 8:
			binary.LittleEndian.PutUint64(dst, u)
		}
	case et == ir.F32:
		binary.LittleEndian.PutUint32(dst, math.Float32bits(float32(k)))
	case et == ir.F64:
		binary.LittleEndian.PutUint64(dst, math.Float64bits(float64(k)))
	case et == ir.C64:
		binary.LittleEndian.PutUint32(dst, math.Float32bits(float32(k)))
		binary.LittleEndian.PutUint32(dst[4:], 0)
	case et == ir.C128:
		binary.LittleEndian.PutUint64(dst, math.Float64bits(float64(k)))
		binary.LittleEndian.PutUint64(dst[8:], 0)
	default:
		f, ok := floatFormats[et]
		if !ok {
			return fmt.Errorf("unsupported element type %s", et)
		}
		if math.Abs(float64(k)) > f.maxFinite || (f.unsignedE8M0 && k <= 0) {
			return fmt.Errorf("value %d is out of the finite range of %s", k, et)
		}
		bits := f.encodeFinite(float64(k))
		if et.ByteSize() == 2 {
			binary.LittleEndian.PutUint16(dst, uint16(bits))
		} else {
			dst[0] = byte(bits)
		}
	}
	return nil
}
