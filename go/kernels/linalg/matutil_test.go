package linalg

import (
	"math/cmplx"
	"math/rand"
)

// Small dense helpers for property checks (row-major complex128 matrices).

func matMul(a []complex128, m, k int, b []complex128, n int) []complex128 {
	c := make([]complex128, m*n)
	for i := 0; i < m; i++ {
		for p := 0; p < k; p++ {
			f := a[i*k+p]
			for j := 0; j < n; j++ {
				c[i*n+j] += f * b[p*n+j]
			}
		}
	}
	return c
}

// adjoint returns the conjugate transpose of an m×n matrix.
func adjoint(a []complex128, m, n int) []complex128 {
	t := make([]complex128, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			t[j*m+i] = cmplx.Conj(a[i*n+j])
		}
	}
	return t
}

func transpose(a []complex128, m, n int) []complex128 {
	t := make([]complex128, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			t[j*m+i] = a[i*n+j]
		}
	}
	return t
}

func maxAbsDiff(a, b []complex128) float64 {
	d := 0.0
	for i := range a {
		d = max(d, cmplx.Abs(a[i]-b[i]))
	}
	return d
}

func randMat(r *rand.Rand, n int, cplx bool) []complex128 {
	v := make([]complex128, n)
	for i := range v {
		if cplx {
			v[i] = complex(r.NormFloat64(), r.NormFloat64())
		} else {
			v[i] = complex(r.NormFloat64(), 0)
		}
	}
	return v
}

// randHPD returns a Hermitian positive definite n×n matrix.
func randHPD(r *rand.Rand, n int, cplx bool) []complex128 {
	g := randMat(r, n*n, cplx)
	a := matMul(g, n, n, adjoint(g, n, n), n)
	for i := 0; i < n; i++ {
		a[i*n+i] += complex(float64(n), 0)
	}
	return a
}

func eye(n int) []complex128 {
	e := make([]complex128, n*n)
	for i := 0; i < n; i++ {
		e[i*n+i] = 1
	}
	return e
}

// Encoding of complex128 test data to a given element type and back.

func encodeAs(v []complex128, et string) []byte {
	switch et {
	case "f32":
		f := make([]float32, len(v))
		for i, x := range v {
			f[i] = float32(real(x))
		}
		return f32Bytes(f)
	case "f64":
		f := make([]float64, len(v))
		for i, x := range v {
			f[i] = real(x)
		}
		return f64Bytes(f)
	case "c64":
		f := make([]complex64, len(v))
		for i, x := range v {
			f[i] = complex64(x)
		}
		return c64Bytes(f)
	}
	return c128Bytes(v)
}

func decodeAs(b []byte, et string) []complex128 {
	var out []complex128
	switch et {
	case "f32":
		for _, x := range bytesF32(b) {
			out = append(out, complex(float64(x), 0))
		}
	case "f64":
		for _, x := range bytesF64(b) {
			out = append(out, complex(x, 0))
		}
	case "c64":
		for _, x := range bytesC64(b) {
			out = append(out, complex128(x))
		}
	default:
		out = bytesC128(b)
	}
	return out
}

var testTypes = []struct {
	name string
	tol  float64
	cplx bool
}{{"f32", 1e-4, false}, {"f64", 1e-11, false}, {"c64", 1e-4, true}, {"c128", 1e-11, true}}
