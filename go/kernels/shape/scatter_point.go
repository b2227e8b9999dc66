package shape

import (
	"math"

	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/internal/workers"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// Scatters of single elements addressed by one index each (bincount,
// histograms, segment_sum over a vector, embedding-row gradients of width
// one) spent most of their time finding each update's place one index at a
// time through the general window machinery. The point path decodes a
// block of indices into operand offsets with one typed loop, then combines
// the block's updates with another, in update order, so results are those
// of the general path bit for bit.

// pointFn combines src[u0 + i*us] into dst[offs[i]] for every offs[i] >= 0,
// in order of i.
type pointFn func(dst, src []byte, offs []int64, u0, us int)

// pointScatter is the plan of a point scatter.
type pointScatter struct {
	lb       linearBatch // update numbering (outSt: stride in the updates)
	ixElem   ir.ElemType
	maxStart int64 // largest valid index
	opStride int64 // operand elements per index step
	wrap     int64 // indexBatch.wrap
	combine  pointFn
	identity []byte // one element: combining it changes nothing; nil where order matters
	outElems int    // operand elements
	fused    fusedPointFn
}

// pointBlock is how many offsets are decoded at a time.
const pointBlock = 1024

// newPointScatter returns the point plan of a scatter whose windows are
// single elements and whose index vectors have one component, when the
// update number maps linearly onto indices and updates (no batching
// dimensions) and op has a point combiner for et; else nil.
func newPointScatter(ib *indexBatch, kind string, et ir.ElemType, maxStart, opStride int64) *pointScatter {
	if ib.vecLen != 1 || ib.count == 0 || maxStart < 0 {
		return nil
	}
	combine := pointFnFor(kind, et)
	if combine == nil {
		return nil
	}
	lb, ok := linearize(ib)
	if !ok {
		return nil
	}
	p := &pointScatter{lb: lb, ixElem: ib.idxElem, maxStart: maxStart, opStride: opStride, wrap: ib.wrap, combine: combine,
		identity: pointIdentity(kind, et), outElems: int(maxStart*opStride) + 1}
	if lb.ixSt == 1 && fusedPoints {
		p.fused = fusedPointsFor(kind, et, ib.idxElem, maxStart, opStride, ib.wrap)
	}
	return p
}

// run applies every update of upd at the indices of ix to out.
func (p *pointScatter) run(ctx kernel.Context, out, upd, ix []byte) {
	if parts := p.parts(ctx); parts > 1 {
		p.runParts(ctx, parts, out, upd, ix)
		return
	}
	p.apply(out, upd, ix, 0, p.lb.count)
}

// apply combines updates [lo, hi) into out, in order.
func (p *pointScatter) apply(out, upd, ix []byte, lo, hi int) {
	if p.fused != nil {
		p.fused(out, upd, ix, lo, hi, p.lb.outSt)
		return
	}
	// Sized to the updates: the block escapes (combine is a func value),
	// and a full one per call dominated one-element scatters in loops.
	offs := make([]int64, min(pointBlock, hi-lo))
	for b := lo; b < hi; b += pointBlock {
		o := offs[:min(pointBlock, hi-b)]
		p.offsets(o, ix, b)
		p.combine(out, upd, o, b*p.lb.outSt, p.lb.outSt)
	}
}

// pointPartMin is the fewest updates a part of a split point scatter takes.
const pointPartMin = 1 << 16

// parts is how many parts the updates split into (1: run serially). Only
// ops whose result does not depend on the order of the updates split
// (integer ops; float max and min, whose NaN and signed-zero rules make
// them so), and only when the operand is small next to the updates: each
// part but the first folds into a copy of it (bincount, histograms,
// segment_max).
func (p *pointScatter) parts(ctx kernel.Context) int {
	if ctx == nil || p.identity == nil {
		return 1
	}
	// No more parts than workers: each part starts from identities, and
	// raising them takes updates that a longer part would mostly drop
	// (segment_max's vector loop skips updates below the current values).
	n := min(8, workers.Count(), p.lb.count/pointPartMin)
	for n > 1 && n*p.outElems > p.lb.count/4 {
		n--
	}
	return max(n, 1)
}

// runParts folds part 0 of the updates into out and each later part into
// its own operand-sized buffer of identities, concurrently, then folds the
// buffers into out in part order.
func (p *pointScatter) runParts(ctx kernel.Context, parts int, out, upd, ix []byte) {
	es := len(p.identity)
	bufs := make([][]byte, parts)
	size := (p.lb.count + parts - 1) / parts
	ctx.Parallel(parts, 1, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			dst := out
			if k > 0 {
				dst = make([]byte, p.outElems*es)
				for j := 0; j < len(dst); j += es {
					copy(dst[j:j+es], p.identity)
				}
				bufs[k] = dst
			}
			p.apply(dst, upd, ix, k*size, min(p.lb.count, (k+1)*size))
		}
	})
	all := make([]int64, p.outElems)
	for j := range all {
		all[j] = int64(j)
	}
	for _, b := range bufs[1:] {
		p.combine(out, b, all, 0, 1)
	}
}

