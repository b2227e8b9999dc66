package linalg

import "math"

// Unblocked LAPACK algorithms written once for real and complex data, on
// row-major matrices (element (i, j) at a[i*lda+j]). They follow the
// reference routines step by step (zlarfg, zgeqr2, zung2r, zgehd2, zhetd2,
// zgetf2, zgtsv, and their real counterparts) so that reflectors, signs and
// pivots come out as LAPACK's do; blocked LAPACK differs only by rounding.

const (
	dlamchE = 0x1p-53                 // eps (relative machine precision, rounding)
	dlamchS = 0x1p-1022               // safe minimum
	safmin  = dlamchS / dlamchE       // larfg's rescaling threshold
	sfminLU = 2.2250738585072014e-308 // getf2's threshold for dividing rather than scaling
)

// nrm2 is the 2-norm of n elements of x with stride inc, scaled against overflow.
func nrm2[T scalar](n int, x []T, inc int) float64 {
	scale, ssq := 0.0, 1.0
	add := func(v float64) {
		if v == 0 {
			return
		}
		v = math.Abs(v)
		if scale < v {
			ssq = 1 + ssq*(scale/v)*(scale/v)
			scale = v
		} else {
			ssq += (v / scale) * (v / scale)
		}
	}
	for i := 0; i < n; i++ {
		add(re(x[i*inc]))
		add(im(x[i*inc]))
	}
	return scale * math.Sqrt(ssq)
}

func lapy3(x, y, z float64) float64 {
	w := max(math.Abs(x), math.Abs(y), math.Abs(z))
	if w == 0 {
		return math.Abs(x) + math.Abs(y) + math.Abs(z)
	}
	return w * math.Sqrt((x/w)*(x/w)+(y/w)*(y/w)+(z/w)*(z/w))
}

// larfg generates an elementary reflector H = I - tau·v·vᴴ with
// Hᴴ·(alpha; x) = (beta; 0), beta real; v = (1; x) is stored over x and
// beta over alpha.
func larfg[T scalar](n int, alpha *T, x []T, inc int) T {
	var zero T
	if n <= 0 {
		return zero
	}
	xnorm := nrm2(n-1, x, inc)
	alphr, alphi := re(*alpha), im(*alpha)
	if xnorm == 0 && alphi == 0 {
		return zero
	}
	beta := -math.Copysign(lapy3(alphr, alphi, xnorm), alphr)
	knt := 0
	if math.Abs(beta) < safmin {
		// xnorm and beta may be inaccurate; scale x and recompute them.
		rsafmn := 1 / safmin
		for {
			knt++
			for i := 0; i < n-1; i++ {
				x[i*inc] = scaleRe(x[i*inc], rsafmn)
			}
			beta *= rsafmn
			alphr *= rsafmn
			alphi *= rsafmn
			if math.Abs(beta) >= safmin || knt >= 20 {
				break
			}
		}
		xnorm = nrm2(n-1, x, inc)
		beta = -math.Copysign(lapy3(alphr, alphi, xnorm), alphr)
	}
	tau := fromC[T]((beta-alphr)/beta, -alphi/beta)
	s := fromRe[T](1) / (fromC[T](alphr, alphi) - fromRe[T](beta))
	for i := 0; i < n-1; i++ {
		x[i*inc] *= s
	}
	for j := 0; j < knt; j++ {
		beta *= safmin
	}
	*alpha = fromRe[T](beta)
	return tau
}

