// Package verify checks gojax IR against the StableHLO spec
// (https://openxla.org/stablehlo/spec): operand and result counts, types,
// required attributes, region signatures, function calls and returns, and
// that every operand is defined before it is used.
//
// Each op family lives in its own file and contributes entries to one table
// from op name to check function; an op name missing from the table is an
// error, so nothing unknown reaches the compiler unchecked.
package verify

import (
	"fmt"
	"strings"

	"github.com/gojax/gojax/go/internal/slab"
	"github.com/gojax/gojax/go/ir"
)

// checkFunc verifies one op (not its regions' contents, which the walker
// visits afterwards).
type checkFunc func(v *verifier, op *ir.Op) error

// checks maps a canonical op name to its check; filled by each family file's init.
var checks = map[string]checkFunc{}

func register(table map[string]checkFunc) {
	for name, fn := range table {
		if _, dup := checks[name]; dup {
			panic("verify: " + name + " registered twice")
		}
		checks[name] = fn
	}
}

// Known reports whether the verifier has a check for the op name.
func Known(name string) bool {
	if _, ok := checks[name]; ok {
		return true
	}
	return foreignAccepted(name)
}

// foreignAccepted lists ops of other dialects that may appear in artifacts
// JAX sends (mixed serialization) and are accepted without type checks.
func foreignAccepted(name string) bool {
	return strings.HasPrefix(name, "sdy.") || name == "builtin.unrealized_conversion_cast"
}

// verifier carries module-wide state through the walk.
type verifier struct {
	m *ir.Module
	// defined holds the values visible at the current point: function
	// arguments, block arguments of enclosing regions and results of earlier
	// ops (StableHLO regions are not isolated from above).
	defined *valueSet
	// tensors backs the type lists a check builds (operandTensors and
	// friends); it is rewound, not cleared, before each check, which keeps
	// none of them: overwriting is all the next check does. The stale
	// entries only point into the module being verified.
	tensors slab.Bump[*ir.TensorType]
	// names caches the check of recent op names, which spares looking each
	// op's name up in checks. Comparing a name with the cached one is
	// cheap: the reader shares one string among the ops of a name, and
	// equal strings with the same bytes compare without reading them.
	names [64]nameEntry
}

type nameEntry struct {
	name  string
	fn    checkFunc
	known bool
	set   bool
}

// check returns the check registered for name.
func (v *verifier) check(name string) (checkFunc, bool) {
	e := &v.names[nameSlot(name)%len(v.names)]
	if !e.set || e.name != name {
		fn, known := checks[name]
		*e = nameEntry{name: name, fn: fn, known: known, set: true}
	}
	return e.fn, e.known
}

// nameSlot spreads op names over the cache by their length and last
// bytes, where names of one dialect differ.
func nameSlot(name string) int {
	h := uint(len(name))
	for i := max(len(name)-6, 0); i < len(name); i++ {
		h = h*31 + uint(name[i])
	}
	return int(h >> 1)
}

// Module verifies every function and op of m; the error names the op and its
// source location.
func Module(m *ir.Module) error {
	if m == nil {
		return fmt.Errorf("verify: nil module")
	}
	v := &verifier{m: m, defined: definedSets.Get()}
	defer putSet(v.defined)
	seen := map[string]bool{}
	for i, f := range m.Funcs {
		if f == nil {
			return fmt.Errorf("verify: function %d is nil", i)
		}
		if f.Name == "" {
			return fmt.Errorf("verify: function %d has no name", i)
		}
		if seen[f.Name] {
			return fmt.Errorf("verify: function @%s defined twice", f.Name)
		}
		seen[f.Name] = true
	}
	for _, f := range m.Funcs {
		if err := v.function(f); err != nil {
			return err
		}
	}
	return nil
}

// function checks a function's signature against its body and walks the body.
func (v *verifier) function(f *ir.Func) error {
	where := fmt.Sprintf("func @%s at %s", f.Name, f.Loc)
	switch f.Visibility {
	case "", "public", "private", "nested":
	default:
		return fmt.Errorf("%s: unknown visibility %q", where, f.Visibility)
	}
	if f.Body == nil || len(f.Body.Blocks) != 1 {
		return fmt.Errorf("%s: body must have exactly one block", where)
	}
	if f.ArgAttrs != nil && len(f.ArgAttrs) != len(f.Type.Inputs) {
		return fmt.Errorf("%s: %d argument attribute sets for %d arguments", where, len(f.ArgAttrs), len(f.Type.Inputs))
	}
	if f.ResAttrs != nil && len(f.ResAttrs) != len(f.Type.Results) {
		return fmt.Errorf("%s: %d result attribute sets for %d results", where, len(f.ResAttrs), len(f.Type.Results))
	}
	b := f.Entry()
	if len(b.Args) != len(f.Type.Inputs) {
		return fmt.Errorf("%s: body has %d arguments, signature %d", where, len(b.Args), len(f.Type.Inputs))
	}
	for i, a := range b.Args {
		if a == nil || !validType(a.Type) {
			return fmt.Errorf("%s: argument %d has invalid type %s", where, i, typeName(a))
		}
		if !ir.TypesEqual(a.Type, f.Type.Inputs[i]) {
			return fmt.Errorf("%s: argument %d has type %s, signature says %s", where, i, typeName(a), f.Type.Inputs[i])
		}
	}
	for i, t := range f.Type.Results {
		if !validType(t) {
			return fmt.Errorf("%s: result %d has invalid type %v", where, i, t)
		}
	}
	term := b.Terminator()
	if term == nil {
		return fmt.Errorf("%s: empty body (needs func.return)", where)
	}
	if term.Name != "func.return" {
		return term.Errorf("function @%s must end with func.return", f.Name)
	}
	if err := v.region(f.Body, nil); err != nil {
		return err
	}
	if err := v.valuesMatch(term, "return", term.Operands, f.Type.Results); err != nil {
		return err
	}
	return nil
}

