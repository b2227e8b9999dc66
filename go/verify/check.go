package verify

import (
	"slices"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// This file holds the small checks every op family builds on.

// counts checks exact operand and result counts (-1 means any).
func counts(op *ir.Op, operands, results int) error {
	if operands >= 0 && len(op.Operands) != operands {
		return op.Errorf("expects %d operands, has %d", operands, len(op.Operands))
	}
	if results >= 0 && len(op.Results) != results {
		return op.Errorf("expects %d results, has %d", results, len(op.Results))
	}
	return nil
}

// regions checks the number of regions.
func regions(op *ir.Op, n int) error {
	if len(op.Regions) != n {
		return op.Errorf("expects %d regions, has %d", n, len(op.Regions))
	}
	return nil
}

// tensorOf returns the tensor type of a value or an error naming its role.
func tensorOf(op *ir.Op, role string, x *ir.Value) (*ir.TensorType, error) {
	t, ok := x.Type.(*ir.TensorType)
	if !ok || t == nil {
		return nil, op.Errorf("%s must be a tensor, is %s", role, x.Type)
	}
	return t, nil
}

// operandTensors returns the tensor types of all operands.
func (v *verifier) operandTensors(op *ir.Op) ([]*ir.TensorType, error) {
	out := v.tensors.Take(len(op.Operands))
	for i, x := range op.Operands {
		t, ok := x.Type.(*ir.TensorType)
		if !ok || t == nil { // the role is formatted only on failure: this runs per op
			return nil, op.Errorf("operand %d must be a tensor, is %s", i, x.Type)
		}
		out[i] = t
	}
	return out, nil
}

// resultTensors returns the tensor types of all results.
func (v *verifier) resultTensors(op *ir.Op) ([]*ir.TensorType, error) {
	out := v.tensors.Take(len(op.Results))
	for i, x := range op.Results {
		t, ok := x.Type.(*ir.TensorType)
		if !ok || t == nil {
			return nil, op.Errorf("result %d must be a tensor, is %s", i, x.Type)
		}
		out[i] = t
	}
	return out, nil
}

// sig returns operand and result tensor types after checking counts.
func (v *verifier) sig(op *ir.Op, operands, results int) ([]*ir.TensorType, []*ir.TensorType, error) {
	if err := counts(op, operands, results); err != nil {
		return nil, nil, err
	}
	if err := regions(op, 0); err != nil {
		return nil, nil, err
	}
	ins, err := v.operandTensors(op)
	if err != nil {
		return nil, nil, err
	}
	outs, err := v.resultTensors(op)
	if err != nil {
		return nil, nil, err
	}
	return ins, outs, nil
}

// elemClass is a set of element types an operand may have: the kernel
// registry's, whose type rules the verifier applies (elementwise.go).
type elemClass = kernel.ElemClass

const (
	classBool     = kernel.ClassBool
	classSigned   = kernel.ClassSigned
	classUnsigned = kernel.ClassUnsigned
	classFloat    = kernel.ClassFloat
	classComplex  = kernel.ClassComplex

	classInt     = kernel.ClassInt
	classIntBool = kernel.ClassIntBool
	classFC      = kernel.ClassFC
	classNumeric = kernel.ClassNumeric
	classAll     = kernel.ClassAll
	classSF      = classSigned | classFloat
	classSFC     = kernel.ClassSFC
	classIF      = classInt | classFloat
)

// The checks below are the registry's, so the rules registered with the
// kernels and the verifier's own word their errors alike.

// elemIn checks that a tensor's element type belongs to the class.
func elemIn(op *ir.Op, role string, t *ir.TensorType, c elemClass) error {
	return kernel.ElemIn(op, role, t, c)
}

// sameType checks two tensors are of equal type.
func sameType(op *ir.Op, what string, a, b *ir.TensorType) error {
	return kernel.SameType(op, what, a, b)
}

// sameShape checks equal shapes whatever the element types.
func sameShape(op *ir.Op, what string, a, b *ir.TensorType) error {
	return kernel.SameShape(op, what, a, b)
}

// wantShape checks a result shape against the inferred one.
func wantShape(op *ir.Op, role string, t *ir.TensorType, shape []int64) error {
	return kernel.WantShape(op, role, t, shape)
}

// wantElem checks an element type.
func wantElem(op *ir.Op, role string, t *ir.TensorType, e ir.ElemType) error {
	return kernel.WantElem(op, role, t, e)
}

// scalarInt checks a 0-d integer tensor (an index operand).
func scalarInt(op *ir.Op, role string, x *ir.Value) error {
	t, err := tensorOf(op, role, x)
	if err != nil {
		return err
	}
	if t.Rank() != 0 || !t.Elem.IsInteger() {
		return op.Errorf("%s must be a 0-d integer tensor, is %s", role, t)
	}
	return nil
}

// complexPart maps complex<f32>/complex<f64> to f32/f64.
func complexPart(e ir.ElemType) ir.ElemType {
	switch e {
	case ir.C64:
		return ir.F32
	case ir.C128:
		return ir.F64
	}
	return ir.Invalid
}

// isToken reports a token-typed value.
func isToken(x *ir.Value) bool {
	_, ok := x.Type.(*ir.TokenType)
	return ok
}

// ---- attributes ----

// i64s returns an integer-list attribute; required ones must be present.
// Lists of shape NxK (padding, replica groups, …) arrive flattened.
func i64s(op *ir.Op, name string, required bool) ([]int64, bool, error) {
	a, ok := op.Attrs[name]
	if !ok {
		if required {
			return nil, false, op.Errorf("missing required attribute %s", name)
		}
		return nil, false, nil
	}
	switch a := a.(type) {
	case ir.DenseI64Attr:
		return a.Values, true, nil
	case *ir.ElementsAttr:
		if a != nil && a.Type != nil && a.Type.Elem.IsInteger() {
			return elementsI64(a), true, nil
		}
	}
	return nil, false, op.Errorf("attribute %s must be an integer list, is %s", name, a)
}

// elementsI64 reads integer constant data as int64s.
func elementsI64(a *ir.ElementsAttr) []int64 {
	sz := a.Type.Elem.ByteSize()
	n := int(a.Type.NumElements())
	if sz == 0 || len(a.Data) < n*sz {
		return nil
	}
	out := make([]int64, n)
	for i := range out {
		var u uint64
		for b := 0; b < sz; b++ {
			u |= uint64(a.Data[i*sz+b]) << (8 * b)
		}
		if a.Type.Elem.IsSigned() && sz < 8 {
			shift := 64 - 8*sz
			out[i] = int64(u<<shift) >> shift
		} else {
			out[i] = int64(u)
		}
	}
	return out
}

// intAttr returns an integer attribute (def when absent and not required).
func intAttr(op *ir.Op, name string, required bool, def int64) (int64, error) {
	return kernel.IntAttr(op, name, required, def)
}

// floatAttr returns a float attribute.
func floatAttr(op *ir.Op, name string) (float64, error) {
	a, ok := op.Attrs[name]
	if !ok {
		return 0, op.Errorf("missing required attribute %s", name)
	}
	if x, ok := a.(ir.FloatAttr); ok {
		return x.Value, nil
	}
	return 0, op.Errorf("attribute %s must be a float, is %s", name, a)
}

// boolAttr returns a bool attribute (def when absent); an i1 IntAttr is accepted too.
func boolAttr(op *ir.Op, name string, def bool) (bool, error) {
	a, ok := op.Attrs[name]
	if !ok {
		return def, nil
	}
	switch x := a.(type) {
	case ir.BoolAttr:
		return x.Value, nil
	case ir.IntAttr:
		if x.Type == ir.Pred {
			return x.Value != 0, nil
		}
	case ir.UnitAttr:
		return true, nil
	}
	return false, op.Errorf("attribute %s must be a bool, is %s", name, a)
}

// enumAttr returns an enum attribute's value, checking it against the allowed spellings.
func enumAttr(op *ir.Op, name string, required bool, def string, allowed ...string) (string, error) {
	return kernel.EnumAttr(op, name, required, def, allowed...)
}

// stringAttr returns a string attribute.
func stringAttr(op *ir.Op, name string, required bool) (string, error) {
	a, ok := op.Attrs[name]
	if !ok {
		if required {
			return "", op.Errorf("missing required attribute %s", name)
		}
		return "", nil
	}
	if x, ok := a.(ir.StringAttr); ok {
		return x.Value, nil
	}
	return "", op.Errorf("attribute %s must be a string, is %s", name, a)
}

// symbolAttr returns a function reference given as a symbol or a string
// (VHLO stores callees as strings).
func symbolAttr(op *ir.Op, name string) (string, error) {
	a, ok := op.Attrs[name]
	if !ok {
		return "", op.Errorf("missing required attribute %s", name)
	}
	switch x := a.(type) {
	case ir.SymbolRefAttr:
		return x.Name, nil
	case ir.StringAttr:
		return x.Value, nil
	}
	return "", op.Errorf("attribute %s must be a function reference, is %s", name, a)
}

// precisionConfig checks the optional precision_config list.
func precisionConfig(op *ir.Op, max int) error {
	a, ok := op.Attrs["precision_config"]
	if !ok {
		return nil
	}
	arr, ok := a.(ir.ArrayAttr)
	if !ok {
		return op.Errorf("attribute precision_config must be a list of precisions, is %s", a)
	}
	if len(arr.Elems) > max {
		return op.Errorf("precision_config has %d entries; at most %d", len(arr.Elems), max)
	}
	for _, e := range arr.Elems {
		x, ok := e.(ir.EnumAttr)
		if !ok || !slices.Contains([]string{"DEFAULT", "HIGH", "HIGHEST"}, x.Value) {
			return op.Errorf("precision_config entry %s is not DEFAULT, HIGH or HIGHEST", e)
		}
	}
	return nil
}

// ---- dimension lists ----

// dimsIn checks every entry of dims is a dimension of a rank-r tensor.
func dimsIn(op *ir.Op, name string, dims []int64, rank int) error {
	for _, d := range dims {
		if d < 0 || d >= int64(rank) {
			return op.Errorf("%s entry %d out of range for rank %d", name, d, rank)
		}
	}
	return nil
}

// unique checks a list has no repeated values.
func unique(op *ir.Op, name string, dims []int64) error {
	return unique2(op, name, dims, nil)
}

// unique2 checks that the entries of a then b are distinct without joining
// them. Dimension lists are short, where a quadratic scan beats a set; long
// (hostile) ones still get the set.
func unique2(op *ir.Op, name string, a, b []int64) error {
	if len(a)+len(b) > 16 {
		seen := make(map[int64]bool, len(a)+len(b))
		for _, l := range [][]int64{a, b} {
			for _, d := range l {
				if seen[d] {
					return op.Errorf("%s has duplicate entry %d", name, d)
				}
				seen[d] = true
			}
		}
		return nil
	}
	// Report the first entry seen before, as the set does.
	for i, d := range a {
		if slices.Contains(a[:i], d) {
			return op.Errorf("%s has duplicate entry %d", name, d)
		}
	}
	for i, d := range b {
		if slices.Contains(a, d) || slices.Contains(b[:i], d) {
			return op.Errorf("%s has duplicate entry %d", name, d)
		}
	}
	return nil
}

// sortedDims checks a list is strictly increasing.
func sortedDims(op *ir.Op, name string, dims []int64) error {
	for i := 1; i < len(dims); i++ {
		if dims[i] <= dims[i-1] {
			return op.Errorf("%s must be sorted and unique, is %v", name, dims)
		}
	}
	return nil
}

// isPermutation checks dims is a permutation of 0..n-1.
func isPermutation(op *ir.Op, name string, dims []int64, n int) error {
	if len(dims) != n {
		return op.Errorf("%s has %d entries; expected %d", name, len(dims), n)
	}
	if err := dimsIn(op, name, dims, n); err != nil {
		return err
	}
	return unique(op, name, dims)
}

// lenIs checks the length of a list attribute.
func lenIs(op *ir.Op, name string, xs []int64, n int) error {
	if len(xs) != n {
		return op.Errorf("%s has %d entries; expected %d", name, len(xs), n)
	}
	return nil
}

// ---- regions ----

// regionSig checks that a region's single block takes args of the given
// types and its stablehlo.return yields values of the given types.
func (v *verifier) regionSig(op *ir.Op, idx int, args, rets []ir.Type) error {
	r := op.Regions[idx]
	if len(r.Blocks) != 1 {
		return op.Errorf("region %d must have exactly one block, has %d", idx, len(r.Blocks))
	}
	b := r.Blocks[0]
	if args != nil {
		if len(b.Args) != len(args) {
			return op.Errorf("region %d takes %d arguments; expected %d", idx, len(b.Args), len(args))
		}
		for i, a := range b.Args {
			if a == nil || !ir.TypesEqual(a.Type, args[i]) {
				return op.Errorf("region %d argument %d has type %s; expected %s", idx, i, typeName(a), args[i])
			}
		}
	}
	t := b.Terminator()
	if t == nil || t.Name != "stablehlo.return" {
		return op.Errorf("region %d must end with stablehlo.return", idx)
	}
	if rets != nil {
		if len(t.Operands) != len(rets) {
			return op.Errorf("region %d returns %d values; expected %d", idx, len(t.Operands), len(rets))
		}
		for i, x := range t.Operands {
			if x == nil || !ir.TypesEqual(x.Type, rets[i]) {
				return op.Errorf("region %d returns %s as value %d; expected %s", idx, typeName(x), i, rets[i])
			}
		}
	}
	return nil
}

// regionReturns returns the types a region's terminator yields.
func regionReturns(op *ir.Op, idx int) ([]ir.Type, error) {
	r := op.Regions[idx]
	if len(r.Blocks) != 1 {
		return nil, op.Errorf("region %d must have exactly one block, has %d", idx, len(r.Blocks))
	}
	t := r.Blocks[0].Terminator()
	if t == nil || t.Name != "stablehlo.return" {
		return nil, op.Errorf("region %d must end with stablehlo.return", idx)
	}
	out := make([]ir.Type, len(t.Operands))
	for i, x := range t.Operands {
		if x == nil {
			return nil, op.Errorf("region %d return value %d is nil", idx, i)
		}
		out[i] = x.Type
	}
	return out, nil
}

// valuesMatch checks a list of values against expected types.
func (v *verifier) valuesMatch(op *ir.Op, what string, xs []*ir.Value, want []ir.Type) error {
	if len(xs) != len(want) {
		return op.Errorf("%s has %d values; expected %d", what, len(xs), len(want))
	}
	for i, x := range xs {
		if !ir.TypesEqual(x.Type, want[i]) {
			return op.Errorf("%s value %d has type %s; expected %s", what, i, typeName(x), want[i])
		}
	}
	return nil
}

func types(xs []*ir.Value) []ir.Type {
	out := make([]ir.Type, len(xs))
	for i, x := range xs {
		out[i] = x.Type
	}
	return out
}

// scalarOf is the 0-d tensor of an element type (reduction body arguments).
// The verifier only compares these, so one per element type is shared.
func scalarOf(e ir.ElemType) ir.Type { return scalars[e] }

// scalarLike is the 0-d tensor of t's elements, quantization included.
func scalarLike(t *ir.TensorType) ir.Type {
	if t.Quant != nil {
		return &ir.TensorType{Elem: t.Elem, Quant: t.Quant}
	}
	return scalars[t.Elem]
}

var scalars = func() (s [256]*ir.TensorType) {
	for i := range s {
		s[i] = ir.Tensor(ir.ElemType(i))
	}
	return s
}()
