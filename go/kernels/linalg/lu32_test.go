package linalg

import (
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// The float32 LU and triangular solves against float64 arithmetic on the
// same f32 inputs: backward errors within LAPACK-style bounds (n·eps32·‖A‖),
// partial pivoting's rule checked on the pivots the factorization chose.

const eps32 = 0x1p-23

func f32to64(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

func normF64(a []float64) float64 {
	s := 0.0
	for _, v := range a {
		s += v * v
	}
	return math.Sqrt(s)
}

func checkGetrf32(t *testing.T, m, n int, singular bool) {
	r := rand.New(rand.NewSource(int64(m*1000 + n)))
	a := randF32(r, m*n)
	if singular && n > 3 && m > 3 {
		// A zero column stays exactly zero through the elimination.
		for i := 0; i < m; i++ {
			a[i*n+3] = 0
		}
	}
	k := min(m, n)
	x := append([]float32(nil), a...)
	piv := make([]int32, k)
	info := getrfRecS(testPar(), m, n, x, n, piv)
	if singular && n > 3 && m > 3 {
		require.Equal(t, 4, info, "%dx%d singular", m, n)
	} else {
		require.Equal(t, 0, info, "%dx%d", m, n)
	}
	// Replaying the interchanges on A: each pivot must be the first
	// row of largest magnitude in its column of the partially reduced
	// matrix, which (P·A)'s L and U give back as L(i,j)·U(j,j) = A_j(i,j).
	a64 := f32to64(a)
	pa := append([]float64(nil), a64...)
	for i, p := range piv {
		p := int(p) - 1
		require.True(t, p >= i && p < m, "pivot %d of row %d", p, i)
		for j := 0; j < n; j++ {
			pa[i*n+j], pa[p*n+j] = pa[p*n+j], pa[i*n+j]
		}
	}
	l := make([]float64, m*k)
	u := make([]float64, k*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			v := float64(x[i*n+j])
			switch {
			case i > j && j < k:
				l[i*k+j] = v
				require.LessOrEqual(t, math.Abs(v), 1.0, "|L(%d,%d)| > 1 breaks partial pivoting", i, j)
			case i <= j && i < k:
				u[i*n+j] = v
			}
			if i == j && i < k {
				l[i*k+i] = 1
			}
		}
	}
	lu := make([]float64, m*n)
	for i := 0; i < m; i++ {
		for p := 0; p < k; p++ {
			if l[i*k+p] == 0 {
				continue
			}
			for j := 0; j < n; j++ {
				lu[i*n+j] += l[i*k+p] * u[p*n+j]
			}
		}
	}
	for i := range lu {
		lu[i] -= pa[i]
	}
	res := normF64(lu) / (float64(max(m, n)) * eps32 * normF64(a64))
	require.Less(t, res, 8.0, "%dx%d ‖PA−LU‖/(n·eps·‖A‖)", m, n)
}

func TestGetrfF32Residual(t *testing.T) {
	for _, n := range blockedSizes {
		checkGetrf32(t, n, n, false)
		checkGetrf32(t, n, n, true)
	}
	for _, mn := range [][2]int{{257, 100}, {100, 257}, {65, 33}, {33, 65}, {300, 300}} {
		checkGetrf32(t, mn[0], mn[1], false)
		checkGetrf32(t, mn[0], mn[1], true)
	}
}

// TestGetrfF32Ties: among entries of equal magnitude the first row is the
// pivot (isamax), in the unblocked base and across the recursion's halves.
func TestGetrfF32Ties(t *testing.T) {
	for _, n := range []int{4, 40} {
		a := make([]float32, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				a[i*n+j] = float32((i*7+j*3)%5) - 2
			}
			a[i*n+i] += 0.5
		}
		// Column 0: magnitude 9 at rows 2 and 3 (-9 first), smaller elsewhere.
		for i := 0; i < n; i++ {
			a[i*n] = 1
		}
		a[2*n], a[3*n] = -9, 9
		ref := f32to64(a)
		x := append([]float32(nil), a...)
		piv := make([]int32, n)
		getrfRecS(testPar(), n, n, x, n, piv)
		require.Equal(t, int32(3), piv[0], "n=%d: first maximal row is row 2 (1-based 3)", n)
		// The float64 getf2 follows the same rule.
		refPiv := make([]int32, n)
		getf2(n, n, ref, n, refPiv)
		require.Equal(t, refPiv[:1], piv[:1])
	}
}

func checkTrsm32(t *testing.T, p triParams, k, other int) {
	r := rand.New(rand.NewSource(int64(k*7 + other)))
	a := randF32(r, k*k)
	for i := 0; i < k; i++ {
		a[i*k+i] += float32(2 * k)
	}
	m, n := k, other
	if !p.left {
		m, n = other, k
	}
	b := randF32(r, m*n)
	x := append([]float32(nil), b...)
	trsmParS(testPar(), p, a, k, k, x, n, m, n)
	op := make([]float64, k*k)
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			ai, aj := i, j
			if p.trans != 'N' {
				ai, aj = j, i
			}
			if (p.lower && aj > ai) || (!p.lower && aj < ai) {
				continue
			}
			v := float64(a[ai*k+aj])
			if i == j && p.unit {
				v = 1
			}
			op[i*k+j] = v
		}
	}
	xs := f32to64(x)
	got := make([]float64, m*n)
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
	b64 := f32to64(b)
	for i := range got {
		got[i] -= b64[i]
	}
	res := normF64(got) / (float64(k) * eps32 * (normF64(op)*normF64(xs) + normF64(b64)))
	require.Less(t, res, 4.0, "trsm %+v k=%d other=%d", p, k, other)
}

