package reduce

import (
	"encoding/binary"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/lowerutil"
)

// windowGeom is the geometry of reduce_window / select_and_scatter: for every
// dim, which input coordinate each (output index, window position) reads, or
// -1 for padding (edge padding or base-dilation holes).
type windowGeom struct {
	rank     int
	inShape  []int64
	outShape []int64
	win      []int64
	tab      [][]int32 // tab[d][o*win[d]+w]
	inSt     []int64
	outSt    []int64
	winN     int // elements per window
	scanDim  int // >= 0: the window is a forward cumulative scan along this dim
	// Interior windows (no padding, no base dilation) read base + rel[w];
	// start[d][o] is the first input coordinate, or -1 when o's window along
	// d touches padding. nil when any base dilation is not 1.
	start [][]int32
	rel   []int
}

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

// newWindowGeom checks the attributes against in/out shapes and builds tables.
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
	g := &windowGeom{rank: r, inShape: in, outShape: out, win: win, winN: 1}
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
		t := make([]int32, out[d]*win[d])
		for o := range out[d] {
			for w := range win[d] {
				q := o*strides[d] + w*winDil[d] - lo[d]
				c := int32(-1)
				if q >= 0 && q%baseDil[d] == 0 && q/baseDil[d] < in[d] {
					c = int32(q / baseDil[d])
				}
				t[o*win[d]+w] = c
			}
		}
		g.tab = append(g.tab, t)
		g.winN *= int(win[d])
	}
	g.buildInterior(baseDil, winDil)
	return g, nil
}

func (g *windowGeom) buildInterior(baseDil, winDil []int64) {
	for _, b := range baseDil {
		if b != 1 {
			return
		}
	}
	g.start = make([][]int32, g.rank)
	for d := range g.rank {
		w := g.win[d]
		s := make([]int32, g.outShape[d])
		for o := range g.outShape[d] {
			s[o] = g.tab[d][o*w]
			for k := range w {
				if g.tab[d][o*w+k] < 0 {
					s[o] = -1
					break
				}
			}
		}
		g.start[d] = s
	}
	g.rel = make([]int, 0, g.winN)
	for w := range g.winN {
		off, rem := 0, w
		for d := g.rank - 1; d >= 0; d-- {
			k := int64(rem) % g.win[d]
			rem /= int(g.win[d])
			off += int(k * winDil[d] * g.inSt[d])
		}
		g.rel = append(g.rel, off)
	}
}

// interiorBase returns the input offset of output o's window when it lies
// fully inside the input, and false otherwise.
func (g *windowGeom) interiorBase(o int64) (int, bool) {
	if g.start == nil {
		return 0, false
	}
	base := 0
	for d := g.rank - 1; d >= 0; d-- {
		n := g.outShape[d]
		s := g.start[d][o%n]
		o /= n
		if s < 0 {
			return 0, false
		}
		base += int(int64(s) * g.inSt[d])
	}
	return base, true
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
}

func (g *windowGeom) scratch() *windowScratch {
	return &windowScratch{oidx: make([]int64, g.rank), widx: make([]int64, g.rank)}
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
	for {
		off := int64(0)
		for d := range r {
			c := g.tab[d][sc.oidx[d]*g.win[d]+sc.widx[d]]
			if c < 0 {
				off = -1
				break
			}
			off += int64(c) * g.inSt[d]
		}
		fn(off)
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
	}
}

// forwardScanDim reports the cumulative-reduction shape JAX emits on CPU: one
// dim with a full-length window padded n-1 on the low side, every other
// dim a unit window, no strides or dilations. It returns that dim or -1.
func forwardScanDim(op *ir.Op, in []int64) int {
	r := len(in)
	win, _ := op.Attrs.I64s("window_dimensions")
	for _, name := range []string{"window_strides", "base_dilations", "window_dilations"} {
		if v, ok := op.Attrs.I64s(name); ok {
			for _, x := range v {
				if x != 1 {
					return -1
				}
			}
		}
	}
	lo, hi, err := readPadding(op, r)
	if err != nil || len(win) != r {
		return -1
	}
	dim := -1
	for d := range r {
		switch {
		case win[d] == 1 && lo[d] == 0 && hi[d] == 0:
		case win[d] == in[d] && in[d] > 1 && lo[d] == in[d]-1 && hi[d] == 0 && dim < 0:
			dim = d
		default:
			return -1
		}
	}
	return dim
}
