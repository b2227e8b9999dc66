package elementwise

import "math"

// cdiv is fdiv for complex elements with the operator's results bit for
// bit: the operator calls the runtime's complex division out of line
// (complex64 through complex128) for each element, which dominated
// programs such as (x + xᴴ)/2. The usual case, both parts of the quotient
// not NaN, is that routine's first step (Smith's algorithm) inlined in
// float64; any other case goes to the operator, which fixes up infinities
// and zeros.
func cdiv[T cplx](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		n, m := complex128(a[i]), complex128(b[i])
		nr, ni, mr, mi := real(n), imag(n), real(m), imag(m)
		var e, f float64
		if k, ok := pow2Exponent(mr); mi == 0 && ok && k >= -1022 && k <= 1022 {
			// A real power-of-two divisor whose reciprocal is normal (a
			// broadcast 2, say): ratio = mi/mr is a signed zero, denom is
			// mr, and dividing by mr is exactly multiplying by 1/mr.
			ratio := mi * mr
			inv := pow2Reciprocal(mr, k)
			e = (nr + ni*ratio) * inv
			f = (ni - nr*ratio) * inv
		} else if math.Abs(mr) >= math.Abs(mi) {
			ratio := mi / mr
			denom := mr + ratio*mi
			e = (nr + ni*ratio) / denom
			f = (ni - nr*ratio) / denom
		} else {
			ratio := mr / mi
			denom := mi + ratio*mr
			e = (nr*ratio + ni) / denom
			f = (ni*ratio - nr) / denom
		}
		if e != e && f != f {
			d[i] = a[i] / b[i]
			continue
		}
		d[i] = T(complex(e, f))
	}
}

// cdivScalarC64 is cdiv with every divisor b[0] (a broadcast scalar, such
// as the 2 of (x + xᴴ)/2). When b[0] is a real power of two whose
// reciprocal is a normal float32, cdiv's first branch computes each part
// as (p ± q·ratio)·inv with ratio a signed zero: q·ratio is a signed zero
// unless q is infinite or NaN, adding it changes only a zero part's sign,
// and the product with the power of two is exact in float64, so its one
// rounding to float32 is float32's correctly rounded product. The same
// steps in float32 therefore give cdiv's bits whenever the part is not
// NaN; an element with a NaN part goes through cdiv itself, so NaN
// payloads and the operator's fix-ups stay as they are.
func cdivScalarC64(d, a []complex64, b complex64) {
	a = a[:len(d)]
	mr, mi := float64(real(b)), float64(imag(b))
	k, ok := pow2Exponent(mr)
	if mi != 0 || !ok || k < -126 || k > 126 {
		var bs [64]complex64
		for i := range bs {
			bs[i] = b
		}
		for i := 0; i < len(d); i += len(bs) {
			j := min(i+len(bs), len(d))
			cdiv(d[i:j], a[i:j], bs[:j-i])
		}
		return
	}
	ratio := float32(mi * mr)
	inv := float32(pow2Reciprocal(mr, k))
	bb := [1]complex64{b}
	for i, x := range a {
		nr, ni := real(x), imag(x)
		e := float32(nr+float32(ni*ratio)) * inv
		f := float32(ni-float32(nr*ratio)) * inv
		if e != e || f != f {
			cdiv(d[i:i+1], a[i:i+1], bb[:])
			continue
		}
		d[i] = complex(e, f)
	}
}

// pow2Exponent returns k with m = ±2^k when m is a normal power of two; ok
// is false for any other m (zero, subnormal, Inf, NaN, or mantissa bits).
func pow2Exponent(m float64) (k int, ok bool) {
	b := math.Float64bits(m)
	e := int(b>>52) & 0x7ff
	return e - 1023, b&(1<<52-1) == 0 && e != 0 && e != 0x7ff
}

// pow2Reciprocal is 1/m, exactly, for m = ±2^k with |k| <= 1022.
func pow2Reciprocal(m float64, k int) float64 {
	return math.Float64frombits(math.Float64bits(m)&(1<<63) | uint64(1023-k)<<52)
}
