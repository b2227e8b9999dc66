package verify

import (
	"github.com/gojax/gojax/go/ir"
)

// Control flow, calls, tuples, tokens, custom calls and composites.

func init() {
	register(map[string]checkFunc{
		"stablehlo.while":                checkWhile,
		"stablehlo.if":                   checkIf,
		"stablehlo.case":                 checkCase,
		"stablehlo.return":               checkRegionReturn,
		"func.return":                    checkFuncReturn,
		"func.call":                      checkCall,
		"stablehlo.composite":            checkComposite,
		"stablehlo.custom_call":          checkCustomCall,
		"stablehlo.optimization_barrier": checkOptimizationBarrier,
		"stablehlo.tuple":                checkTuple,
		"stablehlo.get_tuple_element":    checkGetTupleElement,
		"stablehlo.after_all":            checkAfterAll,
		"stablehlo.create_token":         checkCreateToken,
	})
}

func checkWhile(v *verifier, op *ir.Op) error {
	if err := regions(op, 2); err != nil {
		return err
	}
	if err := counts(op, -1, len(op.Operands)); err != nil {
		return err
	}
	ts := types(op.Operands)
	if err := v.valuesMatch(op, "results", op.Results, ts); err != nil {
		return err
	}
	if err := v.regionSig(op, 0, ts, []ir.Type{scalarOf(ir.Pred)}); err != nil {
		return err
	}
	return v.regionSig(op, 1, ts, ts)
}

func checkIf(v *verifier, op *ir.Op) error {
	if err := regions(op, 2); err != nil {
		return err
	}
	if err := counts(op, 1, -1); err != nil {
		return err
	}
	p, err := tensorOf(op, "pred", op.Operands[0])
	if err != nil {
		return err
	}
	if p.Rank() != 0 || p.Elem != ir.Pred {
		return op.Errorf("pred must be a 0-d i1 tensor, is %s", p)
	}
	rs := types(op.Results)
	for i := range op.Regions {
		if err := v.regionSig(op, i, []ir.Type{}, rs); err != nil {
			return err
		}
	}
	return nil
}

func checkCase(v *verifier, op *ir.Op) error {
	if len(op.Regions) == 0 {
		return op.Errorf("expects at least one branch")
	}
	if err := counts(op, 1, -1); err != nil {
		return err
	}
	idx, err := tensorOf(op, "index", op.Operands[0])
	if err != nil {
		return err
	}
	if idx.Rank() != 0 || idx.Elem != ir.S32 {
		return op.Errorf("index must be a 0-d i32 tensor, is %s", idx)
	}
	rs := types(op.Results)
	for i := range op.Regions {
		if err := v.regionSig(op, i, []ir.Type{}, rs); err != nil {
			return err
		}
	}
	return nil
}

// checkRegionReturn: a region terminator of a StableHLO op; the parent op's
// check matches its values against the region signature.
func checkRegionReturn(v *verifier, op *ir.Op) error {
	if len(op.Results) != 0 || len(op.Regions) != 0 {
		return op.Errorf("takes no results or regions")
	}
	if op.Block == nil || op.Block.Region == nil || op.Block.Region.Parent == nil {
		return op.Errorf("must terminate the region of a StableHLO op")
	}
	return nil
}

// checkFuncReturn: only in function bodies; Module matches it to the signature.
func checkFuncReturn(v *verifier, op *ir.Op) error {
	if len(op.Results) != 0 || len(op.Regions) != 0 {
		return op.Errorf("takes no results or regions")
	}
	if op.Block != nil && op.Block.Region != nil && op.Block.Region.Parent != nil {
		return op.Errorf("must terminate a function body, is inside %s", op.Block.Region.Parent.Name)
	}
	return nil
}

// calleeMatches checks operands and results against a function's type.
func (v *verifier) calleeMatches(op *ir.Op, what, name string) error {
	f := v.m.Func(name)
	if f == nil {
		return op.Errorf("%s @%s is not a function of the module", what, name)
	}
	if err := v.valuesMatch(op, "operands of "+what+" @"+name, op.Operands, f.Type.Inputs); err != nil {
		return err
	}
	return v.valuesMatch(op, "results of "+what+" @"+name, op.Results, f.Type.Results)
}

func checkCall(v *verifier, op *ir.Op) error {
	if err := regions(op, 0); err != nil {
		return err
	}
	name, err := symbolAttr(op, "callee")
	if err != nil {
		return err
	}
	return v.calleeMatches(op, "callee", name)
}

func checkComposite(v *verifier, op *ir.Op) error {
	if _, err := stringAttr(op, "name", true); err != nil {
		return err
	}
	if _, err := intAttr(op, "version", false, 0); err != nil {
		return err
	}
	if a, ok := op.Attrs["composite_attributes"]; ok {
		if _, isDict := a.(ir.DictAttr); !isDict {
			return op.Errorf("attribute composite_attributes must be a dictionary, is %s", a)
		}
	}
	name, err := symbolAttr(op, "decomposition")
	if err != nil {
		return err
	}
	return v.calleeMatches(op, "decomposition", name)
}

