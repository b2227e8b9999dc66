package propagate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
	"github.com/gojax/gojax/go/shardy"
)

// rule maps each operand and result dimension to factors (Shardy's op
// sharding rule): a factor is a piece of an iteration space that several
// tensors share, so cutting it cuts each of them the same way.
type rule struct {
	sizes     []int64
	ins, outs [][][]int // per tensor, per dimension, its factors major to minor
	// special factors are not passed through unchanged (contracted or
	// reduced, sorted, sliced, padded, reversed, windowed): round 1 leaves
	// them for round 2.
	special map[int]bool
}

// factor adds a factor of size n.
func (r *rule) factor(n int64) int {
	r.sizes = append(r.sizes, n)
	return len(r.sizes) - 1
}

// own gives every dimension of shape a factor of its own: the tensor takes
// part in conflicts but nothing passes through it.
func (r *rule) own(shape []int64) [][]int {
	dims := make([][]int, len(shape))
	for d, n := range shape {
		dims[d] = []int{r.factor(n)}
	}
	return dims
}

// kind is an op's place in the op-priority rounds.
type kind uint8

const (
	passThrough  kind = iota // elementwise, reshape, transpose, control flow: round 0 on
	forwardFirst             // dynamic_slice, dynamic_update_slice: forward in round 0
	broadcast                // broadcast_in_dim: backward in round 1, both in 2
	general                  // everything else: round 1 on, special factors in round 2
)

func (k kind) dir(r *rule) func(prio, f int) direction {
	return func(prio, f int) direction {
		switch {
		case k == passThrough:
			return both
		case prio == 0:
			if k == forwardFirst {
				return forward
			}
			return none
		case prio == 1:
			if r.special[f] {
				if k == forwardFirst {
					return forward
				}
				return none
			}
			if k == broadcast {
				return backward
			}
			return both
		}
		return both
	}
}

// key names a value within one inlined copy of a function (a call site).
type key struct {
	ctx int
	v   *ir.Value
}

// builder turns a module into propagation nodes and edges.
type builder struct {
	p      *prop
	m      *ir.Module
	meshes map[string]*shardy.Mesh
	vals   map[key]int
	groups map[int64][]int
	ctxs   int
}

// maxCallDepth bounds func.call nesting (StableHLO has no recursion; the
// bound only stops a malformed module).
const maxCallDepth = 64

// node returns the node of v in call context ctx, -1 for values that are
// not static tensors.
func (b *builder) node(ctx int, v *ir.Value) int {
	if id, ok := b.vals[key{ctx, v}]; ok {
		return id
	}
	t := v.StaticTensor()
	id := -1
	if t != nil {
		id = b.p.newNode(t.Shape)
	}
	b.vals[key{ctx, v}] = id
	return id
}

func (b *builder) nodes(ctx int, vs []*ir.Value) ([]int, bool) {
	out := make([]int, len(vs))
	for i, v := range vs {
		if out[i] = b.node(ctx, v); out[i] < 0 {
			return nil, false
		}
	}
	return out, true
}

// annotate sets node id from a Shardy sharding attribute and reports whether
// propagation may still change it: true without an attribute, or with one
// on this mesh that has an open dimension.
func (b *builder) annotate(id int, a ir.Attr) bool {
	n := b.p.nodes[id]
	if a == nil {
		return true
	}
	closeAll := func() bool {
		for d := range n.closed {
			n.closed[d] = true
		}
		return false
	}
	op, ok := a.(ir.OpaqueAttr)
	if !ok {
		return closeAll()
	}
	s, ms, err := shardy.ParseSharding(op.Text, b.meshes, len(n.shape))
	if err != nil {
		return closeAll()
	}
	if len(ms.Axes) > 0 && ms.String() != b.p.mesh.String() {
		return closeAll()
	}
	open := false
	for d, axes := range s.Dims {
		n.axes[d] = nil
		for _, ax := range axes {
			n.axes[d] = append(n.axes[d], ax.Name)
		}
		n.closed[d] = d >= len(s.Open) || !s.Open[d]
		open = open || !n.closed[d]
	}
	return open
}

// identity links tensors of one shape dimension by dimension.
func (p *prop) identity(ins, outs []int, k kind) {
	shape := p.nodes[outs[0]].shape
	r := &rule{}
	for _, n := range shape {
		r.factor(n)
	}
	same := func(ids []int) [][][]int {
		var out [][][]int
		for _, id := range ids {
			dims := make([][]int, len(p.nodes[id].shape))
			for d := range dims {
				dims[d] = []int{d}
			}
			out = append(out, dims)
		}
		return out
	}
	for _, id := range append(append([]int(nil), ins...), outs...) {
		if !equalShape(p.nodes[id].shape, shape) {
			return
		}
	}
	r.ins, r.outs = same(ins), same(outs)
	p.edges = append(p.edges, &edge{ins: ins, outs: outs, rule: r, dir: k.dir(r), sameEachRound: k == passThrough})
}

func equalShape(a, b []int64) bool { return slices.Equal(a, b) }

// block adds the edges of the ops of blk (its terminator belongs to the op
// that owns the region).
func (b *builder) block(blk *ir.Block, ctx, depth int) error {
	for _, op := range blk.Ops {
		if op == blk.Terminator() {
			continue
		}
		if err := b.op(op, ctx, depth); err != nil {
			return err
		}
	}
	return nil
}

