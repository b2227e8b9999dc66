package reduce

import (
	"bytes"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/lowerutil"
	"github.com/gojax/gojax/go/kernels/kernel"
)

func init() {
	kernel.RegisterOp("stablehlo.reduce_window", lowerReduceWindow, kernel.Traits{Cost: reduceWindowCost, Storage: true})
}

// reduceWindowCost: the body runs window size - 1 times per result
// element. As in XLA's cost analysis, a window over one padded dimension
// that spans the whole (result) dimension from each element, a cumulative
// reduction, counts as one reduction of that dimension plus the
// broadcast of its partial results.
func reduceWindowCost(op *ir.Op) kernel.Work {
	if len(op.Regions) != 1 || len(op.Operands) == 0 || len(op.Results) == 0 {
		return kernel.Work{}
	}
	out := op.Results[0].StaticTensor()
	win, err := lowerutil.I64s(op, "window_dimensions")
	if out == nil || err != nil || len(win) != out.Rank() {
		return kernel.Work{}
	}
	lo, hi, err := readPadding(op, out.Rank())
	if err != nil {
		return kernel.Work{}
	}
	n := int64(1)
	reduced, padded, scan := 0, 0, -1
	for d, w := range win {
		n *= w
		if w != 1 {
			reduced++
		}
		if lo[d] != 0 || hi[d] != 0 {
			padded++
		}
		if w != 1 && lo[d] != 0 && lo[d] == hi[d] && w == 2*lo[d]+1 {
			scan = d
		}
	}
	count := (n - 1) * out.NumElements()
	if len(op.Results) == 1 && reduced == 1 && padded == 1 && scan >= 0 && lo[scan] == out.Shape[scan]-1 {
		w := out.Shape[scan]
		count = out.NumElements()/w + w - 1
	}
	return kernel.RegionWork(op.Regions[0]).Scaled(count)
}

func lowerReduceWindow(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	n := len(op.Results)
	if n == 0 || len(op.Operands) != 2*n || len(op.Regions) != 1 {
		return nil, op.Errorf("expected N inputs, N init values, N results and a body")
	}
	in0, err := lowerutil.TensorOperand(op, 0)
	if err != nil {
		return nil, err
	}
	out0, err := lowerutil.TensorResult(op, 0)
	if err != nil {
		return nil, err
	}
	elems := make([]ir.ElemType, n)
	for i := range n {
		in, err := lowerutil.TensorOperand(op, i)
		if err != nil {
			return nil, err
		}
		init, err := lowerutil.TensorOperand(op, n+i)
		if err != nil {
			return nil, err
		}
		out, err := lowerutil.TensorResult(op, i)
		if err != nil {
			return nil, err
		}
		if !lowerutil.SameShape(in.Shape, in0.Shape) || !lowerutil.SameShape(out.Shape, out0.Shape) || init.Rank() != 0 ||
			init.Elem != in.Elem || out.Elem != in.Elem {
			return nil, op.Errorf("input %d %s, init %s and result %s do not agree", i, in, init, out)
		}
		elems[i] = in.Elem
	}
	g, err := newWindowGeom(op, in0.Shape, out0.Shape, "base_dilations")
	if err != nil {
		return nil, err
	}
	g.scanDim, g.scanRev = scanForm(op, in0.Shape)
	g.directOut = !subByte(elems[0])
	if n == 1 {
		if kind := binaryBody(op.Regions[0], elems[0]); kind != opNone {
			if tk := newTyped(elems[0], kind); tk != nil {
				g.kind = kind
				g.pool = poolFormOf(g)
				return tk.windowStep(ctx, g), nil
			}
		}
	}
	body, err := ctx.CompileRegion(op.Regions[0])
	if err != nil {
		return nil, op.Errorf("compiling body: %v", err)
	}
	return genericWindow(ctx, op, g, elems, body), nil
}

