package arrowx

import (
	"runtime"
	"testing"
	"unsafe"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/cdata"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/stretchr/testify/require"
)

// counter is a release function that counts its calls.
type counter struct{ n int }

func (c *counter) release() { c.n++ }

func addr[T any](s []T) uintptr { return uintptr(unsafe.Pointer(&s[0])) }

// sink moves test data to the heap: exported memory must not live on a
// goroutine stack, which moves when it grows.
var sink []any

func onHeap[T any](vals ...T) []T {
	s := make([]T, len(vals))
	copy(s, vals)
	sink = append(sink, s)
	return s
}

func structs(t *testing.T) (arr, schema uintptr) {
	arr, schema = NewArray(), NewSchema()
	t.Cleanup(func() { FreeArray(arr); FreeSchema(schema) })
	return arr, schema
}

func TestFormat(t *testing.T) {
	for dtype, want := range map[string]arrow.DataType{
		"int8": arrow.PrimitiveTypes.Int8, "uint64": arrow.PrimitiveTypes.Uint64,
		"float16": arrow.FixedWidthTypes.Float16, "float64": arrow.PrimitiveTypes.Float64,
	} {
		got, err := Format(dtype)
		require.NoError(t, err, dtype)
		require.True(t, arrow.TypeEqual(want, got), dtype)
	}
	for _, dtype := range []string{"bool", "bfloat16", "complex64", "complex128", "float8_e4m3fn"} {
		_, err := Format(dtype)
		require.ErrorContains(t, err, "no zero-copy Arrow equivalent", dtype)
	}
}

func TestParseShape(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int64
		err  string
	}{
		{in: "8", want: []int64{8}},
		{in: "2, 3,4", want: []int64{2, 3, 4}},
		{in: "0,5", want: []int64{0, 5}},
		{in: "", err: "empty shape"},
		{in: "2,-1", err: "bad dimension"},
		{in: "2,x", err: "bad dimension"},
	} {
		got, err := ParseShape(tc.in)
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.want, got)
		require.Equal(t, tc.in != "2, 3,4", FormatShape(got) == tc.in)
	}
}

func TestExport1DZeroCopy(t *testing.T) {
	data := onHeap[float32](1, 2, 3, 4, 5, 6, 7, 8)
	a, s := structs(t)
	var c counter
	require.NoError(t, Export(a, s, Tensor{Data: addr(data), DType: "float32", Shape: []int64{8}}, c.release))
	require.False(t, ArrayReleased(a))
	field, got, err := cdata.ImportCArray(cdata.ArrayFromPtr(a), cdata.SchemaFromPtr(s))
	require.NoError(t, err)
	require.True(t, arrow.TypeEqual(arrow.PrimitiveTypes.Float32, field.Type))
	require.Equal(t, data, got.(*array.Float32).Float32Values())
	require.Equal(t, addr(data), addr(got.(*array.Float32).Float32Values()), "zero copy")
	require.Equal(t, 0, c.n)
	sliced := array.NewSlice(got, 2, 4)
	got.Release()
	require.Equal(t, 0, c.n, "a slice still holds the memory")
	sliced.Release()
	require.Equal(t, 1, c.n)
	runtime.KeepAlive(data)
}

func TestExportNDSchema(t *testing.T) {
	_, s := structs(t)
	require.NoError(t, ExportSchema(s, "int16", []int64{2, 3, 4}))
	field, err := cdata.ImportCArrowField(cdata.SchemaFromPtr(s))
	require.NoError(t, err)
	require.True(t, arrow.TypeEqual(arrow.FixedSizeListOf(12, arrow.PrimitiveTypes.Int16), field.Type), field.Type)
	require.Equal(t, "item", field.Type.(*arrow.FixedSizeListType).ElemField().Name)
	name, _ := field.Metadata.GetValue("ARROW:extension:name")
	meta, _ := field.Metadata.GetValue("ARROW:extension:metadata")
	require.Equal(t, ExtensionName, name)
	require.Equal(t, `{"shape":[3,4]}`, meta)

	_, s1 := structs(t)
	require.NoError(t, ExportSchema(s1, "uint8", []int64{5}))
	field, err = cdata.ImportCArrowField(cdata.SchemaFromPtr(s1))
	require.NoError(t, err)
	require.True(t, arrow.TypeEqual(arrow.PrimitiveTypes.Uint8, field.Type))
	require.Equal(t, 0, field.Metadata.Len())
}

