package linalg

import (
	"unsafe"
)

// Blocked dense factorizations: the O(n³) part of Cholesky, LU and the
// triangular solves runs as matrix products (gemmUpd) on the packed GEMM's
// micro-kernels, leaving only narrow panels to the unblocked reference
// algorithms of householder.go and cholesky.go. Matrices are row-major
// (element (i, j) at a[i*lda+j]) in float64 or complex128, as everywhere
// in the factorizations.

const (
	blockNB  = 64 // panel width of the blocked Cholesky
	blockMin = 96 // below this order the unblocked algorithms run as they are
	trsmBase = 16 // triangular order solved without further splitting
	luBase   = 8  // panel width the recursive LU factors with getf2
	gemmSerF = 1 << 17
)

// serial is a parallelFn that runs everything on the caller.
func serial(n, grain int, fn func(lo, hi int)) { fn(0, n) }

func asF64s[T scalar](s []T) []float64 {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(&s[0])), len(s))
}

// reIm views complex128 data as its interleaved (re, im) float64s.
func reIm[T scalar](s []T) []float64 {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(&s[0])), 2*len(s))
}

// gemmUpd computes C += s·op(A)·op(B) with s = -1 when neg, else 1, for
// the m×n matrix C (c[i*ldc+j]), A(i, p) = a[i*ars+p*acs] (conjugated when
// ca) and B(p, j) = b[p*brs+j*bcs] (conjugated when cb). When lower, only
// the elements with j <= i are updated (C's diagonal block of a Hermitian
// update).
func gemmUpd[T scalar](par parallelFn, m, n, k int, neg bool, a []T, ars, acs int, ca bool, b []T, brs, bcs int, cb bool, c []T, ldc int, lower bool) {
	if m <= 0 || n <= 0 || k <= 0 {
		return
	}
	if !isCplx[T]() {
		gemmUpdReal(ukF64, f64scratch, par, m, n, k, neg, asF64s(a), ars, acs, asF64s(b), brs, bcs, asF64s(c), ldc, lower)
		return
	}
	if m*n*k >= cplxGemmMin {
		gemmUpdCplx(par, m, n, k, neg, reIm(a), ars, acs, ca, reIm(b), brs, bcs, cb, reIm(c), ldc, lower)
		return
	}
	// Small complex products: B gathered row-major (conjugated as asked),
	// then row axpys.
	bt := scratchT[T](k * n)
	defer bt.release()
	for p := 0; p < k; p++ {
		row := bt.s[p*n : (p+1)*n]
		for j := range row {
			v := b[p*brs+j*bcs]
			if cb {
				v = conj(v)
			}
			row[j] = v
		}
	}
	work := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			jn := n
			if lower {
				jn = min(n, i+1)
			}
			crow := c[i*ldc : i*ldc+jn]
			for p := 0; p < k; p++ {
				f := a[i*ars+p*acs]
				if ca {
					f = conj(f)
				}
				if neg {
					f = -f
				}
				if f == 0 {
					continue
				}
				brow := bt.s[p*n : p*n+jn]
				for j := range crow {
					crow[j] += f * brow[j]
				}
			}
		}
	}
	if m*n*k < gemmSerF/4 {
		work(0, m)
		return
	}
	par(m, max(1, m/8), work)
}

// cplxGemmMin is the m·n·k from which a complex gemmUpd runs as four real
// products on the packed kernel rather than as row axpys.
const cplxGemmMin = 1 << 12

