package elementwise

import (
	"math/bits"

	"github.com/gojax/gojax/go/internal/byteview"
)

// Integer loops. Sub-byte types (s2, s4, u2, u4, …) run on their one-byte
// storage type with nbits < 8; the caller re-wraps results (see wrapBits).
// Only shifts and bit counting need the logical width themselves.

// lowMask is the nbits-wide all-ones pattern.
func lowMask(nbits uint) uint64 {
	if nbits >= 64 {
		return ^uint64(0)
	}
	return 1<<nbits - 1
}

// shl: shifts by nbits or more (or negative amounts) give 0.
func shl[T integer](nbits uint) func(d, a, b []T) {
	return func(d, a, b []T) {
		a, b = a[:len(d)], b[:len(d)]
		for i := range d {
			if s := uint64(b[i]); s < uint64(nbits) {
				d[i] = a[i] << s
			} else {
				d[i] = 0
			}
		}
	}
}

// srl shifts the nbits-wide bit pattern right, filling with zeros.
func srl[T integer](nbits uint) func(d, a, b []T) {
	lm := lowMask(nbits)
	return func(d, a, b []T) {
		a, b = a[:len(d)], b[:len(d)]
		for i := range d {
			if s := uint64(b[i]); s < uint64(nbits) {
				d[i] = T((uint64(a[i]) & lm) >> s)
			} else {
				d[i] = 0
			}
		}
	}
}

// sra shifts the nbits-wide pattern right, replicating its top bit; shifts
// of nbits or more give all sign bits. Unsigned operands are shifted as the
// same bit pattern (XLA does the same).
func sra[T integer](nbits uint) func(d, a, b []T) {
	lm := lowMask(nbits)
	return func(d, a, b []T) {
		a, b = a[:len(d)], b[:len(d)]
		for i := range d {
			x := uint64(a[i]) & lm
			s := uint64(b[i])
			if s >= uint64(nbits) {
				s = uint64(nbits - 1)
			}
			r := x >> s
			if x>>(nbits-1)&1 != 0 {
				r |= lm &^ (lm >> s)
			}
			d[i] = T(r)
		}
	}
}

func popcnt[T integer](nbits uint) func(d, a []T) {
	m := lowMask(nbits)
	return func(d, a []T) {
		a = a[:len(d)]
		for i := range d {
			d[i] = T(bits.OnesCount64(uint64(a[i]) & m))
		}
	}
}

func clz[T integer](nbits uint) func(d, a []T) {
	m := lowMask(nbits)
	return func(d, a []T) {
		a = a[:len(d)]
		for i := range d {
			d[i] = T(bits.LeadingZeros64(uint64(a[i])&m) - (64 - int(nbits)))
		}
	}
}

func isign[T integer](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		switch x := a[i]; {
		case x > 0:
			d[i] = 1
		case x == 0:
			d[i] = 0
		default:
			d[i] = ^T(0)
		}
	}
}

// intUnary returns same-type unary kernels for an integer type of logical
// width nbits.
func intUnary[T integer](name string, nbits uint) kern {
	switch name {
	case "negate":
		return k1(neg[T])
	case "abs":
		if isSigned[T]() {
			return k1(func(d, a []T) { iabsAny(d, a) })
		}
		return k1(copyLoop[T])
	case "not":
		return k1(not[T])
	case "sign":
		return k1(isign[T])
	case "popcnt":
		return k1(popcnt[T](nbits))
	case "count_leading_zeros":
		return k1(clz[T](nbits))
	}
	return nil
}

// iabsAny is abs for a signed T known only through the integer constraint.
func iabsAny[T integer](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		x := a[i]
		if x < 0 {
			x = -x
		}
		d[i] = x
	}
}

// intBinary returns same-type binary kernels for an integer type.
func intBinary[T integer](name string, nbits uint) kern {
	if nbits == 32 && is32[T]() {
		if k := int32Kern(name); k != nil {
			return k
		}
	}
	switch name {
	case "add":
		return k2(add[T])
	case "subtract":
		return k2(sub[T])
	case "multiply":
		return k2(mul[T])
	case "divide":
		return k2(idiv[T])
	case "remainder":
		return k2(irem[T])
	case "maximum":
		return k2(imax[T])
	case "minimum":
		return k2(imin[T])
	case "and", "or", "xor":
		return bitwise(name)
	case "power":
		return k2(ipow[T])
	case "shift_left":
		return k2(shl[T](nbits))
	case "shift_right_logical":
		return k2(srl[T](nbits))
	case "shift_right_arithmetic":
		return k2(sra[T](nbits))
	}
	return nil
}

// predUnary/predBinary: booleans are stored as 0/1 bytes. add and maximum are
// OR, multiply and minimum are AND, as in the spec.
func predUnary(name string) kern {
	if name == "not" {
		return k1(func(d, a []uint8) {
			a = a[:len(d)]
			for i := range d {
				d[i] = a[i] ^ 1
			}
		})
	}
	return nil
}

func predBinary(name string) kern {
	switch name {
	case "and", "multiply", "minimum":
		return bitwise("and")
	case "or", "add", "maximum":
		return bitwise("or")
	case "xor":
		return bitwise("xor")
	}
	return nil
}

// bitwise runs and, or or xor eight bytes at a time whatever the element
// type (the bits do not care): byte-wide loops over predicates made the
// and of take_along_axis's bounds checks an eighth of its time.
func bitwise(name string) kern {
	var w func(d, a, b []uint64)
	var t func(d, a, b []uint8)
	switch name {
	case "and":
		w, t = and[uint64], and[uint8]
	case "or":
		w, t = or[uint64], or[uint8]
	case "xor":
		w, t = xor[uint64], xor[uint8]
	default:
		return nil
	}
	return func(d, a, b, _ []byte) {
		n := len(d) &^ 7
		if n > 0 {
			w(byteview.As[uint64](d[:n]), byteview.As[uint64](a[:n]), byteview.As[uint64](b[:n]))
		}
		t(d[n:], a[n:len(d)], b[n:len(d)])
	}
}
