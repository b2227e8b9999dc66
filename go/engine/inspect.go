package engine

import (
	"fmt"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/callback"
	"github.com/gojax/gojax/go/shardy"
)

// jax.debug.inspect_array_sharding in a program over several devices lowers
// to an InspectSharding custom call whose callback XLA's partitioner calls at
// compile time with the value's sharding. gojax calls it when it plans the
// program, with the sharding the value has there: an entry parameter's, or
// that of the sharding constraint or GSPMD annotation that produced it.

// inspectShardings runs the program's InspectSharding callbacks.
func inspectShardings(m *ir.Module, plan *spmdPlan) error {
	owner := map[*ir.Block]*ir.Func{}
	for _, f := range m.Funcs {
		if f.Body != nil && len(f.Body.Blocks) > 0 {
			owner[f.Body.Blocks[0]] = f
		}
	}
	calls := map[string][]*ir.Op{}
	var inspects []*ir.Op
	var walk func(r *ir.Region)
	walk = func(r *ir.Region) {
		if r == nil {
			return
		}
		for _, b := range r.Blocks {
			for _, op := range b.Ops {
				switch op.Name {
				case "func.call", "call":
					if ref, ok := op.Attrs["callee"].(ir.SymbolRefAttr); ok {
						calls[ref.Name] = append(calls[ref.Name], op)
					}
				case "stablehlo.custom_call":
					if t, _ := op.Attrs.Str("call_target_name"); t == callback.InspectTarget {
						inspects = append(inspects, op)
					}
				}
				for _, sub := range op.Regions {
					walk(sub)
				}
			}
		}
	}
	for _, f := range m.Funcs {
		walk(f.Body)
	}
	if len(inspects) == 0 {
		return nil
	}
	meshes, err := shardy.Meshes(m)
	if err != nil {
		return err
	}
	main := m.Main()
	var shardingOf func(v *ir.Value) (*shardy.Sharding, error)
	shardingOf = func(v *ir.Value) (*shardy.Sharding, error) {
		tt := v.Tensor()
		if tt == nil {
			return nil, fmt.Errorf("the inspected value is not a tensor")
		}
		if v.Def == nil {
			f := owner[v.Block]
			switch {
			case f == nil:
				return nil, fmt.Errorf("the inspected value is an argument of a region")
			case f == main:
				return plan.args[v.Index], nil
			case len(calls[f.Name]) == 1:
				return shardingOf(calls[f.Name][0].Operands[v.Index])
			}
			return nil, fmt.Errorf("the inspected value is an argument of @%s, called %d times", f.Name, len(calls[f.Name]))
		}
		op := v.Def
		if op.Name == "builtin.unrealized_conversion_cast" && len(op.Operands) == 1 {
			return shardingOf(op.Operands[0]) // a cast between equal types
		}
		if op.Name == "sdy.sharding_constraint" {
			a, ok := op.Attrs["sharding"].(ir.OpaqueAttr)
			if !ok {
				return nil, op.Errorf("sharding missing")
			}
			s, _, err := shardy.ParseSharding(a.Text, meshes, tt.Rank())
			if err != nil || s.Mesh.Empty() {
				return nil, err
			}
			return s, nil
		}
		if t, _ := op.Attrs.Str("call_target_name"); op.Name == "stablehlo.custom_call" && t == "Sharding" {
			if text, ok := op.Attrs.Str("mhlo.sharding"); ok {
				return shardy.ParseHLOSharding(text, tt.Rank())
			}
		}
		// Other values take the sharding propagation would give them.
		return nil, fmt.Errorf("inspecting the sharding of a computed value (%s) needs sharding propagation, which gojax does not do yet", op.Name)
	}
	for _, op := range inspects {
		if len(op.Operands) != 1 {
			return op.Errorf("%s takes one operand, got %d", callback.InspectTarget, len(op.Operands))
		}
		cfg, ok := op.Attrs.Str("backend_config")
		if !ok {
			return op.Errorf("%s has no callback in its backend_config", callback.InspectTarget)
		}
		s, err := shardingOf(op.Operands[0])
		if err != nil {
			return op.Errorf("%s: %v", callback.InspectTarget, err)
		}
		if err := callback.InspectSharding([]byte(cfg), opSharding(s, plan.meshOf(s))); err != nil {
			return op.Errorf("%s callback failed: %v", callback.InspectTarget, err)
		}
	}
	return nil
}