// gemmUpdCplx is gemmUpd for complex128 data given as interleaved float64
// (re, im) views: C's real and imaginary planes are split out, each gets two
// real products on the f64 packed kernel (A's and B's parts read in place
// with doubled strides, conjugation folded into the signs), and are merged
// back. Four real products are the complex product's 8 flops per term, on
// the vectorized kernel instead of scalar complex arithmetic.
func gemmUpdCplx(par parallelFn, m, n, k int, neg bool, a []float64, ars, acs int, ca bool, b []float64, brs, bcs int, cb bool, c []float64, ldc int, lower bool) {
	if !lower {
		gemmUpdCplxWide(ukF64, f64scratch, par, m, n, k, neg, a, ars, acs, ca, b, brs, bcs, cb, c, ldc)
		return
	}
	pl := f64scratch(2 * m * n)
	defer pl.release()
	cr, ci := pl.s[:m*n], pl.s[m*n:]
	for i := 0; i < m; i++ {
		row := c[2*i*ldc : 2*i*ldc+2*n]
		rr, ri := cr[i*n:(i+1)*n], ci[i*n:(i+1)*n]
		for j := range rr {
			rr[j], ri[j] = row[2*j], row[2*j+1]
		}
	}
	ar, ai := a, a[1:]
	br, bi := b, b[1:]
	a2r, a2c, b2r, b2c := 2*ars, 2*acs, 2*brs, 2*bcs
	// C += s·op(A)·op(B), op conjugating: with σa = -1 when ca (likewise
	// σb), Re C += s·(Ar·Br − σa·σb·Ai·Bi), Im C += s·(σb·Ar·Bi + σa·Ai·Br).
	gemmUpdReal(ukF64, f64scratch, par, m, n, k, neg, ar, a2r, a2c, br, b2r, b2c, cr, n, lower)
	gemmUpdReal(ukF64, f64scratch, par, m, n, k, neg == (ca != cb), ai, a2r, a2c, bi, b2r, b2c, cr, n, lower)
	gemmUpdReal(ukF64, f64scratch, par, m, n, k, neg != cb, ar, a2r, a2c, bi, b2r, b2c, ci, n, lower)
	gemmUpdReal(ukF64, f64scratch, par, m, n, k, neg != ca, ai, a2r, a2c, br, b2r, b2c, ci, n, lower)
	for i := 0; i < m; i++ {
		jn := n
		if lower {
			jn = min(n, i+1)
		}
		row := c[2*i*ldc : 2*i*ldc+2*jn]
		rr, ri := cr[i*n:i*n+jn], ci[i*n:i*n+jn]
		for j := range rr {
			row[2*j], row[2*j+1] = rr[j], ri[j]
		}
	}
}

// gemmUpdCplxWide is gemmUpdCplx as one real product of twice the width
// and depth: with A and C read as m×2k and m×2n real matrices in place
// ((re, im) pairs side by side) and B expanded to the 2k×2n real matrix
// whose 2×2 block (p, j) is [Br Bi; −Bi Br] (conjugations folded into its
// signs), C's pairs come out as (Re, Im) of the complex product. No plane
// of C is split out and A is packed once.
func gemmUpdCplxWide[T float32 | float64](uk microKernel[T], pool func(int) *buf[T], par parallelFn, m, n, k int, neg bool, a []T, ars, acs int, ca bool, b []T, brs, bcs int, cb bool, c []T, ldc int) {
	n2, k2 := 2*n, 2*k
	bw := pool(k2 * n2)
	defer bw.release()
	// Re C = Ar·Br − a·Ai·b·Bi, Im C = Ar·b·Bi + a·Ai·Br with a = −1 when
	// ca, b = −1 when cb: rows 2p and 2p+1 of B' multiply Ar and Ai.
	sa, sb := T(1), T(1)
	if ca {
		sa = -1
	}
	if cb {
		sb = -1
	}
	for p := 0; p < k; p++ {
		r0, r1 := bw.s[2*p*n2:(2*p+1)*n2], bw.s[(2*p+1)*n2:(2*p+2)*n2]
		for j := 0; j < n; j++ {
			o := 2 * (p*brs + j*bcs)
			br, bi := b[o], sb*b[o+1]
			r0[2*j], r0[2*j+1] = br, bi
			r1[2*j], r1[2*j+1] = -sa*bi, sa*br
		}
	}
	offs := make([]int, m+2*k2+n2)
	rows, ksA, ksB, cols := offs[:m], offs[m:m+k2], offs[m+k2:m+2*k2], offs[m+2*k2:]
	for i := range rows {
		rows[i] = 2 * i * ars
	}
	for p := 0; p < k; p++ {
		ksA[2*p], ksA[2*p+1] = 2*p*acs, 2*p*acs+1
	}
	for q := range ksB {
		ksB[q] = q * n2
	}
	for j := range cols {
		cols[j] = j
	}
	gemmUpdOffs(uk, pool, par, neg, a, rows, ksA, acs == 1, bw.s, ksB, cols, true, c, 2*ldc, false)
}

