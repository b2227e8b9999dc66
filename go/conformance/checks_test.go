package conformance

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/compiler"
	"github.com/gojax/gojax/go/ir"
)

func f32s(vs ...float32) []byte {
	out := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(v))
	}
	return out
}

func f64s(vs ...float64) []byte {
	out := make([]byte, 8*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint64(out[8*i:], math.Float64bits(v))
	}
	return out
}

func nextUp32(v float32, n int) float32 {
	for i := 0; i < n; i++ {
		v = math.Nextafter32(v, float32(math.Inf(1)))
	}
	return v
}

func TestCompareTensors(t *testing.T) {
	f32x2 := ir.Tensor(ir.F32, 2)
	nan := float32(math.NaN())
	def := checkParams{maxULP: defaultMaxULP, tolerance: almostEqTolerance}
	allclose := checkParams{rtol: 1e-5, atol: 1e-6}
	within := func(bounds ...float64) checkParams { return checkParams{bound: f64s(bounds...)} }
	cases := []struct {
		name      string
		target    string
		typ       *ir.TensorType
		got, want []byte
		p         checkParams
		err       string
	}{
		{"eq ints", "check.expect_eq", ir.Tensor(ir.S32, 2), []byte{1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}, []byte{1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}, def, ""},
		{"eq ints differ", "check.expect_eq", ir.Tensor(ir.S32, 2), []byte{1, 0, 0, 0, 2, 0, 0, 0}, []byte{1, 0, 0, 0, 3, 0, 0, 0}, def, "first at [1]: got 2, want 3"},
		{"eq i4 sign", "check.expect_eq", ir.Tensor(ir.S4, 1), []byte{0xff}, []byte{0x0f}, def, ""},
		{"eq bool", "check.expect_eq", ir.Tensor(ir.Pred, 2), []byte{1, 0}, []byte{1, 1}, def, "got false, want true"},
		{"eq nan", "check.expect_eq", f32x2, f32s(nan, 1), f32s(nan, 1), def, ""},
		{"eq nan vs number", "check.expect_eq", f32x2, f32s(nan, 1), f32s(0, 1), def, "1 of 2 elements"},
		{"close 3 ulp", "check.expect_close", f32x2, f32s(nextUp32(1, 3), 2), f32s(1, 2), def, ""},
		{"close 4 ulp", "check.expect_close", f32x2, f32s(nextUp32(1, 4), 2), f32s(1, 2), def, "(4 ULP; allowed 0..3)"},
		{"close across zero", "check.expect_close", f32x2, f32s(float32(math.Copysign(0, -1)), 0), f32s(0, 0), def, ""},
		{"close custom ulp", "check.expect_close", f32x2, f32s(nextUp32(1, 4), 2), f32s(1, 2), checkParams{maxULP: 5}, ""},
		{"almost within", "check.expect_almost_eq", f32x2, f32s(1.00005, 2), f32s(1, 2), def, ""},
		{"almost outside", "check.expect_almost_eq", f32x2, f32s(1.001, 2), f32s(1, 2), def, "tolerance 0.0001"},
		{"almost sign differs", "check.expect_almost_eq", f32x2, f32s(-1e-6, 2), f32s(1e-6, 2), def, "signs differ"},
		{"almost zeros", "check.expect_almost_eq", f32x2, f32s(float32(math.Copysign(0, -1)), 2), f32s(0, 2), def, ""},
		{"almost inf", "check.expect_almost_eq", f32x2, f32s(float32(math.Inf(1)), 2), f32s(float32(math.Inf(-1)), 2), def, "1 of 2"},
		{"complex part differs", "check.expect_close", ir.Tensor(ir.C64), f32s(1, 2), f32s(1, 3), def, "got (1, 2), want (1, 3)"},
		{"bf16 ulp", "check.expect_close", ir.Tensor(ir.BF16, 1), []byte{0x81, 0x3f}, []byte{0x80, 0x3f}, def, ""},
		{"f16 values", "check.expect_almost_eq", ir.Tensor(ir.F16, 1), []byte{0x00, 0x3c}, []byte{0x00, 0x40}, def, "got 1, want 2"},
		{"f8 e4m3fn", "check.expect_eq", ir.Tensor(ir.F8E4M3FN, 1), []byte{0x38}, []byte{0x38}, def, ""},
		{"allclose rtol", "check.expect_allclose", f32x2, f32s(100.0009, -2), f32s(100, -2), allclose, ""},
		{"allclose outside", "check.expect_allclose", f32x2, f32s(100.002, -2), f32s(100, -2), allclose, "atol 1e-06 + rtol 1e-05"},
		{"allclose atol near zero", "check.expect_allclose", f32x2, f32s(5e-7, 0), f32s(-5e-7, 0), allclose, ""},
		{"allclose nan", "check.expect_allclose", f32x2, f32s(nan, 1), f32s(nan, 1), allclose, ""},
		{"allclose inf", "check.expect_allclose", f32x2, f32s(float32(math.Inf(1)), 1), f32s(float32(math.MaxFloat32), 1), allclose, "1 of 2"},
		{"allclose ints exact", "check.expect_allclose", ir.Tensor(ir.S32, 1), []byte{2, 0, 0, 0}, []byte{3, 0, 0, 0}, allclose, "got 2, want 3"},
		{"within per-element bound", "check.expect_within", f32x2, f32s(1.5, 100.25), f32s(1, 100), within(0.5, 0.25), ""},
		{"within second element over", "check.expect_within", f32x2, f32s(1.5, 100.5), f32s(1, 100), within(0.5, 0.25), "first at [1]: got 100.5, want 100 (|diff| 0.5 > error bound 0.25)"},
		{"within bound is absolute", "check.expect_within", f32x2, f32s(1e6+1, 0), f32s(1e6, 0), within(0.5, 0.5), "error bound 0.5"},
		{"within zero bound", "check.expect_within", f32x2, f32s(nextUp32(1, 1), 2), f32s(1, 2), within(0, 0), "1 of 2"},
		{"within nan and inf", "check.expect_within", f32x2, f32s(nan, float32(math.Inf(1))), f32s(nan, float32(math.Inf(1))), within(0, 0), ""},
		{"within inf differs", "check.expect_within", f32x2, f32s(float32(math.Inf(1)), 0), f32s(float32(math.MaxFloat32), 0), within(math.Inf(1), 0), "1 of 2"},
		{"within nan bound fails", "check.expect_within", f32x2, f32s(1, 0), f32s(2, 0), within(math.NaN(), 0), "1 of 2"},
		{"within complex per component", "check.expect_within", ir.Tensor(ir.C64, 1), f32s(1, 2.5), f32s(1, 2), within(0.25), "got (1, 2.5), want (1, 2)"},
		{"within ints exact", "check.expect_within", ir.Tensor(ir.S32, 1), []byte{2, 0, 0, 0}, []byte{3, 0, 0, 0}, within(10), "got 2, want 3"},
		{"within short bound", "check.expect_within", f32x2, f32s(1, 2), f32s(1, 2), within(1), "bound buffer too small"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := compareTensors(c.target, c.typ, c.got, c.want, c.p)
			if c.err == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			require.Contains(t, err.Error(), c.err)
		})
	}
}

