package compiler

import (
	"encoding/binary"
	"math"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// lowerQuantized rewrites every op on !quant.uniform tensors into ops on
// their storage integers and float arithmetic, so no kernel knows about
// quantization (StableHLO spec, "Quantization"):
//
//   - uniform_dequantize(x) = convert(x - zero_point, expressed) * scale;
//   - uniform_quantize(x) = convert(round_nearest_even(clamp(storage_min,
//     x / scale + zero_point, storage_max)), storage), and from a quantized
//     operand quantize(dequantize(x)) (a requantization);
//   - ops that only move, select or pass elements keep
//     working on the stored integers, whose quantization they share
//     (kernel.QuantStorage);
//   - compare compares the dequantized operands;
//   - every other op is dequantize_op_quantize: its quantized operands are
//     dequantized, it runs in the expressed type, and its quantized results
//     are quantized (the hybrid forms, a float operand with a quantized one
//     or a float result, fall out of the same rule).
//
// Per-axis parameters are broadcast along the quantized dimension. The
// difference x - zero_point is taken in 64-bit integers: the spec writes it
// in the storage type, where it can overflow (127 - (-128) in i8). Ops with
// regions that are not storage ops (reduce, reduce_window, scatter, …) are
// an error naming the op. Afterwards every type loses its quantization:
// the module is plain StableHLO over the storage types.
func init() {
	rewrittenOps["stablehlo.uniform_quantize"] = "rewritten by the compiler (quant pass) into divide, add, clamp, round_nearest_even and convert; " +
		"other ops on quantized tensors run on their storage integers (data movement) or between dequantize and quantize"
	rewrittenOps["stablehlo.uniform_dequantize"] = "rewritten by the compiler (quant pass) into convert, subtract and multiply"
}

func lowerQuantized(st *passState) error {
	found := false
	for _, f := range st.module.Funcs {
		f.Body.Walk(func(op *ir.Op) bool {
			found = found || ir.OpQuantized(op)
			return !found
		})
		for _, t := range f.Type.Inputs {
			found = found || ir.TypeQuantized(t)
		}
		for _, t := range f.Type.Results {
			found = found || ir.TypeQuantized(t)
		}
	}
	if !found {
		return nil
	}
	for _, f := range st.module.Funcs {
		repl := map[*ir.Value]*ir.Value{}
		rewritten := map[*ir.Op][]*ir.Op{}
		var err error
		f.Body.Walk(func(op *ir.Op) bool {
			if !ir.OpQuantized(op) {
				return true
			}
			var ops []*ir.Op
			if ops, err = lowerQuantOp(op, repl); err != nil {
				return false
			}
			if ops != nil {
				rewritten[op] = ops
			}
			return true
		})
		if err != nil {
			return err
		}
		spliceOps(f.Body, rewritten)
		replaceUses(f.Body, repl)
		stripQuant(f)
	}
	return nil
}

// lowerQuantOp returns the ops that replace op (nil: op stays as it is)
// and records the values that replace its results in repl.
func lowerQuantOp(op *ir.Op, repl map[*ir.Value]*ir.Value) ([]*ir.Op, error) {
	if storage, _, _ := kernel.QuantStorage(op.Name); storage {
		return nil, nil
	}
	b := &quantBuilder{loc: op.Loc, block: op.Block}
	// An operand's quantization is read from the operand as the op has it:
	// a replacement (a quantize's result) already has the storage type.
	in := func(i int) (*ir.Value, *ir.TensorType) {
		qt := op.Operands[i].Tensor()
		if qt != nil && qt.Quant == nil {
			qt = nil
		}
		return resolve(repl, op.Operands[i]), qt
	}
	switch op.Name {
	case "stablehlo.uniform_quantize":
		x, qt := in(0)
		if qt != nil {
			x = b.dequantize(x, qt)
		}
		out := op.Results[0].Tensor()
		if out == nil || out.Quant == nil {
			return nil, op.Errorf("result type %s is not quantized", op.Results[0].Type)
		}
		repl[op.Results[0]] = b.quantize(x, out)
		return b.ops, nil
	case "stablehlo.uniform_dequantize":
		x, qt := in(0)
		if qt == nil {
			return nil, op.Errorf("operand type %s is not quantized", x.Type)
		}
		repl[op.Results[0]] = b.dequantize(x, qt)
		return b.ops, nil
	}
	if len(op.Regions) > 0 {
		return nil, op.Errorf("quantized operands or results are not supported for this op")
	}
	operands := make([]*ir.Value, len(op.Operands))
	for i := range op.Operands {
		x, qt := in(i)
		if qt != nil {
			x = b.dequantize(x, qt)
		} else if ir.TypeQuantized(op.Operands[i].Type) {
			return nil, op.Errorf("quantized tuple operands are not supported")
		}
		operands[i] = x
	}
	types := make([]ir.Type, len(op.Results))
	for i, r := range op.Results {
		types[i] = r.Type
		if t := r.Tensor(); t != nil && t.Quant != nil {
			types[i] = t.ExpressedType()
		} else if ir.TypeQuantized(r.Type) {
			return nil, op.Errorf("quantized tuple results are not supported")
		}
	}
	inner := b.emit(ir.NewOp(op.Name, operands, types, op.Attrs))
	for i, r := range op.Results {
		v := inner.Results[i]
		if t := r.Tensor(); t != nil && t.Quant != nil {
			v = b.quantize(v, t)
		}
		repl[r] = v
	}
	return b.ops, nil
}

// quantBuilder collects the ops that replace one op, at its place.
type quantBuilder struct {
	ops   []*ir.Op
	loc   *ir.Location
	block *ir.Block
}

func (b *quantBuilder) emit(op *ir.Op) *ir.Op {
	op.Loc, op.Block = b.loc, b.block
	b.ops = append(b.ops, op)
	return op
}

// newOp emits an op of one result of type t.
func (b *quantBuilder) newOp(name string, t ir.Type, operands ...*ir.Value) *ir.Value {
	return b.emit(ir.NewOp(name, operands, []ir.Type{t}, nil)).Result()
}

// param is a tensor of the given shape and element type holding vals:
// one value for the whole tensor, or one per index along axis. The values
// are written as f64 and converted before they are broadcast (the fold
// pass makes that one constant), so a scale is rounded once to the
// expressed type, as the spec's constant(scales, expressed_type) is.
func (b *quantBuilder) param(vals []float64, axis int, elem ir.ElemType, shape []int64) *ir.Value {
	var cshape []int64
	dims := []int64{}
	if axis >= 0 {
		cshape, dims = []int64{int64(len(vals))}, []int64{int64(axis)}
	}
	ct := ir.Tensor(ir.F64, cshape...)
	data := make([]byte, 0, 8*len(vals))
	for _, v := range vals {
		data = binary.LittleEndian.AppendUint64(data, math.Float64bits(v))
	}
	c := b.emit(ir.NewOp("stablehlo.constant", nil, []ir.Type{ct}, ir.Attrs{"value": &ir.ElementsAttr{Type: ct, Data: data}})).Result()
	if elem != ir.F64 {
		c = b.newOp("stablehlo.convert", ir.Tensor(elem, cshape...), c)
	}
	return b.emit(ir.NewOp("stablehlo.broadcast_in_dim", []*ir.Value{c}, []ir.Type{ir.Tensor(elem, shape...)},
		ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{Values: dims}})).Result()
}

