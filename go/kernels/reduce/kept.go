package reduce

import (
	"runtime"

	"github.com/gojax/gojax/go/kernels/kernel"
)

// Inner-kept layout (sums along leading axes): outputs come in contiguous
// rows of lk; each output is a fold of rn input rows, vecRows at a time in
// order, the folds combined by a balanced tree over the row index (vecTree).
// Every output's tree depends only on rn, so the blocking and the split
// across workers below change speed, never bits.

// keptWidth caps a column strip so that its accumulator (16 KB of float32)
// stays in L1 while every input row is read in one long contiguous run,
// which the hardware prefetcher streams (512-column strips of a 4096-wide
// array, 2 KB pieces 16 KB apart, got about half the memory bandwidth).
const keptWidth = 4096

// keptGeom is how runInnerKept cuts the work: strips of width columns
// (chunks per output row of lk), each strip's tree cut into 2^depth parts.
type keptGeom struct {
	lk, chunks, width, strips, depth int
}

// strip returns strip s's output row k, first column c0 and width w.
func (g *keptGeom) strip(s int) (k, c0, w int) {
	k, c := s/g.chunks, s%g.chunks
	c0 = c * g.width
	return k, c0, min(g.width, g.lk-c0)
}

func (r *fastReducer[A]) runInnerKept(ctx kernel.Context, in, out []byte, init A) {
	l := &r.lay
	g := keptGeom{lk: l.kShape[len(l.kShape)-1]}
	chunks := (g.lk + keptWidth - 1) / keptWidth
	g.width = ((g.lk+chunks-1)/chunks + 63) &^ 63 // balanced strips, whole vectors
	g.chunks = (g.lk + g.width - 1) / g.width
	g.strips = l.kn / g.lk * g.chunks
	if ctx == nil || l.kn*l.rn < parallelMin {
		r.keptStrips(&g, in, out, init, 0, g.strips)
		return
	}
	// Too few strips to keep the workers busy: cut each strip's tree at
	// depth d too, into parts (its 2^d subtrees), a few per worker, so that
	// every worker streams whole rows; a part keeps parallelMin inputs.
	procs := runtime.GOMAXPROCS(0)
	for g.strips<<g.depth < 4*procs && l.rn>>g.depth > vecRows && (l.rn>>(g.depth+1))*min(g.width, g.lk) >= parallelMin {
		g.depth++
	}
	if g.depth == 0 {
		r.claim(ctx, g.strips, procs, func(s int, sc *scratch[A]) {
			r.keptStrip(&g, in, out, init, s, sc)
		})
		return
	}
	r.keptParts(ctx, &g, in, out, init, procs)
}

// keptStrips computes strips [lo, hi) whole.
func (r *fastReducer[A]) keptStrips(g *keptGeom, in, out []byte, init A, lo, hi int) {
	sc := r.getScratch()
	for s := lo; s < hi; s++ {
		r.keptStrip(g, in, out, init, s, sc)
	}
	r.pool.Put(sc)
}

func (r *fastReducer[A]) keptStrip(g *keptGeom, in, out []byte, init A, s int, sc *scratch[A]) {
	k, c0, w := g.strip(s)
	dst := r.vec(sc, 0, w)
	r.vecTree(in, r.stripBase(k, c0), 0, r.lay.rn, dst, 1, sc)
	r.storeKept(out, g.lk, k, c0, dst, init)
}

func (r *fastReducer[A]) storeKept(out []byte, lk, k, c0 int, v []A, init A) {
	if r.st.plain {
		// init combined with each result by the op's slice loop (acc(dst,
		// src) is dst = comb(dst, src) element by element).
		o := r.st.view(out)[k*lk+c0:][:len(v)]
		for j := range o {
			o[j] = init
		}
		r.f.acc(o, v)
		return
	}
	for j, x := range v {
		r.st.store(out, k*lk+c0+j, r.f.comb(init, x))
	}
}

