package linalg

import (
	"math"
	"math/cmplx"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// The complex64 LU and triangular solves (native single precision) against
// complex128 arithmetic on the same c64 inputs: backward errors within
// LAPACK-style bounds (n·eps32·‖A‖), as for float32 in lu32_test.go.

func randC64(r *rand.Rand, n int) []complex64 {
	out := make([]complex64, n)
	for i := range out {
		out[i] = complex(float32(r.NormFloat64()), float32(r.NormFloat64()))
	}
	return out
}

func c64to128(v []complex64) []complex128 {
	out := make([]complex128, len(v))
	for i, x := range v {
		out[i] = complex128(x)
	}
	return out
}

func normC128(a []complex128) float64 {
	s := 0.0
	for _, v := range a {
		s += real(v)*real(v) + imag(v)*imag(v)
	}
	return math.Sqrt(s)
}

func checkGetrfC64(t *testing.T, m, n int, singular bool) {
	r := rand.New(rand.NewSource(int64(m*1000 + n)))
	a := randC64(r, m*n)
	sing := singular && n > 3 && m > 3
	if sing {
		for i := 0; i < m; i++ {
			a[i*n+3] = 0
		}
	}
	k := min(m, n)
	x := append([]complex64(nil), a...)
	piv := make([]int32, k)
	info := getrfRecS(testPar(), m, n, x, n, piv)
	if sing {
		require.Equal(t, 4, info, "%dx%d singular", m, n)
	} else {
		require.Equal(t, 0, info, "%dx%d", m, n)
	}
	a128 := c64to128(a)
	pa := append([]complex128(nil), a128...)
	for i, p := range piv {
		p := int(p) - 1
		require.True(t, p >= i && p < m, "pivot %d of row %d", p, i)
		for j := 0; j < n; j++ {
			pa[i*n+j], pa[p*n+j] = pa[p*n+j], pa[i*n+j]
		}
	}
	lu := make([]complex128, m*n)
	for i := 0; i < m; i++ {
		for p := 0; p < k && p <= i; p++ {
			l := complex128(1)
			if p < i {
				l = complex128(x[i*n+p])
				// icamax pivots: |L| ≤ |Re piv|+|Im piv| / |piv| ≤ √2.
				require.LessOrEqual(t, cmplx.Abs(l), math.Sqrt2*(1+1e-6), "L(%d,%d)", i, p)
			}
			for j := p; j < n; j++ {
				lu[i*n+j] += l * complex128(x[p*n+j])
			}
		}
	}
	for i := range lu {
		lu[i] -= pa[i]
	}
	res := normC128(lu) / (float64(max(m, n)) * eps32 * normC128(a128))
	require.Less(t, res, 8.0, "%dx%d ‖PA−LU‖/(n·eps·‖A‖)", m, n)
}

func TestGetrfC64Residual(t *testing.T) {
	for _, n := range blockedSizes {
		checkGetrfC64(t, n, n, false)
		checkGetrfC64(t, n, n, true)
	}
	for _, mn := range [][2]int{{257, 100}, {100, 257}, {65, 33}, {33, 65}} {
		checkGetrfC64(t, mn[0], mn[1], false)
		checkGetrfC64(t, mn[0], mn[1], true)
	}
}

func checkTrsmC64(t *testing.T, p triParams, k, other int) {
	r := rand.New(rand.NewSource(int64(k*7 + other)))
	a := randC64(r, k*k)
	for i := range a {
		// |a| of the real tests' size: unit-diagonal solves grow with it.
		a[i] *= complex(float32(math.Sqrt(0.5)), 0)
	}
	for i := 0; i < k; i++ {
		a[i*k+i] += complex(float32(2*k), 1)
	}
	m, n := k, other
	if !p.left {
		m, n = other, k
	}
	b := randC64(r, m*n)
	x := append([]complex64(nil), b...)
	trsmParS(testPar(), p, a, k, k, x, n, m, n)
	op := make([]complex128, k*k)
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			ai, aj := i, j
			if p.trans != 'N' {
				ai, aj = j, i
			}
			if (p.lower && aj > ai) || (!p.lower && aj < ai) {
				continue
			}
			v := complex128(a[ai*k+aj])
			if p.trans == 'C' {
				v = cmplx.Conj(v)
			}
			if i == j && p.unit {
				v = 1
			}
			op[i*k+j] = v
		}
	}
	xs := c64to128(x)
	got := make([]complex128, m*n)
	if p.left {
		for i := 0; i < k; i++ {
			for q := 0; q < k; q++ {
				for j := 0; j < n; j++ {
					got[i*n+j] += op[i*k+q] * xs[q*n+j]
				}
			}
		}
	} else {
		for i := 0; i < m; i++ {
			for q := 0; q < k; q++ {
				for j := 0; j < k; j++ {
					got[i*n+j] += xs[i*n+q] * op[q*k+j]
				}
			}
		}
	}
	b128 := c64to128(b)
	for i := range got {
		got[i] -= b128[i]
	}
	res := normC128(got) / (float64(k) * eps32 * (normC128(op)*normC128(xs) + normC128(b128)))
	require.False(t, math.IsNaN(res), "trsm %+v k=%d other=%d: NaN", p, k, other)
	require.Less(t, res, 4.0, "trsm %+v k=%d other=%d", p, k, other)
}

