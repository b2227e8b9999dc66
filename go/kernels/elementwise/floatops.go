package elementwise

import (
	"math"

	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/ir"
)

// Float loops. float32 math goes through float64 and rounds once, which is
// at least as accurate as XLA's CPU approximations.

// fabs32 and fneg32 clear or flip the sign bit (NaNs included, as Go's
// -x does) with the 32-bit integer vector loops.
func fabs32(d, a []float32) {
	m := [1]uint32{1<<31 - 1}
	intArith32(iAnd, formVS, byteview.As[uint32](byteview.Bytes(d)), byteview.As[uint32](byteview.Bytes(a[:len(d)])), m[:])
}

func fneg32(d, a []float32) {
	m := [1]uint32{1 << 31}
	intArith32(iXor, formVS, byteview.As[uint32](byteview.Bytes(d)), byteview.As[uint32](byteview.Bytes(a[:len(d)])), m[:])
}

func fabs64(d, a []float64) {
	a = a[:len(d)]
	for i := range d {
		d[i] = math.Abs(a[i])
	}
}

func fsqrt[T float](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = T(math.Sqrt(float64(a[i])))
	}
}

func frsqrt[T float](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = T(1 / math.Sqrt(float64(a[i])))
	}
}

func fexp[T float](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = T(math.Exp(float64(a[i])))
	}
}

func flog[T float](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = T(math.Log(float64(a[i])))
	}
}

func ftanh[T float](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = T(math.Tanh(float64(a[i])))
	}
}

func flogistic[T float](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = T(logistic(float64(a[i])))
	}
}

// logistic is 1/(1+e^-x), written to avoid overflow for large |x|.
func logistic(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

func ffloor[T float](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = T(math.Floor(float64(a[i])))
	}
}

func fceil[T float](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = T(math.Ceil(float64(a[i])))
	}
}

func fsign(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return x // ±0 and NaN stay as they are
}

func fpow[T float](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = T(pow64(float64(a[i]), float64(b[i])))
	}
}

func frem[T float](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = T(math.Mod(float64(a[i]), float64(b[i])))
	}
}

func fatan2[T float](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = T(atan2(float64(a[i]), float64(b[i])))
	}
}

// atan2 fixes math.Atan2's sign when y/x underflows to zero with x < 0
// (atan2(-tiny, -huge) must be -π): the result always has the sign of y.
func atan2(y, x float64) float64 {
	return math.Copysign(math.Atan2(y, x), y)
}

func isF32[T float]() bool {
	var z T
	_, ok := any(z).(float32)
	return ok
}

// fscalar adapts a float64 function to a per-element kernel of T.
func fscalar[T float](f func(float64) float64) kern {
	return map1(func(x T) T { return T(f(float64(x))) })
}

// floatUnary returns the same-type unary kernels for a native float type.
func floatUnary[T float](name string) kern {
	switch name {
	case "negate":
		if isF32[T]() {
			return k1(fneg32)
		}
		return k1(neg[T])
	case "abs":
		if isF32[T]() {
			return k1(fabs32)
		}
		return k1(fabs64)
	case "sqrt":
		if isF32[T]() {
			return k1(fsqrt32)
		}
		return k1(fsqrt[T])
	case "rsqrt":
		return k1(frsqrt[T])
	case "exponential":
		if isF32[T]() {
			return k1(fexp32)
		}
		return k1(fexp[T])
	case "log":
		if isF32[T]() {
			return k1(flog32)
		}
		return k1(flog[T])
	case "tanh":
		if isF32[T]() {
			return k1(ftanh32)
		}
		return k1(ftanh[T])
	case "logistic":
		if isF32[T]() {
			return k1(flogistic32)
		}
		return k1(flogistic[T])
	case "floor":
		if isF32[T]() {
			return k1(ffloor32)
		}
		return k1(ffloor[T])
	case "ceil":
		if isF32[T]() {
			return k1(fceil32)
		}
		return k1(fceil[T])
	case "cbrt":
		return fscalar[T](math.Cbrt)
	case "round_nearest_afz":
		return fscalar[T](math.Round)
	case "round_nearest_even":
		if isF32[T]() {
			return k1(frne32)
		}
		return fscalar[T](math.RoundToEven)
	case "cosine":
		return fscalar[T](cos64)
	case "sine":
		return fscalar[T](sin64)
	case "tan":
		return fscalar[T](tan64)
	case "exponential_minus_one":
		return fscalar[T](math.Expm1)
	case "log_plus_one":
		if isF32[T]() {
			return k1(flog1p32)
		}
		return fscalar[T](math.Log1p)
	case "sign":
		return fscalar[T](fsign)
	}
	return nil
}

// floatBinary returns the same-type binary kernels for a native float type.
func floatBinary[T float](name string) kern {
	t := ir.F64
	if isF32[T]() {
		t = ir.F32
	}
	if k := arithKern(name, t); k != nil {
		return k // vector loops (arith.go)
	}
	switch name {
	case "add":
		return k2(add[T])
	case "subtract":
		return k2(sub[T])
	case "multiply":
		return k2(mul[T])
	case "divide":
		return k2(fdiv[T])
	case "maximum":
		return k2(fmax[T])
	case "minimum":
		return k2(fmin[T])
	case "power":
		return k2(fpow[T])
	case "remainder":
		return k2(frem[T])
	case "atan2":
		return k2(fatan2[T])
	}
	return nil
}