// mantissaBits is the precision of a float type, the implicit bit included.
func mantissaBits(e ir.ElemType) int {
	switch e {
	case ir.F64:
		return 53
	case ir.F32:
		return 24
	case ir.F16:
		return 11
	case ir.BF16:
		return 8
	}
	return 0
}

func zeroPoints(q *ir.Quant) ([]float64, bool) {
	out := make([]float64, len(q.ZeroPoints))
	nonzero := false
	for i, z := range q.ZeroPoints {
		out[i] = float64(z)
		nonzero = nonzero || z != 0
	}
	return out, nonzero
}

// dequantize maps x, stored integers of the quantized type t, to t's
// expressed type.
func (b *quantBuilder) dequantize(x *ir.Value, t *ir.TensorType) *ir.Value {
	q := t.Quant
	et := t.ExpressedType()
	zps, nonzero := zeroPoints(q)
	var v *ir.Value
	switch {
	case !nonzero:
		v = b.newOp("stablehlo.convert", et, x)
	case t.Elem.Bits()+1 <= mantissaBits(q.Expressed):
		// Stored integers, zero points and their differences are exact in
		// the expressed type: subtracting there is the same.
		v = b.newOp("stablehlo.convert", et, x)
		v = b.newOp("stablehlo.subtract", et, v, b.param(zps, q.Axis, q.Expressed, t.Shape))
	default:
		// The reader bounds zero points by the storage range, so they are
		// exact in f64 and in the i64 this converts them to.
		wide := ir.Tensor(ir.S64, t.Shape...)
		v = b.newOp("stablehlo.convert", wide, x)
		v = b.newOp("stablehlo.subtract", wide, v, b.param(zps, q.Axis, ir.S64, t.Shape))
		v = b.newOp("stablehlo.convert", et, v)
	}
	return b.newOp("stablehlo.multiply", et, v, b.param(q.Scales, q.Axis, q.Expressed, t.Shape))
}