// region walks the region's ops in order, checking each op and then its
// regions. Values defined inside the region go out of scope when it ends.
func (v *verifier) region(r *ir.Region, parent *ir.Op) error {
	defer func() {
		if parent == nil {
			// A function body: the set holds nothing else, and emptying
			// it whole is cheaper than looking each value up.
			v.defined.reset()
			return
		}
		for _, b := range r.Blocks {
			if b == nil {
				continue
			}
			for _, a := range b.Args {
				v.defined.del(a)
			}
			for _, op := range b.Ops {
				if op != nil {
					for _, res := range op.Results {
						v.defined.del(res)
					}
				}
			}
		}
	}()
	for _, b := range r.Blocks {
		if b == nil {
			return fmt.Errorf("verify: nil block")
		}
		for _, a := range b.Args {
			if a == nil || !validType(a.Type) {
				if parent != nil {
					return parent.Errorf("region argument has invalid type %s", typeName(a))
				}
				return fmt.Errorf("verify: block argument has invalid type %s", typeName(a))
			}
			v.defined.add(a)
		}
		for i, op := range b.Ops {
			if op == nil {
				return fmt.Errorf("verify: nil op in block")
			}
			if err := v.op(op); err != nil {
				return err
			}
			if i != len(b.Ops)-1 && isTerminator(op.Name) {
				return op.Errorf("terminator is not the last op of its block")
			}
		}
		if t := b.Terminator(); t == nil || !isTerminator(t.Name) {
			if parent != nil {
				return parent.Errorf("region block does not end with a terminator")
			}
			return fmt.Errorf("verify: block does not end with a terminator")
		}
	}
	return nil
}

func isTerminator(name string) bool {
	return name == "func.return" || name == "stablehlo.return" || name == "sdy.return"
}

// op checks one op: operands defined, result types valid, its own rule, then regions.
func (v *verifier) op(op *ir.Op) error {
	for i, x := range op.Operands {
		if x == nil {
			return op.Errorf("operand %d is nil", i)
		}
		if !v.defined.has(x) {
			return op.Errorf("operand %d is not defined before its use", i)
		}
		if !validType(x.Type) {
			return op.Errorf("operand %d has invalid type %s", i, typeName(x))
		}
	}
	for i, r := range op.Results {
		if r == nil || !validType(r.Type) {
			return op.Errorf("result %d has invalid type %s", i, typeName(r))
		}
		if r.Def != op || r.Index != i {
			return op.Errorf("result %d does not point back to its op", i)
		}
	}
	for i, r := range op.Regions {
		if r == nil || len(r.Blocks) == 0 {
			return op.Errorf("region %d is empty", i)
		}
	}
	fn, known := v.check(op.Name)
	if !known && !foreignAccepted(op.Name) {
		return op.Errorf("unknown op (not a StableHLO, func, sdy or builtin cast op gojax knows)")
	}
	// Nested ops first, so a wrong type inside a body is reported at the op
	// that produced it rather than at the region signature check.
	for _, r := range op.Regions {
		if err := v.region(r, op); err != nil {
			return err
		}
	}
	if known { // foreign ops are not type-checked
		v.tensors.Rewind()
		check := fn
		if op.Name != "stablehlo.uniform_quantize" && op.Name != "stablehlo.uniform_dequantize" && ir.OpQuantized(op) {
			check = func(v *verifier, op *ir.Op) error { return v.quantOp(op, fn) }
		}
		if err := check(v, op); err != nil {
			return err
		}
	}
	for _, r := range op.Results {
		v.defined.add(r)
	}
	return nil
}

// validType reports a well-formed type: tensors have a valid element type and
// non-negative dims; tuples hold valid types.
func validType(t ir.Type) bool {
	switch t := t.(type) {
	case *ir.TensorType:
		if t == nil || t.Elem == ir.Invalid || t.Elem.ByteSize() == 0 {
			return false
		}
		if t.Quant != nil && !validQuant(t) {
			return false
		}
		for _, d := range t.Shape {
			if d < 0 {
				return false
			}
		}
		return true
	case *ir.TokenType:
		return t != nil
	case *ir.TupleType:
		if t == nil {
			return false
		}
		for _, e := range t.Elems {
			if !validType(e) {
				return false
			}
		}
		return true
	}
	return false
}

func typeName(v *ir.Value) string {
	if v == nil || v.Type == nil {
		return "<nil>"
	}
	return v.Type.String()
}
