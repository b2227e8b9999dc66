package fused

import (
	"sync"
	"sync/atomic"

	"github.com/gojax/gojax/go/internal/workers"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/stream"
	"github.com/gojax/gojax/go/kernels/kernel"
	"github.com/gojax/gojax/go/kernels/reduce"
)

// A row fusion (the compiler's pass_rowfuse.go builds it) runs its members block of rows by block
// of rows: each member processes the block's rows (rows*n elements of a
// full value, one element per row of a per-row value) in per-worker
// scratch, so a row is read from memory once and its intermediates stay in
// cache. Every member computes each element as its unfused kernel does (the
// elementwise loops are position-independent, reductions use
// reduce.RowReduce), and rows never interact, so results are the unfused
// plan's bits for any block split and worker count.

// rowBlockElems is the elements of a full value per block: a few such
// scratch buffers stay in L1/L2.
const rowBlockElems = 4096

// rowClaimElems is the elements of a full value per claimed unit of
// blocks: enough work per claim, enough units to even out the workers.
const rowClaimElems = 1 << 16

// rowStreamMin is the size from which a full result is written with
// non-temporal stores: larger than the caches, it would only evict useful
// lines and cost a read per line written.
var rowStreamMin = 1 << 22

func init() { kernel.RegisterOp(RowOp, lowerRowFusion, kernel.Traits{Cost: membersCost}) }

// SetStreamMin sets the size from which row fusions compiled afterwards
// stream their full results, and returns the previous one (tests run both
// paths on small arrays).
func SetStreamMin(n int) int {
	old := rowStreamMin
	rowStreamMin = n
	return old
}

type rloc uint8

const (
	rlIn  rloc = iota // an operand of the fusion, sliced at the block's rows
	rlBuf             // a scratch buffer
	rlOut             // a result of the fusion, written earlier in the block
)

// rsrc is where a value's part for the current block lives.
type rsrc struct {
	loc   rloc
	idx   int
	es    int
	row   bool // one element per row (else n per row)
	bcast bool // a per-row value read spread along the rows
}

type rkind uint8

const (
	rkElem   rkind = iota // an elementwise member
	rkReduce              // a row reduction into a per-row value
	rkLoad                // a broadcast (or rank-0 fill) of an operand
	rkSpread              // a per-row value written out along the rows
	rkCopy                // an alias (reshape) that is also a result
	rkStream              // a large result copied out with non-temporal stores
)

type rinstr struct {
	kind rkind
	nd   fnode // rkElem: the member's loops
	sArg int   // rkElem: operand read as a per-row scalar, or -1
	args []rsrc
	dst  rsrc
	red  reduce.RowFunc // rkReduce
	init int            // rkReduce: operand index of the init value
	ld   fload          // rkLoad
}

type rowFusionK struct {
	op       *ir.Op
	ctx      kernel.Context
	rows, n  int
	rpb      int // rows per block
	inBytes  []int
	outBytes []int
	prog     []rinstr
	streamed []int // operands read along the rows (full values)
	streams  bool  // a result is written with non-temporal stores
	bufSize  []int
	grain    int
	scratch  sync.Pool // *rscratch
	runs     sync.Pool // *rrun
}

// rscratch is one worker's scratch buffers (pooled by pointer: putting a
// slice in a sync.Pool would allocate).
type rscratch struct{ bufs, pf [][]byte }

// rrun carries one Step's buffers to the parallel chunks.
type rrun struct {
	f           *rowFusionK
	ins, outs   [][]byte
	fn          func(lo, hi int) // claim
	unit, units int              // blocks per claimed unit, units
	next        atomic.Int64     // the next unit to claim
}

// claim runs units until none is left (the chunk bounds are ignored).
func (r *rrun) claim(int, int) {
	nb := (r.f.rows + r.f.rpb - 1) / r.f.rpb
	for u := int(r.next.Add(1) - 1); u < r.units; u = int(r.next.Add(1) - 1) {
		r.chunk(u*r.unit, min((u+1)*r.unit, nb))
	}
}

func (r *rrun) chunk(lo, hi int) {
	f := r.f
	s := f.scratch.Get().(*rscratch)
	for b := lo; b < hi; b++ {
		r0 := b * f.rpb
		pf := s.pf[:0]
		if b+1 < hi {
			// The next block's rows load while this one computes, their
			// prefetches spread over its steps (block): issued at once,
			// most would be dropped or stall on the few miss buffers.
			r1 := r0 + f.rpb
			r2 := min(r1+f.rpb, f.rows)
			for _, i := range f.streamed {
				es := f.inBytes[i] / (f.rows * f.n)
				pf = append(pf, r.ins[i][r1*f.n*es:r2*f.n*es])
			}
		}
		f.block(r.ins, r.outs, s.bufs, pf, r0, min(f.rpb, f.rows-r0))
	}
	if f.streams {
		stream.StreamFence()
	}
	f.scratch.Put(s)
}

