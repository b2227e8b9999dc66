// Package partition rewrites an SPMD program written in global shapes into
// one program per partition that computes only that partition's shards,
// exchanging data with collectives (stablehlo.all_gather, all_reduce with
// flattened partition ids), as XLA's SPMD partitioner does. Every value
// gets the sharding propagation gives it (go/shardy/propagate); each op
// either runs on its operands' local blocks (rules.go) after they are
// resharded to the layout the rule needs, or, without a rule, runs
// replicated on all-gathered operands with its results sliced to their
// shardings, so every op stays correct.
//
// Loops and branches are partitioned region by region (control.go).
// Programs the partitioner cannot treat safely (effects, custom calls without a sharding rule,
// manual computations, tokens, uneven shards, unreduced arguments, several
// meshes) are refused with an error wrapping ErrUnsupported: the runtime
// then keeps running them on global arrays. A program that is one manual
// computation over the whole mesh is the exception (manual.go).
//
// Each partition gets its own module: offsets of the blocks a partition
// slices are constants of its module, so no partition id arithmetic is
// needed.
package partition

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/shardy"
	"github.com/gojax/gojax/go/shardy/propagate"
)

// ErrUnsupported marks programs the partitioner leaves to global execution.
var ErrUnsupported = errors.New("not partitioned")

func unsupported(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUnsupported, fmt.Sprintf(format, args...))
}

// Input is a global SPMD program and how its arguments and results are
// sharded (nil entries are replicated), all over Mesh.
type Input struct {
	Module *ir.Module
	Meshes map[string]*shardy.Mesh
	Mesh   *shardy.Mesh
	Args   []*shardy.Sharding
	Outs   []*shardy.Sharding
}

// Program is the partitioned program: one module per partition.
type Program struct {
	Parts []*ir.Module
	// Stats counts how the ops were partitioned (for introspection).
	Local, Fallback, Collectives int
	// FallbackOps counts the fallback ops by name.
	FallbackOps map[string]int
}

// Build partitions in.Module for every partition of in.Mesh.
func Build(in Input) (*Program, error) {
	mesh := in.Mesh
	if mesh == nil || len(mesh.Axes) == 0 {
		return nil, unsupported("no mesh with axes")
	}
	for _, a := range mesh.Axes {
		if a.Pre > 1 {
			return nil, unsupported("sub-axes")
		}
	}
	f := in.Module.Main()
	if f == nil || f.Body == nil || len(f.Body.Blocks) != 1 {
		return nil, unsupported("entry function is not one block")
	}
	if prog := wholeManual(in, f); prog != nil {
		return prog, nil
	}
	for i, s := range in.Args {
		if err := checkSharding(s, mesh); err != nil {
			return nil, fmt.Errorf("argument %d: %w", i, err)
		}
	}
	for i, s := range in.Outs {
		if err := checkSharding(withoutUnreduced(s), mesh); err != nil {
			return nil, fmt.Errorf("result %d: %w", i, err)
		}
	}
	for i, t := range f.Type.Inputs {
		if err := checkType(t, in.Args[i], mesh); err != nil {
			return nil, fmt.Errorf("argument %d: %w", i, err)
		}
	}
	for i, t := range f.Type.Results {
		if err := checkType(t, withoutUnreduced(in.Outs[i]), mesh); err != nil {
			return nil, fmt.Errorf("result %d: %w", i, err)
		}
	}
	g, err := flatten(in.Module, f)
	if err != nil {
		return nil, err
	}
	gm := &ir.Module{Funcs: []*ir.Func{g}, Attrs: in.Module.Attrs, Producer: in.Module.Producer, Globals: in.Module.Globals}
	vals, err := propagate.Values(gm, in.Meshes, mesh)
	if err != nil {
		return nil, err
	}
	// Intermediate values propagation cuts unevenly (or with sub-axes)
	// stay replicated: any layout is correct, since every op reshards its
	// operands to what it needs.
	for v, s := range vals {
		if checkType(v.Type, s, mesh) != nil {
			delete(vals, v)
		}
	}
	prog := &Program{FallbackOps: map[string]int{}}
	for p := 0; p < mesh.Size(); p++ {
		b := &builder{mesh: mesh, part: p, vals: vals, prog: prog, first: p == 0, meshes: in.Meshes}
		m, err := b.function(gm, g, in.Args, in.Outs)
		if err != nil {
			return nil, err
		}
		prog.Parts = append(prog.Parts, m)
	}
	return prog, nil
}

