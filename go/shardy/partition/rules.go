package partition

import (
	"encoding/binary"
	"slices"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
	"github.com/gojax/gojax/go/shardy"
)

// local is a global value's block in the partition being built: the local
// value and the sharding it is laid out by (nil: replicated, whole).
type local struct {
	v *ir.Value
	s *shardy.Sharding
	// pending lists the mesh axes along which v still holds partial values
	// (a dot or reduce over axes it has not all-reduced yet): reshard
	// combines them with body unless the target keeps them unreduced with
	// the same reduction (kind: sum, max or min).
	pending []string
	body    *ir.Region
	kind    string
}

// builder writes the program of one partition.
type builder struct {
	mesh    *shardy.Mesh
	part    int
	vals    map[*ir.Value]*shardy.Sharding // propagated shardings of the global values
	prog    *Program
	first   bool // count statistics (once, for partition 0)
	blk     *ir.Block
	local   map[*ir.Value]local
	channel int64
	meshes  map[string]*shardy.Mesh // to read sharding constraints' unreduced axes
}

func (b *builder) function(gm *ir.Module, g *ir.Func, args, outs []*shardy.Sharding) (*ir.Module, error) {
	in := make([]ir.Type, len(g.Type.Inputs))
	for i, t := range g.Type.Inputs {
		in[i] = b.localType(t.(*ir.TensorType), args[i])
	}
	b.blk = ir.NewBlock(in...)
	b.local = map[*ir.Value]local{}
	entry := g.Entry()
	for i, a := range entry.Args {
		b.local[a] = local{v: b.blk.Args[i], s: args[i]}
	}
	term := entry.Terminator()
	for _, op := range entry.Ops {
		if op == term {
			break
		}
		b.op(op)
	}
	res := make([]*ir.Value, len(term.Operands))
	types := make([]ir.Type, len(term.Operands))
	for i, v := range term.Operands {
		res[i] = b.reshard(v, outs[i])
		types[i] = res[i].Type
	}
	b.emit(ir.NewOp(term.Name, res, nil, term.Attrs))
	f := &ir.Func{Name: g.Name, Visibility: g.Visibility, Type: ir.FuncType{Inputs: in, Results: types}, Loc: g.Loc}
	f.Body = ir.NewRegion(b.blk)
	attrs := ir.Attrs{}
	for k, v := range gm.Attrs {
		attrs[k] = v
	}
	// The module runs as one process of a multi-process run
	// (compiler.Options.Partition), not as an SPMD program again.
	attrs["mhlo.num_partitions"] = ir.IntAttr{Value: 1, Type: ir.S32}
	return &ir.Module{Funcs: []*ir.Func{f}, Attrs: attrs, Producer: gm.Producer, Globals: gm.Globals}, nil
}

func (b *builder) emit(op *ir.Op) *ir.Op { return b.blk.Append(op) }

func (b *builder) count(local, fallback, coll int) {
	if b.first {
		b.prog.Local += local
		b.prog.Fallback += fallback
		b.prog.Collectives += coll
	}
}

// localType is the partition's block type of a value of type t sharded by s.
func (b *builder) localType(t *ir.TensorType, s *shardy.Sharding) *ir.TensorType {
	if s == nil {
		return t
	}
	shape, _, err := s.ShardOf(b.mesh, t.Shape, b.part)
	if err != nil {
		panic(err) // checkType ruled uneven shardings out
	}
	return ir.Tensor(t.Elem, shape...)
}

// target is the sharding a global value is laid out by.
func (b *builder) target(v *ir.Value) *shardy.Sharding { return b.vals[v] }

func names(axes []shardy.Axis) []string {
	out := make([]string, len(axes))
	for i, a := range axes {
		out[i] = a.Name
	}
	return out
}

func dimsOf(s *shardy.Sharding, d int) []shardy.Axis {
	if s == nil || d >= len(s.Dims) {
		return nil
	}
	return s.Dims[d]
}

func sameAxes(a, b []shardy.Axis) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name {
			return false
		}
	}
	return true
}

// same reports whether two shardings of a rank-n value lay it out alike.
func same(a, b *shardy.Sharding, n int) bool {
	for d := 0; d < n; d++ {
		if !sameAxes(dimsOf(a, d), dimsOf(b, d)) {
			return false
		}
	}
	return true
}

