package compiler

import (
	"fmt"
	"strconv"
	"strings"
	"unsafe"

	"github.com/gojax/gojax/go/internal/cpufeat"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// This file writes the optimized program (the IR after every pass, with the
// plan's facts) as StableHLO text that jaxlib parses and converts to HLO:
// PJRT_Executable_OptimizedProgram answers with it, so compile().as_text()
// and hlo_modules() show what gojax runs. docs/runtime.md documents the
// form; its names are stable:
//
//   - Each fused step (gojax.fusion, gojax.rowfusion) is an mhlo.fusion
//     (kind kLoop, kInput for row fusions) whose region holds the fused
//     ops: HLO fusion instructions, as XLA's optimized programs show them.
//   - An op is printed as itself when its attributes have a StableHLO
//     spelling here (opSpecs); any other op (gojax's own ops such as
//     gojax.partial_sort, custom calls, Shardy ops, ops with attributes
//     gojax keeps flattened) is a stablehlo.custom_call whose target is the
//     op's name, whose backend_config is its attributes as text and whose
//     called_computations hold its regions as private functions.
//   - Plan facts ride on each step as mhlo.frontend_attributes, which
//     survive the conversion:
//     gojax.step, gojax.reads, gojax.writes, gojax.in_place, gojax.inline;
//     the module carries the plan's totals.
//   - Shardy annotations are dropped; mhlo.sharding attributes are kept.
//
// Anything the writer cannot spell makes it fail, and the caller falls
// back to the program as received.

// stepFacts is what the plan says of one kernel step.
type stepFacts struct {
	step      int
	ins, outs []ref
	inline    bool
}

// planFacts numbers the plan's kernel steps in program order (the steps of
// loop bodies and branches where they appear) and records their slots.
func planFacts(body []instr, facts map[*ir.Op]*stepFacts) {
	for _, in := range body {
		switch in := in.(type) {
		case *kernelInstr:
			facts[in.op] = &stepFacts{step: len(facts), ins: in.ins, outs: in.outs}
		case *scalarInstr:
			facts[in.k.op] = &stepFacts{step: len(facts), ins: in.k.ins, outs: in.k.outs, inline: true}
		case *sliceInstr:
			if r := in.relabel; r != nil {
				facts[r.op] = &stepFacts{step: len(facts), ins: r.ins, outs: r.outs}
			}
			facts[in.k.op] = &stepFacts{step: len(facts), ins: in.k.ins, outs: in.k.outs}
		case *whileInstr:
			if in.scalarCond != nil {
				k := in.scalarCond.k
				facts[k.op] = &stepFacts{step: len(facts), ins: k.ins, outs: k.outs, inline: true}
			}
			planFacts(in.cond, facts)
			planFacts(in.body, facts)
		case *caseInstr:
			for _, br := range in.branches {
				planFacts(br, facts)
			}
		}
	}
}

// OptimizedStableHLO returns the optimized program as StableHLO text (see
// the comment at the top of this file), or an error naming what it cannot
// spell.
func (e *Executable) OptimizedStableHLO() (text string, err error) {
	if e.optimized == nil {
		return "", fmt.Errorf("compiler: export: no optimized program")
	}
	x := &exporter{
		facts:     map[*ir.Op]*stepFacts{},
		constSlot: map[*byte]int{},
		funcNames: map[string]bool{},
	}
	planFacts(e.plan.body, x.facts)
	for _, c := range e.plan.consts {
		if len(c.data) > 0 {
			x.constSlot[unsafe.SliceData(c.data)] = c.slot
		}
	}
	for _, f := range e.optimized.Funcs {
		x.funcNames[f.Name] = true
	}
	defer func() {
		if r := recover(); r != nil {
			text, err = "", fmt.Errorf("compiler: export: %v", r)
		}
	}()
	x.module(e, e.optimized)
	return x.b.String(), nil
}

// VectorSetName is the GOJAX_VECTOR spelling of the widest vector set the
// kernels use in this process.
func VectorSetName() string {
	switch cpufeat.Widest() {
	case "Z":
		return "avx512"
	case "Y":
		return "avx2"
	}
	return "none"
}

type exporter struct {
	b         strings.Builder
	facts     map[*ir.Op]*stepFacts
	constSlot map[*byte]int
	funcNames map[string]bool
	pending   []pendingFunc // functions made from regions, printed after the module's own
	names     map[*ir.Value]string
	nextID    int
	nextArg   int
}

// pendingFunc is a private function made from a region: a fusion's
// decomposition or a region of an op printed as a custom call.
type pendingFunc struct {
	name string
	blk  *ir.Block
	res  []ir.Type
	// captured are values of enclosing blocks the region reads: constants
	// are repeated in the function, other values become arguments after
	// the block's (and operands of the op that calls it).
	captured []*ir.Value
}

func (x *exporter) printf(format string, args ...any) { fmt.Fprintf(&x.b, format, args...) }

func (x *exporter) module(e *Executable, m *ir.Module) {
	x.printf("module @%s", symbol(e.name))
	attrs := []string{}
	for _, k := range []string{"mhlo.num_partitions", "mhlo.num_replicas"} {
		if a, ok := m.Attrs[k].(ir.IntAttr); ok {
			attrs = append(attrs, k+" = "+a.String())
		}
	}
	p := e.plan
	params, outs := make([]string, len(p.paramSlots)), make([]string, len(p.outSlots))
	for i, s := range p.paramSlots {
		params[i] = "s" + strconv.Itoa(s)
	}
	for i, s := range p.outSlots {
		outs[i] = "s" + strconv.Itoa(s)
	}
	aliases := make([]string, len(e.aliasArg))
	for i, a := range e.aliasArg {
		aliases[i] = strconv.Itoa(a)
	}
	fa := [][2]string{
		{"gojax.slots", strconv.Itoa(p.numSlots)},
		{"gojax.internal_slots", strconv.Itoa(p.stats.Slots)},
		{"gojax.scratch_bytes", strconv.FormatInt(p.stats.ScratchBytes, 10)},
		{"gojax.kernel_steps", strconv.Itoa(p.stats.KernelSteps)},
		{"gojax.params", strings.Join(params, ",")},
		{"gojax.outputs", strings.Join(outs, ",")},
		{"gojax.output_aliases", strings.Join(aliases, ",")},
		{"gojax.vector_set", VectorSetName()},
	}
	attrs = append(attrs, "mhlo.frontend_attributes = "+strDict(fa))
	x.printf(" attributes {%s} {\n", strings.Join(attrs, ", "))
	entry := m.Main()
	for _, f := range m.Funcs {
		x.function(f, f == entry)
	}
	for len(x.pending) > 0 {
		pf := x.pending[0]
		x.pending = x.pending[1:]
		x.regionFunc(pf)
	}
	x.b.WriteString("}\n")
}

// keptArgAttrs are the function argument and result attributes the text
// keeps: what jaxlib turns into aliasing, donation and shardings.
var keptArgAttrs = map[string]bool{
	"tf.aliasing_output": true, "jax.buffer_donor": true, "mhlo.sharding": true, "jax.result_info": true,
}

func (x *exporter) argAttrs(a ir.Attrs) string {
	var parts []string
	for _, k := range a.Names() {
		if !keptArgAttrs[k] {
			continue
		}
		if s, ok := exportAttr(a[k]); ok {
			parts = append(parts, k+" = "+s)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " {" + strings.Join(parts, ", ") + "}"
}

func (x *exporter) function(f *ir.Func, entry bool) {
	x.names, x.nextID, x.nextArg = map[*ir.Value]string{}, 0, 0
	vis := "private"
	if entry {
		vis = "public"
	}
	x.printf("  func.func %s @%s(", vis, symbol(f.Name))
	blk := f.Entry()
	for i, t := range f.Type.Inputs {
		if i > 0 {
			x.b.WriteString(", ")
		}
		name := x.argName(blk.Args[i])
		x.printf("%s: %s", name, t)
		if i < len(f.ArgAttrs) {
			x.b.WriteString(x.argAttrs(f.ArgAttrs[i]))
		}
	}
	x.b.WriteString(") -> (")
	for i, t := range f.Type.Results {
		if i > 0 {
			x.b.WriteString(", ")
		}
		x.b.WriteString(t.String())
		if i < len(f.ResAttrs) {
			x.b.WriteString(x.argAttrs(f.ResAttrs[i]))
		}
	}
	x.b.WriteString(") {\n")
	if len(f.Body.Blocks) != 1 {
		panic(fmt.Sprintf("function @%s has %d blocks", f.Name, len(f.Body.Blocks)))
	}
	for _, op := range blk.Ops {
		x.op(op, 2, true)
	}
	x.b.WriteString("  }\n")
}

// regionFunc prints a region's block as a private function; its
// stablehlo.return becomes the function's return.
func (x *exporter) regionFunc(pf pendingFunc) {
	x.names, x.nextID, x.nextArg = map[*ir.Value]string{}, 0, 0
	x.printf("  func.func private @%s(", symbol(pf.name))
	for i, a := range pf.blk.Args {
		if i > 0 {
			x.b.WriteString(", ")
		}
		x.printf("%s: %s", x.argName(a), a.Type)
	}
	var consts []*ir.Op
	sep := len(pf.blk.Args) > 0
	for _, v := range pf.captured {
		if isConstant(v) {
			consts = append(consts, v.Def)
			continue
		}
		if sep {
			x.b.WriteString(", ")
		}
		sep = true
		x.printf("%s: %s", x.argName(v), v.Type)
	}
	x.b.WriteString(") -> (")
	x.b.WriteString(typeList(pf.res))
	x.b.WriteString(") {\n")
	for _, c := range consts {
		x.op(c, 2, true)
	}
	for _, op := range pf.blk.Ops {
		x.op(op, 2, true)
	}
	x.b.WriteString("  }\n")
}

func (x *exporter) argName(v *ir.Value) string {
	n := "%arg" + strconv.Itoa(x.nextArg)
	x.nextArg++
	x.names[v] = n
	return n
}

// newFunc reserves a private function name with the given prefix for a
// region's block; it returns the name and the captured values that the
// function takes as arguments after the block's.
func (x *exporter) newFunc(prefix string, blk *ir.Block, res []ir.Type) (string, []*ir.Value) {
	captured := capturedValues(blk)
	var args []*ir.Value
	for _, v := range captured {
		if !isConstant(v) {
			args = append(args, v)
		}
	}
	for i := 0; ; i++ {
		name := prefix + "." + strconv.Itoa(i)
		if !x.funcNames[name] {
			x.funcNames[name] = true
			x.pending = append(x.pending, pendingFunc{name, blk, res, captured})
			return name, args
		}
	}
}

// convertedTargets are custom call targets jaxlib's HLO converter reads
// attributes of (which the text keeps as backend_config only): the text
// names them gojax.custom_call.<target>.
var convertedTargets = map[string]bool{
	"ApproxTopK": true, "Sharding": true, "SPMDFullToShardShape": true, "SPMDShardToFullShape": true,
}

// keptCallee is the callee of a call kept as a one-branch case, else "".
func keptCallee(op *ir.Op) string {
	if len(op.Regions) != 1 || len(op.Regions[0].Blocks) != 1 {
		return ""
	}
	s, _ := op.Attrs.Str("gojax.call")
	return s
}

func isConstant(v *ir.Value) bool {
	return v.Def != nil && v.Def.Name == "stablehlo.constant" && len(v.Def.Regions) == 0
}

// capturedValues lists, in order of first use, the values the block and
// its nested regions read without defining them.
func capturedValues(blk *ir.Block) []*ir.Value {
	defined := map[*ir.Value]bool{}
	seen := map[*ir.Value]bool{}
	var out []*ir.Value
	var walk func(b *ir.Block)
	walk = func(b *ir.Block) {
		for _, a := range b.Args {
			defined[a] = true
		}
		for _, op := range b.Ops {
			for _, v := range op.Operands {
				if !defined[v] && !seen[v] {
					seen[v] = true
					out = append(out, v)
				}
			}
			for _, r := range op.Regions {
				for _, rb := range r.Blocks {
					walk(rb)
				}
			}
			for _, v := range op.Results {
				defined[v] = true
			}
		}
	}
	walk(blk)
	return out
}

// regionsCapture reports whether an op's regions read values of enclosing
// blocks.
func regionsCapture(op *ir.Op) bool {
	for _, r := range op.Regions {
		for _, b := range r.Blocks {
			if len(capturedValues(b)) > 0 {
				return true
			}
		}
	}
	return false
}

// op prints one op. funcBody: the op is in a function body, where the
// region terminator stablehlo.return is spelled func.return.
func (x *exporter) op(op *ir.Op, depth int, funcBody bool) {
	ind := strings.Repeat("  ", depth)
	operandVals := op.Operands
	name := func(v *ir.Value) string {
		n, ok := x.names[v]
		if !ok {
			panic(fmt.Sprintf("an operand of %s is used before its definition", op.Name))
		}
		return n
	}
	operands := make([]string, len(op.Operands))
	for i, v := range op.Operands {
		operands[i] = name(v)
	}
	// called adds a region's function: its captured values become operands.
	called := func(prefix string, blk *ir.Block, res []ir.Type) string {
		fn, extra := x.newFunc(prefix, blk, res)
		for _, v := range extra {
			operandVals = append(operandVals[:len(operandVals):len(operandVals)], v)
			operands = append(operands, name(v))
		}
		return fn
	}
	var head string // the op's name, operands and regions, printed after its results are named
	var attrs []string
	var regions []*ir.Region
	var fusionRegion func() // prints a fusion's region in place of regions
	switch {
	case op.Name == "func.return" || op.Name == "stablehlo.return":
		name := op.Name
		if funcBody {
			name = "func.return"
		}
		x.printf("%s%q(%s) : (%s) -> ()\n", ind, name, strings.Join(operands, ", "), typesOf(op.Operands))
		return
	case op.Name == "func.call":
		callee, ok := op.Attrs["callee"].(ir.SymbolRefAttr)
		if !ok || !x.funcNames[callee.Name] {
			panic("func.call without a known callee")
		}
		head = fmt.Sprintf("%q(%s)", op.Name, strings.Join(operands, ", "))
		attrs = append(attrs, "callee = @"+symbol(callee.Name))
		attrs = append(attrs, x.frontend(op)...)
	case op.Name == "stablehlo.case" && keptCallee(op) != "":
		// A call kept for late inlining (see keepCall): printed as the call
		// it was, its branch a private function taking what it reads.
		operandVals, operands = nil, nil
		blk := op.Regions[0].Blocks[0]
		fn := called(keptCallee(op), blk, terminatorTypes(blk))
		head = fmt.Sprintf("%q(%s)", "func.call", strings.Join(operands, ", "))
		fa := append(x.factList(op), [2]string{"inlineable", "xla_late"})
		attrs = append(attrs, "callee = @"+symbol(fn), "mhlo.frontend_attributes = "+strDict(fa))
	case (op.Name == fusionOp || op.Name == rowFusionOp) && fusionBody(op) != nil:
		// An mhlo.fusion holding the fused ops, which jaxlib turns into an
		// HLO fusion instruction as XLA's own fusions print. Its region
		// may not read values from outside: captured values other than
		// constants become extra operands.
		blk := fusionBody(op)
		var consts []*ir.Op
		var inner []*ir.Value
		for _, v := range capturedValues(blk) {
			if isConstant(v) {
				consts = append(consts, v.Def)
				continue
			}
			inner = append(inner, v)
			operandVals = append(operandVals[:len(operandVals):len(operandVals)], v)
			operands = append(operands, name(v))
		}
		head = fmt.Sprintf("%q(%s)", "mhlo.fusion", strings.Join(operands, ", "))
		kind := "kLoop"
		if op.Name == rowFusionOp {
			kind = "kInput" // a reduction with its neighbours, as XLA names it
		}
		attrs = append(attrs, "fusion_kind = #mhlo<fusion_kind "+kind+">")
		facts := append([][2]string{{"gojax.fusion", op.Name}}, x.factList(op)...)
		var ops []string
		op.Regions[0].Walk(func(o *ir.Op) bool {
			if o.Name != "stablehlo.return" {
				ops = append(ops, strings.TrimPrefix(o.Name, "stablehlo."))
			}
			return true
		})
		facts = append(facts, [2]string{"gojax.ops", strings.Join(ops, ",")})
		attrs = append(attrs, "mhlo.frontend_attributes = "+strDict(facts))
		fusionRegion = func() { x.fusionRegion(blk, inner, consts, depth) }
	default:
		if a, ok := faithful(op); ok && (!regionsCapture(op) || controlFlow(op)) {
			head = fmt.Sprintf("%q(%s)", op.Name, strings.Join(operands, ", "))
			attrs = append(a, x.frontend(op)...)
			regions = op.Regions
			break
		}
		// Printed as a custom call named after the op.
		target := op.Name
		rest := ir.Attrs{}
		for k, a := range op.Attrs {
			rest[k] = a
		}
		if op.Name == "stablehlo.custom_call" {
			if s, ok := op.Attrs.Str("call_target_name"); ok {
				target = s
				if convertedTargets[s] {
					target = "gojax.custom_call." + s
				}
				delete(rest, "call_target_name")
			}
		}
		if op.Name == "stablehlo.constant" {
			delete(rest, "value")
		}
		// jaxlib converts a custom call with at most one called
		// computation: an op with several regions shows its first.
		var calls []string
		if len(op.Regions) > 0 {
			r := op.Regions[0]
			if len(r.Blocks) != 1 {
				panic(fmt.Sprintf("%s has a region of %d blocks", op.Name, len(r.Blocks)))
			}
			calls = append(calls, "@"+symbol(called(target+".region", r.Blocks[0], terminatorTypes(r.Blocks[0]))))
			if len(op.Regions) > 1 {
				rest["gojax.regions"] = ir.IntAttr{Value: int64(len(op.Regions)), Type: ir.S64}
			}
		}
		head = fmt.Sprintf("%q(%s)", "stablehlo.custom_call", strings.Join(operands, ", "))
		attrs = append(attrs, "call_target_name = "+quote(target))
		if len(rest) > 0 {
			attrs = append(attrs, "backend_config = "+quote(attrsText(rest)))
		}
		if len(calls) > 0 {
			attrs = append(attrs, "called_computations = ["+strings.Join(calls, ", ")+"]")
		}
		if se, _ := op.Attrs.Bool("has_side_effect"); se || len(op.Results) == 0 {
			attrs = append(attrs, "has_side_effect = true")
		}
		attrs = append(attrs, x.frontend(op)...)
	}
	// Results are named after the operands are read and before regions
	// are printed, as in MLIR's numbering.
	x.b.WriteString(ind)
	switch len(op.Results) {
	case 0:
	case 1:
		n := "%" + strconv.Itoa(x.nextID)
		x.nextID++
		x.names[op.Results[0]] = n
		x.printf("%s = ", n)
	default:
		base := "%" + strconv.Itoa(x.nextID)
		x.nextID++
		for i, r := range op.Results {
			x.names[r] = base + "#" + strconv.Itoa(i)
		}
		x.printf("%s:%d = ", base, len(op.Results))
	}
	x.b.WriteString(head)
	if fusionRegion != nil {
		fusionRegion()
	}
	if len(regions) > 0 {
		x.b.WriteString(" (")
		for i, r := range regions {
			if i > 0 {
				x.b.WriteString(", ")
			}
			x.region(r, depth)
		}
		x.b.WriteString(")")
	}
	if len(attrs) > 0 {
		x.printf(" {%s}", strings.Join(attrs, ", "))
	}
	x.printf(" : (%s) -> ", typesOf(operandVals))
	if len(op.Results) == 1 {
		x.b.WriteString(op.Results[0].Type.String())
	} else {
		x.printf("(%s)", typeList(resultTypes(op)))
	}
	if l := loc(op.Loc); l != "" {
		x.b.WriteString(" " + l)
	}
	x.b.WriteString("\n")
}

// fusionRegion prints a fusion's block as the region of an mhlo.fusion:
// its arguments, then the captured values it takes as extra operands; the
// captured constants are repeated inside. The outer names of those values
// are restored afterwards.
func (x *exporter) fusionRegion(blk *ir.Block, inner []*ir.Value, consts []*ir.Op, depth int) {
	saved := map[*ir.Value]string{}
	keep := func(v *ir.Value) {
		if n, ok := x.names[v]; ok {
			saved[v] = n
		}
	}
	ind := strings.Repeat("  ", depth)
	args := make([]string, 0, len(blk.Args)+len(inner))
	for _, a := range blk.Args {
		args = append(args, x.argName(a)+": "+a.Type.String())
	}
	for _, v := range inner {
		keep(v)
		args = append(args, x.argName(v)+": "+v.Type.String())
	}
	x.printf(" ({\n%s^bb0(%s):\n", ind, strings.Join(args, ", "))
	for _, c := range consts {
		keep(c.Results[0])
		x.op(c, depth+1, false)
	}
	for _, o := range blk.Ops {
		x.op(o, depth+1, false)
	}
	x.printf("%s})", ind)
	for v, n := range saved {
		x.names[v] = n
	}
}

func (x *exporter) region(r *ir.Region, depth int) {
	x.b.WriteString("{\n")
	for i, blk := range r.Blocks {
		x.printf("%s^bb%d", strings.Repeat("  ", depth), i)
		if len(blk.Args) > 0 {
			args := make([]string, len(blk.Args))
			for j, a := range blk.Args {
				args[j] = x.argName(a) + ": " + a.Type.String()
			}
			x.printf("(%s)", strings.Join(args, ", "))
		}
		x.b.WriteString(":\n")
		for _, op := range blk.Ops {
			x.op(op, depth+1, false)
		}
	}
	x.printf("%s}", strings.Repeat("  ", depth))
}

// factList is the plan's facts of a step (none for an op that is not one).
func (x *exporter) factList(op *ir.Op) [][2]string {
	f := x.facts[op]
	if f == nil {
		return nil
	}
	out := [][2]string{
		{"gojax.step", strconv.Itoa(f.step)},
		{"gojax.reads", refList(f.ins)},
		{"gojax.writes", refList(f.outs)},
	}
	var inPlace []string
	for r, o := range f.outs {
		for i, in := range f.ins {
			if in.slot == o.slot {
				inPlace = append(inPlace, fmt.Sprintf("%d:%d", r, i))
				break
			}
		}
	}
	if len(inPlace) > 0 {
		out = append(out, [2]string{"gojax.in_place", strings.Join(inPlace, ",")})
	}
	if f.inline {
		out = append(out, [2]string{"gojax.inline", "true"})
	}
	if op.Loc.Known() {
		out = append(out, [2]string{"gojax.source", op.Loc.String()})
	}
	return out
}

// frontend is the mhlo.frontend_attributes entry of an op's facts, if any:
// a step's, or a constant's size and slot.
func (x *exporter) frontend(op *ir.Op) []string {
	fa := x.factList(op)
	if op.Name == "stablehlo.constant" {
		if v, ok := op.Attrs.Elements("value"); ok {
			fa = append(fa, [2]string{"gojax.bytes", strconv.Itoa(len(v.Data))})
			if s, ok := x.constSlot[unsafe.SliceData(v.Data)]; ok && len(v.Data) > 0 {
				fa = append(fa, [2]string{"gojax.slot", "s" + strconv.Itoa(s)})
			}
		}
	}
	if len(fa) > 0 {
		return []string{"mhlo.frontend_attributes = " + strDict(fa)}
	}
	return nil
}

func refList(rs []ref) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.String()
	}
	return strings.Join(parts, ",")
}

// fusionBody is a fusion op's block when it can be a function called with
// the op's operands: one block whose arguments have the operands' types and
// whose return has the results' types; else nil.
func fusionBody(op *ir.Op) *ir.Block {
	if len(op.Regions) != 1 || len(op.Regions[0].Blocks) != 1 {
		return nil
	}
	blk := op.Regions[0].Blocks[0]
	if len(blk.Args) != len(op.Operands) {
		return nil
	}
	for i, a := range blk.Args {
		if !ir.TypesEqual(a.Type, op.Operands[i].Type) {
			return nil
		}
	}
	res := terminatorTypes(blk)
	if len(res) != len(op.Results) {
		return nil
	}
	for i, t := range res {
		if !ir.TypesEqual(t, op.Results[i].Type) {
			return nil
		}
	}
	return blk
}

func terminatorTypes(blk *ir.Block) []ir.Type {
	if len(blk.Ops) == 0 {
		return nil
	}
	return valueTypes(blk.Ops[len(blk.Ops)-1].Operands)
}

func resultTypes(op *ir.Op) []ir.Type { return valueTypes(op.Results) }

func typesOf(vs []*ir.Value) string { return typeList(valueTypes(vs)) }

func typeList(ts []ir.Type) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		if t == nil {
			panic("a value without a type")
		}
		parts[i] = t.String()
	}
	return strings.Join(parts, ", ")
}

