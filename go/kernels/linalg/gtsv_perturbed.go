package linalg

import (
	"math"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// tridiagonal_solve_perturbed_ffi: jaxlib's solver for
// lax.linalg.tridiagonal_solve(perturb_singular=True). Gaussian elimination
// with scaled partial pivoting on the tridiagonal matrix (dl[1:], d,
// du[:n-1]); during back substitution pivots of magnitude below one are
// nudged by eps·max|U| (doubling) or the row rescaled, so that singular
// systems give large but finite solutions instead of inf/NaN. eps and the
// safe minimum are those of the operands' precision.

func init() {
	kernel.RegisterCustomCall("tridiagonal_solve_perturbed_ffi", func(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
		if len(op.Operands) != 4 || len(op.Results) != 1 {
			return nil, op.Errorf("tridiagonal_solve_perturbed_ffi: want operands (dl, d, du, b) and one result")
		}
		et := op.Operands[3].Tensor()
		if et == nil {
			return nil, op.Errorf("tridiagonal_solve_perturbed_ffi: operands must be tensors")
		}
		var elem ir.ElemType
		switch et.Elem {
		case ir.F32, ir.F64, ir.C64, ir.C128:
			elem = et.Elem
		default:
			return nil, op.Errorf("tridiagonal_solve_perturbed_ffi: element type %s is not supported", et.Elem)
		}
		cc, err := newCustomCall(op, "tridiagonal_solve_perturbed_ffi", elem)
		if err != nil {
			return nil, err
		}
		if cc.ins[3].Rank() < 2 {
			return nil, cc.errorf("b must be a batch of matrices, have %s", cc.ins[3])
		}
		r := cc.ins[3].Rank()
		n, nrhs := int(cc.ins[3].Shape[r-2]), int(cc.ins[3].Shape[r-1])
		v, mat := spec{elem, []int{n}}, spec{elem, []int{n, nrhs}}
		batch, err := cc.expect([]spec{v, v, v, mat}, []spec{mat})
		if err != nil {
			return nil, err
		}
		nb := numel(batch)
		eps, tiny := 0x1p-52, 0x1p-1022
		if elem == ir.F32 || elem == ir.C64 {
			eps, tiny = 0x1p-23, 0x1p-126
		}
		return dispatch(cc,
			func() kernel.Step { return gtsvPerturbedStep[float64](ctx.Parallel, elem, nb, n, nrhs, eps, tiny) },
			func() kernel.Step { return gtsvPerturbedStep[complex128](ctx.Parallel, elem, nb, n, nrhs, eps, tiny) }), nil
	})
}

func gtsvPerturbedStep[T scalar](par parallelFn, et ir.ElemType, batch, n, nrhs int, eps, safemin float64) kernel.Step {
	return func(ins, outs [][]byte) error {
		dl, d, du, b := scratchT[T](batch*n), scratchT[T](batch*n), scratchT[T](batch*n), scratchT[T](batch*n*nrhs)
		x := scratchT[T](batch * n * nrhs)
		defer releaseAll(dl, d, du, b, x)
		loadT(dl.s, ins[0], et)
		loadT(d.s, ins[1], et)
		loadT(du.s, ins[2], et)
		loadT(b.s, ins[3], et)
		forBatch(par, batch, 10*n*(nrhs+1), func(lo, hi int) {
			u := scratchT[T](3 * n)
			row := scratchT[T](nrhs)
			defer releaseAll(u, row)
			for i := lo; i < hi; i++ {
				s, e := i*n, (i+1)*n
				gtsvPerturbed(n, nrhs, dl.s[s:e], d.s[s:e], du.s[s:e], b.s[i*n*nrhs:(i+1)*n*nrhs], x.s[i*n*nrhs:(i+1)*n*nrhs],
					u.s, row.s, eps, safemin)
			}
		})
		storeT(outs[0], x.s, et)
		return nil
	}
}

// perturbPivot moves a pivot of magnitude below one away from zero (adding
// a doubling perturbation of pivot's sign) or rescales pivot and row
// together, until dividing row by pivot cannot overflow.
func perturbPivot[T scalar](perturb float64, pivot *T, row []T, safemin float64) {
	bignum := 1 / safemin
	ap := abs(*pivot)
	if ap >= 1 {
		return
	}
	perturb = math.Copysign(max(math.Abs(perturb), safemin), re(*pivot))
	maxFactor := 0.0
	for _, v := range row {
		maxFactor = max(maxFactor, abs(v))
	}
	for ap < 1 {
		if ap < safemin {
			if ap == 0 || maxFactor*safemin > ap {
				*pivot += fromRe[T](perturb)
				perturb *= 2
			} else {
				*pivot = scaleRe(*pivot, bignum)
				for j := range row {
					row[j] = scaleRe(row[j], bignum)
				}
				return
			}
		} else if maxFactor > ap*bignum {
			*pivot += fromRe[T](perturb)
			perturb *= 2
		} else {
			return
		}
		ap = abs(*pivot)
	}
}

// gtsvPerturbed solves one n×nrhs system into x (row-major); u (3n) and row
// (nrhs) are workspace.
func gtsvPerturbed[T scalar](n, nrhs int, dl, d, du, b, x, u, row []T, eps, safemin float64) {
	if n == 0 {
		return
	}
	var zero T
	one := fromRe[T](1)
	xr := func(k int) []T { return x[k*nrhs : (k+1)*nrhs] }
	br := func(k int) []T { return b[k*nrhs : (k+1)*nrhs] }
	if n == 1 {
		p := d[0]
		copy(row, br(0))
		perturbPivot(eps*abs(p), &p, row, safemin)
		for j := range row {
			xr(0)[j] = row[j] / p
		}
		return
	}
	// U has a diagonal and two superdiagonals: u[3k], u[3k+1], u[3k+2].
	clear(u[:3*n])
	u[0], u[1] = d[0], du[0]
	maxU := max(abs(u[0]), abs(u[1]))
	scale1 := abs(u[0]) + abs(u[1])
	copy(xr(0), br(0))
	for k := 0; k < n-1; k++ {
		u[3*(k+1)] = d[k+1]
		scale2 := abs(dl[k+1]) + abs(u[3*(k+1)])
		if k < n-2 {
			scale2 += abs(du[k+1])
		}
		if dl[k+1] == zero {
			scale1 = scale2
			u[3*(k+1)+1] = du[k+1]
			u[3*k+2] = zero
			copy(xr(k+1), br(k+1))
		} else {
			piv1 := 0.0
			if u[3*k] != zero {
				piv1 = abs(u[3*k]) / scale1
			}
			piv2 := abs(dl[k+1]) / scale2
			if piv2 <= piv1 {
				scale1 = scale2
				f := dl[k+1] / u[3*k]
				u[3*(k+1)] -= f * u[3*k+1]
				u[3*(k+1)+1] = du[k+1]
				u[3*k+2] = zero
				xk, xk1, bk1 := xr(k), xr(k+1), br(k+1)
				for j := range xk1 {
					xk1[j] = bk1[j] - f*xk[j]
				}
			} else {
				// Exchange rows k and k+1.
				f := u[3*k] / dl[k+1]
				utmp := u[3*k+1]
				u[3*k] = dl[k+1]
				u[3*(k+1)] = utmp - f*d[k+1]
				u[3*k+1] = d[k+1]
				if k < n-2 {
					u[3*k+2] = du[k+1]
					u[3*(k+1)+1] = -f * du[k+1]
				}
				xk, xk1, bk1 := xr(k), xr(k+1), br(k+1)
				for j := range xk1 {
					xk1[j] = xk[j] - f*bk1[j]
					xk[j] = bk1[j]
				}
				scale1 = abs(u[3*(k+1)]) + abs(u[3*(k+1)+1])
			}
		}
		if k < n-2 {
			maxU = max(maxU, abs(u[3*k]), abs(u[3*k+1]), abs(u[3*k+2]))
		}
	}
	maxU = max(maxU, abs(u[3*(n-1)]))
	perturb := eps * maxU
	// Back substitution with U, perturbing tiny pivots.
	solve := func(k int) {
		p := u[3*k]
		xk := xr(k)
		for j := range row {
			v := xk[j]
			if k+1 < n {
				v -= u[3*k+1] * xr(k + 1)[j]
			}
			if k+2 < n {
				v -= u[3*k+2] * xr(k + 2)[j]
			}
			row[j] = v
		}
		pert := perturb
		if k < n-1 {
			pert = math.Copysign(perturb, re(p))
		}
		perturbPivot(pert, &p, row, safemin)
		inv := one / p
		for j := range row {
			xk[j] = row[j] * inv
		}
	}
	for k := n - 1; k >= 0; k-- {
		solve(k)
	}
}
