package elementwise

import (
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// Same-type elementwise ops, by StableHLO name without the dialect prefix,
// with the element types StableHLO allows them (the verifier's rule; abs
// is not same-type on complex operands and has a type rule instead).
var (
	unaryOps = []opClass{
		{"abs", 0, false}, {"negate", kernel.ClassNumeric, false}, {"not", kernel.ClassIntBool, false}, {"sign", kernel.ClassSFC, false},
		{"sqrt", kernel.ClassFC, true}, {"rsqrt", kernel.ClassFC, true}, {"cbrt", kernel.ClassFC, true},
		{"ceil", kernel.ClassFloat, false}, {"floor", kernel.ClassFloat, false},
		{"round_nearest_afz", kernel.ClassFloat, false}, {"round_nearest_even", kernel.ClassFloat, false},
		{"cosine", kernel.ClassFC, true}, {"sine", kernel.ClassFC, true}, {"tan", kernel.ClassFC, true}, {"tanh", kernel.ClassFC, true},
		{"exponential", kernel.ClassFC, true}, {"exponential_minus_one", kernel.ClassFC, true},
		{"log", kernel.ClassFC, true}, {"log_plus_one", kernel.ClassFC, true}, {"logistic", kernel.ClassFC, true},
		{"popcnt", kernel.ClassInt, false}, {"count_leading_zeros", kernel.ClassInt, false},
	}
	binaryOps = []opClass{
		{"add", kernel.ClassAll, false}, {"subtract", kernel.ClassNumeric, false}, {"multiply", kernel.ClassAll, false},
		{"divide", kernel.ClassNumeric, false}, {"remainder", kernel.ClassNumeric, false},
		{"maximum", kernel.ClassAll, false}, {"minimum", kernel.ClassAll, false},
		{"power", kernel.ClassNumeric, true}, {"atan2", kernel.ClassFC, true},
		{"and", kernel.ClassIntBool, false}, {"or", kernel.ClassIntBool, false}, {"xor", kernel.ClassIntBool, false},
		{"shift_left", kernel.ClassInt, false}, {"shift_right_logical", kernel.ClassInt, false}, {"shift_right_arithmetic", kernel.ClassInt, false},
	}
)

type opClass struct {
	name  string
	class kernel.ElemClass
	// transcendental: cost analysis counts the op as one transcendental
	// per element, not one flop (the set XLA's cost analysis uses).
	transcendental bool
}

func init() {
	for _, o := range unaryOps {
		var rule kernel.TypeRule
		if o.name == "abs" {
			rule = absRule
		}
		register(o, 1, resolveUnary(o.name), rule)
	}
	for _, o := range binaryOps {
		register(o, 2, resolveBinary(o.name), nil)
	}
	register(opClass{name: "compare"}, 2, resolveCompare, compareRule)
	register(opClass{name: "select"}, 3, resolveSelect, selectRule)
	register(opClass{name: "clamp"}, 3, resolveClamp, clampRule)
	register(opClass{name: "convert"}, 1, resolveConvert, convertRule)
}

// resolved is what a lowering decides from an op's types and attributes:
// the loop and which operands are one-element broadcasts.
type resolved struct {
	k      kern
	ins    []*ir.TensorType
	out    *ir.TensorType
	scalar []bool
}

// resolver checks an op as its kernel does and picks its loop. The kernel
// and the fused loop come from the same resolver, so an op is fusible
// exactly when its kernel accepts it.
type resolver func(op *ir.Op) (resolved, error)

// register installs a fusible, in-place elementwise op of the given
// arity with its type rule: its class, and rule where that is not all.
func register(o opClass, arity int, r resolver, rule kernel.TypeRule) {
	t := kernel.Traits{Elementwise: true, Arity: arity, InPlace: true, Class: o.class, TypeRule: rule,
		Loop: fusedLoop(o.name, arity, r), Transcendental: o.transcendental, Identity: identityOf(o.name)}
	if o.name == "select" {
		// Picks on_true or on_false elements: on quantized ones as stored.
		t.Storage, t.StorageShared = true, []int{1, 2}
	}
	kernel.RegisterOp("stablehlo."+o.name, lowerWith(r), t)
}

func lowerWith(r resolver) kernel.Lower {
	return func(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
		x, err := r(op)
		if err != nil {
			return nil, err
		}
		return newPlan(op, x.k, x.ins, x.out, x.scalar).step(ctx), nil
	}
}

// fusedLoop offers the op's resolved loop to fused kernels, with the
// scalar-operand and affine variants the op has.
func fusedLoop(name string, arity int, r resolver) func(op *ir.Op) (kernel.Loop, bool) {
	return func(op *ir.Op) (kernel.Loop, bool) {
		x, err := r(op)
		if err != nil {
			return kernel.Loop{}, false
		}
		code, _ := kernel.OpcodeOf(op.Name)
		l := kernel.Loop{Op: code, Cost: loopCost(name, x)}
		k := x.k
		switch arity {
		case 1:
			l.F1 = func(d, a []byte) { k(d, a, nil, nil) }
			if f, ok := unaryAffineLoop(name, x.out.Elem); ok {
				l.AffineLoop = f
				t := x.out.Elem
				l.AffineThen = func(bin kernel.Loop, unaryFirst bool) (func(d, s, w, sc, off []byte), bool) {
					return unaryAffineBinaryLoop(name, bin.Op.Name(), t, unaryFirst)
				}
			}
		case 2:
			l.F2 = func(d, a, b []byte) { k(d, a, b, nil) }
			if f := arithLoop(name, x.out.Elem); f != nil && x.ins[0].Elem == x.out.Elem && x.ins[1].Elem == x.out.Elem {
				// The loop k wraps (binaryKern picks arithKern for
				// same-type f32/f64 arithmetic), called directly.
				l.F2 = f
			}
			if x.ins[0].Elem == x.out.Elem {
				t := x.out.Elem
				l.Scalar = func(j int) (func(d, v, s []byte), bool) { return binaryScalarLoop(name, t, j == 0) }
			}
			switch name {
			case "add":
				l.Affine = kernel.AffineOffset
			case "multiply":
				l.Affine = kernel.AffineScale
			}
		default:
			l.F3 = k
		}
		return l, true
	}
}

// loopCost is a fused member's relative cost per element: emulated float
// types and complex math are costly whatever the op.
func loopCost(name string, x resolved) int {
	for _, t := range append(x.ins[:len(x.ins):len(x.ins)], x.out) {
		if t.Elem.IsComplex() || emulated(t.Elem) {
			return 8
		}
	}
	if cheapOp(name) {
		return 1
	}
	return 8
}

func resolveUnary(name string) resolver {
	return func(op *ir.Op) (resolved, error) {
		ins, out, err := tensorOperands(op, 1)
		if err != nil {
			return resolved{}, err
		}
		if name == "abs" && ins[0].Elem.IsComplex() {
			return resolveComplexAbs(op, ins, out)
		}
		if ins[0].Elem != out.Elem {
			return resolved{}, op.Errorf("operand type %s and result type %s differ", ins[0], out)
		}
		scalar, err := sameShape(op, ins, out)
		if err != nil {
			return resolved{}, err
		}
		k := unaryKern(name, out.Elem)
		if k == nil {
			return resolved{}, op.Errorf("element type %s is not supported", out.Elem)
		}
		return resolved{k, ins, out, scalar}, nil
	}
}

func resolveBinary(name string) resolver {
	return func(op *ir.Op) (resolved, error) {
		ins, out, err := tensorOperands(op, 2)
		if err != nil {
			return resolved{}, err
		}
		if ins[0].Elem != out.Elem || ins[1].Elem != out.Elem {
			return resolved{}, op.Errorf("operand types %s, %s and result type %s differ", ins[0], ins[1], out)
		}
		scalar, err := sameShape(op, ins, out)
		if err != nil {
			return resolved{}, err
		}
		k := binaryKern(name, out.Elem)
		if k == nil {
			return resolved{}, op.Errorf("element type %s is not supported", out.Elem)
		}
		return resolved{k, ins, out, scalar}, nil
	}
}

func resolveCompare(op *ir.Op) (resolved, error) {
	ins, out, err := tensorOperands(op, 2)
	if err != nil {
		return resolved{}, err
	}
	t := ins[0].Elem
	if ins[1].Elem != t || out.Elem != ir.Pred {
		return resolved{}, op.Errorf("wants operands of one type and an i1 result, got %s, %s -> %s", ins[0], ins[1], out)
	}
	scalar, err := sameShape(op, ins, out)
	if err != nil {
		return resolved{}, err
	}
	dir, ok := op.Attrs.Enum("comparison_direction")
	if !ok {
		return resolved{}, op.Errorf("missing comparison_direction")
	}
	if err := compareTypeRule(op); err != nil {
		return resolved{}, err
	}
	ct := compareType(op, t)
	k := compareKern(dir, t, ct == "TOTALORDER")
	if k == nil {
		return resolved{}, op.Errorf("comparison %s on %s is not supported", dir, t)
	}
	return resolved{k, ins, out, scalar}, nil
}

// compareRule: operands of one type, an i1 result of their shape, a
// comparison_direction, and a compare_type that fits the operand type.
func compareRule(op *ir.Op, ins []*ir.TensorType, out *ir.TensorType) error {
	if err := kernel.SameType(op, "rhs type must equal lhs type", ins[0], ins[1]); err != nil {
		return err
	}
	if err := kernel.SameShape(op, "result shape must equal operand shape", ins[0], out); err != nil {
		return err
	}
	if err := kernel.WantElem(op, "result", out, ir.Pred); err != nil {
		return err
	}
	if _, err := kernel.EnumAttr(op, "comparison_direction", true, "", "EQ", "NE", "GE", "GT", "LE", "LT"); err != nil {
		return err
	}
	ct, err := kernel.EnumAttr(op, "compare_type", false, "NOTYPE", "NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED")
	if err != nil {
		return err
	}
	if ct == "NOTYPE" {
		return nil
	}
	return compareTypeRule(op)
}

// compareType is the op's compare_type, its operand type's default when
// absent or NOTYPE.
func compareType(op *ir.Op, t ir.ElemType) string {
	ct, ok := op.Attrs.Enum("compare_type")
	if !ok || ct == "NOTYPE" {
		ct = defaultCompareType(t)
	}
	return ct
}

// compareTypeRule checks compare_type against the operand type; the
// verifier applies it too (compareRule).
func compareTypeRule(op *ir.Op) error {
	if len(op.Operands) == 0 || op.Operands[0].Tensor() == nil {
		return nil // the arity and type checks report it
	}
	t := op.Operands[0].Tensor().Elem
	switch ct := compareType(op, t); ct {
	case "FLOAT", "TOTALORDER":
		if !t.IsFloat() && !t.IsComplex() {
			return op.Errorf("compare_type %s needs float or complex operands, got %s", ct, t)
		}
	case "SIGNED":
		if !t.IsSigned() {
			return op.Errorf("compare_type SIGNED needs signed integer operands, got %s", t)
		}
	case "UNSIGNED":
		if !t.IsUnsigned() && t != ir.Pred {
			return op.Errorf("compare_type UNSIGNED needs unsigned integer or i1 operands, got %s", t)
		}
	default:
		return op.Errorf("unknown compare_type %q", ct)
	}
	return nil
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

// selectRule: pred is i1, either 0-d or of the operands' shape.
func selectRule(op *ir.Op, ins []*ir.TensorType, out *ir.TensorType) error {
	pred, t, f := ins[0], ins[1], ins[2]
	if pred.Elem != ir.Pred {
		return op.Errorf("pred must have element type i1, is %s", pred)
	}
	if err := kernel.SameType(op, "on_false type must equal on_true type", t, f); err != nil {
		return err
	}
	if pred.Rank() != 0 {
		if err := kernel.SameShape(op, "pred shape must be 0-d or equal the operand shape", pred, t); err != nil {
			return err
		}
	}
	return kernel.SameType(op, "result type must equal operand type", t, out)
}

func resolveSelect(op *ir.Op) (resolved, error) {
	ins, out, err := tensorOperands(op, 3)
	if err != nil {
		return resolved{}, err
	}
	if ins[0].Elem != ir.Pred || ins[1].Elem != out.Elem || ins[2].Elem != out.Elem {
		return resolved{}, op.Errorf("wants (i1, T, T) -> T, got %s, %s, %s -> %s", ins[0], ins[1], ins[2], out)
	}
	scalar, err := sameShape(op, ins, out, 0)
	if err != nil {
		return resolved{}, err
	}
	k := selectKern(out.Elem)
	if k == nil {
		return resolved{}, op.Errorf("element type %s is not supported", out.Elem)
	}
	return resolved{k, ins, out, scalar}, nil
}

// clampRule: min and max are 0-d or of the operand's shape.
func clampRule(op *ir.Op, ins []*ir.TensorType, out *ir.TensorType) error {
	lo, x, hi := ins[0], ins[1], ins[2]
	for _, b := range [...]struct {
		role string
		t    *ir.TensorType
	}{{"min", lo}, {"max", hi}} {
		if b.t.Elem != x.Elem {
			return op.Errorf("%s element type %s differs from operand %s", b.role, b.t.Elem, x.Elem)
		}
		if b.t.Rank() != 0 {
			if err := kernel.SameShape(op, b.role+" must be 0-d or of the operand's shape", b.t, x); err != nil {
				return err
			}
		}
	}
	return kernel.SameType(op, "result type must equal operand type", x, out)
}

func resolveClamp(op *ir.Op) (resolved, error) {
	ins, out, err := tensorOperands(op, 3)
	if err != nil {
		return resolved{}, err
	}
	for i, t := range ins {
		if t.Elem != out.Elem {
			return resolved{}, op.Errorf("operand %d has element type %s, result %s", i, t.Elem, out.Elem)
		}
	}
	scalar, err := sameShape(op, ins, out, 0, 2)
	if err != nil {
		return resolved{}, err
	}
	if scalar[1] {
		return resolved{}, op.Errorf("operand must have the result's shape %s", out)
	}
	k := clampKern(out.Elem)
	if k == nil {
		return resolved{}, op.Errorf("element type %s is not supported", out.Elem)
	}
	return resolved{k, ins, out, scalar}, nil
}

// convertRule: any element types, one shape.
func convertRule(op *ir.Op, ins []*ir.TensorType, out *ir.TensorType) error {
	return kernel.SameShape(op, "result shape must equal operand shape", ins[0], out)
}

func resolveConvert(op *ir.Op) (resolved, error) {
	ins, out, err := tensorOperands(op, 1)
	if err != nil {
		return resolved{}, err
	}
	scalar, err := sameShape(op, ins, out)
	if err != nil {
		return resolved{}, err
	}
	k := convertKern(ins[0].Elem, out.Elem)
	if k == nil {
		return resolved{}, op.Errorf("conversion from %s to %s is not supported", ins[0].Elem, out.Elem)
	}
	return resolved{k, ins, out, scalar}, nil
}