// sharding builds a sharding from per-dimension axes, nil when none cut.
func (b *builder) sharding(dims [][]shardy.Axis) *shardy.Sharding {
	for _, axes := range dims {
		if len(axes) > 0 {
			return &shardy.Sharding{Dims: dims, Mesh: b.mesh}
		}
	}
	return nil
}

// uses reports whether any dimension of dims uses the axis.
func uses(dims [][]shardy.Axis, name string) bool {
	for _, axes := range dims {
		for _, a := range axes {
			if a.Name == name {
				return true
			}
		}
	}
	return false
}

// groups is replica_groups over flattened partition ids for collectives
// along the named mesh axes.
func (b *builder) groups(axes []string) *ir.ElementsAttr {
	gs, err := b.mesh.Groups(axes)
	if err != nil {
		panic(err) // axes were checked against the mesh
	}
	size := len(gs[0])
	data := make([]byte, 0, 8*len(gs)*size)
	for _, g := range gs {
		for _, id := range g {
			data = binary.LittleEndian.AppendUint64(data, uint64(id))
		}
	}
	return &ir.ElementsAttr{Type: ir.Tensor(ir.S64, int64(len(gs)), int64(size)), Data: data}
}

func (b *builder) collectiveAttrs(axes []string) ir.Attrs {
	b.channel++
	b.count(0, 0, 1)
	return ir.Attrs{
		"replica_groups":        b.groups(axes),
		"channel_id":            ir.IntAttr{Value: b.channel, Type: ir.S64},
		"use_global_device_ids": ir.UnitAttr{},
	}
}

// reshard returns global value v's block laid out by to, gathering the
// dimensions whose axes differ and slicing them to to's blocks.
func (b *builder) reshard(v *ir.Value, to *shardy.Sharding) *ir.Value {
	cur := b.local[v]
	t := v.Type.(*ir.TensorType)
	n := t.Rank()
	keep := to.KeptUnreduced()
	// Partial values: combine along the axes the target does not keep
	// unreduced (with the same reduction). A full combination is kept for
	// later users.
	if len(cur.pending) > 0 {
		var kept, done []string
		for _, a := range cur.pending {
			if slices.Contains(keep, a) && to.Reduction == cur.kind {
				kept = append(kept, a)
			} else {
				done = append(done, a)
			}
		}
		x := cur.v
		if len(done) > 0 {
			c := ir.NewOp("stablehlo.all_reduce", []*ir.Value{x}, []ir.Type{x.Type}, b.collectiveAttrs(done))
			c.AddRegion(cloneRegion(cur.body, map[*ir.Value]*ir.Value{}))
			x = b.emit(c).Result()
		}
		if len(kept) == 0 {
			b.local[v] = local{v: x, s: cur.s}
		}
		cur = local{v: x, s: cur.s, pending: kept}
	}
	// Axes the target holds unreduced that the value is not partial over:
	// as XLA makes them, the block at coordinate 0 along them keeps the
	// value and the others hold the reduction's identity (zeros for a sum;
	// for max and min every device keeps the value).
	var extra []string
	for _, a := range keep {
		if !slices.Contains(cur.pending, a) {
			extra = append(extra, a)
		}
	}
	if same(cur.s, to, n) && len(extra) == 0 {
		return cur.v
	}
	x := cur.v
	lt := x.Type.(*ir.TensorType)
	if len(extra) > 0 && to.Reduction == "sum" {
		return b.toUnreduced(x, t, cur.s, to, extra)
	}
	if y := b.allToAll(x, lt, cur.s, to); y != nil {
		return y
	}
	shape := append([]int64(nil), lt.Shape...)
	changed := make([]bool, n)
	for d := 0; d < n; d++ {
		if sameAxes(dimsOf(cur.s, d), dimsOf(to, d)) {
			continue
		}
		changed[d] = true
		if axes := dimsOf(cur.s, d); len(axes) > 0 {
			shape[d] = t.Shape[d]
			attrs := b.collectiveAttrs(names(axes))
			attrs["all_gather_dim"] = ir.IntAttr{Value: int64(d), Type: ir.S64}
			x = b.emit(ir.NewOp("stablehlo.all_gather", []*ir.Value{x}, []ir.Type{ir.Tensor(t.Elem, shape...)}, attrs)).Result()
		}
	}
	if to != nil {
		want, off, err := to.ShardOf(b.mesh, t.Shape, b.part)
		if err != nil {
			panic(err)
		}
		start, limit, strides := make([]int64, n), make([]int64, n), make([]int64, n)
		cut := false
		for d := 0; d < n; d++ {
			strides[d] = 1
			limit[d] = shape[d]
			if changed[d] && len(dimsOf(to, d)) > 0 {
				start[d], limit[d] = off[d], off[d]+want[d]
				cut = true
			}
		}
		if cut {
			x = b.emit(ir.NewOp("stablehlo.slice", []*ir.Value{x}, []ir.Type{ir.Tensor(t.Elem, want...)}, ir.Attrs{
				"start_indices": ir.DenseI64Attr{Values: start}, "limit_indices": ir.DenseI64Attr{Values: limit},
				"strides": ir.DenseI64Attr{Values: strides},
			})).Result()
		}
	}
	return x
}

