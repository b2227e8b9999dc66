package engine

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/gojax/gojax/go/ir"
)

// combineInto combines src into dst element by element (both little-endian
// arrays of et) with op "sum", "max" or "min": assembling an argument
// unreduced along some mesh axes reduces the devices' partial blocks.
// Booleans sum with or, as the manual computation kernel sums them.
func combineInto(dst, src []byte, et ir.ElemType, op string) error {
	if op == "sum" {
		return addInto(dst, src, et)
	}
	pick := func(a, b float64) bool { return b > a || b != b } // max; NaN wins
	if op == "min" {
		pick = func(a, b float64) bool { return b < a || b != b }
	}
	le := binary.LittleEndian
	switch et {
	case ir.F32:
		for i := 0; i+4 <= len(dst); i += 4 {
			if pick(float64(math.Float32frombits(le.Uint32(dst[i:]))), float64(math.Float32frombits(le.Uint32(src[i:])))) {
				copy(dst[i:i+4], src[i:i+4])
			}
		}
	case ir.F64:
		for i := 0; i+8 <= len(dst); i += 8 {
			if pick(math.Float64frombits(le.Uint64(dst[i:])), math.Float64frombits(le.Uint64(src[i:]))) {
				copy(dst[i:i+8], src[i:i+8])
			}
		}
	case ir.BF16:
		for i := 0; i+2 <= len(dst); i += 2 {
			if pick(float64(math.Float32frombits(uint32(le.Uint16(dst[i:]))<<16)), float64(math.Float32frombits(uint32(le.Uint16(src[i:]))<<16))) {
				copy(dst[i:i+2], src[i:i+2])
			}
		}
	case ir.S8, ir.S16, ir.S32, ir.S64, ir.U8, ir.U16, ir.U32, ir.U64, ir.Pred:
		n := et.ByteSize()
		signed := et == ir.S8 || et == ir.S16 || et == ir.S32 || et == ir.S64
		for i := 0; i+n <= len(dst); i += n {
			c := compareInt(dst[i:i+n], src[i:i+n], signed)
			if (op == "max" && c < 0) || (op == "min" && c > 0) {
				copy(dst[i:i+n], src[i:i+n])
			}
		}
	default:
		return fmt.Errorf("combining %s partial values with %s is not supported", et, op)
	}
	return nil
}

// compareInt compares two little-endian integers of one size.
func compareInt(a, b []byte, signed bool) int {
	var x, y uint64
	for k := len(a) - 1; k >= 0; k-- {
		x, y = x<<8|uint64(a[k]), y<<8|uint64(b[k])
	}
	if signed {
		shift := 64 - 8*len(a)
		return cmp.Compare(int64(x<<shift)>>shift, int64(y<<shift)>>shift)
	}
	return cmp.Compare(x, y)
}

// addInto adds src to dst element by element (both little-endian arrays of
// et).
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
