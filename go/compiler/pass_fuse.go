package compiler

import (
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/elementwise"
)

// fusionOp is the compiler's own op for a fused elementwise computation. Its
// operands are the external inputs; its one region holds the member ops
// (reading the region's block arguments) and returns the root's value. The
// planner treats it as a kernel op; lowerFusion (fusion.go) compiles the
// region into a single blocked loop.
const fusionOp = "gojax.fusion"

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
	fuseRegion(st.entry.Body)
	return nil
}

func fuseRegion(r *ir.Region) {
	for _, b := range r.Blocks {
		fuseBlock(b)
	}
}

func fuseBlock(blk *ir.Block) {
	for _, op := range blk.Ops {
		if isControlFlow(op) {
			for _, r := range op.Regions {
				fuseRegion(r)
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
	fused := map[*ir.Op]*ir.Op{} // root → its fusion op; other members → nil
	for _, ms := range members {
		if len(ms) < 2 {
			continue
		}
		// ms is in reverse block order: the root (the last op) comes first.
		for i, j := 0, len(ms)-1; i < j; i, j = i+1, j-1 {
			ms[i], ms[j] = ms[j], ms[i]
		}
		f := buildFusion(blk, ms, users)
		for _, m := range ms {
			fused[m] = nil
		}
		fused[ms[len(ms)-1]] = f
	}
	if len(fused) == 0 {
		return
	}
	ops := blk.Ops[:0]
	for _, op := range blk.Ops {
		f, ok := fused[op]
		switch {
		case !ok:
			ops = append(ops, op)
		case f != nil:
			ops = append(ops, f)
		}
	}
	clear(blk.Ops[len(ops):])
	blk.Ops = ops
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
func buildFusion(blk *ir.Block, ms []*ir.Op, users map[*ir.Value][]*ir.Op) *ir.Op {
	root := ms[len(ms)-1]
	member := make(map[*ir.Op]bool, len(ms))
	for _, m := range ms {
		member[m] = true
	}
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
	return f
}

func valueTypes(vs []*ir.Value) []ir.Type {
	out := make([]ir.Type, len(vs))
	for i, v := range vs {
		out[i] = v.Type
	}
	return out
}

func sameShapeDims(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// staticTensor returns v's tensor type when every dimension is known.
func staticTensor(v *ir.Value) *ir.TensorType {
	t := v.Tensor()
	if t == nil {
		return nil
	}
	for _, d := range t.Shape {
		if d < 0 || d > maxBuffer {
			return nil
		}
	}
	return t
}

// fusible reports whether op can be a fusion member: an elementwise op the
// fusion loops implement, with types the unfused kernel would accept (ops it
// would reject stay unfused so they fail the same way), or a broadcast_in_dim.
func fusible(op *ir.Op) bool {
	if len(op.Results) != 1 || len(op.Regions) > 0 {
		return false
	}
	out := staticTensor(op.Results[0])
	if out == nil {
		return false
	}
	ins := make([]*ir.TensorType, len(op.Operands))
	for i, v := range op.Operands {
		if ins[i] = staticTensor(v); ins[i] == nil {
			return false
		}
	}
	// full: operand i has the result's shape; scalarOK: or is rank 0.
	full := func(i int, scalarOK bool) bool {
		return sameShapeDims(ins[i].Shape, out.Shape) || scalarOK && ins[i].Rank() == 0
	}
	name := op.Name
	switch {
	case name == "stablehlo.broadcast_in_dim":
		_, ok := broadcastMap(op)
		return ok
	case name == "stablehlo.reshape":
		// Row-major reshapes keep every element's linear index: inside a
		// fusion (which works on linear indices) they move no data.
		return len(ins) == 1 && ins[0].Elem == out.Elem && ins[0].NumElements() == out.NumElements()
	case name == "stablehlo.compare":
		if len(ins) != 2 || ins[0].Elem != ins[1].Elem || out.Elem != ir.Pred || !full(0, false) || !full(1, false) {
			return false
		}
		dir, ok := op.Attrs.Enum("comparison_direction")
		if !ok {
			return false
		}
		ct, _ := op.Attrs.Enum("compare_type")
		if !compareTypeValid(ct, ins[0].Elem) {
			return false
		}
		_, ok = elementwise.CompareLoop(dir, ct, ins[0].Elem)
		return ok
	case name == "stablehlo.select":
		if len(ins) != 3 || ins[0].Elem != ir.Pred || ins[1].Elem != out.Elem || ins[2].Elem != out.Elem ||
			!full(0, true) || !full(1, false) || !full(2, false) {
			return false
		}
		_, ok := elementwise.SelectLoop(out.Elem)
		return ok
	case name == "stablehlo.clamp":
		if len(ins) != 3 || !full(0, true) || !full(1, false) || !full(2, true) {
			return false
		}
		for _, t := range ins {
			if t.Elem != out.Elem {
				return false
			}
		}
		_, ok := elementwise.ClampLoop(out.Elem)
		return ok
	case name == "stablehlo.convert":
		if len(ins) != 1 || !full(0, false) {
			return false
		}
		_, ok := elementwise.ConvertLoop(ins[0].Elem, out.Elem)
		return ok
	case name == "stablehlo.is_finite":
		if len(ins) != 1 || !full(0, false) || out.Elem != ir.Pred {
			return false
		}
		_, ok := elementwise.IsFiniteLoop(ins[0].Elem)
		return ok
	case fusedUnary[name]:
		if len(ins) != 1 || !full(0, false) {
			return false
		}
		if name == "stablehlo.abs" && ins[0].Elem.IsComplex() {
			_, ok := elementwise.ComplexAbsLoop(ins[0].Elem)
			return ok && out.Elem == ir.F32 && ins[0].Elem == ir.C64 || ok && out.Elem == ir.F64 && ins[0].Elem == ir.C128
		}
		if ins[0].Elem != out.Elem {
			return false
		}
		_, ok := elementwise.UnaryLoop(name, out.Elem)
		return ok
	case fusedBinary[name]:
		if len(ins) != 2 || ins[0].Elem != out.Elem || ins[1].Elem != out.Elem || !full(0, false) || !full(1, false) {
			return false
		}
		_, ok := elementwise.BinaryLoop(name, out.Elem)
		return ok
	}
	return false
}

// compareTypeValid mirrors the elementwise compare lowering's checks.
func compareTypeValid(ct string, t ir.ElemType) bool {
	switch ct {
	case "", "NOTYPE":
		return true
	case "FLOAT", "TOTALORDER":
		return t.IsFloat() || t.IsComplex()
	case "SIGNED":
		return t.IsSigned()
	case "UNSIGNED":
		return t.IsUnsigned() || t == ir.Pred
	}
	return false
}

var fusedUnary, fusedBinary = map[string]bool{}, map[string]bool{}

func init() {
	for _, n := range []string{"abs", "negate", "not", "sign", "sqrt", "rsqrt", "cbrt", "ceil", "floor",
		"round_nearest_afz", "round_nearest_even", "cosine", "sine", "tan", "tanh",
		"exponential", "exponential_minus_one", "log", "log_plus_one", "logistic",
		"popcnt", "count_leading_zeros"} {
		fusedUnary["stablehlo."+n] = true
	}
	for _, n := range []string{"add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum",
		"power", "atan2", "and", "or", "xor", "shift_left", "shift_right_logical", "shift_right_arithmetic"} {
		fusedBinary["stablehlo."+n] = true
	}
}

// bcastMap describes how a broadcast_in_dim reads its operand: for each
// result dimension, the operand element stride (0 where the dimension is
// broadcast).
type bcastMap struct {
	dims    []int
	strides []int
}

// broadcastMap validates a broadcast_in_dim and returns its index map.
func broadcastMap(op *ir.Op) (bcastMap, bool) {
	if len(op.Operands) != 1 || len(op.Results) != 1 {
		return bcastMap{}, false
	}
	in, out := staticTensor(op.Operands[0]), staticTensor(op.Results[0])
	if in == nil || out == nil || in.Elem != out.Elem {
		return bcastMap{}, false
	}
	bd, ok := op.Attrs.I64s("broadcast_dimensions")
	if !ok && in.Rank() > 0 || len(bd) != in.Rank() {
		return bcastMap{}, false
	}
	m := bcastMap{dims: make([]int, out.Rank()), strides: make([]int, out.Rank())}
	for d, n := range out.Shape {
		m.dims[d] = int(n)
	}
	stride := 1
	for d := in.Rank() - 1; d >= 0; d-- {
		o := bd[d]
		if o < 0 || int(o) >= out.Rank() {
			return bcastMap{}, false
		}
		switch n := in.Shape[d]; {
		case n == out.Shape[o]:
			if m.strides[o] != 0 {
				return bcastMap{}, false // two operand dims on one result dim
			}
			if n != 1 {
				m.strides[o] = stride
			}
		case n == 1:
		default:
			return bcastMap{}, false
		}
		stride *= int(in.Shape[d])
	}
	return m, true
}

// fusionOverwritable reports whether the fusion op may write its result over
// operand v's buffer: every member reads v at the result's own index (no
// broadcast) and v's elements have the result's size, so each block reads
// its part of v before the root writes that part.
func fusionOverwritable(op *ir.Op, v *ir.Value) bool {
	if len(op.Results) != 1 {
		return false // extra results are written mid-block
	}
	out := op.Results[0].Tensor()
	body := op.Regions[0].Blocks[0]
	found := false
	for i, o := range op.Operands {
		if o != v {
			continue
		}
		t := o.Tensor()
		if t == nil || out == nil || t.Elem.ByteSize() != out.Elem.ByteSize() || t.NumElements() != out.NumElements() {
			return false
		}
		arg := body.Args[i]
		for _, m := range body.Ops {
			if m.Name == "stablehlo.broadcast_in_dim" && m.Operands[0] == arg {
				return false
			}
		}
		found = true
	}
	return found
}
