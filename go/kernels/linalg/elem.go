package linalg

import (
	"encoding/binary"
	"sync"

	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/elementwise"
	"github.com/gojax/gojax/go/kernels/internal/floatconv"
)

// isFloatLike reports types computed through the f32/f64 GEMM. The narrow
// float types (f4, f6, f8) are widened to f32, accumulated there and rounded
// back once, like bf16 and f16.
func isFloatLike(t ir.ElemType) bool {
	return t == ir.F32 || t == ir.F64 || t == ir.BF16 || t == ir.F16 || t.IsSmallFloat()
}

var smallConvs sync.Map // [2]ir.ElemType -> func(dst, src []byte)

// smallFloatConv is the elementwise family's convert between a narrow float
// type and f32, which owns the rounding rules of those formats.
func smallFloatConv(from, to ir.ElemType) func(dst, src []byte) {
	key := [2]ir.ElemType{from, to}
	if f, ok := smallConvs.Load(key); ok {
		return f.(func(dst, src []byte))
	}
	f, ok := elementwise.ConvertLoop(from, to)
	if !ok {
		panic("linalg: no conversion " + from.String() + " -> " + to.String())
	}
	smallConvs.Store(key, f)
	return f
}

// narrowConvertible reports whether t (if a narrow float) converts both
// ways through f32; other types need no such conversion.
func narrowConvertible(t ir.ElemType) bool {
	if !t.IsSmallFloat() {
		return true
	}
	_, to := elementwise.ConvertLoop(t, ir.F32)
	_, from := elementwise.ConvertLoop(ir.F32, t)
	return to && from
}

// toF32 converts n elements of src (type t) into dst.
func toF32(dst []float32, src []byte, t ir.ElemType) {
	switch t {
	case ir.F32:
		copy(dst, byteview.As[float32](src))
	case ir.F64:
		for i, v := range byteview.As[float64](src)[:len(dst)] {
			dst[i] = float32(v)
		}
	case ir.BF16:
		floatconv.BF16sToF32(dst, byteview.As[uint16](src[:2*len(dst)]))
	case ir.F16:
		floatconv.F16sToF32(dst, byteview.As[uint16](src[:2*len(dst)]))
	default:
		if t.IsSmallFloat() {
			smallFloatConv(t, ir.F32)(byteview.Bytes(dst), src[:len(dst)])
			return
		}
		for i := range dst {
			dst[i] = float32(loadInt(t, src, i))
		}
	}
}

// toF64 converts n elements of src (type t) into dst.
func toF64(dst []float64, src []byte, t ir.ElemType) {
	switch t {
	case ir.F64:
		copy(dst, byteview.As[float64](src))
	case ir.F32:
		for i, v := range byteview.As[float32](src)[:len(dst)] {
			dst[i] = float64(v)
		}
	case ir.BF16:
		for i := range dst {
			dst[i] = float64(floatconv.BF16ToF32(binary.LittleEndian.Uint16(src[2*i:])))
		}
	case ir.F16:
		for i := range dst {
			dst[i] = float64(floatconv.F16ToF32(binary.LittleEndian.Uint16(src[2*i:])))
		}
	default:
		if t.IsSmallFloat() {
			tmp := f32scratch(len(dst))
			toF32(tmp.s, src, t)
			for i, v := range tmp.s {
				dst[i] = float64(v)
			}
			tmp.release()
			return
		}
		for i := range dst {
			dst[i] = float64(loadInt(t, src, i))
		}
	}
}

// fromF32 stores src into dst (type t), rounding as a convert would.
func fromF32(dst []byte, src []float32, t ir.ElemType) {
	switch t {
	case ir.F32:
		copy(byteview.As[float32](dst), src)
	case ir.F64:
		d := byteview.As[float64](dst)
		for i, v := range src {
			d[i] = float64(v)
		}
	case ir.BF16:
		narrowRowBF16(byteview.As[uint16](dst[:2*len(src)]), src)
	case ir.F16:
		floatconv.F32sToF16(byteview.As[uint16](dst[:2*len(src)]), src)
	default:
		if t.IsSmallFloat() {
			smallFloatConv(ir.F32, t)(dst[:len(src)], byteview.Bytes(src))
		}
	}
}

