package compiler

import (
	"fmt"
	"math"

	"github.com/gojax/gojax/go/ir"
)

// Coalescing: which values are computed directly in the buffer they end up
// in (a case/if result, an output) instead of being copied there.

// coalesce lets branch values be computed directly in the case/if result
// buffer and plans how each while iteration hands its values back.
func (b *builder) coalesce(blk *ir.Block) error {
	for _, op := range blk.Ops {
		if !isControlFlow(op) {
			continue
		}
		for _, r := range op.Regions {
			if err := b.coalesce(r.Blocks[0]); err != nil {
				return err
			}
		}
		if op.Name == "stablehlo.while" {
			if err := b.planCarry(op); err != nil {
				return err
			}
			continue
		}
		copies := make([][]pendingCopy, len(op.Regions))
		for bi, r := range op.Regions {
			rb := r.Blocks[0]
			term := rb.Terminator()
			if term == nil || len(term.Operands) != len(op.Results) {
				return op.Errorf("branch %d returns a different number of values than the op's %d results", bi, len(op.Results))
			}
			seen := map[*ir.Value]bool{}
			for i, v := range term.Operands {
				if !ir.TypesEqual(v.Type, op.Results[i].Type) {
					return op.Errorf("branch %d result %d has type %s, op result has %s", bi, i, v.Type, op.Results[i].Type)
				}
				res := b.valGroup[op.Results[i]]
				g, err := b.group(term, v)
				if err != nil {
					return err
				}
				if !seen[v] && v.Def != nil && v.Def.Block == rb && g.kernelDef && !g.coalesced && g.parent == nil {
					g.coalesced = true
					g.parent = res
					res.start = min(res.start, g.start)
					res.end = max(res.end, g.end)
				} else {
					copies[bi] = append(copies[bi], pendingCopy{src: v, dst: res, size: res.size})
				}
				seen[v] = true
			}
		}
		b.caseCopy[op] = copies
	}
	return nil
}

// outputs binds the block's results: a kernel result of the top block is
// computed directly in the output buffer; anything else is copied there.
func (b *builder) outputs() error {
	term := b.top.Terminator()
	if term == nil {
		return fmt.Errorf("compiler: block has no terminator")
	}
	seen := map[*ir.Value]bool{}
	for k, v := range term.Operands {
		g, err := b.group(term, v)
		if err != nil {
			return err
		}
		if !seen[v] && v.Def != nil && v.Def.Block == b.top && g.kernelDef && !g.coalesced && g.parent == nil {
			g.kind, g.index, g.coalesced = slotOutput, k, true
			b.outGroups = append(b.outGroups, g)
		} else {
			n, err := byteSize(v.Type)
			if err != nil {
				return term.Errorf("result %d: %v", k, err)
			}
			o := b.newGroup(slotOutput, n)
			o.index = k
			o.start, o.end = math.MaxInt, math.MaxInt
			b.outGroups = append(b.outGroups, o)
			b.final = append(b.final, pendingCopy{src: v, dst: o, size: n})
		}
		seen[v] = true
	}
	return nil
}
