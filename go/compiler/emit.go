package compiler

import (
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/fused"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// Emission: the plan's instructions, once every group has its slot.

func (b *builder) ref(v *ir.Value) ref {
	g := b.valGroup[v]
	n, _ := byteSize(v.Type)
	return ref{g.root().slot, n}
}

// emit produces the instructions of one block.
func (b *builder) emit(p *plan, blk *ir.Block) ([]instr, error) {
	var out []instr
	for _, op := range blk.Ops {
		switch op.Name {
		case "func.return", "stablehlo.return", "stablehlo.constant",
			"stablehlo.after_all", "stablehlo.create_token":
			continue // terminators are handled by the parent; tokens carry no data
		case "stablehlo.while":
			w, err := b.emitWhile(p, op)
			if err != nil {
				return nil, err
			}
			out = append(out, w)
		case "stablehlo.case", "stablehlo.if":
			c, err := b.emitCase(p, op)
			if err != nil {
				return nil, err
			}
			out = append(out, c)
		default:
			k, err := b.emitKernel(op)
			if err != nil {
				return nil, err
			}
			if s, ok := k.(*sliceInstr); ok {
				s.foldConstIndexes(p)
			}
			out = append(out, k)
		}
	}
	out = mergeRelabels(out, blockUses(blk))
	if blk == b.top {
		p.stats.Steps = len(out)
	}
	return out, nil
}

// blockUses counts, per value, the operands in blk (nested regions and
// the terminator included) that read it.
func blockUses(blk *ir.Block) map[*ir.Value]int {
	r := ir.Region{Blocks: []*ir.Block{blk}}
	return useCounts(&r)
}

func (b *builder) emitWhile(p *plan, op *ir.Op) (instr, error) {
	cond, body := op.Regions[0].Blocks[0], op.Regions[1].Blocks[0]
	w := &whileInstr{}
	for i, v := range op.Operands {
		if c := (copyPair{b.ref(v), b.ref(body.Args[i])}); c.src.slot != c.dst.slot {
			w.init = append(w.init, c)
		}
	}
	ct := cond.Terminator()
	if ct == nil || len(ct.Operands) != 1 {
		return nil, op.Errorf("while cond must return one value")
	}
	if t := ct.Operands[0].Tensor(); t == nil || t.Elem != ir.Pred || t.NumElements() != 1 {
		return nil, op.Errorf("while cond must return tensor<i1>, got %s", ct.Operands[0].Type)
	}
	var err error
	if w.cond, err = b.emit(p, cond); err != nil {
		return nil, err
	}
	w.pred = b.ref(ct.Operands[0])
	if len(w.cond) == 1 {
		w.scalarCond, _ = w.cond[0].(*scalarInstr)
	}
	if w.body, err = b.emit(p, body); err != nil {
		return nil, err
	}
	w.tiny = true
	for _, in := range w.body {
		switch in := in.(type) {
		case *scalarInstr:
		case *sliceInstr:
			w.tiny = w.tiny && in.n <= smallCopyMax && in.arr.slot == in.dst.slot
		case *kernelInstr:
			w.tiny = w.tiny && in.ser != nil
		default:
			w.tiny = false
		}
	}
	for _, c := range b.stage[op] {
		w.stage = append(w.stage, copyPair{b.ref(c.src), ref{c.dst.root().slot, c.size}})
	}
	for _, s := range b.swapsOf[op] {
		w.swaps = append(w.swaps, [2]int{s[0].root().slot, s[1].root().slot})
	}
	w.counted = countLoop(p, w)
	return w, nil
}

func (b *builder) emitCase(p *plan, op *ir.Op) (instr, error) {
	c := &caseInstr{pred: op.Name == "stablehlo.if"}
	if len(op.Operands) != 1 || len(op.Regions) == 0 {
		return nil, op.Errorf("needs one operand and at least one region")
	}
	t := op.Operands[0].Tensor()
	switch {
	case t == nil || t.NumElements() != 1:
		return nil, op.Errorf("selector must be a scalar tensor, got %s", op.Operands[0].Type)
	case c.pred && (t.Elem != ir.Pred || len(op.Regions) != 2):
		return nil, op.Errorf("if needs an i1 predicate and two regions")
	case !c.pred && t.Elem != ir.S32:
		return nil, op.Errorf("case index must be tensor<i32>, got %s", t)
	}
	c.index = b.ref(op.Operands[0])
	copies := b.caseCopy[op]
	for i, r := range op.Regions {
		br, err := b.emit(p, r.Blocks[0])
		if err != nil {
			return nil, err
		}
		c.branches = append(c.branches, br)
		var cp []copyPair
		for _, x := range copies[i] {
			cp = append(cp, copyPair{b.ref(x.src), ref{x.dst.root().slot, x.size}})
		}
		c.copies = append(c.copies, cp)
	}
	return c, nil
}

func (b *builder) emitKernel(op *ir.Op) (instr, error) {
	ser, err := serialFusion(b.ctx, op)
	if err != nil {
		return nil, err
	}
	var step kernel.Step
	if ser != nil {
		step = ser.Step()
	} else if step, err = lowerKernel(b.ctx, op); err != nil {
		return nil, err
	}
	k := &kernelInstr{op: op, step: step, scratch: b.scratch, observed: !b.regionMode, ser: ser}
	if ser == nil {
		k.cstep = b.ctx.contextStep(op)
	}
	if ser != nil {
		k.serIdx = b.serials
		b.serials++
	}
	for _, v := range op.Operands {
		k.ins = append(k.ins, b.ref(v))
	}
	for _, r := range op.Results {
		k.outs = append(k.outs, b.ref(r))
	}
	b.scratch += len(k.ins) + len(k.outs)
	if op.Name == "stablehlo.custom_call" {
		if k.pre, err = b.operandAliases(op); err != nil {
			return nil, err
		}
	}
	b.kernels++
	k.copyOnly = relabelCopy(op)
	if s := newScalarInstr(k); s != nil {
		return s, nil
	}
	if s := newSliceInstr(k); s != nil {
		return s, nil
	}
	return k, nil
}

// serialFusion is the serial form of a fusion of at most one block (a
// small loop body's step: it runs on the calling thread anyway, and the
// frame's scratch replaces the fusion's pool), nil for other ops.
func serialFusion(ctx *compileCtx, op *ir.Op) (*fused.Serial, error) {
	if op.Name != fusionOp {
		return nil, nil
	}
	ser, err := kernel.Guard(func() (*fused.Serial, error) {
		s, _, err := fused.NewSerial(ctx, op)
		return s, err
	})
	if err != nil {
		return nil, opError(op, err)
	}
	return ser, nil
}

// smallCopyMax bounds the relabelings run as a plain copy: larger ones
// keep their kernel step, which splits a copy over the workers.
const smallCopyMax = 64 << 10

// relabelCopy reports a small op whose result is its operand's bytes
// unchanged: a relabeling inside fusions (fused.Relabels: a reshape, a
// same-width bitcast) or a broadcast_in_dim that only inserts unit
// dimensions (equal element counts, dimensions in order). A loop body's
// "stack" of a carried row (scan's ys) is one.
func relabelCopy(op *ir.Op) bool {
	if len(op.Operands) != 1 || len(op.Results) != 1 {
		return false
	}
	in, out := op.Operands[0].StaticTensor(), op.Results[0].StaticTensor()
	if in == nil || out == nil || out.ByteSize() > smallCopyMax || in.ByteSize() != out.ByteSize() {
		return false
	}
	if op.Name != "stablehlo.broadcast_in_dim" {
		return fused.Relabels(op)
	}
	dims, ok := op.Attrs.I64s("broadcast_dimensions")
	if in.Elem != out.Elem || in.NumElements() != out.NumElements() || len(dims) != in.Rank() || (!ok && in.Rank() > 0) {
		return false
	}
	for i, d := range dims {
		if d < 0 || int(d) >= out.Rank() || (i > 0 && d <= dims[i-1]) || out.Shape[d] != in.Shape[i] {
			return false
		}
	}
	return true
}

// operandAliases: a custom call whose output aliases an operand expects the
// operand's data already in the output buffer (it works in place).
func (b *builder) operandAliases(op *ir.Op) ([]copyPair, error) {
	a, ok := op.Attrs["output_operand_aliases"]
	if !ok {
		return nil, nil
	}
	var list []ir.Attr
	switch a := a.(type) {
	case ir.ArrayAttr:
		list = a.Elems
	case ir.OutputOperandAliasAttr:
		list = []ir.Attr{a}
	default:
		return nil, op.Errorf("output_operand_aliases has unexpected form %s", a)
	}
	var pre []copyPair
	for _, e := range list {
		al, ok := e.(ir.OutputOperandAliasAttr)
		if !ok {
			return nil, op.Errorf("output_operand_aliases entry %s is not an alias", e)
		}
		if len(al.OperandTupleIndices) > 0 || len(al.OutputTupleIndices) > 1 {
			return nil, op.Errorf("tuple output_operand_aliases are not supported")
		}
		out := int64(0)
		if len(al.OutputTupleIndices) == 1 {
			out = al.OutputTupleIndices[0]
		}
		if al.OperandIndex < 0 || int(al.OperandIndex) >= len(op.Operands) || out < 0 || int(out) >= len(op.Results) {
			return nil, op.Errorf("output_operand_alias %s is out of range", al)
		}
		src, dst := op.Operands[al.OperandIndex], op.Results[out]
		if !ir.TypesEqual(src.Type, dst.Type) {
			return nil, op.Errorf("aliased operand %d and result %d have different types", al.OperandIndex, out)
		}
		pre = append(pre, copyPair{b.ref(src), b.ref(dst)})
	}
	return pre, nil
}

// lowerKernel finds and runs the Lower function of an op.
func lowerKernel(ctx *compileCtx, op *ir.Op) (kernel.Step, error) {
	var lower kernel.Lower
	var ok bool
	if op.Name == "stablehlo.custom_call" {
		target, _ := op.Attrs.Str("call_target_name")
		if lower, ok = kernel.LookupCustomCall(target); !ok {
			return nil, op.Errorf("unknown custom call target %q", target)
		}
	} else if lower, ok = kernel.Lookup(op.Name); !ok {
		return nil, op.Errorf("no kernel for this op")
	}
	// Lower may build tables sized by the op (kernel.Make).
	step, err := kernel.Guard(func() (kernel.Step, error) { return lower(ctx, op) })
	if err != nil {
		return nil, opError(op, err)
	}
	if step == nil {
		return nil, op.Errorf("kernel returned no step")
	}
	return step, nil
}
