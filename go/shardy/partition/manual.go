package partition

import (
	"slices"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/shardy"
)

// A program that is one manual computation over every mesh axis (what
// jax.shard_map over the whole mesh lowers to), taking the arguments as
// they are sharded and giving the results as they are sharded, is already
// written per partition: its body is each partition's program, with the
// collectives it names. wholeManual returns that program, or nil when the
// entry function is not of this form (the general path refuses manual
// computations).
func wholeManual(in Input, f *ir.Func) *Program {
	entry := f.Entry()
	ret := entry.Terminator()
	var op *ir.Op
	for _, o := range entry.Ops {
		switch {
		case o == ret || identityCast(o):
		case o.Name == "sdy.manual_computation" && op == nil:
			op = o
		default:
			return nil
		}
	}
	if op == nil || ret == nil || len(ret.Operands) != len(op.Results) || len(op.Operands) != len(entry.Args) {
		return nil
	}
	for i, v := range ret.Operands {
		if source(v) != op.Results[i] {
			return nil
		}
	}
	for i, v := range op.Operands {
		if source(v) != entry.Args[i] {
			return nil
		}
	}
	if len(op.Regions) != 1 || len(op.Regions[0].Blocks) != 1 || !manualOverAll(op, in.Mesh) {
		return nil
	}
	if !sameLayouts(op, "in_shardings", op.Operands, in.Args, in) || !sameLayouts(op, "out_shardings", op.Results, in.Outs, in) {
		return nil
	}
	body := op.Regions[0].Blocks[0]
	if !plainBody(body) {
		return nil
	}
	prog := &Program{FallbackOps: map[string]int{}}
	for p := 0; p < in.Mesh.Size(); p++ {
		vm := map[*ir.Value]*ir.Value{}
		blk := freshBlocks(&ir.Region{Blocks: []*ir.Block{body}}, vm)[0]
		term := body.Terminator()
		for _, o := range body.Ops {
			if o == term {
				break
			}
			blk.Append(cloneOp(o, vm))
		}
		res := make([]*ir.Value, len(term.Operands))
		types := make([]ir.Type, len(term.Operands))
		for i, v := range term.Operands {
			res[i] = mapped(vm, v)
			types[i] = res[i].Type
		}
		blk.Append(ir.NewOp(ret.Name, res, nil, ret.Attrs))
		ins := make([]ir.Type, len(blk.Args))
		for i, a := range blk.Args {
			ins[i] = a.Type
		}
		g := &ir.Func{Name: f.Name, Visibility: f.Visibility, Type: ir.FuncType{Inputs: ins, Results: types}, Loc: f.Loc}
		g.Body = ir.NewRegion(blk)
		attrs := ir.Attrs{}
		for k, v := range in.Module.Attrs {
			attrs[k] = v
		}
		attrs["mhlo.num_partitions"] = ir.IntAttr{Value: 1, Type: ir.S32}
		prog.Parts = append(prog.Parts, &ir.Module{Funcs: []*ir.Func{g}, Attrs: attrs, Producer: in.Module.Producer, Globals: in.Module.Globals})
	}
	prog.Local = len(body.Ops) - 1
	return prog
}

// identityCast reports whether op is a cast of a value to its own type
// (the bytecode reader leaves such casts around manual computations).
func identityCast(op *ir.Op) bool {
	return op.Name == "builtin.unrealized_conversion_cast" && len(op.Operands) == 1 && len(op.Results) == 1 &&
		op.Operands[0].Type.String() == op.Results[0].Type.String()
}

// source is v seen through identity casts.
func source(v *ir.Value) *ir.Value {
	for v.Def != nil && identityCast(v.Def) {
		v = v.Def.Operands[0]
	}
	return v
}

// manualOverAll reports whether op's manual axes are all of mesh's axes.
func manualOverAll(op *ir.Op, mesh *shardy.Mesh) bool {
	a, ok := op.Attrs["manual_axes"].(ir.OpaqueAttr)
	if !ok {
		return false
	}
	names, err := shardy.ParseManualAxes(a.Text)
	if err != nil || len(names) != len(mesh.Axes) {
		return false
	}
	for _, ax := range mesh.Axes {
		if !slices.Contains(names, ax.Name) {
			return false
		}
	}
	return true
}

// sameLayouts reports whether the op's per-value shardings (attribute key)
// lay vals out as want does, block for block.
func sameLayouts(op *ir.Op, key string, vals []*ir.Value, want []*shardy.Sharding, in Input) bool {
	a, ok := op.Attrs[key].(ir.OpaqueAttr)
	if !ok || len(want) != len(vals) {
		return false
	}
	texts, err := shardy.SplitPerValue(a.Text)
	if err != nil || len(texts) != len(vals) {
		return false
	}
	for i, text := range texts {
		t := vals[i].Tensor()
		if t == nil {
			return false
		}
		s, _, err := shardy.ParseSharding(text, in.Meshes, t.Rank())
		if err != nil || !sameLayout(s, want[i], t.Rank(), in.Mesh) {
			return false
		}
		if checkType(t, s, in.Mesh) != nil {
			return false
		}
	}
	return true
}

// sameLayout reports whether a and b (nil: replicated) put the same block of
// a rank-dimensional value on every partition of mesh, with nothing held
// unreduced.
func sameLayout(a, b *shardy.Sharding, rank int, mesh *shardy.Mesh) bool {
	dims := func(s *shardy.Sharding) ([][]shardy.Axis, bool) {
		if s == nil {
			return make([][]shardy.Axis, rank), true
		}
		if len(s.Unreduced) > 0 || len(s.Dims) != rank || (s.Mesh != nil && !s.Mesh.Empty() && s.Mesh.String() != mesh.String()) {
			return nil, false
		}
		return s.Dims, true
	}
	da, oka := dims(a)
	db, okb := dims(b)
	if !oka || !okb {
		return false
	}
	for i := range da {
		if !slices.Equal(da[i], db[i]) {
			return false
		}
	}
	return true
}

// bodyRefused are ops a whole-manual body keeps global execution for: calls
// (the callee would have to travel with every partition's module), host
// code and effects (their runtime wiring is the global program's), and
// nested manual computations (inside a partition they take global operands).
var bodyRefused = map[string]bool{
	"func.call": true, "stablehlo.custom_call": true, "stablehlo.infeed": true, "stablehlo.outfeed": true,
	"stablehlo.send": true, "stablehlo.recv": true, "stablehlo.after_all": true, "stablehlo.create_token": true,
	"sdy.manual_computation": true,
}

// plainBody reports whether b and its regions hold only tensors and no op
// of bodyRefused.
func plainBody(b *ir.Block) bool {
	for _, a := range b.Args {
		if a.Tensor() == nil {
			return false
		}
	}
	for _, op := range b.Ops {
		if bodyRefused[op.Name] {
			return false
		}
		for _, r := range op.Results {
			if r.Tensor() == nil {
				return false
			}
		}
		for _, r := range op.Regions {
			for _, rb := range r.Blocks {
				if !plainBody(rb) {
					return false
				}
			}
		}
	}
	return true
}
