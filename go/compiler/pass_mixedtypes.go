package compiler

import (
	"github.com/gojax/gojax/go/ir"
)

// widenIntegerOperands gives dot_general and convolution ops whose operands
// are integers but whose result is floating point (lax.dot or lax.conv with
// an integer input and a float preferred_element_type) operands of the
// result's type: a convert of each integer operand first. That is what the
// op means (products and sums in the result's type), and what JAX compares
// it with; the kernels then see one arithmetic.
func widenIntegerOperands(st *passState) error {
	rewritten := map[*ir.Op][]*ir.Op{}
	st.entry.Body.Walk(func(op *ir.Op) bool {
		if op.Name != "stablehlo.dot_general" && op.Name != "stablehlo.convolution" || len(op.Results) != 1 || len(op.Operands) != 2 {
			return true
		}
		rt := op.Results[0].Tensor()
		if rt == nil || !(rt.Elem.IsFloat() || rt.Elem.IsComplex()) {
			return true
		}
		var ops []*ir.Op
		for i, v := range op.Operands {
			t := v.Tensor()
			if t == nil || !(t.Elem.IsInteger() || t.Elem.IsBool()) {
				continue
			}
			cv := newOp("stablehlo.convert", []*ir.Value{v}, &ir.TensorType{Elem: rt.Elem, Shape: t.Shape}, ir.Attrs{})
			cv.Loc, cv.Block = op.Loc, op.Block
			ops = append(ops, cv)
			op.Operands[i] = cv.Results[0]
		}
		if len(ops) > 0 {
			rewritten[op] = append(ops, op)
		}
		return true
	})
	if len(rewritten) > 0 {
		spliceOps(st.entry.Body, rewritten)
	}
	return nil
}
