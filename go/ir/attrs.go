package ir

import (
	"fmt"
	"sort"
	"strings"
)

// Attr is a typed attribute value. Op attribute names are those of the StableHLO
// spec (which VHLO keeps): e.g. dot_general has lhs_batching_dimensions,
// rhs_contracting_dimensions, precision_config; compare has comparison_direction
// and compare_type.
type Attr interface {
	String() string
	isAttr()
}

// IntAttr is an integer attribute (also used for i1-typed bools stored as ints).
type IntAttr struct {
	Value int64
	Type  ElemType // width/signedness of the integer; Invalid for index
}

// FloatAttr is a floating-point attribute.
type FloatAttr struct {
	Value float64
	Type  ElemType
}

// BoolAttr is a boolean attribute.
type BoolAttr struct{ Value bool }

// StringAttr is a string attribute.
type StringAttr struct{ Value string }

// UnitAttr marks presence only.
type UnitAttr struct{}

// ArrayAttr is a list of attributes.
type ArrayAttr struct{ Elems []Attr }

// DenseI64Attr is an integer list (dimension numbers, permutations, strides, …).
// VHLO stores these either as array<i64> or as dense tensors; the reader
// normalizes both to this form.
type DenseI64Attr struct{ Values []int64 }

// DenseBoolAttr is a bool list (e.g. is_stable-like flags, padding masks).
type DenseBoolAttr struct{ Values []bool }

// ElementsAttr is a dense constant: row-major data in gojax storage layout
// (little endian; one byte per element for i1 and sub-byte types; complex as
// real,imag pairs). A splat constant is already expanded to every element.
type ElementsAttr struct {
	Type *TensorType
	Data []byte
}

// EnumAttr is a StableHLO enum value, spelled as in the spec.
// Kind examples: "comparison_direction" (EQ, NE, GE, GT, LE, LT),
// "comparison_type" (NOTYPE, FLOAT, TOTALORDER, SIGNED, UNSIGNED),
// "precision" (DEFAULT, HIGH, HIGHEST), "fft_type" (FFT, IFFT, RFFT, IRFFT),
// "rng_algorithm" (DEFAULT, THREE_FRY, PHILOX), "rng_distribution" (UNIFORM, NORMAL),
// "transpose" (NO_TRANSPOSE, TRANSPOSE, ADJOINT), "custom_call_api_version"
// (API_VERSION_UNSPECIFIED, API_VERSION_ORIGINAL, API_VERSION_STATUS_RETURNING,
// API_VERSION_STATUS_RETURNING_UNIFIED, API_VERSION_TYPED_FFI),
// "result_accuracy_mode" (DEFAULT, HIGHEST, TOLERANCE).
type EnumAttr struct {
	Kind  string
	Value string
}

// TypeAttr holds a type.
type TypeAttr struct{ Type Type }

// SymbolRefAttr names a function (@callee).
type SymbolRefAttr struct{ Name string }

// DictAttr is a name → attribute dictionary (custom_call backend_config in the
// typed-FFI form, function argument attributes, …).
type DictAttr struct{ Entries Attrs }

// OutputOperandAliasAttr is one entry of custom_call output_operand_aliases.
type OutputOperandAliasAttr struct {
	OutputTupleIndices  []int64
	OperandIndex        int64
	OperandTupleIndices []int64
}

// OpaqueAttr keeps an attribute gojax does not interpret (Shardy shardings,
// foreign dialects) in a printable form, so nothing is silently lost.
type OpaqueAttr struct {
	Dialect string
	Text    string
}

func (IntAttr) isAttr()                {}
func (FloatAttr) isAttr()              {}
func (BoolAttr) isAttr()               {}
func (StringAttr) isAttr()             {}
func (UnitAttr) isAttr()               {}
func (ArrayAttr) isAttr()              {}
func (DenseI64Attr) isAttr()           {}
func (DenseBoolAttr) isAttr()          {}
func (*ElementsAttr) isAttr()          {}
func (EnumAttr) isAttr()               {}
func (TypeAttr) isAttr()               {}
func (SymbolRefAttr) isAttr()          {}
func (DictAttr) isAttr()               {}
func (OutputOperandAliasAttr) isAttr() {}
func (OpaqueAttr) isAttr()             {}