// toUnreduced lays x (laid out by from) out by to, which holds it unreduced
// along axes extra: dimensions from cuts along those axes are padded with
// zeros to their whole size around the partition's block, as XLA places a
// sharded value into an unreduced one; along the rest of extra only the
// partition at coordinate 0 keeps the value, the others hold zeros.
func (b *builder) toUnreduced(x *ir.Value, t *ir.TensorType, from, to *shardy.Sharding, extra []string) *ir.Value {
	n := t.Rank()
	// First lay x out by to's dimensions, except those cut along extra.
	mid := make([][]shardy.Axis, n)
	var padded []int
	for d := 0; d < n; d++ {
		axes := dimsOf(from, d)
		inExtra := false
		for _, a := range axes {
			if slices.Contains(extra, a.Name) {
				inExtra = true
			}
		}
		if inExtra && len(dimsOf(to, d)) == 0 {
			mid[d] = axes
			padded = append(padded, d)
		} else {
			mid[d] = dimsOf(to, d)
		}
	}
	midS := b.sharding(mid)
	tmp := &ir.Value{Type: t}
	b.local[tmp] = local{v: x, s: from}
	x = b.reshard(tmp, midS)
	delete(b.local, tmp)
	used := map[string]bool{}
	if len(padded) > 0 {
		shape, off, err := midS.ShardOf(b.mesh, t.Shape, b.part)
		if err != nil {
			panic(err)
		}
		lo, hi, in := make([]int64, n), make([]int64, n), make([]int64, n)
		full := append([]int64(nil), shape...)
		for _, d := range padded {
			lo[d], hi[d] = off[d], t.Shape[d]-off[d]-shape[d]
			full[d] = t.Shape[d]
			for _, a := range mid[d] {
				used[a.Name] = true
			}
		}
		zero := b.scalar(t.Elem, make([]byte, t.Elem.ByteSize()))
		x = b.emit(ir.NewOp("stablehlo.pad", []*ir.Value{x, zero}, []ir.Type{ir.Tensor(t.Elem, full...)}, ir.Attrs{
			"edge_padding_low": ir.DenseI64Attr{Values: lo}, "edge_padding_high": ir.DenseI64Attr{Values: hi},
			"interior_padding": ir.DenseI64Attr{Values: in},
		})).Result()
	}
	for _, a := range extra {
		if !used[a] && b.mesh.Coord(b.part, a) != 0 {
			zero := b.scalar(t.Elem, make([]byte, t.Elem.ByteSize()))
			return b.splat(zero, x.Type.(*ir.TensorType))
		}
	}
	return x
}

// withUnreduced is to with the unreduced axes a sharding constraint op
// names (propagation carries none).
func (b *builder) withUnreduced(to *shardy.Sharding, op *ir.Op) *shardy.Sharding {
	a, ok := op.Attrs["sharding"].(ir.OpaqueAttr)
	tt, isT := op.Results[0].Type.(*ir.TensorType)
	if !ok || !isT || b.meshes == nil {
		return to
	}
	s, _, err := shardy.ParseSharding(a.Text, b.meshes, tt.Rank())
	if err != nil || s == nil || len(s.Unreduced) == 0 {
		return to
	}
	c := &shardy.Sharding{Mesh: b.mesh, Unreduced: s.Unreduced, Reduction: s.Reduction}
	if to != nil {
		c.Dims, c.Open = to.Dims, to.Open
	} else {
		c.Dims = make([][]shardy.Axis, tt.Rank())
	}
	return c
}

