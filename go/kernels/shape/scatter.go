package shape

import (
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/lowerutil"
	"github.com/gojax/gojax/go/kernels/kernel"
)

func init() {
	kernel.RegisterOp("stablehlo.scatter", lowerScatter, kernel.Traits{Cost: scatterCost, Storage: true, StorageShared: []int{0, 2}})
}

// applyRows runs fn over every innermost row of the plan (ignoring tiling).
func (p *copyPlan) applyRows(dst, src []byte, dBase, sBase int, fn rowFn) {
	if p.empty {
		return
	}
	shape, ds, ss := p.shape, p.ds, p.ss
	n := len(shape)
	var idxArr [16]int
	var idx []int
	if n-1 <= len(idxArr) {
		idx = idxArr[:n-1]
	} else {
		idx = make([]int, n-1)
	}
	d, s := dBase, sBase
	for range p.rows {
		fn(dst, src, d, ds[n-1], s, ss[n-1], shape[n-1])
		for k := n - 2; k >= 0; k-- {
			idx[k]++
			d += ds[k]
			s += ss[k]
			if idx[k] < shape[k] {
				break
			}
			d -= ds[k] * shape[k]
			s -= ss[k] * shape[k]
			idx[k] = 0
		}
	}
}

// scatterBody classifies the update computation: replace (returns the update
// arguments), a single commutative binary op (N == 1), or neither ("").
func scatterBody(r *ir.Region, n int) string {
	if len(r.Blocks) != 1 {
		return ""
	}
	b := r.Blocks[0]
	if len(b.Args) != 2*n || len(b.Ops) == 0 {
		return ""
	}
	ret := b.Ops[len(b.Ops)-1]
	if ret.Name != "stablehlo.return" || len(ret.Operands) != n {
		return ""
	}
	if len(b.Ops) == 1 {
		for i, v := range ret.Operands {
			if v != b.Args[n+i] {
				return ""
			}
		}
		return "replace"
	}
	if n != 1 || len(b.Ops) != 2 {
		return ""
	}
	o := b.Ops[0]
	if len(o.Operands) != 2 || len(o.Results) != 1 || ret.Operands[0] != o.Results[0] {
		return ""
	}
	x, y := o.Operands[0], o.Operands[1]
	if !((x == b.Args[0] && y == b.Args[1]) || (x == b.Args[1] && y == b.Args[0])) {
		return ""
	}
	switch o.Name {
	case "stablehlo.add", "stablehlo.multiply", "stablehlo.maximum", "stablehlo.minimum",
		"stablehlo.and", "stablehlo.or", "stablehlo.xor":
		return o.Name
	}
	return ""
}

// SplatUpdatesAttr names the shape attribute of a one-input scatter whose
// updates operand is a single value standing for updates of that shape,
// all equal to it: the compiler sets it where the updates were a
// broadcast of a scalar (bincount's and histograms' ones), so they are
// not materialized.
const SplatUpdatesAttr = "gojax.splat_updates"

// splatShape returns the op's SplatUpdatesAttr shape, nil when absent.
func splatShape(op *ir.Op) ([]int64, error) {
	a, ok := op.Attrs[SplatUpdatesAttr]
	if !ok {
		return nil, nil
	}
	s, isList := a.(ir.DenseI64Attr)
	if !isList || len(op.Results) != 1 || len(op.Operands) != 3 {
		return nil, op.Errorf("%s must be a shape on a one-input scatter, got %v", SplatUpdatesAttr, a)
	}
	if t := op.Operands[2].StaticTensor(); t == nil || t.NumElements() != 1 {
		return nil, op.Errorf("%s: updates %v are not one value", SplatUpdatesAttr, op.Operands[2].Type)
	}
	return append([]int64{}, s.Values...), nil
}

