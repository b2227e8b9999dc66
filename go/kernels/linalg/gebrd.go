package linalg

import (
	"sync"
	"unsafe"
)

// Blocked bidiagonal reduction (gebrd): panels of brdNB columns and rows are
// reduced as gebd2 would (labrd), accumulating X and Y so that the rest of
// the matrix is updated by two matrix products, A ← A − V·Yᴴ − X·Uᴴ, on the
// packed GEMM. The matrix-vector products inside a panel remain; they are
// half the flops, as in LAPACK.

const brdNB = 32

// gemvAcc adds alpha·op(A)·x to y, A m×n row-major (leading dimension lda):
// op(A)·x with x of length n when !adj, Aᴴ·x with x of length m (y of
// length n) when adj; x is read conjugated when cx.
func gemvAcc[T scalar](m, n int, alpha T, a []T, lda int, adj, cx bool, x []T, incx int, y []T, incy int) {
	if m <= 0 || n <= 0 {
		return
	}
	if !adj {
		xs := scratchT[T](n)
		defer xs.release()
		xv := xs.s[:n]
		for c := range xv {
			v := x[c*incx]
			if cx {
				v = conj(v)
			}
			xv[c] = v
		}
		if !isCplx[T]() {
			// Real rows: the vectorized four-row dot products.
			ys := f64scratch(m)
			defer ys.release()
			gemvRows(asF64s(a), lda, asF64s(xv), ys.s[:m])
			for r, v := range ys.s[:m] {
				y[r*incy] += alpha * fromRe[T](v)
			}
			return
		}
		if m >= 4 {
			// Complex rows as real rows of (re, im) pairs: Re(a·x) is
			// their dot with (xr, −xi) pairs, Im(a·x) with (xi, xr).
			ws := f64scratch(4*n + 2*m)
			defer ws.release()
			x1, x2, y1, y2 := ws.s[:2*n], ws.s[2*n:4*n], ws.s[4*n:4*n+m], ws.s[4*n+m:4*n+2*m]
			for c, v := range xv {
				xr, xi := re(v), im(v)
				x1[2*c], x1[2*c+1] = xr, -xi
				x2[2*c], x2[2*c+1] = xi, xr
			}
			af := reIm(a)
			gemvRows2(af, 2*lda, x1, x2, y1, y2)
			for r := range y1 {
				y[r*incy] += alpha * fromC[T](y1[r], y2[r])
			}
			return
		}
		for r := 0; r < m; r++ {
			row := a[r*lda : r*lda+n]
			var s0, s1 T
			c := 0
			for ; c+2 <= n; c += 2 {
				s0 += row[c] * xv[c]
				s1 += row[c+1] * xv[c+1]
			}
			if c < n {
				s0 += row[c] * xv[c]
			}
			y[r*incy] += alpha * (s0 + s1)
		}
		return
	}
	acc := scratchT[T](n)
	defer acc.release()
	av := acc.s[:n]
	clear(av)
	xf := func(r int) T {
		if cx {
			return conj(x[r*incx])
		}
		return x[r*incx]
	}
	if isCplx[T]() && n >= 4 {
		// Complex rows as real rows of (re, im) pairs: with P += row·Re f
		// and Q += row·Im f over the pairs, conj(a)·f summed over the rows
		// is (P_re + Q_im) + i·(Q_re − P_im), two vectorized axpys per row.
		pq := f64scratch(4 * n)
		defer pq.release()
		p, q := pq.s[:2*n], pq.s[2*n:]
		clear(pq.s)
		af := reIm(a)
		r := 0
		for ; r+4 <= m; r += 4 {
			var c [8]float64
			for k := range 4 {
				f := xf(r + k)
				c[k], c[4+k] = re(f), im(f)
			}
			axpy4x2F64(p, q, af[2*r*lda:], 2*lda, &c)
		}
		for ; r < m; r++ {
			f := xf(r)
			axpy2F64(p, q, af[2*r*lda:2*r*lda+2*n], re(f), im(f))
		}
		for c := range av {
			av[c] = fromC[T](p[2*c]+q[2*c+1], q[2*c]-p[2*c+1])
		}
	} else {
		gemvAdjRows(m, n, a, lda, xf, av)
	}
	for c, v := range av {
		y[c*incy] += alpha * v
	}
}

