package elementwise

import (
	"math"
	"math/bits"

	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/floatconv"
)

// convert between every pair of element types. Native pairs run typed loops;
// the rest (emulated floats, complex to or from other kinds) go through
// float64, which holds every f32/f16/bf16/f8 value exactly.
//
// Semantics (XLA CPU): float→int truncates toward zero and saturates to the
// destination's range (logical width for sub-byte types), NaN→0;
// int→float and float→narrower float round to nearest even, once, from the
// source value (never through an intermediate format); anything→pred is
// x != 0; complex→anything real uses the real part (so 1i→pred is false, as
// in XLA); real→complex has zero imaginary part.

func convII[S, D integer](d []D, s []S) {
	s = s[:len(d)]
	for i := range d {
		d[i] = D(s[i])
	}
}

func convToPred[S real_](d []uint8, s []S) {
	s = s[:len(d)]
	for i := range d {
		d[i] = b2u(s[i] != 0)
	}
}

func convIF[S integer, D float](d []D, s []S) {
	s = s[:len(d)]
	for i := range d {
		d[i] = D(s[i])
	}
}

func convFF[S, D float](d []D, s []S) {
	s = s[:len(d)]
	for i := range d {
		d[i] = D(s[i])
	}
}

// saturator converts floats to an integer type t: truncation toward zero,
// saturation to t's range (its logical width for sub-byte types), NaN → 0.
// Bounds are resolved once so the per-element test is two comparisons.
type saturator struct {
	lo, hi2    float64 // in range iff lo <= trunc(x) < hi2
	minP, maxP uint64  // bit patterns of the minimum and maximum
	signed     bool
}

func newSaturator(t ir.ElemType) saturator {
	nb := t.Bits()
	if t.IsSigned() {
		return saturator{-math.Ldexp(1, nb-1), math.Ldexp(1, nb-1), uint64(int64(-1) << (nb - 1)), uint64(1)<<(nb-1) - 1, true}
	}
	return saturator{0, math.Ldexp(1, nb), 0, lowMask(uint(nb)), false}
}

// conv returns the destination's bit pattern in a uint64.
func (s *saturator) conv(x float64) uint64 {
	x = math.Trunc(x)
	switch {
	case x >= s.lo && x < s.hi2:
		if s.signed {
			return uint64(int64(x))
		}
		return uint64(x)
	case x >= s.hi2:
		return s.maxP
	case x < s.lo:
		return s.minP
	}
	return 0 // NaN
}

func convFI[S float, D integer](t ir.ElemType) func(d []D, s []S) {
	sat := newSaturator(t)
	return func(d []D, s []S) {
		s = s[:len(d)]
		for i := range d {
			d[i] = D(sat.conv(float64(s[i])))
		}
	}
}

// stickyF64 converts an integer to float64 so that a later rounding to a
// format of at most 52 significand bits is still correctly rounded: values
// beyond 2^53 keep a sticky bit below the retained bits instead of being
// rounded twice.
func stickyF64(x uint64, neg bool) float64 {
	if x >= 1<<53 {
		k := 64 - bits.LeadingZeros64(x) - 53
		sticky := uint64(0)
		if x&(1<<k-1) != 0 {
			sticky = 1
		}
		v := math.Ldexp(float64(x>>k|sticky), k)
		if neg {
			return -v
		}
		return v
	}
	if neg {
		return -float64(x)
	}
	return float64(x)
}

// toF64 reads len(dst) elements of t as float64 (complex: the real part).
func toF64(t ir.ElemType) func(dst []float64, src []byte) {
	switch {
	case t == ir.F32:
		return func(dst []float64, src []byte) { convFF(dst, byteview.As[float32](src)) }
	case t == ir.F64:
		return func(dst []float64, src []byte) { copy(dst, byteview.As[float64](src)) }
	case t == ir.C64:
		return func(dst []float64, src []byte) {
			s := byteview.As[float32](src)
			for i := range dst {
				dst[i] = float64(s[2*i])
			}
		}
	case t == ir.C128:
		return func(dst []float64, src []byte) {
			s := byteview.As[float64](src)
			for i := range dst {
				dst[i] = s[2*i]
			}
		}
	case t == ir.BF16:
		return func(dst []float64, src []byte) {
			s := byteview.As[uint16](src)[:len(dst)]
			for i := range dst {
				dst[i] = float64(floatconv.BF16ToF32(s[i]))
			}
		}
	case t == ir.F16:
		return func(dst []float64, src []byte) {
			s := byteview.As[uint16](src)[:len(dst)]
			for i := range dst {
				dst[i] = float64(floatconv.F16ToF32(s[i]))
			}
		}
	case t.IsSmallFloat():
		tab := decodeTables[t]
		return func(dst []float64, src []byte) {
			src = src[:len(dst)]
			for i := range dst {
				dst[i] = float64(tab[src[i]])
			}
		}
	case t == ir.Pred || t.IsInteger():
		rd := intReader(t)
		return func(dst []float64, src []byte) {
			for i := range dst {
				v, neg := rd(src, i)
				dst[i] = stickyF64(v, neg)
			}
		}
	}
	return nil
}