// reductionKind names the reduction of a reduce whose body is one add,
// maximum or minimum (see identityInit).
func reductionKind(op *ir.Op) string {
	blk := op.Regions[0].Blocks[0]
	switch blk.Ops[0].Name {
	case "stablehlo.maximum":
		return "max"
	case "stablehlo.minimum":
		return "min"
	}
	return "sum"
}

// allToAll moves axes from one dimension to another (from cuts d1 by
// them and d2 not, to the reverse, all else alike) with one all_to_all:
// each partition splits its block along d2 among the axes' group and
// joins what it receives along d1. Nil when the reshard is not such a move.
func (b *builder) allToAll(x *ir.Value, lt *ir.TensorType, from, to *shardy.Sharding) *ir.Value {
	d1, d2 := -1, -1
	for d := range lt.Shape {
		f, t := dimsOf(from, d), dimsOf(to, d)
		switch {
		case sameAxes(f, t):
		case len(t) == 0 && d1 < 0:
			d1 = d
		case len(f) == 0 && d2 < 0:
			d2 = d
		default:
			return nil
		}
	}
	if d1 < 0 || d2 < 0 || !sameAxes(dimsOf(from, d1), dimsOf(to, d2)) {
		return nil
	}
	axes := dimsOf(from, d1)
	k := int64(1)
	for _, a := range axes {
		k *= int64(a.Size)
	}
	if lt.Shape[d2]%k != 0 {
		return nil
	}
	shape := append([]int64(nil), lt.Shape...)
	shape[d1] *= k
	shape[d2] /= k
	attrs := b.collectiveAttrs(names(axes))
	attrs["split_dimension"] = ir.IntAttr{Value: int64(d2), Type: ir.S64}
	attrs["concat_dimension"] = ir.IntAttr{Value: int64(d1), Type: ir.S64}
	attrs["split_count"] = ir.IntAttr{Value: k, Type: ir.S64}
	return b.emit(ir.NewOp("stablehlo.all_to_all", []*ir.Value{x}, []ir.Type{ir.Tensor(lt.Elem, shape...)}, attrs)).Result()
}

// op partitions one op of the global program.
func (b *builder) op(op *ir.Op) {
	switch {
	case op.Name == "sdy.sharding_constraint" || op.Name == "sdy.reshard" ||
		op.Name == "builtin.unrealized_conversion_cast" && len(op.Operands) == 1 && len(op.Results) == 1 &&
			ir.TypesEqual(op.Operands[0].Type, op.Results[0].Type):
		to := b.withUnreduced(b.target(op.Results[0]), op)
		if cur := b.local[op.Operands[0]]; op.Name == "builtin.unrealized_conversion_cast" && same(cur.s, to, op.Results[0].Type.(*ir.TensorType).Rank()) {
			// A same-typed cast JAX wraps around constraints moves nothing:
			// partial values stay partial.
			b.local[op.Results[0]] = cur
			return
		}
		x := b.reshard(op.Operands[0], to)
		l := local{v: x, s: to}
		if kept := to.KeptUnreduced(); len(kept) > 0 {
			l.pending, l.kind = kept, to.Reduction
			l.body = combineRegion(to.Reduction, op.Results[0].Type.(*ir.TensorType).Elem)
		}
		b.local[op.Results[0]] = l
		return
	case op.Name == "stablehlo.while":
		if b.while(op) {
			return
		}
	case op.Name == "stablehlo.case" || op.Name == "stablehlo.if":
		if b.branches(op) {
			return
		}
	case indexedRules[op.Name] != nil:
		if indexedRules[op.Name](b, op) {
			return
		}
	case op.Name == "stablehlo.custom_call":
		if b.customCall(op) {
			return
		}
	case len(op.Results) != 1 || len(op.Regions) > 0 && op.Name != "stablehlo.reduce":
	case op.Name == "stablehlo.broadcast_in_dim":
		if b.broadcast(op) {
			return
		}
	case op.Name == "stablehlo.reshape":
		if b.reshape(op) {
			return
		}
	case op.Name == "stablehlo.slice":
		if b.slice(op) {
			return
		}
	case op.Name == "stablehlo.concatenate":
		if b.concatenate(op) {
			return
		}
	case op.Name == "stablehlo.transpose":
		if b.transpose(op) {
			return
		}
	case op.Name == "stablehlo.dot_general":
		if b.dot(op) {
			return
		}
	case op.Name == "stablehlo.reduce":
		if b.reduce(op) {
			return
		}
	case kernel.TraitsOf(op.Name).Elementwise:
		if b.elementwise(op) {
			return
		}
	}
	b.fallback(op)
}