// opSpecs lists the ops other than elementwise ones printed as
// themselves: each attribute gojax keeps and its StableHLO name. An op with
// an attribute outside its list is printed as a custom call. Elementwise
// ops (kernel.Traits) are printed as themselves when every attribute has a
// spelling; elementwiseAttrNames renames the one gojax spells otherwise.
var opSpecs = func() map[string]map[string]string {
	m := map[string]map[string]string{}
	for _, n := range strings.Fields(`reshape dynamic_update_slice tuple optimization_barrier after_all
		create_token while case if`) {
		m["stablehlo."+n] = map[string]string{}
	}
	same := func(op string, attrs ...string) {
		s := map[string]string{}
		for _, a := range attrs {
			s[a] = a
		}
		m["stablehlo."+op] = s
	}
	same("broadcast_in_dim", "broadcast_dimensions")
	same("transpose", "permutation")
	same("reverse", "dimensions")
	same("iota", "iota_dimension")
	same("slice", "start_indices", "limit_indices", "strides")
	same("concatenate", "dimension")
	same("pad", "edge_padding_low", "edge_padding_high", "interior_padding")
	same("dynamic_slice", "slice_sizes")
	same("reduce", "dimensions")
	same("sort", "dimension", "is_stable")
	same("map", "dimensions")
	same("get_tuple_element", "index")
	same("constant", "value")
	same("rng_bit_generator", "rng_algorithm")
	same("cholesky", "lower")
	same("triangular_solve", "left_side", "lower", "unit_diagonal", "transpose_a")
	same("fft", "fft_type", "fft_length")
	same("reduce_window", "window_dimensions", "window_strides", "base_dilations", "window_dilations", "padding")
	same("select_and_scatter", "window_dimensions", "window_strides", "padding")
	return m
}()

