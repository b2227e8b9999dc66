// Package arrowx moves gojax's dense tensors across the Arrow C Data
// Interface with Apache Arrow Go v15 (arrow/cdata), without copying.
//
// Export: the tensor's memory is wrapped in a memory.Buffer whose allocator
// is the tensor's owner (Free never hands the memory to Go's allocator; it
// tells the owner, once, that the last Arrow reference is gone), and
// cdata.ExportArrowArray writes the C structs. Import: cdata.ImportCArrowField
// and cdata.ImportCArrayWithType take ownership of a producer's structs, and
// Import hands back the address of element 0 (or, when nulls must be filled
// or booleans unpacked, one aligned copy).
//
// A 1-D tensor is a primitive array; an N-D tensor is the canonical extension
// "arrow.fixed_shape_tensor" whose storage is a fixed_size_list<item: T>
// [prod(shape[1:])] of length shape[0], with metadata {"shape":[...]}.
//
// What Arrow Go does not do stays here, and is small: the dtype table, the
// extension type (v15 ships none for tensors, and its cdata neither exports
// an extension array's children nor recognises extension types on import),
// C struct shells and PyCapsule destructors for the Python side, and calling
// the owner's C release hook.
package arrowx

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
)

// ExtensionName is the canonical Arrow extension type for N-D tensors.
const ExtensionName = "arrow.fixed_shape_tensor"

// dtypes maps gojax/NumPy dtype names to the Arrow types laid out exactly as
// gojax stores them. bool is absent (bit-packed in Arrow, one byte per element
// in gojax; Import converts it, export is the caller's copy); bfloat16 and
// complex have no Arrow primitive.
var dtypes = map[string]arrow.DataType{
	"int8": arrow.PrimitiveTypes.Int8, "uint8": arrow.PrimitiveTypes.Uint8,
	"int16": arrow.PrimitiveTypes.Int16, "uint16": arrow.PrimitiveTypes.Uint16,
	"int32": arrow.PrimitiveTypes.Int32, "uint32": arrow.PrimitiveTypes.Uint32,
	"int64": arrow.PrimitiveTypes.Int64, "uint64": arrow.PrimitiveTypes.Uint64,
	"float16": arrow.FixedWidthTypes.Float16, "float32": arrow.PrimitiveTypes.Float32,
	"float64": arrow.PrimitiveTypes.Float64,
}

// dtypeOf is the inverse of dtypes, plus bool (imported by unpacking).
func dtypeOf(t arrow.DataType) (string, bool) {
	if t.ID() == arrow.BOOL {
		return "bool", true
	}
	for name, dt := range dtypes {
		if arrow.TypeEqual(dt, t) {
			return name, true
		}
	}
	return "", false
}

// byteWidth is the size of one element of an Arrow type from dtypes.
func byteWidth(dt arrow.DataType) int64 { return int64(dt.(arrow.FixedWidthDataType).BitWidth() / 8) }

func supported() string {
	return "int8/16/32/64, uint8/16/32/64, float16, float32, float64"
}

// Format returns the Arrow type of a dtype, or an error naming the dtype when
// Arrow has no zero-copy equivalent.
func Format(dtype string) (arrow.DataType, error) {
	dt, ok := dtypes[dtype]
	if !ok {
		return nil, fmt.Errorf("arrowx: dtype %q has no zero-copy Arrow equivalent (supported: %s)", dtype, supported())
	}
	return dt, nil
}

// ParseShape reads a comma-separated shape ("2,3,4"); the Python binding passes
// shapes this way because gopy maps strings natively.
func ParseShape(s string) ([]int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("arrowx: empty shape (0-d tensors must be reshaped to 1-D first)")
	}
	parts := strings.Split(s, ",")
	shape := make([]int64, len(parts))
	for i, p := range parts {
		d, err := strconv.ParseInt(strings.TrimSpace(p), 10, 64)
		if err != nil || d < 0 {
			return nil, fmt.Errorf("arrowx: bad dimension %q in shape %q", p, s)
		}
		shape[i] = d
	}
	return shape, nil
}

// FormatShape is ParseShape's inverse.
func FormatShape(shape []int64) string {
	parts := make([]string, len(shape))
	for i, d := range shape {
		parts[i] = strconv.FormatInt(d, 10)
	}
	return strings.Join(parts, ",")
}

// TensorType is "arrow.fixed_shape_tensor" with the element shape Shape (the
// tensor's shape without its leading dimension) and row-major layout.
type TensorType struct {
	arrow.ExtensionBase
	Shape []int64
}

// NewTensorType returns the tensor type of elements value and element shape.
func NewTensorType(value arrow.DataType, shape []int64) *TensorType {
	size := int64(1)
	for _, d := range shape {
		size *= d
	}
	return &TensorType{
		ExtensionBase: arrow.ExtensionBase{Storage: arrow.FixedSizeListOf(int32(size), value)},
		Shape:         slices.Clone(shape),
	}
}

