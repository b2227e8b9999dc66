package arrowx

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

func TestFormat(t *testing.T) {
	for dtype, want := range map[string]string{
		"int8": "c", "uint8": "C", "int16": "s", "uint16": "S", "int32": "i",
		"uint32": "I", "int64": "l", "uint64": "L", "float16": "e", "float32": "f", "float64": "g",
	} {
		got, err := Format(dtype)
		require.NoError(t, err, dtype)
		require.Equal(t, want, got, dtype)
	}
	for _, dtype := range []string{"bool", "bfloat16", "complex64", "complex128", "float8_e4m3fn", ""} {
		_, err := Format(dtype)
		require.ErrorContains(t, err, "no zero-copy Arrow equivalent", dtype)
	}
}

func TestParseShape(t *testing.T) {
	tests := []struct {
		in   string
		want []int64
		err  string
	}{
		{in: "4", want: []int64{4}},
		{in: "2, 3,0", want: []int64{2, 3, 0}},
		{in: "", err: "empty shape"},
		{in: "2,-1", err: "bad dimension"},
		{in: "2,x", err: "bad dimension"},
	}
	for _, tc := range tests {
		got, err := ParseShape(tc.in)
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.want, got)
	}
}

func TestExport1D(t *testing.T) {
	data := make([]float32, 8) // stands in for device memory; only its address is stored
	ptr := uintptr(unsafe.Pointer(&data[0]))
	s, a := NewSchema(), NewArray()
	defer FreeSchema(s)
	defer FreeArray(a)

	require.NoError(t, ExportSchema(s, "float32", []int64{8}))
	require.Equal(t, schemaView{Format: "f", Name: "", Flags: 2}, inspectSchema(s))

	calls := recordedCalls()
	require.NoError(t, ExportArray(a, Tensor{Data: ptr, DType: "float32", Shape: []int64{8}}, 41, recordingHook()))
	require.Equal(t, arrayView{Length: 8, Buffers: []uintptr{0, ptr}}, inspectArray(a))

	releaseArray(a)
	require.True(t, inspectArray(a).Released)
	require.Equal(t, calls+1, recordedCalls())
	require.Equal(t, int64(41), recordedLast())
	releaseArray(a) // released structs ignore a second release
	require.Equal(t, calls+1, recordedCalls())
}

func TestExportND(t *testing.T) {
	data := make([]int16, 2*3*4)
	ptr := uintptr(unsafe.Pointer(&data[0]))
	s, a := NewSchema(), NewArray()
	defer FreeSchema(s)

	require.NoError(t, ExportSchema(s, "int16", []int64{2, 3, 4}))
	require.Equal(t, schemaView{
		Format: "+w:12", Flags: 2,
		Metadata: map[string]string{
			"ARROW:extension:name":     "arrow.fixed_shape_tensor",
			"ARROW:extension:metadata": `{"shape":[3,4]}`,
		},
		Children: []schemaView{{Format: "s", Name: "item", Flags: 2}},
	}, inspectSchema(s))

	calls := recordedCalls()
	require.NoError(t, ExportArray(a, Tensor{Data: ptr, DType: "int16", Shape: []int64{2, 3, 4}}, 7, recordingHook()))
	require.Equal(t, arrayView{
		Length: 2, Buffers: []uintptr{0},
		Children: []arrayView{{Length: 24, Buffers: []uintptr{0, ptr}}},
	}, inspectArray(a))
	// Freeing an owned struct releases it first, so the owner hears of it.
	FreeArray(a)
	require.Equal(t, calls+1, recordedCalls())
	require.Equal(t, int64(7), recordedLast())
}

func TestExportHooksDisabled(t *testing.T) {
	data := make([]uint8, 4)
	a := NewArray()
	calls := recordedCalls()
	SetHooksEnabled(false)
	defer SetHooksEnabled(true)
	require.NoError(t, ExportArray(a, Tensor{Data: uintptr(unsafe.Pointer(&data[0])), DType: "uint8", Shape: []int64{4}}, 3, recordingHook()))
	FreeArray(a)
	require.Equal(t, calls, recordedCalls())
}

