package linalg

import (
	"math"
	"math/cmplx"
	"unsafe"
)

// scalar is the element type of the dense factorizations: they are written
// once for real and complex data. The helpers below specialize on the size of
// T (8 bytes: float64, 16: complex128), which the compiler folds per
// instantiation, so there is neither boxing nor a type switch at run time.
type scalar interface{ float64 | complex128 }

func isCplx[T scalar]() bool {
	var z T
	return unsafe.Sizeof(z) == 16
}

func asC(p unsafe.Pointer) *complex128 { return (*complex128)(p) }
func asF(p unsafe.Pointer) *float64    { return (*float64)(p) }

// conj is the complex conjugate (identity for reals).
func conj[T scalar](x T) T {
	if unsafe.Sizeof(x) == 16 {
		c := cmplx.Conj(*asC(unsafe.Pointer(&x)))
		return *(*T)(unsafe.Pointer(&c))
	}
	return x
}

// re is the real part.
func re[T scalar](x T) float64 {
	if unsafe.Sizeof(x) == 16 {
		return real(*asC(unsafe.Pointer(&x)))
	}
	return *asF(unsafe.Pointer(&x))
}

// im is the imaginary part (0 for reals).
func im[T scalar](x T) float64 {
	if unsafe.Sizeof(x) == 16 {
		return imag(*asC(unsafe.Pointer(&x)))
	}
	return 0
}

// fromRe makes a T from a real number.
func fromRe[T scalar](r float64) T {
	var z T
	if unsafe.Sizeof(z) == 16 {
		c := complex(r, 0)
		return *(*T)(unsafe.Pointer(&c))
	}
	return *(*T)(unsafe.Pointer(&r))
}

// fromC makes a T from real and imaginary parts (im dropped for reals).
func fromC[T scalar](r, i float64) T {
	var z T
	if unsafe.Sizeof(z) == 16 {
		c := complex(r, i)
		return *(*T)(unsafe.Pointer(&c))
	}
	return *(*T)(unsafe.Pointer(&r))
}

// abs is |x|, computed without overflow for complex values.
func abs[T scalar](x T) float64 {
	if unsafe.Sizeof(x) == 16 {
		return cmplx.Abs(*asC(unsafe.Pointer(&x)))
	}
	return math.Abs(*asF(unsafe.Pointer(&x)))
}

// abs1 is |re| + |im|, LAPACK's cheap magnitude for pivoting.
func abs1[T scalar](x T) float64 { return math.Abs(re(x)) + math.Abs(im(x)) }

// scaleRe multiplies by a real factor (exactly per component, as LAPACK's
// zdscal does, unlike a complex multiply by (s+0i)).
func scaleRe[T scalar](x T, s float64) T { return fromC[T](re(x)*s, im(x)*s) }
