package linalg

import (
	"math"
	"math/big"
	"unsafe"

	"github.com/gojax/gojax/go/kernels/kernel"
)

// Schur form as LAPACK's xGEES computes it without sorting: Hessenberg
// reduction (xGEHD2), Q accumulated by xUNG2R/xORG2R, then the small-bulge
// QR of xLAHQR (double shift for real data with xLANV2's standardized 2×2
// blocks, single shift for complex data), which xHSEQR runs up to order 75
// (real matrices above that go to gonum's multishift Dhseqr, see eig.go;
// complex ones stay here). A Schur form is unique only up to the order of
// the eigenvalues, the phases of the Schur vectors and the form of real 2×2
// blocks, so matching what jaxlib returns means taking the same steps, in
// the input's own precision (sgees/cgees work in single precision and
// deflate at single-precision thresholds). Even so, LAPACK's signs and
// phases hang on rounding-level decisions (the sign of a converged
// subdiagonal entry, the phase of one made real), so results agree with
// LAPACK's only where the BLAS underneath rounds alike. Balancing ('P' in
// xGEES) only permutes when a row or column is already isolated, which it
// is not for the dense matrices this serves; it is not done.

// floatT is the working precision of the Schur code.
type floatT interface{ float32 | float64 }

// cx is a complex number in precision F. Products are written out with
// explicit roundings so that no fused multiply-add changes the result.
type cx[F floatT] struct{ r, i F }

func cadd[F floatT](a, b cx[F]) cx[F] { return cx[F]{a.r + b.r, a.i + b.i} }
func csub[F floatT](a, b cx[F]) cx[F] { return cx[F]{a.r - b.r, a.i - b.i} }
func cmul[F floatT](a, b cx[F]) cx[F] {
	return cx[F]{F(a.r*b.r) - F(a.i*b.i), F(a.r*b.i) + F(a.i*b.r)}
}
func cconj[F floatT](a cx[F]) cx[F]          { return cx[F]{a.r, -a.i} }
func cscal[F floatT](s F, a cx[F]) cx[F]     { return cx[F]{s * a.r, s * a.i} }
func cabs1F[F floatT](a cx[F]) F             { return F(math.Abs(float64(a.r))) + F(math.Abs(float64(a.i))) }
func absF[F floatT](x F) F                   { return F(math.Abs(float64(x))) }
func signF[F floatT](a, b F) F               { return F(math.Copysign(math.Abs(float64(a)), float64(b))) }
func sqrtF[F floatT](x F) F                  { return F(math.Sqrt(float64(x))) }
func toC128F[F floatT](a cx[F]) complex128   { return complex(float64(a.r), float64(a.i)) }
func fromC128F[F floatT](c complex128) cx[F] { return cx[F]{F(real(c)), F(imag(c))} }

// cabsF is |a|, correctly rounded as the C library's hypot that
// Fortran's ABS of a complex number calls.
func cabsF[F floatT](a cx[F]) F { return rootSumSq([]cx[F]{a}) }

// rootSumSq is sqrt(Σ|x|²) rounded once to F. The Schur form's signs and
// phases hang on rounding-level decisions, so norms are computed to the
// last bit rather than to within an ulp or two (BLAS's nrm2 on x86 sums
// in extended precision, near enough to this).
func rootSumSq[F floatT](x []cx[F]) F {
	const prec = 256
	var sum, t big.Float
	sum.SetPrec(prec)
	t.SetPrec(prec)
	for _, v := range x {
		for _, c := range [2]float64{float64(v.r), float64(v.i)} {
			if math.IsInf(c, 0) || math.IsNaN(c) {
				return F(math.Hypot(float64(v.r), float64(v.i)))
			}
			t.SetFloat64(c)
			t.Mul(&t, &t)
			sum.Add(&sum, &t)
		}
	}
	if sum.Sign() == 0 {
		return 0
	}
	sum.Sqrt(&sum)
	if isSingle[F]() {
		f, _ := sum.Float32()
		return F(f)
	}
	f, _ := sum.Float64()
	return F(f)
}

