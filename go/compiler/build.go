package compiler

import (
	"fmt"
	"math"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// The builder turns one block (a function body, or a kernel op's region) into
// a plan in four stages: number ops in execution order, give every value a
// storage group, compute each group's live interval, then pack the internal
// groups into slots by linear scan and emit instructions. Control flow
// (while, case, if) shares the enclosing block's slots; kernel regions get
// plans of their own through CompileRegion. This file holds the entry
// points and the order of the stages; each stage has a file of its own
// (groups, liveness, coalesce, loopcarry, inplace, slots, emit).

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
	serials   int // serial fusions emitted (frame.serial entries)
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
	p.sizeArena()
	p.largestOp = b.largestTemporary()
	if err := p.checkArena(); err != nil {
		return nil, err
	}
	body, err := b.emit(p, b.top)
	if err != nil {
		return nil, err
	}
	p.body = body
	for _, c := range b.final {
		p.final = append(p.final, copyPair{b.ref(c.src), ref{c.dst.root().slot, c.size}})
	}
	p.scratchLen = b.scratch
	p.numSerial = b.serials
	b.donationInfo(p)
	return p, nil
}

// largestTemporary is the op defining the largest value that lives in an
// internal slot (nil when there is none); of equal sizes, the first.
func (b *builder) largestTemporary() *ir.Op {
	var op *ir.Op
	size := 0
	for v, g := range b.valGroup {
		if g.root().kind != slotInternal || v.Def == nil {
			continue
		}
		if g.size > size || g.size == size && op != nil && b.pre[v.Def] < b.pre[op] {
			op, size = v.Def, g.size
		}
	}
	return op
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
