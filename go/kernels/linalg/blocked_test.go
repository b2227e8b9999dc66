package linalg

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// Residual checks of the blocked factorizations at orders that cross the
// block boundaries, with tolerances scaled by n·eps·‖A‖ (no reference data,
// no dependence on the CPU's kernels).

var blockedSizes = []int{1, 2, 31, 32, 33, 64, 65, 100, 257}

const eps64 = 0x1p-52

func normF(a []complex128) float64 {
	s := 0.0
	for _, v := range a {
		s += real(v)*real(v) + imag(v)*imag(v)
	}
	return math.Sqrt(s)
}

func toT[T scalar](v []complex128) []T {
	out := make([]T, len(v))
	for i, x := range v {
		out[i] = fromC[T](real(x), imag(x))
	}
	return out
}

func fromT[T scalar](v []T) []complex128 {
	out := make([]complex128, len(v))
	for i, x := range v {
		out[i] = complex(re(x), im(x))
	}
	return out
}

func testPar() parallelFn { return fakeCtx{2}.Parallel }

// hpd is a random Hermitian positive definite matrix (real when !cplx).
func hpd(r *rand.Rand, n int, cplx bool) []complex128 {
	g := randMat(r, n*n, cplx)
	a := matMul(g, n, n, adjoint(g, n, n), n)
	for i := 0; i < n; i++ {
		a[i*n+i] += complex(float64(n), 0)
	}
	return a
}

func checkPotrf[T scalar](t *testing.T, n int) {
	r := rand.New(rand.NewSource(int64(n)))
	a := hpd(r, n, isCplx[T]())
	m := toT[T](a)
	// Poison the strict upper triangle: it must be left alone.
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			m[i*n+j] = fromRe[T](7)
		}
	}
	require.Equal(t, 0, potrfBlocked(testPar(), m, n, n))
	l := fromT(m)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			require.Equal(t, complex(7, 0), l[i*n+j], "upper triangle touched at (%d,%d)", i, j)
			l[i*n+j] = 0
		}
	}
	res := normF(sub(matMul(l, n, n, adjoint(l, n, n), n), a)) / (float64(n) * eps64 * normF(a))
	require.Less(t, res, 4.0, "n=%d ‖A−LLᴴ‖/(n·eps·‖A‖)", n)
}

func sub(a, b []complex128) []complex128 {
	c := make([]complex128, len(a))
	for i := range a {
		c[i] = a[i] - b[i]
	}
	return c
}

func TestPotrfBlockedResidual(t *testing.T) {
	for _, n := range append(blockedSizes, 300) {
		checkPotrf[float64](t, n)
		checkPotrf[complex128](t, n)
	}
}

// A matrix that stops being positive definite at row q reports info q+1
// from the blocked code as from the unblocked one.
func TestPotrfBlockedInfo(t *testing.T) {
	for _, n := range []int{100, 257} {
		for _, q := range []int{0, 5, 63, 64, 65, 130, n - 1} {
			if q >= n {
				continue
			}
			r := rand.New(rand.NewSource(int64(q)))
			a := hpd(r, n, false)
			a[q*n+q] = -1e6
			m1, m2 := toT[float64](a), toT[float64](a)
			want := potrfLower(m1, n, n)
			require.Equal(t, q+1, want)
			require.Equal(t, want, potrfBlocked(testPar(), m2, n, n), "n=%d q=%d", n, q)
		}
	}
}

func checkGetrf[T scalar](t *testing.T, m, n int, singular bool) {
	r := rand.New(rand.NewSource(int64(m*1000 + n)))
	a := randMat(r, m*n, isCplx[T]())
	if singular && n > 3 && m > 3 {
		// Column 3 repeats column 1: rank deficient.
		for i := 0; i < m; i++ {
			a[i*n+3] = a[i*n+1]
		}
	}
	k := min(m, n)
	x := toT[T](a)
	piv := make([]int32, k)
	info := getrfRec(testPar(), m, n, x, n, piv)
	if singular && n > 3 && m > 3 {
		ref, rp := toT[T](a), make([]int32, k)
		refInfo := getf2(m, n, ref, n, rp)
		require.Equal(t, refInfo > 0, info > 0, "%dx%d singular: info %d, unblocked %d", m, n, info, refInfo)
	} else {
		require.Equal(t, 0, info)
	}
	lu := fromT(x)
	l := make([]complex128, m*k)
	u := make([]complex128, k*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			switch {
			case i > j && j < k:
				l[i*k+j] = lu[i*n+j]
			case i <= j && i < k:
				u[i*n+j] = lu[i*n+j]
			}
			if i == j && i < k {
				l[i*k+i] = 1
			}
		}
	}
	pa := append([]complex128(nil), a...)
	for i, p := range piv {
		p := int(p) - 1
		require.True(t, p >= i && p < m, "pivot %d of row %d", p, i)
		for j := 0; j < n; j++ {
			pa[i*n+j], pa[p*n+j] = pa[p*n+j], pa[i*n+j]
		}
	}
	for _, v := range l {
		require.LessOrEqual(t, cmplx.Abs(v), 1.5, "|L| > 1 breaks partial pivoting")
	}
	res := normF(sub(matMul(l, m, k, u, n), pa)) / (float64(max(m, n)) * eps64 * normF(a))
	require.Less(t, res, 8.0, "%dx%d ‖PA−LU‖/(n·eps·‖A‖)", m, n)
}