// fallback runs op on whole operands on every partition and cuts each
// result to its sharding. Ops without operands (constants, iota) are
// generated whole and cut: not counted as fallbacks.
func (b *builder) fallback(op *ir.Op) {
	if len(op.Operands) > 0 {
		b.count(0, 1, 0)
		if b.first {
			b.prog.FallbackOps[op.Name]++
		}
	} else {
		b.count(1, 0, 0)
	}
	ins := make([]*ir.Value, len(op.Operands))
	for i, v := range op.Operands {
		ins[i] = b.reshard(v, nil)
	}
	types := make([]ir.Type, len(op.Results))
	for i, r := range op.Results {
		types[i] = r.Type
	}
	c := ir.NewOp(op.Name, ins, types, op.Attrs)
	c.Loc = op.Loc
	for _, r := range op.Regions {
		c.AddRegion(b.region(r))
	}
	b.emit(c)
	for i, r := range op.Results {
		b.local[r] = local{v: c.Results[i], s: nil}
		to := b.target(r)
		b.local[r] = local{v: b.reshard(r, to), s: to}
	}
}

// finish emits op's local form with operands ins and result sharding to.
func (b *builder) finish(op *ir.Op, ins []*ir.Value, to *shardy.Sharding) *ir.Value {
	return b.finishWith(op, ins, to, op.Attrs)
}

// finishWith is finish with the local op's attributes.
func (b *builder) finishWith(op *ir.Op, ins []*ir.Value, to *shardy.Sharding, attrs ir.Attrs) *ir.Value {
	b.count(1, 0, 0)
	r := op.Results[0]
	c := ir.NewOp(op.Name, ins, []ir.Type{b.localType(r.Type.(*ir.TensorType), to)}, attrs)
	c.Loc = op.Loc
	for _, reg := range op.Regions {
		c.AddRegion(b.region(reg))
	}
	b.emit(c)
	b.local[r] = local{v: c.Results[0], s: to}
	return c.Results[0]
}

// region copies r for the partition's program; values of the entry block
// it uses (constants a comparator captures) are read whole.
func (b *builder) region(r *ir.Region) *ir.Region {
	vm := map[*ir.Value]*ir.Value{}
	r.Walk(func(op *ir.Op) bool {
		for _, v := range op.Operands {
			if _, outer := b.local[v]; outer {
				if _, done := vm[v]; !done {
					vm[v] = b.reshard(v, nil)
				}
			}
		}
		return true
	})
	return cloneRegion(r, vm)
}

// elementwise: operands of the result's shape take its sharding; scalar
// operands (clamp's bounds, select's predicate) stay whole.
func (b *builder) elementwise(op *ir.Op) bool {
	rt := op.Results[0].Type.(*ir.TensorType)
	for _, v := range op.Operands {
		t, ok := v.Type.(*ir.TensorType)
		if !ok || !equalShape(t.Shape, rt.Shape) && t.Rank() != 0 {
			return false
		}
	}
	to := b.target(op.Results[0])
	ins := make([]*ir.Value, len(op.Operands))
	for i, v := range op.Operands {
		if v.Type.(*ir.TensorType).Rank() == 0 && rt.Rank() != 0 {
			ins[i] = b.reshard(v, nil)
		} else {
			ins[i] = b.reshard(v, to)
		}
	}
	b.finish(op, ins, to)
	return true
}

func equalShape(a, b []int64) bool { return slices.Equal(a, b) }

// broadcast: an operand dimension kept at full size takes the result
// dimension's axes; a size-1 (expanded) one stays whole.
func (b *builder) broadcast(op *ir.Op) bool {
	bd, ok := op.Attrs.I64s("broadcast_dimensions")
	in := op.Operands[0].Type.(*ir.TensorType)
	out := op.Results[0].Type.(*ir.TensorType)
	if !ok || len(bd) != in.Rank() {
		return false
	}
	to := b.target(op.Results[0])
	dims := make([][]shardy.Axis, in.Rank())
	for i, d := range bd {
		if in.Shape[i] == out.Shape[d] {
			dims[i] = dimsOf(to, int(d))
		} else if in.Shape[i] != 1 {
			return false
		}
	}
	b.finish(op, []*ir.Value{b.reshard(op.Operands[0], b.sharding(dims))}, to)
	return true
}

