package engine

import (
	"fmt"
	"slices"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/callback"
	"github.com/gojax/gojax/go/kernels/kernel"
	"github.com/gojax/gojax/go/shardy"
	"github.com/gojax/gojax/go/shardy/propagate"
)

// jax.debug.inspect_array_sharding in a program over several devices lowers
// to an InspectSharding custom call whose callback XLA's partitioner calls at
// compile time with the value's sharding. gojax calls it when it plans the
// program, with the sharding the value has there: an entry parameter's, or
// that of the sharding constraint or GSPMD annotation that produced it.

// valueShardings finds the sharding a value of an SPMD program has where
// gojax can tell without running the partitioner: an entry parameter's, that
// of the sharding constraint or GSPMD annotation that produced it, or that of
// the call operand passed to a function called once.
type valueShardings struct {
	main   *ir.Func
	plan   *spmdPlan
	meshes map[string]*shardy.Mesh
	owner  map[*ir.Block]*ir.Func
	calls  map[string][]*ir.Op
	// propagated holds what sharding propagation gives the entry block's
	// values (computed on first need; absent means replicated).
	propagated map[*ir.Value]*shardy.Sharding
}

// scanProgram collects the module's custom calls with the given targets
// (outside manual computations if skipManual: their bodies already run per
// partition) and what valueShardings needs.
func scanProgram(m *ir.Module, plan *spmdPlan, skipManual bool, targets ...string) (*valueShardings, map[string][]*ir.Op) {
	vs := &valueShardings{main: m.Main(), plan: plan, owner: map[*ir.Block]*ir.Func{}, calls: map[string][]*ir.Op{}}
	for _, f := range m.Funcs {
		if f.Body != nil && len(f.Body.Blocks) > 0 {
			vs.owner[f.Body.Blocks[0]] = f
		}
	}
	found := map[string][]*ir.Op{}
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
						vs.calls[ref.Name] = append(vs.calls[ref.Name], op)
					}
				case "stablehlo.custom_call":
					if t, _ := op.Attrs.Str("call_target_name"); slices.Contains(targets, t) {
						found[t] = append(found[t], op)
					}
				case "sdy.manual_computation":
					if skipManual {
						continue
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
	return vs, found
}

func (vs *valueShardings) meshMap(m *ir.Module) (map[string]*shardy.Mesh, error) {
	if vs.meshes == nil {
		meshes, err := shardy.Meshes(m)
		if err != nil {
			return nil, err
		}
		vs.meshes = meshes
	}
	return vs.meshes, nil
}

func (vs *valueShardings) of(m *ir.Module, v *ir.Value) (*shardy.Sharding, error) {
	tt := v.Tensor()
	if tt == nil {
		return nil, fmt.Errorf("the value is not a tensor")
	}
	if v.Def == nil {
		f := vs.owner[v.Block]
		switch {
		case f == nil:
			return nil, fmt.Errorf("the value is an argument of a region")
		case f == vs.main:
			return vs.plan.args[v.Index], nil
		case len(vs.calls[f.Name]) == 1:
			return vs.of(m, vs.calls[f.Name][0].Operands[v.Index])
		}
		return nil, fmt.Errorf("the value is an argument of @%s, called %d times", f.Name, len(vs.calls[f.Name]))
	}
	op := v.Def
	if op.Name == "builtin.unrealized_conversion_cast" && len(op.Operands) == 1 {
		return vs.of(m, op.Operands[0]) // a cast between equal types
	}
	if op.Name == "sdy.sharding_constraint" {
		a, ok := op.Attrs["sharding"].(ir.OpaqueAttr)
		if !ok {
			return nil, op.Errorf("sharding missing")
		}
		meshes, err := vs.meshMap(m)
		if err != nil {
			return nil, err
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
	// Other values of the entry block take the sharding propagation gives
	// them, as XLA's partitioner sees them.
	if vs.main == nil || vs.main.Body == nil || len(vs.main.Body.Blocks) == 0 || op.Block != vs.main.Body.Blocks[0] {
		return nil, fmt.Errorf("the sharding of a value computed inside a region or a called function (%s) is not known before partitioning", op.Name)
	}
	if vs.propagated == nil {
		meshes, err := vs.meshMap(m)
		if err != nil {
			return nil, err
		}
		if vs.propagated, err = propagate.Values(m, meshes, vs.plan.mesh); err != nil {
			return nil, err
		}
		if vs.propagated == nil {
			vs.propagated = map[*ir.Value]*shardy.Sharding{}
		}
	}
	return vs.propagated[v], nil
}

// inspectShardings runs the program's InspectSharding callbacks.
func inspectShardings(m *ir.Module, plan *spmdPlan) error {
	vs, found := scanProgram(m, plan, false, callback.InspectTarget)
	for _, op := range found[callback.InspectTarget] {
		if len(op.Operands) != 1 {
			return op.Errorf("%s takes one operand, got %d", callback.InspectTarget, len(op.Operands))
		}
		cfg, ok := op.Attrs.Str("backend_config")
		if !ok {
			return op.Errorf("%s has no callback in its backend_config", callback.InspectTarget)
		}
		s, err := vs.of(m, op.Operands[0])
		if err != nil {
			return op.Errorf("%s: inspecting the sharding: %v", callback.InspectTarget, err)
		}
		if err := callback.InspectSharding([]byte(cfg), opSharding(s, plan.meshOf(s))); err != nil {
			return op.Errorf("%s callback failed: %v", callback.InspectTarget, err)
		}
	}
	return nil
}

// partitionCallbacks records, for each partitioned host callback, the block
// of each operand that each of this process's partitions holds, so the
// callback runs once per partition on its shard (see
// callback.PartitionedTarget). A replicated operand is passed whole to each.
func (e *Executable) partitionCallbacks(m *ir.Module, plan *spmdPlan) error {
	vs, found := scanProgram(m, plan, true, callback.PartitionedTarget)
	ops := found[callback.PartitionedTarget]
	if len(ops) == 0 {
		return nil
	}
	hp, ok := e.prog.(hostCallbackProgram)
	if !ok || hp.HostCallbacks() == nil {
		return fmt.Errorf("%s: the program cannot run host callbacks", callback.PartitionedTarget)
	}
	for _, op := range ops {
		index, err := callback.Index(op)
		if err != nil {
			return err
		}
		parts := make([][]kernel.Block, len(e.logical))
		for j, v := range op.Operands {
			tt := v.Tensor()
			if tt == nil {
				for k := range parts {
					parts[k] = append(parts[k], kernel.Block{})
				}
				continue
			}
			s, err := vs.of(m, v)
			if err != nil {
				return op.Errorf("%s: operand %d: %v", callback.PartitionedTarget, j, err)
			}
			if s != nil && len(s.Unreduced) > 0 {
				return op.Errorf("%s: operand %d is unreduced along %v; gojax does not pass partial values to partitioned callbacks", callback.PartitionedTarget, j, s.Unreduced)
			}
			for k, lp := range e.logical {
				if s == nil {
					parts[k] = append(parts[k], kernel.Block{})
					continue
				}
				shape, off, err := s.ShardOf(plan.meshOf(s), tt.Shape, lp[1])
				if err != nil {
					return op.Errorf("%s: operand %d: %v", callback.PartitionedTarget, j, err)
				}
				parts[k] = append(parts[k], kernel.Block{Offset: off, Shape: shape})
			}
		}
		hp.HostCallbacks().SetPartitions(index, parts)
	}
	return nil
}