func (t *typed[A]) windowStep(ctx kernel.Context, g *windowGeom) kernel.Step {
	nOut := int(lowerutil.Numel(g.outShape))
	return func(ins, outs [][]byte) error {
		in, out := ins[0], outs[0]
		var initV [1]A
		t.st.load(initV[:], ins[1], 0)
		init := initV[0]
		if g.scanDim >= 0 && t.idempotent(init) {
			t.scan(ctx, g, in, out, init)
			return nil
		}
		if g.pool != nil {
			t.pool(ctx, g, g.pool, in, out, init)
			return nil
		}
		view := t.st.view
		work := func(lo, hi int) {
			sc := g.scratch()
			var buf [1]A
			var acc A
			round := t.st.round
			fold := func(off int64) {
				if off < 0 {
					acc = t.f.comb(acc, init)
				} else if view != nil {
					acc = t.f.comb(acc, view(in)[off])
				} else {
					t.st.load(buf[:], in, int(off))
					acc = t.f.comb(acc, buf[0])
				}
				if round != nil {
					acc = round(acc) // each body application yields an element-type value
				}
			}
			runs := g.rank > 0 && g.runsOK()
			comb := t.f.comb
			foldRun := func(off int64, k int) {
				switch {
				case off < 0:
					for range k {
						acc = comb(acc, init)
						if round != nil {
							acc = round(acc)
						}
					}
				case view != nil:
					v := view(in)[off : off+int64(k)]
					if g.kind == opAdd && round == nil {
						if a, ok := addRun(acc, v); ok {
							acc = a
							return
						}
					}
					for _, x := range v {
						acc = comb(acc, x)
						if round != nil {
							acc = round(acc)
						}
					}
				default:
					for j := range k {
						t.st.load(buf[:], in, int(off)+j)
						acc = comb(acc, buf[0])
						if round != nil {
							acc = round(acc)
						}
					}
				}
			}
			idx := make([]int64, g.rank)
			g.unravelOut(int64(lo), idx)
			for o := lo; o < hi; o++ {
				if o > lo {
					g.nextOut(idx)
				}
				if view != nil {
					if base, ok := g.interiorAt(idx); ok {
						t.st.store(out, o, t.f.foldAt(init, view(in), base, g.rel))
						continue
					}
				}
				acc = init
				if runs {
					g.forWindowRuns(int64(o), sc, foldRun)
				} else {
					g.forWindow(int64(o), sc, fold)
				}
				t.st.store(out, o, acc)
			}
		}
		if ctx == nil || nOut < 2 || nOut*max(1, g.winN) < parallelMin {
			work(0, nOut)
		} else {
			ctx.Parallel(nOut, max(1, parallelMin/max(1, g.winN)), work)
		}
		return nil
	}
}

// idempotent reports init ⊕ init == init bitwise: then folding the padding
// inits of a cumulative window changes nothing and a running scan gives the
// same sequence of operations as the window definition.
func (t *typed[A]) idempotent(init A) bool {
	var a, b [16]byte
	t.st.store(a[:], 0, init)
	t.st.store(b[:], 0, t.f.comb(init, init))
	return bytes.Equal(a[:], b[:])
}

// A reverse scan groups each window's fold from the end of the axis,
// x[i] ⊕ (x[i+1] ⊕ …), not left to right as the window definition reads.
// Integer and boolean ops are exact under any grouping. Float maximum
// (minimum) still yields the largest (smallest) value with -0 < +0, or the
// last NaN in fold order: the right operand keeps its NaN over x[i]'s.
// Float add and multiply round differently when regrouped, within the same
// error bound (each output folds the same terms); folding every window
// left to right instead costs O(n²) per line (a reverse cumsum of 4096×1024
// took 17 s), and XLA regroups such windows too (into a tree).

// exactlyAssociative reports element types whose fast-path ops (add, mul,
// max, min, and, or, xor; wrapping for integers) are associative and
// commutative bit for bit, so any grouping of a fold gives the same result.
func exactlyAssociative(et ir.ElemType) bool {
	return et == ir.Pred || et.IsSigned() || et.IsUnsigned()
}

// subByte reports element types whose store renormalizes the value, so a
// kernel may not write results through the storage view.
func subByte(et ir.ElemType) bool {
	switch et {
	case ir.S1, ir.S2, ir.S4, ir.U1, ir.U2, ir.U4:
		return true
	}
	return false
}

