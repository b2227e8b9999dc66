// Package vhlo turns a StableHLO portable artifact (VHLO dialect in MLIR
// bytecode) into gojax IR: every vhlo.*_vN op becomes its canonical
// "stablehlo.*" op with typed attributes, func_v1/call_v1/return_v1 become
// functions, "func.call" and "func.return", and mixed-serialization content
// (sdy ops and attributes, unrealized_conversion_cast) is kept.
package vhlo

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/mlirbc"
)

// MaxVersion is the newest StableHLO (VHLO) version this reader supports; the
// plugin advertises it as stablehlo_current_version.
var MaxVersion = [3]int64{1, 20, 0}

// decoder holds the per-artifact state.
type decoder struct {
	f      *mlirbc.File
	values map[*mlirbc.Value]*ir.Value
	// funcTypes resolves function types carried as opaque attributes.
	funcTypes map[string]*vtype
	opts      readOptions
	funcErrs  map[string]error
}

// Read decodes a portable artifact into a module. Only the entry function
// ("main", or every public function when there is no main) and the functions
// it reaches through symbol references are decoded and returned.
func Read(code []byte) (*ir.Module, error) {
	m, _, err := read(code, readOptions{})
	return m, err
}

// checkProducer rejects artifacts from a StableHLO newer than MaxVersion.
// Producers that are not "StableHLO_vX.Y.Z" (old MLIR writers) are accepted.
func checkProducer(p string) error {
	v, ok := parseProducer(p)
	if !ok {
		return nil
	}
	for i := 0; i < 3; i++ {
		if v[i] != MaxVersion[i] {
			if v[i] > MaxVersion[i] {
				return fmt.Errorf("vhlo: artifact producer %q is newer than the newest supported StableHLO version %d.%d.%d",
					p, MaxVersion[0], MaxVersion[1], MaxVersion[2])
			}
			break
		}
	}
	return nil
}

func parseProducer(p string) ([3]int64, bool) {
	var v [3]int64
	s, ok := strings.CutPrefix(p, "StableHLO_v")
	if !ok {
		return v, false
	}
	parts := strings.SplitN(s, ".", 3)
	if len(parts) != 3 {
		return v, false
	}
	for i, part := range parts {
		// Tolerate suffixes such as "1.9.3-rc" by reading leading digits.
		j := 0
		for j < len(part) && part[j] >= '0' && part[j] <= '9' {
			j++
		}
		n, err := strconv.ParseInt(part[:j], 10, 64)
		if err != nil {
			return v, false
		}
		v[i] = n
	}
	return v, true
}

// readOptions tune how much of the module is decoded.
type readOptions struct {
	// allFuncs decodes every function, not only those reachable from the
	// entry function.
	allFuncs bool
	// lenient records per-function failures in funcErrs instead of failing.
	lenient bool
}

