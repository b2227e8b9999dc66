package reduce

import (
	"encoding/binary"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/lowerutil"
)

// windowGeom is the geometry of reduce_window / select_and_scatter. It holds
// only per-dim attributes (O(rank)): which input coordinate an (output index,
// window position) pair reads is computed when the kernel runs, so lowering a
// huge window (a cumulative sum over millions of elements) costs nothing.
type windowGeom struct {
	rank     int
	inShape  []int64
	outShape []int64
	win      []int64
	strides  []int64
	lo       []int64 // low padding
	baseDil  []int64
	winDil   []int64
	inSt     []int64
	outSt    []int64
	winN     int  // elements per window
	noHoles  bool // every base dilation is 1
	scanDim  int  // >= 0: the window is a cumulative scan along this dim
	scanRev  bool // the scan runs from the end of the axis (padding on the high side)
	// directOut: results may be written through the storage view (false
	// for sub-byte types, whose store renormalizes).
	directOut bool
	kind      opKind // the recognised body op of a typed kernel (opNone otherwise)
	// pool: the window folds whole channel blocks (pool.go); nil otherwise.
	pool *poolForm
	// rel[w] is the input offset of window position w from the window's
	// first element, for windows lying inside the input; nil when windows
	// are large (maxRel), which then take the general walk.
	rel []int
	// Outputs whose coordinate along every d lies in [inLo[d], inHi[d])
	// have windows inside the input, starting at Σ idx[d]*baseMul[d] - baseOff.
	inLo, inHi, baseMul []int64
	baseOff             int64
}

// maxRel bounds the window sizes that get a rel table: pooling windows are
// small, and a table as long as a cumulative window would defeat the point.
const maxRel = 1 << 12

// readPadding accepts padding as a flattened integer list or an Nx2 i64 tensor.
func readPadding(op *ir.Op, rank int) (lo, hi []int64, err error) {
	lo, hi = make([]int64, rank), make([]int64, rank)
	a, ok := op.Attrs["padding"]
	if !ok {
		return lo, hi, nil
	}
	var flat []int64
	switch v := a.(type) {
	case ir.DenseI64Attr:
		flat = v.Values
	case *ir.ElementsAttr:
		if v.Type == nil || !v.Type.Elem.IsInteger() || v.Type.Elem.ByteSize() != 8 {
			return nil, nil, op.Errorf("padding %s is not an i64 tensor", v)
		}
		for i := range int(v.Type.NumElements()) {
			flat = append(flat, int64(binary.LittleEndian.Uint64(v.Data[8*i:])))
		}
	default:
		return nil, nil, op.Errorf("padding attribute %s has an unexpected form", a)
	}
	if len(flat) != 2*rank {
		return nil, nil, op.Errorf("padding has %d values for rank %d", len(flat), rank)
	}
	for d := range rank {
		lo[d], hi[d] = flat[2*d], flat[2*d+1]
	}
	return lo, hi, nil
}

// dimsOr reads an optional per-dim list, defaulting every entry to def.
func dimsOr(op *ir.Op, name string, rank int, def int64) ([]int64, error) {
	v, err := lowerutil.OptI64s(op, name)
	if err != nil {
		return nil, err
	}
	if v == nil {
		v = make([]int64, rank)
		for i := range v {
			v[i] = def
		}
	}
	if len(v) != rank {
		return nil, op.Errorf("%s has %d entries for rank %d", name, len(v), rank)
	}
	for _, x := range v {
		if x < 1 {
			return nil, op.Errorf("%s %v must be positive", name, v)
		}
	}
	return v, nil
}

// newWindowGeom checks the attributes against in/out shapes.
func newWindowGeom(op *ir.Op, in, out []int64, baseDilName string) (*windowGeom, error) {
	r := len(in)
	win, err := lowerutil.I64s(op, "window_dimensions")
	if err != nil {
		return nil, err
	}
	if len(win) != r {
		return nil, op.Errorf("window_dimensions has %d entries for rank %d", len(win), r)
	}
	strides, err := dimsOr(op, "window_strides", r, 1)
	if err != nil {
		return nil, err
	}
	baseDil := make([]int64, r)
	for i := range baseDil {
		baseDil[i] = 1
	}
	if baseDilName != "" {
		if baseDil, err = dimsOr(op, baseDilName, r, 1); err != nil {
			return nil, err
		}
	}
	winDil := make([]int64, r)
	for i := range winDil {
		winDil[i] = 1
	}
	if baseDilName != "" {
		if winDil, err = dimsOr(op, "window_dilations", r, 1); err != nil {
			return nil, err
		}
	}
	lo, hi, err := readPadding(op, r)
	if err != nil {
		return nil, err
	}
	g := &windowGeom{rank: r, inShape: in, outShape: out, win: win, strides: strides, lo: lo,
		baseDil: baseDil, winDil: winDil, winN: 1, noHoles: true, scanDim: -1}
	g.inSt = stridesOf(in)
	g.outSt = stridesOf(out)
	for d := range r {
		if win[d] < 0 {
			return nil, op.Errorf("negative window dimension %v", win)
		}
		padded := lo[d] + hi[d]
		if in[d] > 0 {
			padded += (in[d]-1)*baseDil[d] + 1
		}
		dw := int64(0)
		if win[d] > 0 {
			dw = (win[d]-1)*winDil[d] + 1
		}
		want := int64(0)
		if padded >= dw {
			want = (padded-dw)/strides[d] + 1
		}
		if want != out[d] {
			return nil, op.Errorf("result dim %d is %d, window gives %d", d, out[d], want)
		}
		if baseDil[d] != 1 {
			g.noHoles = false
		}
		g.winN = satMul(g.winN, win[d])
	}
	if g.noHoles && g.winN > 0 && g.winN <= maxRel {
		g.rel = make([]int, 0, g.winN)
		for w := range g.winN {
			off, rem := 0, w
			for d := r - 1; d >= 0; d-- {
				k := int64(rem) % win[d]
				rem /= int(win[d])
				off += int(k * winDil[d] * g.inSt[d])
			}
			g.rel = append(g.rel, off)
		}
		g.setInterior()
	}
	return g, nil
}