// fromF64 stores src into dst (type t), rounding once from the float64
// value (narrowing through f32 would round twice).
func fromF64(dst []byte, src []float64, t ir.ElemType) {
	switch t {
	case ir.F64:
		copy(byteview.As[float64](dst), src)
	case ir.F32:
		d := byteview.As[float32](dst)
		for i, v := range src {
			d[i] = float32(v)
		}
	case ir.BF16:
		for i, v := range src {
			binary.LittleEndian.PutUint16(dst[2*i:], floatconv.F64ToBF16(v))
		}
	case ir.F16:
		for i, v := range src {
			binary.LittleEndian.PutUint16(dst[2*i:], floatconv.F64ToF16(v))
		}
	default:
		if f, ok := floatconv.Of(t); ok {
			for i, v := range src {
				dst[i] = byte(f.Encode(v))
			}
		}
	}
}

// toI64 widens integer/bool elements.
func toI64(dst []int64, src []byte, t ir.ElemType) {
	for i := range dst {
		dst[i] = loadInt(t, src, i)
	}
}

// fromI64 truncates to the integer type t (wrapping, as integer arithmetic in
// the result type does); a pred result is "any nonzero".
func fromI64(dst []byte, src []int64, t ir.ElemType) {
	switch {
	case t == ir.Pred:
		for i, v := range src {
			if v != 0 {
				dst[i] = 1
			} else {
				dst[i] = 0
			}
		}
	case t.ByteSize() == 1:
		sh := uint(8 - t.Bits())
		for i, v := range src {
			b := uint8(v) << sh
			if t.IsSigned() {
				dst[i] = uint8(int8(b) >> sh)
			} else {
				dst[i] = b >> sh
			}
		}
	case t.ByteSize() == 2:
		for i, v := range src {
			binary.LittleEndian.PutUint16(dst[2*i:], uint16(v))
		}
	case t.ByteSize() == 4:
		for i, v := range src {
			binary.LittleEndian.PutUint32(dst[4*i:], uint32(v))
		}
	default:
		copy(byteview.As[int64](dst), src)
	}
}

// toC128 converts complex or real elements to complex128.
func toC128(dst []complex128, src []byte, t ir.ElemType) {
	switch t {
	case ir.C128:
		copy(dst, byteview.As[complex128](src))
	case ir.C64:
		for i, v := range byteview.As[complex64](src)[:len(dst)] {
			dst[i] = complex128(v)
		}
	default:
		tmp := f64scratch(len(dst))
		toF64(tmp.s, src, t)
		for i, v := range tmp.s {
			dst[i] = complex(v, 0)
		}
		tmp.release()
	}
}

// toC64 converts complex or real elements to complex64.
func toC64(dst []complex64, src []byte, t ir.ElemType) {
	switch t {
	case ir.C64:
		copy(dst, byteview.As[complex64](src))
	case ir.C128:
		for i, v := range byteview.As[complex128](src)[:len(dst)] {
			dst[i] = complex64(v)
		}
	default:
		tmp := f32scratch(len(dst))
		toF32(tmp.s, src, t)
		for i, v := range tmp.s {
			dst[i] = complex(v, 0)
		}
		tmp.release()
	}
}

func fromC128(dst []byte, src []complex128, t ir.ElemType) {
	switch t {
	case ir.C128:
		copy(byteview.As[complex128](dst), src)
	case ir.C64:
		d := byteview.As[complex64](dst)
		for i, v := range src {
			d[i] = complex64(v)
		}
	}
}

func fromC64(dst []byte, src []complex64, t ir.ElemType) {
	switch t {
	case ir.C64:
		copy(byteview.As[complex64](dst), src)
	case ir.C128:
		d := byteview.As[complex128](dst)
		for i, v := range src {
			d[i] = complex128(v)
		}
	}
}
