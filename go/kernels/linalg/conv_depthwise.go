package linalg

import "github.com/gojax/gojax/go/internal/workers"

// Depthwise convolutions (every feature group has one input feature, so
// group g's output features g*mult..g*mult+mult-1 read only input feature
// g) run as a direct stencil: per output position, each kernel tap adds
// input row × weight row elementwise over the channels. As per-group GEMMs
// they were C products of K = taps and N = mult, each too small to use a
// micro-kernel and each re-gathering the input.

// convDepth is the stencil plan, resolved at compile time.
type convDepth struct {
	c, mult, ks int
	cm          int     // output features per row: c*mult
	rowBase     []int   // per conv row: lhs offset of its batch
	rowTab      [][]int // per conv row: spatialTab entry of its output position
	outRow      []int   // per conv row: output offset of (batch, position)
	featStr     int     // lhs feature stride
	outFeatStr  int
	wOff        []int // per (tap, output feature), tap-major: rhs offset
}

// buildConvDepth returns the stencil plan for a feature-grouped convolution
// with one input feature per group, nil otherwise. kOutStr is the kernel's
// output-feature stride.
func buildConvDepth(p *convPlan, kOutStr int) *convDepth {
	if p.groups < 2 || p.batchGroup || p.kin != 1 || p.m == 0 || p.n == 0 || p.ks == 0 {
		return nil
	}
	d := &convDepth{c: p.groups, mult: p.n, ks: p.ks, cm: p.groups * p.n, featStr: p.lhsFeatStr, outFeatStr: p.outFeatStr,
		rowBase: make([]int, p.m), rowTab: make([][]int, p.m), outRow: p.outRow}
	for r := range d.rowBase {
		d.rowBase[r] = p.rowBatch[r] * p.lhsBatchStr
		d.rowTab[r] = p.spatialTab[p.rowSpatial[r]]
	}
	// With one input feature, kernelMatrix's K offsets are the taps'.
	d.wOff = make([]int, d.ks*d.cm)
	for kk := 0; kk < d.ks; kk++ {
		for o := 0; o < d.cm; o++ {
			d.wOff[kk*d.cm+o] = p.rhs.rhsK[kk] + o*kOutStr
		}
	}
	return d
}

// runConvDepth computes every output element as its taps' products added in
// ascending tap order to zero, whatever the worker count.
func runConvDepth[T float32 | float64](d *convDepth, lhs, rhs, out []T, par parallelFn, pool func(int) *buf[T]) {
	cm := d.cm
	wb := pool(d.ks * cm)
	defer wb.release()
	w := wb.s[:d.ks*cm]
	for i, off := range d.wOff {
		w[i] = rhs[off]
	}
	direct := d.mult == 1 && d.featStr == 1 && d.outFeatStr == 1
	rows := func(lo, hi int) {
		var tb *buf[T]
		var xe, acc []T
		if !direct {
			tb = pool(2 * cm)
			defer tb.release()
			xe, acc = tb.s[:cm], tb.s[cm:2*cm]
		}
		var taps [3][2]int // pending (lhs offset, weight offset) pairs
		for r := lo; r < hi; r++ {
			base, tab := d.rowBase[r], d.rowTab[r]
			o := acc
			if direct {
				o = out[d.outRow[r]:][:cm]
			}
			clear(o)
			np := 0
			for kk, off := range tab {
				if off < 0 {
					continue
				}
				if direct {
					taps[np] = [2]int{base + off, kk * cm}
					if np++; np == 3 {
						axpy3(o, lhs, w, &taps)
						np = 0
					}
					continue
				}
				for c := 0; c < d.c; c++ {
					v := lhs[base+off+c*d.featStr]
					for j := range d.mult {
						xe[c*d.mult+j] = v
					}
				}
				wk := w[kk*cm:][:len(o)]
				xe = xe[:len(o)]
				for i := range o {
					o[i] += xe[i] * wk[i]
				}
			}
			for t := 0; t < np; t++ {
				x, wk := lhs[taps[t][0]:][:len(o)], w[taps[t][1]:][:len(o)]
				for i := range o {
					o[i] += x[i] * wk[i]
				}
			}
			if !direct {
				ob := d.outRow[r]
				for i, v := range o {
					out[ob+i*d.outFeatStr] = v
				}
			}
		}
	}
	if m := len(d.rowBase); m*d.ks*cm < 1<<15 {
		rows(0, m)
	} else {
		par(m, max(1, (1<<14)/(d.ks*cm)), rows)
	}
}