// cdiv is xLADIV: Baudin and Smith's robust complex division, with its
// scalings, in precision F.
func cdiv[F floatT](x, y cx[F]) cx[F] {
	a, b, c, d := x.r, x.i, y.r, y.i
	ulp, un := lamch[F]()
	eps := ulp / 2
	ov := math.MaxFloat64
	if isSingle[F]() {
		ov = math.MaxFloat32
	}
	const bs = 2
	be := bs / (eps * eps)
	ab, cd := max(absF(a), absF(b)), max(absF(c), absF(d))
	var s F = 1
	if float64(ab) >= ov/2 {
		a, b, s = a/2, b/2, s*2
	}
	if float64(cd) >= ov/2 {
		c, d, s = c/2, d/2, s/2
	}
	if ab <= un*bs/eps {
		a, b, s = a*be, b*be, s/be
	}
	if cd <= un*bs/eps {
		c, d, s = c*be, d*be, s*be
	}
	var p, q F
	if absF(d) <= absF(c) {
		p, q = ladiv1(a, b, c, d)
	} else {
		p, q = ladiv1(b, a, d, c)
		q = -q
	}
	return cx[F]{p * s, q * s}
}

func ladiv1[F floatT](a, b, c, d F) (p, q F) {
	r := d / c
	t := 1 / (c + F(d*r))
	p = ladiv2(a, b, c, d, r, t)
	q = ladiv2(b, -a, c, d, r, t)
	return p, q
}

func ladiv2[F floatT](a, b, c, d, r, t F) F {
	if r != 0 {
		if br := b * r; br != 0 {
			return (a + br) * t
		}
		return F(a*t) + F(F(b*t)*r)
	}
	return (a + F(d*(b/c))) * t
}

func isSingle[F floatT]() bool {
	var z F
	return unsafe.Sizeof(z) == 4
}

// lamch returns xLAMCH's 'P' (eps·base) and 'S' (safe minimum).
func lamch[F floatT]() (ulp, safmin F) {
	if isSingle[F]() {
		return 0x1p-23, 0x1p-126
	}
	return F(0x1p-52), F(0x1p-1022)
}

// lapy2F and lapy3F are xLAPY2/xLAPY3 in precision F.
func lapy2F[F floatT](x, y F) F {
	w, z := max(absF(x), absF(y)), min(absF(x), absF(y))
	if z == 0 || math.IsInf(float64(w), 0) {
		return w
	}
	r := z / w
	return w * sqrtF(1+r*r)
}

func lapy3F[F floatT](x, y, z F) F {
	w := max(absF(x), absF(y), absF(z))
	if w == 0 {
		return absF(x) + absF(y) + absF(z)
	}
	a, b, c := x/w, y/w, z/w
	return w * sqrtF(a*a+b*b+c*c)
}

// clarfg is xLARFG for complex data (real data has zero imaginary parts,
// for which every step reduces to the real algorithm's): it returns tau and
// overwrites alpha with beta and x with v(2:).
func clarfg[F floatT](alpha *cx[F], x []cx[F]) cx[F] {
	if len(x) == 0 && alpha.i == 0 {
		return cx[F]{}
	}
	xnorm := rootSumSq(x)
	alphr, alphi := alpha.r, alpha.i
	if xnorm == 0 && alphi == 0 {
		return cx[F]{}
	}
	ulp, safmin := lamch[F]()
	safmin /= ulp / 2
	beta := -signF(lapy3F(alphr, alphi, xnorm), alphr)
	knt := 0
	if absF(beta) < safmin {
		rsafmn := 1 / safmin
		for {
			knt++
			for i := range x {
				x[i] = cscal(rsafmn, x[i])
			}
			beta *= rsafmn
			alphr *= rsafmn
			alphi *= rsafmn
			if absF(beta) >= safmin || knt >= 20 {
				break
			}
		}
		xnorm = rootSumSq(x)
		beta = -signF(lapy3F(alphr, alphi, xnorm), alphr)
	}
	tau := cx[F]{(beta - alphr) / beta, -alphi / beta}
	s := cdiv(cx[F]{1, 0}, cx[F]{alphr - beta, alphi})
	for i := range x {
		x[i] = cmul(s, x[i])
	}
	for j := 0; j < knt; j++ {
		beta *= safmin
	}
	*alpha = cx[F]{beta, 0}
	return tau
}

// clarfLeft applies I - tau·v·vᴴ from the left to the m×n column-major
// block c (leading dimension ld): w = cᴴv, c -= tau·v·wᴴ.
func clarfLeft[F floatT](m, n int, v []cx[F], tau cx[F], c []cx[F], ld int, w []cx[F]) {
	if tau == (cx[F]{}) {
		return
	}
	for j := 0; j < n; j++ {
		var s cx[F]
		for i := 0; i < m; i++ {
			s = cadd(s, cmul(cconj(c[i+j*ld]), v[i]))
		}
		w[j] = s
	}
	ntau := cx[F]{-tau.r, -tau.i}
	for j := 0; j < n; j++ {
		t := cmul(ntau, cconj(w[j]))
		for i := 0; i < m; i++ {
			c[i+j*ld] = cadd(c[i+j*ld], cmul(v[i], t))
		}
	}
}

