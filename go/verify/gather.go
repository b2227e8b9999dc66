package verify

import (
	"slices"

	"github.com/gojax/gojax/go/ir"
)

// gather, dynamic_gather and scatter (spec "gather", "scatter"): the
// dimension numbers arrive as separate attributes, as VHLO stores them.

func init() {
	register(map[string]checkFunc{
		"stablehlo.gather":         checkGather,
		"stablehlo.dynamic_gather": checkDynamicGather,
		"stablehlo.scatter":        checkScatter,
	})
}

type gatherDims struct {
	offset, collapsed, operandBatching, indicesBatching, startIndexMap []int64
	indexVectorDim                                                     int64
}

func readGatherDims(op *ir.Op) (gatherDims, error) {
	var g gatherDims
	var err error
	if g.offset, _, err = i64s(op, "offset_dims", false); err != nil {
		return g, err
	}
	if g.collapsed, _, err = i64s(op, "collapsed_slice_dims", false); err != nil {
		return g, err
	}
	if g.operandBatching, _, err = i64s(op, "operand_batching_dims", false); err != nil {
		return g, err
	}
	if g.indicesBatching, _, err = i64s(op, "start_indices_batching_dims", false); err != nil {
		return g, err
	}
	if g.startIndexMap, _, err = i64s(op, "start_index_map", true); err != nil {
		return g, err
	}
	if g.indexVectorDim, err = intAttr(op, "index_vector_dim", true, 0); err != nil {
		return g, err
	}
	if _, err = boolAttr(op, "indices_are_sorted", false); err != nil {
		return g, err
	}
	return g, nil
}

// checkGatherCommon checks the dimension numbers against operand and indices
// and returns the batch shape (indices shape without index_vector_dim).
func checkGatherCommon(op *ir.Op, g gatherDims, operand, indices *ir.TensorType) ([]int64, error) {
	if !indices.Elem.IsInteger() {
		return nil, op.Errorf("start_indices must be an integer tensor, is %s", indices)
	}
	r := operand.Rank()
	for _, l := range []struct {
		name string
		dims []int64
	}{{"collapsed_slice_dims", g.collapsed}, {"operand_batching_dims", g.operandBatching}, {"start_index_map", g.startIndexMap}} {
		if err := dimsIn(op, l.name, l.dims, r); err != nil {
			return nil, err
		}
		if err := unique(op, l.name, l.dims); err != nil {
			return nil, err
		}
	}
	if err := sortedDims(op, "collapsed_slice_dims", g.collapsed); err != nil {
		return nil, err
	}
	if err := sortedDims(op, "offset_dims", g.offset); err != nil {
		return nil, err
	}
	for _, d := range g.collapsed {
		if slices.Contains(g.operandBatching, d) {
			return nil, op.Errorf("dim %d is both collapsed and a batching dim", d)
		}
	}
	irank := int64(indices.Rank())
	if g.indexVectorDim < 0 || g.indexVectorDim > irank {
		return nil, op.Errorf("index_vector_dim %d out of range for start_indices %s", g.indexVectorDim, indices)
	}
	if len(g.indicesBatching) != len(g.operandBatching) {
		return nil, op.Errorf("start_indices_batching_dims and operand_batching_dims differ in length")
	}
	for _, d := range g.indicesBatching {
		if d < 0 || d >= irank || d == g.indexVectorDim {
			return nil, op.Errorf("start_indices_batching_dims entry %d invalid for %s (index_vector_dim %d)", d, indices, g.indexVectorDim)
		}
	}
	indexVecSize := int64(1)
	if g.indexVectorDim < irank {
		indexVecSize = indices.Shape[g.indexVectorDim]
	}
	if int64(len(g.startIndexMap)) != indexVecSize {
		return nil, op.Errorf("start_index_map has %d entries; index vector has %d", len(g.startIndexMap), indexVecSize)
	}
	var batch []int64
	for d := int64(0); d < irank; d++ {
		if d != g.indexVectorDim {
			batch = append(batch, indices.Shape[d])
		}
	}
	return batch, nil
}

