package shape

import (
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/lowerutil"
	"github.com/gojax/gojax/go/kernels/kernel"
)

func init() {
	kernel.RegisterOp("stablehlo.slice", lowerSlice, kernel.Traits{Cost: readsResultOfOperand0, Storage: true})
	kernel.RegisterOp("stablehlo.dynamic_slice", lowerDynamicSlice,
		kernel.Traits{Cost: readsResultOfOperand0, Storage: true, StorageShared: []int{0}})
	kernel.RegisterOp("stablehlo.dynamic_update_slice", lowerDynamicUpdateSlice,
		kernel.Traits{InPlace: true, Overwrites: updatesOperand, Cost: updateSliceCost, Storage: true, StorageShared: []int{0, 1}})
	kernel.RegisterOp("stablehlo.reverse", lowerReverse, kernel.Traits{Storage: true})
	kernel.RegisterOp("stablehlo.concatenate", lowerConcatenate, kernel.Traits{Storage: true})
	kernel.RegisterOp("stablehlo.pad", lowerPad, kernel.Traits{Storage: true})
}

// readsResultOfOperand0 is the cost of an op that copies part of operand 0
// (slice, dynamic_slice, gather): it reads as many bytes of it as it
// writes, and its other operands (indices) whole.
func readsResultOfOperand0(op *ir.Op) kernel.Work {
	if len(op.Operands) == 0 || len(op.Results) != 1 {
		return kernel.Work{}
	}
	read := make([]int64, len(op.Operands))
	read[0] = kernel.Bytes(op.Results[0])
	for i := 1; i < len(read); i++ {
		read[i] = kernel.Bytes(op.Operands[i])
	}
	return kernel.Work{Read: read}
}

// updateSliceCost: dynamic_update_slice writes the update into the array
// in place, reading none of the array.
func updateSliceCost(op *ir.Op) kernel.Work {
	if len(op.Operands) < 2 || len(op.Results) != 1 {
		return kernel.Work{}
	}
	read := make([]int64, len(op.Operands))
	for i := 1; i < len(read); i++ {
		read[i] = kernel.Bytes(op.Operands[i])
	}
	return kernel.Work{Read: read, Write: []int64{kernel.Bytes(op.Operands[1])}}
}

func lowerSlice(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	in, out, err := lowerutil.Unary(op)
	if err != nil {
		return nil, err
	}
	start, err := lowerutil.I64s(op, "start_indices")
	if err != nil {
		return nil, err
	}
	limit, err := lowerutil.I64s(op, "limit_indices")
	if err != nil {
		return nil, err
	}
	strides, err := lowerutil.I64s(op, "strides")
	if err != nil {
		return nil, err
	}
	r := in.Rank()
	if len(start) != r || len(limit) != r || len(strides) != r || out.Rank() != r || in.Elem != out.Elem {
		return nil, op.Errorf("slice attributes do not match operand %s / result %s", in, out)
	}
	inSt := in.Strides()
	src := make([]int64, r)
	base := int64(0)
	for d := range r {
		if strides[d] <= 0 || start[d] < 0 || limit[d] < start[d] || limit[d] > in.Shape[d] {
			return nil, op.Errorf("invalid slice [%d:%d:%d] of dim %d (size %d)", start[d], limit[d], strides[d], d, in.Shape[d])
		}
		if n := (limit[d] - start[d] + strides[d] - 1) / strides[d]; n != out.Shape[d] {
			return nil, op.Errorf("result dim %d is %d, slice gives %d", d, out.Shape[d], n)
		}
		src[d] = inSt[d] * strides[d]
		base += start[d] * inSt[d]
	}
	p := newCopyPlan(out.Shape, out.Strides(), src, out.Elem.ByteSize())
	return func(ins, outs [][]byte) error {
		p.run(ctx, outs[0], ins[0], 0, int(base))
		return nil
	}, nil
}

// startIndices checks n scalar integer index operands starting at operand first.
func startIndices(op *ir.Op, first, n int) ([]ir.ElemType, error) {
	if len(op.Operands) != first+n {
		return nil, op.Errorf("expected %d start indices, got %d", n, len(op.Operands)-first)
	}
	types := make([]ir.ElemType, n)
	for i := range n {
		t, err := lowerutil.TensorOperand(op, first+i)
		if err != nil {
			return nil, err
		}
		if t.Rank() != 0 || !lowerutil.IsIndexType(t.Elem) {
			return nil, op.Errorf("start index %d has type %s, want an integer scalar", i, t)
		}
		types[i] = t.Elem
	}
	return types, nil
}

