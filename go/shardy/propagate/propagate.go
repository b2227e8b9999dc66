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
	ins, outs []int // node ids
	rule      *rule
	dir       func(prio, factor int) direction
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
	f := m.Main()
	if f == nil || f.Body == nil || len(f.Body.Blocks) == 0 {
		return nil, fmt.Errorf("program has no entry function")
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
	res := make([]*shardy.Sharding, len(outs))
	for i, id := range outs {
		if id < 0 || !open[i] {
			continue
		}
		res[i] = p.sharding(id)
	}
	return res, nil
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

// run visits every edge, round after round, until nothing changes.
func (p *prop) run() {
	for prio := 0; prio < rounds; prio++ {
		// Each pass grows some dimension's axis list or changes nothing,
		// and lists only grow to the mesh's axis count: this ends.
		for changed := true; changed; {
			changed = false
			for _, e := range p.edges {
				if p.apply(e, prio) {
					changed = true
				}
			}
		}
	}
}

// tensorFactors is one tensor of an edge projected onto the rule's factors.
type tensorFactors struct {
	id      int
	dims    [][]int          // per dimension, its factors
	has     map[int]bool     // factors of any dimension
	axes    map[int][]string // factor -> axes
	closed  map[int]bool
	blocked map[int]bool // factors whose dimension holds axes no factor takes
	extra   []string     // those axes
}

// project splits node id's dimension shardings over the factors dims maps
// them to: a dimension's axes fill its factors major to minor, each factor
// taking axes while they divide it exactly.
func (p *prop) project(id int, dims [][]int, sizes []int64) *tensorFactors {
	n := p.nodes[id]
	t := &tensorFactors{id: id, dims: dims, has: map[int]bool{}, axes: map[int][]string{}, closed: map[int]bool{}, blocked: map[int]bool{}}
	for d, fs := range dims {
		for _, f := range fs {
			t.has[f] = true
		}
		axes := n.axes[d]
		i := 0
		for k, f := range fs {
			t.closed[f] = n.closed[d]
			prod := int64(1)
			for i < len(axes) {
				s := prod * p.axisSize(axes[i])
				if s == 0 || sizes[f]%s != 0 {
					break
				}
				t.axes[f] = append(t.axes[f], axes[i])
				prod = s
				i++
			}
			if prod < sizes[f] && i < len(axes) && k < len(fs)-1 {
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

// apply propagates through one edge in round prio and reports whether a
// node changed.
func (p *prop) apply(e *edge, prio int) bool {
	r := e.rule
	ins := make([]*tensorFactors, len(e.ins))
	outs := make([]*tensorFactors, len(e.outs))
	for i, id := range e.ins {
		ins[i] = p.project(id, r.ins[i], r.sizes)
	}
	for i, id := range e.outs {
		outs[i] = p.project(id, r.outs[i], r.sizes)
	}
	all := append(append([]*tensorFactors(nil), ins...), outs...)
	want := make([][]string, len(r.sizes))
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
	}
	// Within a factor: an open tensor takes only axes that divide the
	// factor; a closed one keeps its own and does not hold others back.
	for _, t := range all {
		for f := range r.sizes {
			if !t.has[f] || t.closed[f] {
				continue
			}
			size := int64(1)
			for i, a := range want[f] {
				size *= p.axisSize(a)
				if contains(t.axes[f], a) {
					continue
				}
				if t.blocked[f] || size == 0 || r.sizes[f]%size != 0 {
					want[f] = want[f][:i]
					break
				}
			}
		}
	}
	// Across factors: an axis a tensor uses (or would use) for one factor
	// cannot go to another factor of that tensor.
	snap := make([][]string, len(want))
	copy(snap, want)
	for _, t := range all {
		for f := range r.sizes {
			if !t.has[f] {
				continue
			}
			for i, a := range want[f] {
				clash := contains(t.extra, a)
				for g := range r.sizes {
					if g != f && t.has[g] && (contains(t.axes[g], a) || contains(snap[g], a)) {
						clash = true
					}
				}
				if clash {
					want[f] = want[f][:i]
					break
				}
			}
		}
	}
	changed := false
	for _, t := range all {
		grew := false
		for f := range r.sizes {
			if !t.has[f] || t.closed[f] || t.blocked[f] {
				continue
			}
			cur := t.axes[f]
			if len(want[f]) > len(cur) && prefix(cur, want[f]) {
				t.axes[f] = append([]string(nil), want[f]...)
				grew = true
			}
		}
		if grew && p.store(t, r.sizes) {
			changed = true
		}
	}
	return changed
}

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
func (p *prop) store(t *tensorFactors, sizes []int64) bool {
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
			if prod < sizes[f] {
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
// has one (see Results).
func Fill(m *ir.Module, meshes map[string]*shardy.Mesh, mesh *shardy.Mesh, outs []*shardy.Sharding) error {
	res, err := Results(m, meshes, mesh)
	if err != nil {
		return err
	}
	for i, s := range res {
		if s != nil && i < len(outs) {
			outs[i] = s
		}
	}
	return nil
}
