package compiler

import "github.com/gojax/gojax/go/ir"

// Liveness: the interval of positions during which each group's buffer
// must hold its value.

// liveness sets every group's interval: from its first definition to the
// end of the outermost op (in the defining block) that contains a use.
func (b *builder) liveness(blk *ir.Block) error {
	for _, op := range blk.Ops {
		for _, r := range op.Results {
			if g, ok := b.valGroup[r]; ok {
				g.start = min(g.start, b.pre[op])
				g.end = max(g.end, b.pre[op])
			}
		}
		for _, v := range op.Operands {
			g, err := b.group(op, v)
			if err != nil {
				return err
			}
			u := b.lastUse(op, v)
			g.end = max(g.end, u)
			if l, ok := b.valLast[v]; !ok || u > l {
				b.valLast[v] = u
			}
		}
		if isControlFlow(op) {
			for _, r := range op.Results {
				// Results are written inside the op (branch copies), so they
				// must be reserved until it ends.
				g := b.valGroup[r]
				g.start = min(g.start, b.pre[op])
				g.end = max(g.end, b.post[op])
			}
			for _, r := range op.Regions {
				if err := b.liveness(r.Blocks[0]); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (b *builder) lastUse(use *ir.Op, v *ir.Value) int {
	def := v.Block
	if v.Def != nil {
		def = v.Def.Block
	}
	a := use
	for a.Block != def && a.Block != b.top && a.Block.Region != nil && a.Block.Region.Parent != nil {
		a = a.Block.Region.Parent
	}
	return b.post[a]
}