func TestGetrfBlockedResidual(t *testing.T) {
	for _, n := range blockedSizes {
		checkGetrf[float64](t, n, n, false)
		checkGetrf[complex128](t, n, n, false)
		checkGetrf[float64](t, n, n, true)
	}
	for _, mn := range [][2]int{{257, 100}, {100, 257}, {65, 33}, {33, 65}, {200, 200}} {
		checkGetrf[float64](t, mn[0], mn[1], false)
		checkGetrf[complex128](t, mn[0], mn[1], false)
		checkGetrf[float64](t, mn[0], mn[1], true)
	}
}

func checkTrsm[T scalar](t *testing.T, p triParams, k, other int) {
	r := rand.New(rand.NewSource(int64(k*7 + other)))
	a := randMat(r, k*k, isCplx[T]())
	for i := 0; i < k; i++ {
		a[i*k+i] += complex(float64(2*k), 0) // well conditioned
	}
	m, n := k, other
	if !p.left {
		m, n = other, k
	}
	b := randMat(r, m*n, isCplx[T]())
	x := toT[T](b)
	trsmPar(testPar(), p, toT[T](a), k, k, x, n, m, n)
	// Effective op(tri(A)).
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
			v := a[ai*k+aj]
			if p.trans == 'C' {
				v = cmplx.Conj(v)
			}
			if i == j && p.unit {
				v = 1
			}
			op[i*k+j] = v
		}
	}
	xs := fromT(x)
	var got []complex128
	if p.left {
		got = matMul(op, k, k, xs, n)
	} else {
		got = matMul(xs, m, k, op, k)
	}
	res := normF(sub(got, b)) / (float64(k) * eps64 * (normF(op)*normF(xs) + normF(b)))
	require.Less(t, res, 4.0, "trsm %+v k=%d other=%d", p, k, other)
}

func TestTrsmBlockedResidual(t *testing.T) {
	for _, k := range blockedSizes {
		for _, left := range []bool{true, false} {
			for _, lower := range []bool{true, false} {
				for _, tr := range []byte{'N', 'T', 'C'} {
					for _, unit := range []bool{false, true} {
						p := triParams{left: left, lower: lower, trans: tr, unit: unit}
						checkTrsm[float64](t, p, k, 70)
						if tr != 'T' {
							checkTrsm[complex128](t, p, k, 9)
						}
					}
				}
			}
		}
	}
}

// TestBlockedTimings prints CPU-time medians of the blocked routines against
// the unblocked ones (GOJAX_LINALG_TIMINGS=1; not a pass/fail check).
func TestBlockedTimings(t *testing.T) {
	if os.Getenv("GOJAX_LINALG_TIMINGS") == "" {
		t.Skip("set GOJAX_LINALG_TIMINGS=1")
	}
	for _, n := range []int{256, 512} {
		r := rand.New(rand.NewSource(1))
		a := toT[float64](hpd(r, n, false))
		g := toT[float64](randMat(r, n*n, false))
		bm := toT[float64](randMat(r, n*n, false))
		work := make([]float64, n*n)
		piv := make([]int32, n)
		med := func(f func()) time.Duration {
			var ts []time.Duration
			for i := 0; i < 7; i++ {
				t0 := time.Now()
				f()
				ts = append(ts, time.Since(t0))
			}
			sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
			return ts[len(ts)/2]
		}
		for _, c := range []struct {
			name string
			f    func()
		}{
			{"potrf unblocked", func() { copy(work, a); potrfLower(work, n, n) }},
			{"potrf blocked", func() { copy(work, a); potrfBlocked(testPar(), work, n, n) }},
			{"getrf unblocked", func() { copy(work, g); getf2(n, n, work, n, piv) }},
			{"getrf blocked", func() { copy(work, g); getrfRec(testPar(), n, n, work, n, piv) }},
			{"trsm LLN unblocked", func() {
				copy(work, bm)
				trsm(triParams{left: true, lower: true, trans: 'N'}, a, n, n, work, n, n, n)
			}},
			{"trsm LLN blocked", func() {
				copy(work, bm)
				trsmPar(testPar(), triParams{left: true, lower: true, trans: 'N'}, a, n, n, work, n, n, n)
			}},
		} {
			fmt.Printf("n=%d %-22s %8.3f ms\n", n, c.name, float64(med(c.f).Microseconds())/1e3)
		}
	}
}

