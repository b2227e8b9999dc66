package compiler

import (
	"slices"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/fused"
)

// rowFusionOp is the op of a row-local computation: reductions
// over the trailing (contiguous) dims of an array of rows, the elementwise
// ops on those rows and on the per-row results, and the broadcasts of the
// per-row results back along the rows (softmax, log_softmax, layer-norm
// statistics). Its region holds the members as gojax.fusion does; the fused
// kernel family (go/kernels/fused) runs them row block by row block, so a
// block's rows are read from memory once and every intermediate stays in
// cache.
const rowFusionOp = fused.RowOp

// rowFusion gates the pass (tests compare plans with and without it).
var rowFusion = true

// maxRowLen bounds the row length: beyond it a row block no longer fits in
// cache and the unfused plan streams as well.
const maxRowLen = 1 << 16

// rowGeom is a group's row structure: values of Rows*N elements are
// "full", values of Rows elements are per-row.
type rowGeom = fused.RowGeom

// fuseRows runs before fuseElementwise, which then fuses what is left.
func fuseRows(st *passState) error {
	if st.opts.NoFuse || !rowFusion {
		return nil
	}
	rowFuseRegion(st.entry.Body)
	return nil
}

func rowFuseRegion(r *ir.Region) {
	for _, b := range r.Blocks {
		rowFuseBlock(b)
	}
}

func rowFuseBlock(blk *ir.Block) {
	for _, op := range blk.Ops {
		if isControlFlow(op) {
			for _, r := range op.Regions {
				rowFuseRegion(r)
			}
		}
	}
	tried := map[*ir.Op]bool{}
	for {
		ms, users := findRowGroup(blk, tried)
		if ms == nil {
			return
		}
		spliceRowGroup(blk, ms, users)
	}
}

// rowReduceGeom returns the geometry of a reduce the group can run per row
// (fused.RowReduceGeom) with rows short enough to fit a block in cache.
func rowReduceGeom(op *ir.Op) (rowGeom, bool) {
	g, ok := fused.RowReduceGeom(op)
	if !ok || g.N > maxRowLen {
		return rowGeom{}, false
	}
	return g, true
}

// rowMember reports whether op, reading a value of the group, can join it.
func rowMember(op *ir.Op, g rowGeom) bool {
	switch op.Name {
	case "stablehlo.reduce":
		rg, ok := rowReduceGeom(op)
		return ok && rg == g
	case "stablehlo.broadcast_in_dim":
		return fused.RowBroadcast(op, g) != fused.BcastOther
	}
	if !fusible(op) {
		return false
	}
	n := op.Results[0].StaticTensor().NumElements()
	return n == g.Rows || n == g.Rows*g.N
}

// findRowGroup returns the members (block order) of the next row group, or
// nil, with the block's users map (spliceRowGroup reuses it). A group starts at a reduce and takes, in block order, every later op
// that reads a member and can join, skipping ops that depend on the group
// through an outsider (they move after the fusion). It stops at an op with
// effects so no effects are reordered.
func findRowGroup(blk *ir.Block, tried map[*ir.Op]bool) ([]*ir.Op, map[*ir.Value][]*ir.Op) {
	for i, op := range blk.Ops {
		if tried[op] {
			continue
		}
		tried[op] = true
		g, ok := rowReduceGeom(op)
		if !ok {
			continue
		}
		member := map[*ir.Op]bool{op: true}
		ms := []*ir.Op{op}
		produced := map[*ir.Value]bool{op.Results[0]: true}
		tainted := map[*ir.Value]bool{}
		spreads := false // a per-row result flows back along the rows
		for _, o := range blk.Ops[i+1:] {
			if hasEffects(o) {
				break
			}
			reads, dirty := false, false
			for _, v := range o.Operands {
				reads = reads || produced[v]
			}
			forEachUse(o, func(v *ir.Value) { dirty = dirty || tainted[v] || produced[v] && !slices.Contains(o.Operands, v) })
			if reads && !dirty && rowMember(o, g) {
				member[o] = true
				ms = append(ms, o)
				produced[o.Results[0]] = true
				spreads = spreads || o.Name == "stablehlo.broadcast_in_dim" && fused.RowBroadcast(o, g) == fused.BcastSpread
				continue
			}
			if reads || dirty {
				for _, r := range o.Results {
					tainted[r] = true
				}
			}
		}
		if !spreads {
			continue
		}
		users := map[*ir.Value][]*ir.Op{}
		for _, op := range blk.Ops {
			forEachUse(op, func(v *ir.Value) { users[v] = append(users[v], op) })
		}
		return absorbProducers(blk, ms, member, tainted, users, g), users
	}
	return nil, nil
}