// gemmUpdReal is gemmUpd for real data on the packed micro-kernel uk (its
// scratch from pool). Every
// element of C gets its products summed in the kernel's order over each
// kcBlock slice of K, the slices added in ascending order, whatever the
// tiling: results do not depend on the worker count.
func gemmUpdReal[T float32 | float64](uk microKernel[T], pool func(int) *buf[T], par parallelFn, m, n, k int, neg bool, a []T, ars, acs int, b []T, brs, bcs int, c []T, ldc int, lower bool) {
	offs := make([]int, m+2*k+n)
	rows, ksA, ksB, cols := offs[:m], offs[m:m+k], offs[m+k:m+2*k], offs[m+2*k:]
	for i := range rows {
		rows[i] = i * ars
	}
	for p := 0; p < k; p++ {
		ksA[p] = p * acs
		ksB[p] = p * brs
	}
	for j := range cols {
		cols[j] = j * bcs
	}
	gemmUpdOffs(uk, pool, par, neg, a, rows, ksA, acs == 1, b, ksB, cols, bcs == 1, c, ldc, lower)
}

// gemmUpdOffs is gemmUpdReal with A(i, p) = a[rows[i]+ksA[p]] and
// B(p, j) = b[ksB[p]+cols[j]] (unitA: ksA is 0, 1, 2, …; unitB: cols is).
func gemmUpdOffs[T float32 | float64](uk microKernel[T], pool func(int) *buf[T], par parallelFn, neg bool, a []T, rows, ksA []int, unitA bool, b []T, ksB, cols []int, unitB bool, c []T, ldc int, lower bool) {
	m, n, k := len(rows), len(cols), len(ksA)
	mr, nr := uk.mr, uk.nr
	// Tiles of at most mcBlock rows and 256 columns, evened out, and at
	// least four of them when the shape allows, so that two workers
	// finish together.
	kcb := kcBlock
	tilesM := ceilDiv(m, max(mr, mcBlock/mr*mr))
	tilesN := ceilDiv(n, 256)
	if tilesM*tilesN < 4 {
		tilesN = max(tilesN, min(ceilDiv(4, tilesM), ceilDiv(n, 4*nr)))
		if tilesM*tilesN < 4 {
			tilesM = max(tilesM, min(ceilDiv(4, tilesN), ceilDiv(m, 2*mr)))
		}
	}
	mcb := roundUp(ceilDiv(m, tilesM), mr)
	ncb := roundUp(ceilDiv(n, tilesN), nr)
	tilesM, tilesN = ceilDiv(m, mcb), ceilDiv(n, ncb)
	kc := min(kcb, k)
	mc := roundUp(min(mcb, m), mr)
	nc := roundUp(min(ncb, n), nr)
	work := func(lo, hi int) {
		buf := pool(mc*kc + nc*kc + mr*nr)
		defer buf.release()
		ap, bp, tmp := buf.s[:mc*kc], buf.s[mc*kc:mc*kc+nc*kc], buf.s[mc*kc+nc*kc:]
		for t := lo; t < hi; t++ {
			i0 := (t % tilesM) * mcb
			j0 := (t / tilesM) * ncb
			mm, nn := min(mcb, m-i0), min(ncb, n-j0)
			if lower && j0 > i0+mm-1 {
				continue
			}
			if lower {
				nn = min(nn, i0+mm-j0)
			}
			for p0 := 0; p0 < k; p0 += kcb {
				kk := min(kcb, k-p0)
				packB(bp, b, ksB[p0:p0+kk], cols[j0:j0+nn], nr, unitB)
				packA(ap, a, rows[i0:i0+mm], ksA[p0:p0+kk], mr, unitA)
				if neg {
					// Negate the smaller packed operand.
					x := ap[:roundUp(mm, mr)*kk]
					if nn < mm {
						x = bp[:roundUp(nn, nr)*kk]
					}
					for i := range x {
						x[i] = -x[i]
					}
				}
				macroUpd(uk, kk, ap, bp, c[i0*ldc+j0:], ldc, mm, nn, lower, i0-j0, tmp)
			}
		}
	}
	total := tilesM * tilesN
	if total == 1 || m*n*k < gemmSerF {
		work(0, total)
		return
	}
	par(total, 1, work)
}