func checkCustomCall(v *verifier, op *ir.Op) error {
	if err := regions(op, 0); err != nil {
		return err
	}
	target, err := stringAttr(op, "call_target_name", true)
	if err != nil {
		return err
	}
	if target == "" {
		return op.Errorf("call_target_name is empty")
	}
	if _, err := boolAttr(op, "has_side_effect", false); err != nil {
		return err
	}
	if _, err := enumAttr(op, "api_version", false, "API_VERSION_ORIGINAL",
		"API_VERSION_UNSPECIFIED", "API_VERSION_ORIGINAL", "API_VERSION_STATUS_RETURNING",
		"API_VERSION_STATUS_RETURNING_UNIFIED", "API_VERSION_TYPED_FFI"); err != nil {
		return err
	}
	if a, ok := op.Attrs["backend_config"]; ok {
		switch a.(type) {
		case ir.StringAttr, ir.DictAttr, ir.UnitAttr:
		default:
			return op.Errorf("backend_config must be a string or dictionary, is %s", a)
		}
	}
	if a, ok := op.Attrs["called_computations"]; ok {
		arr, isArr := a.(ir.ArrayAttr)
		if !isArr {
			return op.Errorf("called_computations must be a list of functions, is %s", a)
		}
		for _, e := range arr.Elems {
			var name string
			switch x := e.(type) {
			case ir.SymbolRefAttr:
				name = x.Name
			case ir.StringAttr:
				name = x.Value
			default:
				return op.Errorf("called_computations entry %s is not a function reference", e)
			}
			if v.m.Func(name) == nil {
				return op.Errorf("called computation @%s is not a function of the module", name)
			}
		}
	}
	for _, name := range []string{"operand_layouts", "result_layouts"} {
		a, ok := op.Attrs[name]
		if !ok {
			continue
		}
		arr, isArr := a.(ir.ArrayAttr)
		if !isArr {
			return op.Errorf("%s must be a list of layouts, is %s", name, a)
		}
		n := len(op.Operands)
		if name == "result_layouts" {
			n = len(op.Results)
			if len(op.Results) == 1 {
				if tt, isTuple := op.Results[0].Type.(*ir.TupleType); isTuple {
					n = len(tt.Elems)
				}
			}
		}
		if len(arr.Elems) != n && len(arr.Elems) != 0 {
			return op.Errorf("%s has %d entries for %d values", name, len(arr.Elems), n)
		}
	}
	if a, ok := op.Attrs["output_operand_aliases"]; ok {
		arr, isArr := a.(ir.ArrayAttr)
		if !isArr {
			return op.Errorf("output_operand_aliases must be a list, is %s", a)
		}
		for _, e := range arr.Elems {
			al, isAlias := e.(ir.OutputOperandAliasAttr)
			if !isAlias {
				return op.Errorf("output_operand_aliases entry %s is not an alias", e)
			}
			if al.OperandIndex < 0 || al.OperandIndex >= int64(len(op.Operands)) {
				return op.Errorf("output_operand_aliases operand_index %d out of range", al.OperandIndex)
			}
		}
	}
	return nil
}

func checkOptimizationBarrier(v *verifier, op *ir.Op) error {
	if err := regions(op, 0); err != nil {
		return err
	}
	return v.valuesMatch(op, "results", op.Results, types(op.Operands))
}

func checkTuple(v *verifier, op *ir.Op) error {
	if err := counts(op, -1, 1); err != nil {
		return err
	}
	want := &ir.TupleType{Elems: types(op.Operands)}
	if !ir.TypesEqual(op.Results[0].Type, want) {
		return op.Errorf("result has type %s; expected %s", op.Results[0].Type, want)
	}
	return regions(op, 0)
}

func checkGetTupleElement(v *verifier, op *ir.Op) error {
	if err := counts(op, 1, 1); err != nil {
		return err
	}
	tt, ok := op.Operands[0].Type.(*ir.TupleType)
	if !ok {
		return op.Errorf("operand must be a tuple, is %s", op.Operands[0].Type)
	}
	idx, err := intAttr(op, "index", true, 0)
	if err != nil {
		return err
	}
	if idx < 0 || idx >= int64(len(tt.Elems)) {
		return op.Errorf("index %d out of range for %s", idx, tt)
	}
	if !ir.TypesEqual(op.Results[0].Type, tt.Elems[idx]) {
		return op.Errorf("result has type %s; expected %s", op.Results[0].Type, tt.Elems[idx])
	}
	return regions(op, 0)
}

func checkAfterAll(v *verifier, op *ir.Op) error {
	if err := counts(op, -1, 1); err != nil {
		return err
	}
	for i, x := range op.Operands {
		if !isToken(x) {
			return op.Errorf("input %d must be a token, is %s", i, x.Type)
		}
	}
	if !isToken(op.Results[0]) {
		return op.Errorf("result must be a token, is %s", op.Results[0].Type)
	}
	return regions(op, 0)
}

func checkCreateToken(v *verifier, op *ir.Op) error {
	if err := counts(op, 0, 1); err != nil {
		return err
	}
	if !isToken(op.Results[0]) {
		return op.Errorf("result must be a token, is %s", op.Results[0].Type)
	}
	return regions(op, 0)
}

// lastIsToken checks that the last operand (or result) is a token.
func lastIsToken(op *ir.Op, xs []*ir.Value, role string) error {
	if len(xs) == 0 || !isToken(xs[len(xs)-1]) {
		return op.Errorf("last %s must be a token", role)
	}
	for i, x := range xs[:len(xs)-1] {
		if isToken(x) {
			return op.Errorf("%s %d is a token; only the last may be", role, i)
		}
	}
	return nil
}
