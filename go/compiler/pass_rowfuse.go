package compiler

import (
	"slices"
	"sort"

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

// rowScanWindow is how far past its last member a row group looks for more.
const rowScanWindow = 256

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
	// users[v]: the ops of this block that read v, with repetition; built
	// once and kept exact across splices (rebuilding it per group made the
	// pass quadratic in a deep network).
	users := map[*ir.Value][]*ir.Op{}
	// pos orders the block's ops (increasing along blk.Ops); a splice
	// hands the positions of its span to the ops that replace it.
	pos := make(map[*ir.Op]int, len(blk.Ops))
	for i, op := range blk.Ops {
		forEachUse(op, func(v *ir.Value) { users[v] = append(users[v], op) })
		pos[op] = i
	}
	from := 0 // ops before the last splice's span are unchanged and tried
	for {
		ms := findRowGroup(blk, from, tried, users, pos)
		if ms == nil {
			return
		}
		var f *ir.Op
		f, from = spliceRowGroup(blk, ms, users, pos)
		member := make(map[*ir.Op]bool, len(ms))
		for _, m := range ms {
			member[m] = true
		}
		outside := func(us []*ir.Op) []*ir.Op {
			return slices.DeleteFunc(us, func(u *ir.Op) bool { return member[u] })
		}
		for _, v := range f.Operands {
			users[v] = append(outside(users[v]), f)
		}
		for _, v := range f.Results {
			users[v] = outside(users[v])
		}
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
// nil; users is the block's users map. A group starts at a reduce and takes, in block order, every later op
// that reads a member and can join, skipping ops that depend on the group
// through an outsider (they move after the fusion). It stops at an op with
// effects so no effects are reordered.
func findRowGroup(blk *ir.Block, from int, tried map[*ir.Op]bool, users map[*ir.Value][]*ir.Op, pos map[*ir.Op]int) []*ir.Op {
	for i := from; i < len(blk.Ops); i++ {
		op := blk.Ops[i]
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
		// The scan stops once no read of a produced value is left
		// (pending), or rowScanWindow ops past the last member: a gradient
		// reads forward values at the far end of the block, and scanning
		// there for every reduce made compiling quadratic in the depth of
		// a network. Fusion never changes results, so the bound only
		// forgoes far-flung members.
		pending := len(users[op.Results[0]])
		lastMember := i
		tainted := map[*ir.Value]bool{}
		spreads := false // a per-row result flows back along the rows
		for j := i + 1; j < len(blk.Ops) && j-lastMember <= rowScanWindow; j++ {
			o := blk.Ops[j]
			if pending == 0 || hasEffects(o) {
				break
			}
			reads, dirty := false, false
			for _, v := range o.Operands {
				reads = reads || produced[v]
			}
			forEachUse(o, func(v *ir.Value) {
				if produced[v] {
					pending--
				}
				dirty = dirty || tainted[v] || produced[v] && !slices.Contains(o.Operands, v)
			})
			if reads && !dirty && rowMember(o, g) {
				member[o] = true
				ms = append(ms, o)
				produced[o.Results[0]] = true
				pending += len(users[o.Results[0]])
				lastMember = j
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
		return absorbProducers(blk, ms, member, tainted, users, pos, g)
	}
	return nil
}

// absorbProducers adds, to a fixpoint, the ops feeding members that only
// members read: broadcasts of outside values (the fusion then reads their
// small operands instead of materialized arrays) and elementwise ops on the
// rows, such as a scaling or a mask before a softmax (their results then
// never reach memory). Such an op does not depend on the group (it is not
// tainted) and precedes its readers, so it can run inside the fusion.
func absorbProducers(blk *ir.Block, ms []*ir.Op, member map[*ir.Op]bool, tainted map[*ir.Value]bool, users map[*ir.Value][]*ir.Op, pos map[*ir.Op]int, g rowGeom) []*ir.Op {
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
	slices.SortFunc(ms, func(a, b *ir.Op) int { return pos[a] - pos[b] })
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
// move right after it, in order. users is the block's users map. It
// returns the fusion op and the block index where the changed span starts.
func spliceRowGroup(blk *ir.Block, ms []*ir.Op, users map[*ir.Value][]*ir.Op, pos map[*ir.Op]int) (*ir.Op, int) {
	member := make(map[*ir.Op]bool, len(ms))
	for _, m := range ms {
		member[m] = true
	}
	// Only the span from the first to the last member changes; finding it
	// by position keeps a splice from walking the rest of a long block.
	at := func(op *ir.Op) int {
		return sort.Search(len(blk.Ops), func(i int) bool { return pos[blk.Ops[i]] >= pos[op] })
	}
	first, end := at(ms[0]), at(ms[len(ms)-1])+1
	spanPos := make([]int, 0, end-first)
	for _, op := range blk.Ops[first:end] {
		spanPos = append(spanPos, pos[op])
	}
	f, _ := buildFusion(blk, ms, users, false)
	f.Name = rowFusionOp
	after := map[*ir.Value]bool{} // results of the fusion and of ops moved after it
	for _, r := range f.Results {
		after[r] = true
	}
	var kept, moved []*ir.Op
	for _, op := range blk.Ops[first : end-1] {
		if member[op] {
			continue
		}
		dep := false
		forEachUse(op, func(v *ir.Value) { dep = dep || after[v] })
		if dep {
			for _, r := range op.Results {
				after[r] = true
			}
			moved = append(moved, op)
			continue
		}
		kept = append(kept, op)
	}
	span := append(append(kept, f), moved...)
	for k, op := range span {
		pos[op] = spanPos[k]
	}
	// In place: the span only shrinks, so the tail moves down.
	n := copy(blk.Ops[first:], span)
	tail := copy(blk.Ops[first+n:], blk.Ops[end:])
	clear(blk.Ops[first+n+tail:])
	blk.Ops = blk.Ops[:first+n+tail]
	return f, first
}