func lowerScatter(ctx kernel.Context, op *ir.Op) (step kernel.Step, err error) {
	n := len(op.Results)
	if n == 0 || len(op.Operands) != 2*n+1 || len(op.Regions) != 1 {
		return nil, op.Errorf("expected N inputs, indices, N updates, N results and an update computation")
	}
	in0, err := lowerutil.TensorOperand(op, 0)
	if err != nil {
		return nil, err
	}
	idx, err := lowerutil.TensorOperand(op, n)
	if err != nil {
		return nil, err
	}
	upd0, err := lowerutil.TensorOperand(op, n+1)
	if err != nil {
		return nil, err
	}
	splat, err := splatShape(op)
	if err != nil {
		return nil, err
	}
	splatRead := false // the step reads the one value itself
	if splat != nil {
		upd0 = ir.Tensor(upd0.Elem, splat...) // the updates it stands for
		defer func() {
			if err == nil && !splatRead {
				step = expandSplat(step, upd0)
			}
		}()
	}
	if !lowerutil.IsIndexType(idx.Elem) {
		return nil, op.Errorf("scatter indices %s are not integers", idx)
	}
	elems := make([]ir.ElemType, n)
	for i := range n {
		in, err := lowerutil.TensorOperand(op, i)
		if err != nil {
			return nil, err
		}
		upd, err := lowerutil.TensorOperand(op, n+1+i)
		if err != nil {
			return nil, err
		}
		if splat != nil {
			upd = upd0
		}
		out, err := lowerutil.TensorResult(op, i)
		if err != nil {
			return nil, err
		}
		if !lowerutil.SameShape(in.Shape, in0.Shape) || !lowerutil.SameShape(upd.Shape, upd0.Shape) || !in.Equal(out) || upd.Elem != in.Elem {
			return nil, op.Errorf("input %d %s, update %s and result %s do not agree", i, in, upd, out)
		}
		elems[i] = in.Elem
	}
	dn, err := readDimNums(op, "update_window_dims", "inserted_window_dims", "input_batching_dims",
		"scatter_indices_batching_dims", "scatter_dims_to_operand_dims")
	if err != nil {
		return nil, err
	}
	unique, err := lowerutil.OptBool(op, "unique_indices")
	if err != nil {
		return nil, err
	}
	ib, winOperand, err := dn.plan(op, in0, idx, upd0)
	if err != nil {
		return nil, err
	}
	if err := ib.readWrap(op); err != nil {
		return nil, err
	}
	opSt, updSt := in0.Strides(), upd0.Strides()
	r := in0.Rank()
	winSize := make([]int64, r)
	for i := range winSize {
		winSize[i] = 1
	}
	winShape := make([]int64, len(winOperand))
	winDst := make([]int64, len(winOperand))
	winSrc := make([]int64, len(winOperand))
	for i, d := range winOperand {
		s := upd0.Shape[dn.windowDims[i]]
		if s > in0.Shape[d] {
			return nil, op.Errorf("update window dim %d (%d) larger than input dim %d (%d)", dn.windowDims[i], s, d, in0.Shape[d])
		}
		winSize[d] = s
		winShape[i] = s
		winDst[i] = opSt[d]
		winSrc[i] = updSt[dn.windowDims[i]]
	}
	// A window is applied only when it fits entirely (XLA drops the whole
	// out-of-bounds window; StableHLO leaves it implementation-defined).
	maxStart := make([]int64, len(dn.startMap))
	stStride := make([]int64, len(dn.startMap))
	for k, d := range dn.startMap {
		maxStart[k] = in0.Shape[d] - winSize[d]
		stStride[k] = opSt[d]
	}
	whole := make([]*copyPlan, n)
	win := make([]*copyPlan, n)
	for i, et := range elems {
		whole[i] = newCopyPlan([]int64{in0.NumElements()}, []int64{1}, []int64{1}, et.ByteSize())
		win[i] = newCopyPlan(winShape, winDst, winSrc, et.ByteSize())
	}
	// start returns the operand offset of batch b's window and its updates
	// offset, or ok=false for a window that does not fit.
	start := func(ix []byte, b int64) (so, uo int64, ok bool) {
		io, uo, so := ib.offsets(b)
		for k := range ib.vecLen {
			s := ib.unwrap(lowerutil.ReadIndex(ix, ib.idxElem, int(io+int64(k)*ib.vecSt)))
			if s < 0 || s > maxStart[k] {
				return 0, 0, false
			}
			so += s * stStride[k]
		}
		return so, uo, true
	}
	winElems := max(1, int(numElems(winShape)))
	winOne := numElems(winShape) == 1
	parallel := func(work func(lo, hi int)) {
		if !unique || ib.count < 2 || ib.count*int64(winElems) < parallelMinElems {
			work(0, int(ib.count))
			return
		}
		ctx.Parallel(int(ib.count), max(1, parallelMinElems/winElems), work)
	}
	copyInputs := func(ins, outs [][]byte) {
		for i := range n {
			if !sameBuffer(outs[i], ins[i]) { // in place when the planner aliases input and result
				whole[i].run(ctx, outs[i], ins[i], 0, 0)
			}
		}
	}

	kind := scatterBody(op.Regions[0], n)
	if n == 1 && kind != "" && winOne && len(maxStart) == 1 {
		if pt := newPointScatter(ib, kind, elems[0], maxStart[0], stStride[0]); pt != nil {
			if splat != nil {
				pt.lb.outSt, splatRead = 0, true // every update reads the one value
			}
			return func(ins, outs [][]byte) error {
				copyInputs(ins, outs)
				pt.run(ctx, outs[0], ins[2], ins[1])
				return nil
			}, nil
		}
	}
	if n == 1 && kind != "" && len(maxStart) == 1 && !winOne {
		if rs := newRowScatter(ib, kind, elems[0], maxStart[0], stStride[0], win[0]); rs != nil {
			return func(ins, outs [][]byte) error {
				rs.run(ctx, outs[0], ins[0], ins[2], ins[1]) // copies the input itself
				return nil
			}, nil
		}
	}
	switch {
	case kind == "replace":
		return func(ins, outs [][]byte) error {
			copyInputs(ins, outs)
			ix := ins[n]
			parallel(func(lo, hi int) {
				for b := int64(lo); b < int64(hi); b++ {
					if so, uo, ok := start(ix, b); ok {
						for i := range n {
							win[i].execAll(outs[i], ins[n+1+i], int(so), int(uo))
						}
					}
				}
			})
			return nil
		}, nil
	case kind != "":
		if fn := rowFnFor(kind, elems[0]); fn != nil {
			return func(ins, outs [][]byte) error {
				copyInputs(ins, outs)
				ix, upd, out := ins[1], ins[2], outs[0]
				parallel(func(lo, hi int) {
					for b := int64(lo); b < int64(hi); b++ {
						if so, uo, ok := start(ix, b); ok {
							if winOne {
								fn(out, upd, int(so), 1, int(uo), 1, 1)
							} else {
								win[0].applyRows(out, upd, int(so), int(uo), fn)
							}
						}
					}
				})
				return nil
			}, nil
		}
	}

	body, err := ctx.CompileRegion(op.Regions[0])
	if err != nil {
		return nil, op.Errorf("compiling update computation: %v", err)
	}
	es := make([]int, n)
	for i, et := range elems {
		es[i] = et.ByteSize()
	}
	winN := numElems(winShape)
	return func(ins, outs [][]byte) error {
		copyInputs(ins, outs)
		ix := ins[n]
		args := make([][]byte, 2*n)
		res := make([][]byte, n)
		for i := range n {
			res[i] = make([]byte, es[i])
		}
		for b := range ib.count {
			so, uo, ok := start(ix, b)
			if !ok {
				continue
			}
			for w := range winN {
				do, uoff := so, uo
				rem := w
				for j := len(winShape) - 1; j >= 0; j-- {
					c := rem % winShape[j]
					rem /= winShape[j]
					do += c * winDst[j]
					uoff += c * winSrc[j]
				}
				for i := range n {
					args[i] = outs[i][int(do)*es[i] : int(do+1)*es[i]]
					args[n+i] = ins[n+1+i][int(uoff)*es[i] : int(uoff+1)*es[i]]
				}
				if err := body.Call(args, res); err != nil {
					return op.Errorf("update computation: %v", err)
				}
				for i := range n {
					copy(outs[i][int(do)*es[i]:], res[i])
				}
			}
		}
		return nil
	}, nil
}