// axpy3 adds three taps' products to o in tap order, loading and storing
// o once.
func axpy3[T float32 | float64](o, lhs, w []T, taps *[3][2]int) {
	n := len(o)
	x0, x1, x2 := lhs[taps[0][0]:][:n], lhs[taps[1][0]:][:n], lhs[taps[2][0]:][:n]
	w0, w1, w2 := w[taps[0][1]:][:n], w[taps[1][1]:][:n], w[taps[2][1]:][:n]
	for i := range o {
		s := o[i]
		s += x0[i] * w0[i]
		s += x1[i] * w1[i]
		s += x2[i] * w2[i]
		o[i] = s
	}
}

// The weight gradient of a depthwise convolution is a batch-grouped
// convolution with one output feature per group: group g's kernel
// positions are output rows, each summing input × cotangent over every
// batch element and position. As per-group GEMMs that is C matrix-vector
// products (N = 1); here all groups advance together as vectors, and all
// output rows share each pass over the operands (each cotangent vector is
// loaded once for every row it meets), so both operands stream once.

// convBGVec is that plan, for unit group strides (channel-minor layouts).
type convBGVec struct {
	g, kin, ks int
	rowBase    []int   // per conv row: lhs offset of its batch within group 0
	rowTab     [][]int // per conv row: spatialTab entry of its output position
	outRow     []int
	featStr    int
	rhsK       []int // per (input feature, tap), feature-major: rhs offset
}

// bgVecAcc bounds the accumulators (rows × groups of one task) so they
// stay in L1; bgVecMin is the fewest groups a task takes.
const (
	bgVecAcc = 1 << 12
	bgVecMin = 16
)

func buildConvBGVec(p *convPlan, rhsGroupStr int) *convBGVec {
	if !p.batchGroup || p.n != 1 || p.outBatch*p.lhsBatchStr != 1 || rhsGroupStr != 1 || p.outFeatStr != 1 ||
		p.m == 0 || p.k == 0 || p.m*min(p.groups, bgVecMin) > bgVecAcc {
		return nil
	}
	v := &convBGVec{g: p.groups, kin: p.kin, ks: p.ks, featStr: p.lhsFeatStr, rhsK: p.rhs.rhsK, outRow: p.outRow,
		rowBase: make([]int, p.m), rowTab: make([][]int, p.m)}
	for r := range v.rowBase {
		v.rowBase[r] = p.rowBatch[r] * p.lhsBatchStr
		v.rowTab[r] = p.spatialTab[p.rowSpatial[r]]
	}
	return v
}

// runConvBGVec sums each output element's products in ascending (input
// feature, tap) order, whatever the worker count.
func runConvBGVec[T float32 | float64](v *convBGVec, lhs, rhs, out []T, par parallelFn, pool func(int) *buf[T]) {
	m := len(v.rowBase)
	// One task per worker where the accumulators allow: long vectors
	// amortise the loop overhead per (feature, tap, row).
	chunk := max(bgVecMin, min(roundUp(ceilDiv(v.g, workers.Count()), 8), bgVecAcc/m))
	par(ceilDiv(v.g, chunk), 1, func(lo, hi int) {
		ab := pool(m * chunk)
		defer ab.release()
		for ch := lo; ch < hi; ch++ {
			g0 := ch * chunk
			w := min(chunk, v.g-g0)
			acc := ab.s[:m*w]
			clear(acc)
			for f := range v.kin {
				for kk := range v.ks {
					y := rhs[v.rhsK[f*v.ks+kk]+g0:][:w]
					for r, tab := range v.rowTab {
						off := tab[kk]
						if off < 0 {
							continue
						}
						x := lhs[v.rowBase[r]+f*v.featStr+off+g0:][:w]
						a := acc[r*w : (r+1)*w]
						for i := range a {
							a[i] += x[i] * y[i]
						}
					}
				}
			}
			for r := range m {
				copy(out[v.outRow[r]+g0:][:w], acc[r*w:(r+1)*w])
			}
		}
	})
}
