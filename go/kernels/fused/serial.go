package fused

import (
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// Serial is a fusion of at most one block of elements run on the caller's
// thread in scratch the caller owns: what a small loop body calls every
// iteration. It computes what the fusion's step computes, through the same
// member loops in the same order (compute), without the step's per-call
// work: operand size checks (the caller's buffers come from the op's
// types), the worker split (one block is never split) and taking scratch
// from the pool (two atomic operations and a deferred return per call).
type Serial struct {
	f *fusion
	// direct: every member is a plain loop on whole operands (no
	// broadcast loads, no scalar or affine forms), run from nodes with
	// their operand views resolved once.
	direct bool
	nodes  []snode
}

// snode is a member of a direct Serial: its loop, destination and
// operands, each a (kind, index, bytes) view of the call's buffers.
type snode struct {
	f1    func(d, a []byte)
	f2    func(d, a, b []byte)
	f3    func(d, a, b, c []byte)
	d     sref
	args  [3]sref
	arity int
}

type sref struct {
	kind   srcKind
	idx, n int
}

func (r *sref) view(ins, outs, bufs [][]byte) []byte {
	switch r.kind {
	case srcInput:
		return ins[r.idx][:r.n]
	case srcOut:
		return outs[r.idx][:r.n]
	}
	return bufs[r.idx][:r.n]
}

// SerialScratch is the scratch of one caller of a Serial (a plan's frame),
// used by one call at a time.
type SerialScratch struct{ s *fscratch }

// NewSerial compiles a gojax.fusion op into its serial form; ok is false
// when the op is not a fusion of at most one block of elements.
func NewSerial(ctx kernel.Context, op *ir.Op) (s *Serial, ok bool, err error) {
	if op.Name != Op || len(op.Results) == 0 {
		return nil, false, nil
	}
	if t := op.Results[0].StaticTensor(); t == nil || t.NumElements() > fuseBlockLen {
		return nil, false, nil
	}
	f, err := newFusion(ctx, op)
	if err != nil {
		return nil, false, err
	}
	return newSerial(f), true, nil
}

func newSerial(f *fusion) *Serial {
	s := &Serial{f: f, direct: len(f.fills) == 0 && len(f.gathers) == 0}
	for i := range f.nodes {
		nd := &f.nodes[i]
		if nd.fchain != nil || nd.faff != nil || nd.f2s != nil {
			s.direct = false
		}
		sn := snode{f1: nd.f1, f2: nd.f2, f3: nd.f3, arity: len(nd.args)}
		sn.d = sref{kind: srcBuf, idx: nd.out, n: f.n * nd.es}
		if nd.res >= 0 {
			sn.d = sref{kind: srcOut, idx: nd.res, n: f.n * nd.es}
		}
		for j, a := range nd.args {
			sn.args[j] = sref{kind: a.kind, idx: a.idx, n: f.n * a.es}
		}
		s.nodes = append(s.nodes, sn)
	}
	return s
}

// NewScratch makes scratch sized for this fusion's one block.
func (s *Serial) NewScratch() *SerialScratch {
	return &SerialScratch{s.f.newScratch(roundUp(max(1, s.f.n) * s.f.maxES))}
}

// Run computes the fusion's results: ins and outs have the op's operand and
// result sizes.
func (s *Serial) Run(ins, outs [][]byte, sc *SerialScratch) {
	if !s.direct {
		s.f.compute(sc.s, ins, outs, 0, s.f.n)
		return
	}
	bufs := sc.s.bufs
	for i := range s.nodes {
		nd := &s.nodes[i]
		d := nd.d.view(ins, outs, bufs)
		switch nd.arity {
		case 1:
			nd.f1(d, nd.args[0].view(ins, outs, bufs))
		case 2:
			nd.f2(d, nd.args[0].view(ins, outs, bufs), nd.args[1].view(ins, outs, bufs))
		default:
			nd.f3(d, nd.args[0].view(ins, outs, bufs), nd.args[1].view(ins, outs, bufs), nd.args[2].view(ins, outs, bufs))
		}
	}
}

// Step is the fusion's kernel step (what the registry's lowering returns).
func (s *Serial) Step() kernel.Step { return s.f.step }
