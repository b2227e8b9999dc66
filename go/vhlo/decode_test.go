package vhlo

import (
	"math"
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/mlirbc"
	"github.com/stretchr/testify/require"
)

// Expected values come from ml_dtypes (the reference for these formats).
func TestFloatValue(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		t    ir.ElemType
		bits uint64
		want float64
	}{
		{ir.BF16, 0x3f80, 1}, {ir.BF16, 0xc049, -3.140625}, {ir.BF16, 0x7f80, math.Inf(1)}, {ir.BF16, 0x7fc0, nan}, {ir.BF16, 0x0001, 9.183549615799121e-41},
		{ir.F16, 0x3c00, 1}, {ir.F16, 0xc000, -2}, {ir.F16, 0x7c00, math.Inf(1)}, {ir.F16, 0x0001, 5.960464477539063e-08},
		{ir.F8E4M3FN, 0x01, 0.001953125}, {ir.F8E4M3FN, 0x7e, 448}, {ir.F8E4M3FN, 0x7f, nan}, {ir.F8E4M3FN, 0xbf, -1.875},
		{ir.F8E5M2, 0x7b, 57344}, {ir.F8E5M2, 0x7e, nan}, {ir.F8E5M2, 0x38, 0.5},
		{ir.F8E4M3, 0x3f, 1.875}, {ir.F8E4M3, 0x7b, nan},
		{ir.F8E3M4, 0x38, 1.5}, {ir.F8E3M4, 0x01, 0.015625}, {ir.F8E3M4, 0x7b, nan},
		{ir.F8E4M3FNUZ, 0x7f, 240}, {ir.F8E4M3FNUZ, 0x80, nan}, {ir.F8E4M3FNUZ, 0xff, -240}, {ir.F8E4M3FNUZ, 0x40, 1},
		{ir.F8E5M2FNUZ, 0x7f, 57344}, {ir.F8E5M2FNUZ, 0x80, nan}, {ir.F8E5M2FNUZ, 0x38, 0.25},
		{ir.F8E4M3B11FNUZ, 0x7f, 30}, {ir.F8E4M3B11FNUZ, 0x80, nan}, {ir.F8E4M3B11FNUZ, 0x01, 0.0001220703125},
		{ir.F8E8M0FNU, 0x7f, 1}, {ir.F8E8M0FNU, 0x81, 4}, {ir.F8E8M0FNU, 0xff, nan}, {ir.F8E8M0FNU, 0x01, 1.1754943508222875e-38},
		{ir.F4E2M1FN, 0x1, 0.5}, {ir.F4E2M1FN, 0x7, 6}, {ir.F4E2M1FN, 0xf, -6},
		{ir.F6E2M3FN, 0x1f, 7.5}, {ir.F6E2M3FN, 0x01, 0.125}, {ir.F6E2M3FN, 0x3f, -7.5},
		{ir.F6E3M2FN, 0x1f, 28}, {ir.F6E3M2FN, 0x07, 0.4375},
	} {
		got := floatValue(tc.t, pad8([]byte{byte(tc.bits), byte(tc.bits >> 8)}))
		if math.IsNaN(tc.want) {
			require.True(t, math.IsNaN(got), "%s %#x = %v, want NaN", tc.t, tc.bits, got)
			continue
		}
		require.Equal(t, tc.want, got, "%s %#x", tc.t, tc.bits)
	}
}

func testReader() *mlirbc.Reader { return mlirbc.NewReader(nil, 0, "test") }

