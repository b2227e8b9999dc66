package linalg

import (
	"gonum.org/v1/gonum/lapack/gonum"
	"sync"
	"unsafe"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// gesdd: A = U·diag(s)·Vᴴ with s descending (the singular values and vectors
// gesdd defines; only the algorithm differs). A (or Aᴴ when wide) is reduced
// to a real bidiagonal B = Qᴴ·A·P by the blocked gebrd; values alone then
// come from dqds (gonum's Dlasq1), vectors from the bidiagonal QR of
// bdsvd.go rotating the rows of Qᵀ and Pᴴ (formed by the blocked orgqr). Singular vectors are unique up to phase,
// as with LAPACK. Modes: 'A' (full U, Vᴴ), 'S' (reduced), 'N' (values only;
// the vector results are zeroed).

func init() {
	registerLapack("sdcz", "gesdd", lowerGesdd)
	// gesvd (JAX's SvdAlgorithm.QR) has the same operands, results and modes.
	registerLapack("sdcz", "gesvd", lowerGesdd)
}

func lowerGesdd(ctx kernel.Context, cc *customCall) (kernel.Step, error) {
	mode, err := cc.char("mode", 'A', "ASNO")
	if err != nil {
		return nil, err
	}
	if mode == 'O' {
		return nil, cc.errorf("mode 'O' is not supported (jaxlib rejects it too)")
	}
	if len(cc.ins) != 1 || cc.ins[0].Rank() < 2 {
		return nil, cc.errorf("want one matrix operand")
	}
	r := cc.ins[0].Rank()
	m, n := int(cc.ins[0].Shape[r-2]), int(cc.ins[0].Shape[r-1])
	k := min(m, n)
	ucols, vrows := k, k
	switch mode {
	case 'A':
		ucols, vrows = m, n
	case 'N':
		// JAX sizes the unused results like full or reduced matrices,
		// depending on full_matrices; take whichever the call has.
		if len(cc.outs) == 5 && cc.outs[2].Rank() >= 2 && cc.outs[3].Rank() >= 2 {
			ucols = int(cc.outs[2].Shape[cc.outs[2].Rank()-1])
			vrows = int(cc.outs[3].Shape[cc.outs[3].Rank()-2])
		}
		if (ucols != m && ucols != k) || (vrows != n && vrows != k) {
			return nil, cc.errorf("results 2 and 3 must be %dx%d or %dx%d and %dx%d or %dx%d", m, m, m, k, n, n, k, n)
		}
	}
	batch, err := cc.expect([]spec{{cc.elem, []int{m, n}}},
		[]spec{{cc.elem, []int{m, n}}, {realOf(cc.elem), []int{k}}, {cc.elem, []int{m, ucols}}, {cc.elem, []int{vrows, n}}, {ir.S32, nil}})
	if err != nil {
		return nil, err
	}
	p := svdPlan{name: cc.target, et: cc.elem, batch: numel(batch), m: m, n: n, ucols: ucols, vrows: vrows, vectors: mode != 'N', full: mode == 'A'}
	if cc.elem.IsComplex() {
		return svdStep[complex128](p, ctx.Parallel), nil
	}
	return svdStep[float64](p, ctx.Parallel), nil
}

type svdPlan struct {
	name          string
	et            ir.ElemType
	batch, m, n   int
	ucols, vrows  int
	vectors, full bool
}

// The SVD's large scratch, one pool per call site (see sitePool).
var poolSvdA, poolSvdU, poolSvdVt, poolBidiagQP, poolSvdVectors sitePool

// svdStep computes the SVD of each matrix of the batch in T (float64 or
// complex128, the operand widened to it).
func svdStep[T scalar](p svdPlan, par parallelFn) kernel.Step {
	m, n, k := p.m, p.n, min(p.m, p.n)
	qcols := k
	if (m >= n && p.ucols == m) || (m < n && p.vrows == n) {
		qcols = max(m, n)
	}
	// f32 and c64 rotate their vectors in float32, as sbdsqr/cbdsqr do.
	single := p.et == ir.F32 || p.et == ir.C64
	inner := par
	if p.batch > 1 {
		inner = serial
	}
	return func(ins, outs [][]byte) error {
		a := siteScratch[T](&poolSvdA, p.batch*m*n)
		s := f64scratch(p.batch * k)
		u := siteScratch[T](&poolSvdU, p.batch*m*p.ucols)
		vt := siteScratch[T](&poolSvdVt, p.batch*p.vrows*n)
		defer releaseAll(a, u, vt)
		defer s.release()
		loadT(a.s, ins[0], p.et)
		storeT(outs[0], a.s, p.et) // LAPACK destroys A; JAX ignores this result
		clear(u.s)
		clear(vt.s)
		info := make([]int32, p.batch)
		var fe firstErr
		if m > 0 && n > 0 {
			forBatch(par, p.batch, 12*m*n*k+1, func(lo, hi int) {
				for b := lo; b < hi; b++ {
					fe.catch(p.name, func() {
						ab := a.s[b*m*n : (b+1)*m*n]
						sb := s.s[b*k : (b+1)*k]
						var ok bool
						if p.vectors {
							ok = svdVectors(inner, m, n, qcols, ab, sb, u.s[b*m*p.ucols:(b+1)*m*p.ucols], p.ucols, vt.s[b*p.vrows*n:(b+1)*p.vrows*n], p.vrows, single)
						} else {
							ok = svdValues(inner, m, n, ab, sb)
						}
						if !ok {
							info[b] = 1
						}
					})
				}
			})
		}
		if fe.err != nil {
			return fe.err
		}
		fromF64(outs[1], s.s, realOf(p.et))
		storeT(outs[2], u.s, p.et)
		storeT(outs[3], vt.s, p.et)
		putI32s(outs[4], info)
		return nil
	}
}

// tallCopy returns A (m×n) itself when m >= n, else a copy of Aᴴ (n×m),
// so that the matrix reduced is never wide.
func tallCopy[T scalar](m, n int, a []T, tmp *buf[T]) []T {
	if m >= n {
		return a
	}
	w := tmp.s[:m*n]
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			w[j*m+i] = conj(a[i*n+j])
		}
	}
	return w
}