// clarfRight applies I - tau·v·vᴴ from the right to the m×n block c:
// w = c·v, c -= tau·w·vᴴ.
func clarfRight[F floatT](m, n int, v []cx[F], tau cx[F], c []cx[F], ld int, w []cx[F]) {
	if tau == (cx[F]{}) {
		return
	}
	clear(w[:m])
	for j := 0; j < n; j++ {
		t := v[j]
		for i := 0; i < m; i++ {
			w[i] = cadd(w[i], cmul(t, c[i+j*ld]))
		}
	}
	ntau := cx[F]{-tau.r, -tau.i}
	for j := 0; j < n; j++ {
		t := cmul(ntau, cconj(v[j]))
		for i := 0; i < m; i++ {
			c[i+j*ld] = cadd(c[i+j*ld], cmul(w[i], t))
		}
	}
}

// hessenbergQ reduces the n×n column-major a to upper Hessenberg form
// H = Qᴴ·a·Q (xGEHD2) and writes Q to z (xUNGHR through xUNG2R). Entries
// below the subdiagonal of a are zeroed.
func hessenbergQ[F floatT](n int, a, z []cx[F]) {
	tau := kernel.Make[cx[F]](max(n-1, 1))
	w := kernel.Make[cx[F]](n)
	v := kernel.Make[cx[F]](n)
	for i := 0; i < n-1; i++ {
		col := a[i*n:]
		alpha := col[i+1]
		tau[i] = clarfg(&alpha, col[i+2:n])
		col[i+1] = cx[F]{1, 0}
		copy(v, col[i+1:n])
		clarfRight(n, n-i-1, v, tau[i], a[(i+1)*n:], n, w)
		clarfLeft(n-i-1, n-i-1, v, cconj(tau[i]), a[i+1+(i+1)*n:], n, w)
		col[i+1] = alpha
	}
	// Q = diag(1, Q') with Q' built from the reflectors shifted one column
	// right, as xUNGHR arranges them.
	clear(z)
	z[0] = cx[F]{1, 0}
	m := n - 1
	for j := 0; j < m; j++ {
		for i := j + 1; i < m; i++ {
			z[1+i+(1+j)*n] = a[1+i+j*n]
		}
	}
	if n == 1 {
		return
	}
	q := z[1+n:]
	for i := m - 1; i >= 0; i-- {
		if i < m-1 {
			q[i+i*n] = cx[F]{1, 0}
			copy(v, q[i+i*n:i+i*n+m-i])
			clarfLeft(m-i, m-i-1, v, tau[i], q[i+(i+1)*n:], n, w)
		}
		nt := cx[F]{-tau[i].r, -tau[i].i}
		for l := i + 1; l < m; l++ {
			q[l+i*n] = cmul(nt, q[l+i*n])
		}
		q[i+i*n] = csub(cx[F]{1, 0}, tau[i])
		for l := 0; l < i; l++ {
			q[l+i*n] = cx[F]{}
		}
	}
	for j := 0; j < n; j++ {
		for i := j + 2; i < n; i++ {
			a[i+j*n] = cx[F]{}
		}
	}
}