// collectiveSpecs are the collectives printed as themselves (HLO
// all-reduce, all-gather, … in the converted text, as XLA's partitioned
// programs show them) and their attributes besides channel_id, which VHLO
// and gojax keep as an integer and StableHLO spells as a channel handle.
var collectiveSpecs = map[string]map[string]bool{
	"stablehlo.all_reduce":         {"replica_groups": true, "use_global_device_ids": true},
	"stablehlo.all_gather":         {"replica_groups": true, "use_global_device_ids": true, "all_gather_dim": true},
	"stablehlo.reduce_scatter":     {"replica_groups": true, "use_global_device_ids": true, "scatter_dimension": true},
	"stablehlo.all_to_all":         {"replica_groups": true, "split_dimension": true, "concat_dimension": true, "split_count": true},
	"stablehlo.collective_permute": {"source_target_pairs": true},
}

func collectiveAttrs(op *ir.Op, spec map[string]bool) ([]string, bool) {
	var out []string
	for _, k := range op.Attrs.Names() {
		if k == "channel_id" {
			ch, ok := op.Attrs[k].(ir.IntAttr)
			if !ok {
				return nil, false
			}
			if ch.Value > 0 {
				// Type 1 is DEVICE_TO_DEVICE, what collectives between
				// devices carry.
				out = append(out, fmt.Sprintf("channel_handle = #stablehlo.channel_handle<handle = %d, type = 1>", ch.Value))
			}
			continue
		}
		if !spec[k] {
			return nil, false
		}
		if k == "use_global_device_ids" {
			// A unit attribute in StableHLO; VHLO gives a boolean.
			switch a := op.Attrs[k].(type) {
			case ir.UnitAttr:
				out = append(out, k)
			case ir.BoolAttr:
				if a.Value {
					out = append(out, k)
				}
			default:
				return nil, false
			}
			continue
		}
		v, ok := exportAttr(op.Attrs[k])
		if !ok {
			return nil, false
		}
		out = append(out, k+" = "+v)
	}
	return out, true
}

