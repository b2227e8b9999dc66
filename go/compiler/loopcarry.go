package compiler

import "github.com/gojax/gojax/go/ir"

// Loop carries: how each while iteration's results become the next
// iteration's arguments (in place, by a buffer swap or through a staging
// copy).

// planCarry decides, per carried value, how the body's result becomes the
// next iteration's argument: nothing when it is the argument itself, a
// buffer swap when the body computed it into a buffer of its own, otherwise
// a copy into a staging buffer that is then swapped in.
func (b *builder) planCarry(op *ir.Op) error {
	body := op.Regions[1].Blocks[0]
	term := body.Terminator()
	if term == nil || len(term.Operands) != len(body.Args) {
		return op.Errorf("while body must return its %d carried values", len(body.Args))
	}
	b.initInPlace(op)
	seen := map[*ir.Value]bool{}
	for i, v := range term.Operands {
		if !ir.TypesEqual(v.Type, body.Args[i].Type) {
			return op.Errorf("body result %d has type %s, carried type is %s", i, v.Type, body.Args[i].Type)
		}
		carry := b.valGroup[body.Args[i]]
		if v == body.Args[i] {
			seen[v] = true
			// A loop-invariant argument or constant (JAX carries closed-over
			// arrays through the loop unchanged) is read in place: the
			// carried value shares its read-only buffer, no copy.
			if in := b.valGroup[op.Operands[i]].root(); (in.kind == slotParam || in.kind == slotConst) && carry.parent == nil {
				carry.parent = in
				in.start, in.end = min(in.start, carry.start), max(in.end, carry.end)
			}
			continue
		}
		g, err := b.group(term, v)
		if err != nil {
			return err
		}
		if b.updatesCarryInPlace(body, i, v, g) {
			// The body's last use of the argument computes its next value
			// elementwise (or as a dynamic_update_slice): write it straight
			// into the carried buffer, no swap.
			g.parent, g.coalesced = carry, true
			seen[v] = true
			continue
		}
		if !seen[v] && v.Def != nil && v.Def.Block == body && g.root().kind == slotInternal {
			b.swapsOf[op] = append(b.swapsOf[op], [2]*group{carry, g})
		} else {
			s := b.newGroup(slotInternal, carry.size)
			s.start, s.end = b.pre[op], b.post[op]
			b.stage[op] = append(b.stage[op], pendingCopy{src: v, dst: s, size: carry.size})
			b.swapsOf[op] = append(b.swapsOf[op], [2]*group{carry, s})
		}
		seen[v] = true
	}
	return nil
}

// initInPlace: an initial value computed only for the loop (a kernel result
// whose last use is this while, not read inside it) is computed directly in
// the carried buffer, so the loop starts without a copy.
func (b *builder) initInPlace(op *ir.Op) {
	count := map[*ir.Value]int{}
	for _, v := range op.Operands {
		count[v]++
	}
	inside := map[*ir.Value]bool{}
	for _, r := range op.Regions {
		r.Walk(func(o *ir.Op) bool {
			for _, v := range o.Operands {
				inside[v] = true
			}
			return true
		})
	}
	body := op.Regions[1].Blocks[0]
	for i, v := range op.Operands {
		g := b.valGroup[v]
		if v.Def == nil || !g.kernelDef || g.parent != nil || g.coalesced || g.kind != slotInternal ||
			count[v] != 1 || inside[v] || g.end != b.post[op] {
			continue
		}
		carry := b.valGroup[body.Args[i]]
		g.parent, g.coalesced = carry, true
		carry.start = min(carry.start, g.start)
	}
}

func (b *builder) updatesCarryInPlace(body *ir.Block, i int, v *ir.Value, g *group) bool {
	def, arg := v.Def, body.Args[i]
	if def == nil || def.Block != body || len(def.Results) != 1 || g.parent != nil || g.coalesced || g.kind != slotInternal {
		return false
	}
	if !inPlaceCapable(def, arg) {
		return false
	}
	if last, ok := b.valLast[arg]; !ok || last != b.pre[def] {
		return false
	}
	n := 0
	for _, o := range body.Terminator().Operands {
		if o == v {
			n++
		}
	}
	return n == 1
}
