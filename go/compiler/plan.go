package compiler

import (
	"encoding/binary"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gojax/gojax/go/devmem"
	"github.com/gojax/gojax/go/internal/cancel"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/fused"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// A plan is a flat list of instructions over numbered buffer slots. Internal
// slots are scratch buffers owned by a frame (one frame per concurrent run,
// pooled across runs); parameter and output slots are bound to the caller's
// buffers for one run; constant slots point at the constants' data.
type plan struct {
	numSlots   int
	caps       []int // capacity of each internal slot (0 for the others)
	consts     []constBind
	paramSlots []int
	outSlots   []int
	body       []instr
	final      []copyPair // results that are not written in place: copied into the outputs
	scratchLen int        // [][]byte headers for kernel ins/outs per frame
	numSerial  int        // serial fusions, each with scratch in every frame
	arenaBytes int        // one frame's arena: every internal slot, 64-byte aligned
	// largestOp defines the largest temporary: what an arena too big for
	// the host is reported against.
	largestOp *ir.Op

	frames framePool
	// region plans are called per element from kernel workers: they use a
	// per-P sync.Pool (their frames are small) instead of the locked list.
	region    bool
	hotFrames sync.Pool
	stats     PlanStats

	// For donation: when each parameter is last read (position), where each
	// in-place output is first written (-1: written by a final copy), and
	// which parameter each final copy reads (-1: none).
	paramLastUse []int
	outDefPos    []int
	outInPlace   []bool // the output's op is in place: it may overwrite an operand dying there
	// outOverwrites[k]: parameters the op computing output k may overwrite
	// when they die there, for an op whose traits name them
	// (kernel.Traits.Overwrites: a fusion reading them at its own index).
	outOverwrites [][]int
	outCopyParam  []int
}

type constBind struct {
	slot int
	data []byte
}

// ref is a view of a slot: the value occupies its first size bytes.
type ref struct{ slot, size int }

type copyPair struct{ src, dst ref }

func (c copyPair) do(f *frame) {
	copy(f.bufs[c.dst.slot][:c.dst.size], f.bufs[c.src.slot][:c.src.size])
}

const alignment = 64

func roundUp(n int) int { return (n + alignment - 1) &^ (alignment - 1) }

// frame is the per-run state of a plan.
type frame struct {
	bufs    [][]byte
	scratch [][]byte
	// serial[i] is serial fusion i's scratch, made at its first call in
	// this frame (frames are pooled, so once per frame).
	serial []*fused.SerialScratch
	run    uint64 // execution number, for step observers
	arena  []byte // taken from devmem for this run (arenas over heldArenaMax)
	// tok cancels the run at a step boundary (nil: it cannot be); epoch is
	// cancel.Epoch when the run last looked at it.
	tok   *cancel.Token
	epoch uint32
	// rc is the run's context for context steps (nil in region plans,
	// which are called without one).
	rc *kernel.RunContext
}

// cancelled is the step-boundary check: an atomic load unless the epoch
// moved, when the token says whether the run must stop.
func (f *frame) cancelled() error {
	if f.tok == nil {
		return nil
	}
	e := cancel.Epoch()
	if e == f.epoch {
		return nil
	}
	f.epoch = e
	return f.tok.Check()
}

// framePool keeps idle frames across runs. Unlike sync.Pool it is not
// emptied by the GC: re-allocating (and zeroing) a large scratch frame after
// every collection would cost more than holding it. At most maxIdleFrames
// frames are kept: runs of one executable rarely overlap, and a large
// model's scratch should not be held once per core.
type framePool struct {
	hot  atomic.Pointer[frame] // one frame taken and returned without locking
	mu   sync.Mutex
	idle []*frame
}

const maxIdleFrames = 1 // besides hot

func (fp *framePool) get() *frame {
	if f := fp.hot.Swap(nil); f != nil {
		return f
	}
	fp.mu.Lock()
	defer fp.mu.Unlock()
	if n := len(fp.idle); n > 0 {
		f := fp.idle[n-1]
		fp.idle = fp.idle[:n-1]
		return f
	}
	return nil
}

func (fp *framePool) put(f *frame) {
	if fp.hot.CompareAndSwap(nil, f) {
		return
	}
	fp.mu.Lock()
	defer fp.mu.Unlock()
	if len(fp.idle) < maxIdleFrames {
		fp.idle = append(fp.idle, f)
	}
}

// sizeArena records the arena one frame needs (room to align its start,
// then each internal slot rounded up to the alignment).
func (p *plan) sizeArena() {
	total := alignment
	for _, c := range p.caps {
		total += roundUp(c)
	}
	p.arenaBytes = total
}

// checkArena reports an arena the host cannot give now as an
// out-of-memory error naming the op of the largest temporary.
func (p *plan) checkArena() error {
	if err := devmem.CheckHostBytes(int64(p.arenaBytes)); err != nil {
		return p.arenaError(err)
	}
	return nil
}

// arenaError says that the arena could not be had, naming the op of the
// largest temporary.
func (p *plan) arenaError(err error) error {
	err = fmt.Errorf("the program's temporaries need %d bytes: %w", p.arenaBytes, err)
	if p.largestOp != nil {
		return opError(p.largestOp, err)
	}
	return err
}

// heldArenaMax is the largest arena a pooled frame keeps on the Go heap
// between runs. Larger arenas are taken from devmem for each run and given
// back after it: its block cache hands the same block to the next run (a
// lock and a pop), but holds freed blocks only within its budget and for a
// few idle seconds, so the temporaries of many cached executables are not
// all kept resident, the memory limit counts them while a run holds them,
// and none of them sits in the Go heap, whose exhaustion ends the process.
const heldArenaMax = 64 << 10

func (p *plan) getFrame() (*frame, error) {
	held := p.region || p.arenaBytes <= heldArenaMax
	var f *frame
	if p.region {
		// Region plans run per element from kernel workers: their frames
		// (small arenas) stay on the Go heap in a per-P sync.Pool.
		f, _ = p.hotFrames.Get().(*frame)
	} else {
		f = p.frames.get()
	}
	if f != nil && held {
		return f, nil
	}
	if f == nil {
		f = &frame{bufs: make([][]byte, p.numSlots), scratch: make([][]byte, p.scratchLen), serial: make([]*fused.SerialScratch, p.numSerial)}
		for _, c := range p.consts {
			f.bufs[c.slot] = c.data
		}
		if held {
			p.bindArena(f, make([]byte, p.arenaBytes))
			return f, nil
		}
	}
	// devmem fails cleanly (and counts the memory limit); the compiler
	// checked the size against the host already.
	arena, err := devmem.Alloc(p.arenaBytes)
	if err != nil {
		return nil, p.arenaError(err)
	}
	f.arena = arena
	p.bindArena(f, arena)
	return f, nil
}

// bindArena points each internal slot of f at its part of arena, each
// starting on a 64-byte boundary (what SIMD kernels like) and capped so a
// slice cannot grow into its neighbour.
func (p *plan) bindArena(f *frame, arena []byte) {
	off := int((alignment - uintptr(unsafe.Pointer(unsafe.SliceData(arena)))%alignment) % alignment)
	for s, c := range p.caps {
		if c > 0 {
			f.bufs[s] = arena[off : off+c : off+c]
			off += roundUp(c)
		}
	}
}

func (p *plan) putFrame(f *frame) {
	// Drop references to the caller's buffers before pooling the frame.
	for _, s := range p.paramSlots {
		f.bufs[s] = nil
	}
	for _, s := range p.outSlots {
		f.bufs[s] = nil
	}
	clear(f.scratch)
	if f.arena != nil {
		// The slots keep pointing into the freed arena until the next
		// getFrame binds a new one; nothing reads them before that.
		devmem.Free(f.arena)
		f.arena = nil
	}
	f.tok, f.rc = nil, nil
	if p.region {
		p.hotFrames.Put(f)
	} else {
		p.frames.put(f)
	}
}

// exec runs the plan with ins bound to the parameters and outs to the outputs;
// tok (nil for none) stops it between steps. run numbers a top-level run for
// step observers (region plans keep their caller's frame number); rc is the
// run's context (nil: none).
func (p *plan) exec(ins, outs [][]byte, tok *cancel.Token, run uint64, rc *kernel.RunContext) error {
	// The epoch is read before the token: a cancel between the two then
	// shows as an error here or as a moved epoch at the first step, never
	// as neither (Cancel sets the error before it moves the epoch).
	epoch := cancel.Epoch()
	if err := tok.Err(); err != nil {
		return err
	}
	f, err := p.getFrame()
	if err != nil {
		return err
	}
	defer p.putFrame(f)
	if !p.region {
		f.run = run
	}
	f.tok, f.epoch, f.rc = tok, epoch, rc
	for i, s := range p.paramSlots {
		f.bufs[s] = ins[i]
	}
	for i, s := range p.outSlots {
		f.bufs[s] = outs[i]
	}
	if err := runInstrs(f, p.body); err != nil {
		return err
	}
	for _, c := range p.final {
		c.do(f)
	}
	return nil
}

type instr interface {
	run(f *frame) error
}

func runInstrs(f *frame, body []instr) error {
	for _, in := range body {
		if err := f.cancelled(); err != nil {
			return err
		}
		if err := in.run(f); err != nil {
			return err
		}
	}
	return nil
}

// kernelInstr runs one kernel step.
type kernelInstr struct {
	op      *ir.Op
	step    kernel.Step
	ins     []ref
	outs    []ref
	scratch int        // offset of this step's ins then outs in frame.scratch
	pre     []copyPair // custom-call output_operand_aliases: operand copied into the output first
	// observed: not inside a kernel region, so a StepObserver sees it.
	observed bool
	info     stepInfoOnce
	// ser is the serial form of a one-block fusion (nil for other steps),
	// run with the frame's scratch serial[serIdx] unless observers watch.
	ser    *fused.Serial
	serIdx int
	// copyOnly: a small relabeling (see relabelCopy) run as a copy of its
	// operand's bytes instead of its kernel step, unless observers watch.
	copyOnly bool
	// cstep, when set, is the step's form that takes the run's context.
	cstep kernel.ContextStep
}

func (k *kernelInstr) run(f *frame) error {
	if k.copyOnly && (!k.observed || observers.Load() == nil) {
		o, i := k.outs[0], k.ins[0]
		copy(f.bufs[o.slot][:o.size], f.bufs[i.slot][:i.size])
		return nil
	}
	if k.ser != nil && (!k.observed || observers.Load() == nil) {
		sc := f.serial[k.serIdx]
		if sc == nil {
			sc = k.bindSerial(f)
		}
		k.ser.RunBound(sc)
		return nil
	}
	for _, c := range k.pre {
		c.do(f)
	}
	ni := len(k.ins)
	ins := f.scratch[k.scratch : k.scratch+ni : k.scratch+ni]
	outs := f.scratch[k.scratch+ni : k.scratch+ni+len(k.outs)]
	for i, r := range k.ins {
		ins[i] = f.bufs[r.slot][:r.size]
	}
	for i, r := range k.outs {
		outs[i] = f.bufs[r.slot][:r.size]
	}
	if k.observed {
		if obs := observers.Load(); obs != nil {
			return k.runObserved(*obs, f, ins, outs)
		}
	}
	if err := callStep(k.stepOf(f), ins, outs); err != nil {
		return opError(k.op, err)
	}
	return nil
}

// bindSerial makes the serial fusion's scratch in frame f, its operands
// and results bound to f's slots: the slots' headers change (parameters
// bound per run, carries swapped per iteration) but not where they live,
// so the binding lasts as long as the frame.
func (k *kernelInstr) bindSerial(f *frame) *fused.SerialScratch {
	sc := k.ser.NewScratch()
	ins := make([]*[]byte, len(k.ins))
	for i, r := range k.ins {
		ins[i] = &f.bufs[r.slot]
	}
	outs := make([]*[]byte, len(k.outs))
	for i, r := range k.outs {
		outs[i] = &f.bufs[r.slot]
	}
	sc.Bind(ins, outs)
	f.serial[k.serIdx] = sc
	return sc
}

// stepOf is the step to call in frame f: a context step bound to f's run
// context, else the plain step.
func (k *kernelInstr) stepOf(f *frame) kernel.Step {
	if k.cstep == nil {
		return k.step
	}
	return func(ins, outs [][]byte) error { return k.cstep(f.rc, ins, outs) }
}

// callStep runs a step, turning kernel.Make's out-of-memory panic into an
// error the caller names the op in; other panics go on.
func callStep(step kernel.Step, ins, outs [][]byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := kernel.Recovered(r)
			if !ok {
				panic(r)
			}
			err = e
		}
	}()
	return step(ins, outs)
}