// clampedBase reads the runtime start indices and returns the element offset
// of the clamped start: each index is clamped to [0, dim-size] (StableHLO spec).
func clampedBase(ins [][]byte, first int, types []ir.ElemType, dims, sizes, strides []int64) int {
	base := int64(0)
	for i, et := range types {
		s := lowerutil.Clamp(lowerutil.ReadIndex(ins[first+i], et, 0), 0, dims[i]-sizes[i])
		base += s * strides[i]
	}
	return int(base)
}

func lowerDynamicSlice(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	if len(op.Operands) < 1 || len(op.Results) != 1 {
		return nil, op.Errorf("expected an operand and 1 result")
	}
	in, err := lowerutil.TensorOperand(op, 0)
	if err != nil {
		return nil, err
	}
	out, err := lowerutil.TensorResult(op, 0)
	if err != nil {
		return nil, err
	}
	sizes, err := lowerutil.I64s(op, "slice_sizes")
	if err != nil {
		return nil, err
	}
	types, err := startIndices(op, 1, in.Rank())
	if err != nil {
		return nil, err
	}
	if !lowerutil.SameShape(sizes, out.Shape) || in.Elem != out.Elem {
		return nil, op.Errorf("slice_sizes %v do not match result %s", sizes, out)
	}
	for d := range sizes {
		if sizes[d] < 0 || sizes[d] > in.Shape[d] {
			return nil, op.Errorf("slice size %d exceeds dim %d of %s", sizes[d], d, in)
		}
	}
	inSt := in.Strides()
	p := newCopyPlan(out.Shape, out.Strides(), inSt, out.Elem.ByteSize())
	return func(ins, outs [][]byte) error {
		p.run(ctx, outs[0], ins[0], 0, clampedBase(ins, 1, types, in.Shape, sizes, inSt))
		return nil
	}, nil
}

// updatesOperand: dynamic_update_slice may write its result over the array
// it updates (its kernel then copies only the update), never over the update
// or an index.
func updatesOperand(op *ir.Op, v *ir.Value) bool {
	return len(op.Operands) > 0 && op.Operands[0] == v
}

func lowerDynamicUpdateSlice(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	if len(op.Operands) < 2 || len(op.Results) != 1 {
		return nil, op.Errorf("expected operand, update, start indices and 1 result")
	}
	in, err := lowerutil.TensorOperand(op, 0)
	if err != nil {
		return nil, err
	}
	upd, err := lowerutil.TensorOperand(op, 1)
	if err != nil {
		return nil, err
	}
	out, err := lowerutil.TensorResult(op, 0)
	if err != nil {
		return nil, err
	}
	types, err := startIndices(op, 2, in.Rank())
	if err != nil {
		return nil, err
	}
	if !in.Equal(out) || upd.Elem != in.Elem || upd.Rank() != in.Rank() {
		return nil, op.Errorf("operand %s, update %s and result %s do not agree", in, upd, out)
	}
	for d := range upd.Shape {
		if upd.Shape[d] > in.Shape[d] {
			return nil, op.Errorf("update %s larger than operand %s", upd, in)
		}
	}
	st := in.Strides()
	es := in.Elem.ByteSize()
	whole := newCopyPlan([]int64{in.NumElements()}, []int64{1}, []int64{1}, es)
	p := newCopyPlan(upd.Shape, st, upd.Strides(), es)
	return func(ins, outs [][]byte) error {
		if !sameBuffer(outs[0], ins[0]) { // in place when the planner aliases operand and result
			whole.run(ctx, outs[0], ins[0], 0, 0)
		}
		p.run(ctx, outs[0], ins[1], clampedBase(ins, 2, types, in.Shape, upd.Shape, st), 0)
		return nil
	}, nil
}

func lowerReverse(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	in, out, err := lowerutil.Unary(op)
	if err != nil {
		return nil, err
	}
	dims, err := lowerutil.I64s(op, "dimensions")
	if err != nil {
		return nil, err
	}
	if !in.Equal(out) {
		return nil, op.Errorf("result %s differs from operand %s", out, in)
	}
	st := in.Strides()
	src := append([]int64(nil), st...)
	base := int64(0)
	seen := make([]bool, in.Rank())
	for _, d := range dims {
		if d < 0 || int(d) >= in.Rank() || seen[d] {
			return nil, op.Errorf("invalid dimensions %v for rank %d", dims, in.Rank())
		}
		seen[d] = true
		src[d] = -st[d]
		if in.Shape[d] > 0 {
			base += (in.Shape[d] - 1) * st[d]
		}
	}
	p := newCopyPlan(out.Shape, st, src, out.Elem.ByteSize())
	return func(ins, outs [][]byte) error {
		p.run(ctx, outs[0], ins[0], 0, int(base))
		return nil
	}, nil
}

