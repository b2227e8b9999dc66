package shape

import (
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/lowerutil"
	"github.com/gojax/gojax/go/kernels/kernel"
)

func init() {
	kernel.RegisterOp("stablehlo.gather", lowerGather, kernel.Traits{Cost: readsResultOfOperand0, Storage: true, StorageShared: []int{0}})
	kernel.RegisterOp("stablehlo.dynamic_gather", lowerDynamicGather, kernel.Traits{Cost: readsResultOfOperand0})
}

// indexBatch describes how a linear "batch" index (over the index tensor's
// dims other than index_vector_dim) maps to offsets: in the index tensor, in
// the result/updates tensor, and in the operand for batching dims.
type indexBatch struct {
	shape    []int64 // batch dims, in index-tensor order
	idxSt    []int64 // index tensor strides
	outSt    []int64 // result (gather) or updates (scatter) strides
	opSt     []int64 // operand strides for batching dims, else 0
	vecSt    int64   // stride of index_vector_dim in the index tensor (0 if implicit)
	vecLen   int
	count    int64
	idxElem  ir.ElemType
	startMap []int64 // index vector component -> operand dim
	wrap     int64   // added to a negative index component before it is used (WrapIndicesAttr), else 0
}

// WrapIndicesAttr names the integer attribute of a gather or scatter with
// signed indices whose negative index components are first moved up by its
// value (positive): index i reads as i + wrap where i < 0. The compiler sets
// it where the op's indices were select(i < 0, i + wrap, i) (numpy's
// negative indices as JAX spells them), so the indices are read once.
const WrapIndicesAttr = "gojax.wrap_indices"

// GatherFillAttr names the rank-0 constant attribute of a gather (of the
// result's element type) written, instead of the slice, for every slice
// whose start index is out of range: 0 <= index <= operand dim - slice
// size fails for a component (after WrapIndicesAttr). It is JAX's
// mode="fill" select, which the compiler folds into the gather.
const GatherFillAttr = "gojax.fill"

// readFill returns the op's GatherFillAttr value (one element of et), nil
// when absent.
func readFill(op *ir.Op, et ir.ElemType) ([]byte, error) {
	a, ok := op.Attrs[GatherFillAttr]
	if !ok {
		return nil, nil
	}
	e, isElems := a.(*ir.ElementsAttr)
	if !isElems || e.Type == nil || e.Type.Elem != et || len(e.Data) != et.ByteSize() || et.ByteSize() == 0 {
		return nil, op.Errorf("%s must be one %s value, got %v", GatherFillAttr, et, a)
	}
	return e.Data, nil
}

// unwrap is index component s as the op uses it.
func (ib *indexBatch) unwrap(s int64) int64 {
	if s < 0 {
		s += ib.wrap
	}
	return s
}

// readWrap reads the op's WrapIndicesAttr into ib (0 when absent).
func (ib *indexBatch) readWrap(op *ir.Op) error {
	a, ok := op.Attrs[WrapIndicesAttr]
	if !ok {
		return nil
	}
	w, isInt := a.(ir.IntAttr)
	if !isInt || w.Value <= 0 || !ib.idxElem.IsSigned() {
		return op.Errorf("%s must be a positive integer on signed indices, got %v on %s indices", WrapIndicesAttr, a, ib.idxElem)
	}
	ib.wrap = w.Value
	return nil
}

// offsets returns the index-tensor, result and operand-batching offsets of batch b.
func (ib *indexBatch) offsets(b int64) (idx, out, op int64) {
	for d := len(ib.shape) - 1; d >= 0; d-- {
		n := ib.shape[d]
		i := b % n
		b /= n
		idx += i * ib.idxSt[d]
		out += i * ib.outSt[d]
		op += i * ib.opSt[d]
	}
	return
}

// dimNums gathers the dimension numbers shared by gather and scatter.
type dimNums struct {
	windowDims     []int64 // offset_dims / update_window_dims (result/updates dims)
	collapsed      []int64 // collapsed_slice_dims / inserted_window_dims (operand dims)
	opBatching     []int64 // operand_batching_dims / input_batching_dims
	idxBatching    []int64 // start_indices_batching_dims / scatter_indices_batching_dims
	startMap       []int64 // start_index_map / scatter_dims_to_operand_dims
	indexVectorDim int64
}

func readDimNums(op *ir.Op, window, collapsed, opBatch, idxBatch, startMap string) (dimNums, error) {
	var dn dimNums
	var err error
	if dn.windowDims, err = lowerutil.I64s(op, window); err != nil {
		return dn, err
	}
	if dn.collapsed, err = lowerutil.OptI64s(op, collapsed); err != nil {
		return dn, err
	}
	if dn.opBatching, err = lowerutil.OptI64s(op, opBatch); err != nil {
		return dn, err
	}
	if dn.idxBatching, err = lowerutil.OptI64s(op, idxBatch); err != nil {
		return dn, err
	}
	if dn.startMap, err = lowerutil.I64s(op, startMap); err != nil {
		return dn, err
	}
	if dn.indexVectorDim, err = lowerutil.IntAttr(op, "index_vector_dim"); err != nil {
		return dn, err
	}
	return dn, nil
}

