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
// operands, each a view of the call's buffers (see SerialScratch.all).
type snode struct {
	f1 func(d, a []byte)
	f2 func(d, a, b []byte)
	f3 func(d, a, b, c []byte)
	// f2s, when set, is the loop with operand sArg a broadcast scalar read
	// from args[sArg] (a one-element input): the fused member's f2s.
	f2s   func(d, v, s []byte)
	sArg  int
	d     sref
	args  [3]sref
	arity int
}

// sref is bytes [0, n) of the buffer SerialScratch.all[idx] points at.
type sref struct{ idx, n int }

func (r *sref) view(all []*[]byte) []byte { return (*all[r.idx])[:r.n] }

// SerialScratch is the scratch of one caller of a Serial (a plan's frame),
// used by one call at a time. all points at the call's inputs, then its
// results, then the scratch buffers: one table, so a member's operand is
// one index whatever its kind. A caller whose buffers live in fixed
// places (a frame's slots, swapped between loop iterations) binds them
// once (Bind) and runs with RunBound: no per-call copy of the headers.
type SerialScratch struct {
	s         *fscratch
	all       []*[]byte
	args      [][]byte // the generic path's ins then outs
	nIn, nOut int
}

// Bind points the call's inputs and results at *ins[i] and *outs[k],
// read at each RunBound.
func (sc *SerialScratch) Bind(ins, outs []*[]byte) {
	copy(sc.all[:sc.nIn], ins)
	copy(sc.all[sc.nIn:sc.nIn+sc.nOut], outs)
}

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
	s := &Serial{f: f, direct: len(f.gathers) == 0}
	for i := range f.nodes {
		nd := &f.nodes[i]
		if nd.fchain != nil || nd.faff != nil {
			s.direct = false
		}
		sn := snode{f1: nd.f1, f2: nd.f2, f3: nd.f3, arity: len(nd.args)}
		nIn, nOut := len(f.inBytes), len(f.outBytes)
		at := func(kind srcKind, idx int) int {
			switch kind {
			case srcInput:
				return idx
			case srcOut:
				return nIn + idx
			}
			return nIn + nOut + idx
		}
		sn.d = sref{idx: at(srcBuf, nd.out), n: f.n * nd.es}
		if nd.res >= 0 {
			sn.d = sref{idx: at(srcOut, nd.res), n: f.n * nd.es}
		}
		for j, a := range nd.args {
			sn.args[j] = sref{idx: at(a.kind, a.idx), n: f.n * a.es}
		}
		if nd.f2s != nil {
			// compute takes a fill operand as the scalar always (a gather
			// only when constant over the block: not direct).
			a := nd.args[nd.sArg]
			if a.fillIn == 0 {
				s.direct = false
			}
			sn.f2s, sn.sArg = nd.f2s, nd.sArg
			sn.args[nd.sArg] = sref{idx: at(srcInput, a.fillIn-1), n: a.es}
		}
		s.nodes = append(s.nodes, sn)
	}
	return s
}

// NewScratch makes scratch sized for this fusion's one block.
func (s *Serial) NewScratch() *SerialScratch {
	fs := s.f.newScratch(roundUp(max(1, s.f.n) * s.f.maxES))
	nIn, nOut := len(s.f.inBytes), len(s.f.outBytes)
	all := make([]*[]byte, nIn+nOut+len(fs.bufs))
	for i := range fs.bufs {
		all[nIn+nOut+i] = &fs.bufs[i]
	}
	return &SerialScratch{s: fs, all: all, args: make([][]byte, nIn+nOut), nIn: nIn, nOut: nOut}
}

// Release drops the bound inputs and results (a pooled caller's scratch
// must not keep a call's buffers).
func (sc *SerialScratch) Release() {
	clear(sc.all[:sc.nIn+sc.nOut])
	clear(sc.args)
}

// Run computes the fusion's results: ins and outs have the op's operand and
// result sizes.
func (s *Serial) Run(ins, outs [][]byte, sc *SerialScratch) {
	for i := range ins {
		sc.all[i] = &ins[i]
	}
	for k := range outs {
		sc.all[sc.nIn+k] = &outs[k]
	}
	s.RunBound(sc)
	sc.Release()
}

// RunBound is Run on the buffers bound to sc (Bind).
func (s *Serial) RunBound(sc *SerialScratch) {
	all := sc.all
	if !s.direct {
		for i := range sc.args {
			sc.args[i] = *all[i]
		}
		s.f.compute(sc.s, sc.args[:sc.nIn:sc.nIn], sc.args[sc.nIn:], 0, s.f.n)
		clear(sc.args)
		return
	}
	for i := range s.f.fills {
		if ld := &s.f.fills[i]; !ld.onlyScalar {
			fill((*all[sc.nIn+sc.nOut+ld.buf])[:s.f.n*ld.es], (*all[ld.in])[:ld.es])
		}
	}
	for i := range s.nodes {
		nd := &s.nodes[i]
		d := nd.d.view(all)
		if nd.f2s != nil {
			nd.f2s(d, nd.args[1-nd.sArg].view(all), nd.args[nd.sArg].view(all))
			continue
		}
		switch nd.arity {
		case 1:
			nd.f1(d, nd.args[0].view(all))
		case 2:
			nd.f2(d, nd.args[0].view(all), nd.args[1].view(all))
		default:
			nd.f3(d, nd.args[0].view(all), nd.args[1].view(all), nd.args[2].view(all))
		}
	}
}

// Step is the fusion's kernel step (what the registry's lowering returns).
func (s *Serial) Step() kernel.Step { return s.f.step }