// svdValues computes the singular values of one matrix: the bidiagonal
// reduction, then dqds on it.
func svdValues[T scalar](par parallelFn, m, n int, a []T, s []float64) bool {
	big, small := max(m, n), min(m, n)
	tmp := scratchT[T](m*n + 3*big)
	defer tmp.release()
	w := tallCopy(m, n, a, tmp)
	tau := tmp.s[m*n:]
	de := f64scratch(6 * small)
	defer de.release()
	e := de.s[small:]
	gebrd(par, big, small, w, small, s, e, tau[:small], tau[big:big+small], tau[2*big:], false)
	var impl gonum.Implementation
	return impl.Dlasq1(small, s, e, de.s[2*small:]) == 0
}

// bidiagQP reduces the M×N matrix w (M >= N, destroyed) to the real upper
// bidiagonal B = Qᴴ·W·P (d, e) and forms the first qcols columns of Q
// (M×qcols) and Pᴴ (N×N), both from their reflectors by the blocked orgqr
// (with single, complex Q and Pᴴ are formed in complex64, as cungbr does).
func bidiagQP[T scalar](par parallelFn, M, N, qcols int, w []T, d, e []float64, q []T, ph []T, single bool) {
	ws := siteScratch[T](&poolBidiagQP, 2*N+max(M, qcols)+(N-1)*(N-1))
	defer ws.release()
	tq, tp, work, pt := ws.s[:N], ws.s[N:2*N], ws.s[2*N:2*N+max(M, qcols)], ws.s[2*N+max(M, qcols):]
	gebrd(par, M, N, w, N, d, e, tq, tp, work, single)
	for i := 0; i < M; i++ {
		copy(q[i*qcols:i*qcols+N], w[i*N:(i+1)*N])
	}
	orgqrS(par, M, qcols, N, q, qcols, tq, work, single)
	// P = diag(1, P̃), P̃ = G̃(0)…G̃(N−2) from the row reflectors (row i
	// holds uᴴ) laid out as orgqr's columns.
	n1 := N - 1
	for j := 0; j < n1; j++ {
		for r := j + 1; r < n1; r++ {
			pt[r*n1+j] = conj(w[j*N+1+r])
		}
	}
	orgqrS(par, n1, n1, n1, pt, n1, tp, work, single)
	clear(ph[:N*N])
	ph[0] = fromRe[T](1)
	for i := 0; i < n1; i++ {
		for j := 0; j < n1; j++ {
			ph[(1+i)*N+1+j] = conj(pt[j*n1+i])
		}
	}
}

// poolOrgqrS holds orgqrS's complex64 copies (see poolRotF32).
var poolOrgqrS sync.Pool

// orgqrS is orgqrBlocked; with single, complex data that orgqrC64 would
// block is rounded to complex64 and Q formed there.
func orgqrS[T scalar](par parallelFn, m, n, k int, a []T, lda int, tau, work []T, single bool) {
	if !single || !isCplx[T]() || k < blockMin || n < blockMin {
		orgqrBlocked(par, m, n, k, a, lda, tau, work)
		return
	}
	a2 := *(*[]complex128)(unsafe.Pointer(&a))
	t2 := *(*[]complex128)(unsafe.Pointer(&tau))
	b := getBuf[complex64](&poolOrgqrS, m*n+k)
	defer b.release()
	a32, t32 := b.s[:m*n], b.s[m*n:]
	for r := 0; r < m; r++ {
		for j, x := range a2[r*lda : r*lda+n] {
			a32[r*n+j] = complex64(x)
		}
	}
	for i, x := range t2[:k] {
		t32[i] = complex64(x)
	}
	orgqrC64(par, m, n, k, a32, n, t32)
	for r := 0; r < m; r++ {
		for j, x := range a32[r*n : (r+1)*n] {
			a2[r*lda+j] = complex128(x)
		}
	}
}

