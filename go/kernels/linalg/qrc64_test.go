package linalg

import (
	"math"
	"math/cmplx"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

func toC64s(a []complex128) []complex64 {
	out := make([]complex64, len(a))
	for i, v := range a {
		out[i] = complex64(v)
	}
	return out
}

func fromC64s(a []complex64) []complex128 {
	out := make([]complex128, len(a))
	for i, v := range a {
		out[i] = complex128(v)
	}
	return out
}

// checkQRC64 factors a random m×n complex64 matrix stored with leading
// dimension lda >= n (the padding must stay untouched) and checks, in
// complex128, the backward error of Q·R and the orthogonality of Q against
// single-precision bounds.
func checkQRC64(t *testing.T, m, n, lda int) {
	r := rand.New(rand.NewSource(int64(m*131 + n*7 + lda)))
	k := min(m, n)
	a := randMat(r, m*n, true)
	a = fromC64s(toC64s(a)) // the matrix as factored
	const pad = complex64(complex(7, -3))
	x := make([]complex64, m*lda)
	for i := range x {
		x[i] = pad
	}
	for i := 0; i < m; i++ {
		copy(x[i*lda:i*lda+n], toC64s(a[i*n:(i+1)*n]))
	}
	tau := make([]complex64, k)
	geqrfC64(testPar(), m, n, x, lda, tau)
	for i := 0; i < m; i++ {
		for j := n; j < lda; j++ {
			require.Equal(t, pad, x[i*lda+j], "%dx%d lda %d: padding", m, n, lda)
		}
	}
	if k == 0 {
		return
	}
	rm := make([]complex128, k*n)
	for i := 0; i < k; i++ {
		for j := i; j < n; j++ {
			rm[i*n+j] = complex128(x[i*lda+j])
		}
	}
	// Q: m×k from the first k columns, also with a padded leading dimension.
	ldq := k + 3
	q := make([]complex64, m*ldq)
	for i := 0; i < m; i++ {
		copy(q[i*ldq:i*ldq+k], x[i*lda:i*lda+k])
		for j := k; j < ldq; j++ {
			q[i*ldq+j] = pad
		}
	}
	orgqrC64(testPar(), m, k, k, q, ldq, tau)
	qs := make([]complex128, m*k)
	for i := 0; i < m; i++ {
		for j := 0; j < k; j++ {
			qs[i*k+j] = complex128(q[i*ldq+j])
		}
		require.Equal(t, pad, q[i*ldq+k], "orgqr padding")
	}
	scale := float64(max(m, n)) * eps32
	res := normF(sub(matMul(qs, m, k, rm, n), a)) / (scale * normF(a))
	require.Less(t, res, 4.0, "%dx%d ‖A−QR‖/(n·eps·‖A‖)", m, n)
	orth := normF(sub(matMul(adjoint(qs, m, k), k, m, qs, k), eye(k))) / scale
	require.Less(t, orth, 4.0, "%dx%d ‖QᴴQ−I‖/(n·eps)", m, n)
}

func TestQRC64Residual(t *testing.T) {
	for _, n := range append([]int{0}, blockedSizes...) {
		checkQRC64(t, n, n, n)
	}
	for _, mn := range [][3]int{{257, 100, 100}, {100, 257, 260}, {300, 130, 131}, {130, 300, 300}, {200, 97, 99}, {256, 256, 256}, {5, 3, 4}, {3, 5, 5}, {96, 96, 97}} {
		checkQRC64(t, mn[0], mn[1], mn[2])
	}
}

// The complex64 QR against the complex128 one on the same matrix: the
// factors agree to single-precision rounding (same reflector conventions).
func TestQRC64MatchesC128(t *testing.T) {
	for _, n := range []int{33, 100, 160} {
		r := rand.New(rand.NewSource(int64(n)))
		a := fromC64s(toC64s(randMat(r, n*n, true)))
		x := toC64s(a)
		tau := make([]complex64, n)
		geqrfC64(testPar(), n, n, x, n, tau)
		ref := append([]complex128(nil), a...)
		rtau := make([]complex128, n)
		geqrfBlocked(testPar(), n, n, ref, n, rtau, make([]complex128, n))
		d := normF(sub(fromC64s(x), ref)) / (float64(n) * eps32 * normF(a))
		require.Less(t, d, 4.0, "n=%d", n)
		for i := range rtau {
			require.Less(t, cmplx.Abs(complex128(tau[i])-rtau[i]), 100*eps32, "n=%d tau %d", n, i)
		}
	}
}

// orgqr with more columns than reflectors (m ≥ n > k) against org2r in
// complex128.
func TestOrgqrC64Wide(t *testing.T) {
	m, n, k := 300, 200, 130
	r := rand.New(rand.NewSource(5))
	a := toC64s(randMat(r, m*n, true))
	tau := make([]complex64, k)
	geqrfC64(testPar(), m, k, a, n, tau) // first k columns only (lda n)
	b := fromC64s(a)
	orgqrC64(testPar(), m, n, k, a, n, tau)
	org2r(m, n, k, b, n, fromC64s(tau), make([]complex128, n))
	d := normF(sub(fromC64s(a), b)) / (float64(m) * eps32 * math.Sqrt(float64(n)))
	require.Less(t, d, 4.0)
}

// A NaN in the input spreads to the factors rather than hanging or
// panicking.
func TestQRC64NaN(t *testing.T) {
	for _, n := range []int{5, 130} {
		r := rand.New(rand.NewSource(9))
		x := toC64s(randMat(r, n*n, true))
		x[3*n+2] = complex(float32(math.NaN()), 0)
		tau := make([]complex64, n)
		geqrfC64(testPar(), n, n, x, n, tau)
		nan := false
		for _, v := range x {
			if cmplx.IsNaN(complex128(v)) {
				nan = true
			}
		}
		require.True(t, nan, "n=%d", n)
		orgqrC64(testPar(), n, n, n, x, n, tau)
	}
}

func BenchmarkQRC64(b *testing.B) {
	const n = 256
	r := rand.New(rand.NewSource(1))
	a := toC64s(randMat(r, n*n, true))
	x := make([]complex64, n*n)
	tau := make([]complex64, n)
	c0 := processCPU()
	defer func() { b.ReportMetric(float64((processCPU()-c0).Microseconds())/1e3/float64(b.N), "cpu-ms/op") }()
	for i := 0; i < b.N; i++ {
		copy(x, a)
		geqrfC64(testPar(), n, n, x, n, tau)
		orgqrC64(testPar(), n, n, n, x, n, tau)
	}
}

func BenchmarkQRC64ViaC128(b *testing.B) {
	const n = 256
	r := rand.New(rand.NewSource(1))
	a := randMat(r, n*n, true)
	x := make([]complex128, n*n)
	tau := make([]complex128, n)
	work := make([]complex128, n)
	c0 := processCPU()
	defer func() { b.ReportMetric(float64((processCPU()-c0).Microseconds())/1e3/float64(b.N), "cpu-ms/op") }()
	for i := 0; i < b.N; i++ {
		copy(x, a)
		geqrfBlocked(testPar(), n, n, x, n, tau, work)
		orgqrBlocked(testPar(), n, n, n, x, n, tau, work)
	}
}