// Every side, triangle, transposition (conjugating for 'C') and diagonal,
// at orders below and above the blocked solver's base (its coupling blocks
// through both the small axpy path and the f32 GEMM).
func TestTrsmC64Residual(t *testing.T) {
	for _, k := range blockedSizes {
		for _, left := range []bool{true, false} {
			for _, lower := range []bool{true, false} {
				for _, tr := range []byte{'N', 'T', 'C'} {
					for _, unit := range []bool{false, true} {
						checkTrsmC64(t, triParams{left: left, lower: lower, trans: tr, unit: unit}, k, 70)
					}
				}
			}
		}
	}
}

// TestPotrfC64Residual checks the native complex64 Cholesky by its backward
// error in complex128 arithmetic, ‖A − L·Lᴴ‖ ≤ c·n·eps·‖A‖ (LAPACK's bound
// for cpotrf), blocked and not, that the strict upper triangle is left
// alone, and that info names the first minor that is not positive definite.
func TestPotrfC64Residual(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for _, n := range append(blockedSizes, 200) {
		a := hpd(r, n, true)
		x := make([]complex64, n*n)
		for i, v := range a {
			x[i] = complex64(v)
		}
		a128 := make([]complex128, n*n)
		for i, v := range x {
			a128[i] = complex128(v)
		}
		require.Equal(t, 0, potrfBlockedS(testPar(), x, n, n), "n=%d", n)
		d := append([]complex128(nil), a128...)
		for i := 0; i < n; i++ {
			for j := 0; j <= i; j++ {
				var s complex128
				for p := 0; p <= j; p++ {
					s += complex128(x[i*n+p]) * cmplx.Conj(complex128(x[j*n+p]))
				}
				d[i*n+j] -= s
				d[j*n+i] = cmplx.Conj(d[i*n+j])
			}
			require.Zero(t, imag(x[i*n+i]), "n=%d: L's diagonal is real", n)
			for j := i + 1; j < n; j++ {
				require.Equal(t, complex64(a128[i*n+j]), x[i*n+j], "n=%d: upper (%d,%d) changed", n, i, j)
			}
		}
		res := normC128(d) / (float64(n) * eps32 * normC128(a128))
		require.Less(t, res, 4.0, "n=%d ‖A−LLᴴ‖/(n·eps·‖A‖)", n)
		if n > 2 {
			q := n / 2
			y := make([]complex64, n*n)
			for i, v := range a {
				y[i] = complex64(v)
			}
			y[q*n+q] = -1
			require.Equal(t, q+1, potrfBlockedS(testPar(), y, n, n), "n=%d", n)
		}
	}
}

// The complex64 trsm leaves at tiny and odd shapes (the vector axpys' scalar
// tails, single rows and columns), every side, triangle and transposition.
func TestTrsmC64LeafShapes(t *testing.T) {
	for _, k := range []int{1, 2, 5, 16} {
		for _, other := range []int{1, 3, 9, 33} {
			for _, left := range []bool{true, false} {
				for _, lower := range []bool{true, false} {
					for _, tr := range []byte{'N', 'T', 'C'} {
						for _, unit := range []bool{false, true} {
							checkTrsmC64(t, triParams{left: left, lower: lower, trans: tr, unit: unit}, k, other)
						}
					}
				}
			}
		}
	}
}

// The recursive complex64 Cholesky inside a wider array (lda > n): the
// backward error bound, the padding and the strict upper triangle left
// alone, and NaN or a non-positive pivot past the first split reported
// through info rather than returned as a factor.
func TestPotrfC64RecStrided(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	for _, n := range []int{96, 97, 130, 200} {
		lda := n + 3
		a := hpd(r, n, true)
		x := make([]complex64, n*lda)
		for i := range x {
			x[i] = complex(float32(i), -1) // padding and upper triangle
		}
		for i := 0; i < n; i++ {
			for j := 0; j <= i; j++ {
				x[i*lda+j] = complex64(a[i*n+j])
			}
		}
		x0 := append([]complex64(nil), x...)
		require.Equal(t, 0, potrfBlockedS(testPar(), x, n, lda), "n=%d", n)
		var dn, an float64
		for i := 0; i < n; i++ {
			for j := 0; j <= i; j++ {
				var s complex128
				for p := 0; p <= j; p++ {
					s += complex128(x[i*lda+p]) * cmplx.Conj(complex128(x[j*lda+p]))
				}
				d := complex128(x0[i*lda+j]) - s
				dn += real(d)*real(d) + imag(d)*imag(d)
				v := complex128(x0[i*lda+j])
				an += real(v)*real(v) + imag(v)*imag(v)
			}
			for j := i + 1; j < lda; j++ {
				require.Equal(t, x0[i*lda+j], x[i*lda+j], "n=%d: (%d,%d) changed", n, i, j)
			}
		}
		require.Less(t, math.Sqrt(dn)/(float64(n)*eps32*math.Sqrt(an)), 4.0, "n=%d", n)
		for _, bad := range []complex64{complex(float32(math.NaN()), 0), -1} {
			y := append([]complex64(nil), x0...)
			q := n - 5
			y[q*lda+q] = bad
			require.Equal(t, q+1, potrfBlockedS(testPar(), y, n, lda), "n=%d bad=%v", n, bad)
			y = append([]complex64(nil), x0...)
			y[(n-1)*lda+3] = complex(float32(math.NaN()), 0)
			info := potrfBlockedS(testPar(), y, n, lda)
			require.Greater(t, info, 3, "n=%d: NaN in column 3", n)
		}
	}
}