// macroUpd adds a packed m×k A block times a packed k×n B block to c; with
// lower, only elements whose column is at most their row plus diag.
func macroUpd[T float32 | float64](uk microKernel[T], k int, ap, bp, c []T, ldc, m, n int, lower bool, diag int, tmp []T) {
	mr, nr := uk.mr, uk.nr
	for jr := 0; jr < n; jr += nr {
		bpan := bp[(jr/nr)*nr*k:]
		nn := min(nr, n-jr)
		for ir := 0; ir < m; ir += mr {
			mm := min(mr, m-ir)
			if lower && jr > ir+mm-1+diag {
				continue // wholly above the diagonal
			}
			apan := ap[(ir/mr)*mr*k:]
			off := ir*ldc + jr
			full := !lower || jr+nn-1 <= ir+diag
			if mm == mr && nn == nr && full {
				uk.fn(k, apan, bpan, c[off:], ldc, true)
				continue
			}
			uk.fn(k, apan, bpan, tmp, nr, false)
			for i := 0; i < mm; i++ {
				jn := nn
				if lower {
					jn = min(nn, ir+i+diag-jr+1)
				}
				if jn <= 0 {
					continue
				}
				row := c[off+i*ldc : off+i*ldc+jn]
				src := tmp[i*nr : i*nr+jn]
				for j := range row {
					row[j] += src[j]
				}
			}
		}
	}
}

// potrfBlocked is potrfLower (same contract: L in the lower triangle, the
// strict upper triangle untouched, LAPACK's info) as a right-looking
// blocked factorization: each blockNB-wide panel is factored unblocked,
// the column below it solved against its diagonal block, and the trailing
// lower triangle updated with one matrix product.
func potrfBlocked[T scalar](par parallelFn, a []T, n, lda int) int {
	if n < blockMin {
		return potrfLower(a, n, lda)
	}
	for j0 := 0; j0 < n; j0 += blockNB {
		jb := min(blockNB, n-j0)
		if info := potrfLower(a[j0*lda+j0:], jb, lda); info != 0 {
			return j0 + info
		}
		r0 := j0 + jb
		if r0 >= n {
			break
		}
		// L21 := A21·L11⁻ᴴ, that is X·L11ᴴ = A21.
		trsmPar(par, triParams{lower: true, trans: 'C'}, a[j0*lda+j0:], lda, jb, a[r0*lda+j0:], lda, n-r0, jb)
		// A22 -= L21·L21ᴴ, lower triangle only.
		l21 := a[r0*lda+j0:]
		gemmUpd(par, n-r0, n-r0, jb, true, l21, lda, 1, false, l21, 1, lda, true, a[r0*lda+r0:], lda, true)
	}
	return 0
}

// trsmPar solves like trsmBlocked, splitting the independent rows (right
// side) or columns (left side) of b over the workers.
func trsmPar[T scalar](par parallelFn, p triParams, a []T, lda, k int, b []T, ldb, m, n int) {
	work := m * n * k
	if work < 1<<16 {
		trsmBlocked(p, a, lda, k, b, ldb, m, n)
		return
	}
	if p.left {
		const cw = 64
		par(ceilDiv(n, cw), 1, func(lo, hi int) {
			j0, j1 := lo*cw, min(n, hi*cw)
			trsmBlocked(p, a, lda, k, b[j0:], ldb, m, j1-j0)
		})
		return
	}
	const rw = 32
	par(ceilDiv(m, rw), 1, func(lo, hi int) {
		i0, i1 := lo*rw, min(m, hi*rw)
		trsmBlocked(p, a, lda, k, b[i0*ldb:], ldb, i1-i0, n)
	})
}

