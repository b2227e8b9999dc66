package linalg

import (
	"encoding/binary"
	"math"
	"sync"
	"unsafe"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/elementwise"
)

// Views of raw buffers as typed slices. gojax buffers are 64-byte aligned
// (devmem) and Go heap slices are at least 8-byte aligned, and the targets
// (amd64, arm64) tolerate unaligned access anyway.

func f32s(b []byte) []float32 {
	if len(b) < 4 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(b)/4)
}

func f64s(b []byte) []float64 {
	if len(b) < 8 {
		return nil
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(&b[0])), len(b)/8)
}

func c64s(b []byte) []complex64 {
	if len(b) < 8 {
		return nil
	}
	return unsafe.Slice((*complex64)(unsafe.Pointer(&b[0])), len(b)/8)
}

func c128s(b []byte) []complex128 {
	if len(b) < 16 {
		return nil
	}
	return unsafe.Slice((*complex128)(unsafe.Pointer(&b[0])), len(b)/16)
}

func i64s(b []byte) []int64 {
	if len(b) < 8 {
		return nil
	}
	return unsafe.Slice((*int64)(unsafe.Pointer(&b[0])), len(b)/8)
}

// bf16ToF32 widens a bfloat16 (exact).
func bf16ToF32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// f32ToBF16 rounds to nearest even, keeping NaNs quiet NaNs.
func f32ToBF16(f float32) uint16 {
	u := math.Float32bits(f)
	if u&0x7fffffff > 0x7f800000 {
		return uint16(u>>16) | 0x40
	}
	u += 0x7fff + (u>>16)&1
	return uint16(u >> 16)
}

// f16ToF32 widens an IEEE half (exact).
func f16ToF32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	man := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	case exp == 0:
		if man == 0 {
			return math.Float32frombits(sign)
		}
		// Subnormal half: value is man * 2^-24, exact in f32.
		f := float32(man) * (1.0 / (1 << 24))
		if sign != 0 {
			f = -f
		}
		return f
	}
	return math.Float32frombits(sign | (exp+112)<<23 | man<<13)
}

// f32ToF16 rounds to nearest even.
func f32ToF16(f float32) uint16 {
	u := math.Float32bits(f)
	sign := uint16(u>>16) & 0x8000
	exp := int32(u>>23) & 0xff
	man := u & 0x7fffff
	if exp == 0xff {
		if man != 0 {
			return sign | 0x7e00 | uint16(man>>13)
		}
		return sign | 0x7c00
	}
	e := exp - 127 + 15
	if e >= 0x1f {
		return sign | 0x7c00
	}
	if e <= 0 {
		// Subnormal or zero in half: shift the full mantissa and round.
		if e < -10 {
			return sign
		}
		m := man | 0x800000
		shift := uint32(14 - e)
		half := uint32(1) << (shift - 1)
		r := m >> shift
		rem := m & (1<<shift - 1)
		if rem > half || (rem == half && r&1 == 1) {
			r++
		}
		return sign | uint16(r)
	}
	r := uint32(e)<<10 | man>>13
	rem := man & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && r&1 == 1) {
		r++ // may carry into the exponent, which is the correct rounding to inf
	}
	return sign | uint16(r)
}

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

func f32AsBytes(v []float32) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v))
}

// toF32 converts n elements of src (type t) into dst.
func toF32(dst []float32, src []byte, t ir.ElemType) {
	switch t {
	case ir.F32:
		copy(dst, f32s(src))
	case ir.F64:
		for i, v := range f64s(src)[:len(dst)] {
			dst[i] = float32(v)
		}
	case ir.BF16:
		for i := range dst {
			dst[i] = bf16ToF32(binary.LittleEndian.Uint16(src[2*i:]))
		}
	case ir.F16:
		for i := range dst {
			dst[i] = f16ToF32(binary.LittleEndian.Uint16(src[2*i:]))
		}
	default:
		if t.IsSmallFloat() {
			smallFloatConv(t, ir.F32)(f32AsBytes(dst), src[:len(dst)])
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
		copy(dst, f64s(src))
	case ir.F32:
		for i, v := range f32s(src)[:len(dst)] {
			dst[i] = float64(v)
		}
	case ir.BF16:
		for i := range dst {
			dst[i] = float64(bf16ToF32(binary.LittleEndian.Uint16(src[2*i:])))
		}
	case ir.F16:
		for i := range dst {
			dst[i] = float64(f16ToF32(binary.LittleEndian.Uint16(src[2*i:])))
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
		copy(f32s(dst), src)
	case ir.F64:
		d := f64s(dst)
		for i, v := range src {
			d[i] = float64(v)
		}
	case ir.BF16:
		if len(src) > 0 {
			_ = dst[2*len(src)-1]
			narrowRowBF16(unsafe.Slice((*uint16)(unsafe.Pointer(&dst[0])), len(src)), src)
		}
	case ir.F16:
		for i, v := range src {
			binary.LittleEndian.PutUint16(dst[2*i:], f32ToF16(v))
		}
	default:
		if t.IsSmallFloat() {
			smallFloatConv(ir.F32, t)(dst[:len(src)], f32AsBytes(src))
		}
	}
}

// fromF64 stores src into dst (type t). Narrowing to bf16/f16 goes through
// f32, a double rounding XLA's converts also perform.
func fromF64(dst []byte, src []float64, t ir.ElemType) {
	switch t {
	case ir.F64:
		copy(f64s(dst), src)
	case ir.F32:
		d := f32s(dst)
		for i, v := range src {
			d[i] = float32(v)
		}
	case ir.BF16:
		for i, v := range src {
			binary.LittleEndian.PutUint16(dst[2*i:], f32ToBF16(float32(v)))
		}
	case ir.F16:
		for i, v := range src {
			binary.LittleEndian.PutUint16(dst[2*i:], f32ToF16(float32(v)))
		}
	default:
		if t.IsSmallFloat() {
			tmp := f32scratch(len(src))
			for i, v := range src {
				tmp.s[i] = float32(v)
			}
			fromF32(dst, tmp.s, t)
			tmp.release()
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
		copy(i64s(dst), src)
	}
}

// toC128 converts complex or real elements to complex128.
func toC128(dst []complex128, src []byte, t ir.ElemType) {
	switch t {
	case ir.C128:
		copy(dst, c128s(src))
	case ir.C64:
		for i, v := range c64s(src)[:len(dst)] {
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
		copy(dst, c64s(src))
	case ir.C128:
		for i, v := range c128s(src)[:len(dst)] {
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
		copy(c128s(dst), src)
	case ir.C64:
		d := c64s(dst)
		for i, v := range src {
			d[i] = complex64(v)
		}
	}
}

func fromC64(dst []byte, src []complex64, t ir.ElemType) {
	switch t {
	case ir.C64:
		copy(c64s(dst), src)
	case ir.C128:
		d := c128s(dst)
		for i, v := range src {
			d[i] = complex128(v)
		}
	}
}