// absorbProducers adds, to a fixpoint, the ops feeding members that only
// members read: broadcasts of outside values (the fusion then reads their
// small operands instead of materialized arrays) and elementwise ops on the
// rows, such as a scaling or a mask before a softmax (their results then
// never reach memory). Such an op does not depend on the group (it is not
// tainted) and precedes its readers, so it can run inside the fusion.
func absorbProducers(blk *ir.Block, ms []*ir.Op, member map[*ir.Op]bool, tainted map[*ir.Value]bool, users map[*ir.Value][]*ir.Op, g rowGeom) []*ir.Op {
	for changed := true; changed; {
		changed = false
		for i := 0; i < len(ms); i++ {
			for _, v := range ms[i].Operands {
				p := v.Def
				if p == nil || p.Block != blk || member[p] || tainted[v] || !absorbable(p, g) {
					continue
				}
				all := true
				for _, u := range users[v] {
					// A broadcast reading a member must spread or re-shape a
					// per-row value (fused.RowBroadcast); others read outside values.
					all = all && member[u] && slices.Contains(u.Operands, v) &&
						(u.Name != "stablehlo.broadcast_in_dim" || fused.RowBroadcast(u, g) != fused.BcastOther)
				}
				if all {
					member[p] = true
					ms = append(ms, p)
					changed = true
				}
			}
		}
	}
	index := make(map[*ir.Op]int, len(blk.Ops))
	for i, op := range blk.Ops {
		index[op] = i
	}
	slices.SortFunc(ms, func(a, b *ir.Op) int { return index[a] - index[b] })
	return ms
}

// absorbable: a broadcast or an elementwise op whose result is a full or a
// per-row value of g.
func absorbable(p *ir.Op, g rowGeom) bool {
	if p.Name == "stablehlo.broadcast_in_dim" {
		if !fused.Broadcastable(p) {
			return false
		}
	} else if !fusible(p) {
		return false
	}
	n := p.Results[0].StaticTensor().NumElements()
	return n == g.Rows || n == g.Rows*g.N
}

// spliceRowGroup replaces the members (block order) by one row fusion at
// the last member's place. Ops between the members that depend on the group
// move right after it, in order. users is the block's users map.
func spliceRowGroup(blk *ir.Block, ms []*ir.Op, users map[*ir.Value][]*ir.Op) {
	member := make(map[*ir.Op]bool, len(ms))
	for _, m := range ms {
		member[m] = true
	}
	f, _ := buildFusion(blk, ms, users, false)
	f.Name = rowFusionOp
	last := ms[len(ms)-1]
	after := map[*ir.Value]bool{} // results of the fusion and of ops moved after it
	for _, r := range f.Results {
		after[r] = true
	}
	var ops, moved []*ir.Op
	done := false
	for _, op := range blk.Ops {
		switch {
		case op == last:
			ops = append(ops, f)
			ops = append(ops, moved...)
			done = true
		case member[op]:
		default:
			dep := false
			forEachUse(op, func(v *ir.Value) { dep = dep || after[v] })
			if !done && dep {
				for _, r := range op.Results {
					after[r] = true
				}
				moved = append(moved, op)
				continue
			}
			ops = append(ops, op)
		}
	}
	clear(blk.Ops)
	blk.Ops = ops
}