// withoutUnreduced is s without its unreduced axes: results may be held
// unreduced (sum, max or min): the ops producing them leave their partial
// values uncombined along those axes (see reshard).
func withoutUnreduced(s *shardy.Sharding) *shardy.Sharding {
	if s == nil || len(s.Unreduced) == 0 {
		return s
	}
	switch s.Reduction {
	case "sum", "max", "min", "":
	default:
		return s // refused by checkSharding
	}
	c := *s
	c.Unreduced = nil
	return &c
}

// checkSharding refuses shardings the partitioner does not lay out.
func checkSharding(s *shardy.Sharding, mesh *shardy.Mesh) error {
	if s == nil {
		return nil
	}
	if len(s.Unreduced) > 0 {
		return unsupported("unreduced sharding")
	}
	if s.Mesh != nil && !s.Mesh.Empty() && s.Mesh.String() != mesh.String() {
		return unsupported("sharding over another mesh %s", s.Mesh)
	}
	for _, axes := range s.Dims {
		for _, a := range axes {
			if a.Pre > 1 {
				return unsupported("sub-axis sharding")
			}
			if ma, ok := mesh.Axis(a.Name); !ok || ma.Size != a.Size {
				return unsupported("axis %q is not a whole mesh axis", a.Name)
			}
		}
	}
	return nil
}

// checkType refuses non-tensor values and uneven shards.
func checkType(t ir.Type, s *shardy.Sharding, mesh *shardy.Mesh) error {
	tt, ok := t.(*ir.TensorType)
	if !ok {
		return unsupported("value of type %v", t)
	}
	for _, d := range tt.Shape {
		if d < 0 {
			return unsupported("dynamic shape %v", tt)
		}
	}
	if s == nil {
		return nil
	}
	if err := checkSharding(s, mesh); err != nil {
		return err
	}
	if len(s.Dims) != len(tt.Shape) {
		return unsupported("sharding rank %d for %v", len(s.Dims), tt)
	}
	if _, _, err := s.ShardOf(mesh, tt.Shape, 0); err != nil {
		return unsupported("uneven shards: %v", err)
	}
	return nil
}

// refused are ops the partitioner does not run per partition: effects,
// host code, randomness with state and ops that already name partitions.
// Custom calls with a sharding rule are the exception (custom.go).
var refused = map[string]bool{
	"stablehlo.custom_call": true,
	"stablehlo.rng":         true, "stablehlo.rng_bit_generator": true, "stablehlo.infeed": true, "stablehlo.outfeed": true,
	"stablehlo.send": true, "stablehlo.recv": true, "stablehlo.after_all": true, "stablehlo.create_token": true,
	"stablehlo.partition_id": true, "stablehlo.replica_id": true, "stablehlo.all_gather": true,
	"stablehlo.all_reduce": true, "stablehlo.reduce_scatter": true, "stablehlo.all_to_all": true,
	"stablehlo.collective_permute": true, "stablehlo.collective_broadcast": true, "stablehlo.composite": true,
	"sdy.manual_computation": true, "sdy.sharding_group": true, "sdy.propagation_barrier": true,
	"stablehlo.optimization_barrier": true, "stablehlo.get_tuple_element": true, "stablehlo.tuple": true,
}

// flatten copies f's body with every func.call inlined (as Shardy's import
// does), refusing what the partitioner does not handle.
func flatten(m *ir.Module, f *ir.Func) (*ir.Func, error) {
	entry := f.Entry()
	blk := ir.NewBlock(f.Type.Inputs...)
	vm := map[*ir.Value]*ir.Value{}
	for i, a := range entry.Args {
		vm[a] = blk.Args[i]
	}
	if err := inlineBlock(m, entry, blk, vm, 0, true); err != nil {
		return nil, err
	}
	g := &ir.Func{Name: f.Name, Visibility: f.Visibility, Type: f.Type, ArgAttrs: f.ArgAttrs, ResAttrs: f.ResAttrs, Loc: f.Loc}
	g.Body = ir.NewRegion(blk)
	return g, nil
}