// elementwiseAttrNames are the StableHLO names of the elementwise ops'
// attributes that gojax names otherwise.
var elementwiseAttrNames = map[string]string{"comparison_type": "compare_type"}

// controlFlow: ops whose regions may read values of enclosing blocks in
// StableHLO (the others' regions are functions of their arguments only).
func controlFlow(op *ir.Op) bool { return isControlFlow(op) }

// dotFields are dot_general's flattened dimension numbers, in the order
// #stablehlo.dot prints them.
var dotFields = []string{"lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions", "rhs_contracting_dimensions"}

// faithful returns an op's attributes in StableHLO spelling when the op can
// be printed as itself.
func faithful(op *ir.Op) ([]string, bool) {
	if op.Name == "stablehlo.dot_general" {
		return dotAttrs(op)
	}
	if spec, ok := collectiveSpecs[op.Name]; ok {
		return collectiveAttrs(op, spec)
	}
	spec, ok := opSpecs[op.Name]
	elementwise := kernel.TraitsOf(op.Name).Elementwise
	if !ok && !elementwise {
		return nil, false
	}
	if op.Name == "stablehlo.constant" {
		if v, ok := op.Attrs.Elements("value"); !ok || !printableConstant(v) {
			return nil, false
		}
	}
	var out []string
	for _, k := range op.Attrs.Names() {
		name, ok := spec[k]
		if elementwise {
			name, ok = k, true
			if n, renamed := elementwiseAttrNames[k]; renamed {
				name = n
			}
		}
		if !ok {
			return nil, false
		}
		s, ok := exportAttr(op.Attrs[k])
		if k == "padding" {
			s, ok = paddingAttr(op.Attrs[k])
		}
		if !ok {
			return nil, false
		}
		out = append(out, name+" = "+s)
	}
	return out, true
}

