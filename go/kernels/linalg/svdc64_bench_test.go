package linalg

import (
	"math"
	"math/cmplx"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// BenchmarkSvdC64 times the complex64 SVD with vectors at 256×256 (the
// complex128 working copy the custom call makes, rotations in float32).
func BenchmarkSvdC64(b *testing.B) {
	const n = 256
	r := rand.New(rand.NewSource(1))
	a := fromC64s(toC64s(randMat(r, n*n, true)))
	x := make([]complex128, n*n)
	s := make([]float64, n)
	u := make([]complex128, n*n)
	vt := make([]complex128, n*n)
	c0 := processCPU()
	defer func() { b.ReportMetric(float64((processCPU()-c0).Microseconds())/1e3/float64(b.N), "cpu-ms/op") }()
	for i := 0; i < b.N; i++ {
		copy(x, a)
		svdVectors(testPar(), n, n, n, x, s, u, n, vt, n, true)
	}
}

func BenchmarkPotrfC64(b *testing.B) {
	const n = 256
	r := rand.New(rand.NewSource(1))
	a := toC64s(hpd(r, n, true))
	x := make([]complex64, n*n)
	c0 := processCPU()
	defer func() { b.ReportMetric(float64((processCPU()-c0).Microseconds())/1e3/float64(b.N), "cpu-ms/op") }()
	for i := 0; i < b.N; i++ {
		copy(x, a)
		potrfBlockedS(testPar(), x, n, n)
	}
}

// axpy2F64 against float64 sums with an error bound of one rounding of
// each product and sum (the vector kernel fuses them), every tail length.
func TestAxpy2F64(t *testing.T) {
	r := rand.New(rand.NewSource(17))
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 200} {
		x, p, q := make([]float64, n+5), make([]float64, n), make([]float64, n)
		for i := range x {
			x[i] = r.NormFloat64()
		}
		for i := range p {
			p[i], q[i] = r.NormFloat64(), r.NormFloat64()
		}
		a, b := r.NormFloat64(), r.NormFloat64()
		p0, q0 := append([]float64(nil), p...), append([]float64(nil), q...)
		axpy2F64(p, q, x, a, b)
		for i := range p {
			for _, c := range []struct{ got, y, f float64 }{{p[i], p0[i], a}, {q[i], q0[i], b}} {
				tol := 2 * (math.Abs(c.y) + math.Abs(c.f*x[i])) * eps64
				require.LessOrEqual(t, math.Abs(c.got-(c.y+c.f*x[i])), tol, "n=%d i=%d", n, i)
			}
		}
	}
}

// The complex adjoint product of gemvAcc (two real axpys per row) against
// term-by-term sums, with strides, conjugated x and every small width.
func TestGemvAccAdjComplex(t *testing.T) {
	r := rand.New(rand.NewSource(19))
	for _, mn := range [][2]int{{1, 1}, {3, 4}, {5, 7}, {40, 33}, {9, 64}, {0, 5}} {
		m, n := mn[0], mn[1]
		lda := n + 2
		a := randMat(r, m*lda, true)
		x := randMat(r, 2*m+1, true)
		for _, cx := range []bool{false, true} {
			y := randMat(r, 3*n+1, true)
			want := append([]complex128(nil), y...)
			alpha := complex(-1, 0)
			for c := 0; c < n; c++ {
				var s complex128
				for k := 0; k < m; k++ {
					v := x[2*k]
					if cx {
						v = cmplx.Conj(v)
					}
					s += cmplx.Conj(a[k*lda+c]) * v
				}
				want[3*c] += alpha * s
			}
			gemvAcc(m, n, alpha, a, lda, true, cx, x, 2, y, 3)
			for i := range y {
				require.Less(t, cmplx.Abs(y[i]-want[i]), 1e-13*float64(m+1), "m=%d n=%d i=%d", m, n, i)
			}
		}
	}
}

func TestAdjointInto(t *testing.T) {
	r := rand.New(rand.NewSource(23))
	for _, mn := range [][2]int{{0, 0}, {1, 1}, {3, 17}, {33, 16}, {40, 70}} {
		m, n := mn[0], mn[1]
		lda := n + 3
		a := randMat(r, m*lda, true)
		at := make([]complex128, n*m)
		adjointInto(m, n, a, lda, at)
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				require.Equal(t, cmplx.Conj(a[i*lda+j]), at[j*m+i])
			}
		}
		f := make([]float64, m*lda)
		for i := range f {
			f[i] = r.NormFloat64()
		}
		ft := make([]float64, n*m)
		adjointInto(m, n, f, lda, ft)
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				require.Equal(t, f[i*lda+j], ft[j*m+i])
			}
		}
	}
}
