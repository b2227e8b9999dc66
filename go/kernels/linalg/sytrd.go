package linalg

// Blocked reduction of a real symmetric matrix to tridiagonal form (the
// lower-triangle variant of LAPACK's dsytrd with dlatrd panels) and the
// explicit Qᵀ, both with their O(n³) updates on the packed GEMM. The
// matrix is held with both triangles (row-major), so that a column below
// the diagonal is also a contiguous row and the symmetric matrix-vector
// products of the panels are plain row dot products.

const sytrdNB = 32

// symmetrize fills the triangle of the n×n a that was not given.
func symmetrize(a []float64, n int, lower bool) {
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			if lower {
				a[j*n+i] = a[i*n+j]
			} else {
				a[i*n+j] = a[j*n+i]
			}
		}
	}
}

// gemvPar sets y[r] = a[r*lda:][:len(v)]·v, rows split over the workers
// when there are many.
func gemvPar(par parallelFn, a []float64, lda int, v, y []float64) {
	m := len(y)
	if m*len(v) < 1<<16 {
		gemvRows(a, lda, v, y)
		return
	}
	const rb = 64
	par(ceilDiv(m, rb), 1, func(lo, hi int) {
		r0, r1 := lo*rb, min(m, hi*rb)
		gemvRows(a[r0*lda:], lda, v, y[r0:r1])
	})
}

// sytrdFull reduces the symmetric n×n matrix a (both triangles stored) to
// the tridiagonal T = Qᵀ·A·Q with diagonal d (n) and off-diagonal e (n-1),
// Q = H(0)···H(n-2), H(i) = I − tau[i]·v·vᵀ, v[i+1] = 1 and v[i+2:] stored
// in a[i*n+i+2:] (row i; the rest of a is left unspecified).
func sytrdFull(par parallelFn, n int, a []float64, d, e, tau []float64) {
	nb := sytrdNB
	vb, wb := f64scratch(nb*n), f64scratch(nb*n)
	defer vb.release()
	defer wb.release()
	vt, wt := vb.s, wb.s // row p: the panel's p-th reflector v and its w
	var coef [2 * sytrdNB]float64
	for i0 := 0; i0 < n; i0 += nb {
		jb := min(nb, n-i0)
		clear(vt[:jb*n])
		clear(wt[:jb*n])
		for j := 0; j < jb; j++ {
			i := i0 + j
			row := a[i*n : (i+1)*n]
			// The panel's pending updates of row i (columns i..n-1).
			for p := 0; p < j; p++ {
				vp, wp := vt[p*n:(p+1)*n], wt[p*n:(p+1)*n]
				f, g := vp[i], wp[i]
				for c := i; c < n; c++ {
					row[c] -= f*wp[c] + g*vp[c]
				}
			}
			d[i] = row[i]
			if i == n-1 {
				break
			}
			x := row[i+1:]
			t := larfg(n-i-1, &x[0], x[1:], 1)
			e[i], tau[i] = x[0], t
			v := vt[j*n : (j+1)*n]
			v[i+1] = 1
			copy(v[i+2:], x[1:])
			if t == 0 {
				continue
			}
			vs := v[i+1:]
			// w = t·(A − V·Wᵀ − W·Vᵀ)·v over rows and columns i+1..n-1.
			ys := wt[j*n+i+1 : (j+1)*n]
			gemvPar(par, a[(i+1)*n+i+1:], n, vs, ys)
			if j > 0 {
				cw, cv := coef[:j], coef[sytrdNB:sytrdNB+j]
				gemvRows(wt[i+1:], n, vs, cw)
				gemvRows(vt[i+1:], n, vs, cv)
				for p := 0; p < j; p++ {
					vp, wp := vt[p*n+i+1:(p+1)*n], wt[p*n+i+1:(p+1)*n]
					for r := range ys {
						ys[r] -= vp[r]*cw[p] + wp[r]*cv[p]
					}
				}
			}
			for r := range ys {
				ys[r] *= t
			}
			alpha := -0.5 * t * dotGo(ys, vs)
			for r := range ys {
				ys[r] += alpha * vs[r]
			}
		}
		// Trailing block: A22 -= V·Wᵀ + W·Vᵀ.
		if r0 := i0 + jb; r0 < n {
			m2 := n - r0
			gemmUpd(par, m2, m2, jb, true, vt[r0:], 1, n, false, wt[r0:], n, 1, false, a[r0*n+r0:], n, false)
			gemmUpd(par, m2, m2, jb, true, wt[r0:], 1, n, false, vt[r0:], n, 1, false, a[r0*n+r0:], n, false)
		}
	}
}

// formQT writes Qᵀ = H(n-2)···H(0) (n×n) into x from the reflectors
// sytrdFull left in a and tau: blocks of sytrdNB reflectors in compact WY
// form, H(i0)···H(i0+jb-1) = I − V·T·Vᵀ, applied as X := X − V·(Tᵀ·(Vᵀ·X)).
func formQT(par parallelFn, n int, a, tau, x []float64) {
	clear(x[:n*n])
	for i := 0; i < n; i++ {
		x[i*n+i] = 1
	}
	nb := sytrdNB
	buf := f64scratch(nb*n + nb*nb + 2*nb*n)
	defer buf.release()
	vt, tm, w1, w2 := buf.s[:nb*n], buf.s[nb*n:nb*n+nb*nb], buf.s[nb*n+nb*nb:2*nb*n+nb*nb], buf.s[2*nb*n+nb*nb:]
	for i0 := 0; i0 < n-1; i0 += nb {
		jb := min(nb, n-1-i0)
		clear(vt[:jb*n])
		for j := 0; j < jb; j++ {
			i := i0 + j
			v := vt[j*n : (j+1)*n]
			v[i+1] = 1
			copy(v[i+2:], a[i*n+i+2:(i+1)*n])
		}
		// T (upper triangular): T[j][j] = tau_j,
		// T[0:j, j] = −tau_j·T[0:j, 0:j]·(Vᵀ·v_j).
		clear(tm[:jb*jb])
		var u [sytrdNB]float64
		for j := 0; j < jb; j++ {
			tj := tau[i0+j]
			s0 := i0 + j + 1
			gemvRows(vt[s0:], n, vt[j*n+s0:(j+1)*n], u[:j])
			for q := 0; q < j; q++ {
				var sum float64
				for s := q; s < j; s++ {
					sum += tm[q*jb+s] * u[s]
				}
				tm[q*jb+j] = -tj * sum
			}
			tm[j*jb+j] = tj
		}
		m := n - (i0 + 1)
		xs := x[(i0+1)*n:]
		vs := vt[i0+1:]
		// W1 = Vᵀ·X (rows i0+1..), W2 = Tᵀ·W1, X -= V·W2.
		clear(w1[:jb*n])
		clear(w2[:jb*n])
		gemmUpd(par, jb, n, m, false, vs, n, 1, false, xs, n, 1, false, w1, n, false)
		gemmUpd(par, jb, n, jb, false, tm, 1, jb, false, w1, n, 1, false, w2, n, false)
		gemmUpd(par, m, n, jb, true, vs, 1, n, false, w2, n, 1, false, xs, n, false)
	}
}
