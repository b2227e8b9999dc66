package reduce

import (
	"runtime"
	"sync"

	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/floatconv"
	"github.com/gojax/gojax/go/kernels/kernel"
)

const (
	segLen      = 1 << 13 // fixed leaf length along a contiguous reduced run
	vecRows     = 32      // rows folded sequentially before pairwise combining
	convChunk   = 256     // elements converted at a time for f16/bf16 inputs
	parallelMin = 1 << 15 // elements below which a reduction runs serially
	claimElems  = 1 << 18 // inputs per unit that workers claim one at a time
)

// storage converts between gojax buffers and the accumulator type A.
type storage[A any] struct {
	// view reinterprets a buffer as []A; nil when the storage type differs.
	view func(b []byte) []A
	// load converts len(dst) elements starting at element off.
	load  func(dst []A, b []byte, off int)
	store func(b []byte, i int, v A)
	// round rounds an accumulator to the storage precision (nil when A is
	// the storage type). Window ops apply it after every step, as XLA does.
	round func(A) A
	// plain: store writes through view unchanged, so results can be
	// computed in the output buffer with the slice loops.
	plain bool
}

func directStorage[A byteview.Elem]() storage[A] {
	return storage[A]{
		view:  byteview.As[A],
		load:  func(dst []A, b []byte, off int) { copy(dst, byteview.As[A](b)[off:]) },
		store: func(b []byte, i int, v A) { byteview.As[A](b)[i] = v },
		plain: true,
	}
}

// fastReducer is the single-operand reduction with a recognized body.
// Results never depend on how ctx.Parallel splits the work: every output is
// computed with the same tree of partial results.
type fastReducer[A any] struct {
	lay  layout
	f    opFuncs[A]
	st   storage[A]
	rows func(dst, src []A, stride, rows int, set bool) // f.acc over many rows; may be nil
	pool sync.Pool                                      // *scratch[A]
}

type scratch[A any] struct {
	conv  []A
	vecs  [][]A
	parts []A
}

func (r *fastReducer[A]) getScratch() *scratch[A] {
	if s, ok := r.pool.Get().(*scratch[A]); ok {
		return s
	}
	return &scratch[A]{conv: make([]A, convChunk)}
}

func (r *fastReducer[A]) step(ctx kernel.Context) kernel.Step {
	l := &r.lay
	return func(ins, outs [][]byte) error {
		in, out := ins[0], outs[0]
		init := r.readInit(ins[1])
		if l.kn == 0 {
			return nil
		}
		if l.rn == 0 {
			for k := range l.kn {
				r.st.store(out, k, init)
			}
			return nil
		}
		if l.innerReduced {
			r.runInnerReduced(ctx, in, out, init)
		} else {
			r.runInnerKept(ctx, in, out, init)
		}
		return nil
	}
}

func (r *fastReducer[A]) readInit(b []byte) A {
	var v [1]A
	r.st.load(v[:], b, 0)
	return v[0]
}

// Inner-reduced layout: each output reduces rows of length L (contiguous);
// rows are cut into fixed segments, combined by a balanced tree over the
// segment index.
func (r *fastReducer[A]) segs() (L, bpr, nseg int) {
	l := &r.lay
	last := len(l.rShape) - 1
	L = l.rShape[last]
	bpr = (L + segLen - 1) / segLen
	return L, bpr, (l.rn / L) * bpr
}

func (r *fastReducer[A]) leafSeg(in []byte, kOff, s int, sc *scratch[A]) A {
	l := &r.lay
	L, bpr, _ := r.segs()
	last := len(l.rShape) - 1
	row, b := s/bpr, s%bpr
	off := kOff + offset(row, l.rShape[:last], l.rStride[:last]) + b*segLen
	n := min(segLen, L-b*segLen)
	if r.st.view != nil {
		return r.f.leaf(r.st.view(in)[off : off+n])
	}
	var acc A
	for c := 0; c < n; c += convChunk {
		m := min(convChunk, n-c)
		buf := sc.conv[:m]
		r.st.load(buf, in, off+c)
		v := r.f.leaf(buf)
		if c == 0 {
			acc = v
		} else {
			acc = r.f.comb(acc, v)
		}
	}
	return acc
}

