package verify

import (
	"fmt"
	"slices"

	"github.com/gojax/gojax/go/ir"
)

// Data movement ops: broadcast, reshape, transpose, slicing, padding,
// concatenation, iota and their dynamic variants (spec "Data movement").

func init() {
	register(map[string]checkFunc{
		"stablehlo.broadcast":                checkBroadcast,
		"stablehlo.broadcast_in_dim":         checkBroadcastInDim,
		"stablehlo.reshape":                  checkReshape,
		"stablehlo.transpose":                checkTranspose,
		"stablehlo.slice":                    checkSlice,
		"stablehlo.dynamic_slice":            checkDynamicSlice,
		"stablehlo.dynamic_update_slice":     checkDynamicUpdateSlice,
		"stablehlo.concatenate":              checkConcatenate,
		"stablehlo.pad":                      checkPad,
		"stablehlo.reverse":                  checkReverse,
		"stablehlo.iota":                     checkIota,
		"stablehlo.get_dimension_size":       checkGetDimensionSize,
		"stablehlo.set_dimension_size":       checkSetDimensionSize,
		"stablehlo.dynamic_broadcast_in_dim": checkDynamicBroadcastInDim,
		"stablehlo.dynamic_iota":             checkDynamicIota,
		"stablehlo.dynamic_pad":              checkDynamicPad,
		"stablehlo.dynamic_reshape":          checkDynamicReshape,
		"stablehlo.real_dynamic_slice":       checkRealDynamicSlice,
		"stablehlo.torch_index_select":       checkTorchIndexSelect,
	})
}

func checkBroadcast(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 1, 1)
	if err != nil {
		return err
	}
	sizes, _, err := i64s(op, "broadcast_sizes", true)
	if err != nil {
		return err
	}
	if err := wantElem(op, "result", outs[0], ins[0].Elem); err != nil {
		return err
	}
	return wantShape(op, "result", outs[0], append(slices.Clone(sizes), ins[0].Shape...))
}

func checkBroadcastInDim(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 1, 1)
	if err != nil {
		return err
	}
	in, out := ins[0], outs[0]
	dims, _, err := i64s(op, "broadcast_dimensions", true)
	if err != nil {
		return err
	}
	if err := wantElem(op, "result", out, in.Elem); err != nil {
		return err
	}
	if err := lenIs(op, "broadcast_dimensions", dims, in.Rank()); err != nil {
		return err
	}
	if err := dimsIn(op, "broadcast_dimensions", dims, out.Rank()); err != nil {
		return err
	}
	if err := unique(op, "broadcast_dimensions", dims); err != nil {
		return err
	}
	for i, d := range dims {
		if in.Shape[i] != 1 && in.Shape[i] != out.Shape[d] {
			return op.Errorf("operand dim %d has size %d, result dim %d has %d", i, in.Shape[i], d, out.Shape[d])
		}
	}
	return nil
}

func checkReshape(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 1, 1)
	if err != nil {
		return err
	}
	if err := wantElem(op, "result", outs[0], ins[0].Elem); err != nil {
		return err
	}
	if ins[0].NumElements() != outs[0].NumElements() {
		return op.Errorf("result %s has %d elements, operand %s has %d", outs[0], outs[0].NumElements(), ins[0], ins[0].NumElements())
	}
	return nil
}

func checkTranspose(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 1, 1)
	if err != nil {
		return err
	}
	perm, _, err := i64s(op, "permutation", true)
	if err != nil {
		return err
	}
	if err := isPermutation(op, "permutation", perm, ins[0].Rank()); err != nil {
		return err
	}
	if err := wantElem(op, "result", outs[0], ins[0].Elem); err != nil {
		return err
	}
	want := make([]int64, len(perm))
	for i, p := range perm {
		want[i] = ins[0].Shape[p]
	}
	return wantShape(op, "result", outs[0], want)
}

