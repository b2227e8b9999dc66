package verify

import (
	"github.com/gojax/gojax/go/ir"
	// The elementwise kernels register the element-type rules of their ops
	// (kernel.Traits.Class, Check) before this package's init reads them.
	_ "github.com/gojax/gojax/go/kernels/elementwise"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// Elementwise ops: unary and binary maps, compare, select, clamp, complex,
// conversions (spec "Elementwise operations"). The same-type maps take
// their element-type class from the kernel registry, where each op's
// kernel file declares it.

// The verifier's classes are the registry's, bit for bit.
var _ = [1]struct{}{}[classBool^elemClass(kernel.ClassBool)|classSigned^elemClass(kernel.ClassSigned)|
	classUnsigned^elemClass(kernel.ClassUnsigned)|classFloat^elemClass(kernel.ClassFloat)|classComplex^elemClass(kernel.ClassComplex)]

func init() {
	sameType := map[string]checkFunc{}
	for _, name := range kernel.Ops() {
		tr := kernel.TraitsOf(name)
		switch {
		case tr.Class == 0:
		case tr.Arity == 1:
			sameType[name] = unary(elemClass(tr.Class))
		case tr.Arity == 2:
			sameType[name] = binary(elemClass(tr.Class))
		}
	}
	register(sameType)
	register(map[string]checkFunc{
		"stablehlo.abs":              checkAbs,
		"stablehlo.is_finite":        checkIsFinite,
		"stablehlo.real":             realImag,
		"stablehlo.imag":             realImag,
		"stablehlo.convert":          checkConvert,
		"stablehlo.bitcast_convert":  checkBitcastConvert,
		"stablehlo.reduce_precision": checkReducePrecision,

		"stablehlo.complex": checkComplex,
		"stablehlo.compare": checkCompare,
		"stablehlo.select":  checkSelect,
		"stablehlo.clamp":   checkClamp,
	})
}

// unary: one operand, one result of the same type, element type in class.
func unary(c elemClass) checkFunc {
	return func(v *verifier, op *ir.Op) error {
		ins, outs, err := v.sig(op, 1, 1)
		if err != nil {
			return err
		}
		if err := elemIn(op, "operand", ins[0], c); err != nil {
			return err
		}
		return sameType(op, "result type must equal operand type", ins[0], outs[0])
	}
}

// binary: two operands and a result all of one type, element type in class.
func binary(c elemClass) checkFunc {
	return func(v *verifier, op *ir.Op) error {
		ins, outs, err := v.sig(op, 2, 1)
		if err != nil {
			return err
		}
		if err := elemIn(op, "lhs", ins[0], c); err != nil {
			return err
		}
		if err := sameType(op, "rhs type must equal lhs type", ins[0], ins[1]); err != nil {
			return err
		}
		return sameType(op, "result type must equal operand type", ins[0], outs[0])
	}
}

// checkAbs: complex operands give their real part type.
func checkAbs(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 1, 1)
	if err != nil {
		return err
	}
	if err := elemIn(op, "operand", ins[0], classSFC); err != nil {
		return err
	}
	if err := sameShape(op, "result shape must equal operand shape", ins[0], outs[0]); err != nil {
		return err
	}
	want := ins[0].Elem
	if want.IsComplex() {
		want = complexPart(want)
	}
	return wantElem(op, "result", outs[0], want)
}

func checkIsFinite(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 1, 1)
	if err != nil {
		return err
	}
	if err := elemIn(op, "operand", ins[0], classFloat); err != nil {
		return err
	}
	if err := sameShape(op, "result shape must equal operand shape", ins[0], outs[0]); err != nil {
		return err
	}
	return wantElem(op, "result", outs[0], ir.Pred)
}

// realImag: complex → its part type; float → same type.
func realImag(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 1, 1)
	if err != nil {
		return err
	}
	if err := elemIn(op, "operand", ins[0], classFC); err != nil {
		return err
	}
	if err := sameShape(op, "result shape must equal operand shape", ins[0], outs[0]); err != nil {
		return err
	}
	want := ins[0].Elem
	if want.IsComplex() {
		want = complexPart(want)
	}
	return wantElem(op, "result", outs[0], want)
}

func checkConvert(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 1, 1)
	if err != nil {
		return err
	}
	return sameShape(op, "result shape must equal operand shape", ins[0], outs[0])
}