func checkGather(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 2, 1)
	if err != nil {
		return err
	}
	operand, indices, out := ins[0], ins[1], outs[0]
	g, err := readGatherDims(op)
	if err != nil {
		return err
	}
	sizes, _, err := i64s(op, "slice_sizes", true)
	if err != nil {
		return err
	}
	batch, err := checkGatherCommon(op, g, operand, indices)
	if err != nil {
		return err
	}
	if err := lenIs(op, "slice_sizes", sizes, operand.Rank()); err != nil {
		return err
	}
	var offsetSizes []int64
	for d, s := range sizes {
		if s < 0 || s > operand.Shape[d] {
			return op.Errorf("slice_sizes[%d] = %d out of range [0, %d]", d, s, operand.Shape[d])
		}
		dd := int64(d)
		if slices.Contains(g.collapsed, dd) || slices.Contains(g.operandBatching, dd) {
			if s > 1 {
				return op.Errorf("slice_sizes[%d] = %d but the dim is collapsed or batching (needs <= 1)", d, s)
			}
			continue
		}
		offsetSizes = append(offsetSizes, s)
	}
	rank := len(batch) + len(g.offset)
	if len(offsetSizes) != len(g.offset) {
		return op.Errorf("offset_dims has %d entries; slice has %d uncollapsed dims", len(g.offset), len(offsetSizes))
	}
	if err := dimsIn(op, "offset_dims", g.offset, rank); err != nil {
		return err
	}
	want := make([]int64, rank)
	bi, oi := 0, 0
	for d := range want {
		if slices.Contains(g.offset, int64(d)) {
			want[d] = offsetSizes[oi]
			oi++
		} else {
			want[d] = batch[bi]
			bi++
		}
	}
	if err := wantElem(op, "result", out, operand.Elem); err != nil {
		return err
	}
	return wantShape(op, "result", out, want)
}

func checkDynamicGather(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 3, 1)
	if err != nil {
		return err
	}
	operand, indices, out := ins[0], ins[1], outs[0]
	g, err := readGatherDims(op)
	if err != nil {
		return err
	}
	if err := shapeOperand(op, "slice_sizes", ins[2], operand.Rank()); err != nil {
		return err
	}
	batch, err := checkGatherCommon(op, g, operand, indices)
	if err != nil {
		return err
	}
	if out.Rank() != len(batch)+len(g.offset) {
		return op.Errorf("result rank %d; expected %d", out.Rank(), len(batch)+len(g.offset))
	}
	return wantElem(op, "result", out, operand.Elem)
}

