package reduce

import (
	"math"

	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// The gradient of NHWC max pooling is a select_and_scatter whose trailing
// dims are a channel block (pool.go's poolForm), whose select is one float
// comparison and whose scatter is an add. The general walk visits one
// source element's window at a time through the per-element window walker
// and a select callback; here every source channel block walks its window
// once, comparing whole channel vectors natively, and when windows do not
// overlap (strides >= window, as in the usual 2x2/2 pooling) every operand
// element receives at most one source element, so the scatter runs in
// parallel with the selection. Each element sees the same comparisons in
// the same order as in the general walk, and the adds happen in source
// order, so the results are the same bits.

// selRel is the relation R of a select region, normalized so that select
// keeps the current element exactly when cur R cand.
type selRel uint8

const (
	relGE selRel = iota
	relGT
	relLE
	relLT
)

// selectFloatRel returns the relation of a select region that is one FLOAT
// (or untyped) comparison of its two arguments, for float32 and float64;
// false otherwise.
func selectFloatRel(r *ir.Region, et ir.ElemType) (selRel, bool) {
	if et != ir.F32 && et != ir.F64 {
		return 0, false
	}
	dir, ct, swap, ok := selectCompare(r)
	if !ok || (ct != "FLOAT" && ct != "NOTYPE" && ct != "") {
		return 0, false
	}
	rel, ok := map[string]selRel{"GE": relGE, "GT": relGT, "LE": relLE, "LT": relLT}[dir]
	if !ok {
		return 0, false
	}
	if swap {
		// cand R cur is cur R' cand with R' the converse (NaN makes both
		// false alike).
		rel = [...]selRel{relLE, relLT, relGE, relGT}[rel]
	}
	return rel, true
}

// sasPool is the select_and_scatter plan of pooling form.
type sasPool struct {
	g       *windowGeom
	p       *poolForm
	rel     selRel
	overlap bool // some operand element lies in two windows: scatter serially
	// tiles: the windows cover the operand exactly once (stride = window,
	// no padding, no remainder), so each window fills its own elements
	// with init while they are in cache instead of a separate pass.
	tiles bool
	nIn   int
}

// newSASPool returns the pooling-form plan, or nil when it does not apply.
func newSASPool(op *ir.Op, g *windowGeom, et, outEt ir.ElemType) *sasPool {
	if et != outEt {
		return nil
	}
	rel, ok := selectFloatRel(op.Regions[0], et)
	if !ok || binaryBody(op.Regions[1], et) != opAdd {
		return nil
	}
	p := poolFormOf(g)
	if p == nil {
		return nil
	}
	s := &sasPool{g: g, p: p, rel: rel, nIn: 1, tiles: true}
	for d := range g.rank {
		s.nIn *= int(g.inShape[d])
		if d < p.k && g.win[d] > g.strides[d] {
			s.overlap = true
		}
		if d < p.k && (g.win[d] != g.strides[d] || g.lo[d] != 0 || g.outShape[d]*g.win[d] != g.inShape[d]) {
			s.tiles = false
		}
	}
	if s.nIn > math.MaxInt32 {
		return nil // selections are kept as int32 offsets
	}
	return s
}

func (s *sasPool) step(ctx kernel.Context, et ir.ElemType) kernel.Step {
	return func(ins, outs [][]byte) error {
		if et == ir.F32 {
			runSASPool(ctx, s, byteview.As[float32](ins[0]), byteview.As[float32](ins[1]), byteview.As[float32](ins[2])[0], byteview.As[float32](outs[0]))
		} else {
			runSASPool(ctx, s, byteview.As[float64](ins[0]), byteview.As[float64](ins[1]), byteview.As[float64](ins[2])[0], byteview.As[float64](outs[0]))
		}
		return nil
	}
}

func runSASPool[E float32 | float64](ctx kernel.Context, s *sasPool, in, src []E, init E, out []E) {
	g, p := s.g, s.p
	k, C := p.k, p.c
	if !s.tiles {
		for i := range out[:s.nIn] {
			out[i] = init
		}
	}
	if p.rows == 0 {
		return
	}
	var chosen []int32
	if s.overlap {
		chosen = make([]int32, p.rows*C)
	}
	work := func(lo, hi int) {
		oidx := make([]int64, k)
		widx := make([]int64, k)
		bi := make([]int32, C)
		rem := int64(lo)
		for d := k - 1; d >= 0; d-- {
			oidx[d] = rem % g.outShape[d]
			rem /= g.outShape[d]
		}
		last := k - 1
		wl := int(g.win[last])
		for q := lo; q < hi; q++ {
			if q > lo {
				for d := k - 1; d >= 0; d-- {
					oidx[d]++
					if oidx[d] < g.outShape[d] {
						break
					}
					oidx[d] = 0
				}
			}
			tl := p.tab[last][int(oidx[last])*wl : (int(oidx[last])+1)*wl]
			first := true
			clear(widx)
			for {
				base := int64(0)
				for d := range last {
					c := p.tab[d][oidx[d]*g.win[d]+widx[d]]
					if c < 0 {
						base = -1
						break
					}
					base += c
				}
				if base >= 0 {
					for _, c := range tl {
						if c < 0 {
							continue // padding is never selected
						}
						off := int(base + c)
						if s.tiles {
							fill := out[off : off+C]
							for j := range fill {
								fill[j] = init
							}
						}
						if first {
							for j := range bi {
								bi[j] = int32(off + j)
							}
							first = false
							continue
						}
						selectRow(s.rel, in, bi, int32(off))
					}
				}
				if !nextWindow(widx, g.win, last) {
					break
				}
			}
			switch {
			case first: // the whole window is padding: nothing selected
				if s.overlap {
					for j := range C {
						chosen[q*C+j] = -1
					}
				}
			case s.overlap:
				copy(chosen[q*C:(q+1)*C], bi)
			default:
				row := src[q*C : (q+1)*C]
				for j, i := range bi {
					out[i] = init + row[j]
				}
			}
		}
	}
	cost := max(1, g.winN) * C
	if ctx == nil || p.rows < 2 || p.rows*cost < parallelMin {
		work(0, p.rows)
	} else {
		ctx.Parallel(p.rows, max(1, parallelMin/cost), work)
	}
	if s.overlap {
		for j, i := range chosen {
			if i >= 0 {
				out[i] += src[j]
			}
		}
	}
}

// selectRow folds one window position into a channel vector's current
// selection: candidate in[off+j] replaces the selected in[bi[j]] unless
// in[bi[j]] R in[off+j]. The current values are read back through bi so that
// only an index moves, which compiles to a conditional move: pooling
// windows' comparisons are unpredictable, and a branch per element
// mispredicts. One loop per relation keeps the comparison inline.
func selectRow[E float32 | float64](rel selRel, in []E, bi []int32, off int32) {
	v := in[off : int(off)+len(bi)]
	switch rel {
	case relGE:
		for j, x := range v {
			c := bi[j]
			if !(in[c] >= x) {
				c = off + int32(j)
			}
			bi[j] = c
		}
	case relGT:
		for j, x := range v {
			c := bi[j]
			if !(in[c] > x) {
				c = off + int32(j)
			}
			bi[j] = c
		}
	case relLE:
		for j, x := range v {
			c := bi[j]
			if !(in[c] <= x) {
				c = off + int32(j)
			}
			bi[j] = c
		}
	case relLT:
		for j, x := range v {
			c := bi[j]
			if !(in[c] < x) {
				c = off + int32(j)
			}
			bi[j] = c
		}
	}
}
