package linalg

import (
	"math"
	"math/cmplx"
	"sort"

	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/gonum"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// gesdd: A = U·diag(s)·Vᴴ with s descending. Real matrices use gonum's
// Dgesvd (the singular values and vectors gesdd defines; only the algorithm
// differs); complex ones a one-sided Jacobi SVD. Singular vectors are unique
// up to phase, as with LAPACK. Modes: 'A' (full U, Vᴴ), 'S' (reduced), 'N'
// (values only; the vector results are zeroed).

func init() {
	registerLapack("sdcz", "gesdd", lowerGesdd)
	// gesvd (JAX's SvdAlgorithm.QR) has the same operands, results and modes.
	registerLapack("sdcz", "gesvd", lowerGesdd)
}

func lowerGesdd(ctx kernel.Context, cc *customCall) (kernel.Step, error) {
	mode, err := cc.char("mode", 'A', "ASNO")
	if err != nil {
		return nil, err
	}
	if mode == 'O' {
		return nil, cc.errorf("mode 'O' is not supported (jaxlib rejects it too)")
	}
	if len(cc.ins) != 1 || cc.ins[0].Rank() < 2 {
		return nil, cc.errorf("want one matrix operand")
	}
	r := cc.ins[0].Rank()
	m, n := int(cc.ins[0].Shape[r-2]), int(cc.ins[0].Shape[r-1])
	k := min(m, n)
	ucols, vrows := k, k
	switch mode {
	case 'A':
		ucols, vrows = m, n
	case 'N':
		// JAX sizes the unused results like full or reduced matrices,
		// depending on full_matrices; take whichever the call has.
		if len(cc.outs) == 5 && cc.outs[2].Rank() >= 2 && cc.outs[3].Rank() >= 2 {
			ucols = int(cc.outs[2].Shape[cc.outs[2].Rank()-1])
			vrows = int(cc.outs[3].Shape[cc.outs[3].Rank()-2])
		}
		if (ucols != m && ucols != k) || (vrows != n && vrows != k) {
			return nil, cc.errorf("results 2 and 3 must be %dx%d or %dx%d and %dx%d or %dx%d", m, m, m, k, n, n, k, n)
		}
	}
	batch, err := cc.expect([]spec{{cc.elem, []int{m, n}}},
		[]spec{{cc.elem, []int{m, n}}, {realOf(cc.elem), []int{k}}, {cc.elem, []int{m, ucols}}, {cc.elem, []int{vrows, n}}, {ir.S32, nil}})
	if err != nil {
		return nil, err
	}
	p := svdPlan{name: cc.target, et: cc.elem, batch: numel(batch), m: m, n: n, ucols: ucols, vrows: vrows, vectors: mode != 'N', full: mode == 'A'}
	if cc.elem.IsComplex() {
		return p.complexStep(ctx.Parallel), nil
	}
	return p.realStep(ctx.Parallel), nil
}

type svdPlan struct {
	name          string
	et            ir.ElemType
	batch, m, n   int
	ucols, vrows  int
	vectors, full bool
}

func (p svdPlan) realStep(par parallelFn) kernel.Step {
	var impl gonum.Implementation
	m, n, k := p.m, p.n, min(p.m, p.n)
	job := lapack.SVDNone
	if p.vectors {
		job = lapack.SVDStore
		if p.full {
			job = lapack.SVDAll
		}
	}
	ldu, ldvt := max(p.ucols, 1), max(n, 1)
	// The optimal workspace, which lets gonum use its blocked
	// bidiagonalization (the minimum, max(5k, 3k+max(m, n)), runs the
	// unblocked one); the query needs arrays of the real sizes.
	lwork := max(1, 5*k, 3*k+max(m, n))
	if m > 0 && n > 0 {
		q := []float64{0}
		impl.Dgesvd(job, job, m, n, kernel.Make[float64](m*n), max(n, 1), kernel.Make[float64](k),
			kernel.Make[float64](m*p.ucols), ldu, kernel.Make[float64](p.vrows*n), ldvt, q, -1)
		lwork = max(lwork, int(q[0]))
	}
	return func(ins, outs [][]byte) error {
		a := f64scratch(p.batch * m * n)
		s := f64scratch(p.batch * k)
		u := f64scratch(p.batch * m * p.ucols)
		vt := f64scratch(p.batch * p.vrows * n)
		defer releaseAll(a, s, u, vt)
		toF64(a.s, ins[0], p.et)
		clear(u.s)
		clear(vt.s)
		fromF64(outs[0], a.s, p.et) // LAPACK destroys A; JAX ignores this result
		info := make([]int32, p.batch)
		var fe firstErr
		if m > 0 && n > 0 {
			forBatch(par, p.batch, 10*m*n*k+1, func(lo, hi int) {
				work := f64scratch(lwork)
				defer work.release()
				for b := lo; b < hi; b++ {
					fe.catch(p.name, func() {
						ok := impl.Dgesvd(job, job, m, n, a.s[b*m*n:(b+1)*m*n], max(n, 1), s.s[b*k:(b+1)*k],
							u.s[b*m*p.ucols:(b+1)*m*p.ucols], ldu, vt.s[b*p.vrows*n:(b+1)*p.vrows*n], ldvt, work.s, lwork)
						if !ok {
							info[b] = 1
						}
					})
				}
			})
		}
		if fe.err != nil {
			return fe.err
		}
		fromF64(outs[1], s.s, realOf(p.et))
		fromF64(outs[2], u.s, p.et)
		fromF64(outs[3], vt.s, p.et)
		putI32s(outs[4], info)
		return nil
	}
}

func (p svdPlan) complexStep(par parallelFn) kernel.Step {
	m, n, k := p.m, p.n, min(p.m, p.n)
	return func(ins, outs [][]byte) error {
		a := c128scratch(p.batch * m * n)
		s := f64scratch(p.batch * k)
		u := c128scratch(p.batch * m * p.ucols)
		vt := c128scratch(p.batch * p.vrows * n)
		defer a.release()
		defer s.release()
		defer u.release()
		defer vt.release()
		toC128(a.s, ins[0], p.et)
		fromC128(outs[0], a.s, p.et)
		clear(u.s)
		clear(vt.s)
		info := make([]int32, p.batch)
		forBatch(par, p.batch, 30*m*n*k+1, func(lo, hi int) {
			for b := lo; b < hi; b++ {
				ok := jacobiSVD(m, n, a.s[b*m*n:(b+1)*m*n], s.s[b*k:(b+1)*k],
					u.s[b*m*p.ucols:(b+1)*m*p.ucols], p.ucols, vt.s[b*p.vrows*n:(b+1)*p.vrows*n], p.vrows, p.vectors)
				if !ok {
					info[b] = 1
				}
			}
		})
		fromF64(outs[1], s.s, realOf(p.et))
		fromC128(outs[2], u.s, p.et)
		fromC128(outs[3], vt.s, p.et)
		putI32s(outs[4], info)
		return nil
	}
}

// jacobiSVD computes the SVD of the m×n matrix a (row-major) by one-sided
// Jacobi rotations: s (min(m,n), descending), u (m×ucols) and vt
// (vrows×n), with ucols/vrows either min(m,n) or m/n (then completed to
// unitary matrices). It returns false if the sweeps did not converge.
func jacobiSVD(m, n int, a []complex128, s []float64, u []complex128, ucols int, vt []complex128, vrows int, vectors bool) bool {
	if m == 0 || n == 0 {
		return true
	}
	// Work on W = A (m >= n) or W = Aᴴ (m < n), r×c with r >= c, so that
	// W·V = U·Σ with orthogonal columns.
	tr := m < n
	r, c := m, n
	if tr {
		r, c = n, m
	}
	w := kernel.Make[complex128](r * c) // column-major: column j at w[j*r:(j+1)*r]
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			if tr {
				w[i*r+j] = cmplx.Conj(a[i*n+j])
			} else {
				w[j*r+i] = a[i*n+j]
			}
		}
	}
	v := kernel.Make[complex128](c * c) // column-major
	for j := 0; j < c; j++ {
		v[j*c+j] = 1
	}
	const eps = 0x1p-52
	converged := false
	for sweep := 0; sweep < 80 && !converged; sweep++ {
		converged = true
		for p := 0; p < c-1; p++ {
			for q := p + 1; q < c; q++ {
				wp, wq := w[p*r:(p+1)*r], w[q*r:(q+1)*r]
				var alpha, beta float64
				var gamma complex128
				for i := range wp {
					alpha += real(wp[i])*real(wp[i]) + imag(wp[i])*imag(wp[i])
					beta += real(wq[i])*real(wq[i]) + imag(wq[i])*imag(wq[i])
					gamma += cmplx.Conj(wp[i]) * wq[i]
				}
				g := cmplx.Abs(gamma)
				if g == 0 || g <= eps*math.Sqrt(alpha*beta) {
					continue
				}
				converged = false
				// Rotate (wp, e^{-iφ}·wq) with a real Jacobi rotation, φ = arg γ.
				ph := gamma / complex(g, 0)
				zeta := (beta - alpha) / (2 * g)
				t := math.Copysign(1, zeta) / (math.Abs(zeta) + math.Sqrt(1+zeta*zeta))
				cs := 1 / math.Sqrt(1+t*t)
				sn := cs * t
				rot := func(x, y []complex128) {
					for i := range x {
						xp, yq := x[i], y[i]*cmplx.Conj(ph)
						x[i] = complex(cs, 0)*xp - complex(sn, 0)*yq
						y[i] = complex(sn, 0)*xp + complex(cs, 0)*yq
					}
				}
				rot(wp, wq)
				rot(v[p*c:(p+1)*c], v[q*c:(q+1)*c])
			}
		}
	}
	// Singular values and descending order.
	norms := kernel.Make[float64](c)
	for j := 0; j < c; j++ {
		norms[j] = nrm2(r, w[j*r:(j+1)*r], 1)
	}
	order := kernel.Make[int](c)
	for j := range order {
		order[j] = j
	}
	sort.SliceStable(order, func(x, y int) bool { return norms[order[x]] > norms[order[y]] })
	for j, o := range order {
		s[j] = norms[o]
	}
	if !vectors {
		return converged
	}
	// Left vectors of W: normalized columns, completed to the wanted count.
	wl := kernel.Make[complex128](r * r) // column-major, up to r columns
	for j, o := range order {
		if norms[o] > 0 {
			col := w[o*r : (o+1)*r]
			inv := complex(1/norms[o], 0)
			for i := range col {
				wl[j*r+i] = col[i] * inv
			}
		}
	}
	// Columns for zero singular values and the full-matrix completion.
	leftCols := c
	if (!tr && ucols == m) || (tr && vrows == n) {
		leftCols = r
	}
	completeOrthonormal(wl, r, c, leftCols, norms, order)
	rv := kernel.Make[complex128](c * c) // right vectors of W in singular order
	for j, o := range order {
		copy(rv[j*c:(j+1)*c], v[o*c:(o+1)*c])
	}
	// Assemble U (m×ucols) and Vᴴ (vrows×n) of A.
	if !tr {
		// A = WL·Σ·RVᴴ: U = WL, Vᴴ = RVᴴ (c = n, vrows = n or k = n).
		for i := 0; i < m; i++ {
			for j := 0; j < ucols; j++ {
				u[i*ucols+j] = wl[j*r+i]
			}
		}
		for i := 0; i < vrows; i++ {
			for j := 0; j < n; j++ {
				vt[i*n+j] = cmplx.Conj(rv[i*c+j])
			}
		}
	} else {
		// Aᴴ = WL·Σ·RVᴴ ⇒ A = RV·Σ·WLᴴ: U = RV (m×m), Vᴴ = WLᴴ.
		for i := 0; i < m; i++ {
			for j := 0; j < ucols; j++ {
				u[i*ucols+j] = rv[j*c+i]
			}
		}
		for i := 0; i < vrows; i++ {
			for j := 0; j < n; j++ {
				vt[i*n+j] = cmplx.Conj(wl[i*r+j])
			}
		}
	}
	return converged
}

