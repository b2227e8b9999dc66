package linalg

// Blocked Householder QR (geqrf) and the explicit Q (orgqr/ungqr): panels
// of qrNB reflectors are factored by geqr2 and gathered in compact WY form,
// H(j0)···H(j0+jb-1) = I − V·T·Vᴴ, so that applying them to the rest of
// the matrix is three matrix products.

const qrNB = 32

// larftV forms the upper triangular T of the compact WY representation of
// jb reflectors whose vectors are the columns of v (rows×jb, row-major,
// unit diagonal and zeros above it written out): T[j][j] = tau_j,
// T[0:j, j] = −tau_j·T[0:j, 0:j]·(Vᴴ·v_j).
func larftV[T scalar](rows, jb int, v []T, tau []T, tm []T) {
	// G = Vᴴ·V by one product (v_j is zero above row j, so G's column j
	// holds the dot products the recurrence needs).
	g := scratchT[T](jb * jb)
	defer g.release()
	clear(g.s)
	gemmUpd(serial, jb, jb, rows, false, v, 1, jb, true, v, jb, 1, false, g.s, jb, false)
	clear(tm[:jb*jb])
	for j := 0; j < jb; j++ {
		for q := 0; q < j; q++ {
			var sum T
			for s := q; s < j; s++ {
				sum += tm[q*jb+s] * g.s[s*jb+j]
			}
			tm[q*jb+j] = -tau[j] * sum
		}
		tm[j*jb+j] = tau[j]
	}
}

// applyWY overwrites the rows×nc matrix c (leading dimension ldc) with
// (I − V·op(T)·Vᴴ)·c, op(T) = Tᴴ when adj, else T.
func applyWY[T scalar](par parallelFn, rows, jb, nc int, v, tm []T, adj bool, c []T, ldc int) {
	if nc == 0 || rows == 0 {
		return
	}
	buf := scratchT[T](2 * jb * nc)
	defer buf.release()
	w1, w2 := buf.s[:jb*nc], buf.s[jb*nc:]
	clear(buf.s)
	// W1 = Vᴴ·C.
	gemmUpd(par, jb, nc, rows, false, v, 1, jb, true, c, ldc, 1, false, w1, nc, false)
	// W2 = op(T)·W1.
	if adj {
		gemmUpd(par, jb, nc, jb, false, tm, 1, jb, true, w1, nc, 1, false, w2, nc, false)
	} else {
		gemmUpd(par, jb, nc, jb, false, tm, jb, 1, false, w1, nc, 1, false, w2, nc, false)
	}
	// C -= V·W2.
	gemmUpd(par, rows, nc, jb, true, v, jb, 1, false, w2, nc, 1, false, c, ldc, false)
}

// copyV copies jb reflectors stored below the diagonal of a (from (r0, r0),
// rows×jb) into v with the unit diagonal and zeros above it written out.
func copyV[T scalar](a []T, lda, rows, jb int, v []T) {
	var zero T
	one := fromRe[T](1)
	for r := 0; r < rows; r++ {
		for j := 0; j < jb; j++ {
			switch {
			case r == j:
				v[r*jb+j] = one
			case r < j:
				v[r*jb+j] = zero
			default:
				v[r*jb+j] = a[r*lda+j]
			}
		}
	}
}

// geqrfBlocked is geqr2 (same reflectors up to rounding) blocked: each
// panel is factored by geqr2 and Qᴴ of the panel applied to the columns to
// its right as one block reflector.
func geqrfBlocked[T scalar](par parallelFn, m, n int, a []T, lda int, tau, work []T) {
	k := min(m, n)
	if k < blockMin {
		geqr2(m, n, a, lda, tau, work)
		return
	}
	vb := scratchT[T](m*qrNB + qrNB*qrNB)
	defer vb.release()
	v, tm := vb.s[:m*qrNB], vb.s[m*qrNB:]
	for j0 := 0; j0 < k; j0 += qrNB {
		jb := min(qrNB, k-j0)
		rows := m - j0
		p := a[j0*lda+j0:]
		qrPanel(par, rows, jb, p, lda, tau[j0:j0+jb], work)
		if j0+jb >= n {
			break
		}
		copyV(p, lda, rows, jb, v)
		larftV(rows, jb, v, tau[j0:j0+jb], tm)
		applyWY(par, rows, jb, n-j0-jb, v, tm, true, p[jb:], lda)
	}
}

// orgqrBlocked is org2r blocked: a (m×n, k reflectors from geqrf) is
// overwritten with the first n columns of Q = H(0)···H(k-1), built from
// [I; 0] by the block reflectors, last block first, each applied only to
// the columns at and right of its own (those left of it are still unit
// vectors it does not touch).
func orgqrBlocked[T scalar](par parallelFn, m, n, k int, a []T, lda int, tau, work []T) {
	if k < blockMin || n < blockMin {
		org2r(m, n, k, a, lda, tau, work)
		return
	}
	nblk := ceilDiv(k, qrNB)
	vs := scratchT[T](m*k + qrNB*qrNB)
	defer vs.release()
	tm := vs.s[m*k:]
	// Every block's V, saved before a is overwritten.
	for b := 0; b < nblk; b++ {
		j0 := b * qrNB
		jb := min(qrNB, k-j0)
		copyV(a[j0*lda+j0:], lda, m-j0, jb, vs.s[j0*m:])
	}
	var zero T
	for i := 0; i < m; i++ {
		row := a[i*lda : i*lda+n]
		for j := range row {
			row[j] = zero
		}
		if i < n {
			row[i] = fromRe[T](1)
		}
	}
	for b := nblk - 1; b >= 0; b-- {
		j0 := b * qrNB
		jb := min(qrNB, k-j0)
		rows := m - j0
		v := vs.s[j0*m : j0*m+rows*jb]
		larftV(rows, jb, v, tau[j0:j0+jb], tm)
		applyWY(par, rows, jb, n-j0, v, tm, false, a[j0*lda+j0:], lda)
	}
}

// qrPanel factors a rows×w panel like geqr2, recursively: the left half
// is factored, its reflectors applied to the right half as one block
// reflector, then the right half below the left half's rows is factored.
func qrPanel[T scalar](par parallelFn, rows, w int, a []T, lda int, tau, work []T) {
	if w <= 8 || rows <= 8 {
		geqr2(rows, w, a, lda, tau, work)
		return
	}
	w1 := w / 2
	qrPanel(par, rows, w1, a, lda, tau[:w1], work)
	buf := scratchT[T](rows*w1 + w1*w1)
	defer buf.release()
	v, tm := buf.s[:rows*w1], buf.s[rows*w1:]
	copyV(a, lda, rows, w1, v)
	larftV(rows, w1, v, tau[:w1], tm)
	applyWY(par, rows, w1, w-w1, v, tm, true, a[w1:], lda)
	if rows > w1 {
		qrPanel(par, rows-w1, w-w1, a[w1*lda+w1:], lda, tau[w1:w], work)
	}
}
