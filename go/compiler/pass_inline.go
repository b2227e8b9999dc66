package compiler

import (
	"strings"

	"github.com/gojax/gojax/go/ir"
)

// lowerComposites replaces each stablehlo.composite by a func.call of its
// decomposition; the inline pass then splices the body in. (Walk visits a
// composite's regions after the callback, and they are gone by then.)
func lowerComposites(st *passState) error {
	var err error
	for _, f := range st.module.Funcs {
		f.Body.Walk(func(op *ir.Op) bool {
			if op.Name != "stablehlo.composite" {
				return true
			}
			callee := symbolName(op.Attrs["decomposition"])
			if callee == "" {
				err = op.Errorf("composite has no decomposition function")
				return false
			}
			if st.module.Func(callee) == nil {
				err = op.Errorf("composite decomposition @%s is not defined", callee)
				return false
			}
			// composite_regions (chlo.scan's body, …) only describe the op
			// for backends that pattern-match it; the decomposition is the
			// full implementation.
			op.Regions = nil
			name, _ := op.Attrs.Str("name")
			op.Name = "func.call"
			op.Attrs = ir.Attrs{"callee": ir.SymbolRefAttr{Name: callee}, "gojax.composite": ir.StringAttr{Value: name}}
			return true
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// symbolName reads a function reference stored as a symbol or a string
// (VHLO's call_v1 keeps callee as a string).
func symbolName(a ir.Attr) string {
	switch a := a.(type) {
	case ir.SymbolRefAttr:
		return strings.TrimPrefix(a.Name, "@")
	case ir.StringAttr:
		return strings.TrimPrefix(a.Value, "@")
	}
	return ""
}

// inlineCalls splices every func.call's callee body into the caller, so the
// planner sees one flat function; then drops every function but the entry.
func inlineCalls(st *passState) error {
	in := &inliner{m: st.module}
	if err := in.region(st.entry.Body, []string{st.entry.Name}); err != nil {
		return err
	}
	replaceUses(st.entry.Body, in.repl)
	st.module.Funcs = []*ir.Func{st.entry}
	return nil
}

type inliner struct {
	m     *ir.Module
	repl  map[*ir.Value]*ir.Value
	funcs map[string]*ir.Func
}

func (in *inliner) region(r *ir.Region, stack []string) error {
	for _, b := range r.Blocks {
		if err := in.block(b, stack); err != nil {
			return err
		}
	}
	return nil
}

// inlining is a callee body being spliced into a block: its cloned ops
// still to place, ending in the clone of its func.return.
type inlining struct {
	ops  []*ir.Op
	call *ir.Op
	name string
}

// block splices the callees of b's calls in place, depth first, with an
// explicit stack of bodies being inlined: every op is placed once, so a
// chain of d nested calls costs O(d) (the recursive splice copied each
// inlined body again at every level, O(d²)). stack is the chain of
// functions whose bodies enclose b.
func (in *inliner) block(b *ir.Block, stack []string) error {
	chain := stack[:len(stack):len(stack)]
	active := make(map[string]bool, len(stack))
	for _, s := range stack {
		active[s] = true
	}
	out := make([]*ir.Op, 0, len(b.Ops))
	work := []inlining{{ops: b.Ops}}
	for len(work) > 0 {
		top := &work[len(work)-1]
		if len(top.ops) == 0 {
			work = work[:len(work)-1]
			continue
		}
		op := top.ops[0]
		top.ops = top.ops[1:]
		if top.call != nil && len(top.ops) == 0 {
			// The callee's return: its operands stand for the call's results.
			if err := in.bindResults(top.call, top.name, op); err != nil {
				return err
			}
			delete(active, top.name)
			chain = chain[:len(chain)-1]
			continue
		}
		for _, r := range op.Regions {
			if err := in.region(r, chain); err != nil {
				return err
			}
		}
		if op.Name != "func.call" {
			op.Block = b
			out = append(out, op)
			continue
		}
		name, body, err := in.clone(op, chain, active)
		if err != nil {
			return err
		}
		if lateInlined(op) {
			ops, err := in.keepCall(op, name, body, chain)
			if err != nil {
				return err
			}
			for _, o := range ops {
				o.Block = b
			}
			out = append(out, ops...)
			continue
		}
		active[name] = true
		chain = append(chain, name)
		work = append(work, inlining{ops: body, call: op, name: name})
	}
	b.Ops = out
	return nil
}

// clone returns the callee's ops, its func.return last, with arguments
// bound to the call's operands.
func (in *inliner) clone(call *ir.Op, chain []string, active map[string]bool) (string, []*ir.Op, error) {
	name := symbolName(call.Attrs["callee"])
	if in.funcs == nil {
		in.funcs = make(map[string]*ir.Func, len(in.m.Funcs))
		for _, f := range in.m.Funcs {
			if _, dup := in.funcs[f.Name]; !dup {
				in.funcs[f.Name] = f
			}
		}
	}
	f := in.funcs[name]
	if f == nil {
		return "", nil, call.Errorf("callee @%s is not defined", name)
	}
	if active[name] {
		return "", nil, call.Errorf("recursive call to @%s (call chain %s)", name, strings.Join(chain, " → "))
	}
	// No depth limit: the check above catches every cycle, and nesting
	// (nested jits, conds) is bounded only by what the reader accepts.
	entry := f.Entry()
	if len(entry.Args) != len(call.Operands) {
		return "", nil, call.Errorf("@%s takes %d arguments, call passes %d", name, len(entry.Args), len(call.Operands))
	}
	vmap := map[*ir.Value]*ir.Value{}
	for i, a := range entry.Args {
		vmap[a] = call.Operands[i]
	}
	ops := make([]*ir.Op, len(entry.Ops))
	for i, op := range entry.Ops {
		ops[i] = cloneOp(op, vmap)
	}
	if len(ops) == 0 || ops[len(ops)-1].Name != "func.return" {
		return "", nil, call.Errorf("@%s does not end in func.return", name)
	}
	if ret := ops[len(ops)-1]; len(ret.Operands) != len(call.Results) {
		return "", nil, call.Errorf("@%s returns %d values, call expects %d", name, len(ret.Operands), len(call.Results))
	}
	// Inlined ops keep the callee's locations, so errors still point at them.
	return name, ops, nil
}

// lateInlined reports a call JAX marks for XLA's late inlining
// (jax.jit(inline=XLA_LATE), and JAX's program-order barriers): XLA:CPU
// keeps such a call, and so does gojax, as a call step that fusion does
// not cross.
func lateInlined(call *ir.Op) bool {
	fa, ok := call.Attrs["mhlo.frontend_attributes"].(ir.DictAttr)
	if !ok {
		return false
	}
	s, _ := fa.Entries.Str("inlineable")
	return s == "xla_late"
}

// keepCall turns a call kept as a call into a one-branch stablehlo.case on
// a constant index whose branch is the callee's body (calls inside it are
// inlined there): the planner runs it as a sub-plan, and export prints it
// as a call again (gojax.call names the callee).
func (in *inliner) keepCall(call *ir.Op, name string, body []*ir.Op, chain []string) ([]*ir.Op, error) {
	blk := ir.NewBlock()
	for _, o := range body[:len(body)-1] {
		blk.Append(o)
	}
	ret := body[len(body)-1]
	blk.Append(ir.NewOp("stablehlo.return", ret.Operands, nil, nil)).Loc = ret.Loc
	region := ir.NewRegion(blk)
	if err := in.region(region, append(chain[:len(chain):len(chain)], name)); err != nil {
		return nil, err
	}
	scalar := &ir.TensorType{Elem: ir.S32}
	index := ir.NewOp("stablehlo.constant", nil, []ir.Type{scalar},
		ir.Attrs{"value": &ir.ElementsAttr{Type: scalar, Data: make([]byte, 4)}})
	index.Loc = call.Loc
	types := make([]ir.Type, len(call.Results))
	for i, r := range call.Results {
		types[i] = r.Type
	}
	kept := ir.NewOp("stablehlo.case", []*ir.Value{index.Result()}, types, ir.Attrs{"gojax.call": ir.StringAttr{Value: name}})
	kept.Loc = call.Loc
	kept.AddRegion(region)
	if err := in.bindResults(call, name, ret); err != nil {
		return nil, err
	}
	for i, r := range call.Results {
		in.repl[r] = kept.Results[i]
	}
	return []*ir.Op{index, kept}, nil
}

// bindResults records call result → returned value.
func (in *inliner) bindResults(call *ir.Op, name string, ret *ir.Op) error {
	if in.repl == nil {
		in.repl = map[*ir.Value]*ir.Value{}
	}
	for i, r := range call.Results {
		if !ir.TypesEqual(r.Type, ret.Operands[i].Type) {
			return call.Errorf("result %d has type %s, @%s returns %s", i, r.Type, name, ret.Operands[i].Type)
		}
		in.repl[r] = ret.Operands[i]
	}
	return nil
}

// attachCalledComputations gives every custom call that names functions in
// called_computations (ApproxTopK's comparator) a copy of each function's
// body as a region, in order, so its kernel can compile them with
// CompileRegion: functions other than the entry are dropped by inlining,
// and kernels cannot resolve symbols. The copies end in stablehlo.return
// like any kernel region; calls inside them are inlined by the next pass.
func attachCalledComputations(st *passState) error {
	// chain holds the functions whose copies enclose r: only a function that
	// encloses a copy of itself is a cycle; ordinary regions (conds, loops)
	// nest as deep as the program does.
	var attach func(r *ir.Region, chain []string) error
	attach = func(r *ir.Region, chain []string) error {
		for _, b := range r.Blocks {
			for _, op := range b.Ops {
				arr, ok := op.Attrs["called_computations"].(ir.ArrayAttr)
				var from []string // callee of each attached region
				if op.Name == "stablehlo.custom_call" && ok && len(arr.Elems) > 0 && len(op.Regions) == 0 {
					for _, e := range arr.Elems {
						name := symbolName(e)
						for _, c := range chain {
							if c == name {
								return op.Errorf("called computation @%s calls itself (chain %s)", name, strings.Join(append(chain, name), " → "))
							}
						}
						from = append(from, name)
						callee := st.module.Func(name)
						if callee == nil {
							return op.Errorf("called computation %s is not defined", e)
						}
						body := cloneRegion(callee.Body, map[*ir.Value]*ir.Value{})
						for _, cb := range body.Blocks {
							if t := cb.Terminator(); t != nil && t.Name == "func.return" {
								t.Name = "stablehlo.return"
							}
						}
						op.AddRegion(body)
					}
				}
				for i, sub := range op.Regions {
					inner := chain
					if i < len(from) {
						inner = append(chain[:len(chain):len(chain)], from[i])
					}
					if err := attach(sub, inner); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	for _, f := range st.module.Funcs {
		if err := attach(f.Body, nil); err != nil {
			return err
		}
	}
	return nil
}