func (r *fastReducer[A]) tree(lo, hi int, leaf func(s int) A) A {
	if hi-lo == 1 {
		return leaf(lo)
	}
	mid := lo + (hi-lo)/2
	return r.f.comb(r.tree(lo, mid, leaf), r.tree(mid, hi, leaf))
}

// rowsAt stores outputs [lo, hi) when output k reduces the rows starting
// at input offset k*stride (one kept dim): runInnerReduced's common case
// and RowReduce.
func (r *fastReducer[A]) rowsAt(in, out []byte, init A, lo, hi, stride int, sc *scratch[A]) {
	L, _, nseg := r.segs()
	if nseg == 1 && r.st.view != nil {
		// One contiguous run per output at a fixed stride: no index math.
		v := r.st.view(in)
		for k := lo; k < hi; k++ {
			off := k * stride
			r.st.store(out, k, r.f.comb(init, r.f.leaf(v[off:off+L])))
		}
		return
	}
	for k := lo; k < hi; k++ {
		v := r.tree(0, nseg, func(s int) A { return r.leafSeg(in, k*stride, s, sc) })
		r.st.store(out, k, r.f.comb(init, v))
	}
}

func (r *fastReducer[A]) runInnerReduced(ctx kernel.Context, in, out []byte, init A) {
	l := &r.lay
	_, _, nseg := r.segs()
	total := l.kn * l.rn
	perOut := func(lo, hi int, sc *scratch[A]) {
		if len(l.kShape) == 1 {
			r.rowsAt(in, out, init, lo, hi, l.kStride[0], sc)
			return
		}
		for k := lo; k < hi; k++ {
			kOff := offset(k, l.kShape, l.kStride)
			v := r.tree(0, nseg, func(s int) A { return r.leafSeg(in, kOff, s, sc) })
			r.st.store(out, k, r.f.comb(init, v))
		}
	}
	switch {
	case ctx == nil || total < parallelMin:
		sc := r.getScratch()
		perOut(0, l.kn, sc)
		r.pool.Put(sc)
	case l.kn >= 8 || nseg == 1:
		// Blocks of outputs of about claimElems inputs, claimed in order.
		blk := max(1, claimElems/l.rn)
		units := (l.kn + blk - 1) / blk
		r.claim(ctx, units, runtime.GOMAXPROCS(0), func(u int, sc *scratch[A]) {
			perOut(u*blk, min(l.kn, (u+1)*blk), sc)
		})
	default:
		// Few outputs, long reductions: segments in parallel, then the same tree.
		parts := kernel.Make[A](l.kn * nseg)
		ctx.Parallel(len(parts), max(1, parallelMin/segLen), func(lo, hi int) {
			sc := r.getScratch()
			for u := lo; u < hi; u++ {
				k, s := u/nseg, u%nseg
				parts[u] = r.leafSeg(in, offset(k, l.kShape, l.kStride), s, sc)
			}
			r.pool.Put(sc)
		})
		for k := range l.kn {
			p := parts[k*nseg : (k+1)*nseg]
			v := r.tree(0, nseg, func(s int) A { return p[s] })
			r.st.store(out, k, r.f.comb(init, v))
		}
	}
}

// typed bundles the storage conversion and op functions of one (element
// type, op) pair; its methods build the kernels that use them.
type typed[A any] struct {
	st   storage[A]
	f    opFuncs[A]
	rows func(dst, src []A, stride, rows int, set bool) // see fastReducer.rows
}

// typedKernels is what newTyped returns, whatever A is.
type typedKernels interface {
	reduceStep(ctx kernel.Context, lay layout) kernel.Step
	windowStep(ctx kernel.Context, g *windowGeom) kernel.Step
	combineAt(out []byte, i int, src []byte, j int) error
	fold(es int) func(dst, src []byte)
}

