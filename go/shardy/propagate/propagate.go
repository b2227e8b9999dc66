// Package propagate computes the shardings of an SPMD program's results
// from its argument shardings, sharding constraints and ops, with Shardy's
// propagation semantics: every op maps its operands' and results' dimensions
// onto factors (rules.go); per factor, the mesh axes the tensors agree on
// (a common major-to-minor prefix) spread to the tensors whose dimensions
// are open, unless the axes are used by another factor of the same tensor
// or do not divide the factor. Ops are visited in three rounds of rising
// reach (Shardy's op priorities): pass-through ops first (elementwise,
// reshape, transpose, control flow), then every factor that passes from
// operands to results unchanged, then everything. An op without a rule is a
// barrier: nothing flows through it, so a value is at worst left
// replicated, never given a sharding its op does not preserve.
package propagate

import (
	"fmt"
	"sort"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/shardy"
)

// direction says which way a factor's axes may flow through an op.
type direction uint8

const (
	none     direction = 0
	forward  direction = 1
	backward direction = 2
	both               = forward | backward
)

// node is one tensor's sharding state: per dimension, its axes (major to
// minor) and whether propagation may add to them.
type node struct {
	shape  []int64
	axes   [][]string
	closed []bool
}

// edge is one op (or one identity link of control flow, calls and function
// results) between tensors.
type edge struct {
	ins, outs   []int // node ids
	rule        *rule
	elementwise bool // operands take sideways only what a result took
	// sameEachRound: dir does not depend on the round (pass-through ops).
	sameEachRound bool
	dir           func(prio, factor int) direction
}

// prop is the propagation state of one entry function.
type prop struct {
	mesh  *shardy.Mesh
	nodes []*node
	edges []*edge
}

// rounds is the number of op-priority rounds (see the package comment).
const rounds = 3

// Results returns the sharding of each result of m's entry function over
// mesh as propagation gives it, with nil where it has nothing to say (a
// result propagated to replicated, one with a closed annotation, or one
// annotated for another mesh or in another syntax): callers keep their own
// sharding for those.
func Results(m *ir.Module, meshes map[string]*shardy.Mesh, mesh *shardy.Mesh) ([]*shardy.Sharding, error) {
	s, err := solve(m, meshes, mesh)
	if s == nil || err != nil {
		return nil, err
	}
	res := make([]*shardy.Sharding, len(s.outs))
	for i, id := range s.outs {
		if id < 0 || !s.open[i] {
			continue
		}
		res[i] = s.p.sharding(id)
	}
	return res, nil
}

// Values returns the sharding propagation gives each value of m's entry
// block (its arguments and the results of its ops, not values inside
// regions or callees), nil for a replicated one; the partitioner
// (go/shardy/partition) lays intermediate values out by it.
func Values(m *ir.Module, meshes map[string]*shardy.Mesh, mesh *shardy.Mesh) (map[*ir.Value]*shardy.Sharding, error) {
	s, err := solve(m, meshes, mesh)
	if s == nil || err != nil {
		return nil, err
	}
	out := map[*ir.Value]*shardy.Sharding{}
	for k, id := range s.b.vals {
		if k.ctx == 0 && id >= 0 {
			if sh := s.p.sharding(id); sh != nil {
				sh.Mesh = mesh
				out[k.v] = sh
			}
		}
	}
	return out, nil
}

// solved is the state after propagation: outs are the results' nodes (-1
// for non-tensors), open whether propagation may set each.
type solved struct {
	p    *prop
	b    *builder
	outs []int
	open []bool
}

