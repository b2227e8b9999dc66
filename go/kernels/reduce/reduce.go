package reduce

import (
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/lowerutil"
	"github.com/gojax/gojax/go/kernels/kernel"
)

func init() {
	kernel.RegisterOp("stablehlo.reduce", lowerReduce, kernel.Traits{Cost: reduceCost, Storage: true})
}

// reduceCost: the body runs once per input element beyond the first of
// each result element.
func reduceCost(op *ir.Op) kernel.Work {
	if len(op.Regions) != 1 || len(op.Operands) == 0 || len(op.Results) == 0 {
		return kernel.Work{}
	}
	return kernel.RegionWork(op.Regions[0]).Scaled(kernel.Elements(op.Operands[0]) - kernel.Elements(op.Results[0]))
}

// binaryBody recognizes a region computing one binary op of its two scalar
// arguments (either order) of element type et, as JAX emits for sum, prod,
// max, min, any, all.
func binaryBody(r *ir.Region, et ir.ElemType) opKind {
	if r == nil || len(r.Blocks) != 1 {
		return opNone
	}
	b := r.Blocks[0]
	if len(b.Args) != 2 || len(b.Ops) != 2 {
		return opNone
	}
	for _, a := range b.Args {
		if t := a.Tensor(); t == nil || t.Rank() != 0 || t.Elem != et {
			return opNone
		}
	}
	op, ret := b.Ops[0], b.Ops[1]
	kind, ok := opByName[op.Name]
	if !ok || len(op.Operands) != 2 || len(op.Results) != 1 {
		return opNone
	}
	x, y := op.Operands[0], op.Operands[1]
	if !((x == b.Args[0] && y == b.Args[1]) || (x == b.Args[1] && y == b.Args[0])) {
		return opNone
	}
	if ret.Name != "stablehlo.return" || len(ret.Operands) != 1 || ret.Operands[0] != op.Results[0] {
		return opNone
	}
	return kind
}

func lowerReduce(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	n := len(op.Results)
	if n == 0 || len(op.Operands) != 2*n || len(op.Regions) != 1 {
		return nil, op.Errorf("expected N inputs, N init values, N results and a body (got %d operands, %d results)", len(op.Operands), n)
	}
	dims, err := lowerutil.I64s(op, "dimensions")
	if err != nil {
		return nil, err
	}
	in0, err := lowerutil.TensorOperand(op, 0)
	if err != nil {
		return nil, err
	}
	reduced := make([]bool, in0.Rank())
	for _, d := range dims {
		if d < 0 || int(d) >= in0.Rank() || reduced[d] {
			return nil, op.Errorf("dimensions %v invalid for rank %d", dims, in0.Rank())
		}
		reduced[d] = true
	}
	var kept []int64
	for i, r := range reduced {
		if !r {
			kept = append(kept, in0.Shape[i])
		}
	}
	elems := make([]ir.ElemType, n)
	for i := range n {
		in, err := lowerutil.TensorOperand(op, i)
		if err != nil {
			return nil, err
		}
		init, err := lowerutil.TensorOperand(op, n+i)
		if err != nil {
			return nil, err
		}
		out, err := lowerutil.TensorResult(op, i)
		if err != nil {
			return nil, err
		}
		if !lowerutil.SameShape(in.Shape, in0.Shape) || init.Rank() != 0 || init.Elem != in.Elem || out.Elem != in.Elem || !lowerutil.SameShape(out.Shape, kept) {
			return nil, op.Errorf("input %d %s, init %s and result %s do not agree with dimensions %v", i, in, init, out, dims)
		}
		elems[i] = in.Elem
	}
	lay := newLayout(in0.Shape, reduced)
	if n == 1 {
		if kind := binaryBody(op.Regions[0], elems[0]); kind != opNone {
			if tk := newTyped(elems[0], kind); tk != nil {
				return tk.reduceStep(ctx, lay), nil
			}
		}
	}
	if n == 2 {
		if ab, ok := matchArgBody(op.Regions[0], elems[0], elems[1]); ok {
			return argStep(ctx, lay, ab, elems[0], elems[1]), nil
		}
	}
	body, err := ctx.CompileRegion(op.Regions[0])
	if err != nil {
		return nil, op.Errorf("compiling body: %v", err)
	}
	return genericReduce(ctx, lay, elems, body), nil
}

// genericReduce folds each output's inputs in row-major order through the
// compiled body: acc = body(acc..., x...). Outputs run in parallel; each one
// is sequential, so results do not depend on the split.
func genericReduce(ctx kernel.Context, lay layout, elems []ir.ElemType, body kernel.Callable) kernel.Step {
	n := len(elems)
	es := make([]int, n)
	for i, e := range elems {
		es[i] = e.ByteSize()
	}
	return func(ins, outs [][]byte) error {
		if lay.kn == 0 {
			return nil
		}
		var firstErr error
		var errMu = make(chan struct{}, 1)
		work := func(lo, hi int) {
			args := make([][]byte, 2*n)
			accA := make([][]byte, n)
			accB := make([][]byte, n)
			for i := range n {
				accA[i] = make([]byte, es[i])
				accB[i] = make([]byte, es[i])
			}
			for k := lo; k < hi; k++ {
				cur, next := accA, accB
				for i := range n {
					copy(cur[i], ins[n+i])
				}
				kOff := offset(k, lay.kShape, lay.kStride)
				for r := range lay.rn {
					off := kOff + offset(r, lay.rShape, lay.rStride)
					copy(args, cur)
					for i := range n {
						args[n+i] = ins[i][off*es[i] : (off+1)*es[i]]
					}
					if err := body.Call(args, next); err != nil {
						select {
						case errMu <- struct{}{}:
							firstErr = err
						default:
						}
						return
					}
					cur, next = next, cur
				}
				for i := range n {
					copy(outs[i][k*es[i]:], cur[i])
				}
			}
		}
		if ctx == nil || lay.kn < 2 || lay.kn*lay.rn < 4096 {
			work(0, lay.kn)
		} else {
			ctx.Parallel(lay.kn, max(1, 4096/max(1, lay.rn)), work)
		}
		return firstErr
	}
}
