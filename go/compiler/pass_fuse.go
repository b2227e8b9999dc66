package compiler

import (
	"bytes"
	"slices"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/fused"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// fusionOp is the op of a fused elementwise computation. Its operands are
// the external inputs; its one region holds the member ops (reading the
// region's block arguments) and returns the root's value and the other
// results. It is a kernel op like any other: the fused kernel family
// (go/kernels/fused) compiles the region into a single blocked loop.
const fusionOp = fused.Op

// fuseElementwise merges producer→consumer trees of elementwise ops with one
// element count (the reshapes between them and the broadcast_in_dim ops
// feeding them included) into gojax.fusion ops,
// so their intermediates never reach memory. A producer joins its
// consumer's fusion when every use of its result is inside that fusion:
// values used elsewhere stay materialized and are not recomputed.
func fuseElementwise(st *passState) error {
	if st.opts.NoFuse {
		return nil
	}
	if fuseRegion(st.entry.Body) {
		// Splat constants now read as scalars may have no users left.
		return eliminateDeadCode(st)
	}
	return nil
}

// fuseRegion reports whether it made a fusion.
func fuseRegion(r *ir.Region) bool {
	any := false
	for _, b := range r.Blocks {
		any = fuseBlock(b) || any
	}
	return any
}

func fuseBlock(blk *ir.Block) bool {
	any := false
	for _, op := range blk.Ops {
		if isControlFlow(op) {
			for _, r := range op.Regions {
				any = fuseRegion(r) || any
			}
		}
	}
	// users[v]: the ops of this block that read v (directly or inside their
	// regions), with repetition.
	users := map[*ir.Value][]*ir.Op{}
	for _, op := range blk.Ops {
		forEachUse(op, func(v *ir.Value) { users[v] = append(users[v], op) })
	}
	// Consumers come after producers, so walk backwards: each fusible op
	// joins the group of its users or starts a group of its own.
	group := map[*ir.Op]int{}
	index := make(map[*ir.Op]int, len(blk.Ops))
	for i, op := range blk.Ops {
		index[op] = i
	}
	var shapes []*ir.TensorType
	var members [][]*ir.Op
	var rootAt []int // block index of each group's root
	for i := len(blk.Ops) - 1; i >= 0; i-- {
		op := blk.Ops[i]
		if !fusible(op) {
			continue
		}
		t := op.Results[0].Tensor()
		// Users in several groups: those groups become one when that
		// keeps every use in order, so op can join it (threefry's rounds
		// read each sum from two chains; one loop then computes both).
		if gs := userGroups(users[op.Results[0]], group); len(gs) > 1 {
			target := gs[0]
			for _, g := range gs {
				if rootAt[g] > rootAt[target] {
					target = g
				}
			}
			if canMerge(gs, target, shapes, members, rootAt, users, group, index) {
				for _, g := range gs {
					if g == target {
						continue
					}
					for _, m := range members[g] {
						group[m] = target
					}
					members[target] = append(members[target], members[g]...)
					members[g] = nil
				}
			}
		}
		g := joinGroup(op, users[op.Results[0]], group, index, rootAt)
		if g >= 0 && shapes[g].NumElements() != t.NumElements() {
			g = -1
		}
		if g < 0 {
			g = len(shapes)
			shapes = append(shapes, t)
			members = append(members, nil)
			rootAt = append(rootAt, i)
		}
		group[op] = g
		members[g] = append(members[g], op)
	}
	fused := map[*ir.Op]*ir.Op{}    // root → its fusion op; other members → nil
	before := map[*ir.Op][]*ir.Op{} // fusion → scalar constants placed before it
	inLoop := blk.Region != nil && blk.Region.Parent != nil && blk.Region.Parent.Name == "stablehlo.while"
	for g, ms := range members {
		if len(ms) < 2 || (inLoop && shapes[g].NumElements() == 1 && allInline(ms)) {
			continue
		}
		// Block order, the root (the last op) last.
		slices.SortFunc(ms, func(a, b *ir.Op) int { return index[a] - index[b] })
		root := ms[len(ms)-1]
		for _, m := range ms {
			fused[m] = nil
		}
		f, pre := buildFusion(blk, ms, users, true)
		fused[root], before[f] = f, pre
	}
	if len(fused) == 0 {
		return any
	}
	// A new slice: the scalar constants may make the list longer.
	ops := make([]*ir.Op, 0, len(blk.Ops))
	for _, op := range blk.Ops {
		f, ok := fused[op]
		switch {
		case !ok:
			ops = append(ops, op)
		case f != nil:
			ops = append(ops, before[f]...)
			ops = append(ops, f)
		}
	}
	blk.Ops = ops
	return true
}

// userGroups lists the distinct groups of the users in one.
func userGroups(us []*ir.Op, group map[*ir.Op]int) []int {
	var gs []int
	for _, u := range us {
		if g, in := group[u]; in && !slices.Contains(gs, g) {
			gs = append(gs, g)
		}
	}
	return gs
}

// canMerge reports whether groups gs can become one fusion placed at the
// root of target, the one whose root comes last: same element count, and
// every read of another group's member from outside the merged groups
// comes after that root (so moving the members there breaks no use, and no
// op between the roots feeds the fusion a value computed from it).
func canMerge(gs []int, target int, shapes []*ir.TensorType, members [][]*ir.Op, rootAt []int,
	users map[*ir.Value][]*ir.Op, group, index map[*ir.Op]int) bool {
	for _, g := range gs {
		if shapes[g].NumElements() != shapes[target].NumElements() {
			return false
		}
		for _, m := range members[g] {
			for _, u := range users[m.Results[0]] {
				if gu, in := group[u]; in && slices.Contains(gs, gu) {
					if u.Name == "stablehlo.broadcast_in_dim" {
						return false // a broadcast must read a fusion input
					}
					continue
				}
				// A broadcast read outside (the root of a group of its
				// own, the target's included) cannot become a result: the
				// fused kernel gathers it per block, it computes no value.
				if m.Name == "stablehlo.broadcast_in_dim" || g != target && index[u] <= rootAt[target] {
					return false
				}
			}
		}
	}
	return true
}

// joinGroup returns the group op may join, or -1. Every user must be in
// that group, except that a non-broadcast op may also be read after the
// group's root (it then becomes an extra result of the fusion: computed in
// the same loop, written once, and its in-group users read it from cache).
// Users placed after the root cannot feed the group, so no cycle arises.
func joinGroup(op *ir.Op, us []*ir.Op, group, index map[*ir.Op]int, rootAt []int) int {
	g, outside := -1, false
	for _, u := range us {
		gu, in := group[u]
		switch {
		case in && u.Name == "stablehlo.broadcast_in_dim":
			// A broadcast reads its operand with an index map, so that
			// operand must be a fusion input, not a member.
			return -1
		case in && (g < 0 || gu == g):
			g = gu
		case in:
			return -1 // users in two groups
		default:
			outside = true
		}
	}
	if g < 0 || !outside {
		return g
	}
	if !multiOutputFusion || op.Name == "stablehlo.broadcast_in_dim" {
		return -1
	}
	for _, u := range us {
		if _, in := group[u]; !in && index[u] <= rootAt[g] {
			return -1
		}
	}
	return g
}

// multiOutputFusion lets a member with users outside its fusion be an
// extra result of it.
const multiOutputFusion = true

// buildFusion moves ms (in block order, root last) into the region of a new
// fusion op placed where the root was. The op takes over the root's result
// value, so uses outside need no rewriting.
//
// A member operand that is a splat constant of several elements (JAX writes
// jnp.where's and erf_inv's coefficients as full-shape splats) is read as a
// broadcast of a one-element constant (when splats is set), which the
// caller places before the fusion: the fused loop then reads a scalar instead of streaming the
// whole constant from memory.
func buildFusion(blk *ir.Block, ms []*ir.Op, users map[*ir.Value][]*ir.Op, splats bool) (*ir.Op, []*ir.Op) {
	root := ms[len(ms)-1]
	member := make(map[*ir.Op]bool, len(ms))
	for _, m := range ms {
		member[m] = true
	}
	var pre, bcasts []*ir.Op
	splat := map[*ir.Value]*ir.Value{}
	for _, m := range ms {
		if !splats || m.Name == "stablehlo.broadcast_in_dim" {
			continue
		}
		for i, v := range m.Operands {
			if v.Def != nil && member[v.Def] {
				continue
			}
			if b, ok := splat[v]; ok {
				m.Operands[i] = b
				continue
			}
			c := splatConst(v)
			if c == nil {
				continue
			}
			sc := ir.NewOp("stablehlo.constant", nil, []ir.Type{c.Type}, ir.Attrs{"value": c})
			sc.Loc, sc.Block = v.Def.Loc, blk
			bc := ir.NewOp("stablehlo.broadcast_in_dim", []*ir.Value{sc.Results[0]}, []ir.Type{v.Type}, ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{}})
			bc.Loc = v.Def.Loc
			pre, bcasts = append(pre, sc), append(bcasts, bc)
			member[bc] = true
			splat[v] = bc.Results[0]
			m.Operands[i] = bc.Results[0]
		}
	}
	ms = append(bcasts, ms...)
	var inputs []*ir.Value
	argIndex := map[*ir.Value]int{}
	for _, m := range ms {
		for _, v := range m.Operands {
			if v.Def != nil && member[v.Def] {
				continue
			}
			if _, ok := argIndex[v]; !ok {
				argIndex[v] = len(inputs)
				inputs = append(inputs, v)
			}
		}
	}
	body := ir.NewBlock(valueTypes(inputs)...)
	// Results: the root's value, then every other member's value that is
	// read outside the fusion. The fusion op takes over those value
	// objects, so outside uses need no rewriting; members get new values.
	results := []*ir.Op{root}
	for _, m := range ms[:len(ms)-1] {
		for _, u := range users[m.Results[0]] {
			if !member[u] {
				results = append(results, m)
				break
			}
		}
	}
	inner := map[*ir.Value]*ir.Value{}
	var outs, rets []*ir.Value
	for _, m := range results {
		out := m.Results[0]
		iv := &ir.Value{Type: out.Type, Def: m}
		m.Results[0] = iv
		inner[out] = iv
		outs = append(outs, out)
		rets = append(rets, iv)
	}
	for _, m := range ms {
		for i, v := range m.Operands {
			if iv, ok := inner[v]; ok {
				m.Operands[i] = iv
			} else if j, ok := argIndex[v]; ok {
				m.Operands[i] = body.Args[j]
			}
		}
		body.Append(m)
	}
	ret := ir.NewOp("stablehlo.return", rets, nil, nil)
	ret.Loc = root.Loc
	body.Append(ret)
	f := &ir.Op{Name: fusionOp, Operands: inputs, Results: outs, Attrs: ir.Attrs{}, Loc: root.Loc, Block: blk}
	for k, out := range outs {
		out.Def, out.Index = f, k
	}
	f.AddRegion(ir.NewRegion(body))
	return f, pre
}