// pointIdentity returns one element of et that kind's combine leaves
// unchanged (x op e = x), for the kinds whose result does not depend on the
// order of the updates; else nil.
func pointIdentity(kind string, et ir.ElemType) []byte {
	e := make([]byte, et.ByteSize())
	switch {
	case et == ir.F32 || et == ir.F64:
		inf := math.Inf(-1)
		switch kind {
		case "stablehlo.maximum":
		case "stablehlo.minimum":
			inf = math.Inf(1)
		default:
			return nil // float sums and products depend on the order
		}
		if et == ir.F32 {
			byteview.As[float32](e)[0] = float32(inf)
		} else {
			byteview.As[float64](e)[0] = inf
		}
		return e
	case !et.IsInteger() || len(e) == 0 || et.Bits() != 8*len(e):
		return nil
	}
	top := len(e) - 1 // little-endian: the sign byte
	switch kind {
	case "stablehlo.add", "stablehlo.or", "stablehlo.xor":
	case "stablehlo.multiply":
		e[0] = 1
	case "stablehlo.and":
		for i := range e {
			e[i] = 0xff
		}
	case "stablehlo.maximum": // the lowest value
		if et.IsSigned() {
			e[top] = 0x80
		}
	case "stablehlo.minimum": // the highest value
		for i := range e {
			e[i] = 0xff
		}
		if et.IsSigned() {
			e[top] = 0x7f
		}
	default:
		return nil
	}
	return e
}

// offsets decodes the indices of updates lo.. into operand offsets, -1
// for an index outside [0, maxStart] (XLA skips such an update).
func (p *pointScatter) offsets(o []int64, ix []byte, lo int) {
	offsetsOrNone(o, ix, p.ixElem, lo*p.lb.ixSt, p.lb.ixSt, p.maxStart, p.opStride, p.wrap, 0, 0)
}

// pointFnFor returns the point combiner of the update computation kind for
// et, or nil (the general path then runs).
func pointFnFor(kind string, et ir.ElemType) pointFn {
	if kind == "replace" {
		switch et.ByteSize() {
		case 1:
			return replacePoints[uint8]
		case 2:
			return replacePoints[uint16]
		case 4:
			return replacePoints[uint32]
		case 8:
			return replacePoints[uint64]
		case 16:
			return replacePoints[[2]uint64]
		}
		return nil
	}
	switch et {
	case ir.F32:
		return floatPoints[float32](kind)
	case ir.F64:
		return floatPoints[float64](kind)
	case ir.S8:
		return intPoints[int8](kind)
	case ir.S16:
		return intPoints[int16](kind)
	case ir.S32:
		return intPoints[int32](kind)
	case ir.S64:
		return intPoints[int64](kind)
	case ir.U8:
		return intPoints[uint8](kind)
	case ir.U16:
		return intPoints[uint16](kind)
	case ir.U32:
		return intPoints[uint32](kind)
	case ir.U64:
		return intPoints[uint64](kind)
	case ir.C64:
		if kind == "stablehlo.add" {
			return addPoints[complex64]
		}
	case ir.C128:
		if kind == "stablehlo.add" {
			return addPoints[complex128]
		}
	}
	return nil
}

