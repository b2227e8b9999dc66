package partition

import (
	"encoding/binary"
	"slices"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/shardy"
)

// Rules for generated, padded, windowed, sorted and indexed ops: each
// keeps the axes of the dimensions it treats independently (positions it
// neither moves nor mixes) and computes the others whole.

// compute emits op's local form on ins, result i laid out by computed[i],
// then reshards every result to its own sharding.
func (b *builder) compute(op *ir.Op, ins []*ir.Value, computed []*shardy.Sharding, attrs ir.Attrs) []*ir.Value {
	b.count(1, 0, 0)
	types := make([]ir.Type, len(op.Results))
	for i, r := range op.Results {
		types[i] = b.localType(r.Type.(*ir.TensorType), computed[i])
	}
	c := ir.NewOp(op.Name, ins, types, attrs)
	c.Loc = op.Loc
	for _, reg := range op.Regions {
		c.AddRegion(b.region(reg))
	}
	b.emit(c)
	for i, r := range op.Results {
		b.local[r] = local{v: c.Results[i], s: computed[i]}
		b.settle(r, b.target(r))
	}
	return c.Results
}

// keep is the sharding whose dimension d has to's axes where ok(d) holds
// and none elsewhere.
func (b *builder) keep(to *shardy.Sharding, rank int, ok func(d int) bool) *shardy.Sharding {
	dims := make([][]shardy.Axis, rank)
	for d := range dims {
		if ok(d) {
			dims[d] = dimsOf(to, d)
		}
	}
	return b.sharding(dims)
}

func (b *builder) scalar(elem ir.ElemType, data []byte) *ir.Value {
	t := ir.Tensor(elem)
	return b.emit(ir.NewOp("stablehlo.constant", nil, []ir.Type{t}, ir.Attrs{"value": &ir.ElementsAttr{Type: t, Data: data}})).Result()
}

func (b *builder) splat(x *ir.Value, t *ir.TensorType) *ir.Value {
	return b.emit(ir.NewOp("stablehlo.broadcast_in_dim", []*ir.Value{x}, []ir.Type{t},
		ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{Values: []int64{}}})).Result()
}

// iota: the partition's block of an iota along a sharded dimension is a
// local iota plus the block's offset, added in s64 and then converted, so
// float results round once, as the global iota does.
func (b *builder) iota(op *ir.Op) bool {
	d, ok := op.Attrs.Int("iota_dimension")
	rt := op.Results[0].Type.(*ir.TensorType)
	if !ok || d < 0 || int(d) >= rt.Rank() || !(rt.Elem.IsInteger() || rt.Elem.IsFloat()) {
		return false
	}
	to := b.target(op.Results[0])
	lt := b.localType(rt, to)
	_, off, err := to.ShardOf(b.mesh, rt.Shape, b.part)
	if err != nil {
		return false
	}
	b.count(1, 0, 0)
	if off[d] == 0 {
		c := b.emit(ir.NewOp(op.Name, nil, []ir.Type{lt}, op.Attrs))
		b.local[op.Results[0]] = local{v: c.Result(), s: to}
		return true
	}
	wide := ir.Tensor(ir.S64, lt.Shape...)
	x := b.emit(ir.NewOp(op.Name, nil, []ir.Type{wide}, op.Attrs)).Result()
	o := b.splat(b.scalar(ir.S64, binary.LittleEndian.AppendUint64(nil, uint64(off[d]))), wide)
	x = b.emit(ir.NewOp("stablehlo.add", []*ir.Value{x, o}, []ir.Type{wide}, nil)).Result()
	if rt.Elem != ir.S64 {
		x = b.emit(ir.NewOp("stablehlo.convert", []*ir.Value{x}, []ir.Type{lt}, nil)).Result()
	}
	b.local[op.Results[0]] = local{v: x, s: to}
	return true
}

// pad: dimensions without padding keep the result's axes; padded ones are
// computed whole.
func (b *builder) pad(op *ir.Op) bool {
	lo, ok1 := op.Attrs.I64s("edge_padding_low")
	hi, ok2 := op.Attrs.I64s("edge_padding_high")
	in, ok3 := op.Attrs.I64s("interior_padding")
	rank := op.Results[0].Type.(*ir.TensorType).Rank()
	if !ok1 || !ok2 || !ok3 || len(lo) != rank || len(hi) != rank || len(in) != rank {
		return false
	}
	s := b.keep(b.target(op.Results[0]), rank, func(d int) bool { return lo[d] == 0 && hi[d] == 0 && in[d] == 0 })
	b.compute(op, []*ir.Value{b.reshard(op.Operands[0], s), b.reshard(op.Operands[1], nil)}, []*shardy.Sharding{s}, op.Attrs)
	return true
}

