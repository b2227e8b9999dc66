package vhlo

import (
	"fmt"
	"strings"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/mlirbc"
)

// function converts a vhlo.func_v1 op.
func (d *decoder) function(gop *mlirbc.Op, attrs ir.Attrs) (*ir.Func, error) {
	loc := d.locAt(gop.Loc)
	fn := &ir.Func{Loc: loc, Visibility: "public"}
	fn.Name = attrs["sym_name"].(ir.StringAttr).Value
	fail := func(format string, args ...any) error {
		return fmt.Errorf("function @%s at %s: %s", fn.Name, loc, fmt.Sprintf(format, args...))
	}
	if vis, ok := attrs["sym_visibility"].(ir.StringAttr); ok && vis.Value != "" {
		fn.Visibility = vis.Value
	}
	ta, ok := attrs["function_type"].(ir.OpaqueAttr)
	ft := d.funcTypes[ta.Text]
	if !ok || ta.Dialect != funcTypeDialect || ft == nil {
		return nil, fail("function_type is %v", attrs["function_type"])
	}
	if ft.kind != kindFunc {
		return nil, fail("signature %s: %s", ft.desc, ft.why)
	}
	fn.Type = *ft.fn
	delete(attrs, "function_type")
	var err error
	if fn.ArgAttrs, err = attrList(attrs["arg_attrs"], len(fn.Type.Inputs)); err != nil {
		return nil, fail("arg_attrs: %v", err)
	}
	if fn.ResAttrs, err = attrList(attrs["res_attrs"], len(fn.Type.Results)); err != nil {
		return nil, fail("res_attrs: %v", err)
	}
	lo := d.f.NumValues()
	n, counted, err := d.loadBody(gop)
	if err != nil {
		return nil, fail("%v", err)
	}
	if len(gop.Regions) != 1 || len(gop.Regions[0].Blocks) == 0 {
		return nil, fail("declaration without a body")
	}
	if len(gop.Regions[0].Blocks) != 1 {
		return nil, fail("body has %d blocks, want 1", len(gop.Regions[0].Blocks))
	}
	if !counted {
		n = irCounts{blockOps: len(gop.Regions[0].Blocks[0].Ops), refs: len(gop.Regions[0].Blocks[0].Args)}
		n.regions, n.blocks = 1, 1 // the body
		n.count(gop.Regions[0].Blocks[0].Ops)
	}
	d.reserve(n)
	// Loading the body (count loads nested regions too) numbered all of
	// the function's values: one table holds their ir values.
	d.table, d.tableLo = d.vals.Take(d.f.NumValues()-lo), lo
	body, err := d.region(gop.Regions[0], nil, true)
	if err != nil {
		return nil, err
	}
	fn.Body = body
	entry := body.Blocks[0]
	if len(entry.Args) != len(fn.Type.Inputs) {
		return nil, fail("%d block arguments for %d parameters", len(entry.Args), len(fn.Type.Inputs))
	}
	for i, a := range entry.Args {
		if !ir.TypesEqual(a.Type, fn.Type.Inputs[i]) {
			return nil, fail("argument %d has type %s, signature says %s", i, a.Type, fn.Type.Inputs[i])
		}
	}
	if t := entry.Terminator(); t == nil || t.Name != "func.return" {
		return nil, fail("body does not end in a return")
	}
	return fn, nil
}

// attrList converts arg_attrs/res_attrs (an array of dictionaries, or an
// empty array) to one Attrs per argument.
func attrList(a ir.Attr, n int) ([]ir.Attrs, error) {
	out := make([]ir.Attrs, n)
	empty := func() []ir.Attrs {
		for i := range out {
			out[i] = ir.Attrs{}
		}
		return out
	}
	if a == nil {
		return empty(), nil
	}
	arr, ok := a.(ir.ArrayAttr)
	if !ok {
		if _, unit := a.(ir.UnitAttr); unit {
			return empty(), nil
		}
		return nil, fmt.Errorf("expected an array, got %s", a)
	}
	if len(arr.Elems) == 0 {
		return empty(), nil
	}
	if len(arr.Elems) != n {
		return nil, fmt.Errorf("%d dictionaries for %d values", len(arr.Elems), n)
	}
	for i, e := range arr.Elems {
		dict, ok := e.(ir.DictAttr)
		if !ok {
			return nil, fmt.Errorf("entry %d is %s, not a dictionary", i, e)
		}
		// Each its own map (callers may add to it), sized once.
		out[i] = make(ir.Attrs, len(dict.Entries))
		for k, v := range dict.Entries {
			out[i][k] = v
		}
	}
	return out, nil
}