// keptParts computes each strip's 2^depth subtrees in parallel, then the
// top depth levels of its tree over them.
func (r *fastReducer[A]) keptParts(ctx kernel.Context, g *keptGeom, in, out []byte, init A, procs int) {
	parts := 1 << g.depth
	sc := r.getScratch()
	if need := g.strips * parts * g.width; cap(sc.parts) < need {
		sc.parts = kernel.Make[A](need)
	}
	buf := sc.parts[:g.strips*parts*g.width]
	part := func(s, p int) []A {
		_, _, w := g.strip(s)
		return buf[(s*parts+p)*g.width:][:w]
	}
	r.claim(ctx, g.strips*parts, procs, func(u int, wsc *scratch[A]) {
		s, p := u/parts, u%parts
		k, c0, _ := g.strip(s)
		// Descend the tree along p's bits, most significant first.
		rlo, rhi := 0, r.lay.rn
		for b := g.depth - 1; b >= 0; b-- {
			if mid := rlo + (rhi-rlo)/2; p>>b&1 == 1 {
				rlo = mid
			} else {
				rhi = mid
			}
		}
		r.vecTree(in, r.stripBase(k, c0), rlo, rhi, part(s, p), 1, wsc)
	})
	// The top levels, in place: part lo ends up holding parts [lo, hi).
	var top func(s, lo, hi int)
	top = func(s, lo, hi int) {
		if hi-lo == 1 {
			return
		}
		mid := lo + (hi-lo)/2
		top(s, lo, mid)
		top(s, mid, hi)
		r.f.acc(part(s, lo), part(s, mid))
	}
	for s := range g.strips {
		top(s, 0, parts)
		k, c0, _ := g.strip(s)
		r.storeKept(out, g.lk, k, c0, part(s, 0), init)
	}
	r.pool.Put(sc)
}

// stripBase is the input offset of strip (k, c0)'s first row.
func (r *fastReducer[A]) stripBase(k, c0 int) int {
	l := &r.lay
	last := len(l.kShape) - 1
	return offset(k, l.kShape[:last], l.kStride[:last]) + c0
}

// vec returns scratch vector number level, w long.
func (r *fastReducer[A]) vec(sc *scratch[A], level, w int) []A {
	for len(sc.vecs) <= level {
		sc.vecs = append(sc.vecs, nil)
	}
	if cap(sc.vecs[level]) < w {
		sc.vecs[level] = kernel.Make[A](w)
	}
	return sc.vecs[level][:w]
}

func (r *fastReducer[A]) loadRow(in []byte, off int, dst []A, sc *scratch[A]) []A {
	if r.st.view != nil {
		return r.st.view(in)[off : off+len(dst)]
	}
	if cap(sc.conv) < len(dst) {
		sc.conv = kernel.Make[A](len(dst))
	}
	buf := sc.conv[:len(dst)]
	r.st.load(buf, in, off)
	return buf
}

func (r *fastReducer[A]) vecTree(in []byte, base, lo, hi int, dst []A, level int, sc *scratch[A]) {
	l := &r.lay
	if hi-lo <= vecRows {
		if r.rows != nil && r.st.view != nil && len(l.rShape) == 1 && hi-lo > 1 {
			// One reduced dim: rows lo.. are evenly spaced in the input;
			// dst starts as row lo, as the copy below would make it.
			st := l.rStride[0]
			r.rows(dst, r.st.view(in)[base+lo*st:], st, hi-lo, true)
			return
		}
		copy(dst, r.loadRow(in, base+offset(lo, l.rShape, l.rStride), dst, sc))
		for i := lo + 1; i < hi; i++ {
			r.f.acc(dst, r.loadRow(in, base+offset(i, l.rShape, l.rStride), dst, sc))
		}
		return
	}
	mid := lo + (hi-lo)/2
	r.vecTree(in, base, lo, mid, dst, level+1, sc)
	tmp := r.vec(sc, level, len(dst))
	r.vecTree(in, base, mid, hi, tmp, level+1, sc)
	r.f.acc(dst, tmp)
}
