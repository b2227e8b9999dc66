package linalg

import (
	"sync"

	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// complex64 QR (cgeqrf/cungqr) with complex64 storage: the block
// reflectors' products, nearly all of the work, run on the f32 kernel,
// as cgeqrf's do in single precision. The panels (BLAS-2 work on qrNB
// columns) are factored in complex128 on a widened copy and rounded back;
// each block reflector's T is formed in complex128 from the rounded
// reflectors, so what is applied is what is stored.

// gemmC64 is gemmUpd (C += s·op(A)·op(B)) for complex64 on the f32 kernel;
// products below cplxGemmMin are complex64 row axpys.
func gemmC64(par parallelFn, m, n, k int, neg bool, a []complex64, ars, acs int, ca bool, b []complex64, brs, bcs int, cb bool, c []complex64, ldc int) {
	if m <= 0 || n <= 0 || k <= 0 {
		return
	}
	if m*n*k >= cplxGemmMin {
		gemmUpdCplxWide(ukF32, f32scratch, par, m, n, k, neg, asF32s(a), ars, acs, ca, asF32s(b), brs, bcs, cb, asF32s(c), ldc)
		return
	}
	for i := 0; i < m; i++ {
		crow := c[i*ldc : i*ldc+n]
		for p := 0; p < k; p++ {
			f := a[i*ars+p*acs]
			if ca {
				f = conjS(f)
			}
			if neg {
				f = -f
			}
			if f == 0 {
				continue
			}
			for j := range crow {
				v := b[p*brs+j*bcs]
				if cb {
					v = conjS(v)
				}
				crow[j] += f * v
			}
		}
	}
}

// applyWYC64 is applyWY for complex64.
func applyWYC64(par parallelFn, rows, jb, nc int, v, tm []complex64, adj bool, c []complex64, ldc int) {
	if nc == 0 || rows == 0 {
		return
	}
	buf := c64scratch(2 * jb * nc)
	defer buf.release()
	w1, w2 := buf.s[:jb*nc], buf.s[jb*nc:]
	clear(w2)
	// W1 = Vᴴ·C (jb×nc).
	adjProdC64(par, rows, nc, jb, c, ldc, v, jb, w1)
	// W2 = op(T)·W1.
	if adj {
		gemmC64(par, jb, nc, jb, false, tm, 1, jb, true, w1, nc, 1, false, w2, nc)
	} else {
		gemmC64(par, jb, nc, jb, false, tm, jb, 1, false, w1, nc, 1, false, w2, nc)
	}
	// C -= V·W2.
	gemmC64(par, rows, nc, jb, true, v, jb, 1, false, w2, nc, 1, false, c, ldc)
}

// adjProdC64 sets w (q×n, row-major) to Vᴴ·C for C k×n (leading dimension
// ldc) and V k×q (leading dimension ldv), as one real product on the f32
// kernel: with C and V read in place as k×2n and k×2q real matrices,
// P = Cᵀ·V (2n×2q) holds every product of parts, and
// (Vᴴ·C)(j, i) = P(2i, 2j) + P(2i+1, 2j+1) + i·(P(2i+1, 2j) − P(2i, 2j+1)).
// Cᵀ's rows are adjacent in memory, so it packs by block copies, and no
// operand is expanded.
func adjProdC64(par parallelFn, k, n, q int, c []complex64, ldc int, v []complex64, ldv int, w []complex64) {
	if k*n*q < cplxGemmMin {
		clear(w[:q*n])
		gemmC64(par, q, n, k, false, v, 1, ldv, true, c, ldc, 1, false, w, n)
		return
	}
	n2, q2 := 2*n, 2*q
	pb := f32scratch(n2 * q2)
	defer pb.release()
	pm := pb.s
	clear(pm)
	offs := make([]int, n2+2*k+q2)
	rows, ksA, ksB, cols := offs[:n2], offs[n2:n2+k], offs[n2+k:n2+2*k], offs[n2+2*k:]
	for i := range rows {
		rows[i] = i
	}
	for p := 0; p < k; p++ {
		ksA[p] = 2 * p * ldc
		ksB[p] = 2 * p * ldv
	}
	for j := range cols {
		cols[j] = j
	}
	gemmUpdOffs(ukF32, f32scratch, par, false, asF32s(c), rows, ksA, false, asF32s(v), ksB, cols, true, pm, q2, false)
	for i := 0; i < n; i++ {
		r0, r1 := pm[2*i*q2:(2*i+1)*q2], pm[(2*i+1)*q2:(2*i+2)*q2]
		for j := 0; j < q; j++ {
			w[j*n+i] = complex(r0[2*j]+r1[2*j+1], r1[2*j]-r0[2*j+1])
		}
	}
}

// blockTC64 forms the complex64 T of jb stored reflectors (v: rows×jb
// with the unit diagonal written out): G = Vᴴ·V on the f32 kernel (only
// its upper triangle is read), then
// larftV's recurrence on G in complex128 (jb³/6 terms, each T entry
// rounded once).
func blockTC64(rows, jb int, v, tau, tm []complex64) {
	g := c64scratch(jb * jb)
	defer g.release()
	adjProdC64(serial, rows, jb, jb, v, jb, v, jb, g.s)
	w := scratchT[complex128](jb * jb)
	defer w.release()
	t := w.s
	clear(t)
	for j := 0; j < jb; j++ {
		tj := complex128(tau[j])
		for q := 0; q < j; q++ {
			var sum complex128
			for s := q; s < j; s++ {
				sum += t[q*jb+s] * complex128(g.s[s*jb+j])
			}
			t[q*jb+j] = -tj * sum
		}
		t[j*jb+j] = tj
	}
	for i, x := range t {
		tm[i] = complex64(x)
	}
}

// copyVC64 is copyV for complex64.
func copyVC64(a []complex64, lda, rows, jb int, v []complex64) {
	for r := 0; r < rows; r++ {
		dst := v[r*jb : (r+1)*jb]
		if r >= jb {
			copy(dst, a[r*lda:r*lda+jb])
			continue
		}
		copy(dst[:r], a[r*lda:r*lda+r])
		dst[r] = 1
		clear(dst[r+1:])
	}
}

// widenC64 copies the rows×cols block of a (leading dimension lda) into w
// (leading dimension cols) as complex128; narrowC64 is the way back.
func widenC64(a []complex64, lda, rows, cols int, w []complex128) {
	for r := 0; r < rows; r++ {
		dst := w[r*cols : (r+1)*cols]
		for j, x := range a[r*lda : r*lda+cols] {
			dst[j] = complex128(x)
		}
	}
}

func narrowC64(w []complex128, rows, cols int, a []complex64, lda int) {
	for r := 0; r < rows; r++ {
		dst := a[r*lda : r*lda+cols]
		for j, x := range w[r*cols : (r+1)*cols] {
			dst[j] = complex64(x)
		}
	}
}

// poolQRC64 holds the reflector copies of geqrfC64 and orgqrC64 apart from
// the shared pools' small buffers, so that they are reused from call to
// call rather than allocated afresh.
var poolQRC64 sync.Pool

// geqrfC64 is geqrfBlocked for complex64 a (m×n, leading dimension lda).
func geqrfC64(par parallelFn, m, n int, a []complex64, lda int, tau []complex64) {
	k := min(m, n)
	if k == 0 {
		return
	}
	if k < blockMin {
		w := scratchT[complex128](m*n + k + n)
		defer w.release()
		widenC64(a, lda, m, n, w.s)
		t2 := w.s[m*n : m*n+k]
		geqr2(m, n, w.s, n, t2, w.s[m*n+k:])
		narrowC64(w.s, m, n, a, lda)
		for i, x := range t2 {
			tau[i] = complex64(x)
		}
		return
	}
	pw := scratchT[complex128](m*qrPanelMin + qrPanelMin + n)
	defer pw.release()
	vb := getBuf[complex64](&poolQRC64, m*qrNB+qrNB*qrNB)
	defer vb.release()
	v, tm := vb.s[:m*qrNB], vb.s[m*qrNB:]
	for j0 := 0; j0 < k; j0 += qrNB {
		jb := min(qrNB, k-j0)
		rows := m - j0
		p := a[j0*lda+j0:]
		qrPanelC64(par, rows, jb, p, lda, tau[j0:j0+jb], pw.s)
		if j0+jb >= n {
			break
		}
		copyVC64(p, lda, rows, jb, v)
		blockTC64(rows, jb, v, tau[j0:j0+jb], tm)
		applyWYC64(par, rows, jb, n-j0-jb, v, tm, true, p[jb:], lda)
	}
}

// qrPanelMin is the width from which qrPanelC64 splits a panel.
const qrPanelMin = 8

// qrPanelC64 is qrPanel for complex64: panels of at most qrPanelMin
// columns are factored by geqr2 on a complex128 copy (w: scratch of
// rows·qrPanelMin + qrPanelMin + qrPanelMin elements), wider ones split in
// two with the left half's block reflector applied to the right half on
// the f32 kernel.
func qrPanelC64(par parallelFn, rows, w int, a []complex64, lda int, tau []complex64, ws []complex128) {
	if w <= qrPanelMin || rows <= qrPanelMin {
		if w > qrPanelMin {
			ws = make([]complex128, rows*w+2*w)
		}
		x, t2, work := ws[:rows*w], ws[rows*w:rows*w+w], ws[rows*w+w:]
		widenC64(a, lda, rows, w, x)
		geqr2(rows, w, x, w, t2[:min(rows, w)], work)
		narrowC64(x, rows, w, a, lda)
		for i, v := range t2[:min(rows, w)] {
			tau[i] = complex64(v)
		}
		return
	}
	w1 := w / 2
	qrPanelC64(par, rows, w1, a, lda, tau[:w1], ws)
	buf := c64scratch(rows*w1 + w1*w1)
	defer buf.release()
	v, tm := buf.s[:rows*w1], buf.s[rows*w1:]
	copyVC64(a, lda, rows, w1, v)
	blockTC64(rows, w1, v, tau[:w1], tm)
	applyWYC64(par, rows, w1, w-w1, v, tm, true, a[w1:], lda)
	if rows > w1 {
		qrPanelC64(par, rows-w1, w-w1, a[w1*lda+w1:], lda, tau[w1:w], ws)
	}
}

// orgqrC64 is orgqrBlocked for complex64.
func orgqrC64(par parallelFn, m, n, k int, a []complex64, lda int, tau []complex64) {
	if n == 0 || m == 0 {
		return
	}
	if k < blockMin || n < blockMin {
		w := scratchT[complex128](m*n + k + n)
		defer w.release()
		widenC64(a, lda, m, n, w.s)
		t2 := w.s[m*n : m*n+k]
		for i, x := range tau[:k] {
			t2[i] = complex128(x)
		}
		org2r(m, n, k, w.s, n, t2, w.s[m*n+k:])
		narrowC64(w.s, m, n, a, lda)
		return
	}
	nblk := ceilDiv(k, qrNB)
	vs := getBuf[complex64](&poolQRC64, m*k+qrNB*qrNB)
	defer vs.release()
	tm := vs.s[m*k:]
	for b := 0; b < nblk; b++ {
		j0 := b * qrNB
		jb := min(qrNB, k-j0)
		copyVC64(a[j0*lda+j0:], lda, m-j0, jb, vs.s[j0*m:])
	}
	for i := 0; i < m; i++ {
		row := a[i*lda : i*lda+n]
		clear(row)
		if i < n {
			row[i] = 1
		}
	}
	for b := nblk - 1; b >= 0; b-- {
		j0 := b * qrNB
		jb := min(qrNB, k-j0)
		rows := m - j0
		v := vs.s[j0*m : j0*m+rows*jb]
		blockTC64(rows, jb, v, tau[j0:j0+jb], tm)
		applyWYC64(par, rows, jb, n-j0, v, tm, false, a[j0*lda+j0:], lda)
	}
}

// geqrfStepC64 is geqrfStep for complex64, in place in the outputs.
func geqrfStepC64(par parallelFn, batch, m, n int) kernel.Step {
	k := min(m, n)
	return func(ins, outs [][]byte) error {
		all := byteview.As[complex64](outs[0])[:batch*m*n]
		tau := byteview.As[complex64](outs[1])[:batch*k]
		copy(all, byteview.As[complex64](ins[0]))
		forBatch(par, batch, 2*m*n*k+1, func(lo, hi int) {
			for b := lo; b < hi; b++ {
				geqrfC64(par, m, n, all[b*m*n:(b+1)*m*n], n, tau[b*k:(b+1)*k])
			}
		})
		return nil
	}
}

// orgqrStepC64 is orgqrStep for complex64, in place in the output.
func orgqrStepC64(par parallelFn, batch, m, n, k int) kernel.Step {
	return func(ins, outs [][]byte) error {
		all := byteview.As[complex64](outs[0])[:batch*m*n]
		tau := byteview.As[complex64](ins[1])[:batch*k]
		copy(all, byteview.As[complex64](ins[0]))
		forBatch(par, batch, 4*m*n*k+1, func(lo, hi int) {
			for b := lo; b < hi; b++ {
				orgqrC64(par, m, n, k, all[b*m*n:(b+1)*m*n], n, tau[b*k:(b+1)*k])
			}
		})
		return nil
	}
}