func checkSlice(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 1, 1)
	if err != nil {
		return err
	}
	in := ins[0]
	var lists [3][]int64
	for i, name := range []string{"start_indices", "limit_indices", "strides"} {
		l, _, err := i64s(op, name, true)
		if err != nil {
			return err
		}
		if err := lenIs(op, name, l, in.Rank()); err != nil {
			return err
		}
		lists[i] = l
	}
	start, limit, strides := lists[0], lists[1], lists[2]
	want := make([]int64, in.Rank())
	for d := range want {
		if start[d] < 0 || start[d] > limit[d] || limit[d] > in.Shape[d] || strides[d] <= 0 {
			return op.Errorf("dim %d: need 0 <= start (%d) <= limit (%d) <= size (%d) and stride (%d) > 0",
				d, start[d], limit[d], in.Shape[d], strides[d])
		}
		want[d] = (limit[d] - start[d] + strides[d] - 1) / strides[d]
	}
	if err := wantElem(op, "result", outs[0], in.Elem); err != nil {
		return err
	}
	return wantShape(op, "result", outs[0], want)
}

// startIndices checks n 0-d integer operands of one element type from index first.
func startIndices(op *ir.Op, first, n int) error {
	if len(op.Operands)-first != n {
		return op.Errorf("expects %d start indices, has %d", n, len(op.Operands)-first)
	}
	var elem ir.ElemType
	for i := first; i < len(op.Operands); i++ {
		if err := scalarInt(op, fmt.Sprintf("start index %d", i-first), op.Operands[i]); err != nil {
			return err
		}
		e := op.Operands[i].Tensor().Elem
		if i > first && e != elem {
			return op.Errorf("start indices have mixed element types %s and %s", elem, e)
		}
		elem = e
	}
	return nil
}

func checkDynamicSlice(v *verifier, op *ir.Op) error {
	if len(op.Operands) < 1 {
		return op.Errorf("expects an operand")
	}
	ins, outs, err := v.sig(op, -1, 1)
	if err != nil {
		return err
	}
	in := ins[0]
	if err := startIndices(op, 1, in.Rank()); err != nil {
		return err
	}
	sizes, _, err := i64s(op, "slice_sizes", true)
	if err != nil {
		return err
	}
	if err := lenIs(op, "slice_sizes", sizes, in.Rank()); err != nil {
		return err
	}
	for d, s := range sizes {
		if s < 0 || s > in.Shape[d] {
			return op.Errorf("slice_sizes[%d] = %d out of range [0, %d]", d, s, in.Shape[d])
		}
	}
	if err := wantElem(op, "result", outs[0], in.Elem); err != nil {
		return err
	}
	return wantShape(op, "result", outs[0], sizes)
}

func checkDynamicUpdateSlice(v *verifier, op *ir.Op) error {
	if len(op.Operands) < 2 {
		return op.Errorf("expects operand and update")
	}
	ins, outs, err := v.sig(op, -1, 1)
	if err != nil {
		return err
	}
	in, upd := ins[0], ins[1]
	if err := startIndices(op, 2, in.Rank()); err != nil {
		return err
	}
	if upd.Elem != in.Elem || upd.Rank() != in.Rank() {
		return op.Errorf("update %s must have the operand's element type and rank (%s)", upd, in)
	}
	for d := range upd.Shape {
		if upd.Shape[d] > in.Shape[d] {
			return op.Errorf("update dim %d (%d) larger than operand (%d)", d, upd.Shape[d], in.Shape[d])
		}
	}
	return sameType(op, "result type must equal operand type", in, outs[0])
}

func checkConcatenate(v *verifier, op *ir.Op) error {
	if len(op.Operands) < 1 {
		return op.Errorf("expects at least one input")
	}
	ins, outs, err := v.sig(op, -1, 1)
	if err != nil {
		return err
	}
	dim, err := intAttr(op, "dimension", true, 0)
	if err != nil {
		return err
	}
	first := ins[0]
	if dim < 0 || dim >= int64(first.Rank()) {
		return op.Errorf("dimension %d out of range for rank %d", dim, first.Rank())
	}
	want := slices.Clone(first.Shape)
	want[dim] = 0
	for i, t := range ins {
		if t.Elem != first.Elem || t.Rank() != first.Rank() {
			return op.Errorf("input %d (%s) differs from input 0 (%s) in element type or rank", i, t, first)
		}
		for d := range t.Shape {
			if int64(d) != dim && t.Shape[d] != first.Shape[d] {
				return op.Errorf("input %d dim %d is %d; input 0 has %d", i, d, t.Shape[d], first.Shape[d])
			}
		}
		want[dim] += t.Shape[dim]
	}
	if err := wantElem(op, "result", outs[0], first.Elem); err != nil {
		return err
	}
	return wantShape(op, "result", outs[0], want)
}

