package linalg

import (
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

func init() {
	kernel.RegisterOp("stablehlo.triangular_solve", lowerTriangularSolve, kernel.Traits{Cost: func(op *ir.Op) kernel.Work {
		// A multiply-add per element of b and column of a, XLA's estimate.
		if len(op.Operands) != 2 {
			return kernel.Work{}
		}
		a, b := op.Operands[0].StaticTensor(), op.Operands[1].StaticTensor()
		if a == nil || b == nil || a.Rank() < 1 {
			return kernel.Work{}
		}
		return kernel.Work{Flops: 2 * a.Shape[a.Rank()-1] * b.NumElements()}
	}})
}

// triParams describes one triangular solve: op(A)·X = B (left) or
// X·op(A) = B (right), reading only the `lower` (or upper) triangle of A.
type triParams struct {
	left, lower, unit bool
	trans             byte // 'N', 'T' or 'C'
}

// trsm solves in place, unblocked: b is m×n row-major (leading dimension
// ldb), a is k×k (leading dimension lda) with k = m (left) or n (right).
func trsm[T scalar](p triParams, a []T, lda, k int, b []T, ldb, m, n int) {
	// Effective matrix M = op(tri(A)) and whether it is lower triangular.
	at := func(i, j int) T {
		if i == j && p.unit {
			return fromRe[T](1)
		}
		switch p.trans {
		case 'T':
			return a[j*lda+i]
		case 'C':
			return conj(a[j*lda+i])
		}
		return a[i*lda+j]
	}
	mLower := p.lower == (p.trans == 'N')
	if p.left {
		// Row i of X from the rows already solved (all columns at once).
		solveRow := func(i, k0, k1 int) {
			xi := b[i*ldb : i*ldb+n]
			for kk := k0; kk < k1; kk++ {
				f := at(i, kk)
				if f == 0 {
					continue
				}
				xk := b[kk*ldb : kk*ldb+n]
				xk = xk[:len(xi)]
				for j := range xi {
					xi[j] -= f * xk[j]
				}
			}
			if !p.unit {
				d := at(i, i)
				for j := range xi {
					xi[j] /= d
				}
			}
		}
		if mLower {
			for i := 0; i < m; i++ {
				solveRow(i, 0, i)
			}
		} else {
			for i := m - 1; i >= 0; i-- {
				solveRow(i, i+1, m)
			}
		}
		return
	}
	// Right side: each row x of X solves x·M = b independently.
	for r := 0; r < m; r++ {
		x := b[r*ldb : r*ldb+n]
		if !mLower {
			for j := 0; j < n; j++ {
				s := x[j]
				for kk := 0; kk < j; kk++ {
					s -= x[kk] * at(kk, j)
				}
				if !p.unit {
					s /= at(j, j)
				}
				x[j] = s
			}
		} else {
			for j := n - 1; j >= 0; j-- {
				s := x[j]
				for kk := j + 1; kk < n; kk++ {
					s -= x[kk] * at(kk, j)
				}
				if !p.unit {
					s /= at(j, j)
				}
				x[j] = s
			}
		}
	}
}

func lowerTriangularSolve(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	if len(op.Operands) != 2 || len(op.Results) != 1 {
		return nil, op.Errorf("want 2 operands and 1 result")
	}
	at, bt, ot := op.Operands[0].Tensor(), op.Operands[1].Tensor(), op.Results[0].Tensor()
	if at == nil || bt == nil || ot == nil {
		return nil, op.Errorf("operands and result must be tensors")
	}
	var p triParams
	var err error
	if p.left, err = boolAttr(op, "left_side", false); err != nil {
		return nil, err
	}
	if p.lower, err = boolAttr(op, "lower", false); err != nil {
		return nil, err
	}
	if p.unit, err = boolAttr(op, "unit_diagonal", false); err != nil {
		return nil, err
	}
	tr, err := enumAttr(op, "transpose_a", "NO_TRANSPOSE")
	if err != nil {
		return nil, err
	}
	switch tr {
	case "NO_TRANSPOSE":
		p.trans = 'N'
	case "TRANSPOSE":
		p.trans = 'T'
	case "ADJOINT":
		p.trans = 'C'
	default:
		return nil, op.Errorf("unknown transpose_a %q", tr)
	}
	return trsmStep(ctx, op, at, bt, ot, p)
}

// trsmStep validates shapes and builds the batched solve shared by
// stablehlo.triangular_solve and the trsm custom call (both take a, b).
func trsmStep(ctx kernel.Context, op *ir.Op, at, bt, ot *ir.TensorType, p triParams) (kernel.Step, error) {
	if !bt.Equal(ot) {
		return nil, op.Errorf("result type %s must equal b's type %s", ot, bt)
	}
	if at.Elem != bt.Elem {
		return nil, op.Errorf("a %s and b %s element types differ", at, bt)
	}
	batch, k, k2, ok := batchDims(at)
	bb, m, n, ok2 := batchDims(bt)
	if !ok || !ok2 || k != k2 || !sameBatch(at, bt, 2, 2) || batch != bb {
		return nil, op.Errorf("a %s must be square matrices with the batch dims of b %s", at, bt)
	}
	if (p.left && k != m) || (!p.left && k != n) {
		return nil, op.Errorf("a %s does not match b %s on the solved side", at, bt)
	}
	switch at.Elem {
	case ir.F32:
		return trsmRunS[float32](ctx.Parallel, p, batch, k, m, n), nil
	case ir.C64:
		return trsmRunS[complex64](ctx.Parallel, p, batch, k, m, n), nil
	}
	cplx, ok := computeScalarFor(at.Elem)
	if !ok {
		return nil, op.Errorf("element type %s is not supported", at.Elem)
	}
	if cplx {
		return trsmRun[complex128](ctx.Parallel, at.Elem, p, batch, k, m, n), nil
	}
	return trsmRun[float64](ctx.Parallel, at.Elem, p, batch, k, m, n), nil
}

func trsmRun[T scalar](par parallelFn, et ir.ElemType, p triParams, batch, k, m, n int) kernel.Step {
	return func(ins, outs [][]byte) error {
		a := scratchT[T](batch * k * k)
		b := scratchT[T](batch * m * n)
		defer a.release()
		defer b.release()
		loadT(a.s, ins[0], et)
		loadT(b.s, ins[1], et)
		forBatch(par, batch, k*m*n+1, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				trsmPar(par, p, a.s[i*k*k:(i+1)*k*k], k, k, b.s[i*m*n:(i+1)*m*n], n, m, n)
			}
		})
		storeT(outs[0], b.s, et)
		return nil
	}
}