// reshape: dimensions are matched in groups of equal extent (a split, a
// merge, one dimension kept, or a unit dimension inserted or dropped); in a group only the majormost result
// dimension may be sharded, and it maps to the majormost operand
// dimension when the shard count divides both: the blocks are then the
// same contiguous ranges of the group's elements.
func (b *builder) reshape(op *ir.Op) bool {
	in := op.Operands[0].Type.(*ir.TensorType).Shape
	out := op.Results[0].Type.(*ir.TensorType).Shape
	to := b.target(op.Results[0])
	req := make([][]shardy.Axis, len(in))
	i, j := 0, 0
	for i < len(in) && j < len(out) {
		// A size-1 dimension on one side only is a group of its own
		// (inserted or dropped unit dimension, never cut).
		if out[j] == 1 && in[i] != 1 {
			j++
			continue
		}
		if in[i] == 1 && out[j] != 1 {
			i++
			continue
		}
		i0, j0 := i, j
		pi, po := in[i], out[j]
		for pi != po {
			if pi == 0 || po == 0 {
				return false
			}
			if pi < po {
				if i++; i >= len(in) {
					return false
				}
				pi *= in[i]
			} else {
				if j++; j >= len(out) {
					return false
				}
				po *= out[j]
			}
		}
		for d := j0 + 1; d <= j; d++ {
			if len(dimsOf(to, d)) > 0 {
				return false
			}
		}
		if axes := dimsOf(to, j0); len(axes) > 0 {
			n := int64(1)
			for _, a := range axes {
				n *= int64(a.Size)
			}
			if in[i0]%n != 0 || out[j0]%n != 0 {
				return false
			}
			req[i0] = axes
		}
		i, j = i+1, j+1
	}
	for ; j < len(out); j++ {
		if len(dimsOf(to, j)) > 0 {
			return false
		}
	}
	b.finish(op, []*ir.Value{b.reshard(op.Operands[0], b.sharding(req))}, to)
	return true
}

// slice: a dimension taken whole (start 0, full limit, stride 1) keeps the
// result's axes; a dimension it cuts is computed whole (the operand
// gathered along it) and the result is then cut to its sharding.
func (b *builder) slice(op *ir.Op) bool {
	start, ok1 := op.Attrs.I64s("start_indices")
	limit, ok2 := op.Attrs.I64s("limit_indices")
	strides, ok3 := op.Attrs.I64s("strides")
	in := op.Operands[0].Type.(*ir.TensorType).Shape
	if !ok1 || !ok2 || len(start) != len(in) || len(limit) != len(in) {
		return false
	}
	to := b.target(op.Results[0])
	req := make([][]shardy.Axis, len(in))
	for d := range in {
		if start[d] == 0 && limit[d] == in[d] && (!ok3 || d >= len(strides) || strides[d] == 1) {
			req[d] = dimsOf(to, d)
		}
	}
	computed := b.sharding(req)
	x := b.reshard(op.Operands[0], computed)
	// Whole dimensions end at the local block's extent.
	local := x.Type.(*ir.TensorType).Shape
	lim := append([]int64(nil), limit...)
	for d := range lim {
		if len(req[d]) > 0 {
			lim[d] = local[d]
		}
	}
	attrs := ir.Attrs{}
	for k, v := range op.Attrs {
		attrs[k] = v
	}
	attrs["limit_indices"] = ir.DenseI64Attr{Values: lim}
	b.finishWith(op, []*ir.Value{x}, computed, attrs)
	b.settle(op.Results[0], to)
	return true
}

// settle reshards op result r, computed in another layout, to its own.
func (b *builder) settle(r *ir.Value, to *shardy.Sharding) {
	b.local[r] = local{v: b.reshard(r, to), s: to}
}

