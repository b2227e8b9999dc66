package linalg

import (
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

// applyWYC64 is applyWY for complex64. W1ᴴ = Cᴴ·V is formed rather than
// Vᴴ·C so that the wide product expands the narrow V, not C.
func applyWYC64(par parallelFn, rows, jb, nc int, v, tm []complex64, adj bool, c []complex64, ldc int) {
	if nc == 0 || rows == 0 {
		return
	}
	buf := c64scratch(2 * jb * nc)
	defer buf.release()
	w1h, w2 := buf.s[:nc*jb], buf.s[nc*jb:]
	clear(buf.s)
	// W1ᴴ = Cᴴ·V (nc×jb).
	gemmC64(par, nc, jb, rows, false, c, 1, ldc, true, v, jb, 1, false, w1h, jb)
	// W2 = op(T)·W1 (jb×nc), W1(p, j) = conj(W1ᴴ(j, p)).
	if adj {
		gemmC64(par, jb, nc, jb, false, tm, 1, jb, true, w1h, 1, jb, true, w2, nc)
	} else {
		gemmC64(par, jb, nc, jb, false, tm, jb, 1, false, w1h, 1, jb, true, w2, nc)
	}
	// C -= V·W2.
	gemmC64(par, rows, nc, jb, true, v, jb, 1, false, w2, nc, 1, false, c, ldc)
}

// blockTC64 forms the complex64 T of jb stored reflectors (v: rows×jb
// with the unit diagonal written out): G = Vᴴ·V on the f32 kernel, then
// larftV's recurrence on G in complex128 (jb³/6 terms, each T entry
// rounded once).
func blockTC64(rows, jb int, v, tau, tm []complex64) {
	g := c64scratch(jb * jb)
	defer g.release()
	clear(g.s)
	gemmC64(serial, jb, jb, rows, false, v, 1, jb, true, v, jb, 1, false, g.s, jb)
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
		for j := 0; j < jb; j++ {
			switch {
			case r == j:
				v[r*jb+j] = 1
			case r < j:
				v[r*jb+j] = 0
			default:
				v[r*jb+j] = a[r*lda+j]
			}
		}
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
	pw := scratchT[complex128](m*qrNB + qrNB + n)
	defer pw.release()
	vb := c64scratch(m*qrNB + qrNB*qrNB)
	defer vb.release()
	v, tm := vb.s[:m*qrNB], vb.s[m*qrNB:]
	for j0 := 0; j0 < k; j0 += qrNB {
		jb := min(qrNB, k-j0)
		rows := m - j0
		p := a[j0*lda+j0:]
		w, t2, work := pw.s[:rows*jb], pw.s[m*qrNB:m*qrNB+jb], pw.s[m*qrNB+qrNB:]
		widenC64(p, lda, rows, jb, w)
		qrPanel(par, rows, jb, w, jb, t2, work)
		narrowC64(w, rows, jb, p, lda)
		for i, x := range t2 {
			tau[j0+i] = complex64(x)
		}
		if j0+jb >= n {
			break
		}
		copyVC64(p, lda, rows, jb, v)
		blockTC64(rows, jb, v, tau[j0:j0+jb], tm)
		applyWYC64(par, rows, jb, n-j0-jb, v, tm, true, p[jb:], lda)
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
	vs := c64scratch(m*k + qrNB*qrNB)
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