func lowerConcatenate(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	out, err := lowerutil.TensorResult(op, 0)
	if err != nil {
		return nil, err
	}
	dim, err := lowerutil.IntAttr(op, "dimension")
	if err != nil {
		return nil, err
	}
	if dim < 0 || int(dim) >= out.Rank() || len(op.Operands) == 0 {
		return nil, op.Errorf("dimension %d invalid for result %s", dim, out)
	}
	ost := out.Strides()
	plans := make([]*copyPlan, len(op.Operands))
	bases := make([]int, len(op.Operands))
	off := int64(0)
	for i := range op.Operands {
		in, err := lowerutil.TensorOperand(op, i)
		if err != nil {
			return nil, err
		}
		if in.Elem != out.Elem || in.Rank() != out.Rank() {
			return nil, op.Errorf("operand %d %s does not fit result %s", i, in, out)
		}
		for d := range in.Shape {
			if d != int(dim) && in.Shape[d] != out.Shape[d] {
				return nil, op.Errorf("operand %d %s does not fit result %s", i, in, out)
			}
		}
		plans[i] = newCopyPlan(in.Shape, ost, in.Strides(), out.Elem.ByteSize())
		bases[i] = int(off * ost[dim])
		off += in.Shape[dim]
	}
	if off != out.Shape[dim] {
		return nil, op.Errorf("operands sum to %d along dim %d, result has %d", off, dim, out.Shape[dim])
	}
	return func(ins, outs [][]byte) error {
		for i, p := range plans {
			p.run(ctx, outs[0], ins[i], bases[i], 0)
		}
		return nil
	}, nil
}

func lowerPad(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	if len(op.Operands) != 2 || len(op.Results) != 1 {
		return nil, op.Errorf("expected operand, padding value and 1 result")
	}
	in, err := lowerutil.TensorOperand(op, 0)
	if err != nil {
		return nil, err
	}
	pv, err := lowerutil.TensorOperand(op, 1)
	if err != nil {
		return nil, err
	}
	out, err := lowerutil.TensorResult(op, 0)
	if err != nil {
		return nil, err
	}
	lo, err := lowerutil.I64s(op, "edge_padding_low")
	if err != nil {
		return nil, err
	}
	hi, err := lowerutil.I64s(op, "edge_padding_high")
	if err != nil {
		return nil, err
	}
	interior, err := lowerutil.I64s(op, "interior_padding")
	if err != nil {
		return nil, err
	}
	r := in.Rank()
	if len(lo) != r || len(hi) != r || len(interior) != r || out.Rank() != r || pv.Rank() != 0 || pv.Elem != in.Elem || out.Elem != in.Elem {
		return nil, op.Errorf("pad attributes/types do not match operand %s, result %s", in, out)
	}
	ist, ost := in.Strides(), out.Strides()
	cnt := make([]int64, r)
	src := make([]int64, r)
	dst := make([]int64, r)
	sBase, dBase := int64(0), int64(0)
	for d := range r {
		if interior[d] < 0 {
			return nil, op.Errorf("negative interior padding %v", interior)
		}
		step := interior[d] + 1
		want := lo[d] + hi[d]
		if in.Shape[d] > 0 {
			want += in.Shape[d] + (in.Shape[d]-1)*interior[d]
		}
		if want != out.Shape[d] || want < 0 {
			return nil, op.Errorf("result dim %d is %d, padding gives %d", d, out.Shape[d], want)
		}
		// Operand indices i whose position lo + i*step lands inside the result.
		first := int64(0)
		if lo[d] < 0 {
			first = (-lo[d] + step - 1) / step
		}
		last := in.Shape[d] - 1
		if out.Shape[d] == 0 {
			last = -1
		} else if lim := (out.Shape[d] - 1 - lo[d]); lim < 0 {
			last = -1
		} else if lim/step < last {
			last = lim / step
		}
		cnt[d] = max(0, last-first+1)
		src[d] = ist[d]
		dst[d] = ost[d] * step
		sBase += first * ist[d]
		dBase += (lo[d] + first*step) * ost[d]
	}
	es := in.Elem.ByteSize()
	p := newCopyPlan(cnt, dst, src, es)
	return func(ins, outs [][]byte) error {
		fillBytes(outs[0], ins[1][:es])
		p.run(ctx, outs[0], ins[0], int(dBase), int(sBase))
		return nil
	}, nil
}