func lowerRowFusion(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	if len(op.Regions) != 1 || len(op.Regions[0].Blocks) != 1 || len(op.Results) == 0 {
		return nil, op.Errorf("malformed row fusion")
	}
	body := op.Regions[0].Blocks[0]
	if len(body.Args) != len(op.Operands) {
		return nil, op.Errorf("malformed row fusion")
	}
	f := &rowFusionK{op: op, ctx: ctx}
	for _, m := range body.Ops {
		if g, ok := RowReduceGeom(m); ok {
			f.rows, f.n = int(g.Rows), int(g.N)
			break
		}
	}
	if f.n == 0 {
		return nil, op.Errorf("row fusion without a row reduction")
	}
	f.rpb = max(1, rowBlockElems/f.n)
	for _, r := range op.Results {
		n, err := byteSize(r)
		if err != nil {
			return nil, op.Errorf("%v", err)
		}
		f.outBytes = append(f.outBytes, n)
	}
	for _, v := range op.Operands {
		n, err := byteSize(v)
		if err != nil {
			return nil, op.Errorf("%v", err)
		}
		f.inBytes = append(f.inBytes, n)
	}
	if err := f.compile(body); err != nil {
		return nil, err
	}
	f.scratch.New = func() any {
		s := &rscratch{bufs: make([][]byte, len(f.bufSize)), pf: make([][]byte, 0, len(f.streamed))}
		for i, n := range f.bufSize {
			s.bufs[i] = kernel.Make[byte](n)
		}
		return s
	}
	f.runs.New = func() any {
		r := &rrun{f: f}
		r.fn = r.claim
		return r
	}
	return f.step, nil
}

func (f *rowFusionK) step(ins, outs [][]byte) error {
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
	nb := (f.rows + f.rpb - 1) / f.rpb
	r := f.runs.Get().(*rrun)
	r.ins, r.outs = ins, outs
	if f.ctx == nil || nb < 2*f.grain {
		r.chunk(0, nb)
	} else {
		// Units of blocks claimed in order from a shared counter: the
		// cores are shared with other processes, and a worker the OS
		// delays then leaves its units to the others instead of being
		// waited for as a static split would be.
		r.unit = max(f.grain, rowClaimElems/(f.rpb*f.n))
		r.units = (nb + r.unit - 1) / r.unit
		r.next.Store(0)
		f.ctx.Parallel(min(r.units, workers.Count()), 1, r.fn)
	}
	r.ins, r.outs = nil, nil
	f.runs.Put(r)
	return nil
}

// slice is s's part for rows [r0, r0+nr).
func (f *rowFusionK) slice(ins, outs, bufs [][]byte, s rsrc, r0, nr int) []byte {
	per := f.n
	if s.row {
		per = 1
	}
	switch s.loc {
	case rlIn:
		return ins[s.idx][r0*per*s.es : (r0+nr)*per*s.es]
	case rlOut:
		return outs[s.idx][r0*per*s.es : (r0+nr)*per*s.es]
	}
	return bufs[s.idx][:nr*per*s.es]
}

// block runs the program over rows [r0, r0+nr), prefetching an equal
// share of pf (the next block's operands) before each step.
func (f *rowFusionK) block(ins, outs, bufs, pf [][]byte, r0, nr int) {
	n := f.n
	np := len(f.prog)
	for i := range f.prog {
		for _, p := range pf {
			lo, hi := len(p)*i/np&^63, len(p)*(i+1)/np&^63
			if i == np-1 {
				hi = len(p)
			}
			stream.Prefetch(p[lo:hi])
		}
		in := &f.prog[i]
		d := f.slice(ins, outs, bufs, in.dst, r0, nr)
		switch in.kind {
		case rkLoad:
			if in.ld.fill {
				fill(d, ins[in.ld.in][:in.ld.es])
			} else {
				per := n
				if in.dst.row {
					per = 1
				}
				gather(d, ins[in.ld.in], &in.ld, r0*per, nr*per)
			}
		case rkReduce:
			in.red(d, f.slice(ins, outs, bufs, in.args[0], r0, nr), ins[in.init][:in.dst.es], nr)
		case rkSpread:
			s, es := f.slice(ins, outs, bufs, in.args[0], r0, nr), in.dst.es
			for k := range nr {
				fill(d[k*n*es:(k+1)*n*es], s[k*es:(k+1)*es])
			}
		case rkCopy:
			copy(d, f.slice(ins, outs, bufs, in.args[0], r0, nr))
		case rkStream:
			stream.StreamCopy(d, f.slice(ins, outs, bufs, in.args[0], r0, nr))
		case rkElem:
			f.elem(in, d, ins, outs, bufs, r0, nr)
		}
	}
}

func (f *rowFusionK) elem(in *rinstr, d []byte, ins, outs, bufs [][]byte, r0, nr int) {
	nd := &in.nd
	if in.sArg >= 0 {
		// One operand is a per-row value spread along the rows: each row
		// runs the scalar loop with that row's element.
		v := f.slice(ins, outs, bufs, in.args[1-in.sArg], r0, nr)
		s := f.slice(ins, outs, bufs, in.args[in.sArg], r0, nr)
		rd, rv, rs := f.n*in.dst.es, f.n*in.args[1-in.sArg].es, in.args[in.sArg].es
		for k := range nr {
			nd.f2s(d[k*rd:(k+1)*rd], v[k*rv:(k+1)*rv], s[k*rs:(k+1)*rs])
		}
		return
	}
	a := func(j int) []byte { return f.slice(ins, outs, bufs, in.args[j], r0, nr) }
	switch {
	case nd.f1 != nil:
		nd.f1(d, a(0))
	case nd.f2 != nil:
		nd.f2(d, a(0), a(1))
	default:
		nd.f3(d, a(0), a(1), a(2))
	}
}

// rowReduceLoop is the per-row loop of a reduce over element type et.
func rowReduceLoop(op *ir.Op, et ir.ElemType, n int) (reduce.RowFunc, bool) {
	return reduce.RowReduce(op.Regions[0], et, n)
}