func (a IntAttr) String() string {
	if a.Type == Invalid {
		return fmt.Sprintf("%d : index", a.Value)
	}
	return fmt.Sprintf("%d : %s", a.Value, a.Type)
}
func (a FloatAttr) String() string  { return fmt.Sprintf("%g : %s", a.Value, a.Type) }
func (a BoolAttr) String() string   { return fmt.Sprintf("%t", a.Value) }
func (a StringAttr) String() string { return fmt.Sprintf("%q", a.Value) }
func (UnitAttr) String() string     { return "unit" }
func (a ArrayAttr) String() string {
	parts := make([]string, len(a.Elems))
	for i, e := range a.Elems {
		parts[i] = e.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
func (a DenseI64Attr) String() string {
	parts := make([]string, len(a.Values))
	for i, v := range a.Values {
		parts[i] = fmt.Sprint(v)
	}
	return "array<i64: " + strings.Join(parts, ", ") + ">"
}
func (a DenseBoolAttr) String() string {
	parts := make([]string, len(a.Values))
	for i, v := range a.Values {
		parts[i] = fmt.Sprint(v)
	}
	return "array<i1: " + strings.Join(parts, ", ") + ">"
}
func (a *ElementsAttr) String() string {
	return fmt.Sprintf("dense<%d bytes> : %s", len(a.Data), a.Type)
}
func (a EnumAttr) String() string      { return fmt.Sprintf("#stablehlo<%s %s>", a.Kind, a.Value) }
func (a TypeAttr) String() string      { return a.Type.String() }
func (a SymbolRefAttr) String() string { return "@" + a.Name }
func (a DictAttr) String() string      { return "{" + a.Entries.String() + "}" }
func (a OpaqueAttr) String() string    { return a.Text }
func (a OutputOperandAliasAttr) String() string {
	return fmt.Sprintf("#stablehlo.output_operand_alias<output_tuple_indices = %v, operand_index = %d, operand_tuple_indices = %v>",
		a.OutputTupleIndices, a.OperandIndex, a.OperandTupleIndices)
}

// Attrs is an attribute dictionary.
type Attrs map[string]Attr

// Names returns the keys sorted, for deterministic printing.
func (a Attrs) Names() []string {
	names := make([]string, 0, len(a))
	for k := range a {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

func (a Attrs) String() string {
	parts := make([]string, 0, len(a))
	for _, k := range a.Names() {
		parts = append(parts, k+" = "+a[k].String())
	}
	return strings.Join(parts, ", ")
}

// I64s returns an integer-list attribute (nil, false when absent or of another kind).
func (a Attrs) I64s(name string) ([]int64, bool) {
	v, ok := a[name].(DenseI64Attr)
	return v.Values, ok
}

// Int returns an integer attribute.
func (a Attrs) Int(name string) (int64, bool) {
	v, ok := a[name].(IntAttr)
	return v.Value, ok
}

// Float returns a float attribute.
func (a Attrs) Float(name string) (float64, bool) {
	v, ok := a[name].(FloatAttr)
	return v.Value, ok
}

// Bool returns a bool attribute.
func (a Attrs) Bool(name string) (bool, bool) {
	v, ok := a[name].(BoolAttr)
	return v.Value, ok
}

// Str returns a string attribute.
func (a Attrs) Str(name string) (string, bool) {
	v, ok := a[name].(StringAttr)
	return v.Value, ok
}

// Enum returns the value of an enum attribute ("" when absent).
func (a Attrs) Enum(name string) (string, bool) {
	v, ok := a[name].(EnumAttr)
	return v.Value, ok
}

// Elements returns a dense constant attribute.
func (a Attrs) Elements(name string) (*ElementsAttr, bool) {
	v, ok := a[name].(*ElementsAttr)
	return v, ok
}