// satMul multiplies window sizes, saturating so a huge window product only
// disables the size-based choices instead of overflowing.
func satMul(a int, b int64) int {
	const lim = 1 << 40
	if b != 0 && int64(a) > lim/b {
		return lim
	}
	return a * int(b)
}

// coord returns the input coordinate along d that window position w of
// output index o reads, or -1 for padding or a base-dilation hole.
func (g *windowGeom) coord(d int, o, w int64) int64 {
	q := o*g.strides[d] + w*g.winDil[d] - g.lo[d]
	if q < 0 {
		return -1
	}
	if b := g.baseDil[d]; b != 1 {
		if q%b != 0 {
			return -1
		}
		q /= b
	}
	if q >= g.inShape[d] {
		return -1
	}
	return q
}

// interiorBase returns the input offset of output o's window when it lies
// fully inside the input (and a rel table exists), and false otherwise.
func (g *windowGeom) interiorBase(o int64) (int, bool) {
	idx := make([]int64, g.rank)
	g.unravelOut(o, idx)
	return g.interiorAt(idx)
}

// unravelOut writes output o's coordinates into idx (zeros when the
// output is empty).
func (g *windowGeom) unravelOut(o int64, idx []int64) {
	for d := g.rank - 1; d >= 0; d-- {
		n := g.outShape[d]
		if n == 0 {
			clear(idx)
			return
		}
		idx[d] = o % n
		o /= n
	}
}

// nextOut advances idx to the next output in row-major order.
func (g *windowGeom) nextOut(idx []int64) {
	for d := g.rank - 1; d >= 0; d-- {
		idx[d]++
		if idx[d] < g.outShape[d] {
			return
		}
		idx[d] = 0
	}
}

// interiorAt is interiorBase for output coordinates idx: comparisons
// against the per-dim interior ranges, no divisions.
func (g *windowGeom) interiorAt(idx []int64) (int, bool) {
	if g.rel == nil {
		return 0, false
	}
	base := -g.baseOff
	for d, i := range idx {
		if i < g.inLo[d] || i >= g.inHi[d] {
			return 0, false
		}
		base += i * g.baseMul[d]
	}
	return int(base), true
}

// setInterior computes, per dim, the output range whose windows lie inside
// the input: o*stride - lo >= 0 and o*stride - lo + span <= in-1.
func (g *windowGeom) setInterior() {
	r := g.rank
	g.inLo, g.inHi, g.baseMul = make([]int64, r), make([]int64, r), make([]int64, r)
	for d := range r {
		s := g.strides[d]
		span := (g.win[d] - 1) * g.winDil[d]
		lo := max(0, ceilDiv(g.lo[d], s))
		hi := int64(0)
		if num := g.inShape[d] - 1 - span + g.lo[d]; num >= 0 {
			hi = min(g.outShape[d], num/s+1)
		}
		g.inLo[d], g.inHi[d] = lo, max(lo, hi)
		g.baseMul[d] = s * g.inSt[d]
		g.baseOff += g.lo[d] * g.inSt[d]
	}
}

// ceilDiv rounds a/b up for b > 0 and any sign of a.
func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a > 0 {
		q++
	}
	return q
}

func stridesOf(shape []int64) []int64 {
	s := make([]int64, len(shape))
	acc := int64(1)
	for i := len(shape) - 1; i >= 0; i-- {
		s[i] = acc
		acc *= shape[i]
	}
	return s
}

// windowScratch holds the per-output decomposition and a window walker.
type windowScratch struct {
	oidx []int64
	widx []int64
	off  []int64 // off[d]: input offset of dims < d+1 at the walker's position, -1 for padding
}