// i64List reads an integer list given as a dense array or an i64 tensor
// (padding attributes come in both forms); nil when absent.
func i64List(a ir.Attrs, name string) ([]int64, bool) {
	switch v := a[name].(type) {
	case nil:
		return nil, true
	case ir.DenseI64Attr:
		return v.Values, true
	case *ir.ElementsAttr:
		if v.Type == nil || !v.Type.Elem.IsInteger() || v.Type.Elem.ByteSize() != 8 {
			return nil, false
		}
		out := make([]int64, v.Type.NumElements())
		for i := range out {
			out[i] = int64(binary.LittleEndian.Uint64(v.Data[8*i:]))
		}
		return out, true
	}
	return nil, false
}

// at is list's entry d, or def when the list is absent.
func at(list []int64, d int, def int64) int64 {
	if d < len(list) {
		return list[d]
	}
	return def
}

// reduceWindow: dimensions the window does not span (size 1, stride 1,
// no base dilation, no padding) keep the result's axes: pooling over the
// spatial dimensions of a batch-sharded array runs on each batch block.
func (b *builder) reduceWindow(op *ir.Op) bool {
	n := len(op.Results)
	if len(op.Operands) != 2*n {
		return false
	}
	rank := op.Results[0].Type.(*ir.TensorType).Rank()
	win, ok := op.Attrs.I64s("window_dimensions")
	strides, ok1 := i64List(op.Attrs, "window_strides")
	bdil, ok2 := i64List(op.Attrs, "base_dilations")
	pad, ok3 := i64List(op.Attrs, "padding")
	if !ok || !ok1 || !ok2 || !ok3 || len(win) != rank || pad != nil && len(pad) != 2*rank {
		return false
	}
	s := b.keep(b.target(op.Results[0]), rank, func(d int) bool {
		return win[d] == 1 && at(strides, d, 1) == 1 && at(bdil, d, 1) == 1 && at(pad, 2*d, 0) == 0 && at(pad, 2*d+1, 0) == 0
	})
	ins := make([]*ir.Value, 2*n)
	computed := make([]*shardy.Sharding, n)
	for i := 0; i < n; i++ {
		ins[i] = b.reshard(op.Operands[i], s)
		ins[n+i] = b.reshard(op.Operands[n+i], nil)
		computed[i] = s
	}
	b.compute(op, ins, computed, op.Attrs)
	return true
}

// sort: every dimension but the sorted one keeps the result's axes.
func (b *builder) sort(op *ir.Op) bool {
	dim, ok := op.Attrs.Int("dimension")
	rt := op.Results[0].Type.(*ir.TensorType)
	if !ok {
		return false
	}
	if dim < 0 {
		dim += int64(rt.Rank())
	}
	s := b.keep(b.target(op.Results[0]), rt.Rank(), func(d int) bool { return d != int(dim) })
	ins := make([]*ir.Value, len(op.Operands))
	computed := make([]*shardy.Sharding, len(op.Results))
	for _, v := range op.Operands {
		if !equalShape(v.Type.(*ir.TensorType).Shape, rt.Shape) {
			return false
		}
	}
	for i, v := range op.Operands {
		ins[i] = b.reshard(v, s)
	}
	for i := range computed {
		computed[i] = s
	}
	b.compute(op, ins, computed, op.Attrs)
	return true
}

// bitcastConvert between element types of one width is elementwise.
func (b *builder) bitcastConvert(op *ir.Op) bool {
	in := op.Operands[0].Type.(*ir.TensorType)
	out := op.Results[0].Type.(*ir.TensorType)
	if !equalShape(in.Shape, out.Shape) {
		return false
	}
	to := b.target(op.Results[0])
	b.finish(op, []*ir.Value{b.reshard(op.Operands[0], to)}, to)
	return true
}