func BenchmarkGetrfBlocked512(b *testing.B) {
	n := 512
	r := rand.New(rand.NewSource(1))
	g := toT[float64](randMat(r, n*n, false))
	work := make([]float64, n*n)
	piv := make([]int32, n)
	c0 := processCPU()
	for i := 0; i < b.N; i++ {
		copy(work, g)
		getrfRec(testPar(), n, n, work, n, piv)
	}
	b.ReportMetric(float64((processCPU()-c0).Microseconds())/1e3/float64(b.N), "cpu-ms/op")
}

func BenchmarkTrsmBlocked512(b *testing.B) {
	n := 512
	r := rand.New(rand.NewSource(1))
	a := toT[float64](hpd(r, n, false))
	g := toT[float64](randMat(r, n*n, false))
	work := make([]float64, n*n)
	c0 := processCPU()
	defer func() { b.ReportMetric(float64((processCPU()-c0).Microseconds())/1e3/float64(b.N), "cpu-ms/op") }()
	for i := 0; i < b.N; i++ {
		copy(work, g)
		trsmPar(testPar(), triParams{left: true, lower: true, trans: 'N'}, a, n, n, work, n, n, n)
	}
}

func checkQR[T scalar](t *testing.T, m, n int) {
	r := rand.New(rand.NewSource(int64(m*31 + n)))
	a := randMat(r, m*n, isCplx[T]())
	k := min(m, n)
	x := toT[T](a)
	tau := make([]T, k)
	work := make([]T, max(m, n))
	geqrfBlocked(testPar(), m, n, x, n, tau, work)
	// Against the unblocked reflectors: equal up to rounding.
	ref, rtau := toT[T](a), make([]T, k)
	geqr2(m, n, ref, n, rtau, work)
	d := normF(sub(fromT(x), fromT(ref))) / (float64(max(m, n)) * eps64 * normF(a))
	require.Less(t, d, 10.0, "%dx%d geqrf vs geqr2", m, n)
	rm := make([]complex128, k*n)
	xs := fromT(x)
	for i := 0; i < k; i++ {
		for j := i; j < n; j++ {
			rm[i*n+j] = xs[i*n+j]
		}
	}
	// Q: m×k from the first k columns.
	q := make([]T, m*k)
	for i := 0; i < m; i++ {
		copy(q[i*k:(i+1)*k], x[i*n:i*n+k])
	}
	orgqrBlocked(testPar(), m, k, k, q, k, tau, work)
	qs := fromT(q)
	res := normF(sub(matMul(qs, m, k, rm, n), a)) / (float64(max(m, n)) * eps64 * normF(a))
	require.Less(t, res, 10.0, "%dx%d ‖A−QR‖/(n·eps·‖A‖)", m, n)
	orth := normF(sub(matMul(adjoint(qs, m, k), k, m, qs, k), eye(k))) / (float64(max(m, n)) * eps64)
	require.Less(t, orth, 10.0, "%dx%d ‖QᴴQ−I‖/(n·eps)", m, n)
}

func TestQRBlockedResidual(t *testing.T) {
	for _, n := range blockedSizes {
		checkQR[float64](t, n, n)
		checkQR[complex128](t, n, n)
	}
	for _, mn := range [][2]int{{257, 100}, {100, 257}, {300, 130}, {130, 300}, {200, 97}} {
		checkQR[float64](t, mn[0], mn[1])
		checkQR[complex128](t, mn[0], mn[1])
	}
}