// lanv2 is xLANV2: the Schur factorization of the real 2×2 matrix
// [a b; c d] = [cs -sn; sn cs]·[aa bb; cc dd]·[cs sn; -sn cs], where either
// cc = 0 (real eigenvalues aa, dd) or aa = dd and bb·cc < 0 (complex pair
// aa ± sqrt(bb·cc)).
func lanv2[F floatT](a, b, c, d F) (aa, bb, cc, dd, rt1r, rt1i, rt2r, rt2i, cs, sn F) {
	const multpl = 4
	eps, safmin := lamch[F]()
	safmn2 := F(math.Ldexp(1, int(math.Log2(float64(safmin/eps))/2)))
	safmx2 := 1 / safmn2
	switch {
	case c == 0:
		cs, sn = 1, 0
	case b == 0:
		// Swap rows and columns.
		cs, sn = 0, 1
		a, d = d, a
		b, c = -c, 0
	case a-d == 0 && math.Signbit(float64(b)) != math.Signbit(float64(c)):
		cs, sn = 1, 0
	default:
		temp := a - d
		p := temp / 2
		bcmax := max(absF(b), absF(c))
		bcmis := min(absF(b), absF(c)) * signF(1, b) * signF(1, c)
		scale := max(absF(p), bcmax)
		z := (p/scale)*p + (bcmax/scale)*bcmis
		if z >= multpl*eps {
			// Real eigenvalues.
			z = p + signF(sqrtF(scale)*sqrtF(z), p)
			a = d + z
			d -= (bcmax / z) * bcmis
			tau := lapy2F(c, z)
			cs = z / tau
			sn = c / tau
			b -= c
			c = 0
		} else {
			// Complex or nearly equal real eigenvalues: equalize the diagonal.
			sigma := b + c
			for count := 0; count < 20; count++ {
				scale = max(absF(temp), absF(sigma))
				if scale >= safmx2 {
					sigma *= safmn2
					temp *= safmn2
					continue
				}
				if scale <= safmn2 {
					sigma *= safmx2
					temp *= safmx2
					continue
				}
				break
			}
			p = temp / 2
			tau := lapy2F(sigma, temp)
			cs = sqrtF((1 + absF(sigma)/tau) / 2)
			sn = -(p / (tau * cs)) * signF(1, sigma)
			a1 := F(a*cs) + F(b*sn)
			b1 := F(-a*sn) + F(b*cs)
			c1 := F(c*cs) + F(d*sn)
			d1 := F(-c*sn) + F(d*cs)
			a = F(a1*cs) + F(c1*sn)
			b = F(b1*cs) + F(d1*sn)
			c = F(-a1*sn) + F(c1*cs)
			d = F(-b1*sn) + F(d1*cs)
			temp = (a + d) / 2
			a, d = temp, temp
			if c != 0 {
				if b != 0 {
					if math.Signbit(float64(b)) == math.Signbit(float64(c)) {
						// Real eigenvalues after all: triangularize.
						sab, sac := sqrtF(absF(b)), sqrtF(absF(c))
						p = signF(sab*sac, c)
						tau = 1 / sqrtF(absF(b+c))
						a = temp + p
						d = temp - p
						b -= c
						c = 0
						cs1, sn1 := sab*tau, sac*tau
						temp = F(cs*cs1) - F(sn*sn1)
						sn = F(cs*sn1) + F(sn*cs1)
						cs = temp
					}
				} else {
					b, c = -c, 0
					cs, sn = -sn, cs
				}
			}
		}
	}
	rt1r, rt2r = a, d
	if c != 0 {
		rt1i = sqrtF(absF(b)) * sqrtF(absF(c))
		rt2i = -rt1i
	}
	return a, b, c, d, rt1r, rt1i, rt2r, rt2i, cs, sn
}

// rotF applies the plane rotation x ← c·x + s·y, y ← c·y − s·x.
func rotF[F floatT](n int, x []F, incx int, y []F, incy int, c, s F) {
	for i := 0; i < n; i++ {
		xi, yi := x[i*incx], y[i*incy]
		x[i*incx] = F(c*xi) + F(s*yi)
		y[i*incy] = F(c*yi) - F(s*xi)
	}
}

// Exceptional shifts: every kexsh iterations without a deflation, and
// their constants, as xLAHQR defines them.
const (
	kexsh     = 10
	exshDat1  = 0.75
	exshDat2  = -0.4375
	lahqrIter = 30
)