// placementCalls only move a value to another memory kind.
var placementCalls = map[string]bool{"annotate_device_placement": true, "MoveToHost": true, "MoveToDevice": true}

func (b *builder) op(op *ir.Op, ctx, depth int) error {
	if a, ok := op.Attrs["sdy.sharding"].(ir.OpaqueAttr); ok {
		if parts, err := shardy.SplitPerValue(a.Text); err == nil && len(parts) == len(op.Results) {
			for i, res := range op.Results {
				if id := b.node(ctx, res); id >= 0 {
					b.annotate(id, ir.OpaqueAttr{Dialect: a.Dialect, Text: parts[i]})
				}
			}
		}
	}
	switch op.Name {
	case "func.call":
		return b.call(op, "callee", ctx, depth)
	case "stablehlo.composite":
		return b.call(op, "decomposition", ctx, depth)
	case "stablehlo.while":
		return b.while(op, ctx, depth)
	case "stablehlo.case", "stablehlo.if":
		return b.branches(op, ctx, depth)
	case "builtin.unrealized_conversion_cast":
		// JAX wraps values in same-typed casts around sharding
		// constraints; they move nothing.
		if len(op.Operands) == 1 && len(op.Results) == 1 {
			b.link(ctx, op.Operands, op.Results, passThrough)
		}
		return nil
	case "stablehlo.optimization_barrier":
		for i := range op.Results {
			b.link(ctx, op.Operands[i:i+1], op.Results[i:i+1], passThrough)
		}
		return nil
	case "sdy.sharding_constraint", "sdy.reshard":
		if id := b.node(ctx, op.Results[0]); id >= 0 {
			b.annotate(id, op.Attrs["sharding"])
		}
		b.link(ctx, op.Operands, op.Results, passThrough)
		return nil
	case "sdy.sharding_group":
		if id := b.node(ctx, op.Operands[0]); id >= 0 {
			g, _ := op.Attrs.Int("group_id")
			b.groups[g] = append(b.groups[g], id)
		}
		return nil
	case "sdy.propagation_barrier":
		return b.barrier(op, ctx)
	case "sdy.manual_computation":
		return b.manual(op, ctx, depth)
	case "stablehlo.custom_call":
		if target, _ := op.Attrs.Str("call_target_name"); placementCalls[target] && len(op.Operands) == 1 && len(op.Results) == 1 {
			b.link(ctx, op.Operands, op.Results, passThrough)
			return nil
		}
		r := customCallRule(op)
		if r == nil {
			return nil
		}
		ins, ok1 := b.nodes(ctx, op.Operands)
		outs, ok2 := b.nodes(ctx, op.Results)
		if ok1 && ok2 {
			b.p.edges = append(b.p.edges, &edge{ins: ins, outs: outs, rule: r, dir: general.dir(r)})
		}
		return nil
	}
	r, k := ruleOf(op)
	if r == nil {
		return nil // a barrier: see the package comment
	}
	ins, ok1 := b.nodes(ctx, op.Operands)
	outs, ok2 := b.nodes(ctx, op.Results)
	if !ok1 || !ok2 || len(r.ins) != len(ins) || len(r.outs) != len(outs) {
		return nil
	}
	ew := kernel.TraitsOf(op.Name).Elementwise
	b.p.edges = append(b.p.edges, &edge{ins: ins, outs: outs, rule: r, dir: k.dir(r), elementwise: ew, sameEachRound: k == passThrough})
	return nil
}

// link adds an identity edge between values when all are static tensors.
func (b *builder) link(ctx int, ins, outs []*ir.Value, k kind) {
	b.linkCtx(ctx, ins, ctx, outs, k)
}

func (b *builder) linkCtx(ictx int, ins []*ir.Value, octx int, outs []*ir.Value, k kind) {
	in, ok1 := b.nodes(ictx, ins)
	out, ok2 := b.nodes(octx, outs)
	if ok1 && ok2 && len(out) > 0 {
		b.p.identity(in, out, k)
	}
}

// call propagates through the callee named by attribute attr (a call's
// callee, a composite's decomposition) as if it were inlined at this call
// site (as Shardy's import inlines calls): its values get a context of
// their own.
func (b *builder) call(op *ir.Op, attr string, ctx, depth int) error {
	name := ""
	switch a := op.Attrs[attr].(type) {
	case ir.SymbolRefAttr:
		name = a.Name
	case ir.StringAttr:
		name = a.Value
	}
	name = strings.TrimPrefix(name, "@")
	f := b.m.Func(name)
	if f == nil || f.Body == nil || len(f.Body.Blocks) == 0 {
		return nil
	}
	if depth >= maxCallDepth {
		return fmt.Errorf("func.call nesting deeper than %d at @%s", maxCallDepth, name)
	}
	b.ctxs++
	inner := b.ctxs
	entry := f.Entry()
	if len(entry.Args) != len(op.Operands) {
		return nil
	}
	for i := range entry.Args {
		b.linkCtx(ctx, op.Operands[i:i+1], inner, entry.Args[i:i+1], passThrough)
	}
	if err := b.block(entry, inner, depth+1); err != nil {
		return err
	}
	if ret := entry.Terminator(); ret != nil && len(ret.Operands) == len(op.Results) {
		for i := range op.Results {
			b.linkCtx(inner, ret.Operands[i:i+1], ctx, op.Results[i:i+1], passThrough)
		}
	}
	return nil
}