// splatConst returns the one-element constant repeated by v, a constant of
// several elements all equal, or nil.
func splatConst(v *ir.Value) *ir.ElementsAttr {
	c := constData(v)
	t := v.StaticTensor()
	if c == nil || t == nil || t.NumElements() < 2 {
		return nil
	}
	es := len(c.Data) / int(t.NumElements())
	if es == 0 || es*int(t.NumElements()) != len(c.Data) {
		return nil
	}
	// Element i+1 equals element i for every i: one comparison.
	if !bytes.Equal(c.Data[es:], c.Data[:len(c.Data)-es]) {
		return nil
	}
	return &ir.ElementsAttr{Type: &ir.TensorType{Elem: t.Elem}, Data: c.Data[:es:es]}
}

func valueTypes(vs []*ir.Value) []ir.Type {
	out := make([]ir.Type, len(vs))
	for i, v := range vs {
		out[i] = v.Type
	}
	return out
}

// fusible reports whether op can be a fusion member: an op whose
// registered traits offer a loop for its types and attributes (the loop
// constructor rejects what the op's own kernel would reject, so such ops
// stay unfused and fail the same way), a reshape or bitcast that keeps
// each element's bytes at its index, or a broadcast_in_dim the fused kernel
// can gather.
func fusible(op *ir.Op) bool {
	if len(op.Results) != 1 || len(op.Regions) > 0 {
		return false
	}
	out := op.Results[0].StaticTensor()
	if out == nil {
		return false
	}
	ins := make([]*ir.TensorType, len(op.Operands))
	for i, v := range op.Operands {
		if ins[i] = v.StaticTensor(); ins[i] == nil {
			return false
		}
	}
	switch op.Name {
	case "stablehlo.broadcast_in_dim":
		return fused.Broadcastable(op)
	case "stablehlo.reshape", "stablehlo.bitcast_convert":
		// Inside a fusion (which works on linear indices) they move no
		// data when they keep each element's bytes at its index.
		return fused.Relabels(op)
	}
	tr := kernel.TraitsOf(op.Name)
	if !tr.Elementwise || tr.Loop == nil {
		return false
	}
	_, ok := tr.Loop(op)
	return ok
}

// allInline reports one-element ops that each run inline (scalarops.go:
// elementwise, with a registered loop). In a loop body such a chain (a
// counter's index arithmetic) costs less as inline steps than as a fusion
// called through its serial step every iteration.
func allInline(ms []*ir.Op) bool {
	for _, m := range ms {
		tr := kernel.TraitsOf(m.Name)
		if !tr.Elementwise || tr.Loop == nil || len(m.Results) != 1 || len(m.Operands) == 0 || len(m.Operands) > 3 {
			return false
		}
		for _, v := range m.Operands {
			if t := v.StaticTensor(); t == nil || t.NumElements() != 1 {
				return false
			}
		}
		if _, ok := tr.Loop(m); !ok {
			return false
		}
	}
	return true
}
