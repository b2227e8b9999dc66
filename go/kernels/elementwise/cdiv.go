package elementwise

import (
	"math"

	"github.com/gojax/gojax/go/internal/byteview"
)

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

// cdivScalarC64 is cdiv with every divisor b[0] (a broadcast scalar, such
// as the 2 of (x + xᴴ)/2). When b[0] is a real power of two whose
// reciprocal inv is a normal float32, cdiv's first branch computes each
// part as (p ± q·ratio)·inv with ratio a signed zero. For an element whose
// parts are both finite and nonzero, q·ratio is a signed zero, adding it
// leaves p as it is, and p·inv is exact in float64, so its one rounding to
// float32 is float32's correctly rounded product: the element is its parts
// times inv, which the float vector loop computes. Elements with a zero,
// infinite or NaN part (signed-zero sums, NaN fix-ups) are noted before
// that loop (d may be a) and then go through cdiv itself.
func cdivScalarC64(d, a []complex64, b complex64) {
	a = a[:len(d)]
	mr, mi := float64(real(b)), float64(imag(b))
	mb := math.Float64bits(mr)
	if mi != 0 || mb&(1<<52-1) != 0 || (mb>>52)&0x7ff < 1023-126 || (mb>>52)&0x7ff > 1023+126 {
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
	inv := [1]float32{float32(math.Float64frombits(mb&(1<<63) | (2046-(mb>>52)&0x7ff)<<52))}
	bb := [1]complex64{b}
	var at [c64Chunk]uint16
	var saved [c64Chunk]uint64
	for c := 0; c < len(d); c += c64Chunk {
		dc, ac := d[c:min(c+c64Chunk, len(d))], a[c:min(c+c64Chunk, len(d))]
		ns := c64Specials(byteview.As[uint64](byteview.Bytes(ac)), &at, &saved)
		dp := byteview.As[float32](byteview.Bytes(dc))
		arithF32(arMul, formVS, dp, byteview.As[float32](byteview.Bytes(ac))[:len(dp)], inv[:])
		for k := range ns {
			j := int(at[k])
			cdiv(dc[j:j+1], byteview.As[complex64](byteview.Bytes(saved[k:k+1])), bb[:])
		}
	}
}

const c64Chunk = 256

// c64Specials notes the complex64 elements of w (at most c64Chunk, as
// their bits) with a zero, infinite or NaN part: their indexes in at, the
// elements in saved; it returns how many. A loop of its own, without
// calls, so that its variables stay in registers.
//go:noinline
func c64Specials(w []uint64, at *[c64Chunk]uint16, saved *[c64Chunk]uint64) int {
	ns := 0
	for j, x := range w[:min(len(w), c64Chunk)] {
		// Each part's bits shifted past the sign, minus one: zero wraps to
		// the top, so zero, Inf and NaN parts are exactly those at or
		// above the Inf pattern minus one.
		if rb, ib := uint32(x)<<1-1, uint32(x>>32)<<1-1; max(rb, ib) >= 0xff000000-1 {
			at[ns&(c64Chunk-1)], saved[ns&(c64Chunk-1)] = uint16(j), x
			ns++
		}
	}
	return ns
}
