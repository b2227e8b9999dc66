package compiler

import (
	"encoding/binary"
	"slices"

	"github.com/gojax/gojax/go/ir"
)

// One-piece dynamic slices: a dynamic_slice or dynamic_update_slice whose
// window is one contiguous run of the operand's bytes (leading window dims
// of size 1, then at most one partial dim, then whole dims: scan's row of a
// stacked carry) is one copy at an offset computed from the start indices.
// A scan body runs one per iteration; through the shape kernel's general
// step (operand views, index decoding per dim, a copy plan) it cost more
// than the copy. Starts are clamped to [0, dim-size] as StableHLO says,
// so the bytes are the kernel's. With a step observer installed the kernel
// step runs instead.

type sliceInstr struct {
	k      *kernelInstr
	update bool // dynamic_update_slice (else dynamic_slice)
	src    ref  // the operand (slice), the update (update slice)
	arr    ref  // the operand, for an update slice not computed in place
	dst    ref
	idx    []sliceIndex
	base   int // offset from the constant start indices (foldConstIndexes)
	n      int // bytes copied
	// relabel, when set, is a relabeling step whose result only this
	// update reads (scan's row stacked through broadcast_in_dim): src is
	// its operand and the step is skipped unless observers watch.
	relabel *kernelInstr
}

// sliceIndex is one start index: its slot, type and the dim it moves in.
type sliceIndex struct {
	r      ref
	signed bool
	max    int64 // dim - window size: the clamp's upper bound
	stride int   // bytes per step of this dim
}

// newSliceInstr returns the direct form of k, or nil when its op is not a
// one-piece dynamic slice or update slice on s32/s64/u32 indices.
func newSliceInstr(k *kernelInstr) *sliceInstr {
	op := k.op
	var first int
	s := &sliceInstr{k: k}
	switch op.Name {
	case "stablehlo.dynamic_slice":
		first = 1
	case "stablehlo.dynamic_update_slice":
		first, s.update = 2, true
	default:
		return nil
	}
	if len(op.Results) != 1 || len(op.Operands) < first || len(k.pre) > 0 {
		return nil
	}
	in, out := op.Operands[0].StaticTensor(), op.Results[0].StaticTensor()
	if in == nil || out == nil || in.Elem != out.Elem || len(op.Operands) != first+in.Rank() {
		return nil
	}
	win := out
	if s.update {
		if win = op.Operands[1].StaticTensor(); win == nil || win.Elem != in.Elem || !in.Equal(out) {
			return nil
		}
	}
	if win.Rank() != in.Rank() || win.NumElements() == 0 {
		return nil
	}
	// Contiguous: after the first dim whose window is not 1, every window
	// dim covers its whole dim.
	partial := false
	for d, w := range win.Shape {
		if w < 0 || w > in.Shape[d] || (partial && w != in.Shape[d]) {
			return nil
		}
		partial = partial || w != 1
	}
	es := int64(in.Elem.ByteSize())
	st := in.Strides()
	for d := range in.Rank() {
		v := op.Operands[first+d]
		t := v.StaticTensor()
		if t == nil || t.NumElements() != 1 || (t.Elem != ir.S32 && t.Elem != ir.S64 && t.Elem != ir.U32) {
			return nil
		}
		s.idx = append(s.idx, sliceIndex{r: k.ins[first+d], signed: t.Elem != ir.U32,
			max: in.Shape[d] - win.Shape[d], stride: int(st[d] * es)})
	}
	s.n = int(win.ByteSize())
	s.dst = k.outs[0]
	if !s.update {
		s.src = k.ins[0]
		return s
	}
	s.arr, s.src = k.ins[0], k.ins[1]
	// The result may be the operand's slot (in place); it must not be the
	// update's or an index's, which the copies would clobber first.
	if s.src.slot == s.dst.slot {
		return nil
	}
	for _, x := range s.idx {
		if x.r.slot == s.dst.slot {
			return nil
		}
	}
	return s
}

// offset is the byte offset of the window's clamped start.
func (s *sliceInstr) offset(f *frame) int {
	off := s.base
	for i := range s.idx {
		x := &s.idx[i]
		off += x.part(f.bufs[x.r.slot])
	}
	return off
}

// part is the index's clamped start, in bytes, read from b.
func (x *sliceIndex) part(b []byte) int {
	var v int64
	switch {
	case x.r.size == 8:
		v = int64(binary.LittleEndian.Uint64(b))
	case x.signed:
		v = int64(int32(binary.LittleEndian.Uint32(b)))
	default:
		v = int64(binary.LittleEndian.Uint32(b))
	}
	return int(min(max(v, 0), x.max)) * x.stride
}

// foldConstIndexes moves the start indices that are plan constants (the
// zero column of scan's row slices) into base, read once here.
func (s *sliceInstr) foldConstIndexes(p *plan) {
	kept := s.idx[:0]
	for _, x := range s.idx {
		i := slices.IndexFunc(p.consts, func(c constBind) bool { return c.slot == x.r.slot && len(c.data) == x.r.size })
		if i < 0 {
			kept = append(kept, x)
			continue
		}
		s.base += x.part(p.consts[i].data)
	}
	s.idx = kept
}

func (s *sliceInstr) run(f *frame) error {
	if s.k.observed && observers.Load() != nil {
		if s.relabel != nil {
			if err := s.relabel.run(f); err != nil {
				return err
			}
		}
		return s.k.run(f)
	}
	off := s.offset(f)
	if !s.update {
		copy(f.bufs[s.dst.slot][:s.n], f.bufs[s.src.slot][off:off+s.n])
		return nil
	}
	d := f.bufs[s.dst.slot][:s.dst.size]
	if s.arr.slot != s.dst.slot {
		copy(d, f.bufs[s.arr.slot][:s.arr.size])
	}
	copy(d[off:off+s.n], f.bufs[s.src.slot][:s.n])
	return nil
}

// mergeRelabels folds a relabeling copy into the update slice right after
// it when the update is the copy's result and nothing else reads that
// (uses: reads per value in the block): the update then reads the copy's
// operand, which no step between them can have overwritten.
func mergeRelabels(body []instr, uses map[*ir.Value]int) []instr {
	out := body[:0]
	for i := 0; i < len(body); i++ {
		k, ok := body[i].(*kernelInstr)
		if ok && k.copyOnly && i+1 < len(body) && uses[k.op.Results[0]] == 1 {
			if s, ok := body[i+1].(*sliceInstr); ok && s.update && s.relabel == nil &&
				s.src == k.outs[0] && s.k.op.Operands[1] == k.op.Results[0] &&
				k.ins[0].size == s.n && k.ins[0].slot != s.dst.slot {
				s.src, s.relabel = k.ins[0], k
				continue
			}
		}
		out = append(out, body[i])
	}
	return out
}
