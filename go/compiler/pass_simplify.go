package compiler

import (
	"strings"

	"github.com/gojax/gojax/go/ir"
)

// removePassThrough drops ops that do not change data on one device:
// optimization_barrier, builtin.unrealized_conversion_cast, Shardy ops
// (sharding constraints, and manual/named computations whose body is
// inlined) and tuple/get_tuple_element pairs.
func removePassThrough(st *passState) error {
	repl := map[*ir.Value]*ir.Value{}
	sp := &spmdInfo{module: st.module}
	var walk func(r *ir.Region) error
	walk = func(r *ir.Region) error {
		for _, b := range r.Blocks {
			var out []*ir.Op
			for _, op := range b.Ops {
				for _, sub := range op.Regions {
					if err := walk(sub); err != nil {
						return err
					}
				}
				if err := sp.explicitReplicaGroups(op); err != nil {
					return err
				}
				var keep bool
				var spliced []*ir.Op
				var err error
				if op.Name == "sdy.manual_computation" {
					keep, spliced, err = sp.manualComputation(op, repl)
				} else {
					keep, spliced, err = passThrough(op, repl)
				}
				if err != nil {
					return err
				}
				for _, s := range spliced {
					s.Block = b
				}
				out = append(out, spliced...)
				if keep {
					out = append(out, op)
				}
			}
			b.Ops = out
		}
		return nil
	}
	if err := walk(st.entry.Body); err != nil {
		return err
	}
	replaceUses(st.entry.Body, repl)
	return nil
}

// passThroughTargets are custom calls that only annotate placement, layout
// or sharding; on one host device they return their operands unchanged.
var passThroughTargets = map[string]bool{
	"annotate_device_placement": true, // device_put to a memory kind
	"MoveToHost":                true,
	"MoveToDevice":              true,
	"Sharding":                  true, // GSPMD annotations (non-Shardy lowering)
	"SPMDFullToShardShape":      true,
	"SPMDShardToFullShape":      true,
	"LayoutConstraint":          true,
	"InspectSharding":           true, // its callback ran at compile time (engine)
}

func customTarget(op *ir.Op) string {
	t, _ := op.Attrs.Str("call_target_name")
	return t
}

// passThrough decides one op: keep it, or record its results as aliases of
// other values (and possibly splice a region body in its place).
func passThrough(op *ir.Op, repl map[*ir.Value]*ir.Value) (keep bool, spliced []*ir.Op, err error) {
	switch {
	case op.Name == "stablehlo.optimization_barrier":
		return false, nil, identity(op, repl)
	case op.Name == "builtin.unrealized_conversion_cast":
		return false, nil, identity(op, repl)
	case op.Name == "stablehlo.custom_call" && (passThroughTargets[customTarget(op)] || strings.HasPrefix(customTarget(op), "xla.sdy.")):
		// xla.sdy.* are Shardy round-trip annotations (FuncResultSharding,
		// ShardingConstraint, …): identity on one device; identity() rejects
		// any that changes types.
		return false, nil, identity(op, repl)
	case op.Name == "stablehlo.get_tuple_element":
		def := resolve(repl, op.Operands[0]).Def
		idx, ok := op.Attrs.Int("index")
		if def == nil || def.Name != "stablehlo.tuple" || !ok || idx < 0 || int(idx) >= len(def.Operands) {
			return true, nil, nil // left for the planner, which rejects tuple values
		}
		repl[op.Results[0]] = def.Operands[idx]
		return false, nil, nil
	case op.Name == "sdy.constant":
		// Shardy's form of stablehlo.constant (kept apart so it is not
		// deduplicated across shardings).
		op.Name = "stablehlo.constant"
		return true, nil, nil
	case strings.HasPrefix(op.Name, "sdy.") && op.Name != "sdy.return":
		if len(op.Regions) == 0 {
			if len(op.Results) == 0 {
				return false, nil, nil // sdy.sharding_group and other annotations
			}
			return false, nil, identity(op, repl)
		}
		body, err := inlineRegion(op, repl)
		return false, body, err
	}
	return true, nil, nil
}

// identity maps result i to operand i, requiring equal types: with one
// device a sharding annotation or a cast between equal types moves no data.
func identity(op *ir.Op, repl map[*ir.Value]*ir.Value) error {
	if len(op.Results) != len(op.Operands) {
		return op.Errorf("has %d operands and %d results; only a one-to-one pass-through is supported", len(op.Operands), len(op.Results))
	}
	for i, r := range op.Results {
		if !ir.TypesEqual(r.Type, op.Operands[i].Type) {
			return op.Errorf("result %d type %s differs from operand type %s; not a pass-through on one device", i, r.Type, op.Operands[i].Type)
		}
		repl[r] = op.Operands[i]
	}
	return nil
}

// inlineRegion splices the single-block region of a Shardy computation in
// place of the op: block arguments become the operands, the terminator's
// operands become the results. With one device the local shapes equal the
// global ones; anything else is rejected.
func inlineRegion(op *ir.Op, repl map[*ir.Value]*ir.Value) ([]*ir.Op, error) {
	if len(op.Regions) != 1 || len(op.Regions[0].Blocks) != 1 {
		return nil, op.Errorf("expected one single-block region")
	}
	b := op.Regions[0].Blocks[0]
	if len(b.Args) != len(op.Operands) {
		return nil, op.Errorf("region has %d arguments for %d operands", len(b.Args), len(op.Operands))
	}
	for i, a := range b.Args {
		if !ir.TypesEqual(a.Type, op.Operands[i].Type) {
			return nil, op.Errorf("region argument %d type %s differs from operand type %s (needs more than one device)", i, a.Type, op.Operands[i].Type)
		}
		repl[a] = op.Operands[i]
	}
	term := b.Terminator()
	if term == nil || len(term.Operands) != len(op.Results) {
		return nil, op.Errorf("region terminator does not match the op's %d results", len(op.Results))
	}
	for i, r := range op.Results {
		if !ir.TypesEqual(r.Type, term.Operands[i].Type) {
			return nil, op.Errorf("result %d type %s differs from the region's %s (needs more than one device)", i, r.Type, term.Operands[i].Type)
		}
		repl[r] = term.Operands[i]
	}
	return b.Ops[:len(b.Ops)-1], nil
}
