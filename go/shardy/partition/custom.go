package partition

import (
	"strings"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/shardy"
)

// ruledCustomCall reports a custom call the partitioner runs on blocks: one
// without side effects whose sdy.sharding_rule (JAX gives its LAPACK and
// other kernels one) matches its operands and results. Host callbacks stay
// refused: they run once on whole arrays.
func ruledCustomCall(op *ir.Op) bool {
	if op.Name != "stablehlo.custom_call" {
		return false
	}
	if se, _ := op.Attrs.Bool("has_side_effect"); se {
		return false
	}
	if target, _ := op.Attrs.Str("call_target_name"); strings.Contains(target, "callback") {
		return false
	}
	sr, err := shardy.RuleOf(op)
	return err == nil && sr != nil && len(sr.Operands) == len(op.Operands) && len(sr.Results) == len(op.Results)
}

// batchFactors are the rule's factors that every operand and result has,
// each alone in one dimension, and that may be split: along them the
// kernel works on independent blocks (a batch of matrices).
func batchFactors(sr *shardy.OpShardingRule) map[string]bool {
	seen := map[string]int{}
	tensors := append(append([][][]string{}, sr.Operands...), sr.Results...)
	for _, t := range tensors {
		mine := map[string]bool{}
		for _, fs := range t {
			if len(fs) == 1 && !sr.Special[fs[0]] && !mine[fs[0]] {
				mine[fs[0]] = true
				seen[fs[0]]++
			}
		}
	}
	out := map[string]bool{}
	for f, n := range seen {
		if n == len(tensors) {
			out[f] = true
		}
	}
	return out
}

// customCall runs a ruled custom call on each partition's block: its batch
// factors stay split as the first result's target splits them, every other
// dimension of an operand is made whole first; results are then laid out
// as their targets say.
func (b *builder) customCall(op *ir.Op) bool {
	sr, err := shardy.RuleOf(op)
	if err != nil || sr == nil || len(op.Results) == 0 {
		return false
	}
	batch := batchFactors(sr)
	axes := map[string][]shardy.Axis{}
	t0 := b.target(op.Results[0])
	for d, fs := range sr.Results[0] {
		if len(fs) == 1 && batch[fs[0]] {
			axes[fs[0]] = dimsOf(t0, d)
		}
	}
	layout := func(spec [][]string) *shardy.Sharding {
		dims := make([][]shardy.Axis, len(spec))
		for d, fs := range spec {
			if len(fs) == 1 && batch[fs[0]] {
				dims[d] = axes[fs[0]]
			}
		}
		return b.sharding(dims)
	}
	ins := make([]*ir.Value, len(op.Operands))
	for i, v := range op.Operands {
		ins[i] = b.reshard(v, layout(sr.Operands[i]))
	}
	types := make([]ir.Type, len(op.Results))
	outs := make([]*shardy.Sharding, len(op.Results))
	for i, r := range op.Results {
		t, ok := r.Type.(*ir.TensorType)
		if !ok {
			return false
		}
		outs[i] = layout(sr.Results[i])
		types[i] = b.localType(t, outs[i])
	}
	b.count(1, 0, 0)
	c := ir.NewOp(op.Name, ins, types, op.Attrs)
	c.Loc = op.Loc
	b.emit(c)
	for i, r := range op.Results {
		b.local[r] = local{v: c.Results[i], s: outs[i]}
		if to := b.target(r); !same(outs[i], to, r.Type.(*ir.TensorType).Rank()) {
			b.local[r] = local{v: b.reshard(r, to), s: to}
		}
	}
	return true
}