// larfLeft applies H = I - tau·v·vᴴ from the left to the m×n block c
// (leading dimension ldc); v has m elements with stride incv.
func larfLeft[T scalar](m, n int, v []T, incv int, tau T, c []T, ldc int, work []T) {
	if tau == 0 {
		return
	}
	w := work[:n]
	clear(w)
	i := 0
	// w = vᴴ·C four rows per pass: a quarter of w's loads and stores.
	for ; i+4 <= m; i += 4 {
		v0, v1, v2, v3 := conj(v[i*incv]), conj(v[(i+1)*incv]), conj(v[(i+2)*incv]), conj(v[(i+3)*incv])
		r0 := c[i*ldc : i*ldc+n]
		r1 := c[(i+1)*ldc : (i+1)*ldc+n]
		r2 := c[(i+2)*ldc : (i+2)*ldc+n]
		r3 := c[(i+3)*ldc : (i+3)*ldc+n]
		for j := range w {
			w[j] += v0*r0[j] + v1*r1[j] + v2*r2[j] + v3*r3[j]
		}
	}
	for ; i < m; i++ {
		vi := conj(v[i*incv])
		row := c[i*ldc : i*ldc+n]
		for j, x := range row {
			w[j] += vi * x
		}
	}
	for i := 0; i < m; i++ {
		f := tau * v[i*incv]
		row := c[i*ldc : i*ldc+n]
		for j := range row {
			row[j] -= f * w[j]
		}
	}
}

// larfRight applies H = I - tau·v·vᴴ from the right to the m×n block c.
func larfRight[T scalar](m, n int, v []T, incv int, tau T, c []T, ldc int) {
	if tau == 0 {
		return
	}
	for i := 0; i < m; i++ {
		row := c[i*ldc : i*ldc+n]
		var w T
		for j := range row {
			w += row[j] * v[j*incv]
		}
		w *= tau
		for j := range row {
			row[j] -= w * conj(v[j*incv])
		}
	}
}

// geqr2 computes A = Q·R: R in the upper triangle, the reflectors below it,
// tau (min(m, n) values) returned in tau.
func geqr2[T scalar](m, n int, a []T, lda int, tau, work []T) {
	k := min(m, n)
	for i := 0; i < k; i++ {
		tau[i] = larfg(m-i, &a[i*lda+i], a[min(i+1, m-1)*lda+i:], lda)
		if i < n-1 {
			alpha := a[i*lda+i]
			a[i*lda+i] = fromRe[T](1)
			larfLeft(m-i, n-i-1, a[i*lda+i:], lda, conj(tau[i]), a[i*lda+i+1:], lda, work)
			a[i*lda+i] = alpha
		}
	}
}

// org2r overwrites the m×n matrix a, holding k reflectors as geqr2 leaves
// them, with the first n columns of Q = H(1)·…·H(k).
func org2r[T scalar](m, n, k int, a []T, lda int, tau, work []T) {
	var zero T
	one := fromRe[T](1)
	for j := k; j < n; j++ {
		for l := 0; l < m; l++ {
			a[l*lda+j] = zero
		}
		if j < m {
			a[j*lda+j] = one
		}
	}
	for i := k - 1; i >= 0; i-- {
		if i < n-1 {
			a[i*lda+i] = one
			larfLeft(m-i, n-i-1, a[i*lda+i:], lda, tau[i], a[i*lda+i+1:], lda, work)
		}
		if i < m-1 {
			for l := i + 1; l < m; l++ {
				a[l*lda+i] *= -tau[i]
			}
		}
		a[i*lda+i] = one - tau[i]
		for l := 0; l < i; l++ {
			a[l*lda+i] = zero
		}
	}
}

// gehd2 reduces a to upper Hessenberg form H = Qᴴ·A·Q between the 0-based
// rows/columns ilo and ihi inclusive; tau has n-1 entries.
func gehd2[T scalar](n, ilo, ihi int, a []T, lda int, tau, work []T) {
	var zero T
	for i := 0; i < ilo; i++ {
		if i < n-1 {
			tau[i] = zero
		}
	}
	for i := max(0, ihi); i < n-1; i++ {
		tau[i] = zero
	}
	for i := ilo; i < ihi; i++ {
		alpha := a[(i+1)*lda+i]
		tau[i] = larfg(ihi-i, &alpha, a[min(i+2, n-1)*lda+i:], lda)
		a[(i+1)*lda+i] = fromRe[T](1)
		v := a[(i+1)*lda+i:]
		larfRight(ihi+1, ihi-i, v, lda, tau[i], a[i+1:], lda)
		larfLeft(ihi-i, n-i-1, v, lda, conj(tau[i]), a[(i+1)*lda+i+1:], lda, work)
		a[(i+1)*lda+i] = alpha
	}
}