func TestExportNDRoundTrip(t *testing.T) {
	data := onHeap(make([]int16, 24)...)
	for i := range data {
		data[i] = int16(i)
	}
	a, s := structs(t)
	var c counter
	require.NoError(t, Export(a, s, Tensor{Data: addr(data), DType: "int16", Shape: []int64{2, 3, 4}}, c.release))
	im, err := Import(a, s, nil)
	require.NoError(t, err)
	require.True(t, ArrayReleased(a) && SchemaReleased(s), "Import takes ownership")
	require.Equal(t, "int16", im.DType)
	require.Equal(t, []int64{2, 3, 4}, im.Shape)
	require.Equal(t, addr(data), im.Data)
	require.False(t, im.Copied)
	require.Equal(t, 0, c.n)
	im.Release()
	im.Release()
	require.Equal(t, 1, c.n, "released exactly once")
	runtime.KeepAlive(data)
}

func TestExportEmpty(t *testing.T) {
	for _, shape := range [][]int64{{0}, {0, 4}} {
		a, s := structs(t)
		var c counter
		require.NoError(t, Export(a, s, Tensor{DType: "float64", Shape: shape}, c.release))
		im, err := Import(a, s, nil)
		require.NoError(t, err)
		require.Equal(t, shape, im.Shape)
		require.Zero(t, im.Data)
		im.Release()
		require.Equal(t, 1, c.n, shape)
	}
}

func TestExportHooksDisabled(t *testing.T) {
	SetHooksEnabled(false)
	defer SetHooksEnabled(true)
	a := NewArray()
	data := onHeap[uint8](1, 2, 3, 4)
	// A C hook at address 0 is none; a disabled hook is never called.
	require.Nil(t, Hook(0, 1))
	require.NoError(t, Export(a, 0, Tensor{Data: addr(data), DType: "uint8", Shape: []int64{4}}, Hook(1, 3)))
	FreeArray(a) // would crash calling address 1 if hooks were on
	runtime.KeepAlive(data)
}

func TestExportErrors(t *testing.T) {
	data := onHeap(make([]int64, 4)...)
	ptr := addr(data)
	for _, tc := range []struct {
		name string
		t    Tensor
		err  string
	}{
		{"dtype", Tensor{Data: ptr, DType: "bool", Shape: []int64{4}}, "no zero-copy Arrow equivalent"},
		{"0-d", Tensor{Data: ptr, DType: "int64"}, "0-d tensor"},
		{"null", Tensor{DType: "int64", Shape: []int64{4}}, "NULL data pointer"},
		{"misaligned", Tensor{Data: ptr + 1, DType: "int64", Shape: []int64{2}}, "not aligned"},
		{"inner", Tensor{Data: ptr, DType: "int8", Shape: []int64{1, 1 << 31}}, "exceeds Arrow's int32"},
		{"empty rows", Tensor{Data: ptr, DType: "int8", Shape: []int64{4, 0}}, "no fixed_size_list of size 0"},
		{"overflow", Tensor{Data: ptr, DType: "int8", Shape: []int64{1 << 40, 1 << 40}}, "overflows"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, _ := structs(t)
			var c counter
			require.ErrorContains(t, Export(a, 0, tc.t, c.release), tc.err)
			require.True(t, ArrayReleased(a), "a failed export leaves the struct released")
			require.Equal(t, 0, c.n)
		})
	}
	a, s := structs(t)
	require.NoError(t, Export(a, s, Tensor{Data: ptr, DType: "int64", Shape: []int64{4}}, nil))
	require.ErrorContains(t, Export(a, 0, Tensor{Data: ptr, DType: "int64", Shape: []int64{4}}, nil), "still owned")
	require.ErrorContains(t, ExportSchema(s, "int64", []int64{4}), "still owned")
	runtime.KeepAlive(data)
}

// exportGo exports an array built by Arrow Go, as a foreign producer would.
func exportGo(t *testing.T, arr arrow.Array) (a, s uintptr) {
	a, s = structs(t)
	cdata.ExportArrowArray(arr, cdata.ArrayFromPtr(a), cdata.SchemaFromPtr(s))
	return a, s
}

func TestImportPrimitive(t *testing.T) {
	b := array.NewInt32Builder(memory.DefaultAllocator)
	b.AppendValues([]int32{1, 2, 3, 4, 5, 6}, nil)
	arr := b.NewArray()
	defer arr.Release()
	sl := array.NewSlice(arr, 2, 5)
	defer sl.Release()
	a, s := exportGo(t, sl)
	im, err := Import(a, s, nil)
	require.NoError(t, err)
	defer im.Release()
	require.Equal(t, "int32", im.DType)
	require.Equal(t, []int64{3}, im.Shape)
	require.False(t, im.Copied)
	require.Equal(t, addr(arr.(*array.Int32).Int32Values())+8, im.Data)
}