func solve(m *ir.Module, meshes map[string]*shardy.Mesh, mesh *shardy.Mesh) (*solved, error) {
	f := m.Main()
	if f == nil || f.Body == nil || len(f.Body.Blocks) == 0 {
		return nil, nil // nothing to read: no opinion on any value
	}
	p := &prop{mesh: mesh}
	b := &builder{p: p, m: m, meshes: meshes, vals: map[key]int{}, groups: map[int64][]int{}}
	entry := f.Entry()
	for i, a := range entry.Args {
		id := b.node(0, a)
		if id >= 0 && i < len(f.ArgAttrs) {
			b.annotate(id, f.ArgAttrs[i]["sdy.sharding"])
		}
	}
	if err := b.block(entry, 0, 0); err != nil {
		return nil, err
	}
	ret := entry.Terminator()
	if ret == nil {
		return nil, fmt.Errorf("entry function has no return")
	}
	outs := make([]int, len(ret.Operands))
	open := make([]bool, len(ret.Operands))
	for i, v := range ret.Operands {
		outs[i] = -1
		src := b.node(0, v)
		if src < 0 {
			continue
		}
		// Each result is its own tensor, linked to the returned value: a
		// value returned twice may end with two shardings when one result
		// is annotated.
		outs[i] = p.newNode(v.Tensor().Shape)
		open[i] = true
		if i < len(f.ResAttrs) {
			_, gspmd := f.ResAttrs[i]["mhlo.sharding"]
			open[i] = b.annotate(outs[i], f.ResAttrs[i]["sdy.sharding"]) && !gspmd
		}
		p.identity([]int{src}, []int{outs[i]}, passThrough)
	}
	b.linkGroups()
	p.run()
	return &solved{p: p, b: b, outs: outs, open: open}, nil
}

func (p *prop) newNode(shape []int64) int {
	p.nodes = append(p.nodes, &node{shape: shape, axes: make([][]string, len(shape)), closed: make([]bool, len(shape))})
	return len(p.nodes) - 1
}

// sharding is node id's state as a shardy.Sharding, nil when no dimension
// is cut.
func (p *prop) sharding(id int) *shardy.Sharding {
	n := p.nodes[id]
	s := &shardy.Sharding{Dims: make([][]shardy.Axis, len(n.axes))}
	cut := false
	for d, axes := range n.axes {
		for _, name := range axes {
			a, _ := p.mesh.Axis(name)
			s.Dims[d] = append(s.Dims[d], a)
			cut = true
		}
	}
	if !cut {
		return nil
	}
	return s
}

func (p *prop) axisSize(name string) int64 {
	a, ok := p.mesh.Axis(name)
	if !ok {
		return 0
	}
	return int64(a.Size)
}

// run visits every edge in each round, and again whenever one of its
// tensors changed, until nothing changes. Axis lists only grow, to at
// most the mesh's axis count: this ends.
func (p *prop) run() {
	adj := make([][]int, len(p.nodes))
	for ei, e := range p.edges {
		for _, id := range append(append([]int(nil), e.ins...), e.outs...) {
			adj[id] = append(adj[id], ei)
		}
	}
	queued := make([]bool, len(p.edges))
	// fresh: the edge saw its tensors as they are; a pass-through edge
	// then has nothing new to do in a later round (its directions do not
	// change between rounds).
	fresh := make([]bool, len(p.edges))
	for prio := 0; prio < rounds; prio++ {
		var queue []int
		for i, e := range p.edges {
			if !fresh[i] || !e.sameEachRound {
				queue = append(queue, i)
				queued[i] = true
			}
		}
		for len(queue) > 0 {
			ei := queue[0]
			queue = queue[1:]
			queued[ei] = false
			fresh[ei] = true
			for _, id := range p.apply(p.edges[ei], prio) {
				for _, ej := range adj[id] {
					if ej == ei {
						continue
					}
					fresh[ej] = false
					if !queued[ej] {
						queued[ej] = true
						queue = append(queue, ej)
					}
				}
			}
		}
	}
}

// tensorFactors is one tensor of an edge projected onto the rule's factors.
type tensorFactors struct {
	id   int
	dims [][]int // per dimension, its factors
	// Per factor of the rule:
	has     []bool     // some dimension of the tensor holds it
	axes    [][]string // its axes in this tensor
	closed  []bool
	size    []int64  // its extent in this tensor (slice, pad, concatenate change it)
	blocked []bool   // its dimension holds axes no factor takes
	extra   []string // those axes
}

