package compiler

import (
	"container/heap"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// The builder turns one block (a function body, or a kernel op's region) into
// a plan in four stages: number ops in execution order, give every value a
// storage group, compute each group's live interval, then pack the internal
// groups into slots by linear scan and emit instructions. Control flow
// (while, case, if) shares the enclosing block's slots; kernel regions get
// plans of their own through CompileRegion.

type slotKind uint8

const (
	slotInternal slotKind = iota
	slotParam
	slotConst
	slotOutput
)

// group is storage shared by values that must live in the same buffer (a
// loop's carried value in cond, body and results; a case result and the
// branch values computed in place).
type group struct {
	kind       slotKind
	index      int // parameter or output index
	data       []byte
	size       int
	start, end int
	slot       int
	parent     *group // set when merged into another group
	coalesced  bool   // already merged into a case result or made an output
	kernelDef  bool   // sole value is a kernel op result (may be computed in place elsewhere)
}

func (g *group) root() *group {
	for g.parent != nil {
		g = g.parent
	}
	return g
}

type builder struct {
	ctx        *compileCtx
	top        *ir.Block
	regionMode bool // top is a kernel region: captures must be constants

	pos       int
	pre, post map[*ir.Op]int
	groups    []*group
	valGroup  map[*ir.Value]*group
	scratch   int                        // kernel ins/outs headers allocated so far
	stage     map[*ir.Op][]pendingCopy   // while op → staging copies
	swapsOf   map[*ir.Op][][2]*group     // while op → carried/new buffer swaps
	caseCopy  map[*ir.Op][][]pendingCopy // case/if op → per-branch result copies
	valLast   map[*ir.Value]int          // last use of each value (ancestor-adjusted position)
	outGroups []*group
	final     []pendingCopy
	kernels   int
}

// pendingCopy is a copy recorded before slots exist.
type pendingCopy struct {
	src  *ir.Value
	dst  *group
	size int
}

// buildFuncPlan compiles a function body: parameters are its arguments,
// outputs its results.
func buildFuncPlan(ctx *compileCtx, f *ir.Func) (*plan, error) {
	b := newBuilder(ctx, f.Entry(), false)
	return b.build()
}

// buildRegionCallable compiles a kernel region into a Callable.
func buildRegionCallable(ctx *compileCtx, r *ir.Region) (kernel.Callable, error) {
	if r == nil || len(r.Blocks) != 1 {
		return nil, fmt.Errorf("compiler: region must have exactly one block")
	}
	blk := r.Blocks[0]
	if c, ok, err := singleStepRegion(ctx, blk); ok || err != nil {
		return c, err
	}
	p, err := newBuilder(ctx, blk, true).build()
	if err != nil {
		return nil, err
	}
	p.region = true
	return &regionCallable{p: p}, nil
}

// singleStepRegion recognizes `%r = op(%args...); return %r...` and returns
// the op's step directly.
func singleStepRegion(ctx *compileCtx, blk *ir.Block) (kernel.Callable, bool, error) {
	if len(blk.Ops) != 2 {
		return nil, false, nil
	}
	op, ret := blk.Ops[0], blk.Ops[1]
	if !isKernelOp(op) || len(op.Regions) > 0 || len(op.Operands) != len(blk.Args) || len(ret.Operands) != len(op.Results) {
		return nil, false, nil
	}
	for i, v := range op.Operands {
		if v != blk.Args[i] {
			return nil, false, nil
		}
	}
	for i, v := range ret.Operands {
		if v != op.Results[i] {
			return nil, false, nil
		}
	}
	step, err := lowerKernel(ctx, op)
	if err != nil {
		return nil, true, err
	}
	return &stepCallable{op: op, step: step}, true, nil
}

func newBuilder(ctx *compileCtx, top *ir.Block, regionMode bool) *builder {
	return &builder{
		ctx: ctx, top: top, regionMode: regionMode,
		pre: map[*ir.Op]int{}, post: map[*ir.Op]int{},
		valGroup: map[*ir.Value]*group{},
		stage:    map[*ir.Op][]pendingCopy{},
		swapsOf:  map[*ir.Op][][2]*group{},
		caseCopy: map[*ir.Op][][]pendingCopy{},
		valLast:  map[*ir.Value]int{},
	}
}

func isControlFlow(op *ir.Op) bool {
	switch op.Name {
	case "stablehlo.while", "stablehlo.case", "stablehlo.if":
		return true
	}
	return false
}

// isKernelOp: an op lowered to a kernel step (its results are written by it).
func isKernelOp(op *ir.Op) bool {
	return op.Name == "stablehlo.custom_call" || !compilerOps[op.Name]
}

func (b *builder) build() (*plan, error) {
	b.number(b.top)
	if err := b.assignGroups(); err != nil {
		return nil, err
	}
	if err := b.liveness(b.top); err != nil {
		return nil, err
	}
	for _, g := range b.groups {
		if g.end < g.start {
			g.end = g.start
		}
	}
	if err := b.coalesce(b.top); err != nil {
		return nil, err
	}
	if err := b.outputs(); err != nil {
		return nil, err
	}
	b.inPlace(b.top)
	p := &plan{}
	b.assignSlots(p)
	body, err := b.emit(p, b.top)
	if err != nil {
		return nil, err
	}
	p.body = body
	for _, c := range b.final {
		p.final = append(p.final, copyPair{b.ref(c.src), ref{c.dst.root().slot, c.size}})
	}
	p.scratchLen = b.scratch
	b.donationInfo(p)
	return p, nil
}

// number gives every op a position: pre when it starts, post when it ends
// (equal for ops without control-flow regions).
func (b *builder) number(blk *ir.Block) {
	for _, op := range blk.Ops {
		b.pre[op] = b.pos
		b.pos++
		if isControlFlow(op) {
			for _, r := range op.Regions {
				for _, rb := range r.Blocks {
					b.number(rb)
				}
			}
			b.post[op] = b.pos
			b.pos++
		} else {
			b.post[op] = b.pre[op]
		}
	}
}

func (b *builder) newGroup(kind slotKind, size int) *group {
	g := &group{kind: kind, size: size, start: math.MaxInt, end: math.MinInt}
	b.groups = append(b.groups, g)
	return g
}

// maxBuffer bounds one buffer (64 TiB): beyond it the element count has
// surely overflowed.
const maxBuffer = 1 << 46

// byteSize is the buffer size of a value type; tuples have no buffer form.
func byteSize(t ir.Type) (int, error) {
	switch t := t.(type) {
	case *ir.TensorType:
		n := t.ByteSize()
		for _, d := range t.Shape {
			if d < 0 || d > maxBuffer {
				n = -1
			}
		}
		if n < 0 || n > maxBuffer {
			return 0, fmt.Errorf("tensor %s is too large", t)
		}
		return int(n), nil
	case *ir.TokenType:
		return 0, nil
	}
	return 0, fmt.Errorf("values of type %s are not supported", t)
}

func (b *builder) assignGroups() error {
	for i, a := range b.top.Args {
		n, err := byteSize(a.Type)
		if err != nil {
			return fmt.Errorf("argument %d: %w", i, err)
		}
		g := b.newGroup(slotParam, n)
		g.index, g.start = i, -1
		b.valGroup[a] = g
	}
	return b.groupsIn(b.top)
}

func (b *builder) groupsIn(blk *ir.Block) error {
	for _, op := range blk.Ops {
		switch op.Name {
		case "func.return", "stablehlo.return":
			continue
		case "stablehlo.constant":
			e, ok := op.Attrs.Elements("value")
			t := op.Results[0].Tensor()
			if !ok || t == nil || int64(len(e.Data)) != t.ByteSize() {
				return op.Errorf("constant value does not match its type %s", op.Results[0].Type)
			}
			g := b.newGroup(slotConst, len(e.Data))
			g.data = e.Data
			b.valGroup[op.Results[0]] = g
			continue
		case "stablehlo.while":
			if err := b.whileGroups(op); err != nil {
				return err
			}
			continue
		}
		for i, r := range op.Results {
			n, err := byteSize(r.Type)
			if err != nil {
				return op.Errorf("result %d: %v", i, err)
			}
			g := b.newGroup(slotInternal, n)
			g.kernelDef = isKernelOp(op)
			b.valGroup[r] = g
		}
		if isControlFlow(op) {
			for _, r := range op.Regions {
				if len(r.Blocks) != 1 {
					return op.Errorf("region must have exactly one block")
				}
				if err := b.groupsIn(r.Blocks[0]); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// whileGroups makes one group per carried value shared by the cond and body
// arguments and the op's results.
func (b *builder) whileGroups(op *ir.Op) error {
	if len(op.Regions) != 2 || len(op.Regions[0].Blocks) != 1 || len(op.Regions[1].Blocks) != 1 {
		return op.Errorf("while needs a cond and a body region with one block each")
	}
	cond, body := op.Regions[0].Blocks[0], op.Regions[1].Blocks[0]
	n := len(op.Operands)
	if len(op.Results) != n || len(cond.Args) != n || len(body.Args) != n {
		return op.Errorf("while has %d operands, %d results, %d cond and %d body arguments", n, len(op.Results), len(cond.Args), len(body.Args))
	}
	for i := range n {
		t := op.Operands[i].Type
		if !ir.TypesEqual(t, op.Results[i].Type) || !ir.TypesEqual(t, cond.Args[i].Type) || !ir.TypesEqual(t, body.Args[i].Type) {
			return op.Errorf("carried value %d has inconsistent types", i)
		}
		sz, err := byteSize(t)
		if err != nil {
			return op.Errorf("carried value %d: %v", i, err)
		}
		g := b.newGroup(slotInternal, sz)
		b.valGroup[op.Results[i]] = g
		b.valGroup[cond.Args[i]] = g
		b.valGroup[body.Args[i]] = g
		// Carried values live across the whole loop.
		g.start, g.end = b.pre[op], b.post[op]
	}
	if err := b.groupsIn(cond); err != nil {
		return err
	}
	return b.groupsIn(body)
}

// group returns the storage of an operand; in a kernel region a value from
// the enclosing scope is accepted only when it is a constant.
func (b *builder) group(op *ir.Op, v *ir.Value) (*group, error) {
	if g, ok := b.valGroup[v]; ok {
		return g, nil
	}
	if e := constData(v); e != nil && b.regionMode {
		g := b.newGroup(slotConst, len(e.Data))
		g.data = e.Data
		b.valGroup[v] = g
		return g, nil
	}
	if b.regionMode {
		return nil, op.Errorf("region uses a non-constant value from the enclosing scope; not supported")
	}
	return nil, op.Errorf("operand is not defined in this function")
}

// liveness sets every group's interval: from its first definition to the
// end of the outermost op (in the defining block) that contains a use.
func (b *builder) liveness(blk *ir.Block) error {
	for _, op := range blk.Ops {
		for _, r := range op.Results {
			if g, ok := b.valGroup[r]; ok {
				g.start = min(g.start, b.pre[op])
				g.end = max(g.end, b.pre[op])
			}
		}
		for _, v := range op.Operands {
			g, err := b.group(op, v)
			if err != nil {
				return err
			}
			u := b.lastUse(op, v)
			g.end = max(g.end, u)
			if l, ok := b.valLast[v]; !ok || u > l {
				b.valLast[v] = u
			}
		}
		if isControlFlow(op) {
			for _, r := range op.Results {
				// Results are written inside the op (branch copies), so they
				// must be reserved until it ends.
				g := b.valGroup[r]
				g.start = min(g.start, b.pre[op])
				g.end = max(g.end, b.post[op])
			}
			for _, r := range op.Regions {
				if err := b.liveness(r.Blocks[0]); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (b *builder) lastUse(use *ir.Op, v *ir.Value) int {
	def := v.Block
	if v.Def != nil {
		def = v.Def.Block
	}
	a := use
	for a.Block != def && a.Block != b.top && a.Block.Region != nil && a.Block.Region.Parent != nil {
		a = a.Block.Region.Parent
	}
	return b.post[a]
}

// coalesce lets branch values be computed directly in the case/if result
// buffer and plans how each while iteration hands its values back.
func (b *builder) coalesce(blk *ir.Block) error {
	for _, op := range blk.Ops {
		if !isControlFlow(op) {
			continue
		}
		for _, r := range op.Regions {
			if err := b.coalesce(r.Blocks[0]); err != nil {
				return err
			}
		}
		if op.Name == "stablehlo.while" {
			if err := b.planCarry(op); err != nil {
				return err
			}
			continue
		}
		copies := make([][]pendingCopy, len(op.Regions))
		for bi, r := range op.Regions {
			rb := r.Blocks[0]
			term := rb.Terminator()
			if term == nil || len(term.Operands) != len(op.Results) {
				return op.Errorf("branch %d returns a different number of values than the op's %d results", bi, len(op.Results))
			}
			seen := map[*ir.Value]bool{}
			for i, v := range term.Operands {
				if !ir.TypesEqual(v.Type, op.Results[i].Type) {
					return op.Errorf("branch %d result %d has type %s, op result has %s", bi, i, v.Type, op.Results[i].Type)
				}
				res := b.valGroup[op.Results[i]]
				g, err := b.group(term, v)
				if err != nil {
					return err
				}
				if !seen[v] && v.Def != nil && v.Def.Block == rb && g.kernelDef && !g.coalesced && g.parent == nil {
					g.coalesced = true
					g.parent = res
					res.start = min(res.start, g.start)
					res.end = max(res.end, g.end)
				} else {
					copies[bi] = append(copies[bi], pendingCopy{src: v, dst: res, size: res.size})
				}
				seen[v] = true
			}
		}
		b.caseCopy[op] = copies
	}
	return nil
}

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

// inPlaceCapable: op may write its result over operand v (same size).
func inPlaceCapable(op *ir.Op, v *ir.Value) bool {
	if len(op.Results) != 1 || !ir.TypesEqual(op.Results[0].Type, v.Type) {
		return false
	}
	if op.Name == "stablehlo.dynamic_update_slice" {
		return op.Operands[0] == v
	}
	tr := kernel.TraitsOf(op.Name)
	if !tr.InPlace {
		return false
	}
	if tr.Overwrites != nil {
		return tr.Overwrites(op, v)
	}
	return slices.Contains(op.Operands, v)
}

// outputs binds the block's results: a kernel result of the top block is
// computed directly in the output buffer; anything else is copied there.
func (b *builder) outputs() error {
	term := b.top.Terminator()
	if term == nil {
		return fmt.Errorf("compiler: block has no terminator")
	}
	seen := map[*ir.Value]bool{}
	for k, v := range term.Operands {
		g, err := b.group(term, v)
		if err != nil {
			return err
		}
		if !seen[v] && v.Def != nil && v.Def.Block == b.top && g.kernelDef && !g.coalesced && g.parent == nil {
			g.kind, g.index, g.coalesced = slotOutput, k, true
			b.outGroups = append(b.outGroups, g)
		} else {
			n, err := byteSize(v.Type)
			if err != nil {
				return term.Errorf("result %d: %v", k, err)
			}
			o := b.newGroup(slotOutput, n)
			o.index = k
			o.start, o.end = math.MaxInt, math.MaxInt
			b.outGroups = append(b.outGroups, o)
			b.final = append(b.final, pendingCopy{src: v, dst: o, size: n})
		}
		seen[v] = true
	}
	return nil
}

type live struct{ end, slot int }

type endHeap []live

func (h endHeap) Len() int           { return len(h) }
func (h endHeap) Less(i, j int) bool { return h[i].end < h[j].end }
func (h endHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *endHeap) Push(x any)        { *h = append(*h, x.(live)) }
func (h *endHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// freeSlots finds the free slot of smallest capacity that fits (best fit).
type freeSlots struct {
	byCap map[int][]int // capacity → free slots
	caps  []int         // capacities present in byCap, sorted
}

func (f *freeSlots) put(slot, c int) {
	if len(f.byCap[c]) == 0 {
		i := sort.SearchInts(f.caps, c)
		f.caps = append(f.caps, 0)
		copy(f.caps[i+1:], f.caps[i:])
		f.caps[i] = c
	}
	f.byCap[c] = append(f.byCap[c], slot)
}

func (f *freeSlots) take(size int) (int, bool) {
	i := sort.SearchInts(f.caps, size)
	if i == len(f.caps) {
		return 0, false
	}
	c := f.caps[i]
	list := f.byCap[c]
	s := list[len(list)-1]
	f.byCap[c] = list[:len(list)-1]
	if len(f.byCap[c]) == 0 {
		f.caps = append(f.caps[:i], f.caps[i+1:]...)
	}
	return s, true
}

// inPlace lets the result of an elementwise op (or a dynamic_update_slice)
// share the buffer of a same-sized operand whose last use is that op, so a
// chain of elementwise ops runs in one buffer and an update inside a loop
// does not need a second copy of the array.
func (b *builder) inPlace(blk *ir.Block) {
	for _, op := range blk.Ops {
		if isControlFlow(op) {
			for _, r := range op.Regions {
				b.inPlace(r.Blocks[0])
			}
			continue
		}
		tr := kernel.TraitsOf(op.Name)
		if len(op.Results) != 1 || !(tr.InPlace || op.Name == "stablehlo.dynamic_update_slice") {
			continue
		}
		res := b.valGroup[op.Results[0]]
		if res.parent != nil || res.kind != slotInternal || res.coalesced {
			continue
		}
		cands := op.Operands
		if op.Name == "stablehlo.dynamic_update_slice" {
			cands = cands[:1] // only the updated array, never the update
		}
		for _, v := range cands {
			g := b.valGroup[v].root()
			if tr.Overwrites != nil && !tr.Overwrites(op, v) {
				continue
			}
			if g.kind == slotInternal && g.end == b.pre[op] && g.size == res.size && g != res {
				res.parent, res.coalesced = g, true
				g.end = max(g.end, res.end)
				break
			}
		}
	}
}

// assignSlots gives each external group its own slot and packs internal
// groups by linear scan: a slot whose last value has died is reused by a
// later value of equal or smaller size (best fit).
func (b *builder) assignSlots(p *plan) {
	var internal []*group
	values := 0
	for _, g := range b.groups {
		if g.kind == slotInternal {
			values++
		}
		if g.parent != nil {
			continue
		}
		switch g.kind {
		case slotInternal:
			internal = append(internal, g)
		default:
			g.slot = p.numSlots
			p.numSlots++
		}
	}
	p.paramSlots = make([]int, len(b.top.Args))
	p.outSlots = make([]int, len(b.outGroups))
	for _, g := range b.groups {
		if g.parent != nil {
			continue
		}
		switch g.kind {
		case slotParam:
			p.paramSlots[g.index] = g.slot
		case slotOutput:
			p.outSlots[g.index] = g.slot
		case slotConst:
			p.consts = append(p.consts, constBind{g.slot, g.data})
			p.stats.ConstantBytes += int64(len(g.data))
		}
	}

	sort.SliceStable(internal, func(i, j int) bool { return internal[i].start < internal[j].start })
	var active endHeap // slots in use, by the end of their current value
	free := freeSlots{byCap: map[int][]int{}}
	var caps []int
	for _, g := range internal {
		for active.Len() > 0 && active[0].end < g.start {
			a := heap.Pop(&active).(live)
			free.put(a.slot, caps[a.slot])
		}
		if s, ok := free.take(g.size); ok {
			g.slot = s
		} else {
			g.slot = len(caps)
			caps = append(caps, g.size)
		}
		heap.Push(&active, live{g.end, g.slot})
	}
	base := p.numSlots
	for _, g := range internal {
		g.slot += base
	}
	p.numSlots += len(caps)
	p.caps = make([]int, p.numSlots)
	copy(p.caps[base:], caps)

	// Buffers move between the slots of a swap pair, so every slot connected
	// by swaps gets the largest capacity among them.
	uf := make([]int, p.numSlots)
	for i := range uf {
		uf[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for uf[i] != i {
			uf[i] = uf[uf[i]]
			i = uf[i]
		}
		return i
	}
	for _, pairs := range b.swapsOf {
		for _, s := range pairs {
			uf[find(s[0].root().slot)] = find(s[1].root().slot)
		}
	}
	maxCap := map[int]int{}
	for s, c := range p.caps {
		r := find(s)
		maxCap[r] = max(maxCap[r], c)
	}
	for s := range p.caps {
		if p.caps[s] > 0 || maxCap[find(s)] > 0 {
			p.caps[s] = maxCap[find(s)]
		}
	}
	var scratch int64
	for _, c := range p.caps {
		scratch += int64(c)
	}
	p.stats.Values = values
	p.stats.Slots = len(caps)
	p.stats.ScratchBytes = scratch
}

func (b *builder) ref(v *ir.Value) ref {
	g := b.valGroup[v]
	n, _ := byteSize(v.Type)
	return ref{g.root().slot, n}
}

// emit produces the instructions of one block.
func (b *builder) emit(p *plan, blk *ir.Block) ([]instr, error) {
	var out []instr
	for _, op := range blk.Ops {
		switch op.Name {
		case "func.return", "stablehlo.return", "stablehlo.constant",
			"stablehlo.after_all", "stablehlo.create_token":
			continue // terminators are handled by the parent; tokens carry no data
		case "stablehlo.while":
			w, err := b.emitWhile(p, op)
			if err != nil {
				return nil, err
			}
			out = append(out, w)
		case "stablehlo.case", "stablehlo.if":
			c, err := b.emitCase(p, op)
			if err != nil {
				return nil, err
			}
			out = append(out, c)
		default:
			k, err := b.emitKernel(op)
			if err != nil {
				return nil, err
			}
			out = append(out, k)
		}
	}
	if blk == b.top {
		p.stats.Steps = len(out)
	}
	return out, nil
}

func (b *builder) emitWhile(p *plan, op *ir.Op) (instr, error) {
	cond, body := op.Regions[0].Blocks[0], op.Regions[1].Blocks[0]
	w := &whileInstr{}
	for i, v := range op.Operands {
		if c := (copyPair{b.ref(v), b.ref(body.Args[i])}); c.src.slot != c.dst.slot {
			w.init = append(w.init, c)
		}
	}
	ct := cond.Terminator()
	if ct == nil || len(ct.Operands) != 1 {
		return nil, op.Errorf("while cond must return one value")
	}
	if t := ct.Operands[0].Tensor(); t == nil || t.Elem != ir.Pred || t.NumElements() != 1 {
		return nil, op.Errorf("while cond must return tensor<i1>, got %s", ct.Operands[0].Type)
	}
	var err error
	if w.cond, err = b.emit(p, cond); err != nil {
		return nil, err
	}
	w.pred = b.ref(ct.Operands[0])
	if w.body, err = b.emit(p, body); err != nil {
		return nil, err
	}
	for _, c := range b.stage[op] {
		w.stage = append(w.stage, copyPair{b.ref(c.src), ref{c.dst.root().slot, c.size}})
	}
	for _, s := range b.swapsOf[op] {
		w.swaps = append(w.swaps, [2]int{s[0].root().slot, s[1].root().slot})
	}
	return w, nil
}

func (b *builder) emitCase(p *plan, op *ir.Op) (instr, error) {
	c := &caseInstr{pred: op.Name == "stablehlo.if"}
	if len(op.Operands) != 1 || len(op.Regions) == 0 {
		return nil, op.Errorf("needs one operand and at least one region")
	}
	t := op.Operands[0].Tensor()
	switch {
	case t == nil || t.NumElements() != 1:
		return nil, op.Errorf("selector must be a scalar tensor, got %s", op.Operands[0].Type)
	case c.pred && (t.Elem != ir.Pred || len(op.Regions) != 2):
		return nil, op.Errorf("if needs an i1 predicate and two regions")
	case !c.pred && t.Elem != ir.S32:
		return nil, op.Errorf("case index must be tensor<i32>, got %s", t)
	}
	c.index = b.ref(op.Operands[0])
	copies := b.caseCopy[op]
	for i, r := range op.Regions {
		br, err := b.emit(p, r.Blocks[0])
		if err != nil {
			return nil, err
		}
		c.branches = append(c.branches, br)
		var cp []copyPair
		for _, x := range copies[i] {
			cp = append(cp, copyPair{b.ref(x.src), ref{x.dst.root().slot, x.size}})
		}
		c.copies = append(c.copies, cp)
	}
	return c, nil
}

func (b *builder) emitKernel(op *ir.Op) (instr, error) {
	step, err := lowerKernel(b.ctx, op)
	if err != nil {
		return nil, err
	}
	k := &kernelInstr{op: op, step: step, scratch: b.scratch, observed: !b.regionMode}
	for _, v := range op.Operands {
		k.ins = append(k.ins, b.ref(v))
	}
	for _, r := range op.Results {
		k.outs = append(k.outs, b.ref(r))
	}
	b.scratch += len(k.ins) + len(k.outs)
	if op.Name == "stablehlo.custom_call" {
		if k.pre, err = b.operandAliases(op); err != nil {
			return nil, err
		}
	}
	b.kernels++
	return k, nil
}

// operandAliases: a custom call whose output aliases an operand expects the
// operand's data already in the output buffer (it works in place).
func (b *builder) operandAliases(op *ir.Op) ([]copyPair, error) {
	a, ok := op.Attrs["output_operand_aliases"]
	if !ok {
		return nil, nil
	}
	var list []ir.Attr
	switch a := a.(type) {
	case ir.ArrayAttr:
		list = a.Elems
	case ir.OutputOperandAliasAttr:
		list = []ir.Attr{a}
	default:
		return nil, op.Errorf("output_operand_aliases has unexpected form %s", a)
	}
	var pre []copyPair
	for _, e := range list {
		al, ok := e.(ir.OutputOperandAliasAttr)
		if !ok {
			return nil, op.Errorf("output_operand_aliases entry %s is not an alias", e)
		}
		if len(al.OperandTupleIndices) > 0 || len(al.OutputTupleIndices) > 1 {
			return nil, op.Errorf("tuple output_operand_aliases are not supported")
		}
		out := int64(0)
		if len(al.OutputTupleIndices) == 1 {
			out = al.OutputTupleIndices[0]
		}
		if al.OperandIndex < 0 || int(al.OperandIndex) >= len(op.Operands) || out < 0 || int(out) >= len(op.Results) {
			return nil, op.Errorf("output_operand_alias %s is out of range", al)
		}
		src, dst := op.Operands[al.OperandIndex], op.Results[out]
		if !ir.TypesEqual(src.Type, dst.Type) {
			return nil, op.Errorf("aliased operand %d and result %d have different types", al.OperandIndex, out)
		}
		pre = append(pre, copyPair{b.ref(src), b.ref(dst)})
	}
	return pre, nil
}

// lowerKernel finds and runs the Lower function of an op.
func lowerKernel(ctx *compileCtx, op *ir.Op) (kernel.Step, error) {
	var lower kernel.Lower
	var ok bool
	if op.Name == "stablehlo.custom_call" {
		target, _ := op.Attrs.Str("call_target_name")
		if lower, ok = kernel.LookupCustomCall(target); !ok {
			return nil, op.Errorf("unknown custom call target %q", target)
		}
	} else if lower, ok = kernel.Lookup(op.Name); !ok {
		return nil, op.Errorf("no kernel for this op")
	}
	step, err := lower(ctx, op)
	if err != nil {
		return nil, opError(op, err)
	}
	if step == nil {
		return nil, op.Errorf("kernel returned no step")
	}
	return step, nil
}

// donationInfo records what planDonation needs about parameters and outputs.
func (b *builder) donationInfo(p *plan) {
	p.paramLastUse = make([]int, len(b.top.Args))
	for i, a := range b.top.Args {
		p.paramLastUse[i] = b.valGroup[a].root().end
	}
	p.outDefPos = make([]int, len(b.outGroups))
	p.outCopyParam = make([]int, len(b.outGroups))
	for k := range p.outDefPos {
		p.outDefPos[k], p.outCopyParam[k] = -1, -1
	}
	p.outInPlace = make([]bool, len(b.outGroups))
	p.outOverwrites = make([][]int, len(b.outGroups))
	term := b.top.Terminator()
	for _, g := range b.outGroups {
		if g.start != math.MaxInt {
			p.outDefPos[g.index] = g.start
			def := term.Operands[g.index].Def
			tr := kernel.TraitsOf(def.Name)
			p.outInPlace[g.index] = tr.InPlace && tr.Overwrites == nil
			if tr.InPlace && tr.Overwrites != nil {
				for i, a := range b.top.Args {
					if tr.Overwrites(def, a) {
						p.outOverwrites[g.index] = append(p.outOverwrites[g.index], i)
					}
				}
			}
		}
	}
	for _, c := range b.final {
		// The source may be a parameter itself or a value sharing its
		// buffer (a loop-invariant carry).
		if g := b.valGroup[c.src].root(); g.kind == slotParam {
			p.outCopyParam[c.dst.index] = g.index
		}
	}
	p.stats.KernelSteps = b.kernels
}
