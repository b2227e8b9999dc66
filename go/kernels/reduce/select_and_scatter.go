package reduce

import (
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/lowerutil"
	"github.com/gojax/gojax/go/kernels/kernel"
)

func init() {
	kernel.RegisterOp("stablehlo.select_and_scatter", lowerSelectAndScatter, kernel.Traits{Cost: func(op *ir.Op) kernel.Work {
		// select runs window size - 1 times per source element, scatter
		// once.
		if len(op.Regions) != 2 || len(op.Operands) != 3 {
			return kernel.Work{}
		}
		win, err := lowerutil.I64s(op, "window_dimensions")
		if err != nil {
			return kernel.Work{}
		}
		n := int64(1)
		for _, w := range win {
			n *= w
		}
		src := kernel.Elements(op.Operands[1])
		sel, sc := kernel.RegionWork(op.Regions[0]).Scaled(src*(n-1)), kernel.RegionWork(op.Regions[1]).Scaled(src)
		return kernel.Work{Flops: sel.Flops + sc.Flops, Transcendentals: sel.Transcendentals + sc.Transcendentals}
	}})
}

// keepFn reports select(operand[cur], operand[cand]): true keeps cur.
type keepFn func(in []byte, cur, cand int) (bool, error)

// nativeSelect recognizes select regions of one compare of (arg0, arg1) and
// returns the equivalent native comparison.
func nativeSelect(r *ir.Region, et ir.ElemType) keepFn {
	dir, ct, swap, ok := selectCompare(r)
	if !ok {
		return nil
	}
	var cmpF func(x, y float64) bool
	var cmpU func(x, y uint64) bool
	switch dir {
	case "GE":
		cmpF, cmpU = func(x, y float64) bool { return x >= y }, func(x, y uint64) bool { return x >= y }
	case "GT":
		cmpF, cmpU = func(x, y float64) bool { return x > y }, func(x, y uint64) bool { return x > y }
	case "LE":
		cmpF, cmpU = func(x, y float64) bool { return x <= y }, func(x, y uint64) bool { return x <= y }
	case "LT":
		cmpF, cmpU = func(x, y float64) bool { return x < y }, func(x, y uint64) bool { return x < y }
	default:
		return nil
	}
	order := func(cur, cand int) (int, int) {
		if swap {
			return cand, cur
		}
		return cur, cand
	}
	switch {
	case (et == ir.F32 || et == ir.F64 || et == ir.F16 || et == ir.BF16) && (ct == "FLOAT" || ct == "NOTYPE" || ct == ""):
		return func(in []byte, cur, cand int) (bool, error) {
			x, y := order(cur, cand)
			a, _ := floatAt(in, et, x)
			bb, _ := floatAt(in, et, y)
			return cmpF(a, bb), nil
		}
	case (et == ir.F32 || et == ir.F64 || et == ir.F16 || et == ir.BF16) && ct == "TOTALORDER":
		k := sortKey{total: true}
		return func(in []byte, cur, cand int) (bool, error) {
			x, y := order(cur, cand)
			return cmpU(uintKey(in, et, x, k), uintKey(in, et, y, k)), nil
		}
	case (et.IsSigned() && ct == "SIGNED") || ((et.IsUnsigned() || et == ir.Pred) && ct == "UNSIGNED"):
		k := sortKey{signed: et.IsSigned()}
		return func(in []byte, cur, cand int) (bool, error) {
			x, y := order(cur, cand)
			return cmpU(uintKey(in, et, x, k), uintKey(in, et, y, k)), nil
		}
	}
	return nil
}

// selectCompare recognizes select regions of one compare of (arg0, arg1)
// and returns its direction, compare type, and whether the compare reads
// the arguments swapped.
func selectCompare(r *ir.Region) (dir, ct string, swap, ok bool) {
	if len(r.Blocks) != 1 {
		return "", "", false, false
	}
	b := r.Blocks[0]
	if len(b.Args) != 2 || len(b.Ops) != 2 {
		return "", "", false, false
	}
	c, ret := b.Ops[0], b.Ops[1]
	if c.Name != "stablehlo.compare" || ret.Name != "stablehlo.return" || len(ret.Operands) != 1 || ret.Operands[0] != c.Results[0] {
		return "", "", false, false
	}
	switch {
	case c.Operands[0] == b.Args[0] && c.Operands[1] == b.Args[1]:
	case c.Operands[0] == b.Args[1] && c.Operands[1] == b.Args[0]:
		swap = true
	default:
		return "", "", false, false
	}
	dir, _ = c.Attrs.Enum("comparison_direction")
	ct, _ = c.Attrs.Enum("compare_type")
	return dir, ct, swap, true
}