// hetd2 reduces the Hermitian matrix stored in the lower (or upper)
// triangle of a to real symmetric tridiagonal form T = Qᴴ·A·Q; d (n) and e
// (n-1) receive T, tau (n-1) the reflector scalars. work needs n entries.
func hetd2[T scalar](lower bool, n int, a []T, lda int, d, e []float64, tau, work []T) {
	if n <= 0 {
		return
	}
	var zero T
	one := fromRe[T](1)
	if lower {
		a[0] = fromRe[T](re(a[0]))
		for i := 0; i < n-1; i++ {
			alpha := a[(i+1)*lda+i]
			taui := larfg(n-i-1, &alpha, a[min(i+2, n-1)*lda+i:], lda)
			e[i] = re(alpha)
			if taui != zero {
				a[(i+1)*lda+i] = one
				v := a[(i+1)*lda+i:]
				sub := a[(i+1)*lda+i+1:]
				m := n - i - 1
				x := work[:m]
				hemvLower(m, taui, sub, lda, v, lda, x)
				var dot T
				for l := 0; l < m; l++ {
					dot += conj(x[l]) * v[l*lda]
				}
				alph := scaleRe(taui, -0.5) * dot
				for l := 0; l < m; l++ {
					x[l] += alph * v[l*lda]
				}
				her2Lower(m, sub, lda, v, lda, x)
			} else {
				a[(i+1)*lda+i+1] = fromRe[T](re(a[(i+1)*lda+i+1]))
			}
			a[(i+1)*lda+i] = fromRe[T](e[i])
			d[i] = re(a[i*lda+i])
			tau[i] = taui
		}
		d[n-1] = re(a[(n-1)*lda+n-1])
		return
	}
	a[(n-1)*lda+n-1] = fromRe[T](re(a[(n-1)*lda+n-1]))
	for i := n - 2; i >= 0; i-- {
		// Reflector H(i) annihilates A(0:i-1, i+1).
		alpha := a[i*lda+i+1]
		taui := larfg(i+1, &alpha, a[i+1:], lda)
		e[i] = re(alpha)
		if taui != zero {
			a[i*lda+i+1] = one
			v := a[i+1:]
			m := i + 1
			x := work[:m]
			hemvUpper(m, taui, a, lda, v, lda, x)
			var dot T
			for l := 0; l < m; l++ {
				dot += conj(x[l]) * v[l*lda]
			}
			alph := scaleRe(taui, -0.5) * dot
			for l := 0; l < m; l++ {
				x[l] += alph * v[l*lda]
			}
			her2Upper(m, a, lda, v, lda, x)
		} else {
			a[i*lda+i] = fromRe[T](re(a[i*lda+i]))
		}
		a[i*lda+i+1] = fromRe[T](e[i])
		d[i+1] = re(a[(i+1)*lda+i+1])
		tau[i] = taui
	}
	d[0] = re(a[0])
}

// hemvLower: y = alpha·A·x for the Hermitian m×m A stored in the lower
// triangle of a (diagonal imaginary parts ignored); x has stride incx.
func hemvLower[T scalar](m int, alpha T, a []T, lda int, x []T, incx int, y []T) {
	clear(y[:m])
	for i := 0; i < m; i++ {
		for j := 0; j < i; j++ {
			aij := a[i*lda+j]
			y[i] += aij * x[j*incx]
			y[j] += conj(aij) * x[i*incx]
		}
		y[i] += fromRe[T](re(a[i*lda+i])) * x[i*incx]
	}
	for i := 0; i < m; i++ {
		y[i] *= alpha
	}
}