// gemvAdjRows adds Aᴴ·x to av (x given by xf), four rows per pass.
func gemvAdjRows[T scalar](m, n int, a []T, lda int, xf func(int) T, av []T) {
	r := 0
	// Four rows per pass: a quarter of the loads and stores of av.
	for ; r+4 <= m; r += 4 {
		f0, f1, f2, f3 := xf(r), xf(r+1), xf(r+2), xf(r+3)
		r0 := a[r*lda : r*lda+n]
		r1 := a[(r+1)*lda : (r+1)*lda+n]
		r2 := a[(r+2)*lda : (r+2)*lda+n]
		r3 := a[(r+3)*lda : (r+3)*lda+n]
		for c := range av {
			av[c] += conj(r0[c])*f0 + conj(r1[c])*f1 + conj(r2[c])*f2 + conj(r3[c])*f3
		}
	}
	for ; r < m; r++ {
		f := xf(r)
		row := a[r*lda : r*lda+n]
		for c, v := range row {
			av[c] += conj(v) * f
		}
	}
}

// adjointInto writes Aᴴ (n×m, leading dimension m) of the m×n matrix a
// into at, in 16×16 tiles so that the column-strided writes stay within a
// few cache lines and pages.
func adjointInto[T scalar](m, n int, a []T, lda int, at []T) {
	const tb = 16
	for r0 := 0; r0 < m; r0 += tb {
		r1 := min(m, r0+tb)
		for c0 := 0; c0 < n; c0 += tb {
			c1 := min(n, c0+tb)
			for r := r0; r < r1; r++ {
				for c, v := range a[r*lda+c0 : r*lda+c1] {
					at[(c0+c)*m+r] = conj(v)
				}
			}
		}
	}
}

// gebrd's large scratch (see sitePool).
var poolGebrdXY, poolGebrdT sitePool

// poolGebrdC32 holds gebrdC64's float32 adjoint of the trailing matrix.
var poolGebrdC32 sync.Pool

// brdC32 holds complex64 copies, as (re, im) float32 pairs, of a panel's
// trailing matrix A (m×n) and of Aᴴ (n×m) as they were on entry to labrd:
// with single, labrd's two products with the whole trailing matrix read
// them in float32, as cgebrd's do.
type brdC32 struct {
	a, at []float32
	lda   int // a's leading dimension in complex elements (at's is m)
}

// gemvC32 adds A·x to y for the m×n complex64 matrix A given as (re, im)
// float32 pairs (leading dimension lda elements), as cgemv in float32:
// Re(a·x) is the rows' dot with (xr, −xi) pairs, Im(a·x) with (xi, xr).
func gemvC32[T scalar](m, n int, a []float32, lda int, x []T, incx int, y []T, incy int) {
	if m <= 0 || n <= 0 {
		return
	}
	ws := f32scratch(4*n + 2*m)
	defer ws.release()
	x1, x2, y1, y2 := ws.s[:2*n], ws.s[2*n:4*n], ws.s[4*n:4*n+m], ws.s[4*n+m:4*n+2*m]
	for c := 0; c < n; c++ {
		v := x[c*incx]
		xr, xi := float32(re(v)), float32(im(v))
		x1[2*c], x1[2*c+1] = xr, -xi
		x2[2*c], x2[2*c+1] = xi, xr
	}
	gemvRows2F32(a, 2*lda, x1, x2, y1, y2)
	for r := range y1 {
		y[r*incy] += fromC[T](float64(y1[r]), float64(y2[r]))
	}
}

