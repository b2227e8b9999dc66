package compiler

import (
	"slices"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// foldSplats evaluates elementwise ops on splats once: an elementwise op
// whose operands are all one constant repeated (a broadcast of a rank-0
// constant, or a splat constant) is its rank-0 form, folded by its kernel
// as constant folding does, broadcast to the result's shape; a select
// whose predicate is such a splat is the operand it picks. Both are exact
// (every element of the result is the op on the same elements). Constant
// folding leaves these ops alone when their results are large; a select on
// a constant condition then ran both sides: jax.random.poisson with a
// constant rate below 10 ran the rejection sampler's whole while loop for
// results the select drops (dead code elimination now removes the loop).
func foldSplats(st *passState) error {
	if st.opts.NoFold {
		return nil
	}
	repl := map[*ir.Value]*ir.Value{}
	rewritten := map[*ir.Op][]*ir.Op{}
	st.entry.Body.Walk(func(op *ir.Op) bool {
		if len(op.Results) != 1 || len(op.Operands) == 0 || !kernel.TraitsOf(op.Name).Elementwise || hasEffects(op) {
			return true
		}
		t := op.Results[0].StaticTensor()
		if t == nil || t.NumElements() < 2 {
			return true // one element: constant folding's
		}
		for _, v := range op.Operands {
			// Operands of the result's shape or rank 0 only (not a
			// bitcast_convert between widths, which adds a dimension).
			if ot := v.StaticTensor(); ot == nil || (ot.Rank() != 0 && !slices.Equal(ot.Shape, t.Shape)) {
				return true
			}
		}
		if op.Name == "stablehlo.select" && len(op.Operands) == 3 {
			if p := splatValue(resolve(repl, op.Operands[0])); p != nil {
				pick := op.Operands[2]
				if p.Data[0] != 0 {
					pick = op.Operands[1]
				}
				if pick = resolve(repl, pick); ir.TypesEqual(pick.Type, op.Results[0].Type) {
					repl[op.Results[0]] = pick
					return true
				}
			}
		}
		scalars := make([]*ir.ElementsAttr, len(op.Operands))
		for i, v := range op.Operands {
			if scalars[i] = splatValue(resolve(repl, v)); scalars[i] == nil {
				return true
			}
		}
		ops := scalarForm(st.ctx, op, scalars)
		if ops == nil {
			return true
		}
		rewritten[op] = ops
		repl[op.Results[0]] = ops[len(ops)-1].Results[0]
		return true
	})
	applyRewrites(st.entry.Body, rewritten, repl)
	return nil
}

// splatValue is the repeated element of v as a rank-0 constant (nil when v
// is not one constant repeated).
func splatValue(v *ir.Value) *ir.ElementsAttr {
	if s := broadcastScalar(v); s != nil {
		v = s
	}
	t := v.StaticTensor()
	if t == nil {
		return nil
	}
	if t.NumElements() == 1 {
		if c := constData(v); c != nil && len(c.Data) == t.Elem.ByteSize() {
			return &ir.ElementsAttr{Type: &ir.TensorType{Elem: t.Elem}, Data: c.Data}
		}
		return nil
	}
	return splatConst(v)
}

// scalarForm folds op on the rank-0 constants scalars (its kernel run at
// compile time) and broadcasts the result to op's shape: the constant and
// the broadcast, or nil when the kernel does not fold it.
func scalarForm(ctx *compileCtx, op *ir.Op, scalars []*ir.ElementsAttr) []*ir.Op {
	t := op.Results[0].StaticTensor()
	var ins []*ir.Value
	for _, s := range scalars {
		c := ir.NewOp("stablehlo.constant", nil, []ir.Type{s.Type}, ir.Attrs{"value": s})
		ins = append(ins, c.Results[0])
	}
	rt := &ir.TensorType{Elem: t.Elem}
	scalarOp := ir.NewOp(op.Name, ins, []ir.Type{rt}, op.Attrs)
	scalarOp.Loc = op.Loc
	consts, ok := tryFold(ctx, scalarOp, nil)
	if !ok || len(consts) != 1 {
		return nil
	}
	b := ir.NewOp("stablehlo.broadcast_in_dim", []*ir.Value{consts[0].Results[0]}, []ir.Type{op.Results[0].Type},
		ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{}})
	for _, o := range []*ir.Op{consts[0], b} {
		o.Loc, o.Block = op.Loc, op.Block
	}
	return []*ir.Op{consts[0], b}
}