// paddingAttr spells a window op's padding, which gojax keeps flattened
// ([lo0, hi0, lo1, hi1, …]), as StableHLO's N×2 tensor.
func paddingAttr(a ir.Attr) (string, bool) {
	d, ok := a.(ir.DenseI64Attr)
	if !ok || len(d.Values) == 0 || len(d.Values)%2 != 0 {
		return "", false
	}
	rows := make([]string, len(d.Values)/2)
	for i := range rows {
		rows[i] = fmt.Sprintf("[%d, %d]", d.Values[2*i], d.Values[2*i+1])
	}
	return fmt.Sprintf("dense<[%s]> : tensor<%dx2xi64>", strings.Join(rows, ", "), len(rows)), true
}

func dotAttrs(op *ir.Op) ([]string, bool) {
	var dims []string
	known := map[string]bool{"precision_config": true}
	for _, f := range dotFields {
		known[f] = true
		a, ok := op.Attrs[f]
		if !ok {
			continue
		}
		d, ok := a.(ir.DenseI64Attr)
		if !ok {
			return nil, false
		}
		if len(d.Values) > 0 {
			dims = append(dims, f+" = "+int64s(d.Values))
		}
	}
	for k := range op.Attrs {
		if !known[k] {
			return nil, false
		}
	}
	out := []string{"dot_dimension_numbers = #stablehlo.dot<" + strings.Join(dims, ", ") + ">"}
	if pc, ok := op.Attrs["precision_config"]; ok {
		s, ok := exportAttr(pc)
		if !ok {
			return nil, false
		}
		out = append(out, "precision_config = "+s)
	}
	return out, true
}

