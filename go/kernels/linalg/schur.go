package linalg

import (
	"math"
	"math/cmplx"

	"github.com/gojax/gojax/go/kernels/kernel"
)

// Complex Schur decomposition A = Z·T·Zᴴ (T upper triangular) by Hessenberg
// reduction (gehd2), accumulation of Q (org2r on the shifted reflectors) and
// single-shift implicit QR sweeps with Wilkinson shifts and deflation, in
// the manner of LAPACK's zlahqr. Balancing is not performed.

// complexSchur overwrites a (n×n row-major) with T and z with Z; it returns
// false if the QR iteration did not converge.
func complexSchur(n int, a, z []complex128) bool {
	if n == 0 {
		return true
	}
	tau := kernel.Make[complex128](max(n-1, 0))
	work := kernel.Make[complex128](n)
	gehd2(n, 0, n-1, a, n, tau, work)
	// Q from the reflectors (stored one row below the diagonal).
	clear(z)
	z[0] = 1
	if n > 1 {
		m := n - 1
		sub := kernel.Make[complex128](m * m)
		for i := 0; i < m; i++ {
			for j := 0; j < m; j++ {
				sub[i*m+j] = a[(i+1)*n+j]
			}
		}
		org2r(m, m, m, sub, m, tau, work)
		for i := 0; i < m; i++ {
			copy(z[(i+1)*n+1:(i+2)*n], sub[i*m:(i+1)*m])
		}
	}
	for i := 2; i < n; i++ {
		for j := 0; j < i-1; j++ {
			a[i*n+j] = 0
		}
	}
	ok := hessenbergQR(n, a, z)
	for i := 1; i < n; i++ {
		for j := 0; j < i; j++ {
			a[i*n+j] = 0
		}
	}
	return ok
}

func cabs1(x complex128) float64 { return math.Abs(real(x)) + math.Abs(imag(x)) }

// hessenbergQR reduces the upper Hessenberg h to triangular form by unitary
// similarity, accumulating the transformations into z (z ← z·G).
func hessenbergQR(n int, h, z []complex128) bool {
	const eps = 0x1p-53
	const smlnum = 0x1p-1022 * float64(1<<53)
	at := func(i, j int) complex128 { return h[i*n+j] }
	ihi := n - 1
	iter := 0
	maxIter := 30 * max(10, n)
	for ihi >= 0 {
		// Deflate at a negligible subdiagonal entry.
		l := ihi
		for ; l > 0; l-- {
			sub := cabs1(at(l, l-1))
			if sub <= smlnum {
				break
			}
			tst := cabs1(at(l-1, l-1)) + cabs1(at(l, l))
			if tst == 0 {
				if l-2 >= 0 {
					tst += math.Abs(real(at(l-1, l-2)))
				}
				if l+1 <= ihi {
					tst += math.Abs(real(at(l+1, l)))
				}
			}
			if sub <= eps*tst {
				break
			}
		}
		if l > 0 {
			h[l*n+l-1] = 0
		}
		if l >= ihi {
			ihi--
			iter = 0
			continue
		}
		iter++
		if iter > maxIter {
			return false
		}
		// Shift.
		var mu complex128
		switch {
		case iter%10 == 0:
			mu = at(ihi, ihi) + complex(0.75*math.Abs(real(at(ihi, ihi-1))), 0)
		case iter%10 == 5:
			mu = at(l, l) + complex(0.75*math.Abs(real(at(l+1, l))), 0)
		default:
			a, b, c, d := at(ihi-1, ihi-1), at(ihi-1, ihi), at(ihi, ihi-1), at(ihi, ihi)
			p := (a - d) / 2
			disc := cmplx.Sqrt(p*p + b*c)
			if real(p)*real(disc)+imag(p)*imag(disc) < 0 {
				disc = -disc
			}
			if den := p + disc; den != 0 {
				mu = d - b*c/den
			} else {
				mu = d
			}
		}
		// Implicit single-shift QR sweep on rows/columns l..ihi.
		x, y := at(l, l)-mu, at(l+1, l)
		for k := l; k < ihi; k++ {
			if k > l {
				x, y = at(k, k-1), at(k+1, k-1)
			}
			c, s, ok := givens(x, y)
			if !ok {
				continue
			}
			// Rows k, k+1 ← G·rows (columns from k-1, or l on the first step).
			for j := max(k-1, l); j < n; j++ {
				h1, h2 := h[k*n+j], h[(k+1)*n+j]
				h[k*n+j] = complex(c, 0)*h1 + s*h2
				h[(k+1)*n+j] = -cmplx.Conj(s)*h1 + complex(c, 0)*h2
			}
			if k > l {
				h[(k+1)*n+k-1] = 0
			}
			// Columns k, k+1 ← columns·Gᴴ (rows up to k+2).
			for i := 0; i <= min(k+2, ihi); i++ {
				h1, h2 := h[i*n+k], h[i*n+k+1]
				h[i*n+k] = complex(c, 0)*h1 + cmplx.Conj(s)*h2
				h[i*n+k+1] = -s*h1 + complex(c, 0)*h2
			}
			for i := 0; i < n; i++ {
				z1, z2 := z[i*n+k], z[i*n+k+1]
				z[i*n+k] = complex(c, 0)*z1 + cmplx.Conj(s)*z2
				z[i*n+k+1] = -s*z1 + complex(c, 0)*z2
			}
		}
	}
	return true
}