// while ties each carried value together: operand, the regions' block
// arguments, the body's yield and the result hold one sharding.
func (b *builder) while(op *ir.Op, ctx, depth int) error {
	if len(op.Regions) != 2 {
		return nil
	}
	var body *ir.Block
	var args [][]*ir.Value
	for ri, r := range op.Regions {
		if len(r.Blocks) != 1 || len(r.Blocks[0].Args) != len(op.Operands) {
			return nil
		}
		if err := b.block(r.Blocks[0], ctx, depth); err != nil {
			return err
		}
		args = append(args, r.Blocks[0].Args)
		if ri == 1 {
			body = r.Blocks[0]
		}
	}
	yield := body.Terminator()
	if yield == nil || len(yield.Operands) != len(op.Results) {
		return nil
	}
	for i := range op.Results {
		b.link(ctx, []*ir.Value{op.Operands[i], yield.Operands[i]}, []*ir.Value{op.Results[i], args[0][i], args[1][i]}, passThrough)
	}
	return nil
}

// branches ties each result of case/if to what every branch yields.
func (b *builder) branches(op *ir.Op, ctx, depth int) error {
	yields := make([][]*ir.Value, len(op.Results))
	for _, r := range op.Regions {
		if len(r.Blocks) != 1 {
			return nil
		}
		if err := b.block(r.Blocks[0], ctx, depth); err != nil {
			return err
		}
		ret := r.Blocks[0].Terminator()
		if ret == nil || len(ret.Operands) != len(op.Results) {
			return nil
		}
		for i, v := range ret.Operands {
			yields[i] = append(yields[i], v)
		}
	}
	for i := range op.Results {
		b.link(ctx, yields[i], op.Results[i:i+1], passThrough)
	}
	return nil
}

// barrier is sdy.propagation_barrier: an identity that lets shardings pass
// only in its allowed direction.
func (b *builder) barrier(op *ir.Op, ctx int) error {
	allowed := none
	text := ""
	switch a := op.Attrs["allowed_direction"].(type) {
	case ir.OpaqueAttr:
		text = a.Text
	case ir.EnumAttr:
		text = a.Value
	case ir.StringAttr:
		text = a.Value
	}
	switch {
	case strings.Contains(text, "BOTH"):
		allowed = both
	case strings.Contains(text, "FORWARD"):
		allowed = forward
	case strings.Contains(text, "BACKWARD"):
		allowed = backward
	}
	in, ok1 := b.nodes(ctx, op.Operands)
	out, ok2 := b.nodes(ctx, op.Results)
	if !ok1 || !ok2 || allowed == none {
		return nil
	}
	b.p.identity(in, out, passThrough)
	e := b.p.edges[len(b.p.edges)-1]
	e.dir = func(int, int) direction { return allowed }
	return nil
}

// manual is sdy.manual_computation, a boundary: its results hold its
// out_shardings and its operands meet its in_shardings. The body is written
// per device along the manual axes only: the free axes of a partial manual
// computation stay global inside it, so shardings along them pass between
// the boundary and the body as through a call, along the dimensions the
// manual axes leave whole.
func (b *builder) manual(op *ir.Op, ctx, depth int) error {
	bind := func(attr string, vals []*ir.Value, results bool) []int {
		ids := make([]int, len(vals))
		for i := range ids {
			ids[i] = -1
		}
		a, ok := op.Attrs[attr].(ir.OpaqueAttr)
		if !ok {
			return ids
		}
		parts, err := shardy.SplitPerValue(a.Text)
		if err != nil || len(parts) != len(vals) {
			return ids
		}
		for i, v := range vals {
			id := b.node(ctx, v)
			if id < 0 {
				continue
			}
			text := ir.OpaqueAttr{Dialect: a.Dialect, Text: parts[i]}
			if results {
				b.annotate(id, text)
				ids[i] = id
				continue
			}
			edgeNode := b.p.newNode(b.p.nodes[id].shape)
			b.annotate(edgeNode, text)
			b.p.identity([]int{edgeNode}, []int{id}, passThrough)
			ids[i] = edgeNode
		}
		return ids
	}
	ins := bind("in_shardings", op.Operands, false)
	outs := bind("out_shardings", op.Results, true)
	if !b.freeAxes(op) || len(op.Regions) != 1 || len(op.Regions[0].Blocks) != 1 {
		return nil
	}
	body := op.Regions[0].Blocks[0]
	ret := body.Terminator()
	if len(body.Args) != len(op.Operands) || ret == nil || len(ret.Operands) != len(op.Results) {
		return nil
	}
	b.ctxs++
	inner := b.ctxs
	for i, arg := range body.Args {
		if id := b.node(inner, arg); id >= 0 && ins[i] >= 0 {
			b.p.sameSizeDims(ins[i], id)
		}
	}
	if err := b.block(body, inner, depth+1); err != nil {
		return err
	}
	for i, v := range ret.Operands {
		if id := b.node(inner, v); id >= 0 && outs[i] >= 0 {
			b.p.sameSizeDims(id, outs[i])
		}
	}
	return nil
}

