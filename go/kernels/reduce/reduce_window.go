package reduce

import (
	"bytes"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/lowerutil"
	"github.com/gojax/gojax/go/kernels/kernel"
)

func init() {
	kernel.Register("stablehlo.reduce_window", lowerReduceWindow)
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
	g.scanDim = forwardScanDim(op, in0.Shape)
	if n == 1 {
		if kind := binaryBody(op.Regions[0], elems[0]); kind != opNone {
			if tk := newTyped(elems[0], kind); tk != nil {
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
			for o := lo; o < hi; o++ {
				if view != nil {
					if base, ok := g.interiorBase(int64(o)); ok {
						t.st.store(out, o, t.f.foldAt(init, view(in), base, g.rel))
						continue
					}
				}
				acc = init
				g.forWindow(int64(o), sc, fold)
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

// scan computes out[i] = init ⊕ in[0] ⊕ … ⊕ in[i] along g.scanDim.
func (t *typed[A]) scan(ctx kernel.Context, g *windowGeom, in, out []byte, init A) {
	d := g.scanDim
	n := int(g.inShape[d])
	inner := int(g.inSt[d])
	lines := int(lowerutil.Numel(g.inShape)) / max(1, n)
	work := func(lo, hi int) {
		var buf [1]A
		for l := lo; l < hi; l++ {
			base := (l/inner)*n*inner + l%inner
			acc := init
			for i := range n {
				p := base + i*inner
				if t.st.view != nil {
					acc = t.f.comb(acc, t.st.view(in)[p])
				} else {
					t.st.load(buf[:], in, p)
					acc = t.f.comb(acc, buf[0])
					if t.st.round != nil {
						acc = t.st.round(acc)
					}
				}
				t.st.store(out, p, acc)
			}
		}
	}
	if ctx == nil || lines < 2 || lines*n < parallelMin {
		work(0, lines)
		return
	}
	ctx.Parallel(lines, max(1, parallelMin/n), work)
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
