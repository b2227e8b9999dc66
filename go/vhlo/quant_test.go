package vhlo

import (
	"os"
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// TestQuantizedTypes decodes the quantized functions of the VHLO corpus and
// checks their parameters against the corpus's own source text
// (tensor<!quant.uniform<i8:f32, 34.0:16>> and the per-axis
// tensor<2x!quant.uniform<i8:f32:0, {34.0:16, 34.0:16}>>).
func TestQuantizedTypes(t *testing.T) {
	paths := glob(t, "stablehlo/vhlo/*.mlir.bc", 32)
	data, err := os.ReadFile(paths[len(paths)-1])
	require.NoError(t, err)
	m, _, err := read(data, readOptions{allFuncs: true, lenient: true})
	require.NoError(t, err)
	arg := func(fn string) *ir.TensorType {
		f := m.Func(fn)
		require.NotNil(t, f, fn)
		return f.Type.Inputs[0].(*ir.TensorType)
	}
	perTensor := &ir.Quant{Expressed: ir.F32, Scales: []float64{34}, ZeroPoints: []int64{16}, Axis: -1, Min: -128, Max: 127}
	for _, fn := range []string{"type_per_tensor_quantization", "op_uniform_dequantize"} {
		got := arg(fn)
		require.Equal(t, ir.S8, got.Elem, fn)
		require.True(t, perTensor.Equal(got.Quant), "%s: %+v", fn, got.Quant)
		require.Equal(t, "tensor<!quant.uniform<i8:f32, 34:16>>", got.String())
	}
	got := arg("type_per_axis_quantization")
	want := &ir.Quant{Expressed: ir.F32, Scales: []float64{34, 34}, ZeroPoints: []int64{16, 16}, Axis: 0, Min: -128, Max: 127}
	require.True(t, want.Equal(got.Quant), "%+v", got.Quant)
	require.Equal(t, []int64{2}, got.Shape)
	require.Equal(t, "tensor<2x!quant.uniform<i8:f32:0, {34:16,34:16}>>", got.String())
	res := m.Func("op_uniform_quantize").Type.Results[0].(*ir.TensorType)
	require.True(t, perTensor.Equal(res.Quant))
}
