package reduce

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
)

func bnAttrs(fi int64) ir.Attrs {
	return ir.Attrs{"epsilon": ir.FloatAttr{Value: 0.001, Type: ir.F32}, "feature_index": ir.IntAttr{Value: fi}}
}

// x is [2, 3] with features along dim 1: feature c holds x[0,c], x[1,c].
var bnX = []float64{1, 2, 3, 5, 8, 13}

func TestBatchNormInference(t *testing.T) {
	x := ir.Tensor(ir.F64, 2, 3)
	f := ir.Tensor(ir.F64, 3)
	op := mkOp("stablehlo.batch_norm_inference", []ir.Type{x, f, f, f, f}, []ir.Type{x}, bnAttrs(1))
	got := toF64(runOp(t, testCtxs[0], op, f64s(bnX...), f64s(1, 2, 3), f64s(0, 1, -1), f64s(1, 1, 1), f64s(4, 1, 0.25))[0])
	scale, off, mean, vr := []float64{1, 2, 3}, []float64{0, 1, -1}, 1.0, []float64{4, 1, 0.25}
	eps := float64(float32(0.001))
	for k, v := range bnX {
		c := k % 3
		require.InDelta(t, scale[c]*(v-mean)/math.Sqrt(vr[c]+eps)+off[c], got[k], 1e-12)
	}
}

func TestBatchNormTraining(t *testing.T) {
	x := ir.Tensor(ir.F64, 2, 3)
	f := ir.Tensor(ir.F64, 3)
	op := mkOp("stablehlo.batch_norm_training", []ir.Type{x, f, f}, []ir.Type{x, f, f}, bnAttrs(1))
	got := runOp(t, testCtxs[1], op, f64s(bnX...), f64s(1, 1, 1), f64s(0, 0, 0))
	require.Equal(t, []float64{3, 5, 8}, toF64(got[1]))
	require.Equal(t, []float64{4, 9, 25}, toF64(got[2]))
	eps := float64(float32(0.001))
	out := toF64(got[0])
	require.InDelta(t, -2/math.Sqrt(4+eps), out[0], 1e-12)
	require.InDelta(t, 5/math.Sqrt(25+eps), out[5], 1e-12)
}

func TestBatchNormGrad(t *testing.T) {
	x := ir.Tensor(ir.F32, 2, 3)
	f := ir.Tensor(ir.F32, 3)
	op := mkOp("stablehlo.batch_norm_grad", []ir.Type{x, f, f, f, x}, []ir.Type{x, f, f}, bnAttrs(1))
	xv := []float32{1, 2, 3, 5, 8, 13}
	g := []float32{1, -1, 2, 3, 0.5, -2}
	mean, vr, scale := []float32{3, 5, 8}, []float32{4, 9, 25}, []float32{2, 1, 0.5}
	got := runOp(t, testCtxs[0], op, f32s(xv...), f32s(scale...), f32s(mean...), f32s(vr...), f32s(g...))
	eps := float64(float32(0.001))
	for c := range 3 {
		inv := 1 / math.Sqrt(float64(vr[c])+eps)
		var sg, sgx float64
		for o := range 2 {
			k := o*3 + c
			sg += float64(g[k])
			sgx += float64(g[k]) * (float64(xv[k]) - float64(mean[c])) * inv
		}
		require.InDelta(t, sg, toF32(got[2])[c], 1e-6)
		require.InDelta(t, sgx, toF32(got[1])[c], 1e-5)
		for o := range 2 {
			k := o*3 + c
			xn := (float64(xv[k]) - float64(mean[c])) * inv
			want := float64(scale[c]) * inv * (float64(g[k]) - sg/2 - xn*sgx/2)
			require.InDelta(t, want, toF32(got[0])[k], 1e-5)
		}
	}
}

// TestBatchNormFeatureFirst reduces over the dims after the feature dim.
func TestBatchNormFeatureFirst(t *testing.T) {
	x := ir.Tensor(ir.F32, 2, 2, 2)
	f := ir.Tensor(ir.F32, 2)
	op := mkOp("stablehlo.batch_norm_training", []ir.Type{x, f, f}, []ir.Type{x, f, f}, bnAttrs(0))
	got := runOp(t, testCtxs[0], op, f32s(1, 2, 3, 4, 10, 20, 30, 40), f32s(1, 1), f32s(0, 0))
	require.Equal(t, []float32{2.5, 25}, toF32(got[1]))
	require.Equal(t, []float32{1.25, 125}, toF32(got[2]))
}