// convolution: the batch dimension keeps the result's axes (the input's
// batch blocks meet the whole kernel: data-parallel convolution); the
// other dimensions are computed whole.
func (b *builder) convolution(op *ir.Op) bool {
	ib, ok1 := op.Attrs.Int("input_batch_dimension")
	ob, ok2 := op.Attrs.Int("output_batch_dimension")
	if !ok1 || !ok2 {
		return false
	}
	if g, ok := op.Attrs.Int("batch_group_count"); ok && g != 1 {
		return false
	}
	lt := op.Operands[0].Type.(*ir.TensorType)
	rt := op.Results[0].Type.(*ir.TensorType)
	to := b.target(op.Results[0])
	axes := dimsOf(to, int(ob))
	outS := b.keep(to, rt.Rank(), func(d int) bool { return d == int(ob) })
	inDims := make([][]shardy.Axis, lt.Rank())
	inDims[ib] = axes
	ins := []*ir.Value{b.reshard(op.Operands[0], b.sharding(inDims)), b.reshard(op.Operands[1], nil)}
	b.compute(op, ins, []*shardy.Sharding{outS}, op.Attrs)
	return true
}

// batchDims lists a gather's or scatter's indices dimensions in order,
// without the index vector dimension.
func batchDims(rank int, ivd int64) []int {
	var out []int
	for d := 0; d < rank; d++ {
		if int64(d) != ivd {
			out = append(out, d)
		}
	}
	return out
}

// gather: the indices' batch dimensions keep the axes of the result's
// batch dimensions; the operand is whole except its batching dimensions,
// which take the axes of the indices dimensions they pair with (each
// block of indices then reads only its own block of the operand).
// Embedding lookups of a replicated table by sharded ids and
// take_along_axis on batch-sharded arrays run without communication.
func (b *builder) gather(op *ir.Op) bool {
	offset, _ := op.Attrs.I64s("offset_dims")
	obd, _ := op.Attrs.I64s("operand_batching_dims")
	ibd, _ := op.Attrs.I64s("start_indices_batching_dims")
	ivd, ok := op.Attrs.Int("index_vector_dim")
	if len(op.Operands) != 2 || !ok || len(obd) != len(ibd) {
		return false
	}
	ot := op.Operands[0].Type.(*ir.TensorType)
	it := op.Operands[1].Type.(*ir.TensorType)
	rt := op.Results[0].Type.(*ir.TensorType)
	to := b.target(op.Results[0])
	bd := batchDims(it.Rank(), ivd)
	if len(bd)+len(offset) != rt.Rank() {
		return false
	}
	idx := make([][]shardy.Axis, it.Rank())
	outDims := make([][]shardy.Axis, rt.Rank())
	k := 0
	for d := 0; d < rt.Rank(); d++ {
		if containsInt(offset, d) {
			continue
		}
		idx[bd[k]] = dimsOf(to, d)
		outDims[d] = dimsOf(to, d)
		k++
	}
	opd := make([][]shardy.Axis, ot.Rank())
	for i := range obd {
		opd[obd[i]] = idx[ibd[i]]
	}
	attrs := op.Attrs
	if sizes, ok := b.gatherPassThrough(op, ot, offset, obd, to, opd, outDims); ok {
		attrs = ir.Attrs{}
		for k, v := range op.Attrs {
			attrs[k] = v
		}
		attrs["slice_sizes"] = ir.DenseI64Attr{Values: sizes}
	}
	ins := []*ir.Value{b.reshard(op.Operands[0], b.sharding(opd)), b.reshard(op.Operands[1], b.sharding(idx))}
	b.compute(op, ins, []*shardy.Sharding{b.sharding(outDims)}, attrs)
	return true
}

// gatherPassThrough lets a gather's window dimensions that take a whole
// operand dimension no index reads (a batched diagonal, a batched
// row pick) keep the result's axes: each partition's operand block gives
// its block of the result. It fills opd and outDims for them and returns
// the partition's slice_sizes (ok false when no dimension passes through).
func (b *builder) gatherPassThrough(op *ir.Op, ot *ir.TensorType, offset, obd []int64, to *shardy.Sharding, opd, outDims [][]shardy.Axis) ([]int64, bool) {
	collapsed, _ := op.Attrs.I64s("collapsed_slice_dims")
	sim, _ := op.Attrs.I64s("start_index_map")
	sizes, ok := op.Attrs.I64s("slice_sizes")
	if !ok || len(sizes) != ot.Rank() {
		return nil, false
	}
	var windows []int
	for od := 0; od < ot.Rank(); od++ {
		if !containsInt(collapsed, od) && !containsInt(obd, od) {
			windows = append(windows, od)
		}
	}
	if len(windows) != len(offset) || !slices.IsSorted(offset) {
		return nil, false
	}
	passed := false
	for j, d := range offset {
		od := windows[j]
		axes := dimsOf(to, int(d))
		if len(axes) == 0 || containsInt(sim, od) || sizes[od] != ot.Shape[od] {
			continue
		}
		opd[od], outDims[d] = axes, axes
		passed = true
	}
	if !passed {
		return nil, false
	}
	local := b.localType(ot, b.sharding(opd))
	out := slices.Clone(sizes)
	for _, od := range windows {
		if len(opd[od]) > 0 {
			out[od] = local.Shape[od]
		}
	}
	return out, true
}

