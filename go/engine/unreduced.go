package engine

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/gojax/gojax/go/ir"
)

// addInto adds src to dst element by element (both little-endian arrays of
// et): assembling an argument unreduced along some mesh axes sums the
// devices' partial blocks. Booleans combine with or, as the manual
// computation kernel sums them.
func addInto(dst, src []byte, et ir.ElemType) error {
	le := binary.LittleEndian
	switch et {
	case ir.Pred:
		for i := range dst {
			dst[i] |= src[i]
		}
	case ir.S8, ir.U8:
		for i := range dst {
			dst[i] += src[i]
		}
	case ir.S16, ir.U16:
		for i := 0; i+2 <= len(dst); i += 2 {
			le.PutUint16(dst[i:], le.Uint16(dst[i:])+le.Uint16(src[i:]))
		}
	case ir.S32, ir.U32:
		for i := 0; i+4 <= len(dst); i += 4 {
			le.PutUint32(dst[i:], le.Uint32(dst[i:])+le.Uint32(src[i:]))
		}
	case ir.S64, ir.U64:
		for i := 0; i+8 <= len(dst); i += 8 {
			le.PutUint64(dst[i:], le.Uint64(dst[i:])+le.Uint64(src[i:]))
		}
	case ir.F32, ir.C64:
		for i := 0; i+4 <= len(dst); i += 4 {
			v := math.Float32frombits(le.Uint32(dst[i:])) + math.Float32frombits(le.Uint32(src[i:]))
			le.PutUint32(dst[i:], math.Float32bits(v))
		}
	case ir.F64, ir.C128:
		for i := 0; i+8 <= len(dst); i += 8 {
			v := math.Float64frombits(le.Uint64(dst[i:])) + math.Float64frombits(le.Uint64(src[i:]))
			le.PutUint64(dst[i:], math.Float64bits(v))
		}
	case ir.BF16:
		// bf16 is the top half of an f32: add in f32, round to nearest even.
		for i := 0; i+2 <= len(dst); i += 2 {
			v := math.Float32frombits(uint32(le.Uint16(dst[i:]))<<16) + math.Float32frombits(uint32(le.Uint16(src[i:]))<<16)
			b := math.Float32bits(v)
			if v != v { // NaN stays a quiet NaN
				b |= 1 << 22
			} else {
				b += 0x7fff + (b>>16)&1
			}
			le.PutUint16(dst[i:], uint16(b>>16))
		}
	default:
		return fmt.Errorf("summing %s partial values is not supported", et)
	}
	return nil
}
