package linalg

import (
	"math"

	"gonum.org/v1/gonum/lapack/gonum"
)

// The bidiagonal SVD by implicit QR. Every sweep's plane rotations are
// buffered and applied, like the tridiagonal QL's (tridiag.go), to the rows
// of the two vector matrices in column strips, the strips split over the
// workers; applying them one rotation at a time across a whole column of a
// row-major matrix (LAPACK's dlasr on U) was most of the SVD's time.

// lartg returns c, s, r with c·f + s·g = r and −s·f + c·g = 0 (f and g of
// moderate size: the callers scale B to about 1).
func lartg(f, g float64) (c, s, r float64) {
	if g == 0 {
		return 1, 0, f
	}
	if f == 0 {
		return 0, 1, g
	}
	r = hypot(f, g)
	return f / r, g / r, r
}

// bdsvdRot computes the singular values of the n×n upper bidiagonal B
// (diagonal d, superdiagonal e[:n-1]) by Golub–Kahan QR steps, shifted by
// the smaller singular value of the trailing 2×2 block, or unshifted (the
// zero-shift sweep of Demmel and Kahan) where that shift is negligible
// against the block's top or a diagonal entry is zero. Deflation sets e[i]
// to zero when it is below eps·(|d[i]| + |d[i+1]|) or eps·‖B‖, a backward
// error of eps·‖B‖ at most. Each left rotation G (B ← G·B) is applied to
// rows i, i+1 of ut (row r at ut[r*ldu:][:wu]) and each right one (B ← B·Gᵀ)
// to those of vt, so that with ut = Qᵀ and vt = Pᵀ on entry (A = Q·B·Pᵀ)
// they hold Uᵀ and Vᵀ of A on return (rows beyond n of ut are left alone).
// d is returned non-negative and descending, rows of ut and vt permuted and
// signed with it. It reports false when the sweeps did not converge.
func bdsvdRot[R float32 | float64](par parallelFn, n int, d, e []float64, ut []R, ldu, wu int, vt []R, ldv, wv int) bool {
	if n == 0 {
		return true
	}
	var impl gonum.Implementation
	ok := true
	big := 0.0
	for i := 0; i < n; i++ {
		big = max(big, math.Abs(d[i]))
		if i < n-1 {
			big = max(big, math.Abs(e[i]))
		}
	}
	if math.IsNaN(big) || math.IsInf(big, 0) {
		return false
	}
	scale := 1.0
	if big > 0 {
		// A power of two (exact, undone at the end) brings ‖B‖ to about 1,
		// so that no square below over- or underflows.
		_, ex := math.Frexp(big)
		scale = math.Ldexp(1, -ex)
		for i := 0; i < n; i++ {
			d[i] *= scale
			if i < n-1 {
				e[i] *= scale
			}
		}
	}
	const eps = dlamchE
	thresh := eps * big * scale
	// About two sweeps per singular value: small matrices (batches of
	// them) need far fewer than rotBatch slots.
	nb := min(rotBatch, max(64, n*n))
	rotsU := make([]planeRot, 0, nb)
	rotsV := make([]planeRot, 0, nb)
	flush := func() {
		if wu+wv <= 512 {
			// Narrow rows: one worker per matrix rather than column
			// chunks of one matrix at a time.
			par(2, 1, func(lo, hi int) {
				for t := lo; t < hi; t++ {
					if t == 0 {
						applyRots(serial, rotsU, ut, ldu, wu)
					} else {
						applyRots(serial, rotsV, vt, ldv, wv)
					}
				}
			})
		} else {
			applyRots(par, rotsU, ut, ldu, wu)
			applyRots(par, rotsV, vt, ldv, wv)
		}
		rotsU, rotsV = rotsU[:0], rotsV[:0]
	}
	push := func(i int, cl, sl, cr, sr float64) {
		// Left (cl, sl): rows (x, y) of Uᵀ → (cl·x + sl·y, −sl·x + cl·y);
		// right (cr, sr) likewise on Vᵀ. applyRots's convention has s negated.
		rotsU = append(rotsU, planeRot{i, cl, -sl})
		rotsV = append(rotsV, planeRot{i, cr, -sr})
		if len(rotsU) == cap(rotsU) {
			flush()
		}
	}
	negligible := func(i int) bool {
		a := math.Abs(e[i])
		return a <= thresh || a <= eps*(math.Abs(d[i])+math.Abs(d[i+1]))
	}
	maxit := 6 * n * n
	it := 0
	hi := n - 1
	for hi > 0 && big > 0 {
		if negligible(hi - 1) {
			e[hi-1] = 0
			hi--
			continue
		}
		if it > maxit {
			ok = false
			break
		}
		lo := hi - 1
		for lo > 0 && !negligible(lo-1) {
			lo--
		}
		if lo > 0 {
			e[lo-1] = 0
		}
		if hi == lo+1 {
			smin, smax, snr, csr, snl, csl := impl.Dlasv2(d[lo], e[lo], d[hi])
			d[lo], e[lo], d[hi] = smax, 0, smin
			push(lo, csl, snl, csr, snr)
			hi--
			continue
		}
		shift := 0.0
		zero := false
		for i := lo; i <= hi; i++ {
			zero = zero || d[i] == 0
		}
		if !zero {
			shift, _ = impl.Dlas2(d[hi-1], e[hi-1], d[hi])
			if sll := math.Abs(d[lo]); (shift/sll)*(shift/sll) < eps {
				shift = 0
			}
		}
		it += hi - lo
		if shift == 0 {
			// Zero shift: exact in relative terms, and it drives the
			// subdiagonal next to a zero diagonal entry to zero.
			cs, oldcs, oldsn := 1.0, 1.0, 0.0
			for i := lo; i < hi; i++ {
				var sn, r float64
				cs, sn, r = lartg(d[i]*cs, e[i])
				if i > lo {
					e[i-1] = oldsn * r
				}
				oldcs, oldsn, d[i] = lartg(oldcs*r, d[i+1]*sn)
				push(i, oldcs, oldsn, cs, sn)
			}
			h := d[hi] * cs
			d[hi] = h * oldcs
			e[hi-1] = h * oldsn
			continue
		}
		// Shifted step: the first right rotation from the first column of
		// BᵀB − shift², then the bulge chased down.
		f := (math.Abs(d[lo]) - shift) * (math.Copysign(1, d[lo]) + shift/d[lo])
		g := e[lo]
		for i := lo; i < hi; i++ {
			cosr, sinr, r := lartg(f, g)
			if i > lo {
				e[i-1] = r
			}
			f = cosr*d[i] + sinr*e[i]
			e[i] = cosr*e[i] - sinr*d[i]
			g = sinr * d[i+1]
			d[i+1] *= cosr
			cosl, sinl, r := lartg(f, g)
			d[i] = r
			f = cosl*e[i] + sinl*d[i+1]
			d[i+1] = cosl*d[i+1] - sinl*e[i]
			if i < hi-1 {
				g = sinl * e[i+1]
				e[i+1] *= cosl
			}
			push(i, cosl, sinl, cosr, sinr)
		}
		e[hi-1] = f
	}
	flush()
	for i := 0; i < n; i++ {
		d[i] /= scale
		if d[i] < 0 {
			d[i] = -d[i]
			row := vt[i*ldv : i*ldv+wv]
			for j := range row {
				row[j] = -row[j]
			}
		}
	}
	// Descending order by selection: at most n−1 row swaps.
	for i := 0; i < n-1; i++ {
		p := i
		for j := i + 1; j < n; j++ {
			if d[j] > d[p] {
				p = j
			}
		}
		if p != i {
			d[i], d[p] = d[p], d[i]
			swapRowsR(ut, ldu, wu, i, p)
			swapRowsR(vt, ldv, wv, i, p)
		}
	}
	return ok
}

func swapRowsR[R float32 | float64](a []R, ld, w, i, j int) {
	x, y := a[i*ld:i*ld+w], a[j*ld:j*ld+w]
	for k := range x {
		x[k], y[k] = y[k], x[k]
	}
}