// gebrd is gebd2 (same contract, m >= n) blocked.
func gebrd[T scalar](par parallelFn, m, n int, a []T, lda int, d, e []float64, tauq, taup, work []T, single bool) {
	if single && isCplx[T]() && n > blockMin {
		gebrdC64(par, m, n, *(*[]complex128)(unsafe.Pointer(&a)), lda, d, e,
			*(*[]complex128)(unsafe.Pointer(&tauq)), *(*[]complex128)(unsafe.Pointer(&taup)),
			*(*[]complex128)(unsafe.Pointer(&work)))
		return
	}
	j0 := 0
	if n > blockMin {
		nb := brdNB
		// X, Y and, for labrd's products, Vᴴ, Xᴴ and Yᴴ.
		xy := siteScratch[T](&poolGebrdXY, (3*m+2*n)*nb)
		defer xy.release()
		// The panel's trailing matrix, conjugate transposed: its products
		// with Aᴴ become row dot products on the vectorized kernel.
		tb := siteScratch[T](&poolGebrdT, m*n)
		defer tb.release()
		at := tb.s
		for ; n-j0 > blockMin; j0 += nb {
			mm, nn := m-j0, n-j0
			p := a[j0*lda+j0:]
			x, y := xy.s[:mm*nb], xy.s[mm*nb:(mm+nn)*nb]
			h := xy.s[(mm+nn)*nb : (3*mm+2*nn)*nb]
			pt := at[:mm*nn]
			adjointInto(mm, nn, p, lda, pt)
			labrd(mm, nn, nb, p, lda, pt, nil, d[j0:], e[j0:], tauq[j0:], taup[j0:], x, y, h)
			// A(nb:, nb:) −= V·Yᴴ + X·Uᴴ, V's unit diagonal and U's unit
			// first entries still written in A.
			gemmUpd(par, mm-nb, nn-nb, nb, true, p[nb*lda:], lda, 1, false, y[nb*nb:], 1, nb, true, p[nb*lda+nb:], lda, false)
			gemmUpd(par, mm-nb, nn-nb, nb, true, x[nb*nb:], nb, 1, false, p[nb:], lda, 1, false, p[nb*lda+nb:], lda, false)
			for j := 0; j < nb; j++ {
				p[j*lda+j] = fromRe[T](d[j0+j])
				p[j*lda+j+1] = fromRe[T](e[j0+j])
			}
		}
	}
	gebd2(m-j0, n-j0, a[j0*lda+j0:], lda, d[j0:], e[j0:], tauq[j0:], taup[j0:], work)
}