// concatenate: the operands take the result's axes on every dimension
// but the joined one, which is computed whole and then cut.
func (b *builder) concatenate(op *ir.Op) bool {
	dim, ok := op.Attrs.Int("dimension")
	if !ok {
		return false
	}
	to := b.target(op.Results[0])
	rank := op.Results[0].Type.(*ir.TensorType).Rank()
	dims := make([][]shardy.Axis, rank)
	for d := range dims {
		if d != int(dim) {
			dims[d] = dimsOf(to, d)
		}
	}
	computed := b.sharding(dims)
	ins := make([]*ir.Value, len(op.Operands))
	for i, v := range op.Operands {
		ins[i] = b.reshard(v, computed)
	}
	b.finish(op, ins, computed)
	b.settle(op.Results[0], to)
	return true
}

func (b *builder) transpose(op *ir.Op) bool {
	perm, ok := op.Attrs.I64s("permutation")
	in := op.Operands[0].Type.(*ir.TensorType)
	if !ok || len(perm) != in.Rank() {
		return false
	}
	to := b.target(op.Results[0])
	dims := make([][]shardy.Axis, in.Rank())
	for j, d := range perm {
		dims[d] = dimsOf(to, j)
	}
	b.finish(op, []*ir.Value{b.reshard(op.Operands[0], b.sharding(dims))}, to)
	return true
}

// dot: batch and free dimensions of the operands take the result's axes;
// a contracting dimension keeps the lhs's axes when they are free in both
// operands and the result (each partition then sums a part of the
// contraction, and an all_reduce over those axes adds the parts).
func (b *builder) dot(op *ir.Op) bool {
	lb, _ := op.Attrs.I64s("lhs_batching_dimensions")
	rb, _ := op.Attrs.I64s("rhs_batching_dimensions")
	lc, _ := op.Attrs.I64s("lhs_contracting_dimensions")
	rc, _ := op.Attrs.I64s("rhs_contracting_dimensions")
	lt := op.Operands[0].Type.(*ir.TensorType)
	rt := op.Operands[1].Type.(*ir.TensorType)
	out := op.Results[0].Type.(*ir.TensorType)
	if len(lb) != len(rb) || len(lc) != len(rc) {
		return false
	}
	to := b.target(op.Results[0])
	ld, rd := make([][]shardy.Axis, lt.Rank()), make([][]shardy.Axis, rt.Rank())
	k := 0
	for i := range lb {
		ld[lb[i]], rd[rb[i]] = dimsOf(to, k), dimsOf(to, k)
		k++
	}
	free := func(n int, batch, contract []int64, dims [][]shardy.Axis) {
		for d := 0; d < n; d++ {
			if !containsInt(batch, d) && !containsInt(contract, d) {
				dims[d] = dimsOf(to, k)
				k++
			}
		}
	}
	free(lt.Rank(), lb, lc, ld)
	free(rt.Rank(), rb, rc, rd)
	if k != out.Rank() {
		return false
	}
	outDims := make([][]shardy.Axis, out.Rank())
	for d := range outDims {
		outDims[d] = dimsOf(to, d)
	}
	lcur := b.local[op.Operands[0]].s
	var summed []string
	for i := range lc {
		axes := dimsOf(lcur, int(lc[i]))
		n := 1
		for _, a := range axes {
			if uses(outDims, a.Name) || uses(ld, a.Name) || uses(rd, a.Name) {
				axes = nil
				break
			}
			n *= a.Size
		}
		if axes == nil || lt.Shape[lc[i]]%int64(n) != 0 {
			continue
		}
		ld[lc[i]], rd[rc[i]] = axes, axes
		summed = append(summed, names(axes)...)
	}
	ins := []*ir.Value{b.reshard(op.Operands[0], b.sharding(ld)), b.reshard(op.Operands[1], b.sharding(rd))}
	r := b.finish(op, ins, to)
	if len(summed) > 0 {
		b.local[op.Results[0]] = local{v: r, s: to, pending: summed, body: addRegion(out.Elem), kind: "sum"}
	}
	return true
}

// allReduce combines the partial blocks of global value g (local r, laid
// out by to) over the axes with the body region.
func (b *builder) allReduce(g, r *ir.Value, to *shardy.Sharding, axes []string, body *ir.Region) {
	c := ir.NewOp("stablehlo.all_reduce", []*ir.Value{r}, []ir.Type{r.Type}, b.collectiveAttrs(axes))
	c.AddRegion(body)
	b.emit(c)
	b.local[g] = local{v: c.Results[0], s: to}
}

