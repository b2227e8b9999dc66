package elementwise

import (
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// Same-type elementwise ops, by StableHLO name without the dialect prefix.
var (
	unaryOps = []string{
		"abs", "negate", "not", "sign", "sqrt", "rsqrt", "cbrt", "ceil", "floor",
		"round_nearest_afz", "round_nearest_even", "cosine", "sine", "tan", "tanh",
		"exponential", "exponential_minus_one", "log", "log_plus_one", "logistic",
		"popcnt", "count_leading_zeros",
	}
	binaryOps = []string{
		"add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum",
		"power", "atan2", "and", "or", "xor",
		"shift_left", "shift_right_logical", "shift_right_arithmetic",
	}
)

func init() {
	for _, name := range unaryOps {
		kernel.Register("stablehlo."+name, lowerUnary(name))
	}
	for _, name := range binaryOps {
		kernel.Register("stablehlo."+name, lowerBinary(name))
	}
	kernel.Register("stablehlo.compare", lowerCompare)
	kernel.Register("stablehlo.select", lowerSelect)
	kernel.Register("stablehlo.clamp", lowerClamp)
	kernel.Register("stablehlo.convert", lowerConvert)
}

func lowerUnary(name string) kernel.Lower {
	return func(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
		ins, out, err := tensorOperands(op, 1)
		if err != nil {
			return nil, err
		}
		if name == "abs" && ins[0].Elem.IsComplex() {
			return lowerComplexAbs(ctx, op, ins, out)
		}
		if ins[0].Elem != out.Elem {
			return nil, op.Errorf("operand type %s and result type %s differ", ins[0], out)
		}
		scalar, err := sameShape(op, ins, out)
		if err != nil {
			return nil, err
		}
		k := unaryKern(name, out.Elem)
		if k == nil {
			return nil, op.Errorf("element type %s is not supported", out.Elem)
		}
		return newPlan(op, k, ins, out, scalar).step(ctx), nil
	}
}

func lowerBinary(name string) kernel.Lower {
	return func(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
		ins, out, err := tensorOperands(op, 2)
		if err != nil {
			return nil, err
		}
		if ins[0].Elem != out.Elem || ins[1].Elem != out.Elem {
			return nil, op.Errorf("operand types %s, %s and result type %s differ", ins[0], ins[1], out)
		}
		scalar, err := sameShape(op, ins, out)
		if err != nil {
			return nil, err
		}
		k := binaryKern(name, out.Elem)
		if k == nil {
			return nil, op.Errorf("element type %s is not supported", out.Elem)
		}
		return newPlan(op, k, ins, out, scalar).step(ctx), nil
	}
}

func lowerCompare(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	ins, out, err := tensorOperands(op, 2)
	if err != nil {
		return nil, err
	}
	t := ins[0].Elem
	if ins[1].Elem != t || out.Elem != ir.Pred {
		return nil, op.Errorf("wants operands of one type and an i1 result, got %s, %s -> %s", ins[0], ins[1], out)
	}
	scalar, err := sameShape(op, ins, out)
	if err != nil {
		return nil, err
	}
	dir, ok := op.Attrs.Enum("comparison_direction")
	if !ok {
		return nil, op.Errorf("missing comparison_direction")
	}
	ct, ok := op.Attrs.Enum("compare_type")
	if !ok || ct == "NOTYPE" {
		ct = defaultCompareType(t)
	}
	switch ct {
	case "FLOAT", "TOTALORDER":
		if !t.IsFloat() && !t.IsComplex() {
			return nil, op.Errorf("compare_type %s needs float or complex operands, got %s", ct, t)
		}
	case "SIGNED":
		if !t.IsSigned() {
			return nil, op.Errorf("compare_type SIGNED needs signed integer operands, got %s", t)
		}
	case "UNSIGNED":
		if !t.IsUnsigned() && t != ir.Pred {
			return nil, op.Errorf("compare_type UNSIGNED needs unsigned integer or i1 operands, got %s", t)
		}
	default:
		return nil, op.Errorf("unknown compare_type %q", ct)
	}
	k := compareKern(dir, t, ct == "TOTALORDER")
	if k == nil {
		return nil, op.Errorf("comparison %s on %s is not supported", dir, t)
	}
	return newPlan(op, k, ins, out, scalar).step(ctx), nil
}

func defaultCompareType(t ir.ElemType) string {
	switch {
	case t.IsFloat() || t.IsComplex():
		return "FLOAT"
	case t.IsSigned():
		return "SIGNED"
	}
	return "UNSIGNED"
}

func lowerSelect(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	ins, out, err := tensorOperands(op, 3)
	if err != nil {
		return nil, err
	}
	if ins[0].Elem != ir.Pred || ins[1].Elem != out.Elem || ins[2].Elem != out.Elem {
		return nil, op.Errorf("wants (i1, T, T) -> T, got %s, %s, %s -> %s", ins[0], ins[1], ins[2], out)
	}
	scalar, err := sameShape(op, ins, out, 0)
	if err != nil {
		return nil, err
	}
	k := selectKern(out.Elem)
	if k == nil {
		return nil, op.Errorf("element type %s is not supported", out.Elem)
	}
	return newPlan(op, k, ins, out, scalar).step(ctx), nil
}

func lowerClamp(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	ins, out, err := tensorOperands(op, 3)
	if err != nil {
		return nil, err
	}
	for i, t := range ins {
		if t.Elem != out.Elem {
			return nil, op.Errorf("operand %d has element type %s, result %s", i, t.Elem, out.Elem)
		}
	}
	scalar, err := sameShape(op, ins, out, 0, 2)
	if err != nil {
		return nil, err
	}
	if scalar[1] {
		return nil, op.Errorf("operand must have the result's shape %s", out)
	}
	k := clampKern(out.Elem)
	if k == nil {
		return nil, op.Errorf("element type %s is not supported", out.Elem)
	}
	return newPlan(op, k, ins, out, scalar).step(ctx), nil
}

func lowerConvert(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	ins, out, err := tensorOperands(op, 1)
	if err != nil {
		return nil, err
	}
	scalar, err := sameShape(op, ins, out)
	if err != nil {
		return nil, err
	}
	k := convertKern(ins[0].Elem, out.Elem)
	if k == nil {
		return nil, op.Errorf("conversion from %s to %s is not supported", ins[0].Elem, out.Elem)
	}
	return newPlan(op, k, ins, out, scalar).step(ctx), nil
}
