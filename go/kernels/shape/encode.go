package shape

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/floatconv"
	"github.com/gojax/gojax/go/kernels/internal/lowerutil"
)

// encodeInt writes the integer value k into dst as element type et:
// wrapped for integers; for floats rounded, and past the finite range
// saturated or NaN, as convert does (what XLA's iota gives).
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
		f, ok := floatconv.Of(et)
		if !ok {
			return fmt.Errorf("unsupported element type %s", et)
		}
		bits := f.Encode(float64(k))
		if et.ByteSize() == 2 {
			binary.LittleEndian.PutUint16(dst, uint16(bits))
		} else {
			dst[0] = byte(bits)
		}
	}
	return nil
}