// freeAxes reports whether the program's mesh has an axis of size over one
// that the manual computation leaves to the partitioner.
func (b *builder) freeAxes(op *ir.Op) bool {
	a, ok := op.Attrs["manual_axes"].(ir.OpaqueAttr)
	if !ok || b.p.mesh == nil {
		return false
	}
	manual, err := shardy.ParseManualAxes(a.Text)
	if err != nil {
		return false
	}
	for _, ax := range b.p.mesh.Axes {
		if ax.Size > 1 && !slices.Contains(manual, ax.Name) {
			return true
		}
	}
	return false
}

// sameSizeDims links a global value with its per-device view in a manual
// computation's body: dimensions of equal size share a factor, those the
// manual axes split get factors of their own.
func (p *prop) sameSizeDims(in, out int) {
	a, b := p.nodes[in].shape, p.nodes[out].shape
	if len(a) != len(b) {
		return
	}
	r := keepDimsRule([][]int64{a}, [][]int64{b}, func(int, int) bool { return true })
	if r == nil {
		return
	}
	p.edges = append(p.edges, &edge{ins: []int{in}, outs: []int{out}, rule: r, dir: passThrough.dir(r), sameEachRound: true})
}

// linkGroups makes the members of each sdy.sharding_group share a sharding.
func (b *builder) linkGroups() {
	for _, ids := range b.groups {
		for _, id := range ids[1:] {
			if equalShape(b.p.nodes[id].shape, b.p.nodes[ids[0]].shape) {
				b.p.identity([]int{ids[0]}, []int{id}, passThrough)
			}
		}
	}
}

// ruleOf returns the factor rule of an op with static tensor operands and
// results, nil for ops nothing propagates through.
func ruleOf(op *ir.Op) (*rule, kind) {
	shapes := func(vs []*ir.Value) [][]int64 {
		out := make([][]int64, len(vs))
		for i, v := range vs {
			t := v.StaticTensor()
			if t == nil {
				return nil
			}
			out[i] = t.Shape
		}
		return out
	}
	in, out := shapes(op.Operands), shapes(op.Results)
	if in == nil && len(op.Operands) > 0 || out == nil || len(out) == 0 {
		return nil, general
	}
	switch op.Name {
	case "stablehlo.broadcast_in_dim":
		return broadcastRule(op, in, out), broadcast
	case "stablehlo.transpose":
		return transposeRule(op, in, out), passThrough
	case "stablehlo.reshape":
		return reshapeRule(in, out), passThrough
	case "stablehlo.reduce":
		return reduceRule(op, in, out), general
	case "stablehlo.dot_general":
		return dotRule(op, in, out), general
	case "stablehlo.concatenate":
		d, _ := op.Attrs.Int("dimension")
		return sharedRule(in, out, func(dim int) bool { return dim == int(d) }), general
	case "stablehlo.slice", "stablehlo.pad":
		return sharedRule(in[:1], out, nil).withScalars(len(in) - 1), general
	case "stablehlo.reverse":
		dims, _ := op.Attrs.I64s("dimensions")
		return sharedRule(in, out, func(dim int) bool { return containsInt(dims, dim) }), general
	case "stablehlo.sort":
		d, _ := op.Attrs.Int("dimension")
		return sharedRule(in, out, func(dim int) bool { return dim == int(d) }), general
	case "stablehlo.fft":
		n, _ := op.Attrs.I64s("fft_length")
		return sharedRule(in, out, func(dim int) bool { return dim >= len(out[0])-len(n) }), general
	case "stablehlo.reduce_window":
		return reduceWindowRule(op, in, out), general
	case "stablehlo.select_and_scatter":
		// Operand, source and result share the dimensions the window does
		// not span (size 1, stride 1: source and operand alike there).
		if len(in) != 3 {
			return nil, general
		}
		win, _ := op.Attrs.I64s("window_dimensions")
		strides, _ := op.Attrs.I64s("window_strides")
		r := keepDimsRule([][]int64{in[0], in[1]}, out, func(_, dim int) bool {
			return dim < len(win) && win[dim] == 1 && (dim >= len(strides) || strides[dim] == 1) && in[0][dim] == in[1][dim]
		})
		return r.withScalars(1), general
	case "stablehlo.dynamic_slice":
		// Dimensions the slice narrows share nothing (their start is a
		// runtime index), as in gather.
		return keepDimsRule([][]int64{in[0]}, out, func(_, dim int) bool { return in[0][dim] == out[0][dim] }).withScalars(len(in) - 1), forwardFirst
	case "stablehlo.dynamic_update_slice":
		if len(in) < 2 {
			return nil, general
		}
		r := keepDimsRule([][]int64{in[0], in[1]}, out, func(t, dim int) bool { return t != 1 || in[1][dim] == in[0][dim] })
		return r.withScalars(len(in) - 2), forwardFirst
	case "stablehlo.gather":
		return gatherRule(op, in, out), general
	case "stablehlo.scatter":
		return scatterRule(op, in, out), general
	case "stablehlo.convolution":
		return convRule(op, in, out), general
	case "stablehlo.bitcast_convert":
		if len(in) == 1 && equalShape(in[0], out[0]) {
			return elementwiseRule(in, out), passThrough
		}
		return nil, general
	}
	if kernel.TraitsOf(op.Name).Elementwise {
		return elementwiseRule(in, out), passThrough
	}
	return nil, general
}

