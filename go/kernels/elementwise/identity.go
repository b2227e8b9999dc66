package elementwise

import (
	"encoding/binary"
	"math"

	"github.com/gojax/gojax/go/ir"
)

// identityOf is the Identity trait of a binary op (nil where none is
// known). Float add and multiply are left out (JAX's sums start from +0,
// which is no identity: +0 + -0 is +0), as are sub-byte and complex types.
func identityOf(name string) func(e ir.ElemType, v []byte) bool {
	switch name {
	case "and", "or", "xor", "add", "multiply", "maximum", "minimum":
	default:
		return nil
	}
	return func(e ir.ElemType, v []byte) bool {
		size := e.ByteSize()
		if len(v) != size || size == 0 || size > 8 {
			return false
		}
		var buf [8]byte
		copy(buf[:], v)
		x := binary.LittleEndian.Uint64(buf[:])
		ones := uint64(math.MaxUint64) >> (64 - 8*size)
		var lowest, highest uint64
		switch e {
		case ir.Pred:
			// and, minimum, multiply: true; or, xor, maximum, add: false.
			switch name {
			case "and", "minimum", "multiply":
				return x == 1
			}
			return x == 0
		case ir.S8, ir.S16, ir.S32, ir.S64:
			lowest, highest = 1<<(8*size-1), ones>>1
		case ir.U8, ir.U16, ir.U32, ir.U64:
			lowest, highest = 0, ones
		case ir.F16, ir.BF16, ir.F32, ir.F64:
			inf := map[ir.ElemType]uint64{ir.F16: 0x7C00, ir.BF16: 0x7F80, ir.F32: 0x7F800000, ir.F64: 0x7FF0000000000000}[e]
			switch name {
			case "maximum":
				return x == 1<<(8*size-1)|inf // -inf
			case "minimum":
				return x == inf
			}
			return false
		default:
			return false
		}
		switch name {
		case "and":
			return x == ones
		case "or", "xor", "add":
			return x == 0
		case "multiply":
			return x == 1
		case "maximum":
			return x == lowest
		}
		return x == highest // minimum
	}
}
