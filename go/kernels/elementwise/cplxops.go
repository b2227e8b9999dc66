package elementwise

import (
	"math"
	"math/cmplx"

	"github.com/gojax/gojax/go/internal/byteview"
)

// Complex math follows C99 Annex G / XLA conventions through math/cmplx,
// evaluated in complex128 and rounded once for complex64.

func cscalar[T cplx](f func(complex128) complex128) kern {
	return map1(func(x T) T { return T(f(complex128(x))) })
}

func cscalar2[T cplx](f func(a, b complex128) complex128) kern {
	return map2(func(x, y T) T { return T(f(complex128(x), complex128(y))) })
}

// cexpm1 is e^z - 1 without cancellation near 0:
// re = expm1(x)·cos(y) - 2·sin²(y/2), im = e^x·sin(y).
func cexpm1(z complex128) complex128 {
	x, y := real(z), imag(z)
	if y == 0 {
		return complex(math.Expm1(x), y)
	}
	s := math.Sin(y / 2)
	return complex(math.Expm1(x)*math.Cos(y)-2*s*s, math.Exp(x)*math.Sin(y))
}

// clog1p is log(1+z) keeping precision for small |z|:
// re = ½·log1p(2x + x² + y²), im = atan2(y, 1+x).
func clog1p(z complex128) complex128 {
	x, y := real(z), imag(z)
	if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) || math.Abs(x) > 0.5 || math.Abs(y) > 0.5 {
		return cmplx.Log(1 + z)
	}
	return complex(0.5*math.Log1p(x*(2+x)+y*y), math.Atan2(y, 1+x))
}

// csign is z/|z| (0 for 0). Infinite components give NaN, as in XLA.
func csign(z complex128) complex128 {
	if z == 0 {
		return z
	}
	a := cmplx.Abs(z)
	return complex(real(z)/a, imag(z)/a)
}

func crsqrt(z complex128) complex128 { return 1 / cmplx.Sqrt(z) }

// csin and ccos avoid 0·∞ = NaN on the imaginary axis when cosh/sinh
// overflow (XLA gives sin(i·800) = i·∞, cos(i·800) = ∞).
func csin(z complex128) complex128 {
	x, y := real(z), imag(z)
	if x == 0 && !math.IsNaN(y) {
		return complex(x, math.Sinh(y))
	}
	return cmplx.Sin(z)
}

func ccos(z complex128) complex128 {
	x, y := real(z), imag(z)
	if x == 0 && !math.IsNaN(y) {
		im := -x * math.Sinh(y)
		if math.IsNaN(im) {
			im = -x * math.Copysign(1, y)
		}
		return complex(math.Cosh(y), im)
	}
	return cmplx.Cos(z)
}

// ctanh returns ±1 for large real parts instead of ∞/∞ = NaN, as XLA does.
func ctanh(z complex128) complex128 {
	x, y := real(z), imag(z)
	if math.Abs(x) > 22 && !math.IsNaN(x) && !math.IsInf(y, 0) && !math.IsNaN(y) {
		// tanh(x) rounds to ±1; the imaginary part is 4·e^(-2|x|)·sin(y)cos(y) → ±0.
		return complex(math.Copysign(1, x), math.Copysign(0, math.Sin(2*y)))
	}
	return cmplx.Tanh(z)
}

// ctan(z) = -i·tanh(i·z), sharing ctanh's handling of large arguments.
func ctan(z complex128) complex128 {
	w := ctanh(complex(-imag(z), real(z)))
	return complex(imag(w), -real(w))
}

// ccbrt is the principal cube root: |z|^(1/3) at a third of z's argument.
func ccbrt(z complex128) complex128 {
	if z == 0 {
		return z
	}
	r := math.Cbrt(cmplx.Abs(z))
	s, c := math.Sincos(cmplx.Phase(z) / 3)
	return complex(r*c, r*s)
}

func clogistic(z complex128) complex128 { return 1 / (1 + cmplx.Exp(-z)) }

// catan2 is atan2 extended to complex operands: -i·log((x + i·y)/sqrt(x² + y²)).
func catan2(y, x complex128) complex128 {
	num := x + complex(0, 1)*y
	return complex(0, -1) * cmplx.Log(num/cmplx.Sqrt(x*x+y*y))
}