func containsInt(list []int64, d int) bool {
	for _, x := range list {
		if x == int64(d) {
			return true
		}
	}
	return false
}

// elementwiseRule: every dimension is a factor shared by all tensors of the
// result's shape; rank-0 operands (select's predicate, clamp's bounds)
// have no dimensions.
func elementwiseRule(in, out [][]int64) *rule {
	shape := out[0]
	r := &rule{}
	for _, n := range shape {
		r.factor(n)
	}
	dims := func(s []int64) ([][]int, bool) {
		if len(s) == 0 {
			return nil, true
		}
		if !equalShape(s, shape) {
			return nil, false
		}
		d := make([][]int, len(s))
		for i := range d {
			d[i] = []int{i}
		}
		return d, true
	}
	for _, s := range in {
		d, ok := dims(s)
		if !ok {
			return nil
		}
		r.ins = append(r.ins, d)
	}
	for _, s := range out {
		d, ok := dims(s)
		if !ok || len(s) == 0 && len(shape) > 0 {
			return nil
		}
		r.outs = append(r.outs, d)
	}
	return r
}

// keepDimsRule shares dimension d of every tensor (operands in, then
// results) where keep(tensor, d) holds for all of them; the other
// dimensions get factors of their own.
func keepDimsRule(in, out [][]int64, keep func(t, dim int) bool) *rule {
	rank := len(out[0])
	for _, s := range append(append([][]int64(nil), in...), out...) {
		if len(s) != rank {
			return nil
		}
	}
	r := &rule{}
	shared := make([]int, rank)
	for d := 0; d < rank; d++ {
		shared[d] = -1
		ok := true
		for t := range in {
			ok = ok && keep(t, d) && in[t][d] == out[0][d]
		}
		for t := range out {
			ok = ok && keep(len(in)+t, d) && out[t][d] == out[0][d]
		}
		if ok {
			shared[d] = r.factor(out[0][d])
		}
	}
	dims := func(s []int64) [][]int {
		dd := make([][]int, rank)
		for d := range dd {
			if shared[d] >= 0 {
				dd[d] = []int{shared[d]}
			} else {
				dd[d] = []int{r.factor(s[d])}
			}
		}
		return dd
	}
	for _, s := range in {
		r.ins = append(r.ins, dims(s))
	}
	for _, s := range out {
		r.outs = append(r.outs, dims(s))
	}
	return r
}

// withScalars appends n operands without shardable dimensions (indices,
// padding values).
func (r *rule) withScalars(n int) *rule {
	if r == nil {
		return nil
	}
	for i := 0; i < n; i++ {
		r.ins = append(r.ins, nil)
	}
	return r
}

func broadcastRule(op *ir.Op, in, out [][]int64) *rule {
	bd, ok := op.Attrs.I64s("broadcast_dimensions")
	if !ok || len(in) != 1 || len(bd) != len(in[0]) {
		return nil
	}
	r := &rule{}
	res := make([][]int, len(out[0]))
	for d, n := range out[0] {
		res[d] = []int{r.factor(n)}
	}
	opd := make([][]int, len(in[0]))
	for i, n := range in[0] {
		if n == out[0][bd[i]] {
			opd[i] = res[bd[i]]
		} else {
			opd[i] = []int{r.factor(n)}
		}
	}
	r.ins, r.outs = [][][]int{opd}, [][][]int{res}
	return r
}

func transposeRule(op *ir.Op, in, out [][]int64) *rule {
	perm, ok := op.Attrs.I64s("permutation")
	if !ok || len(in) != 1 || len(perm) != len(out[0]) {
		return nil
	}
	r := &rule{}
	res := make([][]int, len(perm))
	opd := make([][]int, len(perm))
	for i, p := range perm {
		f := r.factor(out[0][i])
		res[i] = []int{f}
		opd[p] = []int{f}
	}
	r.ins, r.outs = [][][]int{opd}, [][][]int{res}
	return r
}

