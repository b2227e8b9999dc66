package verify

import (
	"fmt"

	"github.com/gojax/gojax/go/ir"
	// The elementwise kernels register the type rules of their ops
	// (kernel.Traits.Class, TypeRule) before this package's init reads them.
	_ "github.com/gojax/gojax/go/kernels/elementwise"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// Elementwise ops: unary and binary maps, compare, select, clamp, complex,
// conversions (spec "Elementwise operations"). Each op's kernel file
// registers its type rule with it, so this file names none of them: it
// checks every op that registers a rule.

func init() {
	table := map[string]checkFunc{}
	for _, name := range kernel.Ops() {
		tr := kernel.TraitsOf(name)
		if tr.Class == 0 && tr.TypeRule == nil {
			continue
		}
		if tr.Arity < 1 || tr.Class != 0 && tr.Arity > 2 {
			panic(fmt.Sprintf("verify: %s registers a type rule with arity %d", name, tr.Arity))
		}
		table[name] = registered(tr)
	}
	register(table)
}

// registered checks an op against its registered rule: Arity tensor
// operands and one tensor result, the same-type rule of its class, then
// its TypeRule.
func registered(tr kernel.Traits) checkFunc {
	arity, class, rule := tr.Arity, tr.Class, tr.TypeRule
	return func(v *verifier, op *ir.Op) error {
		ins, outs, err := v.sig(op, arity, 1)
		if err != nil {
			return err
		}
		if class != 0 {
			if err := sameTypeRule(op, ins, outs[0], class); err != nil {
				return err
			}
		}
		if rule != nil {
			return rule(op, ins, outs[0])
		}
		return nil
	}
}

// sameTypeRule: one or two operands and a result all of one type, element
// type in class.
func sameTypeRule(op *ir.Op, ins []*ir.TensorType, out *ir.TensorType, c elemClass) error {
	role := "operand"
	if len(ins) == 2 {
		role = "lhs"
	}
	if err := elemIn(op, role, ins[0], c); err != nil {
		return err
	}
	if len(ins) == 2 {
		if err := sameType(op, "rhs type must equal lhs type", ins[0], ins[1]); err != nil {
			return err
		}
	}
	return sameType(op, "result type must equal operand type", ins[0], out)
}
