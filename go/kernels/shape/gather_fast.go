package shape

import (
	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/lowerutil"
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
		maxStart: maxStart, stStride: stStride, es: es}
	if winElems != 1 {
		g.win = win
	}
	if !ok {
		g.ib, g.lb.count = ib, int(ib.count)
	}
	return g
}

func (g *fastGather) run(ctx kernel.Context, dst, src, ix []byte) {
	work := func(lo, hi int) {
		var offs, outs [gatherBlock]int64
		for b := lo; b < hi; b += gatherBlock {
			o := offs[:min(gatherBlock, hi-b)]
			if g.ib != nil {
				g.batchOffsets(o, outs[:len(o)], ix, b)
				if g.win == nil {
					gatherPointsAt(dst, src, g.es, o, outs[:len(o)])
					continue
				}
				for j, so := range o {
					g.win.execAll(dst, src, int(outs[j]), int(so))
				}
				continue
			}
			g.offsets(o, ix, b)
			if g.win == nil {
				gatherPoints(dst, src, g.es, o, b*g.lb.outSt, g.lb.outSt)
				continue
			}
			for j, so := range o {
				g.win.execAll(dst, src, (b+j)*g.lb.outSt, int(so))
			}
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

// batchOffsets finds the operand and result offsets of slices b.. through
// the indexBatch (batching dimensions add operand offsets).
func (g *fastGather) batchOffsets(o, out []int64, ix []byte, b int) {
	ib := g.ib
	// An odometer over the batch dimensions: one division per dimension
	// per block, then increments.
	var coordArr [8]int64
	coord := coordArr[:0]
	if len(ib.shape) > len(coordArr) {
		coord = make([]int64, 0, len(ib.shape))
	}
	coord = coord[:len(ib.shape)]
	rest := int64(b)
	for d := len(ib.shape) - 1; d >= 0; d-- {
		coord[d] = rest % ib.shape[d]
		rest /= ib.shape[d]
	}
	io, oo, op := ib.offsets(int64(b))
	for j := range o {
		if j > 0 {
			for d := len(coord) - 1; d >= 0; d-- {
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
		so := op
		for k := range g.vecLen {
			s := lowerutil.ReadIndex(ix, g.idxElem, int(io+int64(k)*int64(g.vecSt)))
			if g.idxElem == ir.U64 && s < 0 {
				s = g.maxStart[k] // above MaxInt64 as an unsigned value
			}
			so += min(max(s, 0), g.maxStart[k]) * g.stStride[k]
		}
		o[j], out[j] = so, oo
	}
}

// offsets decodes the start indices of slices b.. into operand offsets,
// each component clamped to [0, maxStart] as StableHLO specifies.
func (g *fastGather) offsets(o []int64, ix []byte, b int) {
	for k := range g.vecLen {
		i0, first := b*g.lb.ixSt+k*g.vecSt, k == 0
		m, st := g.maxStart[k], g.stStride[k]
		switch g.idxElem {
		case ir.S32:
			addClampedSigned(o, byteview.As[int32](ix), i0, g.lb.ixSt, m, st, first)
		case ir.S64:
			addClampedSigned(o, byteview.As[int64](ix), i0, g.lb.ixSt, m, st, first)
		case ir.S16:
			addClampedSigned(o, byteview.As[int16](ix), i0, g.lb.ixSt, m, st, first)
		case ir.S8:
			addClampedSigned(o, byteview.As[int8](ix), i0, g.lb.ixSt, m, st, first)
		case ir.U32:
			addClampedUnsigned(o, byteview.As[uint32](ix), i0, g.lb.ixSt, m, st, first)
		case ir.U64:
			addClampedUnsigned(o, byteview.As[uint64](ix), i0, g.lb.ixSt, m, st, first)
		case ir.U16:
			addClampedUnsigned(o, byteview.As[uint16](ix), i0, g.lb.ixSt, m, st, first)
		default:
			addClampedUnsigned(o, byteview.As[uint8](ix), i0, g.lb.ixSt, m, st, first)
		}
	}
}

func addClampedSigned[I ~int8 | ~int16 | ~int32 | ~int64](o []int64, ix []I, i0, is int, maxStart, stride int64, first bool) {
	for j := range o {
		v := min(max(int64(ix[i0+j*is]), 0), maxStart) * stride
		if first {
			o[j] = v
		} else {
			o[j] += v
		}
	}
}

func addClampedUnsigned[I ~uint8 | ~uint16 | ~uint32 | ~uint64](o []int64, ix []I, i0, is int, maxStart, stride int64, first bool) {
	for j := range o {
		v := int64(min(uint64(ix[i0+j*is]), uint64(maxStart))) * stride
		if first {
			o[j] = v
		} else {
			o[j] += v
		}
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

// gatherPointsAt copies element offs[j] of src to element at[j] of dst.
func gatherPointsAt(dst, src []byte, es int, offs, at []int64) {
	switch es {
	case 1:
		gatherTypedAt(byteview.As[uint8](dst), byteview.As[uint8](src), offs, at)
	case 2:
		gatherTypedAt(byteview.As[uint16](dst), byteview.As[uint16](src), offs, at)
	case 4:
		gatherTypedAt(byteview.As[uint32](dst), byteview.As[uint32](src), offs, at)
	case 8:
		gatherTypedAt(byteview.As[uint64](dst), byteview.As[uint64](src), offs, at)
	case 16:
		gatherTypedAt(byteview.As[[2]uint64](dst), byteview.As[[2]uint64](src), offs, at)
	default:
		for j, o := range offs {
			copy(dst[int(at[j])*es:int(at[j]+1)*es], src[int(o)*es:])
		}
	}
}

func gatherTypedAt[T byteview.Elem](dst, src []T, offs, at []int64) {
	for j, o := range offs {
		dst[at[j]] = src[o]
	}
}
