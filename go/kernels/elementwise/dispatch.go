package elementwise

import (
	"sync"

	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/ir"
)

// emulated reports element types computed by converting to f32 and back
// (bf16, f16 and the f8/f6/f4 families): XLA's CPU backend does the same, and
// f32 is wide enough that the single op then the rounding back gives the
// correctly rounded result for +, -, ×, ÷ and sqrt.
func emulated(t ir.ElemType) bool { return t == ir.BF16 || t == ir.F16 || t.IsSmallFloat() }

// subByte reports integer types narrower than their one-byte storage.
func subByte(t ir.ElemType) bool { return t.IsInteger() && t.Bits() < 8 }

// unaryKern resolves a same-type unary op ("negate", "sqrt", …) for t.
func unaryKern(name string, t ir.ElemType) kern {
	nb := uint(t.Bits())
	switch t {
	case ir.Pred:
		return predUnary(name)
	case ir.S1, ir.S2, ir.S4:
		return wrapBits(intUnary[int8](name, nb), t)
	case ir.U1, ir.U2, ir.U4:
		return wrapBits(intUnary[uint8](name, nb), t)
	case ir.S8:
		return intUnary[int8](name, nb)
	case ir.S16:
		return intUnary[int16](name, nb)
	case ir.S32:
		return intUnary[int32](name, nb)
	case ir.S64:
		return intUnary[int64](name, nb)
	case ir.U8:
		return intUnary[uint8](name, nb)
	case ir.U16:
		return intUnary[uint16](name, nb)
	case ir.U32:
		return intUnary[uint32](name, nb)
	case ir.U64:
		return intUnary[uint64](name, nb)
	case ir.F32:
		return floatUnary[float32](name)
	case ir.F64:
		return floatUnary[float64](name)
	case ir.C64:
		return cplxUnary[complex64](name)
	case ir.C128:
		return cplxUnary[complex128](name)
	}
	if emulated(t) {
		return emulate(floatUnary[float32](name), t, true)
	}
	return nil
}

// binaryKern resolves a same-type binary op ("add", "power", …) for t.
func binaryKern(name string, t ir.ElemType) kern {
	nb := uint(t.Bits())
	switch t {
	case ir.Pred:
		return predBinary(name)
	case ir.S1, ir.S2, ir.S4:
		return wrapBits(intBinary[int8](name, nb), t)
	case ir.U1, ir.U2, ir.U4:
		return wrapBits(intBinary[uint8](name, nb), t)
	case ir.S8:
		return intBinary[int8](name, nb)
	case ir.S16:
		return intBinary[int16](name, nb)
	case ir.S32:
		return intBinary[int32](name, nb)
	case ir.S64:
		return intBinary[int64](name, nb)
	case ir.U8:
		return intBinary[uint8](name, nb)
	case ir.U16:
		return intBinary[uint16](name, nb)
	case ir.U32:
		return intBinary[uint32](name, nb)
	case ir.U64:
		return intBinary[uint64](name, nb)
	case ir.F32:
		return floatBinary[float32](name)
	case ir.F64:
		return floatBinary[float64](name)
	case ir.C64:
		return cplxBinary[complex64](name)
	case ir.C128:
		return cplxBinary[complex128](name)
	}
	if emulated(t) {
		return emulate(floatBinary[float32](name), t, true)
	}
	return nil
}

// wrapBits re-wraps the one-byte results of a sub-byte integer op to the
// type's width: sign-extended for sN, masked for uN.
func wrapBits(k kern, t ir.ElemType) kern {
	if k == nil {
		return nil
	}
	sh := 8 - uint(t.Bits())
	if t.IsSigned() {
		return func(d, a, b, c []byte) {
			k(d, a, b, c)
			for i := range d {
				d[i] = byte(int8(d[i]<<sh) >> sh)
			}
		}
	}
	m := byte(0xFF >> sh)
	return func(d, a, b, c []byte) {
		k(d, a, b, c)
		for i := range d {
			d[i] &= m
		}
	}
}

// chunk is the number of elements an emulated kernel converts at a time.
const chunk = 256

// scratch holds per-call conversion buffers, pooled so kernels do not allocate.
type scratch struct {
	in  [3][chunk]float32
	out [chunk]float32
	f64 [chunk]float64
	raw [chunk * 16]byte
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// emulate runs an f32 kernel on an emulated float type t: operands are
// decoded to f32 a chunk at a time and, when encodeOut, the f32 results are
// rounded back to t; otherwise the kernel writes its own result type (pred for
// compare) straight into d. One-element operands (broadcast scalars) are
// decoded once per chunk and passed as one element.
func emulate(k kern, t ir.ElemType, encodeOut bool) kern {
	if k == nil {
		return nil
	}
	dec, enc := decoder(t), encoder(t)
	es := t.ByteSize()
	return func(d, a, b, c []byte) {
		ops := [3][]byte{a, b, c}
		osz := 1 // pred-sized result when the kernel writes its own type
		if encodeOut {
			osz = es
		}
		n := len(d) / osz
		s := scratchPool.Get().(*scratch)
		for lo := 0; lo < n; lo += chunk {
			hi := min(lo+chunk, n)
			var f [3][]byte
			for i, o := range ops {
				switch {
				case o == nil:
				case len(o) == es && n > 1:
					dec(s.in[i][:1], o)
					f[i] = byteview.Bytes(s.in[i][:1])
				default:
					dec(s.in[i][:hi-lo], o[lo*es:hi*es])
					f[i] = byteview.Bytes(s.in[i][:hi-lo])
				}
			}
			if encodeOut {
				k(byteview.Bytes(s.out[:hi-lo]), f[0], f[1], f[2])
				enc(d[lo*es:hi*es], s.out[:hi-lo])
			} else {
				k(d[lo:hi], f[0], f[1], f[2])
			}
		}
		scratchPool.Put(s)
	}
}
