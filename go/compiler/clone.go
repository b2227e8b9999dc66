package compiler

import "github.com/gojax/gojax/go/ir"

// cloneModule deep-copies functions, blocks, ops and values so passes can
// rewrite the copy while Executable.Module keeps the caller's IR intact.
// Attribute values are immutable and shared.
func cloneModule(m *ir.Module) *ir.Module {
	out := &ir.Module{Attrs: m.Attrs, Producer: m.Producer, Globals: m.Globals}
	for _, f := range m.Funcs {
		nf := *f
		nf.Body = cloneRegion(f.Body, map[*ir.Value]*ir.Value{})
		out.Funcs = append(out.Funcs, &nf)
	}
	return out
}

// cloneRegion copies a region; vmap maps values of enclosing scopes (and
// receives the region's own values) so captured operands are remapped.
func cloneRegion(r *ir.Region, vmap map[*ir.Value]*ir.Value) *ir.Region {
	blocks := make([]*ir.Block, len(r.Blocks))
	for i, b := range r.Blocks {
		types := make([]ir.Type, len(b.Args))
		for j, a := range b.Args {
			types[j] = a.Type
		}
		nb := ir.NewBlock(types...)
		for j, a := range b.Args {
			vmap[a] = nb.Args[j]
		}
		blocks[i] = nb
	}
	nr := ir.NewRegion(blocks...)
	for i, b := range r.Blocks {
		for _, op := range b.Ops {
			blocks[i].Append(cloneOp(op, vmap))
		}
	}
	return nr
}

// cloneOp copies one op (with its regions); operands are looked up in vmap
// (left as is when absent) and its results are recorded there.
func cloneOp(op *ir.Op, vmap map[*ir.Value]*ir.Value) *ir.Op {
	operands := make([]*ir.Value, len(op.Operands))
	for i, v := range op.Operands {
		if nv, ok := vmap[v]; ok {
			operands[i] = nv
		} else {
			operands[i] = v
		}
	}
	types := make([]ir.Type, len(op.Results))
	for i, r := range op.Results {
		types[i] = r.Type
	}
	attrs := make(ir.Attrs, len(op.Attrs))
	for k, v := range op.Attrs {
		attrs[k] = v
	}
	nop := ir.NewOp(op.Name, operands, types, attrs)
	nop.Loc = op.Loc
	for i, r := range op.Results {
		vmap[r] = nop.Results[i]
	}
	for _, r := range op.Regions {
		nop.AddRegion(cloneRegion(r, vmap))
	}
	return nop
}

// applyRewrites splices each rewritten op's replacement ops into r and
// points the uses of replaced results at their new values (repl, which may
// name values of ops left in place: a select that picks an operand): the
// end of every pass that rewrites ops one by one.
func applyRewrites(r *ir.Region, rewritten map[*ir.Op][]*ir.Op, repl map[*ir.Value]*ir.Value) {
	if len(rewritten) > 0 {
		spliceOps(r, rewritten)
	}
	replaceUses(r, repl)
}

// spliceOps replaces, in every block of r and of the regions nested in it,
// each op that is a key of rewritten with the ops it maps to (one rebuild per
// block). Passes that rewrite ops into others share it.
func spliceOps(r *ir.Region, rewritten map[*ir.Op][]*ir.Op) {
	for _, b := range r.Blocks {
		ops := make([]*ir.Op, 0, len(b.Ops))
		for _, op := range b.Ops {
			if n, ok := rewritten[op]; ok {
				ops = append(ops, n...)
				continue
			}
			for _, sub := range op.Regions {
				spliceOps(sub, rewritten)
			}
			ops = append(ops, op)
		}
		b.Ops = ops
	}
}

// useCounts counts, per value, the operands that read it in r (nested
// regions included).
func useCounts(r *ir.Region) map[*ir.Value]int {
	uses := map[*ir.Value]int{}
	r.Walk(func(op *ir.Op) bool {
		for _, v := range op.Operands {
			uses[v]++
		}
		return true
	})
	return uses
}

// replaceUses rewrites every operand in r (nested regions included) through
// repl, following chains (a→b, b→c gives a→c).
func replaceUses(r *ir.Region, repl map[*ir.Value]*ir.Value) {
	if len(repl) == 0 {
		return
	}
	r.Walk(func(op *ir.Op) bool {
		for i, v := range op.Operands {
			op.Operands[i] = resolve(repl, v)
		}
		return true
	})
}

func resolve(repl map[*ir.Value]*ir.Value, v *ir.Value) *ir.Value {
	for n := 0; n < 1_000_000; n++ {
		nv, ok := repl[v]
		if !ok || nv == v {
			return v
		}
		v = nv
	}
	return v
}