// intReader returns the magnitude and sign of element i of an integer type.
func intReader(t ir.ElemType) func(b []byte, i int) (uint64, bool) {
	mag := func(v int64) (uint64, bool) {
		if v < 0 {
			return uint64(-v), true
		}
		return uint64(v), false
	}
	switch t {
	case ir.S1, ir.S2, ir.S4, ir.S8:
		return func(b []byte, i int) (uint64, bool) { return mag(int64(int8(b[i]))) }
	case ir.S16:
		return func(b []byte, i int) (uint64, bool) { return mag(int64(byteview.As[int16](b)[i])) }
	case ir.S32:
		return func(b []byte, i int) (uint64, bool) { return mag(int64(byteview.As[int32](b)[i])) }
	case ir.S64:
		return func(b []byte, i int) (uint64, bool) { return mag(byteview.As[int64](b)[i]) }
	case ir.Pred, ir.U1, ir.U2, ir.U4, ir.U8:
		return func(b []byte, i int) (uint64, bool) { return uint64(b[i]), false }
	case ir.U16:
		return func(b []byte, i int) (uint64, bool) { return uint64(byteview.As[uint16](b)[i]), false }
	case ir.U32:
		return func(b []byte, i int) (uint64, bool) { return uint64(byteview.As[uint32](b)[i]), false }
	case ir.U64:
		return func(b []byte, i int) (uint64, bool) { return byteview.As[uint64](b)[i], false }
	}
	return nil
}

// fromF64 writes float64 values as t.
func fromF64(t ir.ElemType) func(dst []byte, src []float64) {
	switch {
	case t == ir.F32:
		return func(dst []byte, src []float64) { convFF(byteview.As[float32](dst), src) }
	case t == ir.F64:
		return func(dst []byte, src []float64) { copy(byteview.As[float64](dst), src) }
	case t == ir.C64:
		return func(dst []byte, src []float64) {
			d := byteview.As[float32](dst)
			for i, v := range src {
				d[2*i], d[2*i+1] = float32(v), 0
			}
		}
	case t == ir.C128:
		return func(dst []byte, src []float64) {
			d := byteview.As[float64](dst)
			for i, v := range src {
				d[2*i], d[2*i+1] = v, 0
			}
		}
	case t == ir.F16:
		return func(dst []byte, src []float64) {
			d := byteview.As[uint16](dst)
			for i, v := range src {
				d[i] = floatconv.F64ToF16(v)
			}
		}
	case t == ir.BF16:
		return func(dst []byte, src []float64) {
			d := byteview.As[uint16](dst)
			for i, v := range src {
				d[i] = floatconv.F64ToBF16(v)
			}
		}
	case t.IsSmallFloat():
		f, _ := floatconv.Of(t)
		return func(dst []byte, src []float64) {
			for i, v := range src {
				dst[i] = byte(f.Encode(v))
			}
		}
	case t == ir.Pred:
		return func(dst []byte, src []float64) {
			for i, v := range src {
				dst[i] = b2u(v != 0)
			}
		}
	case t.IsInteger():
		es := t.ByteSize()
		sat := newSaturator(t)
		return func(dst []byte, src []float64) {
			for i, v := range src {
				u := sat.conv(v)
				for j := range es { // little endian
					dst[i*es+j] = byte(u >> (8 * j))
				}
			}
		}
	}
	return nil
}

// viaF64 is the general conversion path, a chunk at a time.
func viaF64(from, to ir.ElemType) kern {
	rd, wr := toF64(from), fromF64(to)
	if rd == nil || wr == nil {
		return nil
	}
	is, os := from.ByteSize(), to.ByteSize()
	return func(d, a, _, _ []byte) {
		s := scratchPool.Get().(*scratch)
		buf := s.f64[:]
		n := len(d) / os
		for lo := 0; lo < n; lo += chunk {
			hi := min(lo+chunk, n)
			rd(buf[:hi-lo], a[lo*is:hi*is])
			wr(d[lo*os:hi*os], buf[:hi-lo])
		}
		scratchPool.Put(s)
	}
}