// hemvUpper is hemvLower for the upper triangle.
func hemvUpper[T scalar](m int, alpha T, a []T, lda int, x []T, incx int, y []T) {
	clear(y[:m])
	for i := 0; i < m; i++ {
		for j := i + 1; j < m; j++ {
			aij := a[i*lda+j]
			y[i] += aij * x[j*incx]
			y[j] += conj(aij) * x[i*incx]
		}
		y[i] += fromRe[T](re(a[i*lda+i])) * x[i*incx]
	}
	for i := 0; i < m; i++ {
		y[i] *= alpha
	}
}

// her2Lower: A := A - x·yᴴ - y·xᴴ on the lower triangle (diagonal kept real).
func her2Lower[T scalar](m int, a []T, lda int, x []T, incx int, y []T) {
	for j := 0; j < m; j++ {
		xj, yj := x[j*incx], y[j]
		for i := j; i < m; i++ {
			v := a[i*lda+j] - x[i*incx]*conj(yj) - y[i]*conj(xj)
			if i == j {
				v = fromRe[T](re(v))
			}
			a[i*lda+j] = v
		}
	}
}

// her2Upper: A := A - x·yᴴ - y·xᴴ on the upper triangle (diagonal kept real).
func her2Upper[T scalar](m int, a []T, lda int, x []T, incx int, y []T) {
	for j := 0; j < m; j++ {
		xj, yj := x[j*incx], y[j]
		for i := 0; i <= j; i++ {
			v := a[i*lda+j] - x[i*incx]*conj(yj) - y[i]*conj(xj)
			if i == j {
				v = fromRe[T](re(v))
			}
			a[i*lda+j] = v
		}
	}
}

// getf2 computes A = P·L·U with partial pivoting; ipiv receives 1-based
// pivot rows (min(m, n) entries); it returns LAPACK's info.
func getf2[T scalar](m, n int, a []T, lda int, ipiv []int32) int {
	var zero T
	info := 0
	k := min(m, n)
	for j := 0; j < k; j++ {
		p := j
		best := -1.0
		for i := j; i < m; i++ {
			if v := abs1(a[i*lda+j]); v > best {
				best, p = v, i
			}
		}
		ipiv[j] = int32(p + 1)
		if a[p*lda+j] != zero {
			if p != j {
				rj, rp := a[j*lda:j*lda+n], a[p*lda:p*lda+n]
				for c := range rj {
					rj[c], rp[c] = rp[c], rj[c]
				}
			}
			piv := a[j*lda+j]
			if abs(piv) >= sfminLU {
				r := fromRe[T](1) / piv
				for i := j + 1; i < m; i++ {
					a[i*lda+j] *= r
				}
			} else {
				for i := j + 1; i < m; i++ {
					a[i*lda+j] /= piv
				}
			}
		} else if info == 0 {
			info = j + 1
		}
		if j < k-1 {
			urow := a[j*lda+j+1 : j*lda+n]
			for i := j + 1; i < m; i++ {
				l := a[i*lda+j]
				if l == 0 {
					continue
				}
				row := a[i*lda+j+1 : i*lda+n]
				for c := range row {
					row[c] -= l * urow[c]
				}
			}
		}
	}
	return info
}