// project splits node id's dimension shardings over the factors dims maps
// them to: a dimension's axes fill its factors major to minor, each factor
// taking axes while they divide it exactly.
func (p *prop) project(id int, dims [][]int, sizes []int64) *tensorFactors {
	n := p.nodes[id]
	nf := len(sizes)
	t := &tensorFactors{id: id, dims: dims, has: make([]bool, nf), axes: make([][]string, nf), closed: make([]bool, nf),
		size: make([]int64, nf), blocked: make([]bool, nf)}
	for d, fs := range dims {
		for _, f := range fs {
			t.has[f] = true
			t.size[f] = sizes[f]
			if len(fs) == 1 {
				t.size[f] = n.shape[d]
			}
		}
		axes := n.axes[d]
		i := 0
		for k, f := range fs {
			t.closed[f] = n.closed[d]
			prod := int64(1)
			for i < len(axes) {
				s := prod * p.axisSize(axes[i])
				if s == 0 || t.size[f]%s != 0 {
					break
				}
				t.axes[f] = append(t.axes[f], axes[i])
				prod = s
				i++
			}
			if prod < t.size[f] && i < len(axes) && k < len(fs)-1 {
				// The next axis would cut across this factor: the rest
				// cannot be split between the factors without sub-axes.
				break
			}
		}
		if i < len(axes) {
			t.extra = append(t.extra, axes[i:]...)
			for _, f := range fs {
				t.blocked[f] = true
			}
		}
	}
	return t
}

// compat merges old and new axis lists: their common prefix, then old's
// remainder, then new's remainder if expand (which a mismatch clears).
func compat(old, new []string, expand bool) ([]string, bool) {
	var out []string
	i := 0
	for ; i < len(old) && i < len(new); i++ {
		if old[i] != new[i] {
			return out, false
		}
		out = append(out, old[i])
	}
	out = append(out, old[i:]...)
	if expand {
		out = append(out, new[i:]...)
	}
	return out, expand
}

func contains(list []string, a string) bool {
	for _, x := range list {
		if x == a {
			return true
		}
	}
	return false
}

// apply propagates through one edge in round prio and returns the nodes
// it changed. Per factor, the axes the tensors agree on (compat) are
// offered to each tensor, results first; a tensor takes what divides its
// extent of the factor and is free in it. Where two factors of one tensor
// want the same axis, the factor whose axes come from the larger tensor
// wins (ties: the earlier tensor, then the earlier factor), as moving the
// smaller tensor is cheaper.
func (p *prop) apply(e *edge, prio int) []int {
	r := e.rule
	ins := make([]*tensorFactors, len(e.ins))
	outs := make([]*tensorFactors, len(e.outs))
	for i, id := range e.ins {
		ins[i] = p.project(id, r.ins[i], r.sizes)
	}
	for i, id := range e.outs {
		outs[i] = p.project(id, r.outs[i], r.sizes)
	}
	want := make([][]string, len(r.sizes))
	any := false
	for f := range r.sizes {
		dir := e.dir(prio, f)
		if dir == none {
			continue
		}
		first, second := ins, outs
		if dir == backward {
			first, second = outs, ins
		}
		var axes []string
		expand := true
		for _, t := range first {
			if t.has[f] {
				axes, expand = compat(axes, t.axes[f], expand)
			}
		}
		if dir != both {
			expand = false
		}
		for _, t := range second {
			if t.has[f] {
				axes, expand = compat(axes, t.axes[f], expand)
			}
		}
		want[f] = axes
		any = any || len(axes) > 0
	}
	if !any {
		return nil
	}
	all := append(append([]*tensorFactors(nil), ins...), outs...)
	srcSize := make([]int64, len(r.sizes))
	srcIdx := make([]int, len(r.sizes))
	for f := range srcSize {
		srcSize[f], srcIdx[f] = -1, -1
	}
	for ti, t := range all {
		size := int64(1)
		for f, ok := range t.has {
			if ok {
				size *= r.sizes[f]
			}
		}
		for f, ok := range t.has {
			if ok && len(want[f]) > 0 && len(want[f]) <= len(t.axes[f]) && prefix(want[f], t.axes[f]) && size > srcSize[f] {
				srcSize[f], srcIdx[f] = size, ti
			}
		}
	}
	order := make([]int, len(r.sizes))
	for f := range order {
		order[f] = f
	}
	sort.SliceStable(order, func(a, b int) bool {
		fa, fb := order[a], order[b]
		if srcSize[fa] != srcSize[fb] {
			return srcSize[fa] > srcSize[fb]
		}
		return srcIdx[fa] < srcIdx[fb]
	})
	var changed []int
	offer := func(t *tensorFactors, operand bool) {
		grew := false
		for _, f := range order {
			if !t.has[f] || len(want[f]) == 0 {
				continue
			}
			axes := p.within(t, f, want[f])
			if !strictPrefix(t.axes[f], axes) {
				continue
			}
			axes = across(t, f, axes)
			if operand && e.elementwise {
				// An operand of an elementwise op takes sideways only
				// what a result took.
				for _, o := range outs {
					if o.has[f] && strictPrefix(o.axes[f], axes) {
						axes = o.axes[f]
					}
				}
			}
			if strictPrefix(t.axes[f], axes) {
				t.axes[f] = append([]string(nil), axes...)
				grew = true
			}
		}
		if grew && p.store(t) {
			changed = append(changed, t.id)
		}
	}
	for _, t := range outs {
		offer(t, false)
	}
	for _, t := range ins {
		offer(t, true)
	}
	return changed
}