func TestMinifloatDecode(t *testing.T) {
	cases := []struct {
		e    ir.ElemType
		bits uint64
		want float64
	}{
		{ir.F8E4M3FN, 0x38, 1},
		{ir.F8E4M3FN, 0xb8, -1},
		{ir.F8E4M3FN, 0x7e, 448},
		{ir.F8E5M2, 0x3c, 1},
		{ir.F8E5M2, 0x7c, math.Inf(1)},
		{ir.F8E4M3FNUZ, 0x40, 1},
		{ir.F4E2M1FN, 0x2, 1},
		{ir.F4E2M1FN, 0x7, 6},
		{ir.F8E8M0FNU, 127, 1},
		{ir.F8E4M3FN, 0x01, math.Ldexp(1, -9)},
	}
	for _, c := range cases {
		got := floatAt(c.e, []byte{byte(c.bits)}, 0)
		require.Equal(t, c.want, got, "%s 0x%02x", c.e, c.bits)
	}
	require.True(t, math.IsNaN(floatAt(ir.F8E4M3FN, []byte{0x7f}, 0)))
	require.True(t, math.IsNaN(floatAt(ir.F8E4M3FNUZ, []byte{0x80}, 0)))
	require.Equal(t, 1.0, floatAt(ir.F16, []byte{0x00, 0x3c}, 0))
	require.Equal(t, math.Ldexp(1, -24), floatAt(ir.F16, []byte{0x01, 0x00}, 0))
}

func TestParseParams(t *testing.T) {
	p, err := parseParams("check.expect_close", "max_ulp_difference=7, min_ulp_difference=1")
	require.NoError(t, err)
	require.Equal(t, uint64(7), p.maxULP)
	require.Equal(t, uint64(1), p.minULP)
	p, err = parseParams("check.expect_almost_eq", "")
	require.NoError(t, err)
	require.Equal(t, customAlmostEqTolerance, p.tolerance)
	p, err = parseParams("check.expect_almost_eq", "tolerance=0.1")
	require.NoError(t, err)
	require.Equal(t, 0.1, p.tolerance)
	p, err = parseParams("check.expect_allclose", "rtol=1e-2,atol=0.5")
	require.NoError(t, err)
	require.Equal(t, 1e-2, p.rtol)
	require.Equal(t, 0.5, p.atol)
	_, err = parseParams("check.expect_eq", "bogus=1")
	require.Error(t, err)
}