func TestExportErrors(t *testing.T) {
	data := make([]int64, 4)
	ptr := uintptr(unsafe.Pointer(&data[0]))
	tests := []struct {
		name string
		t    Tensor
		err  string
	}{
		{"bool", Tensor{Data: ptr, DType: "bool", Shape: []int64{4}}, "no zero-copy Arrow equivalent"},
		{"0-d", Tensor{Data: ptr, DType: "int64", Shape: nil}, "0-d tensor"},
		{"negative", Tensor{Data: ptr, DType: "int64", Shape: []int64{-1}}, "negative dimension"},
		{"null", Tensor{Data: 0, DType: "int64", Shape: []int64{4}}, "NULL data pointer"},
		{"misaligned", Tensor{Data: ptr + 1, DType: "int64", Shape: []int64{2}}, "not aligned"},
		{"overflow", Tensor{Data: ptr, DType: "int8", Shape: []int64{1 << 40, 1 << 40}}, "overflows int64"},
		{"list size", Tensor{Data: ptr, DType: "int8", Shape: []int64{1, 1 << 32}}, "int32 list size"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := NewArray()
			defer FreeArray(a)
			require.ErrorContains(t, ExportArray(a, tc.t, 0, 0), tc.err)
			require.True(t, inspectArray(a).Released, "a failed export leaves the struct released")
		})
	}
	// Empty tensors need no data pointer.
	a := NewArray()
	require.NoError(t, ExportArray(a, Tensor{DType: "float64", Shape: []int64{0, 3}}, 0, 0))
	FreeArray(a)
	// A struct still owned by someone must not be overwritten.
	a = NewArray()
	defer FreeArray(a)
	require.NoError(t, ExportArray(a, Tensor{Data: ptr, DType: "int64", Shape: []int64{4}}, 0, 0))
	require.ErrorContains(t, ExportArray(a, Tensor{Data: ptr, DType: "int64", Shape: []int64{4}}, 0, 0), "still owned")
	s := NewSchema()
	defer FreeSchema(s)
	require.NoError(t, ExportSchema(s, "int64", []int64{4}))
	require.ErrorContains(t, ExportSchema(s, "int64", []int64{4}), "still owned")
}

func TestCapsuleDestructors(t *testing.T) {
	SetCapsuleGetPointer(fakeGetPointer())
	defer SetCapsuleGetPointer(0)
	data := make([]float64, 3)

	s := NewSchema()
	require.NoError(t, ExportSchema(s, "float64", []int64{3}))
	callCapsuleDestructor(CapsuleDestructor(false), s) // releases and frees
	require.Equal(t, "arrow_schema", fakeGetPointerLastName())

	// An unconsumed array capsule releases its export: the owner hears of it.
	a := NewArray()
	calls := recordedCalls()
	require.NoError(t, ExportArray(a, Tensor{Data: uintptr(unsafe.Pointer(&data[0])), DType: "float64", Shape: []int64{3}}, 99, recordingHook()))
	callCapsuleDestructor(CapsuleDestructor(true), a)
	require.Equal(t, "arrow_array", fakeGetPointerLastName())
	require.Equal(t, calls+1, recordedCalls())
	require.Equal(t, int64(99), recordedLast())

	// A consumed (moved-out, released) array capsule only frees the shell.
	a = NewArray()
	require.NoError(t, ExportArray(a, Tensor{Data: uintptr(unsafe.Pointer(&data[0])), DType: "float64", Shape: []int64{3}}, 100, recordingHook()))
	releaseArray(a)
	calls = recordedCalls()
	callCapsuleDestructor(CapsuleDestructor(true), a)
	require.Equal(t, calls, recordedCalls())
}