// scatter with an add combiner into operands without batching dimensions:
// each partition scatters its block of indices and updates (sharded as the
// indices are) into the operand, or into zeros on all but the first
// partition of each group, and an all_reduce adds the groups' results.
// Scatter-add of batch-sharded gradients into a replicated table.
func (b *builder) scatter(op *ir.Op) bool {
	n := len(op.Results)
	uwd, _ := op.Attrs.I64s("update_window_dims")
	ibd, _ := op.Attrs.I64s("input_batching_dims")
	ivd, ok := op.Attrs.Int("index_vector_dim")
	if ok && len(ibd) > 0 && len(op.Operands) == 2*n+1 {
		return b.scatterBatched(op, n, uwd, ibd, ivd)
	}
	if ok && len(op.Operands) == 2*n+1 && b.scatterPassThrough(op, n, uwd) {
		return true
	}
	if !ok || len(ibd) > 0 || len(op.Operands) != 2*n+1 || !addBody(op.Regions[0], n) {
		return false
	}
	indices := op.Operands[n]
	it := indices.Type.(*ir.TensorType)
	bd := batchDims(it.Rank(), ivd)
	cur := b.local[indices].s
	idx := make([][]shardy.Axis, it.Rank())
	var summed []string
	for _, d := range bd {
		idx[d] = dimsOf(cur, d)
		summed = append(summed, names(idx[d])...)
	}
	if len(summed) == 0 {
		return false
	}
	gs, err := b.mesh.Groups(summed)
	if err != nil {
		return false
	}
	first := false
	for _, g := range gs {
		first = first || g[0] == int64(b.part)
	}
	uds, ok := b.updateLayouts(op, n, uwd, bd, idx)
	if !ok {
		return false
	}
	ins := make([]*ir.Value, 2*n+1)
	for i := 0; i < n; i++ {
		t := op.Operands[i].Type.(*ir.TensorType)
		// Every partition reshards the operand, so all of them take part
		// in the same collectives.
		ins[i] = b.reshard(op.Operands[i], nil)
		if !first {
			ins[i] = b.splat(b.scalar(t.Elem, make([]byte, ir.Tensor(t.Elem).ByteSize())), t)
		}
		ins[n+1+i] = b.reshard(op.Operands[n+1+i], uds[i])
	}
	ins[n] = b.reshard(indices, b.sharding(idx))
	b.count(1, 0, 0)
	types := make([]ir.Type, n)
	for i, r := range op.Results {
		types[i] = r.Type
	}
	c := ir.NewOp(op.Name, ins, types, op.Attrs)
	c.Loc = op.Loc
	c.AddRegion(b.region(op.Regions[0]))
	b.emit(c)
	for i, r := range op.Results {
		b.allReduce(r, c.Results[i], nil, summed, addRegion(r.Type.(*ir.TensorType).Elem))
		b.settle(r, b.target(r))
	}
	return true
}