// realLahqr is DLAHQR/SLAHQR with wantt and wantz over the whole n×n
// column-major upper Hessenberg h, accumulating into z. It returns 0 or
// the (1-based) index of the eigenvalue that failed to converge.
func realLahqr[F floatT](n int, h, z []F) int {
	if n == 0 {
		return 0
	}
	at := func(i, j int) *F { return &h[i+j*n] }
	if n == 1 {
		return 0
	}
	for j := 0; j < n-3; j++ {
		*at(j+2, j) = 0
		*at(j+3, j) = 0
	}
	if n >= 3 {
		*at(n-1, n-3) = 0
	}
	ulp, safmin := lamch[F]()
	smlnum := safmin * (F(n) / ulp)
	i1, i2 := 0, n-1
	itmax := lahqrIter * max(10, n)
	kdefl := 0
	var v [3]F
	i := n - 1
	for i >= 0 {
		l := 0
		converged := false
		for its := 0; its <= itmax; its++ {
			// A single negligible subdiagonal entry.
			k := i
			for ; k > l; k-- {
				hk := absF(*at(k, k-1))
				if hk <= smlnum {
					break
				}
				tst := absF(*at(k-1, k-1)) + absF(*at(k, k))
				if tst == 0 {
					if k-2 >= 0 {
						tst += absF(*at(k-1, k-2))
					}
					if k+1 <= n-1 {
						tst += absF(*at(k+1, k))
					}
				}
				// Ahues & Tisseur's conservative small-subdiagonal test.
				if hk <= ulp*tst {
					ab := max(hk, absF(*at(k-1, k)))
					ba := min(hk, absF(*at(k-1, k)))
					aa := max(absF(*at(k, k)), absF(*at(k-1, k-1)-*at(k, k)))
					bb := min(absF(*at(k, k)), absF(*at(k-1, k-1)-*at(k, k)))
					s := aa + ab
					if ba*(ab/s) <= max(smlnum, ulp*(bb*(aa/s))) {
						break
					}
				}
			}
			l = k
			if l > 0 {
				*at(l, l-1) = 0
			}
			if l >= i-1 {
				converged = true
				break
			}
			kdefl++
			var h11, h12, h21, h22 F
			switch {
			case kdefl%(2*kexsh) == 0:
				s := absF(*at(i, i-1)) + absF(*at(i-1, i-2))
				h11 = exshDat1*s + *at(i, i)
				h12, h21, h22 = exshDat2*s, s, h11
			case kdefl%kexsh == 0:
				s := absF(*at(l+1, l)) + absF(*at(l+2, l+1))
				h11 = exshDat1*s + *at(l, l)
				h12, h21, h22 = exshDat2*s, s, h11
			default:
				h11, h21, h12, h22 = *at(i-1, i-1), *at(i, i-1), *at(i-1, i), *at(i, i)
			}
			var rt1r, rt1i, rt2r, rt2i F
			if s := absF(h11) + absF(h12) + absF(h21) + absF(h22); s != 0 {
				h11 /= s
				h21 /= s
				h12 /= s
				h22 /= s
				tr := (h11 + h22) / 2
				det := F((h11-tr)*(h22-tr)) - F(h12*h21)
				rtdisc := sqrtF(absF(det))
				if det >= 0 {
					rt1r = tr * s
					rt2r = rt1r
					rt1i = rtdisc * s
					rt2i = -rt1i
				} else {
					// Two real shifts: use the one nearer h22 twice.
					rt1r, rt2r = tr+rtdisc, tr-rtdisc
					if absF(rt1r-h22) <= absF(rt2r-h22) {
						rt1r *= s
						rt2r = rt1r
					} else {
						rt2r *= s
						rt1r = rt2r
					}
				}
			}
			// Two consecutive small subdiagonal entries.
			m := i - 2
			for ; m >= l; m-- {
				h21s := *at(m+1, m)
				s := absF(*at(m, m)-rt2r) + absF(rt2i) + absF(h21s)
				h21s = *at(m+1, m) / s
				v[0] = F(h21s**at(m, m+1)) + F((*at(m, m)-rt1r)*((*at(m, m)-rt2r)/s)) - F(rt1i*(rt2i/s))
				v[1] = h21s * (*at(m, m) + *at(m+1, m+1) - rt1r - rt2r)
				v[2] = h21s * *at(m+2, m+1)
				s = absF(v[0]) + absF(v[1]) + absF(v[2])
				v[0] /= s
				v[1] /= s
				v[2] /= s
				if m == l {
					break
				}
				h00 := absF(*at(m, m-1)) * (absF(v[1]) + absF(v[2]))
				h01 := ulp * absF(v[0]) * (absF(*at(m-1, m-1)) + absF(*at(m, m)) + absF(*at(m+1, m+1)))
				if h00 <= h01 {
					break
				}
			}
			// Double-shift QR sweep.
			for k := m; k <= i-1; k++ {
				nr := min(3, i-k+1)
				if k > m {
					for r := 0; r < nr; r++ {
						v[r] = *at(k+r, k-1)
					}
				}
				t1 := realLarfg(nr, &v[0], v[1:nr])
				if k > m {
					*at(k, k-1) = v[0]
					*at(k+1, k-1) = 0
					if k < i-1 {
						*at(k+2, k-1) = 0
					}
				} else if m > l {
					// Not −h(k,k−1): that misbehaves when v(2), v(3) underflow.
					*at(k, k-1) *= 1 - t1
				}
				v2 := v[1]
				t2 := t1 * v2
				if nr == 3 {
					v3 := v[2]
					t3 := t1 * v3
					for j := k; j <= i2; j++ {
						sum := *at(k, j) + F(v2**at(k+1, j)) + F(v3**at(k+2, j))
						*at(k, j) -= sum * t1
						*at(k+1, j) -= sum * t2
						*at(k+2, j) -= sum * t3
					}
					for j := i1; j <= min(k+3, i); j++ {
						sum := *at(j, k) + F(v2**at(j, k+1)) + F(v3**at(j, k+2))
						*at(j, k) -= sum * t1
						*at(j, k+1) -= sum * t2
						*at(j, k+2) -= sum * t3
					}
					for j := 0; j < n; j++ {
						zc := z[k*n:]
						sum := zc[j] + F(v2*zc[j+n]) + F(v3*zc[j+2*n])
						zc[j] -= sum * t1
						zc[j+n] -= sum * t2
						zc[j+2*n] -= sum * t3
					}
				} else if nr == 2 {
					for j := k; j <= i2; j++ {
						sum := *at(k, j) + F(v2**at(k+1, j))
						*at(k, j) -= sum * t1
						*at(k+1, j) -= sum * t2
					}
					for j := i1; j <= i; j++ {
						sum := *at(j, k) + F(v2**at(j, k+1))
						*at(j, k) -= sum * t1
						*at(j, k+1) -= sum * t2
					}
					for j := 0; j < n; j++ {
						zc := z[k*n:]
						sum := zc[j] + F(v2*zc[j+n])
						zc[j] -= sum * t1
						zc[j+n] -= sum * t2
					}
				}
			}
		}
		if !converged {
			return i + 1
		}
		if l == i-1 {
			// A 2×2 block: standardize it and rotate the rest of H and Z.
			var cs, sn F
			p, q, r, s := at(i-1, i-1), at(i-1, i), at(i, i-1), at(i, i)
			*p, *q, *r, *s, _, _, _, _, cs, sn = lanv2(*p, *q, *r, *s)
			if i2 > i {
				rotF(i2-i, h[i-1+(i+1)*n:], n, h[i+(i+1)*n:], n, cs, sn)
			}
			rotF(i-i1-1, h[i1+(i-1)*n:], 1, h[i1+i*n:], 1, cs, sn)
			rotF(n, z[(i-1)*n:], 1, z[i*n:], 1, cs, sn)
		}
		kdefl = 0
		i = l - 1
	}
	return 0
}