// cmax/cmin order complex numbers lexicographically (real part, then
// imaginary part), as the spec defines maximum/minimum for complex.
func cmax[T cplx](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		x, y := complex128(a[i]), complex128(b[i])
		if real(x) > real(y) || (real(x) == real(y) && imag(x) > imag(y)) {
			d[i] = a[i]
		} else {
			d[i] = b[i]
		}
	}
}

func cmin[T cplx](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		x, y := complex128(a[i]), complex128(b[i])
		if real(x) < real(y) || (real(x) == real(y) && imag(x) < imag(y)) {
			d[i] = a[i]
		} else {
			d[i] = b[i]
		}
	}
}

func cplxUnary[T cplx](name string) kern {
	switch name {
	case "negate":
		return k1(neg[T])
	case "sqrt":
		return cscalar[T](cmplx.Sqrt)
	case "rsqrt":
		return cscalar[T](crsqrt)
	case "cbrt":
		return cscalar[T](ccbrt)
	case "exponential":
		return cscalar[T](cmplx.Exp)
	case "exponential_minus_one":
		return cscalar[T](cexpm1)
	case "log":
		return cscalar[T](cmplx.Log)
	case "log_plus_one":
		return cscalar[T](clog1p)
	case "cosine":
		return cscalar[T](ccos)
	case "sine":
		return cscalar[T](csin)
	case "tan":
		return cscalar[T](ctan)
	case "tanh":
		return cscalar[T](ctanh)
	case "logistic":
		return cscalar[T](clogistic)
	case "sign":
		return cscalar[T](csign)
	}
	return nil
}

func cplxBinary[T cplx](name string) kern {
	switch name {
	case "add", "subtract":
		return cplxAddSub[T](arithByName[name])
	case "multiply":
		return k2(mul[T])
	case "divide":
		return k2(cdiv[T])
	case "power":
		return cscalar2[T](cpow)
	case "maximum":
		return k2(cmax[T])
	case "minimum":
		return k2(cmin[T])
	case "atan2":
		return cscalar2[T](catan2)
	}
	return nil
}

// cpow is x**y computed the way XLA:CPU expands complex power, so results at
// zeros, ones and infinities match it: |x|^c·e^(−d·arg x)·(cos q + i sin q)
// with q = c·arg x + d·ln|x|, then Kahan's cut-offs (x^0 = 1, 1^y = 1,
// 0^c = 0 for real c > 0, ∞^c = ∞ or 0 for real c). Other infinite inputs give
// NaN where C99's cpow would give infinities; XLA does the same.
func cpow(x, y complex128) complex128 {
	a, b, c, d := real(x), imag(x), real(y), imag(y)
	switch {
	case c == 0 && d == 0, a == 1 && b == 0:
		return 1
	case math.IsInf(a, 1) && b == 0 && d == 0 && c > 0:
		return complex(math.Inf(1), 0)
	case math.IsInf(a, 1) && b == 0 && d == 0 && c < 0:
		return 0
	}
	abs := math.Hypot(a, b)
	if abs == 0 && d == 0 && c > 0 {
		return 0
	}
	arg := math.Atan2(b, a)
	coeff := math.Pow(abs, c) * math.Exp(-d*arg)
	q := c*arg + d*math.Log(abs)
	return complex(coeff*math.Cos(q), coeff*math.Sin(q))
}

// cplxAddSub adds or subtracts complex elements as their float parts: the
// operator works per component, each rounded once, so the float vector loop
// over the interleaved parts gives its bits (NaNs and signed zeros
// included) without a per-element complex loop.
func cplxAddSub[T cplx](op arithOp) kern {
	var z T
	if any(z) == any(complex64(0)) {
		return func(d, a, b, _ []byte) {
			d32 := byteview.As[float32](d)
			arithF32(op, formVV, d32, byteview.As[float32](a)[:len(d32)], byteview.As[float32](b)[:len(d32)])
		}
	}
	return func(d, a, b, _ []byte) {
		d64 := byteview.As[float64](d)
		arithF64(op, formVV, d64, byteview.As[float64](a)[:len(d64)], byteview.As[float64](b)[:len(d64)])
	}
}
