package partition

import (
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/shardy"
)

// Control flow: a while loop's carries keep the shardings propagation
// gives them (it ties each carry's operand, block arguments, yielded value
// and result together), and its regions are partitioned like the entry
// block, each partition carrying its blocks; the loop condition is made
// whole so every partition takes the same number of trips. A case or if
// runs its branches partitioned on a whole selector, each branch's results
// resharded to the op's result shardings.

// subRegion partitions region r (one block) of the global program into a
// new region whose block arguments are the blocks of r's arguments laid
// out by args; the terminator's operands are resharded to outs.
func (b *builder) subRegion(r *ir.Region, args, outs []*shardy.Sharding) (*ir.Region, bool) {
	if len(r.Blocks) != 1 {
		return nil, false
	}
	src := r.Blocks[0]
	term := src.Terminator()
	if term == nil || len(src.Args) != len(args) || len(term.Operands) != len(outs) {
		return nil, false
	}
	types := make([]ir.Type, len(args))
	for i, a := range src.Args {
		t, ok := a.Type.(*ir.TensorType)
		if !ok {
			return nil, false
		}
		types[i] = b.localType(t, args[i])
	}
	saved := b.blk
	b.blk = ir.NewBlock(types...)
	defer func() { b.blk = saved }()
	for i, a := range src.Args {
		b.local[a] = local{v: b.blk.Args[i], s: args[i]}
	}
	for _, op := range src.Ops {
		if op == term {
			break
		}
		b.op(op)
	}
	res := make([]*ir.Value, len(term.Operands))
	for i, v := range term.Operands {
		res[i] = b.reshard(v, outs[i])
	}
	b.emit(ir.NewOp(term.Name, res, nil, term.Attrs))
	return ir.NewRegion(b.blk), true
}

// carries are the shardings of op's results as the loop carries them.
func (b *builder) carries(op *ir.Op) []*shardy.Sharding {
	out := make([]*shardy.Sharding, len(op.Results))
	for i, r := range op.Results {
		out[i] = b.target(r)
	}
	return out
}

func (b *builder) while(op *ir.Op) bool {
	if len(op.Regions) != 2 || len(op.Operands) != len(op.Results) {
		return false
	}
	ss := b.carries(op)
	cond, ok1 := b.subRegion(op.Regions[0], ss, []*shardy.Sharding{nil})
	body, ok2 := b.subRegion(op.Regions[1], ss, ss)
	if !ok1 || !ok2 {
		return false
	}
	ins := make([]*ir.Value, len(op.Operands))
	types := make([]ir.Type, len(op.Results))
	for i, v := range op.Operands {
		ins[i] = b.reshard(v, ss[i])
		types[i] = b.localType(op.Results[i].Type.(*ir.TensorType), ss[i])
	}
	b.emitRegions(op, ins, types, ss, cond, body)
	return true
}

// branches partitions stablehlo.case and stablehlo.if: the selector is
// read whole, each branch yields its results laid out by the op's.
func (b *builder) branches(op *ir.Op) bool {
	if len(op.Operands) != 1 {
		return false
	}
	ss := b.carries(op)
	regions := make([]*ir.Region, len(op.Regions))
	for i, r := range op.Regions {
		nr, ok := b.subRegion(r, nil, ss)
		if !ok {
			return false
		}
		regions[i] = nr
	}
	types := make([]ir.Type, len(op.Results))
	for i, r := range op.Results {
		types[i] = b.localType(r.Type.(*ir.TensorType), ss[i])
	}
	b.emitRegions(op, []*ir.Value{b.reshard(op.Operands[0], nil)}, types, ss, regions...)
	return true
}

func (b *builder) emitRegions(op *ir.Op, ins []*ir.Value, types []ir.Type, ss []*shardy.Sharding, regions ...*ir.Region) {
	b.count(1, 0, 0)
	c := ir.NewOp(op.Name, ins, types, op.Attrs)
	c.Loc = op.Loc
	for _, r := range regions {
		c.AddRegion(r)
	}
	b.emit(c)
	for i, r := range op.Results {
		b.local[r] = local{v: c.Results[i], s: ss[i]}
	}
}