func (g *windowGeom) scratch() *windowScratch {
	return &windowScratch{oidx: make([]int64, g.rank), widx: make([]int64, g.rank), off: make([]int64, g.rank)}
}

// forWindow calls fn(inputOffset) for every position of output o's window in
// row-major window order; inputOffset is -1 for padding.
func (g *windowGeom) forWindow(o int64, sc *windowScratch, fn func(off int64)) {
	r := g.rank
	for d := r - 1; d >= 0; d-- {
		n := g.outShape[d]
		sc.oidx[d] = o % n
		o /= n
	}
	if r == 0 {
		fn(0)
		return
	}
	if g.winN == 0 {
		return
	}
	for d := range sc.widx {
		sc.widx[d] = 0
	}
	// Prefix offsets are recomputed only from the outermost dim that moved,
	// so the innermost window dim costs one coordinate per position.
	from := 0
	for {
		for d := from; d < r; d++ {
			prev := int64(0)
			if d > 0 {
				prev = sc.off[d-1]
			}
			c := g.coord(d, sc.oidx[d], sc.widx[d])
			if prev < 0 || c < 0 {
				sc.off[d] = -1
			} else {
				sc.off[d] = prev + c*g.inSt[d]
			}
		}
		fn(sc.off[r-1])
		d := r - 1
		for ; d >= 0; d-- {
			sc.widx[d]++
			if sc.widx[d] < g.win[d] {
				break
			}
			sc.widx[d] = 0
		}
		if d < 0 {
			return
		}
		from = d
	}
}

// runsOK reports whether forWindowRuns applies: along the innermost dim the
// window has no dilation and the input no holes, so windows read runs of
// consecutive elements.
func (g *windowGeom) runsOK() bool {
	r := g.rank
	return r > 0 && g.winDil[r-1] == 1 && g.baseDil[r-1] == 1
}

// forWindowRuns visits output o's window as forWindow does, in the same
// order, but a call fn(off, k) covers k consecutive positions of the
// innermost window dim: input offsets off, off+1, …, off+k-1, or k padding
// positions when off < 0. Only valid when runsOK.
func (g *windowGeom) forWindowRuns(o int64, sc *windowScratch, fn func(off int64, k int)) {
	r := g.rank
	g.unravelOut(o, sc.oidx)
	if g.winN == 0 {
		return
	}
	last := r - 1
	wn := g.win[last]
	q0 := sc.oidx[last]*g.strides[last] - g.lo[last]
	wLo := min(wn, max(0, -q0))
	wHi := max(wLo, min(wn, g.inShape[last]-q0))
	clear(sc.widx)
	for {
		off := int64(0)
		for d := range last {
			c := g.coord(d, sc.oidx[d], sc.widx[d])
			if c < 0 {
				off = -1
				break
			}
			off += c * g.inSt[d]
		}
		if off < 0 {
			fn(-1, int(wn))
		} else {
			if wLo > 0 {
				fn(-1, int(wLo))
			}
			if wHi > wLo {
				fn(off+q0+wLo, int(wHi-wLo)) // the innermost input stride is 1
			}
			if wn > wHi {
				fn(-1, int(wn-wHi))
			}
		}
		if !nextWindow(sc.widx, g.win, last) {
			return
		}
	}
}

// scanForm reports the cumulative-reduction shape JAX emits on CPU: one dim
// with a full-length window padded n-1 on the low side (a forward scan) or on
// the high side (reverse), every other dim a unit window, no strides or
// dilations. It returns that dim, or -1, and whether the scan is reversed.
func scanForm(op *ir.Op, in []int64) (int, bool) {
	r := len(in)
	win, _ := op.Attrs.I64s("window_dimensions")
	for _, name := range []string{"window_strides", "base_dilations", "window_dilations"} {
		if v, ok := op.Attrs.I64s(name); ok {
			for _, x := range v {
				if x != 1 {
					return -1, false
				}
			}
		}
	}
	lo, hi, err := readPadding(op, r)
	if err != nil || len(win) != r {
		return -1, false
	}
	dim, rev := -1, false
	for d := range r {
		switch {
		case win[d] == 1 && lo[d] == 0 && hi[d] == 0:
		case win[d] == in[d] && in[d] > 1 && lo[d] == in[d]-1 && hi[d] == 0 && dim < 0:
			dim = d
		case win[d] == in[d] && in[d] > 1 && lo[d] == 0 && hi[d] == in[d]-1 && dim < 0:
			dim, rev = d, true
		default:
			return -1, false
		}
	}
	return dim, rev
}

// nextWindow steps widx, the window offsets of dimensions 0..last-1, like an
// odometer over win (the last of them fastest); false once every position
// has been visited.
func nextWindow(widx, win []int64, last int) bool {
	for d := last - 1; d >= 0; d-- {
		widx[d]++
		if widx[d] < win[d] {
			return true
		}
		widx[d] = 0
	}
	return false
}