// expandSplat runs st, a scatter step reading whole updates, on the
// updates of type upd that the one value of a SplatUpdatesAttr scatter
// stands for.
func expandSplat(st kernel.Step, upd *ir.TensorType) kernel.Step {
	es, count := upd.Elem.ByteSize(), int(upd.NumElements())
	return func(ins, outs [][]byte) error {
		full := make([]byte, count*es)
		for j := 0; j < len(full); j += es {
			copy(full[j:j+es], ins[2][:es])
		}
		return st([][]byte{ins[0], ins[1], full}, outs)
	}
}

func numElems(shape []int64) int64 {
	n := int64(1)
	for _, d := range shape {
		n *= d
	}
	return n
}

// scatterCost: the N inputs, indices and N updates are operands; each
// input is read and written where the updates land (as many bytes as its
// update), and the body runs once per update element.
func scatterCost(op *ir.Op) kernel.Work {
	n := len(op.Results)
	if n == 0 || len(op.Operands) != 2*n+1 || len(op.Regions) != 1 {
		return kernel.Work{}
	}
	read := make([]int64, len(op.Operands))
	write := make([]int64, n)
	updates := kernel.Elements(op.Operands[n+1])
	for i := range n {
		u := kernel.Bytes(op.Operands[n+1+i])
		read[i], read[n+1+i], write[i] = u, u, u
	}
	if s, ok := op.Attrs[SplatUpdatesAttr].(ir.DenseI64Attr); ok && n == 1 && updates > 0 {
		// The input is read and written where the updates it stands for land.
		u := read[0] / updates * numElems(s.Values)
		read[0], write[0], updates = u, u, numElems(s.Values)
	}
	read[n] = kernel.Bytes(op.Operands[n])
	w := kernel.RegionWork(op.Regions[0]).Scaled(updates)
	w.Read, w.Write = read, write
	return w
}