// realLarfg is xLARFG for the short real vectors of the QR sweep.
func realLarfg[F floatT](n int, alpha *F, x []F) F {
	var buf [2]cx[F]
	cxs := buf[:len(x)]
	for i, e := range x {
		cxs[i] = cx[F]{e, 0}
	}
	a := cx[F]{*alpha, 0}
	tau := clarfg(&a, cxs)
	*alpha = a.r
	for i := range x {
		x[i] = cxs[i].r
	}
	return tau.r
}

// complexLahqr is ZLAHQR/CLAHQR with wantt and wantz over the whole n×n
// column-major upper Hessenberg h, accumulating into z. It returns 0 or the
// (1-based) index of the eigenvalue that failed to converge.
func complexLahqr[F floatT](n int, h, z []cx[F]) int {
	if n <= 1 {
		return 0
	}
	at := func(i, j int) *cx[F] { return &h[i+j*n] }
	for j := 0; j < n-3; j++ {
		*at(j+2, j) = cx[F]{}
		*at(j+3, j) = cx[F]{}
	}
	if n >= 3 {
		*at(n-1, n-3) = cx[F]{}
	}
	scaleRow := func(i, from, to int, s cx[F]) { // h(i, from:to) *= s
		for j := from; j <= to; j++ {
			*at(i, j) = cmul(s, *at(i, j))
		}
	}
	scaleCol := func(m []cx[F], j, from, to int, s cx[F]) { // m(from:to, j) *= s
		for r := from; r <= to; r++ {
			m[r+j*n] = cmul(s, m[r+j*n])
		}
	}
	// Make the subdiagonal real.
	for i := 1; i < n; i++ {
		if e := *at(i, i-1); e.i != 0 {
			sc := cscal(1/cabs1F(e), e)
			sc = cscal(1/cabsF(sc), cconj(sc))
			*at(i, i-1) = cx[F]{cabsF(e), 0}
			scaleRow(i, i, n-1, sc)
			scaleCol(h, i, 0, min(n-1, i+1), cconj(sc))
			scaleCol(z, i, 0, n-1, cconj(sc))
		}
	}
	ulp, safmin := lamch[F]()
	smlnum := safmin * (F(n) / ulp)
	i1, i2 := 0, n-1
	itmax := lahqrIter * max(10, n)
	kdefl := 0
	i := n - 1
	for i >= 0 {
		l := 0
		converged := false
		for its := 0; its <= itmax; its++ {
			k := i
			for ; k > l; k-- {
				if cabs1F(*at(k, k-1)) <= smlnum {
					break
				}
				tst := cabs1F(*at(k-1, k-1)) + cabs1F(*at(k, k))
				if tst == 0 {
					if k-2 >= 0 {
						tst += absF(at(k-1, k-2).r)
					}
					if k+1 <= n-1 {
						tst += absF(at(k+1, k).r)
					}
				}
				if absF(at(k, k-1).r) <= ulp*tst {
					hk, hu := cabs1F(*at(k, k-1)), cabs1F(*at(k-1, k))
					ab, ba := max(hk, hu), min(hk, hu)
					d1, d2 := cabs1F(*at(k, k)), cabs1F(csub(*at(k-1, k-1), *at(k, k)))
					aa, bb := max(d1, d2), min(d1, d2)
					s := aa + ab
					if ba*(ab/s) <= max(smlnum, ulp*(bb*(aa/s))) {
						break
					}
				}
			}
			l = k
			if l > 0 {
				*at(l, l-1) = cx[F]{}
			}
			if l >= i {
				converged = true
				break
			}
			kdefl++
			var t cx[F]
			switch {
			case kdefl%(2*kexsh) == 0:
				s := exshDat1 * absF(at(i, i-1).r)
				t = cadd(cx[F]{s, 0}, *at(i, i))
			case kdefl%kexsh == 0:
				s := exshDat1 * absF(at(l+1, l).r)
				t = cadd(cx[F]{s, 0}, *at(l, l))
			default:
				// Wilkinson's shift.
				t = *at(i, i)
				u := cmul(csqrtF(*at(i-1, i)), csqrtF(*at(i, i-1)))
				if s := cabs1F(u); s != 0 {
					x := cscal(0.5, csub(*at(i-1, i-1), t))
					sx := cabs1F(x)
					s = max(s, sx)
					xs, us := cdivReal(x, s), cdivReal(u, s)
					y := cscal(s, csqrtF(cadd(cmul(xs, xs), cmul(us, us))))
					if sx > 0 {
						xx := cdivReal(x, sx)
						if F(xx.r*y.r)+F(xx.i*y.i) < 0 {
							y = cx[F]{-y.r, -y.i}
						}
					}
					t = csub(t, cmul(u, cdiv(u, cadd(x, y))))
				}
			}
			// Two consecutive small subdiagonal entries.
			var v [2]cx[F]
			m := i - 1
			for ; ; m-- {
				h11, h22 := *at(m, m), *at(m+1, m+1)
				h11s := csub(h11, t)
				h21 := at(m+1, m).r
				s := cabs1F(h11s) + absF(h21)
				h11s = cdivReal(h11s, s)
				h21 /= s
				v[0], v[1] = h11s, cx[F]{h21, 0}
				if m == l {
					break
				}
				h10 := at(m, m-1).r
				if absF(h10)*absF(h21) <= ulp*(cabs1F(h11s)*(cabs1F(h11)+cabs1F(h22))) {
					break
				}
			}
			// Single-shift QR sweep.
			for k := m; k <= i-1; k++ {
				if k > m {
					v[0], v[1] = *at(k, k-1), *at(k+1, k-1)
				}
				t1 := clarfg(&v[0], v[1:2])
				if k > m {
					*at(k, k-1) = v[0]
					*at(k+1, k-1) = cx[F]{}
				}
				v2 := v[1]
				t2 := cmul(t1, v2).r
				ct1 := cconj(t1)
				for j := k; j <= i2; j++ {
					sum := cadd(cmul(ct1, *at(k, j)), cscal(t2, *at(k+1, j)))
					*at(k, j) = csub(*at(k, j), sum)
					*at(k+1, j) = csub(*at(k+1, j), cmul(sum, v2))
				}
				cv2 := cconj(v2)
				for j := i1; j <= min(k+2, i); j++ {
					sum := cadd(cmul(t1, *at(j, k)), cscal(t2, *at(j, k+1)))
					*at(j, k) = csub(*at(j, k), sum)
					*at(j, k+1) = csub(*at(j, k+1), cmul(sum, cv2))
				}
				for j := 0; j < n; j++ {
					zk, zk1 := &z[j+k*n], &z[j+(k+1)*n]
					sum := cadd(cmul(t1, *zk), cscal(t2, *zk1))
					*zk = csub(*zk, sum)
					*zk1 = csub(*zk1, cmul(sum, cv2))
				}
				if k == m && m > l {
					// The sweep started below l: rescale so that h(m, m−1)
					// stays real.
					temp := csub(cx[F]{1, 0}, t1)
					temp = cdivReal(temp, cabsF(temp))
					*at(m+1, m) = cmul(*at(m+1, m), cconj(temp))
					if m+2 <= i {
						*at(m+2, m+1) = cmul(*at(m+2, m+1), temp)
					}
					for j := m; j <= i; j++ {
						if j != m+1 {
							if i2 > j {
								scaleRow(j, j+1, i2, temp)
							}
							scaleCol(h, j, i1, j-1, cconj(temp))
							scaleCol(z, j, 0, n-1, cconj(temp))
						}
					}
				}
			}
			// Make h(i, i−1) real.
			if temp := *at(i, i-1); temp.i != 0 {
				rtemp := cabsF(temp)
				*at(i, i-1) = cx[F]{rtemp, 0}
				temp = cdivReal(temp, rtemp)
				if i2 > i {
					scaleRow(i, i+1, i2, cconj(temp))
				}
				scaleCol(h, i, i1, i-1, temp)
				scaleCol(z, i, 0, n-1, temp)
			}
		}
		if !converged {
			return i + 1
		}
		kdefl = 0
		i = l - 1
	}
	return 0
}