// labrd reduces the first nb rows and columns of the m×n matrix a
// (m >= n > nb) as gebd2 would and returns X (m×nb) and Y (n×nb, both
// row-major with leading dimension nb) for the update of the rest,
// A ← A − V·Yᴴ − X·Uᴴ (V's columns are the left reflectors, U's the right
// ones; row i of a keeps uᴴ). It leaves 1 on the diagonal and first
// superdiagonal of the panel (the reflectors' unit entries), the caller
// writing d and e back after the update. at, when not nil, is Aᴴ as it was
// on entry (n×m, leading dimension m): the products with the part of A
// that the panel leaves as it was read it instead.
//
// h (at least (2m+n)·nb) holds Vᴴ, Xᴴ (nb×m) and Yᴴ (nb×n), each
// reflector or finished column of X and Y conjugated into a row as it is
// formed: the panel's products with V, X and Y (widths up to nb) then run
// over long rows — dot products and axpys of length m or n — instead of
// m short rows of length i each.
func labrd[T scalar](m, n, nb int, a []T, lda int, at []T, c32 *brdC32, d, e []float64, tauq, taup, x, y, h []T) {
	one, mone := fromRe[T](1), fromRe[T](-1)
	ld := nb
	clear(x[:m*nb])
	clear(y[:n*nb])
	vh, xh, yh := h[:nb*m], h[nb*m:2*nb*m], h[2*nb*m:2*nb*m+nb*n]
	// The column being reduced, the new columns of Y and X and the short
	// intermediate products are formed in contiguous vectors: in place
	// they would be strided by lda or nb elements, a cache line (or a
	// page) per element for every product that adds to them.
	ts := scratchT[T](2*m + n + nb + 1)
	defer ts.release()
	vcol, ycol, xcol, t := ts.s[:m], ts.s[m:m+n], ts.s[m+n:2*m+n], ts.s[2*m+n:2*m+n+nb+1]
	for i := 0; i < nb; i++ {
		// v = A(i:m, i) −= A(i:m, 0:i)·Y(i, 0:i)ᴴ + X(i:m, 0:i)·A(0:i, i).
		// (V = A(i:m, 0:i) and X(i:m, 0:i) through their adjoints' rows.)
		v := vcol[:m-i]
		for r := range v {
			v[r] = a[(i+r)*lda+i]
		}
		gemvAcc(i, m-i, mone, vh[i:], m, true, true, y[i*ld:], 1, v, 1)
		gemvAcc(i, m-i, mone, xh[i:], m, true, false, a[i:], lda, v, 1)
		tauq[i] = larfg(m-i, &v[0], v[min(1, len(v)-1):], 1)
		d[i] = re(v[0])
		v[0] = one
		for r, w := range v {
			a[(i+r)*lda+i] = w
			vh[i*m+i+r] = conj(w)
		}
		// Y(i+1:n, i) = tauq·(A(i:m, i+1:n)ᴴ·v − Y(i+1:n, 0:i)·(A(i:m, 0:i)ᴴ·v)
		//               − A(0:i, i+1:n)ᴴ·(X(i:m, 0:i)ᴴ·v)).
		yc := ycol[:n-i-1]
		clear(yc)
		if c32 != nil {
			gemvC32(n-i-1, m-i, c32.at[2*((i+1)*m+i):], m, v, 1, yc, 1)
		} else if at != nil {
			// A(i:m, i+1:n) is still as on entry (only rows and
			// columns before i, and column i, have changed).
			gemvAcc(n-i-1, m-i, one, at[(i+1)*m+i:], m, false, false, v, 1, yc, 1)
		} else {
			gemvAcc(m-i, n-i-1, one, a[i*lda+i+1:], lda, true, false, v, 1, yc, 1)
		}
		ti := t[:i]
		clear(ti)
		gemvAcc(i, m-i, one, vh[i:], m, false, false, v, 1, ti, 1)
		gemvAcc(i, n-i-1, mone, yh[i+1:], n, true, false, ti, 1, yc, 1)
		clear(ti)
		gemvAcc(i, m-i, one, xh[i:], m, false, false, v, 1, ti, 1)
		gemvAcc(i, n-i-1, mone, a[i+1:], lda, true, false, ti, 1, yc, 1)
		for r, w := range yc {
			w *= tauq[i]
			y[(i+1+r)*ld+i] = w
			yh[i*n+i+1+r] = conj(w)
		}
		// Row i, conjugated: A(i, i+1:n) −= Y(i+1:n, 0:i+1)·conj(A(i, 0:i+1))
		// + A(0:i, i+1:n)ᴴ·conj(X(i, 0:i)).
		row := a[i*lda+i+1 : i*lda+n]
		for j := range row {
			row[j] = conj(row[j])
		}
		gemvAcc(i+1, n-i-1, mone, yh[i+1:], n, true, true, a[i*lda:], 1, row, 1)
		gemvAcc(i, n-i-1, mone, a[i+1:], lda, true, true, x[i*ld:], 1, row, 1)
		taup[i] = larfg(len(row), &row[0], row[min(1, len(row)-1):], 1)
		e[i] = re(row[0])
		row[0] = one
		// X(i+1:m, i) = taup·(A(i+1:m, i+1:n)·u − A(i+1:m, 0:i+1)·(Y(i+1:n, 0:i+1)ᴴ·u)
		//               − X(i+1:m, 0:i)·(A(0:i, i+1:n)·u)).
		xc := xcol[:m-i-1]
		clear(xc)
		if c32 != nil {
			gemvC32(m-i-1, n-i-1, c32.a[2*((i+1)*c32.lda+i+1):], c32.lda, row, 1, xc, 1)
		} else {
			gemvAcc(m-i-1, n-i-1, one, a[(i+1)*lda+i+1:], lda, false, false, row, 1, xc, 1)
		}
		ti = t[:i+1]
		clear(ti)
		gemvAcc(i+1, n-i-1, one, yh[i+1:], n, false, false, row, 1, ti, 1)
		gemvAcc(i+1, m-i-1, mone, vh[i+1:], m, true, false, ti, 1, xc, 1)
		clear(ti)
		gemvAcc(i, n-i-1, one, a[i+1:], lda, false, false, row, 1, ti, 1)
		gemvAcc(i, m-i-1, mone, xh[i+1:], m, true, false, ti, 1, xc, 1)
		for r, w := range xc {
			w *= taup[i]
			x[(i+1+r)*ld+i] = w
			xh[i*m+i+1+r] = conj(w)
		}
		for j := range row {
			row[j] = conj(row[j])
		}
	}
}

// poolGebrdC64 holds gebrdC64's complex64 working matrix and operands.
var poolGebrdC64 sync.Pool