// checkBitcastConvert: equal widths keep the shape; a wider operand gains a
// trailing dim of the width ratio; a narrower one loses it.
func checkBitcastConvert(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 1, 1)
	if err != nil {
		return err
	}
	in, out := ins[0], outs[0]
	ib, ob := int64(in.Elem.Bits()), int64(out.Elem.Bits())
	switch {
	case ib == ob:
		return sameShape(op, "result shape must equal operand shape", in, out)
	case ib > ob:
		want := append(append([]int64(nil), in.Shape...), ib/ob)
		if ib%ob != 0 {
			return op.Errorf("operand width %d is not a multiple of result width %d", ib, ob)
		}
		return wantShape(op, "result", out, want)
	default:
		if ob%ib != 0 {
			return op.Errorf("result width %d is not a multiple of operand width %d", ob, ib)
		}
		want := append([]int64(nil), out.Shape...)
		want = append(want, ob/ib)
		return wantShape(op, "operand", in, want)
	}
}

func checkReducePrecision(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 1, 1)
	if err != nil {
		return err
	}
	if err := elemIn(op, "operand", ins[0], classFloat); err != nil {
		return err
	}
	if err := sameType(op, "result type must equal operand type", ins[0], outs[0]); err != nil {
		return err
	}
	e, err := intAttr(op, "exponent_bits", true, 0)
	if err != nil {
		return err
	}
	m, err := intAttr(op, "mantissa_bits", true, 0)
	if err != nil {
		return err
	}
	if e < 1 || m < 0 {
		return op.Errorf("exponent_bits must be >= 1 and mantissa_bits >= 0, are %d and %d", e, m)
	}
	return nil
}

func checkComplex(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 2, 1)
	if err != nil {
		return err
	}
	if ins[0].Elem != ir.F32 && ins[0].Elem != ir.F64 {
		return op.Errorf("lhs must be f32 or f64, is %s", ins[0])
	}
	if err := sameType(op, "rhs type must equal lhs type", ins[0], ins[1]); err != nil {
		return err
	}
	if err := sameShape(op, "result shape must equal operand shape", ins[0], outs[0]); err != nil {
		return err
	}
	want := ir.C64
	if ins[0].Elem == ir.F64 {
		want = ir.C128
	}
	return wantElem(op, "result", outs[0], want)
}

func checkCompare(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 2, 1)
	if err != nil {
		return err
	}
	if err := sameType(op, "rhs type must equal lhs type", ins[0], ins[1]); err != nil {
		return err
	}
	if err := sameShape(op, "result shape must equal operand shape", ins[0], outs[0]); err != nil {
		return err
	}
	if err := wantElem(op, "result", outs[0], ir.Pred); err != nil {
		return err
	}
	if _, err := enumAttr(op, "comparison_direction", true, "", "EQ", "NE", "GE", "GT", "LE", "LT"); err != nil {
		return err
	}
	ct, err := enumAttr(op, "compare_type", false, "NOTYPE", "NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED")
	if err != nil {
		return err
	}
	if ct == "NOTYPE" {
		return nil
	}
	if check := kernel.TraitsOf(op.Name).Check; check != nil {
		return check(op) // the compare kernel's own rule
	}
	return nil
}

// checkSelect: pred is i1, either 0-d or of the operands' shape.
func checkSelect(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 3, 1)
	if err != nil {
		return err
	}
	pred, t, f := ins[0], ins[1], ins[2]
	if pred.Elem != ir.Pred {
		return op.Errorf("pred must have element type i1, is %s", pred)
	}
	if err := sameType(op, "on_false type must equal on_true type", t, f); err != nil {
		return err
	}
	if pred.Rank() != 0 {
		if err := sameShape(op, "pred shape must be 0-d or equal the operand shape", pred, t); err != nil {
			return err
		}
	}
	return sameType(op, "result type must equal operand type", t, outs[0])
}

// checkClamp: min and max are 0-d or of the operand's shape.
func checkClamp(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 3, 1)
	if err != nil {
		return err
	}
	lo, x, hi := ins[0], ins[1], ins[2]
	for _, b := range []struct {
		role string
		t    *ir.TensorType
	}{{"min", lo}, {"max", hi}} {
		if b.t.Elem != x.Elem {
			return op.Errorf("%s element type %s differs from operand %s", b.role, b.t.Elem, x.Elem)
		}
		if b.t.Rank() != 0 {
			if err := sameShape(op, b.role+" must be 0-d or of the operand's shape", b.t, x); err != nil {
				return err
			}
		}
	}
	return sameType(op, "result type must equal operand type", x, outs[0])
}
