package vhlo

import (
	"fmt"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/mlirbc"
)

// module converts the builtin.module op. Functions are decoded starting
// from the entry function ("main", else every public function) and
// following symbol references, so unused functions cost nothing and cannot
// make the read fail.
func (d *decoder) module(op *mlirbc.Op) (*ir.Module, error) {
	attrs, err := d.opAttrs(op)
	if err != nil {
		return nil, fmt.Errorf("builtin.module attributes: %w", err)
	}
	m := &ir.Module{Attrs: attrs}
	if err := op.Load(); err != nil {
		return nil, err
	}
	if len(op.Regions) != 1 || len(op.Regions[0].Blocks) != 1 {
		return nil, fmt.Errorf("builtin.module must have one region with one block")
	}
	type funcEntry struct {
		gop   *mlirbc.Op
		attrs ir.Attrs
		name  string
		fn    *ir.Func
	}
	var funcs []*funcEntry
	byName := map[string]*funcEntry{}
	for _, gop := range op.Regions[0].Blocks[0].Ops {
		if gop.Name() != "vhlo.func_v1" {
			g, err := d.op(gop, nil, false)
			if err != nil {
				return nil, err
			}
			m.Globals = append(m.Globals, g)
			continue
		}
		loc := d.locAt(gop.Loc)
		fa, err := d.opAttrs(gop)
		if err != nil {
			return nil, fmt.Errorf("vhlo.func_v1 at %s: %w", loc, err)
		}
		name, ok := fa["sym_name"].(ir.StringAttr)
		if !ok {
			return nil, fmt.Errorf("vhlo.func_v1 at %s: missing sym_name", loc)
		}
		if byName[name.Value] != nil {
			return nil, fmt.Errorf("function @%s defined twice", name.Value)
		}
		e := &funcEntry{gop: gop, attrs: fa, name: name.Value}
		funcs = append(funcs, e)
		byName[e.name] = e
	}
	var queue []*funcEntry
	switch {
	case d.opts.allFuncs:
		queue = append(queue, funcs...)
	case byName["main"] != nil:
		queue = append(queue, byName["main"])
	default:
		for _, e := range funcs {
			if vis, _ := e.attrs["sym_visibility"].(ir.StringAttr); vis.Value != "private" {
				queue = append(queue, e)
			}
		}
	}
	queued := map[*funcEntry]bool{}
	for _, e := range queue {
		queued[e] = true
	}
	for len(queue) > 0 {
		e := queue[0]
		queue = queue[1:]
		d.symRefs = d.symRefs[:0]
		fn, err := d.function(e.gop, e.attrs)
		if err != nil {
			if d.opts.lenient {
				d.funcErrs[e.name] = err
				continue
			}
			return nil, err
		}
		e.fn = fn
		for _, ref := range d.symRefs { // gathered by d.op while decoding fn
			// Undefined symbols are left for the verifier to report: a
			// custom_call may name computations gojax never needs.
			t := byName[ref]
			if t != nil && !queued[t] {
				queued[t] = true
				queue = append(queue, t)
			}
		}
	}
	for _, e := range funcs {
		if e.fn != nil {
			m.Funcs = append(m.Funcs, e.fn)
		}
	}
	return m, nil
}

// symbolRefs appends the functions that attributes refer to (calls,
// composite decompositions, custom_call called_computations, …).
func symbolRefs(attrs ir.Attrs, refs []string) []string {
	var visit func(a ir.Attr)
	visit = func(a ir.Attr) {
		switch a := a.(type) {
		case ir.SymbolRefAttr:
			refs = append(refs, a.Name)
		case ir.ArrayAttr:
			for _, e := range a.Elems {
				visit(e)
			}
		}
	}
	for _, a := range attrs {
		visit(a)
	}
	return refs
}
