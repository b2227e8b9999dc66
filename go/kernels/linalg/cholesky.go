package linalg

import (
	"math"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

func init() {
	kernel.RegisterOp("stablehlo.cholesky", lowerCholesky, kernel.Traits{Cost: func(op *ir.Op) kernel.Work {
		// n³/3 flops per n×n matrix, XLA's estimate.
		if len(op.Operands) != 1 {
			return kernel.Work{}
		}
		if a := op.Operands[0].StaticTensor(); a != nil && a.Rank() >= 1 {
			return kernel.Work{Flops: a.Shape[a.Rank()-1] * a.NumElements() / 3}
		}
		return kernel.Work{}
	}})
}

// potrfLower factors the Hermitian positive definite n×n matrix whose lower
// triangle is stored in a (row-major, leading dimension lda) as L·Lᴴ,
// overwriting the lower triangle with L and leaving the strict upper triangle
// alone, column by column as LAPACK's potf2 does. It returns LAPACK's info:
// 0, or j+1 when the leading minor of order j+1 is not positive definite (the
// factorization stops there).
func potrfLower[T scalar](a []T, n, lda int) int {
	for j := 0; j < n; j++ {
		rowJ := a[j*lda : j*lda+j]
		d := re(a[j*lda+j])
		for _, v := range rowJ {
			d -= re(v)*re(v) + im(v)*im(v)
		}
		if d <= 0 || math.IsNaN(d) {
			a[j*lda+j] = fromRe[T](d)
			return j + 1
		}
		d = math.Sqrt(d)
		a[j*lda+j] = fromRe[T](d)
		inv := 1 / d
		for i := j + 1; i < n; i++ {
			rowI := a[i*lda : i*lda+j]
			s := a[i*lda+j]
			for k, v := range rowI {
				s -= v * conj(rowJ[k])
			}
			a[i*lda+j] = scaleRe(s, inv)
		}
	}
	return 0
}

func lowerCholesky(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	if len(op.Operands) != 1 || len(op.Results) != 1 {
		return nil, op.Errorf("want 1 operand and 1 result")
	}
	at, ot := op.Operands[0].Tensor(), op.Results[0].Tensor()
	if at == nil || ot == nil || !at.Equal(ot) {
		return nil, op.Errorf("result type must equal operand type")
	}
	batch, n, n2, ok := batchDims(at)
	if !ok || n != n2 {
		return nil, op.Errorf("operand %s must be a batch of square matrices", at)
	}
	cplx, ok := computeScalarFor(at.Elem)
	if !ok {
		return nil, op.Errorf("element type %s is not supported", at.Elem)
	}
	lower, err := boolAttr(op, "lower", false)
	if err != nil {
		return nil, err
	}
	switch at.Elem {
	case ir.F32:
		return choleskyStepS[float32](ctx.Parallel, batch, n, lower), nil
	case ir.C64:
		return choleskyStepS[complex64](ctx.Parallel, batch, n, lower), nil
	}
	if cplx {
		return choleskyStep[complex128](ctx.Parallel, at.Elem, batch, n, lower), nil
	}
	return choleskyStep[float64](ctx.Parallel, at.Elem, batch, n, lower), nil
}

// choleskyStep returns L (lower) or U = Lᴴ (upper) with zeros in the other
// triangle. Only the selected triangle of the input is read. A matrix that
// is not positive definite yields all NaN, the spec leaving it undefined.
func choleskyStep[T scalar](par parallelFn, et ir.ElemType, batch, n int, lower bool) kernel.Step {
	return func(ins, outs [][]byte) error {
		all := scratchT[T](batch * n * n)
		defer all.release()
		loadT(all.s, ins[0], et)
		forBatch(par, batch, n*n*n/3+1, func(lo, hi int) {
			for b := lo; b < hi; b++ {
				m := all.s[b*n*n : (b+1)*n*n]
				if !lower {
					// The upper triangle of A is the conjugate of a lower one.
					for i := 0; i < n; i++ {
						for j := 0; j < i; j++ {
							m[i*n+j] = conj(m[j*n+i])
						}
					}
				}
				if potrfBlocked(par, m, n, n) != 0 {
					nan := fromC[T](math.NaN(), math.NaN())
					for i := range m {
						m[i] = nan
					}
					continue
				}
				var zero T
				for i := 0; i < n; i++ {
					for j := i + 1; j < n; j++ {
						if lower {
							m[i*n+j] = zero
						} else {
							m[i*n+j] = conj(m[j*n+i])
							m[j*n+i] = zero
						}
					}
				}
			}
		})
		storeT(outs[0], all.s, et)
		return nil
	}
}