// quantize maps a float value (of the result's expressed type) to the
// storage integers of the quantized type out.
func (b *quantBuilder) quantize(x *ir.Value, out *ir.TensorType) *ir.Value {
	q := out.Quant
	xt := x.Tensor()
	if xt.Elem != q.Expressed {
		x = b.newOp("stablehlo.convert", ir.Tensor(q.Expressed, xt.Shape...), x)
	}
	v := b.newOp("stablehlo.divide", x.Type, x, b.param(q.Scales, q.Axis, q.Expressed, out.Shape))
	if zps, nonzero := zeroPoints(q); nonzero {
		v = b.newOp("stablehlo.add", v.Type, v, b.param(zps, q.Axis, q.Expressed, out.Shape))
	}
	lo := b.param([]float64{float64(q.Min)}, -1, q.Expressed, out.Shape)
	hi := b.param([]float64{float64(q.Max)}, -1, q.Expressed, out.Shape)
	v = b.emit(ir.NewOp("stablehlo.clamp", []*ir.Value{lo, v, hi}, []ir.Type{v.Type}, nil)).Result()
	v = b.newOp("stablehlo.round_nearest_even", v.Tensor(), v)
	// Out-of-range floats saturate in convert, so a bound that rounds up
	// in the expressed type (2^31 for i32 in f32) still lands on Max.
	return b.newOp("stablehlo.convert", out.StorageType(), v)
}

// stripQuant drops quantization from every type in f: values, block
// arguments, the signature and constants' element attributes.
func stripQuant(f *ir.Func) {
	// The signature's slices are shared with the caller's module: new ones.
	strip := func(ts []ir.Type) []ir.Type {
		out := make([]ir.Type, len(ts))
		for i, t := range ts {
			out[i] = storageOf(t)
		}
		return out
	}
	f.Type = ir.FuncType{Inputs: strip(f.Type.Inputs), Results: strip(f.Type.Results)}
	var region func(r *ir.Region)
	region = func(r *ir.Region) {
		for _, b := range r.Blocks {
			for _, a := range b.Args {
				a.Type = storageOf(a.Type)
			}
			for _, op := range b.Ops {
				for _, res := range op.Results {
					res.Type = storageOf(res.Type)
				}
				if e, ok := op.Attrs.Elements("value"); ok && e.Type != nil && e.Type.Quant != nil {
					attrs := make(ir.Attrs, len(op.Attrs))
					for k, v := range op.Attrs {
						attrs[k] = v
					}
					attrs["value"] = &ir.ElementsAttr{Type: e.Type.StorageType(), Data: e.Data}
					op.Attrs = attrs
				}
				for _, sub := range op.Regions {
					region(sub)
				}
			}
		}
	}
	region(f.Body)
}

func storageOf(t ir.Type) ir.Type {
	switch tt := t.(type) {
	case *ir.TensorType:
		return tt.StorageType()
	case *ir.TupleType:
		if !ir.TypeQuantized(tt) {
			return t
		}
		elems := make([]ir.Type, len(tt.Elems))
		for i, e := range tt.Elems {
			elems[i] = storageOf(e)
		}
		return &ir.TupleType{Elems: elems}
	}
	return t
}
