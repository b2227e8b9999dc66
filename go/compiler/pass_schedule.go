package compiler

import (
	"container/heap"

	"github.com/gojax/gojax/go/ir"
)

// scheduleForDonation reorders the entry block so that an output that may
// reuse a donated argument's buffer is computed after the last read of that
// argument, when the data dependencies allow it. JAX often traces a read of
// the old parameters (a loss, a metric) after the update that replaces them;
// in program order the update would clobber them, so donation would be lost.
// Only the ops defining such outputs are delayed; everything else keeps its
// order, and effectful ops keep their relative order.
func scheduleForDonation(st *passState) error {
	f := st.entry
	blk := f.Entry()
	term := blk.Terminator()
	ops := blk.Ops[:len(blk.Ops)-1]
	index := make(map[*ir.Op]int, len(ops))
	for i, op := range ops {
		index[op] = i
	}
	// lastRead[arg] is the index of the last top-level op reading it
	// (directly or inside its regions).
	lastRead := map[*ir.Value]int{}
	for i, op := range ops {
		forEachUse(op, func(v *ir.Value) {
			if v.Def == nil && v.Block == blk {
				lastRead[v] = i
			}
		})
	}
	deferred := map[*ir.Op]bool{}
	for i, attrs := range f.ArgAttrs {
		if i >= len(blk.Args) {
			break
		}
		arg := blk.Args[i]
		last, read := lastRead[arg]
		if !read {
			continue
		}
		for k, v := range term.Operands {
			if !mayAlias(attrs, arg, k, v) {
				continue
			}
			if d := v.Def; d != nil && d.Block == blk && isKernelOp(d) && !hasEffects(d) && index[d] < last {
				deferred[d] = true
			}
		}
	}
	if len(deferred) == 0 {
		return nil
	}
	blk.Ops = append(reorder(blk, ops, index, deferred), term)
	return nil
}

// mayAlias reports whether output k (value v) is a donation target of arg.
func mayAlias(attrs ir.Attrs, arg *ir.Value, k int, v *ir.Value) bool {
	if out, ok := attrs.Int("tf.aliasing_output"); ok {
		return int(out) == k
	}
	return isDonor(attrs) && ir.TypesEqual(arg.Type, v.Type)
}

// forEachUse calls fn for every operand of op and of the ops in its regions.
func forEachUse(op *ir.Op, fn func(*ir.Value)) {
	for _, v := range op.Operands {
		fn(v)
	}
	for _, r := range op.Regions {
		r.Walk(func(o *ir.Op) bool {
			for _, v := range o.Operands {
				fn(v)
			}
			return true
		})
	}
}

// reorder is a list schedule: repeatedly take the first ready op in
// program order that is not deferred, falling back to the first ready
// deferred op. A cycle is impossible (the input order is a valid one).
func reorder(blk *ir.Block, ops []*ir.Op, index map[*ir.Op]int, deferred map[*ir.Op]bool) []*ir.Op {
	n := len(ops)
	preds := make([]map[int]bool, n)
	succs := make([][]int, n)
	lastEffect := -1
	for i, op := range ops {
		preds[i] = map[int]bool{}
		forEachUse(op, func(v *ir.Value) {
			d := v.Def
			// A use inside a region may be of a value defined in that region.
			if d == nil || d.Block != blk {
				return
			}
			if j, ok := index[d]; ok && j != i {
				preds[i][j] = true
			}
		})
		if hasEffects(op) {
			if lastEffect >= 0 {
				preds[i][lastEffect] = true
			}
			lastEffect = i
		}
		for j := range preds[i] {
			succs[j] = append(succs[j], i)
		}
	}
	var ready, later intHeap // ready ops by program order: normal and deferred
	waiting := make([]int, n)
	for i := range ops {
		if waiting[i] = len(preds[i]); waiting[i] == 0 {
			push(&ready, &later, i, deferred[ops[i]])
		}
	}
	out := make([]*ir.Op, 0, n)
	for len(out) < n {
		h := &ready
		if h.Len() == 0 {
			h = &later
		}
		i := heap.Pop(h).(int)
		out = append(out, ops[i])
		for _, s := range succs[i] {
			if waiting[s]--; waiting[s] == 0 {
				push(&ready, &later, s, deferred[ops[s]])
			}
		}
	}
	return out
}

func push(ready, later *intHeap, i int, deferred bool) {
	if deferred {
		heap.Push(later, i)
	} else {
		heap.Push(ready, i)
	}
}

type intHeap []int

func (h intHeap) Len() int           { return len(h) }
func (h intHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h intHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *intHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *intHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