func contains(s []int64, v int64) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// plan checks dimension numbers against operand, index and result/updates
// types and returns the batch mapping plus, for each window dim (in
// windowDims order), the operand dim it walks.
func (dn *dimNums) plan(op *ir.Op, operand, idx, out *ir.TensorType) (*indexBatch, []int64, error) {
	r := operand.Rank()
	ivd := dn.indexVectorDim
	if ivd < 0 || int(ivd) > idx.Rank() {
		return nil, nil, op.Errorf("index_vector_dim %d out of range for indices %s", ivd, idx)
	}
	vecLen := int64(1)
	if int(ivd) < idx.Rank() {
		vecLen = idx.Shape[ivd]
	}
	if int64(len(dn.startMap)) != vecLen {
		return nil, nil, op.Errorf("index vectors have %d components, index map has %d", vecLen, len(dn.startMap))
	}
	if len(dn.opBatching) != len(dn.idxBatching) {
		return nil, nil, op.Errorf("operand and index batching dims differ in count (%v, %v)", dn.opBatching, dn.idxBatching)
	}
	seen := make([]bool, r)
	for _, d := range append(append([]int64{}, dn.collapsed...), dn.opBatching...) {
		if d < 0 || int(d) >= r || seen[d] {
			return nil, nil, op.Errorf("collapsed/batching dims invalid for operand rank %d", r)
		}
		seen[d] = true
	}
	for _, d := range dn.startMap {
		if d < 0 || int(d) >= r || contains(dn.opBatching, d) {
			return nil, nil, op.Errorf("index map %v invalid for operand rank %d", dn.startMap, r)
		}
	}
	// Window dims walk the operand dims that are neither collapsed nor batching, in order.
	var winOperand []int64
	for d := range r {
		if !seen[d] {
			winOperand = append(winOperand, int64(d))
		}
	}
	if len(winOperand) != len(dn.windowDims) {
		return nil, nil, op.Errorf("%d window dims for %d uncollapsed operand dims", len(dn.windowDims), len(winOperand))
	}
	isWin := make([]bool, out.Rank())
	for i, d := range dn.windowDims {
		if d < 0 || int(d) >= out.Rank() || isWin[d] || (i > 0 && d <= dn.windowDims[i-1]) {
			return nil, nil, op.Errorf("window dims %v invalid for %s", dn.windowDims, out)
		}
		isWin[d] = true
	}
	ib := &indexBatch{idxElem: idx.Elem, startMap: dn.startMap, vecLen: int(vecLen), count: 1}
	idxSt, outSt, opSt := idx.Strides(), out.Strides(), operand.Strides()
	if int(ivd) < idx.Rank() {
		ib.vecSt = idxSt[ivd]
	}
	// Batch dims of the result/updates, in order, pair with the index dims other than ivd.
	var outBatch []int
	for d := range out.Rank() {
		if !isWin[d] {
			outBatch = append(outBatch, d)
		}
	}
	k := 0
	for d := range idx.Rank() {
		if int64(d) == ivd {
			continue
		}
		if k >= len(outBatch) || out.Shape[outBatch[k]] != idx.Shape[d] {
			return nil, nil, op.Errorf("batch dims of %s do not match indices %s", out, idx)
		}
		ib.shape = append(ib.shape, idx.Shape[d])
		ib.idxSt = append(ib.idxSt, idxSt[d])
		ib.outSt = append(ib.outSt, outSt[outBatch[k]])
		ob := int64(0)
		for i, bd := range dn.idxBatching {
			if bd == int64(d) {
				od := dn.opBatching[i]
				if operand.Shape[od] != idx.Shape[d] {
					return nil, nil, op.Errorf("batching dim %d of operand and %d of indices differ in size", od, d)
				}
				ob = opSt[od]
			}
		}
		ib.opSt = append(ib.opSt, ob)
		ib.count *= idx.Shape[d]
		k++
	}
	if k != len(outBatch) {
		return nil, nil, op.Errorf("batch dims of %s do not match indices %s", out, idx)
	}
	for _, bd := range dn.idxBatching {
		if bd < 0 || int(bd) >= idx.Rank() || bd == ivd {
			return nil, nil, op.Errorf("index batching dims %v invalid", dn.idxBatching)
		}
	}
	return ib, winOperand, nil
}

func lowerGather(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	sizes, err := lowerutil.I64s(op, "slice_sizes")
	if err != nil {
		return nil, err
	}
	return gatherStep(ctx, op, sizes, false)
}

// lowerDynamicGather supports dynamic_gather when its slice sizes, read at
// run time, equal the ones the static result type implies.
func lowerDynamicGather(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	if len(op.Operands) != 3 {
		return nil, op.Errorf("expected operand, start_indices, slice_sizes")
	}
	return gatherStep(ctx, op, nil, true)
}