func TestImportNulls(t *testing.T) {
	b := array.NewFloat32Builder(memory.DefaultAllocator)
	b.AppendValues([]float32{1, 0, 3}, []bool{true, false, true})
	arr := b.NewArray()
	defer arr.Release()
	a, s := exportGo(t, arr)
	_, err := Import(a, s, nil)
	require.ErrorIs(t, err, ErrNulls)
	require.ErrorContains(t, err, "1 null(s)")

	a, s = exportGo(t, arr)
	fill := uint64(0xbf800000) // -1.0f
	im, err := Import(a, s, &fill)
	require.NoError(t, err)
	defer im.Release()
	require.True(t, im.Copied)
	require.Zero(t, im.Data%Alignment)
	require.Equal(t, []float32{1, -1, 3}, unsafe.Slice((*float32)(ptrAt(im.Data)), 3))
}

func TestImportBoolAndLists(t *testing.T) {
	bb := array.NewBooleanBuilder(memory.DefaultAllocator)
	bb.AppendValues([]bool{true, false, true, true}, []bool{true, true, false, true})
	barr := bb.NewArray()
	defer barr.Release()
	a, s := exportGo(t, barr)
	one := uint64(1)
	im, err := Import(a, s, &one)
	require.NoError(t, err)
	require.Equal(t, "bool", im.DType)
	require.Equal(t, []byte{1, 0, 1, 1}, unsafe.Slice((*byte)(ptrAt(im.Data)), 4))
	im.Release()

	lb := array.NewFixedSizeListBuilder(memory.DefaultAllocator, 2, arrow.PrimitiveTypes.Int32)
	vb := lb.ValueBuilder().(*array.Int32Builder)
	lb.Append(true)
	vb.AppendValues([]int32{1, 2}, nil)
	lb.AppendNull() // appends two null values too
	lb.Append(true)
	vb.AppendValues([]int32{5, 6}, nil)
	larr := lb.NewArray()
	defer larr.Release()

	a, s = exportGo(t, larr)
	_, err = Import(a, s, nil)
	require.ErrorIs(t, err, ErrNulls)
	require.ErrorContains(t, err, "tensor array has 1 null")
	a, s = exportGo(t, larr)
	nine := uint64(9)
	im, err = Import(a, s, &nine)
	require.NoError(t, err)
	require.Equal(t, []int64{3, 2}, im.Shape)
	require.Equal(t, []int32{1, 2, 9, 9, 5, 6}, unsafe.Slice((*int32)(ptrAt(im.Data)), 6))
	im.Release()

	sl := array.NewSlice(larr, 2, 3) // row 2 only: no nulls, zero copy
	defer sl.Release()
	a, s = exportGo(t, sl)
	im, err = Import(a, s, nil)
	require.NoError(t, err)
	require.False(t, im.Copied)
	require.Equal(t, []int32{5, 6}, unsafe.Slice((*int32)(ptrAt(im.Data)), 2))
	im.Release()
}

func TestImportTypeErrors(t *testing.T) {
	sb := array.NewStringBuilder(memory.DefaultAllocator)
	sb.AppendValues([]string{"a", "b"}, nil)
	sarr := sb.NewArray()
	defer sarr.Release()
	a, s := exportGo(t, sarr)
	_, err := Import(a, s, nil)
	require.ErrorIs(t, err, ErrType)
	require.True(t, ArrayReleased(a), "a refused import releases the producer's array")

	_, err = Import(a, s, nil)
	require.ErrorContains(t, err, "released")

	ext, err := (*TensorType)(nil).Deserialize(arrow.FixedSizeListOf(4, arrow.PrimitiveTypes.Int8), `{"shape":[2,2],"permutation":[1,0]}`)
	require.ErrorContains(t, err, "permutation")
	require.Nil(t, ext)
	_, err = (*TensorType)(nil).Deserialize(arrow.FixedSizeListOf(4, arrow.PrimitiveTypes.Int8), `{"shape":[3]}`)
	require.ErrorContains(t, err, "does not match")
	ext, err = (*TensorType)(nil).Deserialize(arrow.FixedSizeListOf(4, arrow.PrimitiveTypes.Int8), `{"shape":[2,2],"permutation":[0,1]}`)
	require.NoError(t, err)
	require.True(t, arrow.TypeEqual(NewTensorType(arrow.PrimitiveTypes.Int8, []int64{2, 2}), ext))
}

func TestFreeUnconsumedExport(t *testing.T) {
	data := onHeap[float64](1, 2, 3)
	a, s := NewArray(), NewSchema()
	var c counter
	require.NoError(t, Export(a, s, Tensor{Data: addr(data), DType: "float64", Shape: []int64{3}}, c.release))
	FreeSchema(s)
	require.Equal(t, 0, c.n)
	FreeArray(a)
	require.Equal(t, 1, c.n)
	runtime.KeepAlive(data)
}

func TestCapsuleDestructorAddresses(t *testing.T) {
	require.NotZero(t, CapsuleDestructor(true))
	require.NotZero(t, CapsuleDestructor(false))
	require.NotEqual(t, CapsuleDestructor(true), CapsuleDestructor(false))
}