// gtsv solves the tridiagonal system (sub-diagonal dl[1:n], diagonal d,
// super-diagonal du[0:n-1], jaxlib's layout) for the n×nrhs right-hand sides
// b (row-major) by Gaussian elimination with partial pivoting, overwriting
// dl, d, du with the factorization as LAPACK's gtsv does; returns info.
func gtsv[T scalar](n, nrhs int, dl, d, du, b []T) int {
	if n == 0 {
		return 0
	}
	var zero T
	L := dl[1:] // LAPACK's DL(k) is L[k-1]
	for k := 0; k < n-1; k++ {
		bk, bk1 := b[k*nrhs:(k+1)*nrhs], b[(k+1)*nrhs:(k+2)*nrhs]
		switch {
		case L[k] == zero:
			if d[k] == zero {
				return k + 1
			}
		case abs1(d[k]) >= abs1(L[k]):
			mult := L[k] / d[k]
			d[k+1] -= mult * du[k]
			for j := range bk1 {
				bk1[j] -= mult * bk[j]
			}
			if k < n-2 {
				L[k] = zero
			}
		default:
			mult := d[k] / L[k]
			d[k] = L[k]
			temp := d[k+1]
			d[k+1] = du[k] - mult*temp
			if k < n-2 {
				L[k] = du[k+1]
				du[k+1] = -mult * L[k]
			}
			du[k] = temp
			for j := range bk {
				t := bk[j]
				bk[j] = bk1[j]
				bk1[j] = t - mult*bk1[j]
			}
		}
	}
	if d[n-1] == zero {
		return n
	}
	for j := 0; j < nrhs; j++ {
		b[(n-1)*nrhs+j] /= d[n-1]
		if n > 1 {
			b[(n-2)*nrhs+j] = (b[(n-2)*nrhs+j] - du[n-2]*b[(n-1)*nrhs+j]) / d[n-2]
		}
		for k := n - 3; k >= 0; k-- {
			b[k*nrhs+j] = (b[k*nrhs+j] - du[k]*b[(k+1)*nrhs+j] - L[k]*b[(k+2)*nrhs+j]) / d[k]
		}
	}
	return 0
}

// orm2r overwrites the m×n matrix c (leading dimension ldc) with op(Q)·c (left) or c·op(Q), where
// Q = H(1)·…·H(k) is held as geqr2 leaves it in a (leading dimension lda)
// and op(Q) = Qᴴ when trans; the reflector order follows LAPACK's orm2r.
func orm2r[T scalar](left, trans bool, m, n, k int, a []T, lda int, tau, c []T, ldc int, work []T) {
	forward := left == trans
	for s := 0; s < k; s++ {
		i := s
		if !forward {
			i = k - 1 - s
		}
		taui := tau[i]
		if trans {
			taui = conj(taui)
		}
		aii := a[i*lda+i]
		a[i*lda+i] = fromRe[T](1)
		v := a[i*lda+i:]
		if left {
			larfLeft(m-i, n, v, lda, taui, c[i*ldc:], ldc, work)
		} else {
			larfRight(m, n-i, v, lda, taui, c[i:], ldc)
		}
		a[i*lda+i] = aii
	}
}