// convIntFrom converts from integer (or pred) storage S to any native type.
func convIntFrom[S integer](to ir.ElemType) kern {
	var k kern
	switch to {
	case ir.Pred:
		return k1(convToPred[S])
	case ir.S1, ir.S2, ir.S4, ir.S8:
		k = k1(convII[S, int8])
	case ir.S16:
		k = k1(convII[S, int16])
	case ir.S32:
		k = k1(convII[S, int32])
	case ir.S64:
		k = k1(convII[S, int64])
	case ir.U1, ir.U2, ir.U4, ir.U8:
		k = k1(convII[S, uint8])
	case ir.U16:
		k = k1(convII[S, uint16])
	case ir.U32:
		k = k1(convII[S, uint32])
	case ir.U64:
		k = k1(convII[S, uint64])
	case ir.F32:
		if _, ok := any(S(0)).(int32); ok {
			return k1(convI32F32)
		}
		return k1(convIF[S, float32])
	case ir.F64:
		return k1(convIF[S, float64])
	default:
		return nil
	}
	if subByte(to) {
		return wrapBits(k, to)
	}
	return k
}

func convFloatFrom[S float](to ir.ElemType) kern {
	switch to {
	case ir.Pred:
		return k1(convToPred[S])
	case ir.S1, ir.S2, ir.S4, ir.S8:
		return k1(convFI[S, int8](to))
	case ir.S16:
		return k1(convFI[S, int16](to))
	case ir.S32:
		return k1(convFI[S, int32](to))
	case ir.S64:
		return k1(convFI[S, int64](to))
	case ir.U1, ir.U2, ir.U4, ir.U8:
		return k1(convFI[S, uint8](to))
	case ir.U16:
		return k1(convFI[S, uint16](to))
	case ir.U32:
		return k1(convFI[S, uint32](to))
	case ir.U64:
		return k1(convFI[S, uint64](to))
	case ir.F32:
		return k1(convFF[S, float32])
	case ir.F64:
		return k1(convFF[S, float64])
	}
	return nil
}

// convertKern resolves convert from one element type to another.
func convertKern(from, to ir.ElemType) kern {
	if from == to {
		return k1(copyLoop[byte])
	}
	var k kern
	switch from {
	case ir.Pred, ir.U1, ir.U2, ir.U4, ir.U8:
		k = convIntFrom[uint8](to)
	case ir.S1, ir.S2, ir.S4, ir.S8:
		k = convIntFrom[int8](to)
	case ir.S16:
		k = convIntFrom[int16](to)
	case ir.S32:
		k = convIntFrom[int32](to)
	case ir.S64:
		k = convIntFrom[int64](to)
	case ir.U16:
		k = convIntFrom[uint16](to)
	case ir.U32:
		k = convIntFrom[uint32](to)
	case ir.U64:
		k = convIntFrom[uint64](to)
	case ir.F32:
		k = convFloatFrom[float32](to)
	case ir.F64:
		k = convFloatFrom[float64](to)
	case ir.C64:
		if to == ir.C128 {
			k = k1(convFF[float32, float64])
		}
	case ir.C128:
		if to == ir.C64 {
			k = k1(convFF[float64, float32])
		}
	}
	if k != nil {
		return k
	}
	if from == ir.F32 && emulated(to) {
		enc, es := encoder(to), to.ByteSize()
		return func(d, a, _, _ []byte) { enc(d, byteview.As[float32](a)[:len(d)/es]) }
	}
	if emulated(from) && to == ir.F32 {
		dec := decoder(from)
		return func(d, a, _, _ []byte) { dec(byteview.As[float32](d), a) }
	}
	if (from.IsInteger() || from == ir.Pred) && to == ir.C128 {
		// float64(int64) rounds once, correctly; the sticky path is for narrower targets.
		return composeConv(from, ir.F64, to)
	}
	return viaF64(from, to)
}

// composeConv converts through an intermediate type mid, where that is exact
// for the values involved.
func composeConv(from, mid, to ir.ElemType) kern {
	k1_, k2_ := convertKern(from, mid), convertKern(mid, to)
	ms := mid.ByteSize()
	os := to.ByteSize()
	is := from.ByteSize()
	return func(d, a, _, _ []byte) {
		s := scratchPool.Get().(*scratch)
		buf := s.raw[:]
		n := len(d) / os
		step := len(buf) / ms
		for lo := 0; lo < n; lo += step {
			hi := min(lo+step, n)
			m := buf[:(hi-lo)*ms]
			k1_(m, a[lo*is:hi*is], nil, nil)
			k2_(d[lo*os:hi*os], m, nil, nil)
		}
		scratchPool.Put(s)
	}
}