// reshapeRule splits and merges dimensions where one size divides the
// other; past the first pair that does not, the rest get factors of their
// own.
func reshapeRule(in, out [][]int64) *rule {
	if len(in) != 1 {
		return nil
	}
	a, b := in[0], out[0]
	r := &rule{}
	opd, res := make([][]int, len(a)), make([][]int, len(b))
	i, j := 0, 0
	ra, rb := int64(-1), int64(-1)
	for i < len(a) && j < len(b) {
		if ra < 0 {
			ra = a[i]
		}
		if rb < 0 {
			rb = b[j]
		}
		switch {
		case ra == 1 && len(opd[i]) == 0:
			opd[i] = []int{r.factor(1)}
			i, ra = i+1, -1
		case rb == 1 && len(res[j]) == 0:
			res[j] = []int{r.factor(1)}
			j, rb = j+1, -1
		case ra == 1:
			i, ra = i+1, -1
		case rb == 1:
			j, rb = j+1, -1
		case ra == rb:
			f := r.factor(ra)
			opd[i], res[j] = append(opd[i], f), append(res[j], f)
			i, j, ra, rb = i+1, j+1, -1, -1
		case rb%ra == 0:
			f := r.factor(ra)
			opd[i], res[j] = append(opd[i], f), append(res[j], f)
			rb /= ra
			i, ra = i+1, -1
		case ra%rb == 0:
			f := r.factor(rb)
			opd[i], res[j] = append(opd[i], f), append(res[j], f)
			ra /= rb
			j, rb = j+1, -1
		default:
			i, j = len(a)+1, len(b)+1
		}
	}
	if i > len(a) || j > len(b) {
		// Give every dimension that did not get a clean split a factor of
		// its own, dropping the partial ones: nothing passes through them.
		for d := range opd {
			if !fullyCovered(opd[d], r.sizes, a[d]) {
				opd[d] = []int{r.factor(a[d])}
			}
		}
		for d := range res {
			if !fullyCovered(res[d], r.sizes, b[d]) {
				res[d] = []int{r.factor(b[d])}
			}
		}
	}
	for d := range opd {
		if len(opd[d]) == 0 {
			opd[d] = []int{r.factor(a[d])}
		}
	}
	for d := range res {
		if len(res[d]) == 0 {
			res[d] = []int{r.factor(b[d])}
		}
	}
	r.ins, r.outs = [][][]int{opd}, [][][]int{res}
	return r
}

func fullyCovered(fs []int, sizes []int64, n int64) bool {
	p := int64(1)
	for _, f := range fs {
		p *= sizes[f]
	}
	return len(fs) > 0 && p == n
}

// reduceRule: N inputs, N rank-0 inits, N results; reduced dimensions are
// reduction factors.
func reduceRule(op *ir.Op, in, out [][]int64) *rule {
	dims, ok := op.Attrs.I64s("dimensions")
	n := len(out)
	if !ok || len(in) != 2*n {
		return nil
	}
	r := &rule{special: map[int]bool{}}
	shape := in[0]
	var kept []int
	factors := make([][]int, len(shape))
	for d, size := range shape {
		f := r.factor(size)
		factors[d] = []int{f}
		if containsInt(dims, d) {
			r.special[f] = true
		} else {
			kept = append(kept, f)
		}
	}
	for k := 0; k < n; k++ {
		if !equalShape(in[k], shape) || len(in[n+k]) != 0 || len(out[k]) != len(kept) {
			return nil
		}
		r.ins = append(r.ins, factors)
	}
	for k := 0; k < n; k++ {
		r.ins = append(r.ins, nil)
	}
	res := make([][]int, len(kept))
	for i, f := range kept {
		res[i] = []int{f}
	}
	for k := 0; k < n; k++ {
		r.outs = append(r.outs, res)
	}
	return r
}

func dotRule(op *ir.Op, in, out [][]int64) *rule {
	if len(in) != 2 || len(out) != 1 {
		return nil
	}
	lb, _ := op.Attrs.I64s("lhs_batching_dimensions")
	rb, _ := op.Attrs.I64s("rhs_batching_dimensions")
	lc, _ := op.Attrs.I64s("lhs_contracting_dimensions")
	rc, _ := op.Attrs.I64s("rhs_contracting_dimensions")
	if len(lb) != len(rb) || len(lc) != len(rc) {
		return nil
	}
	lhs, rhs := make([][]int, len(in[0])), make([][]int, len(in[1]))
	var res [][]int
	r := &rule{special: map[int]bool{}}
	for k := range lb {
		f := r.factor(in[0][lb[k]])
		lhs[lb[k]], rhs[rb[k]] = []int{f}, []int{f}
		res = append(res, []int{f})
	}
	for k := range lc {
		f := r.factor(in[0][lc[k]])
		r.special[f] = true
		lhs[lc[k]], rhs[rc[k]] = []int{f}, []int{f}
	}
	for _, side := range []struct {
		dims  [][]int
		shape []int64
	}{{lhs, in[0]}, {rhs, in[1]}} {
		for d := range side.dims {
			if side.dims[d] == nil {
				f := r.factor(side.shape[d])
				side.dims[d] = []int{f}
				res = append(res, []int{f})
			}
		}
	}
	if len(res) != len(out[0]) {
		return nil
	}
	for d, fs := range res {
		if r.sizes[fs[0]] != out[0][d] {
			return nil
		}
	}
	r.ins, r.outs = [][][]int{lhs, rhs}, [][][]int{res}
	return r
}

// sharedRule shares every dimension among all tensors (of one rank); a
// dimension whose extent differs between them, or for which special holds,
// is a special factor.
func sharedRule(in, out [][]int64, special func(dim int) bool) *rule {
	rank := len(out[0])
	all := append(append([][]int64(nil), in...), out...)
	for _, s := range all {
		if len(s) != rank {
			return nil
		}
	}
	r := &rule{special: map[int]bool{}}
	dims := make([][]int, rank)
	for d := 0; d < rank; d++ {
		f := r.factor(out[0][d])
		dims[d] = []int{f}
		for _, s := range all {
			if s[d] != out[0][d] {
				r.special[f] = true
			}
		}
		if special != nil && special(d) {
			r.special[f] = true
		}
	}
	for range in {
		r.ins = append(r.ins, dims)
	}
	for range out {
		r.outs = append(r.outs, dims)
	}
	return r
}