// orgqr with more columns than reflectors (m ≥ n > k) against org2r.
func TestOrgqrBlockedWide(t *testing.T) {
	m, n, k := 300, 200, 130
	r := rand.New(rand.NewSource(3))
	a := toT[float64](randMat(r, m*n, false))
	tau := make([]float64, k)
	work := make([]float64, m)
	geqrfBlocked(testPar(), m, k, a, n, tau, work) // first k columns only (lda n)
	b := append([]float64(nil), a...)
	orgqrBlocked(testPar(), m, n, k, a, n, tau, work)
	org2r(m, n, k, b, n, tau, work)
	d := normF(sub(fromT(a), fromT(b))) / (float64(m) * eps64 * math.Sqrt(float64(n)))
	require.Less(t, d, 10.0)
}

// Batched potrf and getrf custom calls above the blocking threshold, every
// element type: per-matrix residuals, info for a batch item that is not
// positive definite (the others unaffected).
func TestBlockedCustomCallsBatched(t *testing.T) {
	const batch, n = 3, 100
	for _, pr := range lapackPrefixes {
		et := elemOf(pr.name)
		eps := eps64
		if et == ir.F32 || et == ir.C64 {
			eps = 0x1p-23
		}
		r := rand.New(rand.NewSource(9))
		var in []complex128
		for b := 0; b < batch; b++ {
			a := hpd(r, n, pr.cplx)
			if b == 1 {
				a[50*n+50] = -1e9 // not positive definite from row 50
			}
			in = append(in, a...)
		}
		in = decodeAs(encodeAs(in, pr.name), pr.name)
		op := ccOp("lapack_"+pr.p+"potrf_ffi", []*ir.TensorType{ir.Tensor(et, batch, n, n)},
			[]*ir.TensorType{ir.Tensor(et, batch, n, n), ir.Tensor(ir.S32, batch)}, ir.Attrs{"uplo": u8('L')})
		outs := runOp(t, fakeCtx{2}, op, encodeAs(in, pr.name))
		l := decodeAs(outs[0], pr.name)
		for b := 0; b < batch; b++ {
			info := loadInt(ir.S32, outs[1], b)
			if b == 1 {
				require.Equal(t, int64(51), info, pr.p)
				continue
			}
			require.Equal(t, int64(0), info, pr.p)
			lb := append([]complex128(nil), l[b*n*n:(b+1)*n*n]...)
			for i := 0; i < n; i++ {
				for j := i + 1; j < n; j++ {
					lb[i*n+j] = 0
				}
			}
			a := in[b*n*n : (b+1)*n*n]
			res := normF(sub(matMul(lb, n, n, adjoint(lb, n, n), n), hermitianFromTriangle(a, n, true))) / (n * eps * normF(a))
			require.Less(t, res, 4.0, "%spotrf batch %d", pr.p, b)
		}

		const m = 130
		g := decodeAs(encodeAs(randMat(r, batch*m*n, pr.cplx), pr.name), pr.name)
		op = ccOp("lapack_"+pr.p+"getrf_ffi", []*ir.TensorType{ir.Tensor(et, batch, m, n)},
			[]*ir.TensorType{ir.Tensor(et, batch, m, n), ir.Tensor(ir.S32, batch, n), ir.Tensor(ir.S32, batch)}, nil)
		outs = runOp(t, fakeCtx{2}, op, encodeAs(g, pr.name))
		lu := decodeAs(outs[0], pr.name)
		for b := 0; b < batch; b++ {
			require.Equal(t, int64(0), loadInt(ir.S32, outs[2], b))
			x := lu[b*m*n : (b+1)*m*n]
			lm, um := make([]complex128, m*n), make([]complex128, n*n)
			for i := 0; i < m; i++ {
				for j := 0; j < n; j++ {
					switch {
					case i > j:
						lm[i*n+j] = x[i*n+j]
					case i == j:
						lm[i*n+j] = 1
						um[i*n+j] = x[i*n+j]
					case i < n:
						um[i*n+j] = x[i*n+j]
					}
				}
			}
			pa := append([]complex128(nil), g[b*m*n:(b+1)*m*n]...)
			for i := 0; i < n; i++ {
				p := int(loadInt(ir.S32, outs[1], b*n+i)) - 1
				for j := 0; j < n; j++ {
					pa[i*n+j], pa[p*n+j] = pa[p*n+j], pa[i*n+j]
				}
			}
			res := normF(sub(matMul(lm, m, n, um, n), pa)) / (m * eps * normF(pa))
			require.Less(t, res, 8.0, "%sgetrf batch %d", pr.p, b)
		}
	}
}
