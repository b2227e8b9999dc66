package compiler

import (
	"encoding/binary"

	"github.com/gojax/gojax/go/ir"
)

// totalOrderKeys rewrites a TOTALORDER compare of f32 arrays into a SIGNED
// compare of their order keys: k = i ^ ((i >>a 31) >>l 1) with i the
// float's bits as s32 (negative floats get their 31 low bits flipped), the
// ordering the spec's total order gives: -NaN < -Inf < … < -0 < +0 < … <
// +Inf < +NaN, NaNs by payload. Same bits as the compare kernel's
// orderKey; the key's ops are vector loops and fuse with the neighbours,
// where the TOTALORDER compare ran a Go loop element by element
// (jax.random.choice's bisection compares this way each iteration). Only
// arrays of at least totalOrderMin elements outside kernel regions (sort
// comparators run per element pair: more ops there only cost).
const totalOrderMin = 256

func totalOrderKeys(st *passState) error {
	rewritten := map[*ir.Op][]*ir.Op{}
	repl := map[*ir.Value]*ir.Value{}
	var walk func(r *ir.Region)
	walk = func(r *ir.Region) {
		for _, b := range r.Blocks {
			for _, op := range b.Ops {
				switch op.Name {
				case "stablehlo.while", "stablehlo.case", "stablehlo.if":
					for _, sub := range op.Regions {
						walk(sub)
					}
				case "stablehlo.compare":
					if ops := orderKeyCompare(op); ops != nil {
						rewritten[op] = ops
						repl[op.Results[0]] = ops[len(ops)-1].Results[0]
					}
				}
			}
		}
	}
	walk(st.entry.Body)
	applyRewrites(st.entry.Body, rewritten, repl)
	return nil
}

// orderKeyCompare returns the ops replacing a TOTALORDER f32 compare (the
// last computes its result), or nil when op is not one.
func orderKeyCompare(op *ir.Op) []*ir.Op {
	if len(op.Operands) != 2 || len(op.Results) != 1 {
		return nil
	}
	if ct, _ := op.Attrs.Enum("compare_type"); ct != "TOTALORDER" {
		return nil
	}
	t := op.Operands[0].StaticTensor()
	if t == nil || t.Elem != ir.F32 || t.NumElements() < totalOrderMin || !ir.TypesEqual(op.Operands[1].Type, op.Operands[0].Type) {
		return nil
	}
	it := &ir.TensorType{Elem: ir.S32, Shape: t.Shape}
	scalar := &ir.TensorType{Elem: ir.S32}
	var ops []*ir.Op
	add := func(o *ir.Op) *ir.Value {
		o.Loc, o.Block = op.Loc, op.Block
		ops = append(ops, o)
		return o.Results[0]
	}
	splat := func(v uint32) *ir.Value {
		data := make([]byte, 4)
		binary.LittleEndian.PutUint32(data, v)
		c := add(ir.NewOp("stablehlo.constant", nil, []ir.Type{scalar}, ir.Attrs{"value": &ir.ElementsAttr{Type: scalar, Data: data}}))
		return add(ir.NewOp("stablehlo.broadcast_in_dim", []*ir.Value{c}, []ir.Type{it}, ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{}}))
	}
	c31, c1 := splat(31), splat(1)
	key := func(x *ir.Value) *ir.Value {
		i := add(ir.NewOp("stablehlo.bitcast_convert", []*ir.Value{x}, []ir.Type{it}, nil))
		s := add(ir.NewOp("stablehlo.shift_right_arithmetic", []*ir.Value{i, c31}, []ir.Type{it}, nil))
		m := add(ir.NewOp("stablehlo.shift_right_logical", []*ir.Value{s, c1}, []ir.Type{it}, nil))
		return add(ir.NewOp("stablehlo.xor", []*ir.Value{i, m}, []ir.Type{it}, nil))
	}
	a, b := key(op.Operands[0]), key(op.Operands[1])
	attrs := ir.Attrs{}
	for k, v := range op.Attrs {
		attrs[k] = v
	}
	attrs["compare_type"] = ir.EnumAttr{Kind: "comparison_type", Value: "SIGNED"}
	add(ir.NewOp("stablehlo.compare", []*ir.Value{a, b}, []ir.Type{op.Results[0].Type}, attrs))
	return ops
}