func int64s(vs []int64) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = strconv.FormatInt(v, 10)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// stablehloEnums are the enum kinds whose #stablehlo<kind VALUE> spelling
// MLIR parses.
var stablehloEnums = map[string]bool{
	"comparison_direction": true, "comparison_type": true, "precision": true, "fft_type": true,
	"rng_algorithm": true, "rng_distribution": true, "transpose": true,
}

// exportAttr spells an attribute value as MLIR parses it, or reports that
// it cannot.
func exportAttr(a ir.Attr) (string, bool) {
	switch a := a.(type) {
	case ir.IntAttr:
		if a.Type == ir.Pred || a.Type == ir.Invalid {
			return "", false
		}
		return a.String(), true
	case ir.FloatAttr:
		return ir.FormatAttr(a), true
	case ir.BoolAttr:
		return strconv.FormatBool(a.Value), true
	case ir.UnitAttr:
		return "unit", true
	case ir.StringAttr:
		return quote(a.Value), true
	case ir.DenseI64Attr, ir.DenseBoolAttr:
		return ir.FormatAttr(a), true
	case ir.EnumAttr:
		if !stablehloEnums[a.Kind] {
			return "", false
		}
		return a.String(), true
	case ir.ArrayAttr:
		parts := make([]string, len(a.Elems))
		for i, e := range a.Elems {
			s, ok := exportAttr(e)
			if !ok {
				return "", false
			}
			parts[i] = s
		}
		return "[" + strings.Join(parts, ", ") + "]", true
	case *ir.ElementsAttr:
		if !printableConstant(a) {
			return "", false
		}
		return ir.FormatElements(a), true
	}
	return "", false
}