// combineFn sets out[i] = scatter(out[i], src[j]).
type combineFn func(out []byte, i int, src []byte, j int) error

func lowerSelectAndScatter(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	if len(op.Operands) != 3 || len(op.Results) != 1 || len(op.Regions) != 2 {
		return nil, op.Errorf("expected operand, source, init_value, 1 result, select and scatter regions")
	}
	in, err := lowerutil.TensorOperand(op, 0)
	if err != nil {
		return nil, err
	}
	src, err := lowerutil.TensorOperand(op, 1)
	if err != nil {
		return nil, err
	}
	init, err := lowerutil.TensorOperand(op, 2)
	if err != nil {
		return nil, err
	}
	out, err := lowerutil.TensorResult(op, 0)
	if err != nil {
		return nil, err
	}
	if init.Rank() != 0 || init.Elem != src.Elem || out.Elem != src.Elem || !lowerutil.SameShape(out.Shape, in.Shape) {
		return nil, op.Errorf("operand %s, source %s, init %s and result %s do not agree", in, src, init, out)
	}
	g, err := newWindowGeom(op, in.Shape, src.Shape, "")
	if err != nil {
		return nil, err
	}
	if sp := newSASPool(op, g, in.Elem, out.Elem); sp != nil {
		return sp.step(ctx, in.Elem), nil
	}
	ies, es := in.Elem.ByteSize(), out.Elem.ByteSize()
	keep := nativeSelect(op.Regions[0], in.Elem)
	if keep == nil {
		sel, err := ctx.CompileRegion(op.Regions[0])
		if err != nil {
			return nil, op.Errorf("compiling select: %v", err)
		}
		keep = func(b []byte, cur, cand int) (bool, error) {
			var res [1]byte
			args := [2][]byte{b[cur*ies : (cur+1)*ies], b[cand*ies : (cand+1)*ies]}
			if err := sel.Call(args[:], [][]byte{res[:]}); err != nil {
				return false, err
			}
			return res[0] != 0, nil
		}
	}
	var combine combineFn
	if kind := binaryBody(op.Regions[1], out.Elem); kind != opNone {
		if tk := newTyped(out.Elem, kind); tk != nil {
			combine = tk.combineAt
		}
	}
	if combine == nil {
		sc, err := ctx.CompileRegion(op.Regions[1])
		if err != nil {
			return nil, op.Errorf("compiling scatter: %v", err)
		}
		combine = func(o []byte, i int, s []byte, j int) error {
			tmp := make([]byte, es)
			if err := sc.Call([][]byte{o[i*es : (i+1)*es], s[j*es : (j+1)*es]}, [][]byte{tmp}); err != nil {
				return err
			}
			copy(o[i*es:], tmp)
			return nil
		}
	}
	nSrc := int(src.NumElements())
	nOut := int(out.NumElements())
	return func(ins, outs [][]byte) error {
		o := outs[0]
		for i := range nOut {
			copy(o[i*es:(i+1)*es], ins[2])
		}
		// Selection is independent per source element (parallel); scattering
		// is serial in source order so overlapping windows stay deterministic.
		chosen := kernel.Make[int64](nSrc)
		var firstErr error
		errOnce := make(chan struct{}, 1)
		work := func(lo, hi int) {
			sc := g.scratch()
			var callErr error
			var cur int64
			visit := func(off int64) {
				if off < 0 || callErr != nil {
					return
				}
				if cur < 0 {
					cur = off
					return
				}
				k, err := keep(ins[0], int(cur), int(off))
				if err != nil {
					callErr = err
					return
				}
				if !k {
					cur = off
				}
			}
			for s := lo; s < hi; s++ {
				cur = -1
				g.forWindow(int64(s), sc, visit)
				chosen[s] = cur
			}
			if callErr != nil {
				select {
				case errOnce <- struct{}{}:
					firstErr = op.Errorf("select: %v", callErr)
				default:
				}
			}
		}
		if ctx == nil || nSrc < 2 || nSrc*max(1, g.winN) < parallelMin {
			work(0, nSrc)
		} else {
			ctx.Parallel(nSrc, max(1, parallelMin/max(1, g.winN)), work)
		}
		if firstErr != nil {
			return firstErr
		}
		for s, c := range chosen {
			if c >= 0 {
				if err := combine(o, int(c), ins[1], s); err != nil {
					return op.Errorf("scatter: %v", err)
				}
			}
		}
		return nil
	}, nil
}

func (t *typed[A]) combineAt(out []byte, i int, src []byte, j int) error {
	var a, b [1]A
	t.st.load(a[:], out, i)
	t.st.load(b[:], src, j)
	t.st.store(out, i, t.f.comb(a[0], b[0]))
	return nil
}