// trsmBlocked solves op(A)·X = B (left) or X·op(A) = B (right) in place
// for the m×n b (leading dimension ldb) and the k×k a (leading dimension
// lda), splitting the triangle in halves recursively: one half is solved,
// its contribution removed from the other half of B by a matrix product,
// then the other half is solved.
func trsmBlocked[T scalar](p triParams, a []T, lda, k int, b []T, ldb, m, n int) {
	if k <= trsmBase || m == 0 || n == 0 || (p.left && n < 4) || (!p.left && m < 4) {
		trsm(p, a, lda, k, b, ldb, m, n)
		return
	}
	k1 := k / 2
	if k1 > 2*trsmBase {
		k1 = k1 / trsmBase * trsmBase
	}
	k2 := k - k1
	mLower := p.lower == (p.trans == 'N')
	// The off-diagonal block of M = op(tri(A)): rows r0.., columns c0..,
	// element (i, j) of M at (i, j) of A, or (j, i) conjugated for 'C'.
	off := func(r0, c0 int) (blk []T, rs, cs int, cj bool) {
		if p.trans == 'N' {
			return a[r0*lda+c0:], lda, 1, false
		}
		return a[c0*lda+r0:], 1, lda, p.trans == 'C'
	}
	a22 := a[k1*lda+k1:]
	if p.left {
		b1, b2 := b, b[k1*ldb:]
		if mLower {
			// [M11 0; M21 M22]: X1 from B1, then B2 -= M21·X1.
			trsmBlocked(p, a, lda, k1, b1, ldb, k1, n)
			m21, rs, cs, cj := off(k1, 0)
			gemmUpd(serial, k2, n, k1, true, m21, rs, cs, cj, b1, ldb, 1, false, b2, ldb, false)
			trsmBlocked(p, a22, lda, k2, b2, ldb, k2, n)
			return
		}
		// [M11 M12; 0 M22]: X2 from B2, then B1 -= M12·X2.
		trsmBlocked(p, a22, lda, k2, b2, ldb, k2, n)
		m12, rs, cs, cj := off(0, k1)
		gemmUpd(serial, k1, n, k2, true, m12, rs, cs, cj, b2, ldb, 1, false, b1, ldb, false)
		trsmBlocked(p, a, lda, k1, b1, ldb, k1, n)
		return
	}
	b1, b2 := b, b[k1:]
	if mLower {
		// X·[M11 0; M21 M22] = B: X2·M22 = B2, then B1 -= X2·M21.
		trsmBlocked(p, a22, lda, k2, b2, ldb, m, k2)
		m21, rs, cs, cj := off(k1, 0)
		gemmUpd(serial, m, k1, k2, true, b2, ldb, 1, false, m21, rs, cs, cj, b1, ldb, false)
		trsmBlocked(p, a, lda, k1, b1, ldb, m, k1)
		return
	}
	// X·[M11 M12; 0 M22] = B: X1·M11 = B1, then B2 -= X1·M12.
	trsmBlocked(p, a, lda, k1, b1, ldb, m, k1)
	m12, rs, cs, cj := off(0, k1)
	gemmUpd(serial, m, k2, k1, true, b1, ldb, 1, false, m12, rs, cs, cj, b2, ldb, false)
	trsmBlocked(p, a22, lda, k2, b2, ldb, m, k2)
}

// getrfRec is getf2 (same pivots in exact arithmetic, same info) as a
// recursive factorization: the left half of the columns is factored, its
// row interchanges applied to the right half, U12 solved and the trailing
// block updated by one matrix product before the right half is factored.
func getrfRec[T scalar](par parallelFn, m, n int, a []T, lda int, ipiv []int32) int {
	kmin := min(m, n)
	if kmin <= luBase || n <= luBase {
		return getf2(m, n, a, lda, ipiv)
	}
	n1 := kmin / 2
	if n1 > 2*luBase {
		n1 = n1 / luBase * luBase
	}
	n2 := n - n1
	info := getrfRec(par, m, n1, a, lda, ipiv[:n1])
	// Interchanges of the left half applied to the right half.
	swapRows(a[n1:], lda, n2, ipiv[:n1], 0)
	// U12 := L11⁻¹·A12.
	trsmPar(par, triParams{left: true, lower: true, unit: true, trans: 'N'}, a, lda, n1, a[n1:], lda, n1, n2)
	// A22 -= A21·U12.
	gemmUpd(par, m-n1, n2, n1, true, a[n1*lda:], lda, 1, false, a[n1:], lda, 1, false, a[n1*lda+n1:], lda, false)
	rest := ipiv[n1:kmin]
	info2 := getrfRec(par, m-n1, n2, a[n1*lda+n1:], lda, rest)
	if info == 0 && info2 > 0 {
		info = info2 + n1
	}
	for i := range rest {
		rest[i] += int32(n1)
	}
	// Interchanges of the right half applied to the left half.
	swapRows(a, lda, n1, rest, n1)
	return info
}

// swapRows applies the 1-based interchanges piv (row base+i with row
// piv[i]-1) to the first w columns of a.
func swapRows[T any](a []T, lda, w int, piv []int32, base int) {
	for i, pv := range piv {
		r, p := base+i, int(pv)-1
		if p == r {
			continue
		}
		x, y := a[r*lda:r*lda+w], a[p*lda:p*lda+w]
		for j := range x {
			x[j], y[j] = y[j], x[j]
		}
	}
}
