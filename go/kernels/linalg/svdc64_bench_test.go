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

// gemvRows2F32 (float32 sums) against float64 sums, with the bound of a
// float32 dot product of length n, every row count and tail length.
func TestGemvRows2F32(t *testing.T) {
	r := rand.New(rand.NewSource(29))
	for _, mn := range [][2]int{{0, 3}, {1, 1}, {3, 7}, {4, 8}, {5, 9}, {9, 16}, {13, 67}, {8, 512}} {
		m, n := mn[0], mn[1]
		lda := n + 5
		a := make([]float32, m*lda)
		for i := range a {
			a[i] = float32(r.NormFloat64())
		}
		v, w := make([]float32, n), make([]float32, n)
		for i := range v {
			v[i], w[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
		}
		y, z := make([]float32, m), make([]float32, m)
		gemvRows2F32(a, lda, v, w, y, z)
		for i := 0; i < m; i++ {
			var s, u, mag float64
			for c := 0; c < n; c++ {
				x := float64(a[i*lda+c])
				s += x * float64(v[c])
				u += x * float64(w[c])
				mag += math.Abs(x) * (math.Abs(float64(v[c])) + math.Abs(float64(w[c])))
			}
			tol := float64(n+1) * eps32 * mag
			require.InDelta(t, s, float64(y[i]), tol, "m=%d n=%d row %d", m, n, i)
			require.InDelta(t, u, float64(z[i]), tol, "m=%d n=%d row %d", m, n, i)
		}
	}
}

// gemvC32 on copyC32's copies against complex128 products: A·x and Aᴴ·x,
// x and y strided.
func TestGemvC32(t *testing.T) {
	r := rand.New(rand.NewSource(31))
	for _, mn := range [][2]int{{1, 1}, {3, 5}, {17, 40}, {40, 17}, {64, 64}} {
		m, n := mn[0], mn[1]
		lda := n + 2
		a := randMat(r, m*lda, true)
		a32, at32 := make([]float32, 2*m*n), make([]float32, 2*m*n)
		copyC32(m, n, a, lda, a32, at32)
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				w := complex64(a[i*lda+j])
				require.Equal(t, real(w), a32[2*(i*n+j)])
				require.Equal(t, imag(w), a32[2*(i*n+j)+1])
				require.Equal(t, real(w), at32[2*(j*m+i)])
				require.Equal(t, -imag(w), at32[2*(j*m+i)+1])
			}
		}
		for _, adj := range []bool{false, true} {
			rows, cols, src := m, n, a32
			if adj {
				rows, cols, src = n, m, at32
			}
			x := randMat(r, 2*cols, true)
			y := randMat(r, 3*rows, true)
			want := append([]complex128(nil), y...)
			for i := 0; i < rows; i++ {
				var s complex128
				for j := 0; j < cols; j++ {
					var e complex128
					if adj {
						e = cmplx.Conj(a[j*lda+i])
					} else {
						e = a[i*lda+j]
					}
					s += e * x[2*j]
				}
				want[3*i] += s
			}
			gemvC32(rows, cols, src, cols, x, 2, y, 3)
			for i := range y {
				require.Less(t, cmplx.Abs(y[i]-want[i]), 1e-5*float64(cols), "m=%d n=%d adj=%v i=%d", m, n, adj, i)
			}
		}
	}
}

func BenchmarkGetrfC64(b *testing.B) {
	const n = 256
	r := rand.New(rand.NewSource(1))
	a := toC64s(randMat(r, n*n, true))
	x := make([]complex64, n*n)
	ipiv := make([]int32, n)
	c0 := processCPU()
	defer func() { b.ReportMetric(float64((processCPU()-c0).Microseconds())/1e3/float64(b.N), "cpu-ms/op") }()
	for i := 0; i < b.N; i++ {
		copy(x, a)
		getrfRecS(testPar(), n, n, x, n, ipiv)
	}
}

// BenchmarkGebrdC64 times the bidiagonal reduction alone as the complex64
// SVD runs it (complex128 working copy, single-precision products).
func BenchmarkGebrdC64(b *testing.B) {
	const n = 256
	r := rand.New(rand.NewSource(1))
	a := fromC64s(toC64s(randMat(r, n*n, true)))
	x := make([]complex128, n*n)
	d, e := make([]float64, n), make([]float64, n)
	tq, tp, work := make([]complex128, n), make([]complex128, n), make([]complex128, n)
	c0 := processCPU()
	defer func() { b.ReportMetric(float64((processCPU()-c0).Microseconds())/1e3/float64(b.N), "cpu-ms/op") }()
	for i := 0; i < b.N; i++ {
		copy(x, a)
		gebrd(testPar(), n, n, x, n, d, e, tq, tp, work, true)
	}
}

// BenchmarkGebrd times the float64 and complex128 bidiagonal reductions
// (labrd in double precision throughout).
func BenchmarkGebrd(b *testing.B) {
	const n = 256
	b.Run("f64", func(b *testing.B) { benchGebrd[float64](b, n, false) })
	b.Run("c128", func(b *testing.B) { benchGebrd[complex128](b, n, true) })
}

func benchGebrd[T scalar](b *testing.B, n int, cplx bool) {
	r := rand.New(rand.NewSource(1))
	src := randMat(r, n*n, cplx)
	a := make([]T, n*n)
	for i, v := range src {
		a[i] = fromC[T](real(v), imag(v))
	}
	x := make([]T, n*n)
	d, e := make([]float64, n), make([]float64, n)
	tq, tp, work := make([]T, n), make([]T, n), make([]T, n)
	c0 := processCPU()
	defer func() { b.ReportMetric(float64((processCPU()-c0).Microseconds())/1e3/float64(b.N), "cpu-ms/op") }()
	for i := 0; i < b.N; i++ {
		copy(x, a)
		gebrd(testPar(), n, n, x, n, d, e, tq, tp, work, false)
	}
}
