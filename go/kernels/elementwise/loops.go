package elementwise

import (
	"math/bits"
	"unsafe"

	"github.com/gojax/gojax/go/internal/byteview"
)

// Adapters from typed slice loops to byte kernels, and the generic loops
// shared by every numeric type.

func k1[T, R byteview.Elem](f func(d []R, a []T)) kern {
	return func(d, a, _, _ []byte) { f(byteview.As[R](d), byteview.As[T](a)) }
}

func k2[T, R byteview.Elem](f func(d []R, a, b []T)) kern {
	return func(d, a, b, _ []byte) { f(byteview.As[R](d), byteview.As[T](a), byteview.As[T](b)) }
}

// map1/map2 apply a scalar function per element: the slow path for
// transcendental functions, whose own cost dwarfs the indirect call.
func map1[T byteview.Elem](f func(T) T) kern {
	return func(d, a, _, _ []byte) {
		x, y := byteview.As[T](d), byteview.As[T](a)
		y = y[:len(x)]
		for i := range x {
			x[i] = f(y[i])
		}
	}
}

func map2[T byteview.Elem](f func(T, T) T) kern {
	return func(d, a, b, _ []byte) {
		x, y, z := byteview.As[T](d), byteview.As[T](a), byteview.As[T](b)
		y, z = y[:len(x)], z[:len(x)]
		for i := range x {
			x[i] = f(y[i], z[i])
		}
	}
}

func add[T number](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] + b[i]
	}
}

func sub[T number](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] - b[i]
	}
}

func mul[T number](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] * b[i]
	}
}

// fdiv divides floats and complex numbers (IEEE: x/0 is ±Inf or NaN).
func fdiv[T float | cplx](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] / b[i]
	}
}

func neg[T number](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = -a[i]
	}
}

func and[T integer](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] & b[i]
	}
}

func or[T integer](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] | b[i]
	}
}

func xor[T integer](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] ^ b[i]
	}
}

func not[T integer](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = ^a[i]
	}
}

// imax/imin are plain integer max/min.
func imax[T integer](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = max(a[i], b[i])
	}
}

func imin[T integer](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = min(a[i], b[i])
	}
}

// fmax/fmin follow IEEE 754-2019 maximum/minimum: NaN propagates and -0 < +0.
// Go's built-in max/min have exactly these semantics for floats.
func fmax[T float](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = max(a[i], b[i])
	}
}

func fmin[T float](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = min(a[i], b[i])
	}
}

func copyLoop[T any](d, a []T) { copy(d, a[:len(d)]) }

// idiv is integer division truncating toward zero, with XLA's answers where
// the spec leaves the result to the implementation: x/0 = -1 (all bits set),
// INT_MIN/-1 = INT_MIN (Go's defined wraparound).
func idiv[T integer](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := idivPow2(d, a, b); i < len(d); i++ {
		if b[i] == 0 {
			d[i] = ^T(0)
			continue
		}
		d[i] = a[i] / b[i]
	}
}

// idivPow2 divides while the divisor stays the power of two b[0] (a
// broadcast constant, as in x // 2), by a shift rounded toward zero, and
// returns how many elements it did: a hardware divide per element dominated
// searchsorted's bisection.
func idivPow2[T integer](d, a, b []T) int {
	if len(b) == 0 || b[0] <= 0 || b[0]&(b[0]-1) != 0 {
		return 0
	}
	c := b[0]
	w := 8 * unsafe.Sizeof(c)
	k := bits.TrailingZeros64(uint64(c))
	signed := ^T(0) < 0
	for i, x := range a {
		if b[i] != c {
			return i
		}
		if signed {
			x += x >> (w - 1) & (c - 1) // negative: round toward zero
		}
		d[i] = x >> k
	}
	return len(a)
}

// irem takes the sign of the dividend; x%0 = x and INT_MIN%-1 = 0 (XLA).
func irem[T integer](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		if b[i] == 0 {
			d[i] = a[i]
			continue
		}
		d[i] = a[i] % b[i]
	}
}

// ipow is integer exponentiation by squaring, wrapping on overflow. For a
// negative exponent the exact answer is kept where it is an integer (1 and
// -1 bases) and 0 otherwise, as XLA does.
func ipow[T integer](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		x, e := a[i], b[i]
		if e < 0 {
			switch {
			case x == 1:
				d[i] = 1
			case x == ^T(0) && isSigned[T](): // -1
				if e&1 != 0 {
					d[i] = x
				} else {
					d[i] = 1
				}
			default:
				d[i] = 0
			}
			continue
		}
		r := T(1)
		for e != 0 {
			if e&1 != 0 {
				r *= x
			}
			x *= x
			e >>= 1
		}
		d[i] = r
	}
}

func isSigned[T integer]() bool { return ^T(0) < 0 }