// scanChunk is how many columns of a scan over a non-innermost dim one task
// carries down the axis: the running row stays in cache between steps.
const scanChunk = 1024

// scan computes out[i] = init ⊕ in[0] ⊕ … ⊕ in[i] along g.scanDim (or, for
// a reverse scan, init ⊕ in[n-1] ⊕ … ⊕ in[i]), folding each output's
// elements in the order the window definition does, in O(n) per line.
func (t *typed[A]) scan(ctx kernel.Context, g *windowGeom, in, out []byte, init A) {
	d := g.scanDim
	n := int(g.inShape[d])
	inner := int(g.inSt[d])
	total := int(lowerutil.Numel(g.inShape))
	if total == 0 {
		return
	}
	outer := total / (n * inner)
	comb, round := t.f.comb, t.st.round
	parallel := func(units, cost int, work func(lo, hi int)) {
		if ctx == nil || units < 2 || units*cost < parallelMin {
			work(0, units)
			return
		}
		ctx.Parallel(units, max(1, parallelMin/max(1, cost)), work)
	}
	view := t.st.view
	if g.scanRev {
		// r = x[i] ⊕ (x[i+1] ⊕ …) from the end of the line (see
		// exactlyAssociative for why the grouping is sound); output i
		// folds init, r, then init again for its i padding positions
		// (once is enough: init is idempotent).
		parallel(outer*inner, n, func(lo, hi int) {
			if g.kind == opAdd && view != nil && round == nil && g.directOut &&
				revAddLines(view(in), view(out), init, n, inner, lo, hi) {
				return
			}
			var buf [1]A
			for l := lo; l < hi; l++ {
				p := (l/inner)*n*inner + l%inner + (n-1)*inner
				var r A
				for i := n - 1; i >= 0; i-- {
					var x A
					if view != nil {
						x = view(in)[p]
					} else {
						t.st.load(buf[:], in, p)
						x = buf[0]
					}
					if i == n-1 {
						r = x
					} else {
						r = comb(x, r)
					}
					v := comb(init, r)
					if i > 0 {
						v = comb(v, init)
					}
					if round != nil {
						v = round(v)
					}
					t.st.store(out, p, v)
					p -= inner
				}
			}
		})
		return
	}
	if view != nil && g.directOut && inner > 1 {
		// Row by row: out[i, :] = out[i-1, :] ⊕ in[i, :], the vector
		// accumulate doing each column's step.
		iv, ov := view(in), view(out)
		acc := t.f.acc
		var zero A
		switch any(zero).(type) {
		case complex64, complex128:
			// The compiler may order a complex product's terms differently
			// in the accumulate loop than in comb, which shows in NaN signs.
			acc = func(dst, src []A) {
				for j, v := range src[:len(dst)] {
					dst[j] = comb(dst[j], v)
				}
			}
		}
		chunks := (inner + scanChunk - 1) / scanChunk
		parallel(outer*chunks, n*min(inner, scanChunk), func(lo, hi int) {
			for u := lo; u < hi; u++ {
				b, c0 := u/chunks, (u%chunks)*scanChunk
				c1 := min(c0+scanChunk, inner)
				base := b*n*inner + c0
				w := c1 - c0
				dst := ov[base : base+w]
				for j := range dst {
					dst[j] = init
				}
				for i := range n {
					p := base + i*inner
					if i > 0 {
						dst = ov[p : p+w]
						copy(dst, ov[p-inner:p-inner+w])
					}
					acc(dst, iv[p:p+w])
				}
			}
		})
		return
	}
	if view != nil && g.directOut {
		iv, ov := view(in), view(out)
		parallel(outer*inner, n, func(lo, hi int) {
			if g.kind == opAdd && addLines(iv, ov, init, n, inner, lo, hi) {
				return
			}
			for l := lo; l < hi; l++ {
				p := (l/inner)*n*inner + l%inner
				acc := init
				for range n {
					acc = comb(acc, iv[p])
					ov[p] = acc
					p += inner
				}
			}
		})
		return
	}
	parallel(outer*inner, n, func(lo, hi int) {
		var buf [1]A
		for l := lo; l < hi; l++ {
			p := (l/inner)*n*inner + l%inner
			acc := init
			for range n {
				if view != nil {
					acc = comb(acc, view(in)[p])
				} else {
					t.st.load(buf[:], in, p)
					acc = comb(acc, buf[0])
				}
				if round != nil {
					acc = round(acc)
				}
				t.st.store(out, p, acc)
				p += inner
			}
		}
	})
}