func (t *typed[A]) reduceStep(ctx kernel.Context, lay layout) kernel.Step {
	r := &fastReducer[A]{lay: lay, f: t.f, st: t.st, rows: t.rows}
	return r.step(ctx)
}

// newTyped returns the kernels for et and op, or nil when there is no fast
// path for the pair.
func newTyped(et ir.ElemType, op opKind) typedKernels {
	switch et {
	case ir.F32:
		return mk(op, floatOps[float32], directStorage[float32]())
	case ir.F64:
		return mk(op, floatOps[float64], directStorage[float64]())
	case ir.F16:
		return mk(op, floatOps[float32], f16Storage())
	case ir.BF16:
		return mk(op, floatOps[float32], bf16Storage())
	case ir.S8:
		return mk(op, intOps[int8], directStorage[int8]())
	case ir.S16:
		return mk(op, intOps[int16], directStorage[int16]())
	case ir.S32:
		return mk(op, intOps[int32], directStorage[int32]())
	case ir.S64:
		return mk(op, intOps[int64], directStorage[int64]())
	case ir.U8:
		return mk(op, intOps[uint8], directStorage[uint8]())
	case ir.U16:
		return mk(op, intOps[uint16], directStorage[uint16]())
	case ir.U32:
		return mk(op, intOps[uint32], directStorage[uint32]())
	case ir.U64:
		return mk(op, intOps[uint64], directStorage[uint64]())
	case ir.S1, ir.S2, ir.S4:
		// Sign-extended bytes: wrap-around arithmetic in int8, renormalized on store.
		return mk(op, intOps[int8], subByteStorage[int8](et.Bits(), true))
	case ir.U1, ir.U2, ir.U4:
		return mk(op, intOps[uint8], subByteStorage[uint8](et.Bits(), false))
	case ir.Pred:
		// StableHLO booleans: add and maximum are logical or, multiply and minimum logical and.
		m := map[opKind]opKind{opAdd: opOr, opMul: opAnd, opMax: opOr, opMin: opAnd, opAnd: opAnd, opOr: opOr, opXor: opXor}
		return mk(m[op], intOps[uint8], directStorage[uint8]())
	case ir.C64:
		return mk(op, complexOps[complex64], directStorage[complex64]())
	case ir.C128:
		return mk(op, complexOps[complex128], directStorage[complex128]())
	}
	return nil
}

func mk[A any](op opKind, ops func(opKind) (opFuncs[A], bool), st storage[A]) typedKernels {
	f, ok := ops(op)
	if !ok {
		return nil
	}
	t := &typed[A]{st: st, f: f}
	if op == opAdd {
		t.rows = floatSumRows[A]()
	}
	return t
}

// f16Storage and bf16Storage widen to f32 with the slice conversions.
func f16Storage() storage[float32] {
	return storage[float32]{
		load: func(dst []float32, b []byte, off int) {
			floatconv.F16sToF32(dst, byteview.As[uint16](b)[off:off+len(dst)])
		},
		store: func(b []byte, i int, v float32) { byteview.As[uint16](b)[i] = floatconv.F32ToF16(v) },
		round: func(v float32) float32 { return floatconv.F16ToF32(floatconv.F32ToF16(v)) },
	}
}

func bf16Storage() storage[float32] {
	return storage[float32]{
		load: func(dst []float32, b []byte, off int) {
			floatconv.BF16sToF32(dst, byteview.As[uint16](b)[off:off+len(dst)])
		},
		store: func(b []byte, i int, v float32) { byteview.As[uint16](b)[i] = floatconv.F32ToBF16(v) },
		round: func(v float32) float32 { return floatconv.BF16ToF32(floatconv.F32ToBF16(v)) },
	}
}

func subByteStorage[A int8 | uint8](bits int, signed bool) storage[A] {
	s := directStorage[A]()
	s.plain = false
	shift := 8 - uint(bits)
	s.store = func(b []byte, i int, v A) {
		u := uint8(v) << shift
		if signed {
			b[i] = uint8(int8(u) >> shift)
		} else {
			b[i] = u >> shift
		}
	}
	return s
}