func inlineBlock(m *ir.Module, src, dst *ir.Block, vm map[*ir.Value]*ir.Value, depth int, top bool) error {
	if depth > 64 {
		return unsupported("calls nested too deep")
	}
	for _, op := range src.Ops {
		if op == src.Terminator() && !top {
			return nil // the caller maps the callee's results
		}
		if refused[op.Name] && !ruledCustomCall(op) {
			return unsupported("op %s", op.Name)
		}
		for _, r := range op.Results {
			if _, ok := r.Type.(*ir.TensorType); !ok {
				return unsupported("%s has a result of type %v", op.Name, r.Type)
			}
		}
		if op.Name == "func.call" {
			name := ""
			switch a := op.Attrs["callee"].(type) {
			case ir.SymbolRefAttr:
				name = a.Name
			case ir.StringAttr:
				name = a.Value
			}
			callee := m.Func(strings.TrimPrefix(name, "@"))
			if callee == nil || callee.Body == nil || len(callee.Body.Blocks) != 1 {
				return unsupported("call of @%s", name)
			}
			ce := callee.Entry()
			if len(ce.Args) != len(op.Operands) {
				return unsupported("call of @%s with %d operands", name, len(op.Operands))
			}
			inner := map[*ir.Value]*ir.Value{}
			for i, a := range ce.Args {
				inner[a] = vm[op.Operands[i]]
			}
			if err := inlineBlock(m, ce, dst, inner, depth+1, false); err != nil {
				return err
			}
			ret := ce.Terminator()
			if ret == nil || len(ret.Operands) != len(op.Results) {
				return unsupported("call of @%s: results do not match", name)
			}
			for i, r := range op.Results {
				vm[r] = inner[ret.Operands[i]]
			}
			continue
		}
		c := cloneShallow(op, vm)
		// Regions are copied with their calls inlined too.
		for _, r := range op.Regions {
			nr, err := inlineRegion(m, r, vm, depth)
			if err != nil {
				return err
			}
			c.AddRegion(nr)
		}
		dst.Append(c)
	}
	return nil
}

func inlineRegion(m *ir.Module, r *ir.Region, vm map[*ir.Value]*ir.Value, depth int) (*ir.Region, error) {
	blocks := freshBlocks(r, vm)
	for i, b := range r.Blocks {
		if err := inlineBlock(m, b, blocks[i], vm, depth+1, true); err != nil {
			return nil, err
		}
	}
	return ir.NewRegion(blocks...), nil
}

// cloneOp copies op with operands mapped through vm (values defined
// outside vm stay), regions deep-copied, and records its results in vm.
func cloneOp(op *ir.Op, vm map[*ir.Value]*ir.Value) *ir.Op {
	c := cloneShallow(op, vm)
	for _, r := range op.Regions {
		c.AddRegion(cloneRegion(r, vm))
	}
	return c
}

// cloneShallow is cloneOp without the regions.
func cloneShallow(op *ir.Op, vm map[*ir.Value]*ir.Value) *ir.Op {
	ins := make([]*ir.Value, len(op.Operands))
	for i, v := range op.Operands {
		ins[i] = mapped(vm, v)
	}
	types := make([]ir.Type, len(op.Results))
	for i, r := range op.Results {
		types[i] = r.Type
	}
	c := ir.NewOp(op.Name, ins, types, op.Attrs)
	c.Loc = op.Loc
	for i, r := range op.Results {
		vm[r] = c.Results[i]
	}
	return c
}

func mapped(vm map[*ir.Value]*ir.Value, v *ir.Value) *ir.Value {
	if n, ok := vm[v]; ok {
		return n
	}
	return v
}

// freshBlocks makes an empty block for each of r's, with arguments of the
// same types, and maps r's block arguments to them in vm.
func freshBlocks(r *ir.Region, vm map[*ir.Value]*ir.Value) []*ir.Block {
	var blocks []*ir.Block
	for _, b := range r.Blocks {
		types := make([]ir.Type, len(b.Args))
		for i, a := range b.Args {
			types[i] = a.Type
		}
		nb := ir.NewBlock(types...)
		for i, a := range b.Args {
			vm[a] = nb.Args[i]
		}
		blocks = append(blocks, nb)
	}
	return blocks
}

func cloneRegion(r *ir.Region, vm map[*ir.Value]*ir.Value) *ir.Region {
	blocks := freshBlocks(r, vm)
	for i, b := range r.Blocks {
		for _, op := range b.Ops {
			blocks[i].Append(cloneOp(op, vm))
		}
	}
	return ir.NewRegion(blocks...)
}
