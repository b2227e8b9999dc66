package ir

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Spellings follow MLIR's quant dialect: the storage range only when it is
// not the storage type's full range, zero points only when nonzero.
func TestQuantSpelling(t *testing.T) {
	pt := &Quant{Expressed: F32, Scales: []float64{0.5}, ZeroPoints: []int64{3}, Axis: -1, Min: 0, Max: 200}
	require.Equal(t, "tensor<2x!quant.uniform<u8<0:200>:f32, 0.5:3>>", Quantized(U8, pt, 2).String())
	pa := &Quant{Expressed: BF16, Scales: []float64{0.25, 2}, ZeroPoints: []int64{0, -1}, Axis: 1, Min: -128, Max: 127}
	require.Equal(t, "tensor<3x2x!quant.uniform<i8:bf16:1, {0.25,2:-1}>>", Quantized(S8, pa, 3, 2).String())
	require.NoError(t, CheckQuant(S8, pa))
	require.NoError(t, CheckQuantShape(pa, []int64{3, 2}))
	require.Error(t, CheckQuantShape(pa, []int64{2, 3}))
	require.NoError(t, CheckQuant(U8, pt))
	require.ErrorContains(t, CheckQuant(S8, pt), "outside")
	require.False(t, Quantized(S8, pa, 3, 2).Equal(Tensor(S8, 3, 2)))
	require.True(t, Quantized(S8, pa, 3, 2).Equal(Quantized(S8, &Quant{Expressed: BF16, Scales: []float64{0.25, 2}, ZeroPoints: []int64{0, -1}, Axis: 1, Min: -128, Max: 127}, 3, 2)))
}