// region converts a region. inFunc marks a function body, whose terminator
// is func.return; terminators of op regions are stablehlo.return.
func (d *decoder) region(gr *mlirbc.Region, parent *ir.Op, inFunc bool) (*ir.Region, error) {
	region := d.regions.One()
	region.Blocks = d.blockRefs.Take(len(gr.Blocks))
	blocks := region.Blocks
	bs := d.blocks.Take(len(gr.Blocks))
	for i, gb := range gr.Blocks {
		b := &bs[i]
		b.Args, b.Region = d.refs.Take(len(gb.Args)), region
		for j, a := range gb.Args {
			t, err := d.typeAt(d.f.Value(a).Type)
			if err != nil {
				return nil, err
			}
			it, err := t.irType()
			if err != nil {
				where := "function body"
				if parent != nil {
					return nil, parent.Errorf("region block argument %d: %v", j, err)
				}
				return nil, fmt.Errorf("%s block argument %d: %w", where, j, err)
			}
			v, defined := d.value(a)
			if defined {
				return nil, fmt.Errorf("block argument %d defined twice", j)
			}
			v.Type, v.Index, v.Block = it, j, b
			b.Args[j] = v
		}
		blocks[i] = b
	}
	for i, gb := range gr.Blocks {
		// Filled by index (what Block.Append does, less a slice header
		// write per op).
		b := blocks[i]
		b.Ops = d.blockOps.Take(len(gb.Ops))
		for j, gop := range gb.Ops {
			op, err := d.op(gop, parent, inFunc)
			if err != nil {
				b.Ops = b.Ops[:j]
				return nil, err
			}
			op.Block, b.Ops[j] = b, op
		}
	}
	return region, nil
}

// op converts one generic op (and its regions).
func (d *decoder) op(gop *mlirbc.Op, parent *ir.Op, inFunc bool) (*ir.Op, error) {
	loc := d.locAt(gop.Loc)
	op := &d.ops.Take(1)[0]
	op.Loc = loc
	key := opKey{name: gop.NameIndex, inFunc: inFunc, hasAttrs: gop.HasAttrs, hasProps: gop.HasProps, attrs: gop.Attrs, props: gop.PropsIndex}
	c, ok := d.cachedOp(gop, key)
	if !ok {
		name, err := canonicalOpName(gop.Name(), inFunc)
		if err != nil {
			return nil, fmt.Errorf("%s at %s: %w", gop.Name(), loc, err)
		}
		op.Name = name
		if op.Attrs, err = d.opAttrs(gop); err != nil {
			return nil, op.Errorf("%v", err)
		}
		if err := normalizeAttrs(op); err != nil {
			return nil, op.Errorf("%v", err)
		}
		c = decodedOp{name: op.Name, attrs: op.Attrs, refs: symbolRefs(op.Attrs, nil)}
		d.cacheOp(gop, key, c)
	}
	op.Name, op.Attrs = c.name, c.attrs
	d.symRefs = append(d.symRefs, c.refs...)
	operands, results := gop.Operands(), gop.Results()
	op.Operands = d.refs.Take(len(operands))
	for i, gv := range operands {
		v, defined := d.value(gv)
		if !defined {
			return nil, op.Errorf("operand %d is used before it is defined", i)
		}
		op.Operands[i] = v
	}
	op.Results = d.refs.Take(len(results))
	for i, gv := range results {
		it, err := d.resultType(d.f.Value(gv).Type)
		if err != nil {
			return nil, op.Errorf("result %d: %v", i, err)
		}
		v, defined := d.value(gv) // zeroed: set field by field (no whole-struct copy)
		if defined {
			return nil, op.Errorf("result %d defined twice", i)
		}
		v.Type, v.Def, v.Index = it, op, i
		op.Results[i] = v
	}
	if len(gop.Successors) > 0 {
		return nil, op.Errorf("ops with successor blocks are not supported")
	}
	if err := gop.Load(); err != nil {
		return nil, op.Errorf("%v", err)
	}
	op.Regions = d.regionRefs.Take(len(gop.Regions))
	for i, gr := range gop.Regions {
		r, err := d.region(gr, op, false)
		if err != nil {
			return nil, err
		}
		r.Parent, op.Regions[i] = op, r
	}
	return op, nil
}