// opError names the op and its location unless the kernel already did.
func opError(op *ir.Op, err error) error {
	prefix := op.Name + " at "
	if len(err.Error()) >= len(prefix) && err.Error()[:len(prefix)] == prefix {
		return err
	}
	return fmt.Errorf("%s at %s: %w", op.Name, op.Loc, err)
}

// whileInstr runs a loop whose carried values live in fixed slots: each
// iteration's new values are swapped in (slice headers, no copy), or staged
// through a copy when the body returns something it does not own.
type whileInstr struct {
	init  []copyPair
	cond  []instr
	pred  ref
	body  []instr
	stage []copyPair
	swaps [][2]int
	// scalarCond: the condition is one inline scalar step (a counted
	// loop's compare), run without the instruction list.
	scalarCond *scalarInstr
	// tiny: every body step is a one-element step or a serial fusion
	// (bounded, short work), so the body runs without a cancel check
	// before each step: the check at each iteration's start suffices.
	tiny bool
	// counted: the loop's counter and bound (see loopcount.go), or nil.
	counted *countedLoop
}

func (w *whileInstr) run(f *frame) error {
	for _, c := range w.init {
		c.do(f)
	}
	if w.counted != nil && observers.Load() == nil {
		return w.runCounted(f)
	}
	for {
		// Besides the checks between the body's steps: a loop whose body is
		// only swaps still stops.
		if err := f.cancelled(); err != nil {
			return err
		}
		if c := w.scalarCond; c != nil {
			if err := c.run(f); err != nil {
				return err
			}
		} else if err := runInstrs(f, w.cond); err != nil {
			return err
		}
		if f.bufs[w.pred.slot][0] == 0 {
			return nil
		}
		if err := w.runBody(f, w.body); err != nil {
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

// runBody runs steps of the loop's body: a tiny body's without a cancel
// check before each.
func (w *whileInstr) runBody(f *frame, body []instr) error {
	if !w.tiny {
		return runInstrs(f, body)
	}
	for _, in := range body {
		if err := in.run(f); err != nil {
			return err
		}
	}
	return nil
}

// caseInstr runs one branch chosen by an index (stablehlo.case: out of range
// picks the last branch) or a predicate (stablehlo.if: true picks region 0).
type caseInstr struct {
	index    ref
	pred     bool
	branches [][]instr
	copies   [][]copyPair // branch results not computed in place
}

func (c *caseInstr) run(f *frame) error {
	var b int
	if c.pred {
		if f.bufs[c.index.slot][0] == 0 {
			b = 1
		}
	} else {
		i := int32(binary.LittleEndian.Uint32(f.bufs[c.index.slot]))
		b = int(i)
		if i < 0 || b >= len(c.branches) {
			b = len(c.branches) - 1
		}
	}
	if err := runInstrs(f, c.branches[b]); err != nil {
		return err
	}
	for _, cp := range c.copies[b] {
		cp.do(f)
	}
	return nil
}

// regionCallable is a compiled kernel region (reduce body, comparator).
type regionCallable struct{ p *plan }

func (r *regionCallable) Call(ins, outs [][]byte) error {
	if len(ins) != len(r.p.paramSlots) || len(outs) != len(r.p.outSlots) {
		return fmt.Errorf("region called with %d inputs and %d outputs, want %d and %d", len(ins), len(outs), len(r.p.paramSlots), len(r.p.outSlots))
	}
	return r.p.exec(ins, outs, nil, 0, nil)
}

// stepCallable is a region made of one kernel op applied to the block
// arguments and returned as is (the usual reduce body): no frame needed.
type stepCallable struct {
	op   *ir.Op
	step kernel.Step
}

func (s *stepCallable) Call(ins, outs [][]byte) error {
	if err := s.step(ins, outs); err != nil {
		return opError(s.op, err)
	}
	return nil
}