// cdivReal divides by a real number as Fortran's complex/real does.
func cdivReal[F floatT](a cx[F], s F) cx[F] { return cx[F]{a.r / s, a.i / s} }

// csqrtF is the principal square root computed as the C library's csqrt
// computes it (Fortran's SQRT of a complex number calls it) for finite
// arguments of moderate size.
func csqrtF[F floatT](a cx[F]) cx[F] {
	re, im := a.r, a.i
	switch {
	case im == 0:
		if re < 0 {
			return cx[F]{0, signF(sqrtF(-re), im)}
		}
		return cx[F]{absF(sqrtF(re)), signF(0, im)}
	case re == 0:
		r := sqrtF(absF(im) / 2)
		return cx[F]{r, signF(r, im)}
	}
	d := cabsF(a)
	var r, s F
	if re > 0 {
		r = sqrtF((d + re) / 2)
		s = (im / r) / 2
	} else {
		s = sqrtF((d - re) / 2)
		r = absF((im / s) / 2)
	}
	return cx[F]{r, signF(s, im)}
}

// geesSmall computes the Schur form of the n×n row-major matrix in a
// (overwritten with T; real data when !cplx) and its Schur vectors z, in
// precision F, with wr/wi (real data) or wr alone (complex data) set to
// the eigenvalues. It returns xLAHQR's info.
func geesSmall[F floatT](n int, cplx bool, a, z []complex128, w []complex128) int {
	if n == 0 {
		return 0
	}
	h := kernel.Make[cx[F]](n * n)
	q := kernel.Make[cx[F]](n * n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			h[i+j*n] = fromC128F[F](a[i*n+j])
		}
	}
	hessenbergQ(n, h, q)
	var info int
	if cplx {
		info = complexLahqr(n, h, q)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				a[i*n+j] = toC128F(h[i+j*n])
				z[i*n+j] = toC128F(q[i+j*n])
			}
			w[i] = a[i*n+i]
		}
		return info
	}
	hr, qr := kernel.Make[F](n*n), kernel.Make[F](n*n)
	for k := range h {
		hr[k], qr[k] = h[k].r, q[k].r
	}
	info = realLahqr(n, hr, qr)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			a[i*n+j] = complex(float64(hr[i+j*n]), 0)
			z[i*n+j] = complex(float64(qr[i+j*n]), 0)
		}
	}
	// Eigenvalues as xLAHQR reports them: a standardized 2×2 block has
	// equal diagonal entries and imaginary parts ±sqrt|b|·sqrt|c|.
	for i := 0; i < n; i++ {
		w[i] = complex(real(a[i*n+i]), 0)
		if i+1 < n && hr[i+1+i*n] != 0 {
			b, c := hr[i+(i+1)*n], hr[i+1+i*n]
			im := float64(sqrtF(absF(b)) * sqrtF(absF(c)))
			w[i] = complex(real(a[i*n+i]), im)
			w[i+1] = complex(real(a[(i+1)*n+i+1]), -im)
			i++
		}
	}
	return info
}