// reduceWindowRule: N inputs, N rank-0 inits, N results sharing each
// dimension; windowed, strided or dilated dimensions are special (a
// padded dimension is windowed in practice: cumulative sums).
func reduceWindowRule(op *ir.Op, in, out [][]int64) *rule {
	n := len(out)
	if len(in) != 2*n {
		return nil
	}
	win, _ := op.Attrs.I64s("window_dimensions")
	r := sharedRule(in[:n], out, func(d int) bool {
		return d < len(win) && win[d] != 1
	})
	if r == nil {
		return nil
	}
	for _, name := range []string{"window_strides", "base_dilations", "window_dilations"} {
		v, _ := op.Attrs.I64s(name)
		for d, x := range v {
			if x != 1 && d < len(r.sizes) {
				r.special[d] = true
			}
		}
	}
	return r.withScalars(n)
}

// gatherRule: result offset dimensions share the operand dimension they
// slice when the window spans it, result batch dimensions the
// index dimensions, batching dimensions all three; indexed operand
// dimensions get factors of their own.
func gatherRule(op *ir.Op, in, out [][]int64) *rule {
	if len(in) != 2 || len(out) != 1 {
		return nil
	}
	offset, ok1 := op.Attrs.I64s("offset_dims")
	collapsed, _ := op.Attrs.I64s("collapsed_slice_dims")
	opBatch, _ := op.Attrs.I64s("operand_batching_dims")
	idxBatch, _ := op.Attrs.I64s("start_indices_batching_dims")
	sizes, ok2 := op.Attrs.I64s("slice_sizes")
	ivd, ok3 := op.Attrs.Int("index_vector_dim")
	operand, indices, res := in[0], in[1], out[0]
	if !ok1 || !ok2 || !ok3 || len(sizes) != len(operand) || len(opBatch) != len(idxBatch) {
		return nil
	}
	r := &rule{special: map[int]bool{}}
	od, id, rd := make([][]int, len(operand)), make([][]int, len(indices)), make([][]int, len(res))
	// Result batch dimensions are the result dimensions not in offset_dims,
	// in the order of the index dimensions other than index_vector_dim.
	var batchRes []int
	for d := range res {
		if !containsInt(offset, d) {
			batchRes = append(batchRes, d)
		}
	}
	k := 0
	for d := range indices {
		if int64(d) == ivd {
			continue
		}
		if k >= len(batchRes) || res[batchRes[k]] != indices[d] {
			return nil
		}
		f := r.factor(indices[d])
		id[d], rd[batchRes[k]] = []int{f}, []int{f}
		for b, x := range idxBatch {
			if x == int64(d) && operand[opBatch[b]] == indices[d] {
				od[opBatch[b]] = []int{f}
			}
		}
		k++
	}
	k = 0
	for d := range operand {
		if containsInt(collapsed, d) || containsInt(opBatch, d) {
			continue
		}
		if k >= len(offset) || res[offset[k]] != sizes[d] {
			return nil
		}
		if sizes[d] == operand[d] {
			f := r.factor(res[offset[k]])
			od[d], rd[offset[k]] = []int{f}, []int{f}
		}
		// A narrower window (an index picks where it starts) shares
		// nothing: the operand's and result's dimensions get factors of
		// their own, as XLA's partitioner leaves them.
		k++
	}
	fill := func(dims [][]int, shape []int64) {
		for d := range dims {
			if dims[d] == nil {
				dims[d] = []int{r.factor(shape[d])}
			}
		}
	}
	fill(od, operand)
	fill(id, indices)
	fill(rd, res)
	r.ins, r.outs = [][][]int{od, id}, [][][]int{rd}
	return r
}

// scatterRule: inputs and results share every dimension (the scattered-into
// ones are special), update window dimensions the input dimension they
// cover when they cover all of it, update scatter dimensions the index
// dimensions.
func scatterRule(op *ir.Op, in, out [][]int64) *rule {
	n := len(out)
	if len(in) != 2*n+1 {
		return nil
	}
	window, ok1 := op.Attrs.I64s("update_window_dims")
	inserted, _ := op.Attrs.I64s("inserted_window_dims")
	inBatch, _ := op.Attrs.I64s("input_batching_dims")
	toOperand, _ := op.Attrs.I64s("scatter_dims_to_operand_dims")
	ivd, ok2 := op.Attrs.Int("index_vector_dim")
	if !ok1 || !ok2 {
		return nil
	}
	input, indices, upd := in[0], in[n], in[n+1]
	r := &rule{special: map[int]bool{}}
	shared := make([][]int, len(input))
	for d, size := range input {
		f := r.factor(size)
		shared[d] = []int{f}
		if containsInt(toOperand, d) {
			r.special[f] = true
		}
	}
	ud, id := make([][]int, len(upd)), make([][]int, len(indices))
	k := 0
	for d := range input {
		if containsInt(inserted, d) || containsInt(inBatch, d) {
			continue
		}
		if k >= len(window) {
			return nil
		}
		if upd[window[k]] == input[d] {
			ud[window[k]] = shared[d]
		}
		k++
	}
	k = 0
	for d := range indices {
		if int64(d) == ivd {
			continue
		}
		for k < len(upd) && containsInt(window, k) {
			k++
		}
		if k >= len(upd) || upd[k] != indices[d] {
			return nil
		}
		f := r.factor(indices[d])
		id[d], ud[k] = []int{f}, []int{f}
		k++
	}
	for d := range ud {
		if ud[d] == nil {
			ud[d] = []int{r.factor(upd[d])}
		}
	}
	for d := range id {
		if id[d] == nil {
			id[d] = []int{r.factor(indices[d])}
		}
	}
	for i := 0; i < n; i++ {
		if !equalShape(in[i], input) || !equalShape(in[n+1+i], upd) || !equalShape(out[i], input) {
			return nil
		}
		r.ins = append(r.ins, shared)
		r.outs = append(r.outs, shared)
	}
	r.ins = append(r.ins, id)
	for i := 0; i < n; i++ {
		r.ins = append(r.ins, ud)
	}
	return r
}