// within cuts axes where tensor t cannot take them for factor f: a closed
// dimension, axes no factor of the dimension took, or a product that does
// not divide t's extent of f.
func (p *prop) within(t *tensorFactors, f int, axes []string) []string {
	size := int64(1)
	for i, a := range axes {
		size *= p.axisSize(a)
		if contains(t.axes[f], a) {
			continue
		}
		if t.closed[f] || t.blocked[f] || size == 0 || t.size[f]%size != 0 {
			return axes[:i]
		}
	}
	return axes
}

// across cuts axes at the first one t already uses for another factor.
func across(t *tensorFactors, f int, axes []string) []string {
	for i, a := range axes {
		if contains(t.extra, a) {
			return axes[:i]
		}
		for g, ok := range t.has {
			if ok && g != f && contains(t.axes[g], a) {
				return axes[:i]
			}
		}
	}
	return axes
}

func strictPrefix(a, b []string) bool { return len(b) > len(a) && prefix(a, b) }

func prefix(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// store writes t's factor axes back into its node's open dimensions:
// a dimension's factors in order, stopping after one not fully cut (the
// next one's axes would not make a block).
func (p *prop) store(t *tensorFactors) bool {
	n := p.nodes[t.id]
	changed := false
	for d, fs := range t.dims {
		if n.closed[d] || len(fs) == 0 {
			continue
		}
		var axes []string
		for _, f := range fs {
			prod := int64(1)
			for _, a := range t.axes[f] {
				if contains(axes, a) {
					continue
				}
				axes = append(axes, a)
				prod *= p.axisSize(a)
			}
			if prod < t.size[f] {
				break
			}
		}
		if len(axes) > len(n.axes[d]) && prefix(n.axes[d], axes) && !usedElsewhere(n, d, axes) {
			n.axes[d] = axes
			changed = true
		}
	}
	return changed
}

// usedElsewhere reports whether one of axes cuts another dimension of n.
func usedElsewhere(n *node, d int, axes []string) bool {
	for e, other := range n.axes {
		if e == d {
			continue
		}
		for _, a := range axes {
			if contains(other, a) {
				return true
			}
		}
	}
	return false
}

// Fill replaces outs[i] (the entry function's result shardings as their
// annotations give them) by the propagated sharding wherever propagation
// has one (see Results), and returns the mesh they are over: mesh, or when
// no argument or result named one (a program whose only shardings are
// inside, e.g. a shard_map of a constant), the one mesh the module declares
// for that many partitions (nil if none or several).
func Fill(m *ir.Module, meshes map[string]*shardy.Mesh, mesh *shardy.Mesh, partitions int, outs []*shardy.Sharding) (*shardy.Mesh, error) {
	if mesh == nil {
		for _, ms := range meshes {
			if len(ms.Axes) > 0 && ms.Size() == partitions {
				if mesh != nil && mesh.String() != ms.String() {
					return nil, nil
				}
				mesh = ms
			}
		}
		if mesh == nil {
			return nil, nil
		}
	}
	res, err := Results(m, meshes, mesh)
	if err != nil {
		return nil, err
	}
	for i, s := range res {
		if s != nil && i < len(outs) && !sameAxes(s, outs[i]) {
			outs[i] = s
		}
	}
	return mesh, nil
}

// sameAxes reports whether two shardings cut every dimension alike.
func sameAxes(a, b *shardy.Sharding) bool {
	if a == nil || b == nil || len(a.Dims) != len(b.Dims) {
		return false
	}
	for d := range a.Dims {
		if len(a.Dims[d]) != len(b.Dims[d]) {
			return false
		}
		for i := range a.Dims[d] {
			if a.Dims[d][i].Name != b.Dims[d][i].Name {
				return false
			}
		}
	}
	return true
}
