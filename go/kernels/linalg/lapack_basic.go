package linalg

import (
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// potrf, trsm, getrf, geqrf, orgqr/ungqr, gehrd, sytrd/hetrd and gtsv: the
// LAPACK targets whose results are fully determined (no sign or phase
// freedom), computed with the unblocked reference algorithms of
// householder.go.

func init() {
	registerLapack("sdcz", "potrf", lowerPotrf)
	registerLapack("sdcz", "trsm", lowerTrsm)
	registerLapack("sdcz", "getrf", lowerGetrf)
	registerLapack("sdcz", "geqrf", lowerGeqrf)
	registerLapack("sdcz", "geqp3", lowerGeqp3)
	registerLapack("sd", "orgqr", lowerOrgqr)
	registerLapack("cz", "ungqr", lowerOrgqr)
	registerLapack("sd", "ormqr", lowerOrmqr)
	registerLapack("cz", "unmqr", lowerOrmqr)
	registerLapack("sdcz", "gehrd", lowerGehrd)
	registerLapack("sd", "sytrd", lowerSytrd)
	registerLapack("cz", "hetrd", lowerSytrd)
	registerLapack("sdcz", "gtsv", lowerGtsv)
}

// dispatch instantiates a generic step builder for the call's precision.
func dispatch(cc *customCall, real, cplx func() kernel.Step) kernel.Step {
	if cc.elem.IsComplex() {
		return cplx()
	}
	return real()
}

func lowerPotrf(ctx kernel.Context, cc *customCall) (kernel.Step, error) {
	uplo, err := cc.char("uplo", 'L', "LU")
	if err != nil {
		return nil, err
	}
	batch, err := cc.expect([]spec{{cc.elem, []int{-1, -1}}}, []spec{{cc.elem, []int{-1, -1}}, {ir.S32, nil}})
	if err != nil {
		return nil, err
	}
	n := int(cc.ins[0].Shape[cc.ins[0].Rank()-1])
	if int(cc.ins[0].Shape[cc.ins[0].Rank()-2]) != n || !cc.ins[0].Equal(cc.outs[0]) {
		return nil, cc.errorf("want square matrices and a result of the operand's type, have %s -> %s", cc.ins[0], cc.outs[0])
	}
	nb := numel(batch)
	switch cc.elem {
	case ir.F32:
		return potrfStepS[float32](ctx.Parallel, nb, n, uplo == 'L'), nil
	case ir.C64:
		return potrfStepS[complex64](ctx.Parallel, nb, n, uplo == 'L'), nil
	}
	return dispatch(cc,
		func() kernel.Step { return potrfStep[float64](ctx.Parallel, cc.elem, nb, n, uplo == 'L') },
		func() kernel.Step { return potrfStep[complex128](ctx.Parallel, cc.elem, nb, n, uplo == 'L') }), nil
}

func potrfStep[T scalar](par parallelFn, et ir.ElemType, batch, n int, lower bool) kernel.Step {
	return func(ins, outs [][]byte) error {
		all := scratchT[T](batch * n * n)
		defer all.release()
		loadT(all.s, ins[0], et)
		info := make([]int32, batch)
		forBatch(par, batch, n*n*n/3+1, func(lo, hi int) {
			var tmp *buf[T]
			if !lower {
				tmp = scratchT[T](n * n)
				defer tmp.release()
			}
			for b := lo; b < hi; b++ {
				m := all.s[b*n*n : (b+1)*n*n]
				if lower {
					info[b] = int32(potrfBlocked(par, m, n, n))
					continue
				}
				// A = Uᴴ·U from the upper triangle: factor L = Uᴴ.
				t := tmp.s
				for i := 0; i < n; i++ {
					for j := 0; j <= i; j++ {
						t[i*n+j] = conj(m[j*n+i])
					}
				}
				info[b] = int32(potrfBlocked(par, t, n, n))
				for i := 0; i < n; i++ {
					for j := 0; j <= i; j++ {
						m[j*n+i] = conj(t[i*n+j])
					}
				}
			}
		})
		storeT(outs[0], all.s, et)
		putI32s(outs[1], info)
		return nil
	}
}

func lowerTrsm(ctx kernel.Context, cc *customCall) (kernel.Step, error) {
	var p triParams
	side, err := cc.char("side", 'L', "LR")
	if err != nil {
		return nil, err
	}
	uplo, err := cc.char("uplo", 'L', "LU")
	if err != nil {
		return nil, err
	}
	trans, err := cc.char("trans_x", 'N', "NTC")
	if err != nil {
		return nil, err
	}
	diag, err := cc.char("diag", 'N', "NU")
	if err != nil {
		return nil, err
	}
	p.left, p.lower, p.trans, p.unit = side == 'L', uplo == 'L', trans, diag == 'U'
	if len(cc.ins) != 2 || len(cc.outs) != 1 {
		return nil, cc.errorf("want operands (a, b) and one result, have %d and %d", len(cc.ins), len(cc.outs))
	}
	if cc.ins[0].Elem != cc.elem {
		return nil, cc.errorf("operand a is %s, want element type %s", cc.ins[0], cc.elem)
	}
	return trsmStep(ctx, cc.op, cc.ins[0], cc.ins[1], cc.outs[0], p)
}

func lowerGetrf(ctx kernel.Context, cc *customCall) (kernel.Step, error) {
	if len(cc.ins) != 1 || cc.ins[0].Rank() < 2 {
		return nil, cc.errorf("want one matrix operand")
	}
	r := cc.ins[0].Rank()
	m, n := int(cc.ins[0].Shape[r-2]), int(cc.ins[0].Shape[r-1])
	k := min(m, n)
	batch, err := cc.expect([]spec{{cc.elem, []int{m, n}}}, []spec{{cc.elem, []int{m, n}}, {ir.S32, []int{k}}, {ir.S32, nil}})
	if err != nil {
		return nil, err
	}
	nb := numel(batch)
	switch cc.elem {
	case ir.F32:
		return getrfStepS[float32](ctx.Parallel, nb, m, n), nil
	case ir.C64:
		return getrfStepS[complex64](ctx.Parallel, nb, m, n), nil
	}
	return dispatch(cc,
		func() kernel.Step { return getrfStep[float64](ctx.Parallel, cc.elem, nb, m, n) },
		func() kernel.Step { return getrfStep[complex128](ctx.Parallel, cc.elem, nb, m, n) }), nil
}

func getrfStep[T scalar](par parallelFn, et ir.ElemType, batch, m, n int) kernel.Step {
	k := min(m, n)
	return func(ins, outs [][]byte) error {
		all := scratchT[T](batch * m * n)
		defer all.release()
		loadT(all.s, ins[0], et)
		ipiv := kernel.Make[int32](batch * k)
		info := make([]int32, batch)
		forBatch(par, batch, m*n*k+1, func(lo, hi int) {
			for b := lo; b < hi; b++ {
				info[b] = int32(getrfRec(par, m, n, all.s[b*m*n:(b+1)*m*n], n, ipiv[b*k:(b+1)*k]))
			}
		})
		storeT(outs[0], all.s, et)
		putI32s(outs[1], ipiv)
		putI32s(outs[2], info)
		return nil
	}
}

func lowerGeqrf(ctx kernel.Context, cc *customCall) (kernel.Step, error) {
	if len(cc.ins) != 1 || cc.ins[0].Rank() < 2 {
		return nil, cc.errorf("want one matrix operand")
	}
	r := cc.ins[0].Rank()
	m, n := int(cc.ins[0].Shape[r-2]), int(cc.ins[0].Shape[r-1])
	k := min(m, n)
	batch, err := cc.expect([]spec{{cc.elem, []int{m, n}}}, []spec{{cc.elem, []int{m, n}}, {cc.elem, []int{k}}})
	if err != nil {
		return nil, err
	}
	nb := numel(batch)
	if cc.elem == ir.C64 {
		return geqrfStepC64(ctx.Parallel, nb, m, n), nil
	}
	return dispatch(cc,
		func() kernel.Step { return geqrfStep[float64](ctx.Parallel, cc.elem, nb, m, n) },
		func() kernel.Step { return geqrfStep[complex128](ctx.Parallel, cc.elem, nb, m, n) }), nil
}

func geqrfStep[T scalar](par parallelFn, et ir.ElemType, batch, m, n int) kernel.Step {
	k := min(m, n)
	return func(ins, outs [][]byte) error {
		all := scratchT[T](batch * m * n)
		tau := scratchT[T](batch * k)
		defer all.release()
		defer tau.release()
		loadT(all.s, ins[0], et)
		forBatch(par, batch, 2*m*n*k+1, func(lo, hi int) {
			work := scratchT[T](n)
			defer work.release()
			for b := lo; b < hi; b++ {
				geqrfBlocked(par, m, n, all.s[b*m*n:(b+1)*m*n], n, tau.s[b*k:(b+1)*k], work.s)
			}
		})
		storeT(outs[0], all.s, et)
		storeT(outs[1], tau.s, et)
		return nil
	}
}

func lowerOrgqr(ctx kernel.Context, cc *customCall) (kernel.Step, error) {
	if len(cc.ins) != 2 || cc.ins[0].Rank() < 2 || cc.ins[1].Rank() < 1 {
		return nil, cc.errorf("want operands (a, tau)")
	}
	r := cc.ins[0].Rank()
	m, n := int(cc.ins[0].Shape[r-2]), int(cc.ins[0].Shape[r-1])
	k := int(cc.ins[1].Shape[cc.ins[1].Rank()-1])
	if !(m >= n && n >= k && k >= 0) {
		return nil, cc.errorf("need m >= n >= k, have m=%d n=%d k=%d", m, n, k)
	}
	batch, err := cc.expect([]spec{{cc.elem, []int{m, n}}, {cc.elem, []int{k}}}, []spec{{cc.elem, []int{m, n}}})
	if err != nil {
		return nil, err
	}
	nb := numel(batch)
	if cc.elem == ir.C64 {
		return orgqrStepC64(ctx.Parallel, nb, m, n, k), nil
	}
	return dispatch(cc,
		func() kernel.Step { return orgqrStep[float64](ctx.Parallel, cc.elem, nb, m, n, k) },
		func() kernel.Step { return orgqrStep[complex128](ctx.Parallel, cc.elem, nb, m, n, k) }), nil
}

func orgqrStep[T scalar](par parallelFn, et ir.ElemType, batch, m, n, k int) kernel.Step {
	return func(ins, outs [][]byte) error {
		all := scratchT[T](batch * m * n)
		tau := scratchT[T](batch * k)
		defer all.release()
		defer tau.release()
		loadT(all.s, ins[0], et)
		loadT(tau.s, ins[1], et)
		forBatch(par, batch, 4*m*n*k+1, func(lo, hi int) {
			work := scratchT[T](n)
			defer work.release()
			for b := lo; b < hi; b++ {
				orgqrBlocked(par, m, n, k, all.s[b*m*n:(b+1)*m*n], n, tau.s[b*k:(b+1)*k], work.s)
			}
		})
		storeT(outs[0], all.s, et)
		return nil
	}
}

func lowerGehrd(ctx kernel.Context, cc *customCall) (kernel.Step, error) {
	if len(cc.ins) != 1 || cc.ins[0].Rank() < 2 {
		return nil, cc.errorf("want one matrix operand")
	}
	n := int(cc.ins[0].Shape[cc.ins[0].Rank()-1])
	batch, err := cc.expect([]spec{{cc.elem, []int{n, n}}}, []spec{{cc.elem, []int{n, n}}, {cc.elem, []int{max(n-1, 0)}}, {ir.S32, nil}})
	if err != nil {
		return nil, err
	}
	low, err := cc.int("low")
	if err != nil {
		return nil, err
	}
	high, err := cc.int("high")
	if err != nil {
		return nil, err
	}
	// LAPACK's 1-based ilo/ihi: 1 <= ilo <= ihi <= n, or ilo = 1, ihi = 0 for n = 0.
	if n > 0 && !(1 <= low && low <= high && high <= n) || n == 0 && !(low == 1 && high == 0) {
		return nil, cc.errorf("low=%d high=%d out of range for n=%d", low, high, n)
	}
	nb := numel(batch)
	return dispatch(cc,
		func() kernel.Step { return gehrdStep[float64](ctx.Parallel, cc.elem, nb, n, low-1, high-1) },
		func() kernel.Step { return gehrdStep[complex128](ctx.Parallel, cc.elem, nb, n, low-1, high-1) }), nil
}

func gehrdStep[T scalar](par parallelFn, et ir.ElemType, batch, n, ilo, ihi int) kernel.Step {
	nt := max(n-1, 0)
	return func(ins, outs [][]byte) error {
		all := scratchT[T](batch * n * n)
		tau := scratchT[T](batch * nt)
		defer all.release()
		defer tau.release()
		loadT(all.s, ins[0], et)
		forBatch(par, batch, 10*n*n*n/3+1, func(lo, hi int) {
			work := scratchT[T](n)
			defer work.release()
			for b := lo; b < hi; b++ {
				gehd2(n, ilo, ihi, all.s[b*n*n:(b+1)*n*n], n, tau.s[b*nt:(b+1)*nt], work.s)
			}
		})
		storeT(outs[0], all.s, et)
		storeT(outs[1], tau.s, et)
		clear(outs[2])
		return nil
	}
}

func lowerSytrd(ctx kernel.Context, cc *customCall) (kernel.Step, error) {
	uplo, err := cc.char("uplo", 'L', "LU")
	if err != nil {
		return nil, err
	}
	if len(cc.ins) != 1 || cc.ins[0].Rank() < 2 {
		return nil, cc.errorf("want one matrix operand")
	}
	n := int(cc.ins[0].Shape[cc.ins[0].Rank()-1])
	rt := realOf(cc.elem)
	n1 := max(n-1, 0)
	batch, err := cc.expect([]spec{{cc.elem, []int{n, n}}},
		[]spec{{cc.elem, []int{n, n}}, {rt, []int{n}}, {rt, []int{n1}}, {cc.elem, []int{n1}}, {ir.S32, nil}})
	if err != nil {
		return nil, err
	}
	nb := numel(batch)
	return dispatch(cc,
		func() kernel.Step { return sytrdStep[float64](ctx.Parallel, cc.elem, nb, n, uplo == 'L') },
		func() kernel.Step { return sytrdStep[complex128](ctx.Parallel, cc.elem, nb, n, uplo == 'L') }), nil
}

func sytrdStep[T scalar](par parallelFn, et ir.ElemType, batch, n int, lower bool) kernel.Step {
	n1 := max(n-1, 0)
	return func(ins, outs [][]byte) error {
		all := scratchT[T](batch * n * n)
		tau := scratchT[T](batch * n1)
		d := f64scratch(batch * n)
		e := f64scratch(batch * n1)
		defer all.release()
		defer tau.release()
		defer d.release()
		defer e.release()
		loadT(all.s, ins[0], et)
		forBatch(par, batch, 4*n*n*n/3+1, func(lo, hi int) {
			work := scratchT[T](n)
			defer work.release()
			for b := lo; b < hi; b++ {
				hetd2(lower, n, all.s[b*n*n:(b+1)*n*n], n, d.s[b*n:(b+1)*n], e.s[b*n1:(b+1)*n1], tau.s[b*n1:(b+1)*n1], work.s)
			}
		})
		storeT(outs[0], all.s, et)
		fromF64(outs[1], d.s, realOf(et))
		fromF64(outs[2], e.s, realOf(et))
		storeT(outs[3], tau.s, et)
		clear(outs[4])
		return nil
	}
}

func lowerGtsv(ctx kernel.Context, cc *customCall) (kernel.Step, error) {
	if len(cc.ins) != 4 || cc.ins[3].Rank() < 2 {
		return nil, cc.errorf("want operands (dl, d, du, b)")
	}
	r := cc.ins[3].Rank()
	m, nrhs := int(cc.ins[3].Shape[r-2]), int(cc.ins[3].Shape[r-1])
	v, mat := spec{cc.elem, []int{m}}, spec{cc.elem, []int{m, nrhs}}
	batch, err := cc.expect([]spec{v, v, v, mat}, []spec{v, v, v, mat, {ir.S32, nil}})
	if err != nil {
		return nil, err
	}
	nb := numel(batch)
	return dispatch(cc,
		func() kernel.Step { return gtsvStep[float64](ctx.Parallel, cc.elem, nb, m, nrhs) },
		func() kernel.Step { return gtsvStep[complex128](ctx.Parallel, cc.elem, nb, m, nrhs) }), nil
}

func gtsvStep[T scalar](par parallelFn, et ir.ElemType, batch, m, nrhs int) kernel.Step {
	return func(ins, outs [][]byte) error {
		dl, d, du, b := scratchT[T](batch*m), scratchT[T](batch*m), scratchT[T](batch*m), scratchT[T](batch*m*nrhs)
		defer releaseAll(dl, d, du, b)
		loadT(dl.s, ins[0], et)
		loadT(d.s, ins[1], et)
		loadT(du.s, ins[2], et)
		loadT(b.s, ins[3], et)
		info := make([]int32, batch)
		if m > 0 {
			forBatch(par, batch, 8*m*(nrhs+1), func(lo, hi int) {
				for i := lo; i < hi; i++ {
					v := i * m
					info[i] = int32(gtsv(m, nrhs, dl.s[v:v+m], d.s[v:v+m], du.s[v:v+m], b.s[i*m*nrhs:(i+1)*m*nrhs]))
				}
			})
		}
		storeT(outs[0], dl.s, et)
		storeT(outs[1], d.s, et)
		storeT(outs[2], du.s, et)
		storeT(outs[3], b.s, et)
		putI32s(outs[4], info)
		return nil
	}
}

// lowerOrmqr: C := op(Q)·C (left) or C·op(Q) (right), Q = H(1)·…·H(k) from
// geqrf's reflectors, op = identity or (conjugate) transpose.
func lowerOrmqr(ctx kernel.Context, cc *customCall) (kernel.Step, error) {
	left, err := cc.bool("left")
	if err != nil {
		return nil, err
	}
	trans, err := cc.bool("transpose")
	if err != nil {
		return nil, err
	}
	if len(cc.ins) != 3 || cc.ins[0].Rank() < 2 || cc.ins[1].Rank() < 1 || cc.ins[2].Rank() < 2 {
		return nil, cc.errorf("want operands (a, tau, c)")
	}
	ra, rc := cc.ins[0].Rank(), cc.ins[2].Rank()
	am, ak := int(cc.ins[0].Shape[ra-2]), int(cc.ins[0].Shape[ra-1])
	m, n := int(cc.ins[2].Shape[rc-2]), int(cc.ins[2].Shape[rc-1])
	k := int(cc.ins[1].Shape[cc.ins[1].Rank()-1])
	nq := n
	if left {
		nq = m
	}
	if am != nq || k > ak || k > nq {
		return nil, cc.errorf("a %s and tau %s do not fit c %s (left=%v)", cc.ins[0], cc.ins[1], cc.ins[2], left)
	}
	batch, err := cc.expect([]spec{{cc.elem, []int{am, ak}}, {cc.elem, []int{k}}, {cc.elem, []int{m, n}}}, []spec{{cc.elem, []int{m, n}}})
	if err != nil {
		return nil, err
	}
	nb := numel(batch)
	return dispatch(cc,
		func() kernel.Step { return ormqrStep[float64](ctx.Parallel, cc.elem, nb, am, ak, k, m, n, left, trans) },
		func() kernel.Step {
			return ormqrStep[complex128](ctx.Parallel, cc.elem, nb, am, ak, k, m, n, left, trans)
		}), nil
}

func ormqrStep[T scalar](par parallelFn, et ir.ElemType, batch, am, ak, k, m, n int, left, trans bool) kernel.Step {
	return func(ins, outs [][]byte) error {
		a, tau, c := scratchT[T](batch*am*ak), scratchT[T](batch*k), scratchT[T](batch*m*n)
		defer releaseAll(a, tau, c)
		loadT(a.s, ins[0], et)
		loadT(tau.s, ins[1], et)
		loadT(c.s, ins[2], et)
		forBatch(par, batch, 4*k*m*n+1, func(lo, hi int) {
			work := scratchT[T](max(m, n))
			defer work.release()
			for b := lo; b < hi; b++ {
				orm2r(left, trans, m, n, k, a.s[b*am*ak:(b+1)*am*ak], ak, tau.s[b*k:(b+1)*k], c.s[b*m*n:(b+1)*m*n], n, work.s)
			}
		})
		storeT(outs[0], c.s, et)
		return nil
	}
}

func lowerGeqp3(ctx kernel.Context, cc *customCall) (kernel.Step, error) {
	if len(cc.ins) != 2 || cc.ins[0].Rank() < 2 {
		return nil, cc.errorf("want operands (a, jpvt)")
	}
	r := cc.ins[0].Rank()
	m, n := int(cc.ins[0].Shape[r-2]), int(cc.ins[0].Shape[r-1])
	k := min(m, n)
	batch, err := cc.expect([]spec{{cc.elem, []int{m, n}}, {ir.S32, []int{n}}},
		[]spec{{cc.elem, []int{m, n}}, {ir.S32, []int{n}}, {cc.elem, []int{k}}})
	if err != nil {
		return nil, err
	}
	nb := numel(batch)
	return dispatch(cc,
		func() kernel.Step { return geqp3Step[float64](ctx.Parallel, cc.elem, nb, m, n) },
		func() kernel.Step { return geqp3Step[complex128](ctx.Parallel, cc.elem, nb, m, n) }), nil
}

func geqp3Step[T scalar](par parallelFn, et ir.ElemType, batch, m, n int) kernel.Step {
	k := min(m, n)
	return func(ins, outs [][]byte) error {
		all := scratchT[T](batch * m * n)
		tau := scratchT[T](batch * k)
		defer all.release()
		defer tau.release()
		loadT(all.s, ins[0], et)
		jpvt := kernel.Make[int32](batch * n)
		for i := range jpvt {
			jpvt[i] = int32(loadInt(ir.S32, ins[1], i))
		}
		forBatch(par, batch, 2*m*n*k+1, func(lo, hi int) {
			work := scratchT[T](n)
			vn := f64scratch(2 * n)
			defer work.release()
			defer vn.release()
			for b := lo; b < hi; b++ {
				geqp3(m, n, all.s[b*m*n:(b+1)*m*n], n, jpvt[b*n:(b+1)*n], tau.s[b*k:(b+1)*k], work.s, vn.s[:n], vn.s[n:])
			}
		})
		storeT(outs[0], all.s, et)
		putI32s(outs[1], jpvt)
		storeT(outs[2], tau.s, et)
		return nil
	}
}