// svdVectors computes one matrix's SVD with vectors: a (m×n, destroyed),
// s (min(m, n)), u (m×ucols), vt (vrows×n); qcols is how many columns of Q
// the tall problem needs. With single, the bidiagonal QR rotates float32
// copies of the vectors.
func svdVectors[T scalar](par parallelFn, m, n, qcols int, a []T, s []float64, u []T, ucols int, vt []T, vrows int, single bool) bool {
	M, N := max(m, n), min(m, n)
	tmp := siteScratch[T](&poolSvdVectors, m*n+2*M*qcols+N*N)
	defer tmp.release()
	w := tallCopy(m, n, a, tmp)
	q, ut, ph := tmp.s[m*n:m*n+M*qcols], tmp.s[m*n+M*qcols:m*n+2*M*qcols], tmp.s[m*n+2*M*qcols:]
	ee := f64scratch(N)
	defer ee.release()
	bidiagQP(par, M, N, qcols, w, s, ee.s, q, ph, single)
	for i := 0; i < M; i++ {
		for j := 0; j < qcols; j++ {
			ut[j*M+i] = q[i*qcols+j]
		}
	}
	f := 1
	if isCplx[T]() {
		f = 2
	}
	// Rotations are real: a complex row rotates as its (re, im) float64s.
	var ok bool
	if single && f == 2 && N >= rotGemmMin {
		ok = bdsvdCplx32(par, M, N, s, ee.s, ut, ph)
	} else if single {
		uf, pf := reImN(ut), reImN(ph)
		r32 := f32scratch(len(uf) + len(pf))
		u32, p32 := r32.s[:len(uf)], r32.s[len(uf):]
		for i, v := range uf {
			u32[i] = float32(v)
		}
		for i, v := range pf {
			p32[i] = float32(v)
		}
		ok = bdsvdRot(par, N, s, ee.s, u32, f*M, f*M, p32, f*N, f*N)
		for i, v := range u32 {
			uf[i] = float64(v)
		}
		for i, v := range p32 {
			pf[i] = float64(v)
		}
		r32.release()
	} else {
		ok = bdsvdRot(par, N, s, ee.s, reImN(ut), f*M, f*M, reImN(ph), f*N, f*N)
	}
	if m >= n {
		// A = Uᵀᵀ·Σ·Pᴴ rotated: U(i, j) = ut[j][i], Vᴴ = ph.
		for i := 0; i < m; i++ {
			for j := 0; j < ucols; j++ {
				u[i*ucols+j] = ut[j*M+i]
			}
		}
		copy(vt[:vrows*n], ph[:N*N])
		return ok
	}
	// Aᴴ = U'·Σ·V'ᴴ: U = V', Vᴴ = U'ᴴ.
	for i := 0; i < m; i++ {
		for j := 0; j < ucols; j++ {
			u[i*ucols+j] = conj(ph[j*N+i])
		}
	}
	for i := 0; i < vrows; i++ {
		for j := 0; j < n; j++ {
			vt[i*n+j] = conj(ut[i*M+j])
		}
	}
	return ok
}

// rotGemmMin is the order from which the complex single-precision SVD
// accumulates the bidiagonal QR's rotations in real matrices.
const rotGemmMin = 32

// poolRotF32 holds bdsvdCplx32's scratch apart from the small buffers of
// the shared pools, so that its large buffer is reused from call to call.
var poolRotF32 sync.Pool

// bdsvdCplx32 runs the bidiagonal QR for complex data in single precision
// as cbdsqr's work is split in cgesdd: the rotations are accumulated in
// float32 on two real N×N identities, Gu and Gp (half the rotation work of
// rotating the complex rows), then the first N rows of ut (Qᵀ, N×M complex)
// and ph (Pᴴ) are multiplied by them on the f32 kernel, a real matrix
// times a complex one being a real product on its (re, im) columns.
func bdsvdCplx32[T scalar](par parallelFn, M, N int, d, e []float64, ut, ph []T) bool {
	sc := getBuf[float32](&poolRotF32, 2*N*N+4*N*M)
	defer sc.release()
	gu, gp := sc.s[:N*N], sc.s[N*N:2*N*N]
	x := sc.s[2*N*N : 2*N*N+2*N*M]
	y := sc.s[2*N*N+2*N*M : 2*N*N+4*N*M]
	clear(gu)
	clear(gp)
	for i := 0; i < N; i++ {
		gu[i*N+i], gp[i*N+i] = 1, 1
	}
	ok := bdsvdRot(par, N, d, e, gu, N, N, gp, N, N)
	mulRot := func(g []float32, z []float64, w int) {
		xs, ys := x[:N*w], y[:N*w]
		for i, v := range z[:N*w] {
			xs[i] = float32(v)
		}
		clear(ys)
		gemmUpdReal(ukF32, f32scratch, par, N, w, N, false, g, N, 1, xs, w, 1, ys, w, false)
		for i, v := range ys {
			z[i] = float64(v)
		}
	}
	mulRot(gu, reIm(ut), 2*M)
	mulRot(gp, reIm(ph), 2*N)
	return ok
}

// reImN views T data as float64s: itself for float64, (re, im) pairs for
// complex128.
func reImN[T scalar](s []T) []float64 {
	if isCplx[T]() {
		return reIm(s)
	}
	return asF64s(s)
}