func checkScatter(v *verifier, op *ir.Op) error {
	if err := regions(op, 1); err != nil {
		return err
	}
	if len(op.Operands) < 3 || len(op.Operands)%2 == 0 {
		return op.Errorf("expects N inputs, scatter_indices and N updates; has %d operands", len(op.Operands))
	}
	n := (len(op.Operands) - 1) / 2
	if err := counts(op, -1, n); err != nil {
		return err
	}
	ins, err := v.operandTensors(op)
	if err != nil {
		return err
	}
	outs, err := v.resultTensors(op)
	if err != nil {
		return err
	}
	inputs, indices, updates := ins[:n], ins[n], ins[n+1:]
	for i := range inputs {
		if err := sameShape(op, "inputs must share one shape", inputs[0], inputs[i]); err != nil {
			return err
		}
		if err := sameType(op, "result type must equal input type", inputs[i], outs[i]); err != nil {
			return err
		}
		if updates[i].Elem != inputs[i].Elem {
			return op.Errorf("update %d element type %s differs from input %s", i, updates[i].Elem, inputs[i].Elem)
		}
		if err := sameShape(op, "updates must share one shape", updates[0], updates[i]); err != nil {
			return err
		}
	}
	uwd, _, err := i64s(op, "update_window_dims", false)
	if err != nil {
		return err
	}
	iwd, _, err := i64s(op, "inserted_window_dims", false)
	if err != nil {
		return err
	}
	ibd, _, err := i64s(op, "input_batching_dims", false)
	if err != nil {
		return err
	}
	sibd, _, err := i64s(op, "scatter_indices_batching_dims", false)
	if err != nil {
		return err
	}
	sdod, _, err := i64s(op, "scatter_dims_to_operand_dims", true)
	if err != nil {
		return err
	}
	ivd, err := intAttr(op, "index_vector_dim", true, 0)
	if err != nil {
		return err
	}
	for _, name := range []string{"indices_are_sorted", "unique_indices"} {
		if _, err := boolAttr(op, name, false); err != nil {
			return err
		}
	}
	if !indices.Elem.IsInteger() {
		return op.Errorf("scatter_indices must be an integer tensor, is %s", indices)
	}
	r := inputs[0].Rank()
	if err := sortedDims(op, "update_window_dims", uwd); err != nil {
		return err
	}
	if err := sortedDims(op, "inserted_window_dims", iwd); err != nil {
		return err
	}
	for _, l := range []struct {
		name string
		dims []int64
	}{{"inserted_window_dims", iwd}, {"input_batching_dims", ibd}, {"scatter_dims_to_operand_dims", sdod}} {
		if err := dimsIn(op, l.name, l.dims, r); err != nil {
			return err
		}
		if err := unique(op, l.name, l.dims); err != nil {
			return err
		}
	}
	if len(ibd) != len(sibd) {
		return op.Errorf("input_batching_dims and scatter_indices_batching_dims differ in length")
	}
	irank := int64(indices.Rank())
	if ivd < 0 || ivd > irank {
		return op.Errorf("index_vector_dim %d out of range for scatter_indices %s", ivd, indices)
	}
	vec := int64(1)
	if ivd < irank {
		vec = indices.Shape[ivd]
	}
	if int64(len(sdod)) != vec {
		return op.Errorf("scatter_dims_to_operand_dims has %d entries; index vector has %d", len(sdod), vec)
	}
	if len(uwd)+len(iwd)+len(ibd) != r {
		return op.Errorf("update_window_dims (%d) + inserted_window_dims (%d) + input_batching_dims (%d) must equal input rank %d",
			len(uwd), len(iwd), len(ibd), r)
	}
	var scatterShape []int64
	for d := int64(0); d < irank; d++ {
		if d != ivd {
			scatterShape = append(scatterShape, indices.Shape[d])
		}
	}
	upd := updates[0]
	if upd.Rank() != len(uwd)+len(scatterShape) {
		return op.Errorf("updates rank %d; expected %d", upd.Rank(), len(uwd)+len(scatterShape))
	}
	if err := dimsIn(op, "update_window_dims", uwd, upd.Rank()); err != nil {
		return err
	}
	si := 0
	for d := 0; d < upd.Rank(); d++ {
		if slices.Contains(uwd, int64(d)) {
			continue
		}
		if upd.Shape[d] != scatterShape[si] {
			return op.Errorf("updates dim %d is %d; scatter indices give %d", d, upd.Shape[d], scatterShape[si])
		}
		si++
	}
	// The window dims of updates must fit in the input's non-inserted dims.
	wi := 0
	for d := 0; d < r; d++ {
		if slices.Contains(iwd, int64(d)) || slices.Contains(ibd, int64(d)) {
			continue
		}
		if upd.Shape[uwd[wi]] > inputs[0].Shape[d] {
			return op.Errorf("updates window dim %d (%d) larger than input dim %d (%d)", uwd[wi], upd.Shape[uwd[wi]], d, inputs[0].Shape[d])
		}
		wi++
	}
	args := make([]ir.Type, 0, 2*n)
	rets := make([]ir.Type, 0, n)
	for _, t := range inputs {
		args = append(args, scalarLike(t))
		rets = append(rets, scalarLike(t))
	}
	for _, t := range inputs {
		args = append(args, scalarLike(t))
	}
	return v.regionSig(op, 0, args, rets)
}