// addLines runs the scan lines [lo, hi) of a sum with the addition inlined,
// for the common types; it reports false for the others. Each step is the
// same single add as the comb function's, so the bits are the same.
func addLines[A any](iv, ov []A, init A, n, inner, lo, hi int) bool {
	switch iv := any(iv).(type) {
	case []float32:
		addLinesOf(iv, any(ov).([]float32), any(init).(float32), n, inner, lo, hi)
	case []float64:
		addLinesOf(iv, any(ov).([]float64), any(init).(float64), n, inner, lo, hi)
	case []int32:
		addLinesOf(iv, any(ov).([]int32), any(init).(int32), n, inner, lo, hi)
	case []int64:
		addLinesOf(iv, any(ov).([]int64), any(init).(int64), n, inner, lo, hi)
	default:
		return false
	}
	return true
}

func addLinesOf[E float32 | float64 | int32 | int64](iv, ov []E, init E, n, inner, lo, hi int) {
	for l := lo; l < hi; l++ {
		p := (l/inner)*n*inner + l%inner
		acc := init
		for range n {
			acc += iv[p]
			ov[p] = acc
			p += inner
		}
	}
}

// revAddLines is the reverse scan's loop with the additions inlined, for
// the types addLines covers (the same operations in the same order as the
// generic loop); false for the others.
func revAddLines[A any](iv, ov []A, init A, n, inner, lo, hi int) bool {
	switch iv := any(iv).(type) {
	case []float32:
		revAddLinesOf(iv, any(ov).([]float32), any(init).(float32), n, inner, lo, hi)
	case []float64:
		revAddLinesOf(iv, any(ov).([]float64), any(init).(float64), n, inner, lo, hi)
	case []int32:
		revAddLinesOf(iv, any(ov).([]int32), any(init).(int32), n, inner, lo, hi)
	case []int64:
		revAddLinesOf(iv, any(ov).([]int64), any(init).(int64), n, inner, lo, hi)
	default:
		return false
	}
	return true
}

func revAddLinesOf[E float32 | float64 | int32 | int64](iv, ov []E, init E, n, inner, lo, hi int) {
	for l := lo; l < hi; l++ {
		p := (l/inner)*n*inner + l%inner + (n-1)*inner
		var r E
		for i := n - 1; i >= 0; i-- {
			if i == n-1 {
				r = iv[p]
			} else {
				r = iv[p] + r
			}
			v := init + r
			if i > 0 {
				v += init
			}
			ov[p] = v
			p -= inner
		}
	}
}

// addRun folds v into acc left to right with the addition inlined, for the
// types addLines covers; false for the others.
func addRun[A any](acc A, v []A) (A, bool) {
	switch v := any(v).(type) {
	case []float32:
		return any(addRunOf(any(acc).(float32), v)).(A), true
	case []float64:
		return any(addRunOf(any(acc).(float64), v)).(A), true
	case []int32:
		return any(addRunOf(any(acc).(int32), v)).(A), true
	case []int64:
		return any(addRunOf(any(acc).(int64), v)).(A), true
	}
	return acc, false
}

func addRunOf[E float32 | float64 | int32 | int64](acc E, v []E) E {
	for _, x := range v {
		acc += x
	}
	return acc
}