// combineRegion is the body combining partial values of a reduction kind.
func combineRegion(kind string, elem ir.ElemType) *ir.Region {
	name := map[string]string{"max": "stablehlo.maximum", "min": "stablehlo.minimum"}[kind]
	if name == "" {
		return addRegion(elem)
	}
	s := ir.Tensor(elem)
	blk := ir.NewBlock(s, s)
	r := blk.Append(ir.NewOp(name, []*ir.Value{blk.Args[0], blk.Args[1]}, []ir.Type{s}, nil)).Result()
	blk.Append(ir.NewOp("stablehlo.return", []*ir.Value{r}, nil, nil))
	return ir.NewRegion(blk)
}

func addRegion(elem ir.ElemType) *ir.Region {
	s := ir.Tensor(elem)
	blk := ir.NewBlock(s, s)
	sum := blk.Append(ir.NewOp("stablehlo.add", []*ir.Value{blk.Args[0], blk.Args[1]}, []ir.Type{s}, nil)).Result()
	blk.Append(ir.NewOp("stablehlo.return", []*ir.Value{sum}, nil, nil))
	return ir.NewRegion(blk)
}

func containsInt(list []int64, d int) bool {
	for _, v := range list {
		if int(v) == d {
			return true
		}
	}
	return false
}

// reduce: kept dimensions take the result's axes; reduced dimensions keep
// the operand's axes when the body is one associative op whose init is its
// identity (each partition reduces its block, an all_reduce with the same
// body combines the blocks); otherwise they are gathered first.
func (b *builder) reduce(op *ir.Op) bool {
	dims, ok := op.Attrs.I64s("dimensions")
	if !ok || len(op.Operands) != 2 || len(op.Regions) != 1 {
		return false
	}
	in := op.Operands[0].Type.(*ir.TensorType)
	to := b.target(op.Results[0])
	req := make([][]shardy.Axis, in.Rank())
	k := 0
	outDims := make([][]shardy.Axis, in.Rank()-len(dims))
	for d := range outDims {
		outDims[d] = dimsOf(to, d)
	}
	for d := 0; d < in.Rank(); d++ {
		if !containsInt(dims, d) {
			req[d] = dimsOf(to, k)
			k++
		}
	}
	var summed []string
	if identityInit(op) {
		cur := b.local[op.Operands[0]].s
		for _, d := range dims {
			axes := dimsOf(cur, int(d))
			for _, a := range axes {
				if uses(outDims, a.Name) {
					axes = nil
					break
				}
			}
			req[d] = axes
			summed = append(summed, names(axes)...)
		}
	}
	ins := []*ir.Value{b.reshard(op.Operands[0], b.sharding(req)), b.reshard(op.Operands[1], nil)}
	r := b.finish(op, ins, to)
	if len(summed) > 0 {
		b.local[op.Results[0]] = local{v: r, s: to, pending: summed, body: b.region(op.Regions[0]), kind: reductionKind(op)}
	}
	return true
}

// identityInit reports whether reduce op's body is one add, maximum or
// minimum of its two arguments whose init each partition may fold into its
// block: any init for maximum and minimum, a zero constant for add.
func identityInit(op *ir.Op) bool {
	body := op.Regions[0]
	if len(body.Blocks) != 1 || len(body.Blocks[0].Ops) != 2 || len(body.Blocks[0].Args) != 2 {
		return false
	}
	blk := body.Blocks[0]
	f, ret := blk.Ops[0], blk.Ops[1]
	if len(f.Operands) != 2 || len(ret.Operands) != 1 || ret.Operands[0] != f.Results[0] ||
		f.Operands[0] != blk.Args[0] || f.Operands[1] != blk.Args[1] {
		return false
	}
	switch f.Name {
	case "stablehlo.maximum", "stablehlo.minimum":
		// Idempotent: every partition folding the init into its block
		// leaves the combined result the global one, whatever the init.
		return true
	case "stablehlo.add":
	default:
		return false
	}
	init := op.Operands[1].Def
	if init == nil || init.Name != "stablehlo.constant" {
		return false
	}
	c, ok := init.Attrs["value"].(*ir.ElementsAttr)
	if !ok || c.Type == nil || c.Type.Rank() != 0 {
		return false
	}
	for _, x := range c.Data {
		if x != 0 {
			return false
		}
	}
	return true
}
