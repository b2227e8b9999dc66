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
	m    *ir.Module
	repl map[*ir.Value]*ir.Value
}

func (in *inliner) region(r *ir.Region, stack []string) error {
	for _, b := range r.Blocks {
		if err := in.block(b, stack); err != nil {
			return err
		}
	}
	return nil
}

func (in *inliner) block(b *ir.Block, stack []string) error {
	var out []*ir.Op
	for _, op := range b.Ops {
		for _, r := range op.Regions {
			if err := in.region(r, stack); err != nil {
				return err
			}
		}
		if op.Name != "func.call" {
			out = append(out, op)
			continue
		}
		body, err := in.expand(op, stack)
		if err != nil {
			return err
		}
		for _, nop := range body {
			nop.Block = b
		}
		out = append(out, body...)
	}
	b.Ops = out
	return nil
}

// expand returns the callee's ops (recursively inlined), with arguments bound
// to the call's operands, and records call result → returned value.
func (in *inliner) expand(call *ir.Op, stack []string) ([]*ir.Op, error) {
	name := symbolName(call.Attrs["callee"])
	f := in.m.Func(name)
	if f == nil {
		return nil, call.Errorf("callee @%s is not defined", name)
	}
	for _, s := range stack {
		if s == name {
			return nil, call.Errorf("recursive call to @%s (call chain %s)", name, strings.Join(stack, " → "))
		}
	}
	// No depth limit: the check above catches every cycle, and nesting
	// (nested jits, conds) is bounded only by what the reader accepts.
	entry := f.Entry()
	if len(entry.Args) != len(call.Operands) {
		return nil, call.Errorf("@%s takes %d arguments, call passes %d", name, len(entry.Args), len(call.Operands))
	}
	vmap := map[*ir.Value]*ir.Value{}
	for i, a := range entry.Args {
		vmap[a] = call.Operands[i]
	}
	// Clone into a scratch block so nested calls are inlined with the same code.
	scratch := ir.NewBlock()
	ir.NewRegion(scratch)
	for _, op := range entry.Ops {
		scratch.Append(cloneOp(op, vmap))
	}
	ret := scratch.Terminator()
	if ret == nil || ret.Name != "func.return" {
		return nil, call.Errorf("@%s does not end in func.return", name)
	}
	if len(ret.Operands) != len(call.Results) {
		return nil, call.Errorf("@%s returns %d values, call expects %d", name, len(ret.Operands), len(call.Results))
	}
	if in.repl == nil {
		in.repl = map[*ir.Value]*ir.Value{}
	}
	if err := in.block(scratch, append(stack[:len(stack):len(stack)], name)); err != nil {
		return nil, err
	}
	ret = scratch.Terminator()
	for i, r := range call.Results {
		if !ir.TypesEqual(r.Type, ret.Operands[i].Type) {
			return nil, call.Errorf("result %d has type %s, @%s returns %s", i, r.Type, name, ret.Operands[i].Type)
		}
		in.repl[r] = ret.Operands[i]
	}
	// Inlined ops keep the callee's locations, so errors still point at them.
	return scratch.Ops[:len(scratch.Ops)-1], nil
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