// givens returns c (real) and s with [c s; -conj(s) c]·[x; y] = [r; 0].
func givens(x, y complex128) (c float64, s complex128, ok bool) {
	if y == 0 {
		return 1, 0, false
	}
	if x == 0 {
		return 0, cmplx.Conj(y) / complex(cmplx.Abs(y), 0), true
	}
	ax, ay := cmplx.Abs(x), cmplx.Abs(y)
	r := math.Hypot(ax, ay)
	c = ax / r
	s = (x / complex(ax, 0)) * cmplx.Conj(y) / complex(r, 0)
	return c, s, true
}

// triangularEigenvectors computes right (left=false) or left eigenvectors of
// the upper triangular t, back-transformed by z, normalized as zgeev does:
// unit 2-norm with the largest-magnitude component real. Result columns go
// to v (n×n row-major).
func triangularEigenvectors(n int, t, z []complex128, left bool, v []complex128) {
	const eps = 0x1p-53
	const smlnum = 0x1p-1022 * float64(1<<53)
	x := kernel.Make[complex128](n)
	col := kernel.Make[complex128](n)
	for k := 0; k < n; k++ {
		lam := t[k*n+k]
		smin := max(eps*cabs1(lam), smlnum)
		clear(x)
		x[k] = 1
		if !left {
			for i := k - 1; i >= 0; i-- {
				var s complex128
				for j := i + 1; j <= k; j++ {
					s += t[i*n+j] * x[j]
				}
				d := t[i*n+i] - lam
				if cabs1(d) < smin {
					d = complex(smin, 0)
				}
				x[i] = -s / d
			}
		} else {
			// yᴴ·T = λ·yᴴ  ⇔  Tᴴ·y = conj(λ)·y, a lower triangular solve.
			for i := k + 1; i < n; i++ {
				var s complex128
				for j := k; j < i; j++ {
					s += cmplx.Conj(t[j*n+i]) * x[j]
				}
				d := cmplx.Conj(t[i*n+i] - lam)
				if cabs1(d) < smin {
					d = complex(smin, 0)
				}
				x[i] = -s / d
			}
		}
		for i := 0; i < n; i++ {
			var s complex128
			for j := 0; j < n; j++ {
				s += z[i*n+j] * x[j]
			}
			col[i] = s
		}
		normalizeEigenvector(col)
		for i := 0; i < n; i++ {
			v[i*n+k] = col[i]
		}
	}
}

// normalizeEigenvector scales to unit norm and rotates the component of
// largest modulus onto the positive real axis.
func normalizeEigenvector(col []complex128) {
	nn := nrm2(len(col), col, 1)
	if nn == 0 {
		return
	}
	best, bi := -1.0, 0
	for i := range col {
		col[i] = complex(real(col[i])/nn, imag(col[i])/nn)
		if m := real(col[i])*real(col[i]) + imag(col[i])*imag(col[i]); m > best {
			best, bi = m, i
		}
	}
	ph := cmplx.Conj(col[bi]) / complex(math.Sqrt(best), 0)
	for i := range col {
		col[i] *= ph
	}
	col[bi] = complex(real(col[bi]), 0)
}