// geqp3 computes the column-pivoted QR factorization A·P = Q·R like LAPACK's
// geqp3 with the unblocked laqp2: columns with jpvt[j] != 0 on entry are
// moved to the front and factored first; the rest are chosen by largest
// remaining norm. On exit jpvt[j] = k (1-based) says column j of A·P was
// column k of A. tau has min(m, n) entries.
func geqp3[T scalar](m, n int, a []T, lda int, jpvt []int32, tau, work []T, vn1, vn2 []float64) {
	swapCols := func(i, j int) {
		for r := 0; r < m; r++ {
			a[r*lda+i], a[r*lda+j] = a[r*lda+j], a[r*lda+i]
		}
	}
	nfxd := 0
	for j := 0; j < n; j++ {
		if jpvt[j] != 0 {
			if j != nfxd {
				swapCols(j, nfxd)
				jpvt[j] = jpvt[nfxd]
				jpvt[nfxd] = int32(j + 1)
			} else {
				jpvt[j] = int32(j + 1)
			}
			nfxd++
		} else {
			jpvt[j] = int32(j + 1)
		}
	}
	minmn := min(m, n)
	if nfxd > 0 {
		na := min(m, nfxd)
		// Factor the fixed columns (a submatrix with the same leading dimension).
		geqr2(m, na, a, lda, tau[:na], work)
		if na < n {
			orm2r(true, true, m, n-na, na, a, lda, tau[:na], a[na:], lda, work)
		}
	}
	if nfxd >= minmn {
		return
	}
	for j := nfxd; j < n; j++ {
		vn1[j] = nrm2(m-nfxd, a[nfxd*lda+j:], lda)
		vn2[j] = vn1[j]
	}
	tol3z := math.Sqrt(dlamchE)
	for i := nfxd; i < minmn; i++ {
		// Pivot: the free column with the largest remaining norm (first on ties).
		pvt := i
		for j := i + 1; j < n; j++ {
			if vn1[j] > vn1[pvt] {
				pvt = j
			}
		}
		if pvt != i {
			swapCols(pvt, i)
			jpvt[pvt], jpvt[i] = jpvt[i], jpvt[pvt]
			vn1[pvt] = vn1[i]
			vn2[pvt] = vn2[i]
		}
		tau[i] = larfg(m-i, &a[i*lda+i], a[min(i+1, m-1)*lda+i:], lda)
		if i < n-1 {
			aii := a[i*lda+i]
			a[i*lda+i] = fromRe[T](1)
			larfLeft(m-i, n-i-1, a[i*lda+i:], lda, conj(tau[i]), a[i*lda+i+1:], lda, work)
			a[i*lda+i] = aii
		}
		// Downdate the partial column norms, recomputing them when
		// cancellation makes the downdate unreliable.
		for j := i + 1; j < n; j++ {
			if vn1[j] == 0 {
				continue
			}
			t := abs(a[i*lda+j]) / vn1[j]
			temp := max(1-t*t, 0)
			t2 := vn1[j] / vn2[j]
			if temp*t2*t2 <= tol3z {
				if i < m-1 {
					vn1[j] = nrm2(m-i-1, a[(i+1)*lda+j:], lda)
					vn2[j] = vn1[j]
				} else {
					vn1[j], vn2[j] = 0, 0
				}
			} else {
				vn1[j] *= math.Sqrt(temp)
			}
		}
	}
}

// gebd2 reduces the m×n matrix a (m >= n) to upper bidiagonal form
// B = Qᴴ·A·P, real diagonal d (n) and superdiagonal e (n−1): Q = H(0)…H(n−1)
// with H(i) = I − tauq[i]·v·vᴴ, v = (1; a[i+1:m, i]) left below the
// diagonal as geqr2 leaves its reflectors, P = G(0)…G(n−2) with
// G(i) = I − taup[i]·u·uᴴ, u = (1; conj(a[i, i+2:n])): row i keeps uᴴ, as
// LAPACK's gebd2 leaves it.
func gebd2[T scalar](m, n int, a []T, lda int, d, e []float64, tauq, taup, work []T) {
	one := fromRe[T](1)
	for i := 0; i < n; i++ {
		tauq[i] = larfg(m-i, &a[i*lda+i], a[min(i+1, m-1)*lda+i:], lda)
		d[i] = re(a[i*lda+i])
		if i == n-1 {
			a[i*lda+i] = fromRe[T](d[i])
			break
		}
		a[i*lda+i] = one
		larfLeft(m-i, n-i-1, a[i*lda+i:], lda, conj(tauq[i]), a[i*lda+i+1:], lda, work)
		a[i*lda+i] = fromRe[T](d[i])
		// Row reflector: Hᴴ of the conjugated row is a reflector of the row
		// from the right.
		row := a[i*lda+i+1 : i*lda+n]
		for j := range row {
			row[j] = conj(row[j])
		}
		taup[i] = larfg(len(row), &row[0], row[min(1, len(row)-1):], 1)
		e[i] = re(row[0])
		row[0] = one
		if i+1 < m {
			larfRight(m-i-1, n-i-1, row, 1, taup[i], a[(i+1)*lda+i+1:], lda)
		}
		for j := range row {
			row[j] = conj(row[j])
		}
		row[0] = fromRe[T](e[i])
	}
}