// ArrayType implements arrow.ExtensionType.
func (*TensorType) ArrayType() reflect.Type { return reflect.TypeOf(TensorArray{}) }

// ExtensionName implements arrow.ExtensionType.
func (*TensorType) ExtensionName() string { return ExtensionName }

func (t *TensorType) String() string {
	return fmt.Sprintf("extension<%s[value_type=%s, shape=%v]>", ExtensionName, t.value(), t.Shape)
}

func (t *TensorType) value() arrow.DataType { return t.Storage.(*arrow.FixedSizeListType).Elem() }

// tensorMeta is the extension's metadata; gojax writes only the shape.
type tensorMeta struct {
	Shape       []int64  `json:"shape"`
	Permutation []int64  `json:"permutation,omitempty"`
	DimNames    []string `json:"dim_names,omitempty"`
}

// Serialize implements arrow.ExtensionType: {"shape":[...]}.
func (t *TensorType) Serialize() string {
	return `{"shape":[` + FormatShape(t.Shape) + `]}`
}

// Deserialize implements arrow.ExtensionType. It rejects a permutation other
// than the identity: such tensors are not row-major and gojax does not
// transpose them.
func (*TensorType) Deserialize(storage arrow.DataType, data string) (arrow.ExtensionType, error) {
	fsl, ok := storage.(*arrow.FixedSizeListType)
	if !ok {
		return nil, fmt.Errorf("arrowx: %s storage must be a fixed_size_list, got %s", ExtensionName, storage)
	}
	var m tensorMeta
	if err := json.Unmarshal([]byte(data), &m); err != nil {
		return nil, fmt.Errorf("arrowx: bad %s metadata %q: %w", ExtensionName, data, err)
	}
	size := int64(1)
	for _, d := range m.Shape {
		if d < 0 {
			return nil, fmt.Errorf("arrowx: negative dimension in %s metadata %q", ExtensionName, data)
		}
		size *= d
	}
	if size != int64(fsl.Len()) {
		return nil, fmt.Errorf("arrowx: %s shape %v does not match list size %d", ExtensionName, m.Shape, fsl.Len())
	}
	for i, p := range m.Permutation {
		if p != int64(i) {
			return nil, fmt.Errorf("arrowx: %s permutation %v is not supported (only row-major tensors)", ExtensionName, m.Permutation)
		}
	}
	return &TensorType{ExtensionBase: arrow.ExtensionBase{Storage: fsl}, Shape: m.Shape}, nil
}

// ExtensionEquals implements arrow.ExtensionType.
func (t *TensorType) ExtensionEquals(o arrow.ExtensionType) bool {
	u, ok := o.(*TensorType)
	return ok && arrow.TypeEqual(t.Storage, u.Storage) && slices.Equal(t.Shape, u.Shape)
}

// TensorArray is an array of TensorType. It is array.ListLike (its values are
// its storage's) because cdata.ExportArrowArray exports the children of
// list-like arrays only, and an extension array's children are its storage's.
type TensorArray struct {
	array.ExtensionArrayBase
}

func (a *TensorArray) storage() *array.FixedSizeList { return a.Storage().(*array.FixedSizeList) }

// ListValues implements array.ListLike.
func (a *TensorArray) ListValues() arrow.Array { return a.storage().ListValues() }

// ValueOffsets implements array.ListLike.
func (a *TensorArray) ValueOffsets(i int) (start, end int64) { return a.storage().ValueOffsets(i) }

var _ array.ListLike = (*TensorArray)(nil)

// checkShape validates a tensor shape and returns its element count and the
// size of one row (prod(shape[1:])).
func checkShape(shape []int64) (total, inner int64, err error) {
	if len(shape) == 0 {
		return 0, 0, fmt.Errorf("arrowx: 0-d tensor (reshape it to 1-D first)")
	}
	total, inner = 1, 1
	for _, d := range shape {
		if d < 0 {
			return 0, 0, fmt.Errorf("arrowx: negative dimension in shape %v", shape)
		}
		if d != 0 && total > math.MaxInt64/d {
			return 0, 0, fmt.Errorf("arrowx: shape %v overflows int64", shape)
		}
		total *= d
	}
	for _, d := range shape[1:] {
		if d != 0 && inner > math.MaxInt64/d {
			return 0, 0, fmt.Errorf("arrowx: shape %v overflows int64", shape)
		}
		inner *= d
	}
	if len(shape) > 1 && inner > math.MaxInt32 {
		return 0, 0, fmt.Errorf("arrowx: inner size %d of shape %v exceeds Arrow's int32 list size", inner, shape)
	}
	return total, inner, nil
}