// genericWindow folds each window through the compiled body, padding
// positions contributing the init values, in row-major window order.
func genericWindow(ctx kernel.Context, op *ir.Op, g *windowGeom, elems []ir.ElemType, body kernel.Callable) kernel.Step {
	n := len(elems)
	es := make([]int, n)
	for i, e := range elems {
		es[i] = e.ByteSize()
	}
	nOut := int(lowerutil.Numel(g.outShape))
	return func(ins, outs [][]byte) error {
		if g.scanDim >= 0 && !g.scanRev {
			if done, err := genericScan(ctx, op, g, es, body, ins, outs); done || err != nil {
				return err
			}
		}
		var firstErr error
		errOnce := make(chan struct{}, 1)
		work := func(lo, hi int) {
			sc := g.scratch()
			args := make([][]byte, 2*n)
			cur, next := make([][]byte, n), make([][]byte, n)
			for i := range n {
				cur[i], next[i] = make([]byte, es[i]), make([]byte, es[i])
			}
			var callErr error
			fold := func(off int64) {
				if callErr != nil {
					return
				}
				copy(args, cur)
				for i := range n {
					if off < 0 {
						args[n+i] = ins[n+i]
					} else {
						args[n+i] = ins[i][int(off)*es[i] : int(off+1)*es[i]]
					}
				}
				if callErr = body.Call(args, next); callErr == nil {
					cur, next = next, cur
				}
			}
			for o := lo; o < hi; o++ {
				for i := range n {
					copy(cur[i], ins[n+i])
				}
				g.forWindow(int64(o), sc, fold)
				if callErr != nil {
					select {
					case errOnce <- struct{}{}:
						firstErr = op.Errorf("body: %v", callErr)
					default:
					}
					return
				}
				for i := range n {
					copy(outs[i][o*es[i]:], cur[i])
				}
			}
		}
		if ctx == nil || nOut < 2 || nOut*max(1, g.winN) < 4096 {
			work(0, nOut)
		} else {
			ctx.Parallel(nOut, max(1, 4096/max(1, g.winN)), work)
		}
		return firstErr
	}
}

// genericScan runs a forward cumulative window (cumlogsumexp and other
// scans whose body is not one recognised op) in O(n) per line: output i
// folds init, the window's padding (init again) and x[0..i] left to right,
// which is body(output i-1, x[i]) exactly, provided folding init into
// init gives init. That is checked on this run's init values; it returns
// done = false (the general walk runs) when it does not hold.
func genericScan(ctx kernel.Context, op *ir.Op, g *windowGeom, es []int, body kernel.Callable, ins, outs [][]byte) (bool, error) {
	n := len(es)
	args := make([][]byte, 2*n)
	res := make([][]byte, n)
	for i := range n {
		args[i], args[n+i] = ins[n+i], ins[n+i]
		res[i] = make([]byte, es[i])
	}
	if err := body.Call(args, res); err != nil {
		return false, op.Errorf("body: %v", err)
	}
	for i := range n {
		if !bytes.Equal(res[i], ins[n+i]) {
			return false, nil
		}
	}
	d := g.scanDim
	length := int(g.inShape[d])
	inner := int(g.inSt[d])
	total := int(lowerutil.Numel(g.inShape))
	if total == 0 || length == 0 {
		return true, nil
	}
	lines := total / length // (outer, inner) pairs
	var firstErr error
	errOnce := make(chan struct{}, 1)
	work := func(lo, hi int) {
		args := make([][]byte, 2*n)
		cur, next := make([][]byte, n), make([][]byte, n)
		for i := range n {
			cur[i], next[i] = make([]byte, es[i]), make([]byte, es[i])
		}
		for l := lo; l < hi; l++ {
			p := (l/inner)*length*inner + l%inner
			for i := range n {
				copy(cur[i], ins[n+i])
			}
			for range length {
				copy(args, cur)
				for i := range n {
					args[n+i] = ins[i][p*es[i] : (p+1)*es[i]]
				}
				if err := body.Call(args, next); err != nil {
					select {
					case errOnce <- struct{}{}:
						firstErr = op.Errorf("body: %v", err)
					default:
					}
					return
				}
				cur, next = next, cur
				for i := range n {
					copy(outs[i][p*es[i]:], cur[i])
				}
				p += inner
			}
		}
	}
	if ctx == nil || lines < 2 || lines*length < 4096 {
		work(0, lines)
	} else {
		ctx.Parallel(lines, max(1, 4096/length), work)
	}
	return true, firstErr
}
