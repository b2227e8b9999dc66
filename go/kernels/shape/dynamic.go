package shape

import (
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/lowerutil"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// The dynamic_* ops are supported when their result types are static (the
// reader rejects dynamic shapes): shape operands are checked against the
// result type at run time, and start/limit/stride/padding operands are
// honoured at run time.
func init() {
	kernel.Register("stablehlo.dynamic_reshape", lowerDynamicReshape)
	kernel.Register("stablehlo.dynamic_broadcast_in_dim", lowerDynamicBroadcastInDim)
	kernel.Register("stablehlo.dynamic_iota", lowerDynamicIota)
	kernel.Register("stablehlo.real_dynamic_slice", lowerRealDynamicSlice)
	kernel.Register("stablehlo.dynamic_pad", lowerDynamicPad)
}

// vecOperand checks that operand i is a 1-D integer tensor of length n.
func vecOperand(op *ir.Op, i, n int) (ir.ElemType, error) {
	t, err := lowerutil.TensorOperand(op, i)
	if err != nil {
		return ir.Invalid, err
	}
	if t.Rank() != 1 || int(t.Shape[0]) != n || !lowerutil.IsIndexType(t.Elem) {
		return ir.Invalid, op.Errorf("operand %d is %s, want a 1-D integer tensor of %d elements", i, t, n)
	}
	return t.Elem, nil
}

func readVec(b []byte, et ir.ElemType, n int) []int64 {
	v := make([]int64, n)
	for i := range v {
		v[i] = lowerutil.ReadIndex(b, et, i)
	}
	return v
}

// checkShape compares a runtime shape operand with the static result shape.
func checkShape(op *ir.Op, b []byte, et ir.ElemType, want []int64) error {
	for i, w := range want {
		if v := lowerutil.ReadIndex(b, et, i); v != w {
			return op.Errorf("shape operand[%d] = %d, but the static result needs %d", i, v, w)
		}
	}
	return nil
}

func withShapeCheck(op *ir.Op, shapeOperand int, et ir.ElemType, want []int64, st kernel.Step) kernel.Step {
	return func(ins, outs [][]byte) error {
		if err := checkShape(op, ins[shapeOperand], et, want); err != nil {
			return err
		}
		return st(ins, outs)
	}
}

func lowerDynamicReshape(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	if len(op.Operands) != 2 || len(op.Results) != 1 {
		return nil, op.Errorf("expected operand, output_shape and 1 result")
	}
	out, err := lowerutil.TensorResult(op, 0)
	if err != nil {
		return nil, err
	}
	et, err := vecOperand(op, 1, out.Rank())
	if err != nil {
		return nil, err
	}
	in, err := lowerutil.TensorOperand(op, 0)
	if err != nil {
		return nil, err
	}
	if in.Elem != out.Elem || in.NumElements() != out.NumElements() {
		return nil, op.Errorf("cannot reshape %s to %s", in, out)
	}
	p := newCopyPlan([]int64{out.NumElements()}, []int64{1}, []int64{1}, out.Elem.ByteSize())
	return withShapeCheck(op, 1, et, out.Shape, planStep(ctx, p)), nil
}

func lowerDynamicBroadcastInDim(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	if len(op.Operands) != 2 || len(op.Results) != 1 {
		return nil, op.Errorf("expected operand, output_dimensions and 1 result")
	}
	out, err := lowerutil.TensorResult(op, 0)
	if err != nil {
		return nil, err
	}
	et, err := vecOperand(op, 1, out.Rank())
	if err != nil {
		return nil, err
	}
	// Same data movement as broadcast_in_dim on a one-operand view of the op.
	view := &ir.Op{Name: op.Name, Operands: op.Operands[:1], Results: op.Results, Attrs: op.Attrs, Loc: op.Loc}
	st, err := lowerBroadcastInDim(ctx, view)
	if err != nil {
		return nil, err
	}
	return withShapeCheck(op, 1, et, out.Shape, st), nil
}

func lowerDynamicIota(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	if len(op.Operands) != 1 || len(op.Results) != 1 {
		return nil, op.Errorf("expected output_shape and 1 result")
	}
	out, err := lowerutil.TensorResult(op, 0)
	if err != nil {
		return nil, err
	}
	et, err := vecOperand(op, 0, out.Rank())
	if err != nil {
		return nil, err
	}
	dim, err := lowerutil.IntAttr(op, "iota_dimension")
	if err != nil {
		return nil, err
	}
	st, err := iotaStep(ctx, op, out, dim)
	if err != nil {
		return nil, err
	}
	return withShapeCheck(op, 0, et, out.Shape, st), nil
}

func lowerRealDynamicSlice(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	if len(op.Operands) != 4 || len(op.Results) != 1 {
		return nil, op.Errorf("expected operand, start_indices, limit_indices, strides and 1 result")
	}
	in, err := lowerutil.TensorOperand(op, 0)
	if err != nil {
		return nil, err
	}
	out, err := lowerutil.TensorResult(op, 0)
	if err != nil {
		return nil, err
	}
	r := in.Rank()
	if out.Rank() != r || out.Elem != in.Elem {
		return nil, op.Errorf("result %s does not fit operand %s", out, in)
	}
	var ets [3]ir.ElemType
	for i := range 3 {
		if ets[i], err = vecOperand(op, i+1, r); err != nil {
			return nil, err
		}
	}
	ist, ost := in.Strides(), out.Strides()
	es := in.Elem.ByteSize()
	return func(ins, outs [][]byte) error {
		start, limit, stride := readVec(ins[1], ets[0], r), readVec(ins[2], ets[1], r), readVec(ins[3], ets[2], r)
		src := make([]int64, r)
		base := int64(0)
		for d := range r {
			if stride[d] <= 0 || start[d] < 0 || limit[d] < start[d] || limit[d] > in.Shape[d] ||
				(limit[d]-start[d]+stride[d]-1)/stride[d] != out.Shape[d] {
				return op.Errorf("slice [%d:%d:%d] of dim %d (size %d) does not give the static size %d",
					start[d], limit[d], stride[d], d, in.Shape[d], out.Shape[d])
			}
			src[d] = ist[d] * stride[d]
			base += start[d] * ist[d]
		}
		newCopyPlan(out.Shape, ost, src, es).run(ctx, outs[0], ins[0], 0, int(base))
		return nil
	}, nil
}

func lowerDynamicPad(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	if len(op.Operands) != 5 || len(op.Results) != 1 {
		return nil, op.Errorf("expected operand, padding_value, low, high, interior and 1 result")
	}
	in, err := lowerutil.TensorOperand(op, 0)
	if err != nil {
		return nil, err
	}
	out, err := lowerutil.TensorResult(op, 0)
	if err != nil {
		return nil, err
	}
	r := in.Rank()
	if out.Rank() != r || out.Elem != in.Elem {
		return nil, op.Errorf("result %s does not fit operand %s", out, in)
	}
	var ets [3]ir.ElemType
	for i := range 3 {
		if ets[i], err = vecOperand(op, i+2, r); err != nil {
			return nil, err
		}
	}
	return func(ins, outs [][]byte) error {
		// Build a static pad op from the runtime values and run it once.
		static := &ir.Op{Name: op.Name, Operands: op.Operands[:2], Results: op.Results, Loc: op.Loc, Attrs: ir.Attrs{
			"edge_padding_low":  ir.DenseI64Attr{Values: readVec(ins[2], ets[0], r)},
			"edge_padding_high": ir.DenseI64Attr{Values: readVec(ins[3], ets[1], r)},
			"interior_padding":  ir.DenseI64Attr{Values: readVec(ins[4], ets[2], r)},
		}}
		st, err := lowerPad(ctx, static)
		if err != nil {
			return err
		}
		return st(ins[:2], outs)
	}, nil
}