func gatherStep(ctx kernel.Context, op *ir.Op, sizes []int64, dynamic bool) (kernel.Step, error) {
	operand, err := lowerutil.TensorOperand(op, 0)
	if err != nil {
		return nil, err
	}
	idx, err := lowerutil.TensorOperand(op, 1)
	if err != nil {
		return nil, err
	}
	out, err := lowerutil.TensorResult(op, 0)
	if err != nil {
		return nil, err
	}
	if !lowerutil.IsIndexType(idx.Elem) || operand.Elem != out.Elem {
		return nil, op.Errorf("indices %s / operand %s / result %s types invalid", idx, operand, out)
	}
	dn, err := readDimNums(op, "offset_dims", "collapsed_slice_dims", "operand_batching_dims", "start_indices_batching_dims", "start_index_map")
	if err != nil {
		return nil, err
	}
	ib, winOperand, err := dn.plan(op, operand, idx, out)
	if err != nil {
		return nil, err
	}
	if err := ib.readWrap(op); err != nil {
		return nil, err
	}
	r := operand.Rank()
	if dynamic {
		sizes = make([]int64, r)
		for i := range sizes {
			sizes[i] = 1
		}
		for i, d := range winOperand {
			sizes[d] = out.Shape[dn.windowDims[i]]
		}
	}
	if len(sizes) != r {
		return nil, op.Errorf("slice_sizes %v do not match operand rank %d", sizes, r)
	}
	for d := range r {
		if sizes[d] < 0 || sizes[d] > operand.Shape[d] {
			return nil, op.Errorf("slice size %d out of range for operand dim %d", sizes[d], d)
		}
		if (contains(dn.collapsed, int64(d)) || contains(dn.opBatching, int64(d))) && sizes[d] != 1 {
			return nil, op.Errorf("collapsed/batching dim %d must have slice size 1", d)
		}
	}
	opSt, outSt := operand.Strides(), out.Strides()
	winShape := make([]int64, len(winOperand))
	winDst := make([]int64, len(winOperand))
	winSrc := make([]int64, len(winOperand))
	for i, d := range winOperand {
		winShape[i] = sizes[d]
		winDst[i] = outSt[dn.windowDims[i]]
		winSrc[i] = opSt[d]
		if out.Shape[dn.windowDims[i]] != sizes[d] {
			return nil, op.Errorf("result dim %d is %d, slice size is %d", dn.windowDims[i], out.Shape[dn.windowDims[i]], sizes[d])
		}
	}
	// Start indices clamp to [0, dim - slice size] (StableHLO spec).
	maxStart := make([]int64, len(dn.startMap))
	stStride := make([]int64, len(dn.startMap))
	for k, d := range dn.startMap {
		maxStart[k] = operand.Shape[d] - sizes[d]
		stStride[k] = opSt[d]
	}
	es := out.Elem.ByteSize()
	win := newCopyPlan(winShape, winDst, winSrc, es)
	if out.NumElements() == 0 {
		return func(ins, outs [][]byte) error { return nil }, nil
	}
	fill, err := readFill(op, out.Elem)
	if err != nil {
		return nil, err
	}
	// fillWin writes the fill value (source stride 0) over one slice.
	fillWin := newCopyPlan(winShape, winDst, make([]int64, len(winShape)), es)
	winElems := max(1, win.total)
	fast := newFastGather(ib, maxStart, stStride, es, win, winElems)
	if fast != nil && fill != nil {
		fast = fast.withFill(fill, fillWin)
	}
	return func(ins, outs [][]byte) error {
		if dynamic {
			for d := range r {
				if v := lowerutil.ReadIndex(ins[2], op.Operands[2].Tensor().Elem, d); v != sizes[d] {
					return op.Errorf("dynamic slice_sizes[%d] = %d, static result needs %d", d, v, sizes[d])
				}
			}
		}
		src, dst, ix := ins[0], outs[0], ins[1]
		if fast != nil {
			fast.run(ctx, dst, src, ix)
			return nil
		}
		work := func(lo, hi int) {
			for b := int64(lo); b < int64(hi); b++ {
				io, oo, so := ib.offsets(b)
				oob := false
				for k := range ib.vecLen {
					s := ib.unwrap(lowerutil.ReadIndex(ix, ib.idxElem, int(io+int64(k)*ib.vecSt)))
					oob = oob || s < 0 || s > maxStart[k]
					so += lowerutil.Clamp(s, 0, maxStart[k]) * stStride[k]
				}
				switch {
				case oob && fill != nil && winElems == 1:
					copy(dst[int(oo)*es:int(oo+1)*es], fill)
				case oob && fill != nil:
					fillWin.execAll(dst, fill, int(oo), 0)
				case winElems == 1:
					copy(dst[int(oo)*es:int(oo+1)*es], src[int(so)*es:])
				default:
					win.execAll(dst, src, int(oo), int(so))
				}
			}
		}
		if ib.count*int64(winElems) < parallelMinElems || ib.count < 2 {
			work(0, int(ib.count))
		} else {
			ctx.Parallel(int(ib.count), max(1, parallelMinElems/winElems), work)
		}
		return nil
	}, nil
}