func floatPoints[T ~float32 | ~float64](kind string) pointFn {
	switch kind {
	case "stablehlo.add":
		return addPoints[T]
	case "stablehlo.multiply":
		return mulPoints[T]
	case "stablehlo.maximum":
		return maxPointsF[T]
	case "stablehlo.minimum":
		return minPointsF[T]
	}
	return nil
}

func intPoints[T intT](kind string) pointFn {
	switch kind {
	case "stablehlo.add":
		return addPoints[T]
	case "stablehlo.multiply":
		return mulPoints[T]
	case "stablehlo.maximum":
		return maxPoints[T]
	case "stablehlo.minimum":
		return minPoints[T]
	case "stablehlo.and":
		return func(dst, src []byte, offs []int64, u0, us int) {
			D, S := byteview.As[T](dst), byteview.As[T](src)
			for i, o := range offs {
				if o >= 0 {
					D[o] &= S[u0+i*us]
				}
			}
		}
	case "stablehlo.or":
		return func(dst, src []byte, offs []int64, u0, us int) {
			D, S := byteview.As[T](dst), byteview.As[T](src)
			for i, o := range offs {
				if o >= 0 {
					D[o] |= S[u0+i*us]
				}
			}
		}
	case "stablehlo.xor":
		return func(dst, src []byte, offs []int64, u0, us int) {
			D, S := byteview.As[T](dst), byteview.As[T](src)
			for i, o := range offs {
				if o >= 0 {
					D[o] ^= S[u0+i*us]
				}
			}
		}
	}
	return nil
}

// replacePoints stores each update (the last one wins where indices repeat).
func replacePoints[T byteview.Elem](dst, src []byte, offs []int64, u0, us int) {
	D, S := byteview.As[T](dst), byteview.As[T](src)
	for i, o := range offs {
		if o >= 0 {
			D[o] = S[u0+i*us]
		}
	}
}

func addPoints[T numT](dst, src []byte, offs []int64, u0, us int) {
	D, S := byteview.As[T](dst), byteview.As[T](src)
	for i, o := range offs {
		if o >= 0 {
			D[o] += S[u0+i*us]
		}
	}
}

func mulPoints[T numT](dst, src []byte, offs []int64, u0, us int) {
	D, S := byteview.As[T](dst), byteview.As[T](src)
	for i, o := range offs {
		if o >= 0 {
			D[o] *= S[u0+i*us]
		}
	}
}

func maxPoints[T intT](dst, src []byte, offs []int64, u0, us int) {
	D, S := byteview.As[T](dst), byteview.As[T](src)
	for i, o := range offs {
		if o >= 0 {
			D[o] = max(D[o], S[u0+i*us])
		}
	}
}

func minPoints[T intT](dst, src []byte, offs []int64, u0, us int) {
	D, S := byteview.As[T](dst), byteview.As[T](src)
	for i, o := range offs {
		if o >= 0 {
			D[o] = min(D[o], S[u0+i*us])
		}
	}
}

// maxPointsF and minPointsF follow maxRowF and minRowF: NaN wins, -0 < +0.
func maxPointsF[T ~float32 | ~float64](dst, src []byte, offs []int64, u0, us int) {
	D, S := byteview.As[T](dst), byteview.As[T](src)
	for i, o := range offs {
		if o >= 0 {
			if v, m := S[u0+i*us], D[o]; v > m || v != v || (v == m && isNegZero(m)) {
				D[o] = v
			}
		}
	}
}

func minPointsF[T ~float32 | ~float64](dst, src []byte, offs []int64, u0, us int) {
	D, S := byteview.As[T](dst), byteview.As[T](src)
	for i, o := range offs {
		if o >= 0 {
			if v, m := S[u0+i*us], D[o]; v < m || v != v || (v == m && isNegZero(v)) {
				D[o] = v
			}
		}
	}
}