// opKey identifies what an op's name and attributes are decoded from. The
// bytecode uniques attribute dictionaries and property encodings, so ops with
// equal keys have equal attributes: they share one decoded, normalized map
// (ir.Attrs of decoded ops are read-only; passes replace, never mutate them).
type opKey struct {
	name               int // index in the file's op-name table
	inFunc             bool
	hasAttrs, hasProps bool
	attrs, props       uint64
}

// opSlot is one entry of the dense op cache.
type opSlot struct {
	key opKey
	op  decodedOp
}

// denseOpIndex is where an op's decoded form is looked up in
// decoder.opIndex: by property blob for registered ops with properties (the
// usual case from format 5 on), else by attribute dictionary, else by name.
// Each table has one slot per entry of the file's own tables, so the index
// is bounded by the input; ops that share a slot but differ in key (rare:
// two op kinds with equal property bytes) go to the map.
func (d *decoder) denseOpIndex(gop *mlirbc.Op) int {
	if d.opIndex == nil {
		d.nProps = d.f.NumProperties()
		d.nAttrs = d.f.AttrTypes.NumAttrs()
		d.opIndex = make([]int32, d.nProps+d.nAttrs+len(d.f.OpNames))
		// Artifacts have a few dozen distinct ops: one allocation, not a
		// doubling series.
		d.opSlots = make([]opSlot, 0, 64)
	}
	switch {
	case gop.HasProps && gop.Registered:
		return int(gop.PropsIndex)
	case gop.HasAttrs && !gop.HasProps:
		if gop.Attrs >= uint64(d.nAttrs) { // an error, reported by the decode
			return -1
		}
		return d.nProps + int(gop.Attrs)
	case !gop.HasAttrs && !gop.HasProps:
		return d.nProps + d.nAttrs + gop.NameIndex
	}
	return -1
}

func (d *decoder) cachedOp(gop *mlirbc.Op, key opKey) (decodedOp, bool) {
	if i := d.denseOpIndex(gop); i >= 0 {
		if j := d.opIndex[i]; j > 0 && d.opSlots[j-1].key == key {
			return d.opSlots[j-1].op, true
		}
	}
	c, ok := d.opCache[key]
	return c, ok
}

func (d *decoder) cacheOp(gop *mlirbc.Op, key opKey, c decodedOp) {
	if i := d.denseOpIndex(gop); i >= 0 && d.opIndex[i] == 0 {
		d.opSlots = append(d.opSlots, opSlot{key: key, op: c})
		d.opIndex[i] = int32(len(d.opSlots))
		return
	}
	if d.opCache == nil {
		d.opCache = map[opKey]decodedOp{}
	}
	d.opCache[key] = c
}

type decodedOp struct {
	name  string
	attrs ir.Attrs
	refs  []string // symbols the attributes refer to
}

// canonicalOpName maps vhlo.<op>_vN to stablehlo.<op>, the func ops to the
// func dialect, and keeps other dialects' names.
func canonicalOpName(name string, inFunc bool) (string, error) {
	short, ok := strings.CutPrefix(name, "vhlo.")
	if !ok {
		return name, nil
	}
	if _, known := vhloOps[short]; !known {
		return "", fmt.Errorf("unknown VHLO op")
	}
	base := short[:strings.LastIndex(short, "_v")]
	switch base {
	case "func":
		return "", fmt.Errorf("nested function definitions are not supported")
	case "call":
		return "func.call", nil
	case "return":
		if inFunc {
			return "func.return", nil
		}
		return "stablehlo.return", nil
	}
	return "stablehlo." + base, nil
}