func TestBoolData(t *testing.T) {
	for _, tc := range []struct {
		name string
		blob []byte
		n    int64
		want []byte
	}{
		{"packed LSB first", []byte{0x01}, 8, []byte{1, 0, 0, 0, 0, 0, 0, 0}},
		{"packed 16", []byte{0x01, 0x01}, 16, []byte{1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}},
		{"packed 3", []byte{0x05}, 3, []byte{1, 0, 1}},
		{"splat true", []byte{0xFF}, 20, bytesOf(20, 1)},
		{"splat false", []byte{0x00}, 20, bytesOf(20, 0)},
		{"splat true small", []byte{0xFF}, 5, bytesOf(5, 1)},
		{"scalar true", []byte{0x01}, 1, []byte{1}},
		{"scalar true 0xff", []byte{0xFF}, 1, []byte{1}},
		{"unpacked", []byte{0, 7, 1, 0, 0, 0, 0, 0, 1, 1}, 10, []byte{0, 1, 1, 0, 0, 0, 0, 0, 1, 1}},
		{"empty", nil, 0, []byte{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := boolData(testReader(), tc.blob, tc.n)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
	_, err := boolData(testReader(), []byte{1, 2, 3}, 64)
	require.Error(t, err)
}

func bytesOf(n int, v byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = v
	}
	return b
}

func TestTensorAttr(t *testing.T) {
	f32 := tensorOf([]int64{2, 2}, elemType(ir.F32), nil)
	e, err := tensorAttr(testReader(), f32, []byte{0, 0, 0x80, 0x3f})
	require.NoError(t, err)
	require.Equal(t, 16, len(e.(*ir.ElementsAttr).Data), "splat expanded")
	require.Equal(t, []float64{1, 1, 1, 1}, elementValues(e.(*ir.ElementsAttr)))

	_, err = tensorAttr(testReader(), f32, []byte{1, 2, 3})
	require.ErrorContains(t, err, "data bytes")

	i4 := tensorOf([]int64{3}, elemType(ir.S4), nil)
	e, err = tensorAttr(testReader(), i4, []byte{0x0f, 0x01, 0x08})
	require.NoError(t, err)
	vals, err := elementsToI64(e.(*ir.ElementsAttr))
	require.NoError(t, err)
	require.Equal(t, []int64{-1, 1, -8}, vals, "sub-byte ints: one byte per element, sign-extended")
	require.Equal(t, []byte{0xff, 0x01, 0xf8}, e.(*ir.ElementsAttr).Data)

	c64 := tensorOf([]int64{2}, complexOf(elemType(ir.F32)), nil)
	e, err = tensorAttr(testReader(), c64, []byte{0, 0, 0x80, 0x3f, 0, 0, 0, 0x40})
	require.NoError(t, err)
	require.Equal(t, []float64{1, 2, 1, 2}, elementValues(e.(*ir.ElementsAttr)), "complex splat keeps (re, im) pairs")

	old := MaxSplatBytes
	MaxSplatBytes = 1024
	defer func() { MaxSplatBytes = old }()
	big := tensorOf([]int64{1 << 20}, elemType(ir.F32), nil)
	_, err = tensorAttr(testReader(), big, []byte{0, 0, 0, 0})
	require.ErrorContains(t, err, "limit")
}

func TestTensorTypes(t *testing.T) {
	dyn := tensorOf([]int64{dynamicDim, 4}, elemType(ir.F32), nil)
	_, err := dyn.irType()
	require.ErrorContains(t, err, "dynamic dimensions")
	bounded := tensorOf([]int64{dynamicDim}, elemType(ir.F32), typeExtensions{16})
	_, err = bounded.irType()
	require.ErrorContains(t, err, "bounded-dynamic")
	idx := tensorOf([]int64{2}, &vtype{kind: kindIndex, desc: "index"}, nil)
	it, err := idx.irType()
	require.NoError(t, err)
	require.Equal(t, "tensor<2xi64>", it.String())
	_, err = complexOf(elemType(ir.F16)).irType()
	require.Error(t, err)
}

func TestProducerVersion(t *testing.T) {
	for _, tc := range []struct {
		producer string
		ok       bool
	}{
		{"StableHLO_v1.20.0", true}, {"StableHLO_v0.9.0", true}, {"StableHLO_v1.9.3", true},
		{"MLIR17.0.0git", true}, {"MLIRxxx-trunk", true},
		{"StableHLO_v1.21.0", false}, {"StableHLO_v2.0.0", false}, {"StableHLO_v1.20.1", false},
	} {
		err := checkProducer(tc.producer)
		if tc.ok {
			require.NoError(t, err, tc.producer)
			continue
		}
		require.Error(t, err, tc.producer)
		require.Contains(t, err.Error(), tc.producer)
		require.Contains(t, err.Error(), "1.20.0")
	}
}

func TestExtend(t *testing.T) {
	require.Equal(t, int64(-1), extend(0xff, 8, true))
	require.Equal(t, int64(255), extend(0xff, 8, false))
	require.Equal(t, int64(-8), extend(0x8, 4, true))
	require.Equal(t, int64(math.MinInt64), extend(1<<63, 64, true))
}

func TestTensorAttrHugeShapes(t *testing.T) {
	// Shapes whose byte size overflows must not alias small blobs.
	huge := tensorOf([]int64{1 << 31, 1 << 31}, elemType(ir.F64), nil)
	_, err := tensorAttr(testReader(), huge, nil)
	require.Error(t, err)
	_, err = int64List(testReader(), nil, 1<<62, 8)
	require.Error(t, err)
}