// printableConstant: ir.FormatElements prints the constant element by
// element (a splat, or at most 16 elements) in a type MLIR reads that way;
// larger constants are shown as custom calls with their size and slot.
func printableConstant(a *ir.ElementsAttr) bool {
	if a == nil || a.Type == nil {
		return false
	}
	e := a.Type.Elem
	switch {
	case e == ir.Pred, e.IsComplex(), e == ir.F16, e == ir.BF16, e == ir.F32, e == ir.F64:
	case (e.IsSigned() || e.IsUnsigned()) && e.Bits() >= 8:
	default:
		return false
	}
	n := int(a.Type.NumElements())
	size := e.ByteSize()
	if size == 0 || len(a.Data) != n*size {
		return false
	}
	if n <= smallConstantElems {
		return true
	}
	first := a.Data[:size]
	for i := size; i < len(a.Data); i += size {
		if string(a.Data[i:i+size]) != string(first) {
			return false
		}
	}
	return true
}

// smallConstantElems matches the element-by-element limit of ir.FormatElements.
const smallConstantElems = 16

// attrsText is the text of attributes kept in a custom call's
// backend_config: large constants by their size only.
func attrsText(a ir.Attrs) string {
	parts := make([]string, 0, len(a))
	for _, k := range a.Names() {
		v := a[k]
		var s string
		if e, ok := v.(*ir.ElementsAttr); ok && e.Type != nil && e.Type.NumElements() > smallConstantElems {
			s = e.String()
		} else {
			s = ir.FormatAttr(v)
		}
		parts = append(parts, k+" = "+s)
	}
	return strings.Join(parts, ", ")
}

// strDict prints a dictionary of string values in the given order.
func strDict(kv [][2]string) string {
	parts := make([]string, len(kv))
	for i, p := range kv {
		parts[i] = p[0] + " = " + quote(p[1])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// quote spells s as an MLIR string literal: \" \\ and \XX for bytes
// outside printable ASCII.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, "\\%02X", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// symbol spells a symbol name, quoted unless it is a plain identifier.
func symbol(s string) string {
	plain := s != ""
	for i, r := range s {
		if !(r == '_' || r == '.' || r == '$' || r == '-' && i > 0 || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return quote(s)
}

// loc spells a location as MLIR's loc("name"("file":line:col)).
func loc(l *ir.Location) string {
	if !l.Known() {
		return ""
	}
	file := ""
	if l.File != "" {
		file = fmt.Sprintf("%s:%d:%d", quote(l.File), l.Line, l.Col)
	}
	switch {
	case l.Name != "" && file != "":
		return "loc(" + quote(l.Name) + "(" + file + "))"
	case l.Name != "":
		return "loc(" + quote(l.Name) + ")"
	}
	return "loc(" + file + ")"
}
