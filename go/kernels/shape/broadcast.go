package shape

import (
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/lowerutil"
	"github.com/gojax/gojax/go/kernels/kernel"
)

func init() {
	kernel.RegisterOp("stablehlo.broadcast_in_dim", lowerBroadcastInDim, kernel.Traits{Storage: true})
	kernel.Register("stablehlo.broadcast", lowerBroadcast)
	kernel.RegisterOp("stablehlo.reshape", lowerReshape, kernel.Traits{Storage: true})
	kernel.RegisterOp("stablehlo.transpose", lowerTranspose, kernel.Traits{Storage: true})
}

// planStep wraps a single plan from ins[0] to outs[0].
func planStep(ctx kernel.Context, p *copyPlan) kernel.Step {
	return func(ins, outs [][]byte) error {
		p.run(ctx, outs[0], ins[0], 0, 0)
		return nil
	}
}

func lowerBroadcastInDim(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	in, out, err := lowerutil.Unary(op)
	if err != nil {
		return nil, err
	}
	dims, err := lowerutil.I64s(op, "broadcast_dimensions")
	if err != nil {
		return nil, err
	}
	if in.Elem != out.Elem {
		return nil, op.Errorf("element type %s differs from result %s", in.Elem, out.Elem)
	}
	if len(dims) != in.Rank() {
		return nil, op.Errorf("broadcast_dimensions has %d entries for an operand of rank %d", len(dims), in.Rank())
	}
	inSt := in.Strides()
	src := make([]int64, out.Rank())
	used := make([]bool, out.Rank())
	for i, d := range dims {
		if d < 0 || int(d) >= out.Rank() || used[d] {
			return nil, op.Errorf("broadcast_dimensions %v invalid for result rank %d", dims, out.Rank())
		}
		used[d] = true
		switch in.Shape[i] {
		case out.Shape[d]:
			src[d] = inSt[i]
		case 1:
			src[d] = 0
		default:
			return nil, op.Errorf("operand dim %d (size %d) cannot broadcast to result dim %d (size %d)", i, in.Shape[i], d, out.Shape[d])
		}
	}
	return planStep(ctx, newCopyPlan(out.Shape, out.Strides(), src, out.Elem.ByteSize())), nil
}

// lowerBroadcast handles the legacy broadcast: result shape is
// broadcast_sizes followed by the operand shape.
func lowerBroadcast(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	in, out, err := lowerutil.Unary(op)
	if err != nil {
		return nil, err
	}
	sizes, err := lowerutil.I64s(op, "broadcast_sizes")
	if err != nil {
		return nil, err
	}
	if in.Elem != out.Elem || !lowerutil.SameShape(append(append([]int64{}, sizes...), in.Shape...), out.Shape) {
		return nil, op.Errorf("result %s is not broadcast_sizes %v ++ operand %s", out, sizes, in)
	}
	src := append(make([]int64, len(sizes)), in.Strides()...)
	return planStep(ctx, newCopyPlan(out.Shape, out.Strides(), src, out.Elem.ByteSize())), nil
}

func lowerReshape(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	in, out, err := lowerutil.Unary(op)
	if err != nil {
		return nil, err
	}
	if in.Elem != out.Elem || in.NumElements() != out.NumElements() {
		return nil, op.Errorf("cannot reshape %s to %s", in, out)
	}
	n := int(out.NumElements())
	p := newCopyPlan([]int64{int64(n)}, []int64{1}, []int64{1}, out.Elem.ByteSize())
	return planStep(ctx, p), nil
}

func lowerTranspose(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	in, out, err := lowerutil.Unary(op)
	if err != nil {
		return nil, err
	}
	perm, err := lowerutil.I64s(op, "permutation")
	if err != nil {
		return nil, err
	}
	if !lowerutil.IsPerm(perm, in.Rank()) || in.Elem != out.Elem {
		return nil, op.Errorf("permutation %v invalid for operand %s", perm, in)
	}
	inSt := in.Strides()
	src := make([]int64, len(perm))
	for i, p := range perm {
		if out.Shape[i] != in.Shape[p] {
			return nil, op.Errorf("result %s does not match operand %s permuted by %v", out, in, perm)
		}
		src[i] = inSt[p]
	}
	return planStep(ctx, newCopyPlan(out.Shape, out.Strides(), src, out.Elem.ByteSize())), nil
}
