package elementwise

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

func TestFusionLoops(t *testing.T) {
	add, ok := binaryLoopOf("stablehlo.add", ir.F32)
	require.True(t, ok)
	d := make([]float32, 3)
	add(byteview.Bytes(d), enc[float32](1, 2, 3), enc[float32](10, 20, 30))
	require.Equal(t, []float32{11, 22, 33}, d)

	neg, ok := unaryLoopOf("negate", ir.S4)
	require.True(t, ok)
	s4 := []byte{0xF8, 7} // -8, 7
	out := make([]byte, 2)
	neg(out, s4)
	require.Equal(t, []int8{-8, -7}, dec[int8](out))

	cmp, ok := compareLoopOf("GE", "TOTALORDER", ir.F64)
	require.True(t, ok)
	p := make([]byte, 2)
	cmp(p, enc(negz64, 0.0), enc(0.0, negz64))
	require.Equal(t, []byte{0, 1}, p)
	_, ok = compareLoopOf("GE", "TOTALORDER", ir.S32)
	require.False(t, ok)

	conv, ok := ConvertLoop(ir.F32, ir.F8E4M3FN)
	require.True(t, ok)
	f8 := make([]byte, 3)
	conv(f8, enc(float32(448), 1e6, negz32))
	require.Equal(t, []byte{0x7E, 0x7F, 0x80}, f8)

	sel, ok := selectLoopOf(ir.BF16)
	require.True(t, ok)
	r := make([]uint16, 2)
	sel(byteview.Bytes(r), []byte{0}, enc[uint16](1, 2), enc[uint16](3, 4))
	require.Equal(t, []uint16{3, 4}, r)

	cl, ok := clampLoopOf(ir.S32)
	require.True(t, ok)
	ri := make([]int32, 3)
	cl(byteview.Bytes(ri), enc[int32](0), enc[int32](-5, 5, 50), enc[int32](10))
	require.Equal(t, []int32{0, 5, 10}, ri)

	ab, ok := complexAbsLoopOf(ir.C64)
	require.True(t, ok)
	f := make([]float32, 1)
	ab(byteview.Bytes(f), enc(complex64(complex(3, 4))))
	require.Equal(t, []float32{5}, f)

	fin, ok := isFiniteLoopOf(ir.F16)
	require.True(t, ok)
	fp := make([]byte, 3)
	fin(fp, enc[uint16](0x3C00, 0x7C00, 0x7E00))
	require.Equal(t, []byte{1, 0, 0}, fp)

	_, ok = unaryLoopOf("popcnt", ir.F32)
	require.False(t, ok)
	_, ok = binaryLoopOf("no_such_op", ir.F32)
	require.False(t, ok)
}

// TestSupportMatrix lowers every registered same-type op for every element
// type and logs which combinations are supported (the report's table); it
// also pins the combinations the spec requires.
func TestSupportMatrix(t *testing.T) {
	ops := opNames(unaryOps, binaryOps)
	sort.Strings(ops)
	var lines []string
	supported := map[string]map[ir.ElemType]bool{}
	for _, op := range ops {
		supported[op] = map[ir.ElemType]bool{}
		var names []string
		for _, et := range ir.ElemTypes() {
			var k kern
			if contains(opNames(unaryOps), op) {
				k = unaryKern(op, et)
				if op == "abs" && et.IsComplex() {
					k = kern(func(d, a, b, c []byte) {}) // served by resolveComplexAbs
				}
			} else {
				k = binaryKern(op, et)
			}
			if k != nil {
				supported[op][et] = true
				names = append(names, et.String())
			}
		}
		lines = append(lines, fmt.Sprintf("%-24s %s", op, strings.Join(names, " ")))
	}
	t.Log("\n" + strings.Join(lines, "\n"))

	floats := []ir.ElemType{ir.BF16, ir.F16, ir.F32, ir.F64, ir.F8E4M3FN, ir.F8E5M2, ir.F4E2M1FN, ir.F8E8M0FNU}
	ints := []ir.ElemType{ir.S2, ir.S4, ir.S8, ir.S16, ir.S32, ir.S64, ir.U2, ir.U4, ir.U8, ir.U16, ir.U32, ir.U64}
	cplx := []ir.ElemType{ir.C64, ir.C128}
	need := func(op string, ts ...[]ir.ElemType) {
		for _, group := range ts {
			for _, et := range group {
				require.True(t, supported[op][et], "%s on %s", op, et)
			}
		}
	}
	for _, op := range []string{"add", "subtract", "multiply", "divide", "maximum", "minimum", "power", "negate", "abs", "sign"} {
		need(op, floats, ints, cplx)
	}
	for _, op := range []string{"remainder", "atan2", "cbrt", "ceil", "floor", "round_nearest_afz", "round_nearest_even"} {
		need(op, floats)
	}
	for _, op := range []string{"sqrt", "rsqrt", "cosine", "sine", "tan", "tanh", "exponential", "exponential_minus_one", "log", "log_plus_one", "logistic"} {
		need(op, floats, cplx)
	}
	for _, op := range []string{"and", "or", "xor", "not"} {
		need(op, ints, []ir.ElemType{ir.Pred})
	}
	for _, op := range []string{"popcnt", "count_leading_zeros", "shift_left", "shift_right_logical", "shift_right_arithmetic", "remainder"} {
		need(op, ints)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
