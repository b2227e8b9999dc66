package compiler

import (
	"slices"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// In-place results: which op results may take the buffer of an operand
// that dies at the op, as the kernel registry's traits allow.

// inPlaceCapable: op may write its result over operand v (same size).
func inPlaceCapable(op *ir.Op, v *ir.Value) bool {
	if len(op.Results) != 1 || !ir.TypesEqual(op.Results[0].Type, v.Type) {
		return false
	}
	tr := kernel.TraitsOf(op.Name)
	if !tr.InPlace {
		return false
	}
	if tr.Overwrites != nil {
		return tr.Overwrites(op, v)
	}
	return slices.Contains(op.Operands, v)
}

// inPlace lets the result of an op whose traits allow it (an elementwise op,
// a dynamic_update_slice) share the buffer of a same-sized operand whose
// last use is that op, so a chain of elementwise ops runs in one buffer and
// an update inside a loop does not need a second copy of the array.
func (b *builder) inPlace(blk *ir.Block) {
	for _, op := range blk.Ops {
		if isControlFlow(op) {
			for _, r := range op.Regions {
				b.inPlace(r.Blocks[0])
			}
			continue
		}
		tr := kernel.TraitsOf(op.Name)
		if len(op.Results) != 1 || !tr.InPlace {
			continue
		}
		res := b.valGroup[op.Results[0]]
		if res.parent != nil || res.kind != slotInternal || res.coalesced {
			continue
		}
		for _, v := range op.Operands {
			g := b.valGroup[v].root()
			if tr.Overwrites != nil && !tr.Overwrites(op, v) {
				continue
			}
			if g.kind == slotInternal && g.end == b.pre[op] && g.size == res.size && g != res {
				res.parent, res.coalesced = g, true
				g.end = max(g.end, res.end)
				break
			}
		}
	}
}
