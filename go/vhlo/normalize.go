package vhlo

import (
	"fmt"

	"github.com/gojax/gojax/go/ir"
)

// keepShaped lists integer-tensor attributes whose shape matters beyond a
// flat list (groups of ids); they stay *ir.ElementsAttr.
var keepShaped = map[string]bool{
	"replica_groups":      true,
	"source_target_pairs": true,
}

// symbolAttrs are VHLO strings that name functions.
var symbolAttrs = map[string]bool{"callee": true, "decomposition": true}

// normalizeAttrs gives inherent attributes their gojax form: integer-list
// tensors become DenseI64Attr (bool lists DenseBoolAttr), function names
// become SymbolRefAttr. Constants (stablehlo.constant's value) stay dense
// elements.
func normalizeAttrs(op *ir.Op) error {
	if op.Name == "stablehlo.constant" {
		if _, ok := op.Attrs["value"].(*ir.ElementsAttr); !ok {
			return fmt.Errorf("constant value is %v, not a dense tensor", op.Attrs["value"])
		}
		return nil
	}
	for name, a := range op.Attrs {
		if a == noneTypeAttr || isDefaultAccuracy(name, a) {
			delete(op.Attrs, name)
			continue
		}
		switch a := a.(type) {
		case *ir.ElementsAttr:
			if keepShaped[name] {
				continue
			}
			n, err := listAttr(a)
			if err != nil {
				return fmt.Errorf("attribute %s: %w", name, err)
			}
			op.Attrs[name] = n
		case ir.StringAttr:
			if symbolAttrs[name] {
				op.Attrs[name] = ir.SymbolRefAttr{Name: a.Value}
			}
		case ir.ArrayAttr:
			if name == "called_computations" {
				elems := make([]ir.Attr, len(a.Elems))
				for i, e := range a.Elems {
					if s, ok := e.(ir.StringAttr); ok {
						elems[i] = ir.SymbolRefAttr{Name: s.Value}
					} else {
						elems[i] = e
					}
				}
				op.Attrs[name] = ir.ArrayAttr{Elems: elems}
				continue
			}
			// operand_layouts / result_layouts: arrays of integer lists.
			changed := false
			elems := make([]ir.Attr, len(a.Elems))
			for i, e := range a.Elems {
				elems[i] = e
				if t, ok := e.(*ir.ElementsAttr); ok && isIntList(t) {
					l, err := listAttr(t)
					if err != nil {
						return fmt.Errorf("attribute %s[%d]: %w", name, i, err)
					}
					elems[i], changed = l, true
				}
			}
			if changed {
				op.Attrs[name] = ir.ArrayAttr{Elems: elems}
			}
		}
	}
	return nil
}

func isIntList(e *ir.ElementsAttr) bool { return e.Type.Elem.IsInteger() || e.Type.Elem == ir.Pred }

// listAttr flattens an integer or bool tensor (row-major).
func listAttr(e *ir.ElementsAttr) (ir.Attr, error) {
	if e.Type.Elem == ir.Pred {
		vals := make([]bool, len(e.Data))
		for i, b := range e.Data {
			vals[i] = b != 0
		}
		return ir.DenseBoolAttr{Values: vals}, nil
	}
	vals, err := elementsToI64(e)
	if err != nil {
		return nil, err
	}
	return ir.DenseI64Attr{Values: vals}, nil
}

// isDefaultAccuracy reports a result_accuracy equal to the StableHLO default
// (mode DEFAULT, zero tolerances), which VHLO always materializes.
func isDefaultAccuracy(name string, a ir.Attr) bool {
	if name != "result_accuracy" {
		return false
	}
	d, ok := a.(ir.DictAttr)
	if !ok {
		return false
	}
	mode, _ := d.Entries["mode"].(ir.EnumAttr)
	atol, _ := d.Entries["atol"].(ir.FloatAttr)
	rtol, _ := d.Entries["rtol"].(ir.FloatAttr)
	ulps, _ := d.Entries["ulps"].(ir.IntAttr)
	return mode.Value == "DEFAULT" && atol.Value == 0 && rtol.Value == 0 && ulps.Value == 0
}
