package reduce

import (
	"github.com/gojax/gojax/go/kernels/elementwise"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// poolForm describes a reduce_window whose trailing dims are a channel
// block: unit window, unit stride, no padding or dilation (NHWC pooling).
// Each output's window then reads, per window position of the leading
// dims, a contiguous run of c channels, and the outputs sharing the
// leading coordinates are c consecutive elements: the kernel folds whole
// channel vectors (f.acc) instead of walking one element's window at a time.
type poolForm struct {
	k    int // dims [k, rank) form the channel block
	c    int // elements per channel block
	rows int // output channel blocks: the product of outShape[:k]
	// tab[d][o*win[d]+w], d < k: the input offset along d that window
	// position w of output coordinate o reads, -1 for padding or a hole.
	tab [][]int64
}

// poolMaxTab bounds a dim's offset table (outputs × window positions);
// windows as long as their dim (cumulative) keep the general walk.
const poolMaxTab = 1 << 16

// poolMinC is the smallest channel block worth the vector fold.
const poolMinC = 4

// poolFormOf returns g's pooling form, or nil when the window has no
// channel block of at least poolMinC elements (the innermost dim is
// windowed, as in NCHW pooling), every dim is in the block, the window
// is empty, or a leading dim's offset table would exceed poolMaxTab.
func poolFormOf(g *windowGeom) *poolForm {
	k := g.rank
	for k > 0 {
		d := k - 1
		if g.win[d] != 1 || g.strides[d] != 1 || g.lo[d] != 0 || g.baseDil[d] != 1 || g.outShape[d] != g.inShape[d] {
			break
		}
		k--
	}
	if k == 0 || k == g.rank || g.winN == 0 {
		return nil
	}
	c, rows := 1, 1
	for d := k; d < g.rank; d++ {
		c *= int(g.inShape[d])
	}
	for d := range k {
		rows *= int(g.outShape[d])
	}
	if c < poolMinC {
		return nil
	}
	tab := make([][]int64, k)
	for d := range k {
		n, w := g.outShape[d], g.win[d]
		if w > poolMaxTab || n*w > poolMaxTab {
			return nil
		}
		tab[d] = make([]int64, n*w)
		for o := range n {
			for j := range w {
				off := g.coord(d, o, j)
				if off >= 0 {
					off *= g.inSt[d]
				}
				tab[d][o*w+j] = off
			}
		}
	}
	return &poolForm{k: k, c: c, rows: rows, tab: tab}
}

// pool computes a reduce_window of pooling form p: for every output channel
// block, init then each window position of the leading dims in row-major
// order (padding and base-dilation holes folding init), each step folding
// the whole block of channels. Every element sees the same sequence of
// operations as in the general walk, so the results are the same bits.
func (t *typed[A]) pool(ctx kernel.Context, g *windowGeom, p *poolForm, in, out []byte, init A) {
	k, C := p.k, p.c
	if p.rows == 0 {
		return
	}
	view, round, comb := t.st.view, t.st.round, t.f.comb
	acc := t.f.acc
	if f := poolMinMaxAcc[A](g.kind); f != nil {
		acc = f
	}
	var zero A
	switch any(zero).(type) {
	case complex64, complex128:
		// As in scan: keep comb's evaluation of complex products.
		acc = func(dst, src []A) {
			for j, v := range src[:len(dst)] {
				dst[j] = comb(dst[j], v)
			}
		}
	}
	direct := view != nil && g.directOut
	var iv, ov []A
	if view != nil {
		iv = view(in)
		if direct {
			ov = view(out)
		}
	}
	work := func(lo, hi int) {
		oidx := make([]int64, k)
		widx := make([]int64, k)
		initRow := make([]A, C)
		for j := range initRow {
			initRow[j] = init
		}
		var tmp, buf []A
		if !direct {
			tmp = make([]A, C)
		}
		if view == nil {
			buf = make([]A, C)
		}
		rem := int64(lo)
		for d := k - 1; d >= 0; d-- {
			oidx[d] = rem % g.outShape[d]
			rem /= g.outShape[d]
		}
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
			dst := tmp
			if direct {
				dst = ov[q*C : (q+1)*C]
			}
			copy(dst, initRow)
			// Dims before the last leading one are walked by widx; the
			// last one's window positions run in the inner loop.
			last := k - 1
			wl := int(g.win[last])
			tl := p.tab[last][int(oidx[last])*wl : (int(oidx[last])+1)*wl]
			clear(widx)
			for {
				base := int64(0)
				for d := range last {
					w := g.win[d]
					c := p.tab[d][oidx[d]*w+widx[d]]
					if c < 0 {
						base = -1
						break
					}
					base += c
				}
				for _, c := range tl {
					var src []A
					switch {
					case base < 0 || c < 0:
						src = initRow
					case view != nil:
						off := base + c
						src = iv[off : off+int64(C)]
					default:
						t.st.load(buf, in, int(base+c))
						src = buf
					}
					if round == nil {
						acc(dst, src)
					} else {
						for j, v := range src {
							dst[j] = round(comb(dst[j], v))
						}
					}
				}
				if !nextWindow(widx, g.win, last) {
					break
				}
			}
			if !direct {
				for j, v := range dst {
					t.st.store(out, q*C+j, v)
				}
			}
		}
	}
	cost := max(1, g.winN) * C
	if ctx == nil || p.rows < 2 || p.rows*cost < parallelMin {
		work(0, p.rows)
		return
	}
	ctx.Parallel(p.rows, max(1, parallelMin/cost), work)
}

// poolMinMaxAcc returns, for float32 and float64 maximum and minimum, an
// accumulate with the builtin max's and min's semantics (elementwise's
// vector loops where the CPU has them): IEEE 754-2019 maximum and
// minimum (NaN propagates, -0 < +0) as maxAccF and minAccF, without their
// data-dependent branches, which mispredict on a pooling window's values
// (4x slower). Only which NaN comes out when two meet may differ, and
// StableHLO leaves that open. nil for other types and ops.
func poolMinMaxAcc[A any](kind opKind) func(dst, src []A) {
	var f any
	var zero A
	switch any(zero).(type) {
	case float32:
		f = minMaxAcc[float32](kind)
	case float64:
		f = minMaxAcc[float64](kind)
	}
	acc, _ := f.(func(dst, src []A))
	return acc
}

func minMaxAcc[E float32 | float64](kind opKind) func(dst, src []E) {
	switch kind {
	case opMax:
		return elementwise.MaxAcc[E]
	case opMin:
		return elementwise.MinAcc[E]
	}
	return nil
}
