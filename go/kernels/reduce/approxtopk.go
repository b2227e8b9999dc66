package reduce

import (
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/lowerutil"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// ApproxTopK is the custom call jax.lax.approx_max_k / approx_min_k lower to
// (stablehlo.custom_call @ApproxTopK). Operands are N inputs followed by N
// scalar init values; results are N tensors cut along reduction_dim; the
// comparator is a function named in called_computations. Off TPU, XLA runs
// its fallback: a stable sort of all inputs by the comparator along
// reduction_dim, keeping the first elements (top_k of them when
// aggregate_to_topk, else the approximate output size the result type
// carries). The fallback is exact, and so is this kernel.
//
// The comparator must reach the kernel as the op's only region (the
// compiler's "called" pass, attachCalledComputations in
// go/compiler/pass_inline.go, attaches a copy of the called function's
// body); a function reference alone cannot be compiled from inside a
// kernel.
func init() {
	kernel.RegisterCustomCall("ApproxTopK", lowerApproxTopK)
}

func lowerApproxTopK(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	n := len(op.Operands) / 2
	if n == 0 || len(op.Operands) != 2*n || len(op.Results) != n {
		return nil, op.Errorf("ApproxTopK takes N inputs and N init values and returns N results; got %d operands, %d results",
			len(op.Operands), len(op.Results))
	}
	if len(op.Regions) != 1 {
		return nil, op.Errorf("ApproxTopK: the comparator (called_computations %v) was not attached to the op as a region",
			op.Attrs["called_computations"])
	}
	cfg, err := approxTopKConfig(op)
	if err != nil {
		return nil, err
	}
	in0, err := lowerutil.TensorOperand(op, 0)
	if err != nil {
		return nil, err
	}
	dim := cfg.reductionDim
	if dim < 0 {
		dim += int64(in0.Rank())
	}
	if in0.Rank() == 0 || dim < 0 || int(dim) >= in0.Rank() {
		return nil, op.Errorf("ApproxTopK: reduction_dim %d out of range for %s", cfg.reductionDim, in0)
	}
	res0, err := lowerutil.TensorResult(op, 0)
	if err != nil {
		return nil, err
	}
	length := int(in0.Shape[dim])
	keep := int(res0.Shape[dim])
	switch {
	case res0.Rank() != in0.Rank():
		return nil, op.Errorf("ApproxTopK: result %s does not fit input %s", res0, in0)
	case keep > length:
		return nil, op.Errorf("ApproxTopK: result keeps %d of %d elements along dim %d", keep, length, dim)
	case cfg.aggregate && int64(keep) != cfg.topK:
		return nil, op.Errorf("ApproxTopK: aggregate_to_topk needs %d elements along dim %d, result %s has %d",
			cfg.topK, dim, res0, keep)
	}
	es := make([]int, n)
	elems := make([]ir.ElemType, n)
	for i := range n {
		in, err := lowerutil.TensorOperand(op, i)
		if err != nil {
			return nil, err
		}
		out, err := lowerutil.TensorResult(op, i)
		if err != nil {
			return nil, err
		}
		init, err := lowerutil.TensorOperand(op, n+i)
		if err != nil {
			return nil, err
		}
		if !lowerutil.SameShape(in.Shape, in0.Shape) || out.Elem != in.Elem || !lowerutil.SameShape(out.Shape, res0.Shape) {
			return nil, op.Errorf("ApproxTopK: input %d %s and result %s do not agree with %s, %s", i, in, out, in0, res0)
		}
		if init.Rank() != 0 || init.Elem != in.Elem {
			return nil, op.Errorf("ApproxTopK: init value %d is %s; expected a %s scalar", i, init, in.Elem)
		}
		es[i], elems[i] = in.Elem.ByteSize(), in.Elem
	}
	inner := 1
	for _, d := range in0.Shape[dim+1:] {
		inner *= int(d)
	}
	outer := 1
	for _, d := range in0.Shape[:dim] {
		outer *= int(d)
	}
	slices := outer * inner
	if length == 0 {
		slices = 0
	}
	operandOf := make([]int, n)
	for i := range operandOf {
		operandOf[i] = i
	}
	s := &sorter{n: n, es: es, operandOf: operandOf, length: length, keep: keep, inner: inner, slices: slices}
	if k, ok := matchComparator(op.Regions[0], elems); ok {
		s.key, s.et = &k, in0.Elem
	} else {
		body, err := ctx.CompileRegion(op.Regions[0])
		if err != nil {
			return nil, op.Errorf("ApproxTopK: compiling comparator: %v", err)
		}
		s.body = body
	}
	// The init values (ins[n:]) play no part in the exact fallback.
	sortStep := s.step(ctx, op)
	return func(ins, outs [][]byte) error { return sortStep(ins[:n], outs) }, nil
}

type approxTopKCfg struct {
	topK, reductionDim int64
	aggregate          bool
}

// approxTopKConfig reads mhlo.backend_config (a dictionary) or, when the
// producer used it, backend_config in the typed-FFI dictionary form.
func approxTopKConfig(op *ir.Op) (approxTopKCfg, error) {
	var c approxTopKCfg
	var d ir.Attrs
	for _, name := range []string{"mhlo.backend_config", "backend_config"} {
		if a, ok := op.Attrs[name].(ir.DictAttr); ok {
			d = a.Entries
			break
		}
	}
	if d == nil {
		return c, op.Errorf("ApproxTopK: no backend_config dictionary (top_k, reduction_dim, aggregate_to_topk)")
	}
	var ok bool
	if c.topK, ok = d.Int("top_k"); !ok || c.topK < 0 {
		return c, op.Errorf("ApproxTopK: backend_config lacks a valid top_k")
	}
	if c.reductionDim, ok = d.Int("reduction_dim"); !ok {
		return c, op.Errorf("ApproxTopK: backend_config lacks reduction_dim")
	}
	c.aggregate = true
	switch a := d["aggregate_to_topk"].(type) {
	case nil:
	case ir.BoolAttr:
		c.aggregate = a.Value
	case ir.IntAttr:
		c.aggregate = a.Value != 0
	default:
		return c, op.Errorf("ApproxTopK: aggregate_to_topk is %s, not a bool", a)
	}
	return c, nil
}