func TestTrsmF32Residual(t *testing.T) {
	for _, k := range blockedSizes {
		for _, left := range []bool{true, false} {
			for _, lower := range []bool{true, false} {
				for _, tr := range []byte{'N', 'T', 'C'} {
					for _, unit := range []bool{false, true} {
						checkTrsm32(t, triParams{left: left, lower: lower, trans: tr, unit: unit}, k, 70)
					}
				}
			}
		}
	}
}

func TestPotrfF32Residual(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for _, n := range append(blockedSizes, 200) {
		a := hpd(r, n, false)
		x := make([]float32, n*n)
		for i, v := range a {
			x[i] = float32(real(v))
		}
		a64 := f32to64(x)
		require.Equal(t, 0, potrfBlockedS(testPar(), x, n, n), "n=%d", n)
		d := append([]float64(nil), a64...)
		for i := 0; i < n; i++ {
			for j := 0; j <= i; j++ {
				s := 0.0
				for p := 0; p <= j; p++ {
					s += float64(x[i*n+p]) * float64(x[j*n+p])
				}
				d[i*n+j] -= s
				d[j*n+i] = d[i*n+j]
			}
		}
		res := normF64(d) / (float64(n) * eps32 * normF64(a64))
		require.Less(t, res, 4.0, "n=%d ‖A−LLᵀ‖/(n·eps·‖A‖)", n)
		// Not positive definite at order q+1: info says so, blocked or not.
		if n > 2 {
			q := n / 2
			y := make([]float32, n*n)
			for i, v := range a {
				y[i] = float32(real(v))
			}
			y[q*n+q] = -1
			require.Equal(t, q+1, potrfBlockedS(testPar(), y, n, n), "n=%d", n)
		}
	}
}

// TestGetf2ColMatchesRow checks that the column-major panel factorization
// gives the row-major one's factors, pivots and info bit for bit (the same
// operations per element), on panels with ties, zeros, a zero column,
// infinities and NaNs, in f32 and c64.
func TestGetf2ColMatchesRow(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	for _, m := range []int{32, 33, 70, 257} {
		for _, n := range []int{1, 3, 8} {
			for kind := 0; kind < 5; kind++ {
				lda := n + 3
				a32 := make([]float32, m*lda)
				a64 := make([]complex64, m*lda)
				for i := range a32 {
					v := float32(r.Intn(7) - 3) // ties and zeros
					if kind > 0 {
						v = float32(r.NormFloat64())
					}
					a32[i] = v
					a64[i] = complex(v, float32(r.Intn(5)-2))
				}
				switch kind {
				case 2:
					for i := 0; i < m; i++ {
						a32[i*lda] = 0
						a64[i*lda] = 0
					}
				case 3:
					a32[5*lda] = float32(math.Inf(-1))
					a32[7*lda+n-1] = float32(math.NaN())
					a64[9*lda] = complex(float32(math.NaN()), 0)
				case 4:
					// Signed zeros in the multipliers (skipped whatever
					// their signs), against an infinite last column
					// (a zero times it would be NaN).
					nz := float32(math.Copysign(0, -1))
					for i := 2; i < m; i += 3 {
						a64[i*lda] = complex(nz, 0)
						a64[(i-1)*lda] = complex(0, nz)
					}
					if n > 1 {
						for i := 0; i < m; i++ {
							a64[i*lda+n-1] = complex(1, float32(math.Inf(1)))
						}
					}
				}
				checkGetf2Col(t, m, n, a32, lda)
				checkGetf2Col(t, m, n, a64, lda)
			}
		}
	}
}

func checkGetf2Col[T single](t *testing.T, m, n int, a []T, lda int) {
	x, y := append([]T(nil), a...), append([]T(nil), a...)
	px, py := make([]int32, n), make([]int32, n)
	ix, iy := getf2RowS(m, n, x, lda, px), getf2ColS(m, n, y, lda, py)
	require.Equal(t, ix, iy, "info m=%d n=%d", m, n)
	require.Equal(t, px, py, "pivots m=%d n=%d", m, n)
	fx, fy := asF32s(x), asF32s(y)
	for i := range fx {
		require.Equal(t, math.Float32bits(fx[i]), math.Float32bits(fy[i]), "element %d m=%d n=%d", i, m, n)
	}
}

// TestAxpyF32 checks y += a·x at lengths around the vector kernel's
// 32-element blocks against float64 arithmetic: within a rounding of each
// term (one fused rounding, or the product's and the sum's).
func TestAxpyF32(t *testing.T) {
	r := rand.New(rand.NewSource(13))
	for _, n := range []int{0, 1, 31, 32, 33, 64, 95, 200} {
		x, y := make([]float32, n+3), make([]float32, n)
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		for i := range y {
			y[i] = float32(r.NormFloat64())
		}
		a := float32(r.NormFloat64())
		want, mag := make([]float64, n), make([]float64, n)
		for i := range y {
			want[i] = float64(y[i]) + float64(a)*float64(x[i])
			mag[i] = math.Abs(float64(y[i])) + math.Abs(float64(a)*float64(x[i]))
		}
		axpyF32(y, x, a)
		for i, v := range y {
			tol := mag[i] * eps32
			require.LessOrEqual(t, math.Abs(float64(v)-want[i]), tol, "n=%d i=%d", n, i)
		}
	}
}
