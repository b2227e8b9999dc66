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
		if mb := math.Float64bits(mr); mi == 0 && mb&(1<<52-1) == 0 && (mb>>52)&0x7ff-1 < 2045 {
			// A real power-of-two divisor whose reciprocal is normal (a
			// broadcast 2, say): ratio = mi/mr is a signed zero, denom is
			// mr, and dividing by mr is exactly multiplying by 1/mr.
			ratio := mi * mr
			inv := math.Float64frombits(mb&(1<<63) | (2046-(mb>>52)&0x7ff)<<52)
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
