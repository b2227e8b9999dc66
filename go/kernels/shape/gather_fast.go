package shape

import (
	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// Gathers whose batch numbering maps linearly onto the indices and the
// result (no batching dimensions), the common case of take, embedding
// lookups and x[i, j], decode a block of start indices into operand offsets
// with typed loops and then move the block's elements (or rows) with
// another. Finding each slice's place one index at a time cost a DRAM
// latency per element: the loads of a block are independent, so the CPU
// overlaps their misses.

// linearBatch is the update or slice numbering of an indexBatch when it is
// linear: slice b's index vector starts at b*ixSt, its result at b*outSt.
type linearBatch struct {
	count, ixSt, outSt int
}

// linearize returns ib's numbering when it is linear, else false.
func linearize(ib *indexBatch) (linearBatch, bool) {
	var ixSt, outSt int64 = 1, 1
	if last := len(ib.shape) - 1; last >= 0 {
		ixSt, outSt = ib.idxSt[last], ib.outSt[last]
	}
	span := int64(1)
	for d := len(ib.shape) - 1; d >= 0; d-- {
		if ib.idxSt[d] != ixSt*span || ib.outSt[d] != outSt*span || ib.opSt[d] != 0 {
			return linearBatch{}, false
		}
		span *= ib.shape[d]
	}
	return linearBatch{count: int(ib.count), ixSt: int(ixSt), outSt: int(outSt)}, true
}

// gatherBlock is how many slices' offsets are decoded at a time.
const gatherBlock = 512

// fastGather is the plan of such a gather. Gathers with batching
// dimensions (take_along_axis) take the same two phases, the first finding
// each slice's offsets through the indexBatch.
type fastGather struct {
	lb       linearBatch
	ib       *indexBatch // non-nil: numbering not linear
	vecLen   int
	vecSt    int
	idxElem  ir.ElemType
	maxStart []int64
	stStride []int64
	es       int
	win      *copyPlan // nil: one element per slice
	wrap     int64     // indexBatch.wrap
	fill     []byte    // GatherFillAttr's value; nil: clamp
	fillWin  *copyPlan // writes fill over one slice (source stride 0)
}

// withFill returns g writing fill for out-of-range slices, or nil (the
// general path then runs) for index vectors of several components.
func (g *fastGather) withFill(fill []byte, fillWin *copyPlan) *fastGather {
	if g.vecLen != 1 {
		return nil
	}
	g.fill, g.fillWin = fill, fillWin
	return g
}

// newFastGather returns the plan, or nil where the gather's numbering is
// not linear.
func newFastGather(ib *indexBatch, maxStart, stStride []int64, es int, win *copyPlan, winElems int) *fastGather {
	if ib.vecLen != len(maxStart) {
		return nil
	}
	lb, ok := linearize(ib)
	for _, m := range maxStart {
		if m < 0 {
			return nil
		}
	}
	g := &fastGather{lb: lb, vecLen: ib.vecLen, vecSt: int(ib.vecSt), idxElem: ib.idxElem,
		maxStart: maxStart, stStride: stStride, es: es, wrap: ib.wrap}
	if winElems != 1 {
		g.win = win
	}
	if !ok {
		g.ib, g.lb.count = collapse(ib), int(ib.count)
	}
	return g
}

// collapse returns ib's numbering with size-1 batch dimensions dropped and
// neighbours whose strides continue each other merged (at least one
// dimension kept), so that runBatched's runs are as long as they can be.
func collapse(ib *indexBatch) *indexBatch {
	c := *ib
	c.shape, c.idxSt, c.outSt, c.opSt = nil, nil, nil, nil
	for d, n := range ib.shape {
		if n == 1 {
			continue
		}
		if k := len(c.shape) - 1; k >= 0 && c.idxSt[k] == ib.idxSt[d]*n && c.outSt[k] == ib.outSt[d]*n && c.opSt[k] == ib.opSt[d]*n {
			c.shape[k] *= n
			c.idxSt[k], c.outSt[k], c.opSt[k] = ib.idxSt[d], ib.outSt[d], ib.opSt[d]
			continue
		}
		c.shape = append(c.shape, n)
		c.idxSt = append(c.idxSt, ib.idxSt[d])
		c.outSt = append(c.outSt, ib.outSt[d])
		c.opSt = append(c.opSt, ib.opSt[d])
	}
	if len(c.shape) == 0 {
		c.shape, c.idxSt, c.outSt, c.opSt = []int64{1}, []int64{0}, []int64{0}, []int64{0}
	}
	return &c
}

func (g *fastGather) run(ctx kernel.Context, dst, src, ix []byte) {
	work := func(lo, hi int) {
		if g.ib != nil {
			g.runBatched(dst, src, ix, lo, hi)
			return
		}
		if g.take(dst, src, ix, pointRun{n: hi - lo, d0: lo * g.lb.outSt, ds: g.lb.outSt, i0: lo * g.lb.ixSt, is: g.lb.ixSt}) {
			return
		}
		var offs [gatherBlock]int64
		for b := lo; b < hi; b += gatherBlock {
			o := offs[:min(gatherBlock, hi-b)]
			g.offsets(o, ix, b*g.lb.ixSt, g.lb.ixSt, 0, 0)
			g.move(dst, src, o, b*g.lb.outSt, g.lb.outSt)
		}
	}
	per := 1
	if g.win != nil {
		per = max(1, g.win.total)
	}
	if ctx == nil || g.lb.count*per < parallelMinElems || g.lb.count < 2*gatherBlock {
		work(0, g.lb.count)
		return
	}
	ctx.Parallel(g.lb.count, max(gatherBlock, parallelMinElems/per), work)
}

// pointRun is a run of n one-element slices at fixed strides: slice j's
// index at element i0 + j*is of the indices, its operand base (batching
// dimensions) s0 + j*ss, its result d0 + j*ds.
type pointRun struct {
	n, d0, ds, s0, ss, i0, is int
}

// take moves a run of the commonest gathers, one element per slice found
// by one 32- or 64-bit signed or 32-bit unsigned index, of 4- or 8-byte elements (jnp.take,
// take_along_axis), in one loop: decoding a block of offsets and then
// moving it cost two passes of instruction-bound loops. It reports false,
// doing nothing, for any other gather.
func (g *fastGather) take(dst, src, ix []byte, r pointRun) bool {
	if g.win != nil || g.vecLen != 1 {
		return false
	}
	m, st, w := g.maxStart[0], g.stStride[0], g.wrap
	if g.fill != nil {
		return g.takeFill(dst, src, ix, r)
	}
	switch {
	case g.idxElem == ir.S32 && g.es == 4:
		d, s, x := byteview.As[uint32](dst), byteview.As[uint32](src), byteview.As[int32](ix)
		if w != 0 || !takeTable32(d, s, x, r, m, st) {
			takeTyped(d, s, x, r, m, st, w)
		}
	case g.idxElem == ir.S32 && g.es == 8:
		takeTyped(byteview.As[uint64](dst), byteview.As[uint64](src), byteview.As[int32](ix), r, m, st, w)
	case g.idxElem == ir.S64 && g.es == 4:
		takeTyped(byteview.As[uint32](dst), byteview.As[uint32](src), byteview.As[int64](ix), r, m, st, w)
	case g.idxElem == ir.S64 && g.es == 8:
		takeTyped(byteview.As[uint64](dst), byteview.As[uint64](src), byteview.As[int64](ix), r, m, st, w)
	case g.idxElem == ir.U32 && g.es == 4:
		// Unsigned indices (searchsorted's bisection): no table loop, whose
		// int32 clamp would send indices of 2^31 and up to 0.
		takeTyped(byteview.As[uint32](dst), byteview.As[uint32](src), byteview.As[uint32](ix), r, m, st, 0)
	case g.idxElem == ir.U32 && g.es == 8:
		takeTyped(byteview.As[uint64](dst), byteview.As[uint64](src), byteview.As[uint32](ix), r, m, st, 0)
	default:
		return false
	}
	return true
}

// takeFill is take for a gather with a fill value.
func (g *fastGather) takeFill(dst, src, ix []byte, r pointRun) bool {
	m, st, w := g.maxStart[0], g.stStride[0], g.wrap
	switch {
	case g.idxElem == ir.S32 && g.es == 4:
		d, s, x, f := byteview.As[uint32](dst), byteview.As[uint32](src), byteview.As[int32](ix), byteview.As[uint32](g.fill)[0]
		if r.ds == 1 && r.ss == 0 && r.is == 1 && st == 1 && m < 1<<31-1 && w < 1<<31 {
			// A contiguous run (take_along_axis's rows): 16 at a time.
			// Batched runs (ss 0, a table per run) whose next table
			// follows this one get it prefetched.
			var next []uint32
			if e := r.s0 + 2*(int(m)+1); r.n == int(m)+1 && e <= len(s) {
				next = s[r.s0+int(m)+1 : e]
			}
			k := takeFill32Vec(d[r.d0:r.d0+r.n], s[r.s0:r.s0+int(m)+1], x[r.i0:r.i0+r.n], w, f, next)
			r.n, r.d0, r.i0 = r.n-k, r.d0+k, r.i0+k
		}
		takeFillTyped(d, s, x, r, m, st, w, f)
	case g.idxElem == ir.S32 && g.es == 8:
		takeFillTyped(byteview.As[uint64](dst), byteview.As[uint64](src), byteview.As[int32](ix), r, m, st, w, byteview.As[uint64](g.fill)[0])
	case g.idxElem == ir.S64 && g.es == 4:
		takeFillTyped(byteview.As[uint32](dst), byteview.As[uint32](src), byteview.As[int64](ix), r, m, st, w, byteview.As[uint32](g.fill)[0])
	case g.idxElem == ir.S64 && g.es == 8:
		takeFillTyped(byteview.As[uint64](dst), byteview.As[uint64](src), byteview.As[int64](ix), r, m, st, w, byteview.As[uint64](g.fill)[0])
	default:
		return false
	}
	return true
}

// takeFillTyped is takeTyped writing fill where the (wrapped) index is out
// of [0, maxStart] instead of clamping it.
func takeFillTyped[T uint32 | uint64, I int32 | int64](dst, src []T, ix []I, r pointRun, maxStart, stride, wrap int64, fill T) {
	if r.ds == 1 && r.ss == 0 && r.is == 1 && stride == 1 {
		// Contiguous indices and results: no stride arithmetic, the
		// bounds known to the compiler, the wrap off the in-range path.
		x, s := ix[r.i0:r.i0+r.n], src[r.s0:r.s0+int(maxStart)+1]
		d := dst[r.d0 : r.d0+len(x)]
		for j, i := range x {
			v := int(i)
			if uint(v) >= uint(len(s)) {
				if v += int(wrap); i >= 0 || uint(v) >= uint(len(s)) {
					d[j] = fill
					continue
				}
			}
			d[j] = s[v]
		}
		return
	}
	for j := range r.n {
		v := int64(ix[r.i0+j*r.is])
		if v < 0 {
			v += wrap
		}
		if uint64(v) > uint64(maxStart) {
			dst[r.d0+j*r.ds] = fill
			continue
		}
		dst[r.d0+j*r.ds] = src[r.s0+j*r.ss+int(v*stride)]
	}
}

// takeTyped's wrap is fastGather.wrap (0 for unsigned indices, which are
// never negative).
func takeTyped[T uint32 | uint64, I int32 | int64 | uint32](dst, src []T, ix []I, r pointRun, maxStart, stride, wrap int64) {
	if r.ds == 1 && r.ss == 0 && r.is == 1 && stride == 1 {
		// Contiguous indices and results (take): no stride arithmetic.
		d, x, s := dst[r.d0:r.d0+r.n], ix[r.i0:r.i0+r.n], src[r.s0:]
		if wrap == 0 {
			for j, i := range x {
				d[j] = s[min(max(int64(i), 0), maxStart)]
			}
			return
		}
		for j, i := range x {
			v := int64(i)
			if v < 0 {
				v += wrap
			}
			d[j] = s[min(max(v, 0), maxStart)]
		}
		return
	}
	for j := range r.n {
		v := int64(ix[r.i0+j*r.is])
		if v < 0 {
			v += wrap
		}
		dst[r.d0+j*r.ds] = src[r.s0+j*r.ss+int(min(max(v, 0), maxStart)*stride)]
	}
}

// move copies the slices at operand offsets o to result offsets d0, d0+ds, ….
func (g *fastGather) move(dst, src []byte, o []int64, d0, ds int) {
	if g.fill != nil {
		for j, so := range o {
			switch {
			case so >= 0 && g.win != nil:
				g.win.execAll(dst, src, d0+j*ds, int(so))
			case so >= 0:
				copy(dst[(d0+j*ds)*g.es:(d0+j*ds+1)*g.es], src[int(so)*g.es:])
			case g.win != nil:
				g.fillWin.execAll(dst, g.fill, d0+j*ds, 0)
			default:
				copy(dst[(d0+j*ds)*g.es:(d0+j*ds+1)*g.es], g.fill)
			}
		}
		return
	}
	if g.win == nil {
		gatherPoints(dst, src, g.es, o, d0, ds)
		return
	}
	for j, so := range o {
		g.win.execAll(dst, src, d0+j*ds, int(so))
	}
}

// runBatched moves slices [lo, hi) of a gather whose numbering is not
// linear (batching dimensions add operand offsets). Along the innermost
// batch dimension every stride is fixed, so each run along it decodes with
// the typed loops of the linear case; an odometer over the outer
// dimensions finds where the next run starts.
func (g *fastGather) runBatched(dst, src, ix []byte, lo, hi int) {
	ib := g.ib
	last := len(ib.shape) - 1
	n := int(ib.shape[last])
	is, os, ps := int(ib.idxSt[last]), int(ib.outSt[last]), ib.opSt[last]
	var coordArr [8]int64
	coord := coordArr[:0]
	if last > len(coordArr) {
		coord = make([]int64, 0, last)
	}
	coord = coord[:last]
	rest := int64(lo / n)
	for d := last - 1; d >= 0; d-- {
		coord[d] = rest % ib.shape[d]
		rest /= ib.shape[d]
	}
	io, oo, op := ib.offsets(int64(lo - lo%n))
	var offs [gatherBlock]int64
	for b := lo; b < hi; {
		j0 := b % n
		o := offs[:min(gatherBlock, n-j0, hi-b)]
		r := pointRun{n: min(n-j0, hi-b), d0: int(oo) + j0*os, ds: os, s0: int(op) + j0*int(ps), ss: int(ps), i0: int(io) + j0*is, is: is}
		if g.take(dst, src, ix, r) {
			b += r.n
		} else {
			g.offsets(o, ix, int(io)+j0*is, is, op+int64(j0)*ps, ps)
			g.move(dst, src, o, int(oo)+j0*os, os)
			b += len(o)
		}
		if b%n != 0 {
			continue
		}
		// Next run: step the odometer over the outer dimensions.
		for d := last - 1; d >= 0; d-- {
			coord[d]++
			io += ib.idxSt[d]
			oo += ib.outSt[d]
			op += ib.opSt[d]
			if coord[d] < ib.shape[d] {
				break
			}
			coord[d] = 0
			io -= ib.idxSt[d] * ib.shape[d]
			oo -= ib.outSt[d] * ib.shape[d]
			op -= ib.opSt[d] * ib.shape[d]
		}
	}
}

// offsets decodes the start indices of len(o) slices, slice j's index
// vector at element i0 + j*is of ix, into operand offsets base + j*step +
// Σ clamp(index component) * stride, each component clamped to
// [0, maxStart] as StableHLO specifies.
func (g *fastGather) offsets(o []int64, ix []byte, i0, is int, base, step int64) {
	if g.fill != nil {
		g.fillOffsets(o, ix, i0, is, base, step)
		return
	}
	for k := range g.vecLen {
		i0, a := i0+k*g.vecSt, runStart{base, step, k == 0}
		m, st := g.maxStart[k], g.stStride[k]
		switch g.idxElem {
		case ir.S32:
			addClampedSigned(o, byteview.As[int32](ix), i0, is, m, st, g.wrap, a)
		case ir.S64:
			addClampedSigned(o, byteview.As[int64](ix), i0, is, m, st, g.wrap, a)
		case ir.S16:
			addClampedSigned(o, byteview.As[int16](ix), i0, is, m, st, g.wrap, a)
		case ir.S8:
			addClampedSigned(o, byteview.As[int8](ix), i0, is, m, st, g.wrap, a)
		case ir.U32:
			addClampedUnsigned(o, byteview.As[uint32](ix), i0, is, m, st, a)
		case ir.U64:
			addClampedUnsigned(o, byteview.As[uint64](ix), i0, is, m, st, a)
		case ir.U16:
			addClampedUnsigned(o, byteview.As[uint16](ix), i0, is, m, st, a)
		default:
			addClampedUnsigned(o, byteview.As[uint8](ix), i0, is, m, st, a)
		}
	}
	if g.vecLen == 0 {
		for j := range o {
			o[j] = base + int64(j)*step
		}
	}
}

// fillOffsets is offsets for a gather with a fill value (one index
// component): -1 for a slice whose index is out of range.
func (g *fastGather) fillOffsets(o []int64, ix []byte, i0, is int, base, step int64) {
	offsetsOrNone(o, ix, g.idxElem, i0, is, g.maxStart[0], g.stStride[0], g.wrap, base, step)
}

// offsetsOrNone sets o[j] to base + j·step + v·stride for the index v at
// ix[i0 + j·is] (element type et; a negative signed v first gets wrap
// added), or to -1 where v lies outside [0, maxStart]: the one decoding of
// single-component indices that fill-mode gathers and point scatters share.
func offsetsOrNone(o []int64, ix []byte, et ir.ElemType, i0, is int, maxStart, stride, wrap, base, step int64) {
	switch et {
	case ir.S32:
		offsetsOrNoneT(o, byteview.As[int32](ix), i0, is, maxStart, stride, wrap, base, step)
	case ir.S64:
		offsetsOrNoneT(o, byteview.As[int64](ix), i0, is, maxStart, stride, wrap, base, step)
	case ir.S16:
		offsetsOrNoneT(o, byteview.As[int16](ix), i0, is, maxStart, stride, wrap, base, step)
	case ir.S8:
		offsetsOrNoneT(o, byteview.As[int8](ix), i0, is, maxStart, stride, wrap, base, step)
	case ir.U32:
		offsetsOrNoneT(o, byteview.As[uint32](ix), i0, is, maxStart, stride, 0, base, step)
	case ir.U64:
		offsetsOrNoneT(o, byteview.As[uint64](ix), i0, is, maxStart, stride, 0, base, step)
	case ir.U16:
		offsetsOrNoneT(o, byteview.As[uint16](ix), i0, is, maxStart, stride, 0, base, step)
	default:
		offsetsOrNoneT(o, byteview.As[uint8](ix), i0, is, maxStart, stride, 0, base, step)
	}
}

func offsetsOrNoneT[I intT](o []int64, ix []I, i0, is int, maxStart, stride, wrap, base, step int64) {
	for j := range o {
		v := int64(ix[i0+j*is])
		if v < 0 {
			v += wrap
		}
		// As unsigned, a negative index and an unsigned one above
		// MaxInt64 both exceed maxStart.
		if uint64(v) > uint64(maxStart) {
			o[j] = -1
			continue
		}
		o[j] = base + int64(j)*step + v*stride
	}
}

// runStart is what the first index component's loop starts each offset
// from (base + j*step); later components add to the offsets in place.
type runStart struct {
	base, step int64
	first      bool
}

func addClampedSigned[I ~int8 | ~int16 | ~int32 | ~int64](o []int64, ix []I, i0, is int, maxStart, stride, wrap int64, a runStart) {
	if a.first {
		for j := range o {
			v := int64(ix[i0+j*is])
			if v < 0 {
				v += wrap
			}
			o[j] = a.base + int64(j)*a.step + min(max(v, 0), maxStart)*stride
		}
		return
	}
	for j := range o {
		v := int64(ix[i0+j*is])
		if v < 0 {
			v += wrap
		}
		o[j] += min(max(v, 0), maxStart) * stride
	}
}

func addClampedUnsigned[I ~uint8 | ~uint16 | ~uint32 | ~uint64](o []int64, ix []I, i0, is int, maxStart, stride int64, a runStart) {
	if a.first {
		for j := range o {
			o[j] = a.base + int64(j)*a.step + int64(min(uint64(ix[i0+j*is]), uint64(maxStart)))*stride
		}
		return
	}
	for j := range o {
		o[j] += int64(min(uint64(ix[i0+j*is]), uint64(maxStart))) * stride
	}
}

// gatherPoints copies element offs[j] of src to element d0 + j*ds of dst.
func gatherPoints(dst, src []byte, es int, offs []int64, d0, ds int) {
	switch es {
	case 1:
		gatherTyped(byteview.As[uint8](dst), byteview.As[uint8](src), offs, d0, ds)
	case 2:
		gatherTyped(byteview.As[uint16](dst), byteview.As[uint16](src), offs, d0, ds)
	case 4:
		gatherTyped(byteview.As[uint32](dst), byteview.As[uint32](src), offs, d0, ds)
	case 8:
		gatherTyped(byteview.As[uint64](dst), byteview.As[uint64](src), offs, d0, ds)
	case 16:
		gatherTyped(byteview.As[[2]uint64](dst), byteview.As[[2]uint64](src), offs, d0, ds)
	default:
		for j, o := range offs {
			d := (d0 + j*ds) * es
			copy(dst[d:d+es], src[int(o)*es:])
		}
	}
}

func gatherTyped[T byteview.Elem](dst, src []T, offs []int64, d0, ds int) {
	for j, o := range offs {
		dst[d0+j*ds] = src[o]
	}
}