// checkModule builds main() { check(const a, const b) } and runs it through
// the compiler and the registered check kernels.
func checkModule(target string, typ *ir.TensorType, a, b []byte, withResult bool) *ir.Module {
	blk := ir.NewBlock()
	ka := blk.Append(ir.NewOp("stablehlo.constant", nil, []ir.Type{typ}, ir.Attrs{"value": &ir.ElementsAttr{Type: typ, Data: a}}))
	kb := blk.Append(ir.NewOp("stablehlo.constant", nil, []ir.Type{typ}, ir.Attrs{"value": &ir.ElementsAttr{Type: typ, Data: b}}))
	var results []ir.Type
	if withResult {
		results = []ir.Type{ir.Tensor(ir.Pred)}
	}
	call := blk.Append(ir.NewOp("stablehlo.custom_call", []*ir.Value{ka.Result(), kb.Result()}, results, ir.Attrs{
		"call_target_name": ir.StringAttr{Value: target},
		"has_side_effect":  ir.BoolAttr{Value: true},
	}))
	call.Loc = &ir.Location{Name: "check-site"}
	blk.Append(ir.NewOp("func.return", call.Results, nil, nil))
	f := &ir.Func{Name: "main", Type: ir.FuncType{Results: append([]ir.Type(nil), results...)}, Body: ir.NewRegion(blk)}
	return &ir.Module{Funcs: []*ir.Func{f}}
}

// TestChecksEndToEnd proves the runner detects wrong results: the same
// program passes with equal operands and fails with different ones.
func TestChecksEndToEnd(t *testing.T) {
	typ := ir.Tensor(ir.F32, 2)
	cases := []struct {
		name       string
		target     string
		a, b       []byte
		withResult bool
		err        string
	}{
		{"expect_eq pass", "check.expect_eq", f32s(1, 2), f32s(1, 2), false, ""},
		{"expect_eq fail", "check.expect_eq", f32s(1, 2), f32s(1, 2.5), false, "check.expect_eq at check-site: 1 of 2 elements"},
		{"expect_close fail", "check.expect_close", f32s(1, 2), f32s(1, 2.001), false, "ULP"},
		{"eq with result", "check.eq", f32s(1, 2), f32s(1, 2), true, ""},
		{"eq with result fail", "check.eq", f32s(1, 2), f32s(1, 3), true, "check.eq at check-site"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			exe, err := compiler.CompileModule(checkModule(c.target, typ, c.a, c.b, c.withResult), compiler.Options{})
			require.NoError(t, err)
			err = runSelfChecking(exe, true)
			if c.err == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			require.Contains(t, err.Error(), c.err)
		})
	}
}

func TestNoCheckExecuted(t *testing.T) {
	rec := startRecording()
	stopRecording()
	require.ErrorContains(t, rec.result(true), "no check executed")
	require.NoError(t, rec.result(false))
	require.ErrorContains(t, record(verdict{target: "check.eq", loc: "x"}), "outside the conformance runner")
}

// TestExpectWithinEndToEnd runs check.expect_within as roundtrip.py emits it:
// the bound is a third operand, a float64 tensor of the result's shape.
func TestExpectWithinEndToEnd(t *testing.T) {
	typ := ir.Tensor(ir.F32, 2)
	build := func(a, b []byte, bt *ir.TensorType, bound []byte) *ir.Module {
		blk := ir.NewBlock()
		konst := func(tt *ir.TensorType, data []byte) *ir.Value {
			return blk.Append(ir.NewOp("stablehlo.constant", nil, []ir.Type{tt}, ir.Attrs{"value": &ir.ElementsAttr{Type: tt, Data: data}})).Result()
		}
		call := blk.Append(ir.NewOp("stablehlo.custom_call", []*ir.Value{konst(typ, a), konst(typ, b), konst(bt, bound)}, nil, ir.Attrs{
			"call_target_name": ir.StringAttr{Value: "check.expect_within"},
			"has_side_effect":  ir.BoolAttr{Value: true},
		}))
		call.Loc = &ir.Location{Name: "check-site"}
		blk.Append(ir.NewOp("func.return", nil, nil, nil))
		return &ir.Module{Funcs: []*ir.Func{{Name: "main", Body: ir.NewRegion(blk)}}}
	}
	bt := ir.Tensor(ir.F64, 2)
	exe, err := compiler.CompileModule(build(f32s(1, 2.0625), f32s(1, 2), bt, f64s(0, 0.125)), compiler.Options{})
	require.NoError(t, err)
	require.NoError(t, runSelfChecking(exe, true))
	exe, err = compiler.CompileModule(build(f32s(1, 2.25), f32s(1, 2), bt, f64s(0, 0.125)), compiler.Options{})
	require.NoError(t, err)
	require.ErrorContains(t, runSelfChecking(exe, true), "check.expect_within at check-site: 1 of 2 elements")
	_, err = compiler.CompileModule(build(f32s(1, 2), f32s(1, 2), typ, f32s(0, 0)), compiler.Options{})
	require.ErrorContains(t, err, "bound must be a float64 tensor")
}