func checkPad(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 2, 1)
	if err != nil {
		return err
	}
	in, pv := ins[0], ins[1]
	if pv.Rank() != 0 || pv.Elem != in.Elem {
		return op.Errorf("padding_value must be a 0-d %s tensor, is %s", in.Elem, pv)
	}
	var lists [3][]int64
	for i, name := range []string{"edge_padding_low", "edge_padding_high", "interior_padding"} {
		l, _, err := i64s(op, name, true)
		if err != nil {
			return err
		}
		if err := lenIs(op, name, l, in.Rank()); err != nil {
			return err
		}
		lists[i] = l
	}
	lo, hi, interior := lists[0], lists[1], lists[2]
	want := make([]int64, in.Rank())
	for d := range want {
		if interior[d] < 0 {
			return op.Errorf("interior_padding[%d] = %d is negative", d, interior[d])
		}
		n := in.Shape[d]
		inner := n
		if n > 0 {
			inner += (n - 1) * interior[d]
		}
		want[d] = lo[d] + hi[d] + inner
		if want[d] < 0 {
			return op.Errorf("dim %d pads to negative size %d", d, want[d])
		}
	}
	if err := wantElem(op, "result", outs[0], in.Elem); err != nil {
		return err
	}
	return wantShape(op, "result", outs[0], want)
}

func checkReverse(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 1, 1)
	if err != nil {
		return err
	}
	dims, _, err := i64s(op, "dimensions", true)
	if err != nil {
		return err
	}
	if err := dimsIn(op, "dimensions", dims, ins[0].Rank()); err != nil {
		return err
	}
	if err := unique(op, "dimensions", dims); err != nil {
		return err
	}
	return sameType(op, "result type must equal operand type", ins[0], outs[0])
}

func checkIota(v *verifier, op *ir.Op) error {
	_, outs, err := v.sig(op, 0, 1)
	if err != nil {
		return err
	}
	d, err := intAttr(op, "iota_dimension", true, 0)
	if err != nil {
		return err
	}
	if d < 0 || d >= int64(outs[0].Rank()) {
		return op.Errorf("iota_dimension %d out of range for %s", d, outs[0])
	}
	return elemIn(op, "result", outs[0], classNumeric)
}

func checkGetDimensionSize(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 1, 1)
	if err != nil {
		return err
	}
	d, err := intAttr(op, "dimension", true, 0)
	if err != nil {
		return err
	}
	if d < 0 || d >= int64(ins[0].Rank()) {
		return op.Errorf("dimension %d out of range for %s", d, ins[0])
	}
	if err := wantElem(op, "result", outs[0], ir.S32); err != nil {
		return err
	}
	return wantShape(op, "result", outs[0], nil)
}

func checkSetDimensionSize(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 2, 1)
	if err != nil {
		return err
	}
	d, err := intAttr(op, "dimension", true, 0)
	if err != nil {
		return err
	}
	if d < 0 || d >= int64(ins[0].Rank()) {
		return op.Errorf("dimension %d out of range for %s", d, ins[0])
	}
	if ins[1].Rank() != 0 || ins[1].Elem != ir.S32 {
		return op.Errorf("size must be a 0-d i32 tensor, is %s", ins[1])
	}
	if outs[0].Elem != ins[0].Elem || outs[0].Rank() != ins[0].Rank() {
		return op.Errorf("result %s must keep the operand's element type and rank (%s)", outs[0], ins[0])
	}
	return nil
}

// shapeOperand checks a 1-d integer tensor of n entries (a dynamic shape operand).
func shapeOperand(op *ir.Op, role string, t *ir.TensorType, n int) error {
	if t.Rank() != 1 || !t.Elem.IsInteger() {
		return op.Errorf("%s must be a 1-d integer tensor, is %s", role, t)
	}
	if n >= 0 && t.Shape[0] != int64(n) {
		return op.Errorf("%s has %d entries; expected %d", role, t.Shape[0], n)
	}
	return nil
}