// scatterPassThrough is the scatter of gatherPassThrough's transpose: an
// operand dimension that updates cover whole and no index addresses (the
// batch of a batched diagonal update) keeps the result's axes in operands,
// updates and results, whatever the combiner; indices are whole. False
// when no dimension passes through.
func (b *builder) scatterPassThrough(op *ir.Op, n int, uwd []int64) bool {
	iwd, _ := op.Attrs.I64s("inserted_window_dims")
	sdod, _ := op.Attrs.I64s("scatter_dims_to_operand_dims")
	ot := op.Operands[0].Type.(*ir.TensorType)
	ut := op.Operands[n+1].Type.(*ir.TensorType)
	var windows []int
	for od := 0; od < ot.Rank(); od++ {
		if !containsInt(iwd, od) {
			windows = append(windows, od)
		}
	}
	if len(windows) != len(uwd) || !slices.IsSorted(uwd) {
		return false
	}
	to := b.target(op.Results[0])
	opd := make([][]shardy.Axis, ot.Rank())
	upd := make([][]shardy.Axis, ut.Rank())
	passed := false
	for j, ud := range uwd {
		od := windows[j]
		axes := dimsOf(to, od)
		if len(axes) == 0 || containsInt(sdod, od) || ut.Shape[ud] != ot.Shape[od] {
			continue
		}
		opd[od], upd[ud] = axes, axes
		passed = true
	}
	if !passed {
		return false
	}
	// Updates split along their scatter (index) dimensions are left to the
	// rules that keep them split.
	cur := b.local[op.Operands[n+1]].s
	for d := 0; d < ut.Rank(); d++ {
		if !containsInt(uwd, d) && len(dimsOf(cur, d)) > 0 {
			return false
		}
	}
	os, us := b.sharding(opd), b.sharding(upd)
	ins := make([]*ir.Value, 2*n+1)
	for i := 0; i < n; i++ {
		ins[i] = b.reshard(op.Operands[i], os)
		ins[n+1+i] = b.reshard(op.Operands[n+1+i], us)
	}
	ins[n] = b.reshard(op.Operands[n], nil)
	computed := make([]*shardy.Sharding, n)
	for i := range computed {
		computed[i] = os
	}
	b.compute(op, ins, computed, op.Attrs)
	return true
}

// addBody reports whether a combiner region of n values returns the sums
// of its argument pairs (argument i plus argument n+i).
func addBody(r *ir.Region, n int) bool {
	if len(r.Blocks) != 1 || len(r.Blocks[0].Args) != 2*n {
		return false
	}
	blk := r.Blocks[0]
	ret := blk.Terminator()
	if ret == nil || len(ret.Operands) != n || len(blk.Ops) != n+1 {
		return false
	}
	for i, v := range ret.Operands {
		f := v.Def
		if f == nil || f.Name != "stablehlo.add" || len(f.Operands) != 2 {
			return false
		}
		a, c := f.Operands[0], f.Operands[1]
		if !(a == blk.Args[i] && c == blk.Args[n+i] || a == blk.Args[n+i] && c == blk.Args[i]) {
			return false
		}
	}
	return true
}

// indexedRules are the rules of this file, by op name.
var indexedRules = map[string]func(*builder, *ir.Op) bool{
	"stablehlo.iota":                 (*builder).iota,
	"stablehlo.pad":                  (*builder).pad,
	"stablehlo.reduce_window":        (*builder).reduceWindow,
	"stablehlo.sort":                 (*builder).sort,
	"stablehlo.bitcast_convert":      (*builder).bitcastConvert,
	"stablehlo.convolution":          (*builder).convolution,
	"stablehlo.gather":               (*builder).gather,
	"stablehlo.scatter":              (*builder).scatter,
	"stablehlo.reverse":              (*builder).reverse,
	"stablehlo.select_and_scatter":   (*builder).selectAndScatter,
	"stablehlo.dynamic_slice":        (*builder).dynamicSlice,
	"stablehlo.dynamic_update_slice": (*builder).dynamicUpdateSlice,
}

// dynamicSlice: dimensions taken whole (their start clamps to 0) keep the
// result's axes; the others are computed whole (scan reading its layer).
func (b *builder) dynamicSlice(op *ir.Op) bool {
	sizes, ok := i64List(op.Attrs, "slice_sizes")
	in := op.Operands[0].Type.(*ir.TensorType)
	if !ok || len(sizes) != in.Rank() || len(op.Operands) != 1+in.Rank() {
		return false
	}
	s := b.keep(b.target(op.Results[0]), in.Rank(), func(d int) bool { return sizes[d] == in.Shape[d] })
	ins := []*ir.Value{b.reshard(op.Operands[0], s)}
	for _, v := range op.Operands[1:] {
		ins = append(ins, b.reshard(v, nil))
	}
	b.compute(op, ins, []*shardy.Sharding{s}, op.Attrs)
	return true
}

// dynamicUpdateSlice: dimensions the update covers whole keep the
// result's axes in operand, update and result (scan writing its outputs).
func (b *builder) dynamicUpdateSlice(op *ir.Op) bool {
	in := op.Operands[0].Type.(*ir.TensorType)
	up := op.Operands[1].Type.(*ir.TensorType)
	if up.Rank() != in.Rank() || len(op.Operands) != 2+in.Rank() {
		return false
	}
	s := b.keep(b.target(op.Results[0]), in.Rank(), func(d int) bool { return up.Shape[d] == in.Shape[d] })
	ins := []*ir.Value{b.reshard(op.Operands[0], s), b.reshard(op.Operands[1], s)}
	for _, v := range op.Operands[2:] {
		ins = append(ins, b.reshard(v, nil))
	}
	b.compute(op, ins, []*shardy.Sharding{s}, op.Attrs)
	return true
}