func read(code []byte, opts readOptions) (*ir.Module, map[string]error, error) {
	f, err := mlirbc.Parse(code)
	if err != nil {
		return nil, nil, fmt.Errorf("vhlo: %w", err)
	}
	if err := checkProducer(f.Producer); err != nil {
		return nil, nil, err
	}
	d := &decoder{f: f, values: map[*mlirbc.Value]*ir.Value{}, funcTypes: map[string]*vtype{}, opts: opts, funcErrs: map[string]error{}}
	top, err := f.TopLevel(true)
	if err != nil {
		return nil, nil, fmt.Errorf("vhlo: %w", err)
	}
	if len(top) != 1 || top[0].Name != "builtin.module" {
		names := make([]string, len(top))
		for i, op := range top {
			names[i] = op.Name
		}
		return nil, nil, fmt.Errorf("vhlo: expected one builtin.module at top level, got [%s]", strings.Join(names, ", "))
	}
	m, err := d.module(top[0])
	if err != nil {
		return nil, nil, fmt.Errorf("vhlo: %w", err)
	}
	m.Producer = f.Producer
	return m, d.funcErrs, nil
}

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
		if gop.Name != "vhlo.func_v1" {
			g, err := d.op(gop, nil, false)
			if err != nil {
				return nil, err
			}
			m.Globals = append(m.Globals, g)
			continue
		}
		loc, err := d.locAt(gop.Loc)
		if err != nil {
			return nil, err
		}
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
		fn, err := d.function(e.gop, e.attrs)
		if err != nil {
			if d.opts.lenient {
				d.funcErrs[e.name] = err
				continue
			}
			return nil, err
		}
		e.fn = fn
		for _, ref := range symbolRefs(fn) {
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

// symbolRefs lists the functions a function refers to (calls, composite
// decompositions, custom_call called_computations, …).
func symbolRefs(fn *ir.Func) []string {
	var refs []string
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
	fn.Body.Walk(func(op *ir.Op) bool {
		for _, a := range op.Attrs {
			visit(a)
		}
		return true
	})
	return refs
}

// opAttrs collects an op's attributes: the discardable dictionary, then the
// inherent attributes from its properties (format >= 5).
func (d *decoder) opAttrs(op *mlirbc.Op) (ir.Attrs, error) {
	attrs := ir.Attrs{}
	if op.HasAttrs {
		a, err := d.irAttrAt(op.Attrs)
		if err != nil {
			return nil, err
		}
		dict, ok := a.(ir.DictAttr)
		if !ok {
			return nil, fmt.Errorf("attribute dictionary is %s", a)
		}
		for k, v := range dict.Entries {
			attrs[k] = v
		}
	}
	if !op.HasProps {
		return attrs, nil
	}
	if !op.Registered {
		a, err := d.irAttrAt(op.PropsAttr)
		if err != nil {
			return nil, err
		}
		if dict, ok := a.(ir.DictAttr); ok {
			for k, v := range dict.Entries {
				attrs[k] = v
			}
		} else {
			attrs["properties"] = a
		}
		return attrs, nil
	}
	props, known := propertyLayout(op.Name)
	r := op.PropsReader()
	if !known {
		// An op gojax has no property layout for: keep the raw blob visible.
		b, _ := r.Bytes(uint64(r.Len()))
		attrs["properties"] = ir.OpaqueAttr{Dialect: op.Dialect, Text: fmt.Sprintf("<properties %x>", b)}
		return attrs, nil
	}
	for _, p := range props {
		name := p.name
		var idx uint64
		var err error
		if p.optional {
			var present bool
			idx, present, err = r.VarIntWithFlag()
			if err != nil {
				return nil, err
			}
			if !present {
				continue
			}
		} else if idx, err = r.VarInt(); err != nil {
			return nil, err
		}
		if attrs[name], err = d.irAttrAt(idx); err != nil {
			return nil, fmt.Errorf("property %s: %w", name, err)
		}
	}
	if !r.Empty() {
		return nil, r.Errorf("%d trailing bytes in the properties of %s", r.Len(), op.Name)
	}
	return attrs, nil
}

// propertyLayout gives the property layout of an op: attributes in
// bytecode order, each required or optional.
func propertyLayout(name string) ([]prop, bool) {
	if short, ok := strings.CutPrefix(name, "vhlo."); ok {
		info, ok := vhloOps[short]
		if !ok {
			return nil, false
		}
		props := make([]prop, len(info.props))
		for i, p := range info.props {
			props[i] = prop{name: p} // VHLO attributes are all required
		}
		return props, true
	}
	if props, ok := otherProps[name]; ok {
		return props, true
	}
	return nil, false
}

// prop is one inherent attribute in an op's property blob.
type prop struct {
	name     string
	optional bool // written with a presence flag (OptionalAttr, DefaultValuedAttr)
}

// otherProps gives the property layout (ODS: attributes sorted by name) of
// the non-VHLO ops that appear in mixed-serialization artifacts: builtin and
// Shardy (openxla/shardy shardy/dialect/sdy/ir/ops.td).
var otherProps = map[string][]prop{
	"builtin.module":                     {{"sym_name", true}, {"sym_visibility", true}},
	"builtin.unrealized_conversion_cast": {},
	"sdy.mesh":                           {{"mesh", false}, {"sym_name", false}},
	"sdy.sharding_constraint":            {{"sharding", false}},
	"sdy.reshard":                        {{"sharding", false}},
	"sdy.return":                         {},
	"sdy.manual_computation":             {{"in_shardings", false}, {"manual_axes", false}, {"out_shardings", false}},
	"sdy.sharding_group":                 {{"group_id", false}},
	"sdy.constant":                       {{"value", false}},
	"sdy.data_flow_edge":                 {{"sharding", true}},
	"sdy.propagation_barrier":            {{"allowed_direction", false}},
	"sdy.named_computation":              {{"in_shardings", true}, {"name", false}, {"out_shardings", true}},
	"sdy.all_gather":                     {{"gathering_axes", false}, {"out_sharding", false}},
	"sdy.all_slice":                      {{"out_sharding", false}, {"slicing_axes", false}},
	"sdy.all_to_all":                     {{"out_sharding", false}, {"params", false}},
	"sdy.collective_permute":             {{"out_sharding", false}},
	"sdy.all_reduce":                     {{"out_sharding", false}, {"reduction_axes", false}, {"reduction_op", true}},
	"sdy.reduce_scatter":                 {{"out_sharding", false}, {"reduce_scatter_axes", false}, {"reduction_op", true}},
	"sdy.sharded_to_unreduced":           {{"axes", false}, {"out_sharding", false}},
	"sdy.replicated_to_unreduced":        {{"axes", false}, {"out_sharding", false}},
	"sdy.func_data_flow_edge":            {},
}