// completeOrthonormal fills the columns of q (column-major, r rows) that
// belong to zero singular values among the first c, and columns c..cols-1,
// with unit vectors orthogonal to all others (Gram–Schmidt, twice, over the
// standard basis).
func completeOrthonormal(q []complex128, r, c, cols int, norms []float64, order []int) {
	filled := kernel.Make[bool](cols)
	for j := 0; j < c; j++ {
		filled[j] = norms[order[j]] > 0
	}
	e := 0
	tmp := kernel.Make[complex128](r)
	for j := 0; j < cols; j++ {
		if filled[j] {
			continue
		}
		for ; e < r; e++ {
			clear(tmp)
			tmp[e] = 1
			for pass := 0; pass < 2; pass++ {
				for k := 0; k < cols; k++ {
					if !filled[k] {
						continue
					}
					qk := q[k*r : (k+1)*r]
					var d complex128
					for i := range qk {
						d += cmplx.Conj(qk[i]) * tmp[i]
					}
					for i := range qk {
						tmp[i] -= d * qk[i]
					}
				}
			}
			nn := nrm2(r, tmp, 1)
			if nn > 0.5 {
				inv := complex(1/nn, 0)
				for i := range tmp {
					q[j*r+i] = tmp[i] * inv
				}
				filled[j] = true
				e++
				break
			}
		}
	}
}