func checkDynamicBroadcastInDim(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 2, 1)
	if err != nil {
		return err
	}
	in, out := ins[0], outs[0]
	if err := shapeOperand(op, "output_dimensions", ins[1], out.Rank()); err != nil {
		return err
	}
	dims, _, err := i64s(op, "broadcast_dimensions", true)
	if err != nil {
		return err
	}
	if err := lenIs(op, "broadcast_dimensions", dims, in.Rank()); err != nil {
		return err
	}
	if err := dimsIn(op, "broadcast_dimensions", dims, out.Rank()); err != nil {
		return err
	}
	for _, name := range []string{"known_expanding_dimensions", "known_nonexpanding_dimensions"} {
		l, _, err := i64s(op, name, false)
		if err != nil {
			return err
		}
		if err := dimsIn(op, name, l, in.Rank()); err != nil {
			return err
		}
	}
	return wantElem(op, "result", out, in.Elem)
}

func checkDynamicIota(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 1, 1)
	if err != nil {
		return err
	}
	if err := shapeOperand(op, "output_shape", ins[0], outs[0].Rank()); err != nil {
		return err
	}
	d, err := intAttr(op, "iota_dimension", true, 0)
	if err != nil {
		return err
	}
	if d < 0 || d >= int64(outs[0].Rank()) {
		return op.Errorf("iota_dimension %d out of range for %s", d, outs[0])
	}
	return nil
}

func checkDynamicPad(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 5, 1)
	if err != nil {
		return err
	}
	in := ins[0]
	if ins[1].Rank() != 0 || ins[1].Elem != in.Elem {
		return op.Errorf("padding_value must be a 0-d %s tensor, is %s", in.Elem, ins[1])
	}
	for i, role := range []string{"edge_padding_low", "edge_padding_high", "interior_padding"} {
		if err := shapeOperand(op, role, ins[2+i], in.Rank()); err != nil {
			return err
		}
	}
	if outs[0].Elem != in.Elem || outs[0].Rank() != in.Rank() {
		return op.Errorf("result %s must keep the operand's element type and rank (%s)", outs[0], in)
	}
	return nil
}

func checkDynamicReshape(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 2, 1)
	if err != nil {
		return err
	}
	if err := shapeOperand(op, "output_shape", ins[1], outs[0].Rank()); err != nil {
		return err
	}
	if err := wantElem(op, "result", outs[0], ins[0].Elem); err != nil {
		return err
	}
	if ins[0].NumElements() != outs[0].NumElements() {
		return op.Errorf("result %s and operand %s differ in element count", outs[0], ins[0])
	}
	return nil
}

func checkRealDynamicSlice(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 4, 1)
	if err != nil {
		return err
	}
	in := ins[0]
	for i, role := range []string{"start_indices", "limit_indices", "strides"} {
		if err := shapeOperand(op, role, ins[1+i], in.Rank()); err != nil {
			return err
		}
	}
	if outs[0].Elem != in.Elem || outs[0].Rank() != in.Rank() {
		return op.Errorf("result %s must keep the operand's element type and rank (%s)", outs[0], in)
	}
	return nil
}

func checkTorchIndexSelect(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 2, 1)
	if err != nil {
		return err
	}
	in, idx := ins[0], ins[1]
	dim, err := intAttr(op, "dim", true, 0)
	if err != nil {
		return err
	}
	batch, err := intAttr(op, "batch_dims", true, 0)
	if err != nil {
		return err
	}
	if !idx.Elem.IsInteger() {
		return op.Errorf("index must be an integer tensor, is %s", idx)
	}
	if dim < 0 || dim >= int64(in.Rank()) || batch < 0 || batch > dim || batch > int64(idx.Rank()) {
		return op.Errorf("dim %d / batch_dims %d out of range for operand %s and index %s", dim, batch, in, idx)
	}
	want := slices.Clone(in.Shape[:dim])
	want = append(want, idx.Shape[batch:]...)
	want = append(want, in.Shape[dim+1:]...)
	if err := wantElem(op, "result", outs[0], in.Elem); err != nil {
		return err
	}
	return wantShape(op, "result", outs[0], want)
}
