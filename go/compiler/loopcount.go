package compiler

import (
	"encoding/binary"
	"slices"

	"github.com/gojax/gojax/go/ir"
)

// Counted loops: a while whose condition is `counter < limit` on s32
// scalars and whose body advances the counter by a constant step once
// (fori_loop, scan, and while loops written that way) keeps the counter in
// a Go int32: the compare and the add, one-element kernel steps each
// iteration, become two machine instructions. The new count is still
// stored where the add wrote it (the counter's slot, or one swapped with it
// at the iteration's end), so the body's other steps read both as before.
// Both are exact: s32 add wraps as Go's int32 add does, and LT on s32 is
// signed. With a step observer installed the loop runs its steps as usual,
// so observers see every step.

type countedLoop struct {
	ctr   int // slot of the carried counter
	next  int // slot the add writes: ctr, or a slot swapped with it each iteration
	limit int // constant slot of the bound
	step  int // constant slot of the increment
	addAt int // index of the counter's add in the body
}

// countLoop recognizes a counted loop in w (emitted, with scalarCond set).
func countLoop(p *plan, w *whileInstr) *countedLoop {
	c := w.scalarCond
	if c == nil || c.k.op.Name != "stablehlo.compare" || !isS32Scalar(c.k.op.Operands[0]) {
		return nil
	}
	if dir, _ := c.k.op.Attrs.Enum("comparison_direction"); dir != "LT" {
		return nil
	}
	isConst := func(slot int) bool {
		return slices.ContainsFunc(p.consts, func(b constBind) bool { return b.slot == slot && len(b.data) == 4 })
	}
	cl := &countedLoop{ctr: c.ins[0].slot, next: -1, limit: c.ins[1].slot, addAt: -1}
	if cl.ctr == cl.limit || !isConst(cl.limit) || c.ins[0].size != 4 {
		return nil
	}
	// The add: the one body step computing counter + constant.
	for i, in := range w.body {
		s, ok := in.(*scalarInstr)
		if !ok || s.k.op.Name != "stablehlo.add" || !isS32Scalar(s.k.op.Results[0]) {
			continue
		}
		a, b := s.ins[0].slot, s.ins[1].slot
		switch {
		case a == cl.ctr && b != cl.ctr && isConst(b):
			cl.step = b
		case b == cl.ctr && a != cl.ctr && isConst(a):
			cl.step = a
		default:
			continue
		}
		if cl.addAt >= 0 {
			return nil
		}
		cl.addAt, cl.next = i, s.out.slot
	}
	if cl.addAt < 0 {
		return nil
	}
	// Its result becomes the next counter in place or by the one swap that
	// moves either slot, and no other step writes either.
	swapped := cl.next == cl.ctr
	for _, s := range w.swaps {
		switch {
		case s == [2]int{cl.ctr, cl.next} || s == [2]int{cl.next, cl.ctr}:
			if swapped {
				return nil
			}
			swapped = true
		case s[0] == cl.ctr || s[1] == cl.ctr || s[0] == cl.next || s[1] == cl.next:
			return nil
		}
	}
	if !swapped {
		return nil
	}
	for _, s := range w.stage {
		if s.dst.slot == cl.ctr || s.dst.slot == cl.next {
			return nil
		}
	}
	writes := func(r ref) bool { return r.slot == cl.ctr || r.slot == cl.next }
	for i, in := range w.body {
		switch in := in.(type) {
		case *scalarInstr:
			if i != cl.addAt && writes(in.out) {
				return nil
			}
		case *sliceInstr:
			if writes(in.dst) || (in.relabel != nil && writes(in.relabel.outs[0])) {
				return nil
			}
		case *kernelInstr:
			if slices.ContainsFunc(in.outs, writes) || slices.ContainsFunc(in.pre, func(c copyPair) bool { return writes(c.dst) }) {
				return nil
			}
		default:
			return nil // nested control flow: not analysed
		}
	}
	return cl
}

func isS32Scalar(v *ir.Value) bool {
	t := v.StaticTensor()
	return t != nil && t.Elem == ir.S32 && t.NumElements() == 1
}

// runCounted is whileInstr.run for a counted loop, after the initial copies.
func (w *whileInstr) runCounted(f *frame) error {
	cl := w.counted
	le := binary.LittleEndian
	limit := int32(le.Uint32(f.bufs[cl.limit]))
	step := int32(le.Uint32(f.bufs[cl.step]))
	before, after := w.body[:cl.addAt], w.body[cl.addAt+1:]
	for {
		if err := f.cancelled(); err != nil {
			return err
		}
		i := int32(le.Uint32(f.bufs[cl.ctr]))
		if i >= limit {
			return nil
		}
		if err := w.runBody(f, before); err != nil {
			return err
		}
		le.PutUint32(f.bufs[cl.next], uint32(i+step))
		if err := w.runBody(f, after); err != nil {
			return err
		}
		for _, c := range w.stage {
			c.do(f)
		}
		for _, s := range w.swaps {
			f.bufs[s[0]], f.bufs[s[1]] = f.bufs[s[1]], f.bufs[s[0]]
		}
	}
}