// scatterBatched: a scatter whose sharded indices dimensions are all
// batching dimensions (the gradient of take_along_axis) writes each
// partition's own operand rows: the operand's batching dimensions take the
// axes of the indices dimensions they pair with, and any combiner runs
// locally.
func (b *builder) scatterBatched(op *ir.Op, n int, uwd, ibd []int64, ivd int64) bool {
	sbd, _ := op.Attrs.I64s("scatter_indices_batching_dims")
	if len(sbd) != len(ibd) {
		return false
	}
	indices := op.Operands[n]
	it := indices.Type.(*ir.TensorType)
	bd := batchDims(it.Rank(), ivd)
	cur := b.local[indices].s
	idx := make([][]shardy.Axis, it.Rank())
	for _, d := range bd {
		if axes := dimsOf(cur, d); len(axes) > 0 && containsInt(sbd, d) {
			idx[d] = axes
		}
	}
	ot := op.Operands[0].Type.(*ir.TensorType)
	opd := make([][]shardy.Axis, ot.Rank())
	for i := range ibd {
		opd[ibd[i]] = idx[sbd[i]]
	}
	os := b.sharding(opd)
	uds, ok := b.updateLayouts(op, n, uwd, bd, idx)
	if !ok {
		return false
	}
	ins := make([]*ir.Value, 2*n+1)
	computed := make([]*shardy.Sharding, n)
	for i := 0; i < n; i++ {
		ins[i] = b.reshard(op.Operands[i], os)
		computed[i] = os
		ins[n+1+i] = b.reshard(op.Operands[n+1+i], uds[i])
	}
	ins[n] = b.reshard(indices, b.sharding(idx))
	b.compute(op, ins, computed, op.Attrs)
	return true
}

// reverse: dimensions it does not reverse keep the result's axes.
func (b *builder) reverse(op *ir.Op) bool {
	dims, ok := i64List(op.Attrs, "dimensions")
	rank := op.Results[0].Type.(*ir.TensorType).Rank()
	if !ok {
		return false
	}
	s := b.keep(b.target(op.Results[0]), rank, func(d int) bool { return !containsInt(dims, d) })
	b.compute(op, []*ir.Value{b.reshard(op.Operands[0], s)}, []*shardy.Sharding{s}, op.Attrs)
	return true
}

// selectAndScatter (the gradient of max pooling): dimensions the window
// does not span keep the result's axes in operand, source and result.
func (b *builder) selectAndScatter(op *ir.Op) bool {
	rank := op.Results[0].Type.(*ir.TensorType).Rank()
	win, ok := i64List(op.Attrs, "window_dimensions")
	strides, ok1 := i64List(op.Attrs, "window_strides")
	pad, ok2 := i64List(op.Attrs, "padding")
	if !ok || !ok1 || !ok2 || len(win) != rank || pad != nil && len(pad) != 2*rank || len(op.Operands) != 3 {
		return false
	}
	s := b.keep(b.target(op.Results[0]), rank, func(d int) bool {
		return win[d] == 1 && at(strides, d, 1) == 1 && at(pad, 2*d, 0) == 0 && at(pad, 2*d+1, 0) == 0
	})
	ins := []*ir.Value{b.reshard(op.Operands[0], s), b.reshard(op.Operands[1], s), b.reshard(op.Operands[2], nil)}
	b.compute(op, ins, []*shardy.Sharding{s}, op.Attrs)
	return true
}

// updateLayouts lays scatter op's updates out by idx, the layout of its
// indices: each update scatter dimension takes the axes of the indices
// batch dimension it pairs with, window dimensions none.
func (b *builder) updateLayouts(op *ir.Op, n int, uwd []int64, bd []int, idx [][]shardy.Axis) ([]*shardy.Sharding, bool) {
	out := make([]*shardy.Sharding, n)
	for i := 0; i < n; i++ {
		ut := op.Operands[n+1+i].Type.(*ir.TensorType)
		ud := make([][]shardy.Axis, ut.Rank())
		k := 0
		for d := 0; d < ut.Rank(); d++ {
			if !containsInt(uwd, d) {
				if k >= len(bd) {
					return nil, false
				}
				ud[d] = idx[bd[k]]
				k++
			}
		}
		out[i] = b.sharding(ud)
	}
	return out, true
}
