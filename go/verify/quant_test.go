package verify

import (
	"testing"

	"github.com/gojax/gojax/go/ir"
)

func TestQuantized(t *testing.T) {
	q := func(scale float64, zp int64, shape ...int64) *ir.TensorType {
		return ir.Quantized(ir.S8, &ir.Quant{Expressed: ir.F32, Scales: []float64{scale}, ZeroPoints: []int64{zp}, Axis: -1, Min: -128, Max: 127}, shape...)
	}
	a, b := q(0.5, 0, 4), q(0.25, -3, 4)
	runCases(t, []verifyCase{
		{"quantize ok", oneOp("stablehlo.uniform_quantize", ts(f32x4), ts(a), nil), ""},
		{"requantize ok", oneOp("stablehlo.uniform_quantize", ts(a), ts(b), nil), ""},
		{"quantize to float", oneOp("stablehlo.uniform_quantize", ts(f32x4), ts(f32x4), nil), "result must be quantized"},
		{"quantize from f64", oneOp("stablehlo.uniform_quantize", ts(tensor(ir.F64, 4)), ts(a), nil), "expressed type f32"},
		{"quantize shape", oneOp("stablehlo.uniform_quantize", ts(f32x4), ts(q(0.5, 0, 5)), nil), "shape"},
		{"dequantize ok", oneOp("stablehlo.uniform_dequantize", ts(a), ts(f32x4), nil), ""},
		{"dequantize float", oneOp("stablehlo.uniform_dequantize", ts(f32x4), ts(f32x4), nil), "operand must be quantized"},
		{"dequantize to f16", oneOp("stablehlo.uniform_dequantize", ts(a), ts(tensor(ir.F16, 4)), nil), "expressed type"},
		// dequantize_op_quantize ops are checked on their expressed types.
		{"add of two scales ok", oneOp("stablehlo.add", ts(a, b), ts(q(1, 0, 4)), nil), ""},
		{"add shape", oneOp("stablehlo.add", ts(a, q(0.5, 0, 5)), ts(a), nil), "rhs type must equal lhs type"},
		{"tanh ok", oneOp("stablehlo.tanh", ts(a), ts(b), nil), ""},
		{"quantized constant ok", oneOp("stablehlo.constant", nil, ts(a), ir.Attrs{"value": &ir.ElementsAttr{Type: tensor(ir.S8, 4), Data: make([]byte, 4)}}), ""},
		{"quantized constant of floats", oneOp("stablehlo.constant", nil, ts(a), ir.Attrs{"value": &ir.ElementsAttr{Type: f32x4, Data: make([]byte, 16)}}), "value has type"},
		{"per-axis scales do not fit", oneOp("stablehlo.uniform_quantize", ts(f32x4), ts(ir.Quantized(ir.S8, &ir.Quant{Expressed: ir.F32, Scales: []float64{1, 2}, ZeroPoints: []int64{0, 0}, Axis: 0, Min: -128, Max: 127}, 4)), nil), "invalid type"},
		{"zero point out of range", oneOp("stablehlo.uniform_quantize", ts(f32x4), ts(ir.Quantized(ir.S8, &ir.Quant{Expressed: ir.F32, Scales: []float64{1}, ZeroPoints: []int64{200}, Axis: -1, Min: -128, Max: 127}, 4)), nil), "invalid type"},
		{"scale zero", oneOp("stablehlo.uniform_quantize", ts(f32x4), ts(q(0, 0, 4)), nil), "invalid type"},
		// Storage ops keep the quantization.
		{"reshape ok", oneOp("stablehlo.reshape", ts(a), ts(q(0.5, 0, 2, 2)), nil), ""},
		{"reshape rescales", oneOp("stablehlo.reshape", ts(a), ts(q(0.25, -3, 2, 2)), nil), "must share their quantization"},
		{"reshape drops it", oneOp("stablehlo.reshape", ts(a), ts(tensor(ir.S8, 2, 2)), nil), "is not quantized"},
		{"select ok", oneOp("stablehlo.select", ts(tensor(ir.Pred, 4), a, a), ts(a), nil), ""},
		{"select mixed", oneOp("stablehlo.select", ts(tensor(ir.Pred, 4), a, tensor(ir.S8, 4)), ts(a), nil), "is not quantized"},
	})
}
