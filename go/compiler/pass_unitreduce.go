package compiler

import (
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// dropUnitReduces replaces a reduce whose reduced dimensions all have size 1
// and whose init value is its op's identity (and with true, or/xor/add with
// 0, max with the lowest value, min with the highest: the op's Identity
// trait) by a reshape of its
// input: each result is op(identity, x) = x, exactly. JAX's gathers with
// mode="fill" (take_along_axis, x[i] with out-of-bounds indices filled)
// and-reduce their bounds checks over the index vector dimension, usually
// of size 1: a pass over the whole result that XLA's simplifier also drops.
// As a reshape, it fuses with the elementwise ops around it.
func dropUnitReduces(st *passState) error {
	repl := map[*ir.Value]*ir.Value{}
	rewritten := map[*ir.Op][]*ir.Op{}
	st.entry.Body.Walk(func(op *ir.Op) bool {
		if op.Name != "stablehlo.reduce" || len(op.Operands) != 2 || len(op.Results) != 1 || len(op.Regions) != 1 {
			return true
		}
		in, out := op.Operands[0].StaticTensor(), op.Results[0].StaticTensor()
		dims, ok := op.Attrs["dimensions"].(ir.DenseI64Attr)
		if in == nil || out == nil || !ok || in.Elem != out.Elem {
			return true
		}
		for _, d := range dims.Values {
			if d < 0 || int(d) >= in.Rank() || in.Shape[d] != 1 {
				return true
			}
		}
		c := constData(resolve(repl, op.Operands[1]))
		body := reduceBodyOp(op.Regions[0])
		if c == nil || body == "" {
			return true
		}
		if id := kernel.TraitsOf(body).Identity; id == nil || !id(in.Elem, c.Data) {
			return true
		}
		r := ir.NewOp("stablehlo.reshape", []*ir.Value{resolve(repl, op.Operands[0])}, []ir.Type{op.Results[0].Type}, nil)
		r.Loc, r.Block = op.Loc, op.Block
		rewritten[op] = []*ir.Op{r}
		repl[op.Results[0]] = r.Results[0]
		return true
	})
	applyRewrites(st.entry.Body, rewritten, repl)
	return nil
}

// reduceBodyOp is the name of the one binary op a reducer region applies to
// its two arguments and returns, or "".
func reduceBodyOp(r *ir.Region) string {
	if len(r.Blocks) != 1 {
		return ""
	}
	b := r.Blocks[0]
	if len(b.Args) != 2 || len(b.Ops) != 2 {
		return ""
	}
	op, ret := b.Ops[0], b.Ops[1]
	if ret.Name != "stablehlo.return" || len(ret.Operands) != 1 || len(op.Results) != 1 || ret.Operands[0] != op.Results[0] ||
		len(op.Operands) != 2 || len(op.Regions) != 0 {
		return ""
	}
	x, y := op.Operands[0], op.Operands[1]
	if (x == b.Args[0] && y == b.Args[1]) || (x == b.Args[1] && y == b.Args[0]) {
		return op.Name
	}
	return ""
}