// convRule: batch and output features pass through, input features are
// contracted, input and output spatial dimensions are shared (special);
// grouped convolutions get no rule.
func convRule(op *ir.Op, in, out [][]int64) *rule {
	if len(in) != 2 || len(out) != 1 {
		return nil
	}
	for _, g := range []string{"feature_group_count", "batch_group_count"} {
		if v, ok := op.Attrs.Int(g); ok && v != 1 {
			return nil
		}
	}
	get := func(name string) int {
		v, ok := op.Attrs.Int(name)
		if !ok {
			return -1
		}
		return int(v)
	}
	inB, inF := get("input_batch_dimension"), get("input_feature_dimension")
	kIn, kOut := get("kernel_input_feature_dimension"), get("kernel_output_feature_dimension")
	outB, outF := get("output_batch_dimension"), get("output_feature_dimension")
	inSp, _ := op.Attrs.I64s("input_spatial_dimensions")
	outSp, _ := op.Attrs.I64s("output_spatial_dimensions")
	x, k, y := in[0], in[1], out[0]
	for _, d := range []struct {
		d    int
		rank int
	}{{inB, len(x)}, {inF, len(x)}, {kIn, len(k)}, {kOut, len(k)}, {outB, len(y)}, {outF, len(y)}} {
		if d.d < 0 || d.d >= d.rank {
			return nil
		}
	}
	if len(inSp) != len(outSp) || x[inB] != y[outB] || k[kOut] != y[outF] || x[inF] != k[kIn] {
		return nil
	}
	r := &rule{special: map[int]bool{}}
	xd, kd, yd := make([][]int, len(x)), make([][]int, len(k)), make([][]int, len(y))
	f := r.factor(y[outB])
	xd[inB], yd[outB] = []int{f}, []int{f}
	f = r.factor(y[outF])
	kd[kOut], yd[outF] = []int{f}, []int{f}
	f = r.factor(x[inF])
	r.special[f] = true
	xd[inF], kd[kIn] = []int{f}, []int{f}
	for i := range inSp {
		if inSp[i] < 0 || int(inSp[i]) >= len(x) || outSp[i] < 0 || int(outSp[i]) >= len(y) {
			return nil
		}
		f := r.factor(y[outSp[i]])
		r.special[f] = true
		xd[inSp[i]], yd[outSp[i]] = []int{f}, []int{f}
	}
	for _, t := range []struct {
		dims  [][]int
		shape []int64
	}{{xd, x}, {kd, k}, {yd, y}} {
		for d := range t.dims {
			if t.dims[d] == nil {
				t.dims[d] = []int{r.factor(t.shape[d])}
			}
		}
	}
	r.ins, r.outs = [][][]int{xd, kd}, [][][]int{yd}
	return r
}

// customCallRule is the propagation rule of a side-effect-free custom call
// with an sdy.sharding_rule (JAX gives its LAPACK and other kernels one),
// nil for others (they stay barriers). Only factors the rule lets pass are
// shared; reduction, need-replication, permutation and blocked factors get
// a factor of their own in each tensor, so no sharding passes through them.
func customCallRule(op *ir.Op) *rule {
	if se, _ := op.Attrs.Bool("has_side_effect"); se {
		return nil
	}
	sr, err := shardy.RuleOf(op)
	if err != nil || sr == nil || len(sr.Operands) != len(op.Operands) || len(sr.Results) != len(op.Results) {
		return nil
	}
	r := &rule{}
	ids := map[string]int{}
	tensors := func(spec [][][]string, vs []*ir.Value) ([][][]int, bool) {
		out := make([][][]int, len(vs))
		for i, v := range vs {
			t := v.StaticTensor()
			if t == nil || len(spec[i]) != t.Rank() {
				return nil, false
			}
			out[i] = make([][]int, t.Rank())
			for d, fs := range spec[i] {
				size := int64(1)
				for _, f := range fs {
					size *= sr.Sizes[f]
					if sr.Special[f] {
						out[i][d] = append(out[i][d], r.factor(sr.Sizes[f]))
						continue
					}
					id, ok := ids[f]
					if !ok {
						id = r.factor(sr.Sizes[f])
						ids[f] = id
					}
					out[i][d] = append(out[i][d], id)
				}
				if size != t.Shape[d] {
					return nil, false
				}
			}
		}
		return out, true
	}
	var ok bool
	if r.ins, ok = tensors(sr.Operands, op.Operands); !ok {
		return nil
	}
	if r.outs, ok = tensors(sr.Results, op.Results); !ok {
		return nil
	}
	return r
}