// gebrdC64 is gebrd with single-precision working storage, as cgebrd:
// the matrix is kept in complex64 between panels, and each panel's update
// A ← A − [V X]·[Yᴴ; Uᴴ] is one complex64 product on the f32 kernel. A
// panel's rows and columns are widened into a for labrd, which reduces
// them in complex128 (its products with the trailing matrix read the
// complex64 copy and its adjoint in float32); a ends as gebd2 leaves it.
func gebrdC64(par parallelFn, m, n int, a []complex128, lda int, d, e []float64, tauq, taup, work []complex128) {
	const nb = brdNB
	ws := getBuf[complex64](&poolGebrdC64, m*n+2*nb*(m+n))
	defer ws.release()
	w, opA, opB := ws.s[:m*n], ws.s[m*n:m*n+2*nb*m], ws.s[m*n+2*nb*m:m*n+2*nb*(m+n)]
	for i := 0; i < m; i++ {
		for j, v := range a[i*lda : i*lda+n] {
			w[i*n+j] = complex64(v)
		}
	}
	xy := siteScratch[complex128](&poolGebrdXY, (3*m+2*n)*nb)
	defer xy.release()
	c32b := getBuf[float32](&poolGebrdC32, 2*m*n)
	defer c32b.release()
	j0 := 0
	for ; n-j0 > blockMin; j0 += nb {
		mm, nn := m-j0, n-j0
		p, pw := a[j0*lda+j0:], w[j0*n+j0:]
		// The panel's rows and columns, as the updates have left them.
		for i := 0; i < nb; i++ {
			for j, v := range pw[i*n : i*n+nn] {
				p[i*lda+j] = complex128(v)
			}
		}
		for i := nb; i < mm; i++ {
			for j, v := range pw[i*n : i*n+nb] {
				p[i*lda+j] = complex128(v)
			}
		}
		at := c32b.s[:2*mm*nn]
		adjC64Into(mm, nn, pw, n, at)
		c32 := &brdC32{a: asF32s(pw), at: at, lda: n}
		x, y := xy.s[:mm*nb], xy.s[mm*nb:(mm+nn)*nb]
		h := xy.s[(mm+nn)*nb : (3*mm+2*nn)*nb]
		labrd(mm, nn, nb, p, lda, nil, c32, d[j0:], e[j0:], tauq[j0:], taup[j0:], x, y, h)
		// A(nb:, nb:) −= [V X]·[Yᴴ; Uᴴ] (V's unit diagonal and U's unit
		// first entries still written in a; row i of a holds uᴴ).
		rm, rn := mm-nb, nn-nb
		va, ub := opA[:rm*2*nb], opB[:2*nb*rn]
		for r := 0; r < rm; r++ {
			row := va[r*2*nb : (r+1)*2*nb]
			for k := 0; k < nb; k++ {
				row[k] = complex64(p[(nb+r)*lda+k])
				row[nb+k] = complex64(x[(nb+r)*nb+k])
			}
		}
		for j := 0; j < rn; j++ {
			for k := 0; k < nb; k++ {
				v := y[(nb+j)*nb+k]
				ub[k*rn+j] = complex64(complex(real(v), -imag(v)))
			}
		}
		for k := 0; k < nb; k++ {
			for j, v := range p[k*lda+nb : k*lda+nn] {
				ub[(nb+k)*rn+j] = complex64(v)
			}
		}
		gemmC64(par, rm, rn, 2*nb, true, va, 2*nb, 1, false, ub, rn, 1, false, pw[nb*n+nb:], n)
		for j := 0; j < nb; j++ {
			p[j*lda+j] = complex(d[j0+j], 0)
			p[j*lda+j+1] = complex(e[j0+j], 0)
		}
	}
	for i := j0; i < m; i++ {
		for j, v := range w[i*n+j0 : i*n+n] {
			a[i*lda+j0+j] = complex128(v)
		}
	}
	gebd2(m-j0, n-j0, a[j0*lda+j0:], lda, d[j0:], e[j0:], tauq[j0:], taup[j0:], work)
}

// adjC64Into writes the conjugate transpose (n×m, leading dimension m) of
// the m×n complex64 matrix a as (re, im) float32 pairs, in 16×16 tiles.
func adjC64Into(m, n int, a []complex64, lda int, at []float32) {
	const tb = 16
	for r0 := 0; r0 < m; r0 += tb {
		r1 := min(m, r0+tb)
		for c0 := 0; c0 < n; c0 += tb {
			c1 := min(n, c0+tb)
			for r := r0; r < r1; r++ {
				for c, v := range a[r*lda+c0 : r*lda+c1] {
					k := 2 * ((c0+c)*m + r)
					at[k], at[k+1] = real(v), -imag(v)
				}
			}
		}
	}
}
