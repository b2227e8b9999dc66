package fused

import (
	"encoding/binary"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

func init() {
	kernel.RegisterOp(Op, lowerFusion, kernel.Traits{InPlace: true, Overwrites: overwritable, Cost: membersCost})
}

// membersCost: a fusion computes what its members compute, each once, and
// moves only its operands and results (its intermediates stay in scratch).
func membersCost(op *ir.Op) kernel.Work {
	if len(op.Regions) != 1 {
		return kernel.Work{}
	}
	return kernel.RegionWork(op.Regions[0])
}

// A fused elementwise computation runs block by block: for each block of
// fuseBlock result elements, the broadcast inputs are gathered into small
// scratch buffers, then every member op runs its loop over the block, the
// intermediates living in per-worker scratch that stays in cache; only the
// root writes to memory. Blocks are independent, so chunks of them run on
// the worker pool, and because every member computes each element exactly
// as its unfused kernel would, results are bit-identical to the unfused plan.

// fuseBlockLen is the elements per block: the scratch of a typical fusion
// (a few f32 buffers) then stays in L1.
const fuseBlockLen = 1024

// srcKind says where a member op reads an operand.
type srcKind uint8

const (
	srcInput srcKind = iota // an external input read at the same index
	srcBuf                  // a scratch buffer (an intermediate, a gathered or filled input)
	srcOut                  // a result of the fusion, written earlier in the block
)

type fsrc struct {
	kind srcKind
	idx  int // input index or buffer index
	es   int // element size
	// For a buffer holding a broadcast scalar (fill) or a gathered
	// broadcast: the fusion input (fill) or the gathers index (gather) plus
	// one; 0 otherwise. Binary f32/f64 members read such operands as a
	// scalar (see fnode.f2s).
	fillIn, gather int
}

// fnode is one member op.
type fnode struct {
	op   *ir.Op
	loop kernel.Loop // the member's loops from the registry
	f1   func(d, a []byte)
	f2   func(d, a, b []byte)
	f3   func(d, a, b, c []byte)
	// f2s is the member's loop with operand sArg a one-element scalar
	// (kernel.Loop.Scalar), used when that operand is a fill or a gather
	// that is constant over the block.
	f2s  func(d, v, s []byte)
	sArg int
	// faff is the member's loop on an affine function of its operand
	// (kernel.Loop.AffineLoop): a broadcast-scalar multiply and/or add
	// feeding the member, folded in by foldAffine. affS and affO are the
	// fusion inputs (plus one) of the scale and offset, 0 for 1 and -0.
	faff       func(d, s, sc, off []byte)
	affS, affO int
	// fchain is faff followed by this member's binary op: the member
	// reads args[0] (the unary member's source) and args[1].
	fchain func(d, s, w, sc, off []byte)
	args   []fsrc
	out    int // buffer index, or -1 when the member is a result of the fusion
	res    int // result index, or -1
	es     int // result element size
}

// fload materializes an input that is not read at the result's index: a
// one-element input is filled once per chunk (fill), a broadcast operand is
// gathered per block through its index map.
type fload struct {
	in, buf, es int
	fill        bool
	dims        []int // collapsed result dims
	strides     []int // operand element stride per dim (0: broadcast)
	// rowConst: the innermost collapsed dim is broadcast, so a block within
	// one inner run reads one operand element; onlyScalar: every reader
	// then takes it as a scalar and the block needs no gather (for a fill:
	// every reader takes the input as a scalar, so no buffer is filled).
	rowConst, onlyScalar bool
}

type fusion struct {
	op       *ir.Op
	ctx      kernel.Context
	n        int   // result elements (every result has the same shape)
	outBytes []int // expected result sizes
	inBytes  []int // expected input sizes
	fills    []fload
	gathers  []fload
	nodes    []fnode
	nbufs    int
	bufBytes int
	maxES    int // largest element size of a value in scratch
	grain    int // blocks per parallel chunk at least
	// hot is one scratch taken and returned without the pool: a fusion
	// run serially (a small loop body, thousands of times a run) then
	// pays one atomic swap each way.
	hot     atomic.Pointer[fscratch]
	scratch sync.Pool
	runs    sync.Pool
}

// fscratch is one worker's buffers; consts[g] is gather g's operand
// element when it is constant over the current block, else nil.
type fscratch struct {
	bufs   [][]byte
	consts [][]byte
}

// frun carries one Step's buffers to the parallel chunks (pooled: a Step
// does not allocate).
type frun struct {
	f    *fusion
	ins  [][]byte
	outs [][]byte
	fn   func(lo, hi int)
}

func (r *frun) chunk(lo, hi int) {
	r.f.blocks(r.ins, r.outs, lo*fuseBlockLen, min(hi*fuseBlockLen, r.f.n))
}

// lowerFusion compiles a gojax.fusion op.
func lowerFusion(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	f, err := newFusion(ctx, op)
	if err != nil {
		return nil, err
	}
	return f.step, nil
}

func newFusion(ctx kernel.Context, op *ir.Op) (*fusion, error) {
	if len(op.Regions) != 1 || len(op.Regions[0].Blocks) != 1 || len(op.Results) == 0 {
		return nil, op.Errorf("malformed fusion")
	}
	body := op.Regions[0].Blocks[0]
	out := op.Results[0].StaticTensor()
	if out == nil || len(body.Args) != len(op.Operands) {
		return nil, op.Errorf("malformed fusion")
	}
	f := &fusion{op: op, ctx: ctx, n: int(out.NumElements())}
	for _, r := range op.Results {
		t := r.StaticTensor()
		if t == nil || t.NumElements() != out.NumElements() {
			return nil, op.Errorf("fusion results must have one element count")
		}
		f.outBytes = append(f.outBytes, int(t.ByteSize()))
	}
	for _, v := range op.Operands {
		n, err := byteSize(v)
		if err != nil {
			return nil, op.Errorf("%v", err)
		}
		f.inBytes = append(f.inBytes, n)
	}
	if err := f.compile(body, out); err != nil {
		return nil, err
	}
	// Chunks of about 32K cheap element-ops are worth another worker (the
	// elementwise kernels' own grain); costly members count 8 each.
	work := 0
	for _, nd := range f.nodes {
		work += nd.cost()
	}
	f.grain = max(1, 32768/max(1, work)/fuseBlockLen)
	f.scratch.New = func() any { return f.newScratch(f.bufBytes) }
	f.runs.New = func() any {
		r := &frun{f: f}
		r.fn = r.chunk
		return r
	}
	return f, nil
}

// compile resolves every member's loop and gives intermediates scratch
// buffers, reusing a buffer once its value is dead.
func (f *fusion) compile(body *ir.Block, out *ir.TensorType) error {
	term := body.Terminator()
	if term == nil || term.Name != "stablehlo.return" || len(term.Operands) != len(f.outBytes) {
		return f.op.Errorf("fusion region must return its %d results", len(f.outBytes))
	}
	resultOf := map[*ir.Value]int{}
	for k, v := range term.Operands {
		if _, dup := resultOf[v]; dup || v.Def == nil || v.Block != nil {
			return f.op.Errorf("fusion result %d is not a distinct member value", k)
		}
		resultOf[v] = k
	}
	members := body.Ops[:len(body.Ops)-1]
	// lastUse[v]: index of the last member reading v.
	lastUse := map[*ir.Value]int{}
	for i, m := range members {
		for _, v := range m.Operands {
			lastUse[v] = i
		}
	}
	maxES := 1
	for _, m := range members {
		maxES = max(maxES, m.Results[0].Tensor().Elem.ByteSize())
	}
	for _, a := range body.Args {
		if t := a.Tensor(); t != nil {
			maxES = max(maxES, t.Elem.ByteSize())
		}
	}
	f.maxES = maxES
	f.bufBytes = roundUp(fuseBlockLen * maxES)
	var free []int
	alloc := func() int {
		if n := len(free); n > 0 {
			b := free[n-1]
			free = free[:n-1]
			return b
		}
		f.nbufs++
		return f.nbufs - 1
	}
	src := map[*ir.Value]fsrc{}    // where each value is read
	loaded := map[*ir.Value]bool{} // value lives in a buffer freed after its last use
	// Loads run before any member at each block, so their buffers are
	// allocated first: no intermediate can share one before the load's last use.
	fillOf := map[int]int{} // input index → buffer of its fill
	fillInput := func(i, es int) int {
		if b, ok := fillOf[i]; ok {
			return b
		}
		b := alloc()
		fillOf[i] = b
		f.fills = append(f.fills, fload{in: i, buf: b, es: es, fill: true})
		return b
	}
	for i, a := range body.Args {
		t := a.StaticTensor()
		if t == nil {
			return f.op.Errorf("fusion input %d is not a static tensor", i)
		}
		if int(t.NumElements()) == f.n {
			src[a] = fsrc{kind: srcInput, idx: i, es: t.Elem.ByteSize()}
		}
	}
	for _, m := range members {
		es := m.Results[0].Tensor().Elem.ByteSize()
		if m.Name == "stablehlo.broadcast_in_dim" {
			a := m.Operands[0]
			if a.Block != body || a.Def != nil {
				return m.Errorf("fused broadcast must read a fusion input")
			}
			bm, ok := broadcastMap(m)
			if !ok {
				return m.Errorf("unsupported broadcast in fusion")
			}
			if a.StaticTensor().NumElements() == 1 {
				src[m.Results[0]] = fsrc{kind: srcBuf, idx: fillInput(a.Index, es), es: es, fillIn: a.Index + 1}
				continue
			}
			ld := fload{in: a.Index, buf: alloc(), es: es}
			ld.dims, ld.strides = collapse(bm)
			ld.rowConst = ld.strides[len(ld.strides)-1] == 0
			ld.onlyScalar = ld.rowConst
			f.gathers = append(f.gathers, ld)
			src[m.Results[0]] = fsrc{kind: srcBuf, idx: ld.buf, es: es, gather: len(f.gathers)}
			loaded[m.Results[0]] = true
			continue
		}
		for _, v := range m.Operands {
			if t := v.StaticTensor(); v.Block == body && v.Def == nil && t.NumElements() == 1 && f.n != 1 {
				// A rank-0 select/clamp operand: filled once per chunk.
				src[v] = fsrc{kind: srcBuf, idx: fillInput(v.Index, t.Elem.ByteSize()), es: t.Elem.ByteSize(), fillIn: v.Index + 1}
			}
		}
	}
	for i, m := range members {
		if m.Name == "stablehlo.broadcast_in_dim" {
			continue
		}
		res := m.Results[0]
		if _, isResult := resultOf[res]; Relabels(m) && !isResult {
			// Same bytes in the same order: read the operand's source. A
			// dying buffer passes to the result (freed when it dies).
			v := m.Operands[0]
			if s, ok := src[v]; ok && (!loaded[v] || lastUse[v] == i) {
				src[res], loaded[res] = s, loaded[v]
				loaded[v] = false
				continue
			}
		}
		nd := fnode{op: m, es: res.Tensor().Elem.ByteSize(), out: -1, res: -1}
		for j, v := range m.Operands {
			s, ok := src[v]
			if !ok {
				return m.Errorf("fused operand %d has an unsupported shape", j)
			}
			nd.args = append(nd.args, s)
		}
		if err := nd.resolve(); err != nil {
			return err
		}
		if k, ok := resultOf[res]; ok {
			// Written straight into the result; later members read it there.
			nd.res = k
			src[res] = fsrc{kind: srcOut, idx: k, es: nd.es}
		} else {
			nd.out = alloc()
			src[res] = fsrc{kind: srcBuf, idx: nd.out, es: nd.es}
			loaded[res] = true
		}
		// Free operands dying here only after allocating the result, so a
		// loop never writes over its own operand (sizes may differ).
		for _, v := range m.Operands {
			if lastUse[v] == i && loaded[v] {
				free = append(free, src[v].idx)
				loaded[v] = false
			}
		}
		f.nodes = append(f.nodes, nd)
	}
	f.foldAffine()
	// A gather is skipped on constant blocks only if no reader needs its buffer.
	for _, nd := range f.nodes {
		for j, a := range nd.args {
			if a.gather > 0 && (nd.f2s == nil || nd.sArg != j) {
				f.gathers[a.gather-1].onlyScalar = false
			}
		}
	}
	// A fill that every reader takes as a scalar is never written.
	for i := range f.fills {
		ld := &f.fills[i]
		ld.onlyScalar = true
		for _, nd := range f.nodes {
			for j, a := range nd.args {
				if a.fillIn == ld.in+1 && (nd.f2s == nil || nd.sArg != j) {
					ld.onlyScalar = false
				}
			}
		}
	}
	computed := 0
	for _, nd := range f.nodes {
		if nd.res >= 0 {
			computed++
		}
	}
	if computed != len(f.outBytes) {
		return f.op.Errorf("fusion computes %d of its %d results", computed, len(f.outBytes))
	}
	return nil
}

// resolve takes the member's loop from the registry.
func (nd *fnode) resolve() error {
	op := nd.op
	if Relabels(op) {
		nd.f1 = copyLoop
		return nil
	}
	tr := kernel.TraitsOf(op.Name)
	ok := false
	if tr.Loop != nil {
		nd.loop, ok = tr.Loop(op)
	}
	nd.f1, nd.f2, nd.f3 = nd.loop.F1, nd.loop.F2, nd.loop.F3
	arity := 3
	switch {
	case nd.f1 != nil:
		arity = 1
	case nd.f2 != nil:
		arity = 2
	}
	if !ok || len(op.Operands) != arity {
		return op.Errorf("op cannot be fused")
	}
	if arity == 2 && nd.loop.Scalar != nil {
		// One operand a broadcast scalar: the loop reads it directly.
		for j, a := range nd.args {
			if a.fillIn > 0 || a.gather > 0 {
				if f, ok := nd.loop.Scalar(j); ok {
					nd.f2s, nd.sArg = f, j
				}
				break
			}
		}
	}
	return nil
}

func (f *fusion) step(ins, outs [][]byte) error {
	if len(ins) != len(f.inBytes) || len(outs) != len(f.outBytes) {
		return f.op.Errorf("got %d operands and %d results, want %d and %d", len(ins), len(outs), len(f.inBytes), len(f.outBytes))
	}
	for k, b := range outs {
		if len(b) != f.outBytes[k] {
			return f.op.Errorf("result %d buffer has %d bytes, want %d", k, len(b), f.outBytes[k])
		}
	}
	for i, b := range ins {
		if len(b) != f.inBytes[i] {
			return f.op.Errorf("operand %d buffer has %d bytes, want %d", i, len(b), f.inBytes[i])
		}
	}
	nb := (f.n + fuseBlockLen - 1) / fuseBlockLen
	if nb < 2*f.grain || f.ctx == nil {
		f.blocks(ins, outs, 0, f.n)
		return nil
	}
	r := f.runs.Get().(*frun)
	r.ins, r.outs = ins, outs
	f.ctx.Parallel(nb, f.grain, r.fn)
	r.ins, r.outs = nil, nil
	f.runs.Put(r)
	return nil
}

// blocks computes result elements [lo, hi) with one worker's scratch.
func (f *fusion) blocks(ins, outs [][]byte, lo, hi int) {
	if lo >= hi {
		return
	}
	s := f.hot.Swap(nil)
	if s == nil {
		s = f.scratch.Get().(*fscratch)
	}
	defer f.putScratch(s)
	f.compute(s, ins, outs, lo, hi)
}

// compute runs elements [lo, hi) block by block in scratch s.
func (f *fusion) compute(s *fscratch, ins, outs [][]byte, lo, hi int) {
	fillLen := min(fuseBlockLen, hi-lo)
	for i := range f.fills {
		if ld := &f.fills[i]; !ld.onlyScalar {
			fill(s.bufs[ld.buf][:fillLen*ld.es], ins[ld.in][:ld.es])
		}
	}
	for b := lo; b < hi; b += fuseBlockLen {
		e := min(b+fuseBlockLen, hi)
		m := e - b
		for i := range f.gathers {
			ld := &f.gathers[i]
			s.consts[i] = nil
			if ld.rowConst {
				s.consts[i] = gatherConst(ins[ld.in], ld, b, m)
				if s.consts[i] != nil && ld.onlyScalar {
					continue
				}
			}
			gather(s.bufs[ld.buf][:m*ld.es], ins[ld.in], ld, b, m)
		}
		for i := range f.nodes {
			nd := &f.nodes[i]
			var d []byte
			if nd.res >= 0 {
				d = outs[nd.res][b*nd.es : e*nd.es]
			} else {
				d = s.bufs[nd.out][:m*nd.es]
			}
			if nd.fchain != nil {
				nd.fchain(d, s.arg(ins, outs, &nd.args[0], b, e), s.arg(ins, outs, &nd.args[1], b, e), affArg(ins, nd.affS, affOne), affArg(ins, nd.affO, affNegZero))
				continue
			}
			if nd.faff != nil {
				nd.faff(d, s.arg(ins, outs, &nd.args[0], b, e), affArg(ins, nd.affS, affOne), affArg(ins, nd.affO, affNegZero))
				continue
			}
			if nd.f2s != nil {
				if sc := nd.scalarOf(s, ins); sc != nil {
					nd.f2s(d, s.arg(ins, outs, &nd.args[1-nd.sArg], b, e), sc)
					continue
				}
			}
			switch {
			case nd.f1 != nil:
				nd.f1(d, s.arg(ins, outs, &nd.args[0], b, e))
			case nd.f2 != nil:
				nd.f2(d, s.arg(ins, outs, &nd.args[0], b, e), s.arg(ins, outs, &nd.args[1], b, e))
			default:
				nd.f3(d, s.arg(ins, outs, &nd.args[0], b, e), s.arg(ins, outs, &nd.args[1], b, e), s.arg(ins, outs, &nd.args[2], b, e))
			}
		}
	}
}

// newScratch makes one worker's scratch with buffers of bufBytes each.
func (f *fusion) newScratch(bufBytes int) *fscratch {
	s := &fscratch{bufs: make([][]byte, f.nbufs), consts: make([][]byte, len(f.gathers))}
	arena := make([]byte, f.nbufs*bufBytes)
	for i := range s.bufs {
		s.bufs[i] = arena[i*bufBytes : (i+1)*bufBytes : (i+1)*bufBytes]
	}
	return s
}

func (f *fusion) putScratch(s *fscratch) {
	if !f.hot.CompareAndSwap(nil, s) {
		f.scratch.Put(s)
	}
}

// scalarOf is the member's scalar operand over the current block, or nil
// when it varies (a gather crossing an inner run).
func (nd *fnode) scalarOf(s *fscratch, ins [][]byte) []byte {
	a := nd.args[nd.sArg]
	if a.fillIn > 0 {
		return ins[a.fillIn-1][:a.es]
	}
	return s.consts[a.gather-1]
}

// gatherConst returns the operand element that result elements
// [start, start+m) of a row-constant gather all read, or nil when they span
// more than one inner run.
func gatherConst(src []byte, ld *fload, start, m int) []byte {
	r := len(ld.dims)
	inner := ld.dims[r-1]
	if start%inner+m > inner {
		return nil
	}
	rem, base := start/inner, 0
	for k := r - 2; k >= 0; k-- {
		base += (rem % ld.dims[k]) * ld.strides[k]
		rem /= ld.dims[k]
	}
	return src[base*ld.es : (base+1)*ld.es]
}

// copyLoop is a fused reshape that must produce its own buffer.
func copyLoop(d, a []byte) { copy(d, a[:len(d)]) }

// arg is an operand's part for result elements [b, e).
func (s *fscratch) arg(ins, outs [][]byte, a *fsrc, b, e int) []byte {
	switch a.kind {
	case srcInput:
		return ins[a.idx][b*a.es : e*a.es]
	case srcOut:
		return outs[a.idx][b*a.es : e*a.es]
	}
	return s.bufs[a.idx][:(e-b)*a.es]
}

// fill replicates the element v over d.
func fill(d, v []byte) {
	if len(d) == 0 {
		return
	}
	n := copy(d, v)
	for n < len(d) {
		n += copy(d[n:], d[:n])
	}
}

// gather writes result elements [start, start+m) of a broadcast into d.
func gather(d, src []byte, ld *fload, start, m int) {
	es := ld.es
	r := len(ld.dims)
	var coord [16]int
	var cs []int
	if r <= len(coord) {
		cs = coord[:r]
	} else {
		cs = make([]int, r)
	}
	rem := start
	base := 0
	for k := r - 1; k >= 0; k-- {
		cs[k] = rem % ld.dims[k]
		rem /= ld.dims[k]
		base += cs[k] * ld.strides[k]
	}
	inner, is := ld.dims[r-1], ld.strides[r-1]
	if r == 2 && is == 0 && es == 4 {
		// [n,1] → [n,k]: each operand element fills a run of k.
		d32, s32 := byteview.As[uint32](d[:m*4]), byteview.As[uint32](src)
		c, s0 := cs[1], ld.strides[0]
		for o := 0; o < m; {
			x := s32[base]
			end := min(o+inner-c, m)
			for j := o; j < end; j++ {
				d32[j] = x
			}
			o, c, base = end, 0, base+s0
		}
		return
	}
	for o := 0; o < m; {
		// base points at the operand element of the current coordinate.
		cnt := min(inner-cs[r-1], m-o)
		dst := d[o*es : (o+cnt)*es]
		switch is {
		case 0:
			// Short rows (a [n,1] → [n,k] broadcast writes k elements
			// per row) would spend a memmove per element in fill.
			v := src[base*es : (base+1)*es]
			switch es {
			case 4:
				x := binary.NativeEndian.Uint32(v)
				for j := 0; j < len(dst); j += 4 {
					binary.NativeEndian.PutUint32(dst[j:], x)
				}
			case 8:
				x := binary.NativeEndian.Uint64(v)
				for j := 0; j < len(dst); j += 8 {
					binary.NativeEndian.PutUint64(dst[j:], x)
				}
			default:
				fill(dst, v)
			}
		case 1:
			copy(dst, src[base*es:(base+cnt)*es])
		default:
			for j := range cnt {
				copy(dst[j*es:(j+1)*es], src[(base+j*is)*es:])
			}
		}
		o += cnt
		// Advance to the start of the next row.
		base -= cs[r-1] * is
		cs[r-1] = 0
		for k := r - 2; k >= 0; k-- {
			cs[k]++
			base += ld.strides[k]
			if cs[k] < ld.dims[k] {
				break
			}
			base -= cs[k] * ld.strides[k]
			cs[k] = 0
		}
	}
}

// cost is a member's relative cost per element (kernel.Loop.Cost); a
// reshape copy is cheap unless its type is emulated or complex.
func (nd *fnode) cost() int {
	if nd.loop.Cost > 0 {
		return nd.loop.Cost
	}
	for _, v := range append(nd.op.Operands[:len(nd.op.Operands):len(nd.op.Operands)], nd.op.Results...) {
		if t := v.Tensor(); t != nil && (t.Elem.IsComplex() || t.Elem == ir.BF16 || t.Elem == ir.F16 || t.Elem.IsSmallFloat()) {
			return 8
		}
	}
	return 1
}

// f32 1 and -0: the scale and offset of an affine member without a
// multiply or an add (x*1 = x and x + -0 = x exactly).
var affOne, affNegZero = []byte{0, 0, 0x80, 0x3f}, []byte{0, 0, 0, 0x80}

func affArg(ins [][]byte, in int, none []byte) []byte {
	if in == 0 {
		return none
	}
	return ins[in-1][:len(none)]
}

// foldAffine folds x*s + o, x*s or x + o with s and o broadcast scalars
// (fills) into a following unary member whose loop takes the affine
// prologue, when the multiply and add results feed only that member. The
// folded loop rounds after the multiply and after the add, so results are
// unchanged; the block saves two passes.
func (f *fusion) foldAffine() {
	producer := func(k int, a fsrc) int {
		if a.kind != srcBuf || a.fillIn > 0 || a.gather > 0 {
			return -1
		}
		for j := k - 1; j >= 0; j-- {
			if f.nodes[j].out == a.idx {
				return j
			}
		}
		return -1
	}
	// readers counts the member operands that read node j's buffer while
	// it holds j's result (a reshape may pass it on under another value).
	readers := func(j int) int {
		out, n := f.nodes[j].out, 0
		if out < 0 {
			return -1
		}
		for m := j + 1; m < len(f.nodes); m++ {
			for _, a := range f.nodes[m].args {
				if a.kind == srcBuf && a.idx == out && a.fillIn == 0 && a.gather == 0 && producer(m, a) == j {
					n++
				}
			}
		}
		return n
	}
	// scalarStep reports whether node j computes v op fill (fill second).
	scalarStep := func(j int, role kernel.AffineRole) bool {
		nd := &f.nodes[j]
		return nd.loop.Affine == role && nd.f2s != nil && nd.sArg == 1 && nd.args[1].fillIn > 0 && nd.res < 0 && readers(j) == 1
	}
	dead := make([]bool, len(f.nodes)) // folded into a later member
	for k := range f.nodes {
		nd := &f.nodes[k]
		if nd.f1 == nil || nd.res < 0 && nd.out < 0 {
			continue
		}
		faff := nd.loop.AffineLoop
		if faff == nil {
			continue
		}
		drop := []int{}
		src := nd.args[0]
		affS, affO := 0, 0
		if j := producer(k, src); j >= 0 && scalarStep(j, kernel.AffineOffset) {
			affO, src = f.nodes[j].args[1].fillIn, f.nodes[j].args[0]
			drop = append(drop, j)
		}
		from := k
		if len(drop) > 0 {
			from = drop[0]
		}
		if j := producer(from, src); j >= 0 && scalarStep(j, kernel.AffineScale) {
			affS, src = f.nodes[j].args[1].fillIn, f.nodes[j].args[0]
			drop = append(drop, j)
		}
		first := k
		if len(drop) > 0 {
			first = drop[len(drop)-1]
		}
		// The source must survive until node `until`: no member between the
		// first dropped one and it may write the buffer it lives in.
		survives := func(until int, also ...int) bool {
			if src.kind != srcBuf {
				return true
			}
			for j := first + 1; j < until; j++ {
				if f.nodes[j].out == src.idx && !slices.Contains(drop, j) && !slices.Contains(also, j) {
					return false
				}
			}
			return true
		}
		if len(drop) > 0 && !survives(k) {
			continue
		}
		// A single binary reader of the unary's result (an intermediate)
		// takes the whole chain as its loop.
		if nd.res < 0 && readers(k) == 1 {
			for m := k + 1; m < len(f.nodes); m++ {
				bn := &f.nodes[m]
				pos := -1
				for q, a := range bn.args {
					if a.kind == srcBuf && a.idx == nd.out && producer(m, a) == k {
						pos = q
					}
				}
				if pos < 0 {
					continue
				}
				if bn.f2 == nil || bn.f2s != nil || bn.faff != nil || !survives(m, k) {
					break
				}
				ch, ok := nd.loop.AffineThen(bn.loop, pos == 0)
				if !ok {
					break
				}
				affineFolds.Add(1)
				bn.fchain, bn.affS, bn.affO = ch, affS, affO
				bn.args = []fsrc{src, bn.args[1-pos]}
				bn.f2 = nil
				drop = append(drop, k)
				break
			}
		}
		if len(drop) == 0 {
			continue
		}
		if !slices.Contains(drop, k) {
			affineFolds.Add(1)
			nd.faff, nd.affS, nd.affO = faff, affS, affO
			nd.args = []fsrc{src}
		}
		for _, j := range drop {
			f.nodes[j].f1, f.nodes[j].f2, f.nodes[j].f2s, f.nodes[j].f3 = nil, nil, nil, nil
			dead[j] = true
		}
	}
	live := f.nodes[:0]
	for k, nd := range f.nodes {
		if !dead[k] {
			live = append(live, nd)
		}
	}
	f.nodes = live
}

// affineFolds counts folded chains (tests check that a fold happened).
var affineFolds atomic.Int64

// AffineFolds is the number of affine chains folded so far (tests of the
// compiler check that a program's fold happened).
func AffineFolds() int64 { return affineFolds.Load() }

// overwritable reports whether the fusion op may write its result over
// operand v's buffer: every member reads v at the result's own index (no
// broadcast) and v's elements have the result's size, so each block reads
// its part of v before the root writes that part.
func overwritable(op *ir.Op, v *ir.Value) bool {
	if len(op.Results) != 1 || len(op.Regions) != 1 || len(op.Regions[0].Blocks) != 1 {
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
