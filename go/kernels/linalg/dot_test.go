package linalg

import (
	"math"
	"math/rand"
	"testing"

	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/floatconv"
	"github.com/stretchr/testify/require"
)

func dotAttrs(lb, rb, lc, rc []int64) ir.Attrs {
	return ir.Attrs{
		"lhs_batching_dimensions":    ir.DenseI64Attr{Values: lb},
		"rhs_batching_dimensions":    ir.DenseI64Attr{Values: rb},
		"lhs_contracting_dimensions": ir.DenseI64Attr{Values: lc},
		"rhs_contracting_dimensions": ir.DenseI64Attr{Values: rc},
		"precision_config": ir.ArrayAttr{Elems: []ir.Attr{
			ir.EnumAttr{Kind: "precision", Value: "DEFAULT"}, ir.EnumAttr{Kind: "precision", Value: "HIGHEST"}}},
	}
}

func TestDotGeneralHandChecked(t *testing.T) {
	a := []float32{1, 2, 3, 4, 5, 6}    // 2x3
	b := []float32{7, 8, 9, 10, 11, 12} // 3x2
	tests := []struct {
		name   string
		lhs    *ir.TensorType
		rhs    *ir.TensorType
		out    *ir.TensorType
		attrs  ir.Attrs
		lhsBuf []float32
		rhsBuf []float32
		want   []float32
	}{
		{"matmul", ir.Tensor(ir.F32, 2, 3), ir.Tensor(ir.F32, 3, 2), ir.Tensor(ir.F32, 2, 2),
			dotAttrs(nil, nil, []int64{1}, []int64{0}), a, b, []float32{58, 64, 139, 154}},
		// lhs read as 3x2 transposed: contract lhs dim 0 -> (Aᵀ)(2x... ) lhs[k,i]
		{"lhs-transposed", ir.Tensor(ir.F32, 3, 2), ir.Tensor(ir.F32, 3, 2), ir.Tensor(ir.F32, 2, 2),
			dotAttrs(nil, nil, []int64{0}, []int64{0}),
			[]float32{1, 4, 2, 5, 3, 6}, b, []float32{58, 64, 139, 154}},
		{"rhs-transposed", ir.Tensor(ir.F32, 2, 3), ir.Tensor(ir.F32, 2, 3), ir.Tensor(ir.F32, 2, 2),
			dotAttrs(nil, nil, []int64{1}, []int64{1}),
			a, []float32{7, 9, 11, 8, 10, 12}, []float32{58, 64, 139, 154}},
		{"outer", ir.Tensor(ir.F32, 2), ir.Tensor(ir.F32, 3), ir.Tensor(ir.F32, 2, 3),
			dotAttrs(nil, nil, nil, nil), []float32{1, 2}, []float32{3, 4, 5}, []float32{3, 4, 5, 6, 8, 10}},
		{"batched-vec", ir.Tensor(ir.F32, 2, 2), ir.Tensor(ir.F32, 2, 2), ir.Tensor(ir.F32, 2),
			dotAttrs([]int64{0}, []int64{0}, []int64{1}, []int64{1}),
			[]float32{1, 2, 3, 4}, []float32{5, 6, 7, 8}, []float32{17, 53}},
		{"empty-contraction", ir.Tensor(ir.F32, 2, 0), ir.Tensor(ir.F32, 0, 2), ir.Tensor(ir.F32, 2, 2),
			dotAttrs(nil, nil, []int64{1}, []int64{0}), nil, nil, []float32{0, 0, 0, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			op := mkOp("stablehlo.dot_general", []*ir.TensorType{tc.lhs, tc.rhs}, []*ir.TensorType{tc.out}, tc.attrs)
			out := runOp(t, fakeCtx{2}, op, f32Bytes(tc.lhsBuf), f32Bytes(tc.rhsBuf))
			require.Equal(t, tc.want, bytesF32(out[0]))
		})
	}
}

func TestDotLegacy(t *testing.T) {
	tests := []struct {
		name     string
		lhs, rhs *ir.TensorType
		out      *ir.TensorType
		a, b     []float64
		want     []float64
	}{
		{"vv", ir.Tensor(ir.F64, 3), ir.Tensor(ir.F64, 3), ir.Tensor(ir.F64), []float64{1, 2, 3}, []float64{4, 5, 6}, []float64{32}},
		{"mv", ir.Tensor(ir.F64, 2, 3), ir.Tensor(ir.F64, 3), ir.Tensor(ir.F64, 2), []float64{1, 2, 3, 4, 5, 6}, []float64{1, 0, -1}, []float64{-2, -2}},
		{"vm", ir.Tensor(ir.F64, 2), ir.Tensor(ir.F64, 2, 3), ir.Tensor(ir.F64, 3), []float64{1, -1}, []float64{1, 2, 3, 4, 5, 6}, []float64{-3, -3, -3}},
		{"mm", ir.Tensor(ir.F64, 2, 2), ir.Tensor(ir.F64, 2, 2), ir.Tensor(ir.F64, 2, 2), []float64{1, 2, 3, 4}, []float64{0, 1, 1, 0}, []float64{2, 1, 4, 3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			op := mkOp("stablehlo.dot", []*ir.TensorType{tc.lhs, tc.rhs}, []*ir.TensorType{tc.out}, nil)
			out := runOp(t, fakeCtx{2}, op, f64Bytes(tc.a), f64Bytes(tc.b))
			require.Equal(t, tc.want, bytesF64(out[0]))
		})
	}
}

// refDot is an independent per-element dot_general in complex128.
func refDot(ls, rs, os []int64, d dotDims, a, b []complex128) []complex128 {
	lf := freeDims(len(ls), d.lhsBatch, d.lhsContract)
	rf := freeDims(len(rs), d.rhsBatch, d.rhsContract)
	cshape := make([]int64, len(d.lhsContract))
	nk := 1
	for i, x := range d.lhsContract {
		cshape[i] = ls[x]
		nk *= int(ls[x])
	}
	n := 1
	for _, x := range os {
		n *= int(x)
	}
	out := make([]complex128, n)
	for o := range out {
		oi := unravel(o, os)
		li := make([]int64, len(ls))
		ri := make([]int64, len(rs))
		p := 0
		for i := range d.lhsBatch {
			li[d.lhsBatch[i]] = oi[p]
			ri[d.rhsBatch[i]] = oi[p]
			p++
		}
		for _, x := range lf {
			li[x] = oi[p]
			p++
		}
		for _, x := range rf {
			ri[x] = oi[p]
			p++
		}
		var s complex128
		for k := 0; k < nk; k++ {
			ki := unravel(k, cshape)
			for i := range d.lhsContract {
				li[d.lhsContract[i]] = ki[i]
				ri[d.rhsContract[i]] = ki[i]
			}
			s += a[ravel(li, ls)] * b[ravel(ri, rs)]
		}
		out[o] = s
	}
	return out
}

func dotOutShape(ls, rs []int64, d dotDims) []int64 {
	var out []int64
	for _, x := range d.lhsBatch {
		out = append(out, ls[x])
	}
	for _, x := range freeDims(len(ls), d.lhsBatch, d.lhsContract) {
		out = append(out, ls[x])
	}
	for _, x := range freeDims(len(rs), d.rhsBatch, d.rhsContract) {
		out = append(out, rs[x])
	}
	return out
}

type dotShapeCase struct {
	name   string
	ls, rs []int64
	d      dotDims
}

var dotShapeCases = []dotShapeCase{
	{"matmul", []int64{5, 7}, []int64{7, 3}, dotDims{lhsContract: []int64{1}, rhsContract: []int64{0}}},
	{"lhsT", []int64{7, 5}, []int64{7, 3}, dotDims{lhsContract: []int64{0}, rhsContract: []int64{0}}},
	{"rhsT", []int64{5, 7}, []int64{3, 7}, dotDims{lhsContract: []int64{1}, rhsContract: []int64{1}}},
	{"bothT", []int64{7, 5}, []int64{3, 7}, dotDims{lhsContract: []int64{0}, rhsContract: []int64{1}}},
	{"batch-front", []int64{3, 5, 7}, []int64{3, 7, 6}, dotDims{[]int64{0}, []int64{0}, []int64{2}, []int64{1}}},
	{"batch-anywhere", []int64{5, 7, 3}, []int64{7, 3, 6}, dotDims{[]int64{2}, []int64{1}, []int64{1}, []int64{0}}},
	{"two-batch-two-contract", []int64{2, 4, 3, 5, 2}, []int64{5, 2, 3, 6, 4}, dotDims{[]int64{3, 1}, []int64{0, 4}, []int64{2, 4}, []int64{2, 1}}},
	{"multi-free", []int64{2, 3, 4}, []int64{4, 5, 2}, dotDims{lhsContract: []int64{2}, rhsContract: []int64{0}}},
	{"matvec", []int64{9, 13}, []int64{13}, dotDims{lhsContract: []int64{1}, rhsContract: []int64{0}}},
	{"blocks", []int64{131, 300}, []int64{300, 517}, dotDims{lhsContract: []int64{1}, rhsContract: []int64{0}}},
	{"blocksT", []int64{300, 133}, []int64{515, 300}, dotDims{lhsContract: []int64{0}, rhsContract: []int64{1}}},
	{"batched-blocks", []int64{3, 70, 260}, []int64{3, 260, 9}, dotDims{[]int64{0}, []int64{0}, []int64{2}, []int64{1}}},
}

func TestDotGeneralRandomF32F64(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, tc := range dotShapeCases {
		os := dotOutShape(tc.ls, tc.rs, tc.d)
		lt, rt := ir.Tensor(ir.F32, tc.ls...), ir.Tensor(ir.F32, tc.rs...)
		a32, b32 := randF32(r, int(lt.NumElements())), randF32(r, int(rt.NumElements()))
		ac, bc := make([]complex128, len(a32)), make([]complex128, len(b32))
		for i, v := range a32 {
			ac[i] = complex(float64(v), 0)
		}
		for i, v := range b32 {
			bc[i] = complex(float64(v), 0)
		}
		want := refDot(tc.ls, tc.rs, os, tc.d, ac, bc)
		k := 1
		for _, x := range tc.d.lhsContract {
			k *= int(tc.ls[x])
		}
		attrs := dotAttrs(tc.d.lhsBatch, tc.d.rhsBatch, tc.d.lhsContract, tc.d.rhsContract)
		t.Run(tc.name+"/f32", func(t *testing.T) {
			op := mkOp("stablehlo.dot_general", []*ir.TensorType{lt, rt}, []*ir.TensorType{ir.Tensor(ir.F32, os...)}, attrs)
			got := bytesF32(runOp(t, fakeCtx{3}, op, f32Bytes(a32), f32Bytes(b32))[0])
			require.Len(t, got, len(want))
			tol := 1e-5 * math.Sqrt(float64(k)) * 4
			for i := range got {
				require.InDelta(t, real(want[i]), float64(got[i]), tol, "element %d", i)
			}
		})
		t.Run(tc.name+"/f64", func(t *testing.T) {
			a64, b64 := make([]float64, len(a32)), make([]float64, len(b32))
			for i, v := range a32 {
				a64[i] = float64(v)
			}
			for i, v := range b32 {
				b64[i] = float64(v)
			}
			op := mkOp("stablehlo.dot_general", []*ir.TensorType{ir.Tensor(ir.F64, tc.ls...), ir.Tensor(ir.F64, tc.rs...)},
				[]*ir.TensorType{ir.Tensor(ir.F64, os...)}, attrs)
			got := bytesF64(runOp(t, fakeCtx{3}, op, f64Bytes(a64), f64Bytes(b64))[0])
			for i := range got {
				require.InDelta(t, real(want[i]), got[i], 1e-12*float64(k), "element %d", i)
			}
		})
	}
}

func TestDotGeneralDeterministicAcrossWorkers(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	ls, rs := []int64{2, 300, 600}, []int64{2, 600, 530}
	d := dotDims{[]int64{0}, []int64{0}, []int64{2}, []int64{1}}
	a, b := randF32(r, 2*300*600), randF32(r, 2*600*530)
	op := mkOp("stablehlo.dot_general", []*ir.TensorType{ir.Tensor(ir.F32, ls...), ir.Tensor(ir.F32, rs...)},
		[]*ir.TensorType{ir.Tensor(ir.F32, dotOutShape(ls, rs, d)...)}, dotAttrs(d.lhsBatch, d.rhsBatch, d.lhsContract, d.rhsContract))
	ref := runOp(t, fakeCtx{1}, op, f32Bytes(a), f32Bytes(b))[0]
	for _, w := range []int{2, 3, 8} {
		got := runOp(t, fakeCtx{w}, op, f32Bytes(a), f32Bytes(b))[0]
		require.Equal(t, ref, got, "workers=%d", w)
	}
}

func TestDotGeneralOtherTypes(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for _, tc := range dotShapeCases[:9] {
		os := dotOutShape(tc.ls, tc.rs, tc.d)
		attrs := dotAttrs(tc.d.lhsBatch, tc.d.rhsBatch, tc.d.lhsContract, tc.d.rhsContract)
		nl, nr := 1, 1
		for _, x := range tc.ls {
			nl *= int(x)
		}
		for _, x := range tc.rs {
			nr *= int(x)
		}
		t.Run(tc.name+"/c64", func(t *testing.T) {
			a, b := make([]complex64, nl), make([]complex64, nr)
			ac, bc := make([]complex128, nl), make([]complex128, nr)
			for i := range a {
				a[i] = complex(float32(r.NormFloat64()), float32(r.NormFloat64()))
				ac[i] = complex128(a[i])
			}
			for i := range b {
				b[i] = complex(float32(r.NormFloat64()), float32(r.NormFloat64()))
				bc[i] = complex128(b[i])
			}
			want := refDot(tc.ls, tc.rs, os, tc.d, ac, bc)
			op := mkOp("stablehlo.dot_general", []*ir.TensorType{ir.Tensor(ir.C64, tc.ls...), ir.Tensor(ir.C64, tc.rs...)},
				[]*ir.TensorType{ir.Tensor(ir.C64, os...)}, attrs)
			got := bytesC64(runOp(t, fakeCtx{2}, op, c64Bytes(a), c64Bytes(b))[0])
			for i := range got {
				require.InDelta(t, real(want[i]), float64(real(got[i])), 1e-4)
				require.InDelta(t, imag(want[i]), float64(imag(got[i])), 1e-4)
			}
		})
		t.Run(tc.name+"/c128", func(t *testing.T) {
			a, b := make([]complex128, nl), make([]complex128, nr)
			for i := range a {
				a[i] = complex(r.NormFloat64(), r.NormFloat64())
			}
			for i := range b {
				b[i] = complex(r.NormFloat64(), r.NormFloat64())
			}
			want := refDot(tc.ls, tc.rs, os, tc.d, a, b)
			op := mkOp("stablehlo.dot_general", []*ir.TensorType{ir.Tensor(ir.C128, tc.ls...), ir.Tensor(ir.C128, tc.rs...)},
				[]*ir.TensorType{ir.Tensor(ir.C128, os...)}, attrs)
			got := bytesC128(runOp(t, fakeCtx{2}, op, c128Bytes(a), c128Bytes(b))[0])
			for i := range got {
				require.InDelta(t, real(want[i]), real(got[i]), 1e-12)
				require.InDelta(t, imag(want[i]), imag(got[i]), 1e-12)
			}
		})
		t.Run(tc.name+"/i8-to-i32", func(t *testing.T) {
			a, b := make([]byte, nl), make([]byte, nr)
			ac, bc := make([]complex128, nl), make([]complex128, nr)
			for i := range a {
				v := int8(r.Intn(256) - 128)
				a[i], ac[i] = byte(v), complex(float64(v), 0)
			}
			for i := range b {
				v := int8(r.Intn(256) - 128)
				b[i], bc[i] = byte(v), complex(float64(v), 0)
			}
			want := refDot(tc.ls, tc.rs, os, tc.d, ac, bc)
			op := mkOp("stablehlo.dot_general", []*ir.TensorType{ir.Tensor(ir.S8, tc.ls...), ir.Tensor(ir.S8, tc.rs...)},
				[]*ir.TensorType{ir.Tensor(ir.S32, os...)}, attrs)
			out := runOp(t, fakeCtx{2}, op, a, b)[0]
			for i := range want {
				require.Equal(t, int64(real(want[i])), loadInt(ir.S32, out, i))
			}
		})
		t.Run(tc.name+"/u16xs16-to-s8-wraps", func(t *testing.T) {
			a, b := make([]byte, 2*nl), make([]byte, 2*nr)
			ac, bc := make([]complex128, nl), make([]complex128, nr)
			for i := range nl {
				v := uint16(r.Intn(1 << 16))
				a[2*i], a[2*i+1], ac[i] = byte(v), byte(v>>8), complex(float64(v), 0)
			}
			for i := range nr {
				v := int16(r.Intn(1<<16) - 1<<15)
				b[2*i], b[2*i+1], bc[i] = byte(v), byte(uint16(v)>>8), complex(float64(v), 0)
			}
			want := refDot(tc.ls, tc.rs, os, tc.d, ac, bc)
			op := mkOp("stablehlo.dot_general", []*ir.TensorType{ir.Tensor(ir.U16, tc.ls...), ir.Tensor(ir.S16, tc.rs...)},
				[]*ir.TensorType{ir.Tensor(ir.S8, os...)}, attrs)
			out := runOp(t, fakeCtx{2}, op, a, b)[0]
			for i := range want {
				require.Equal(t, int64(int8(int64(real(want[i])))), loadInt(ir.S8, out, i), "element %d", i)
			}
		})
		t.Run(tc.name+"/bf16-to-f32", func(t *testing.T) {
			a, b := make([]byte, 2*nl), make([]byte, 2*nr)
			ac, bc := make([]complex128, nl), make([]complex128, nr)
			for i := 0; i < nl; i++ {
				h := floatconv.F32ToBF16(float32(r.NormFloat64()))
				a[2*i], a[2*i+1] = byte(h), byte(h>>8)
				ac[i] = complex(float64(floatconv.BF16ToF32(h)), 0)
			}
			for i := 0; i < nr; i++ {
				h := floatconv.F32ToBF16(float32(r.NormFloat64()))
				b[2*i], b[2*i+1] = byte(h), byte(h>>8)
				bc[i] = complex(float64(floatconv.BF16ToF32(h)), 0)
			}
			want := refDot(tc.ls, tc.rs, os, tc.d, ac, bc)
			op := mkOp("stablehlo.dot_general", []*ir.TensorType{ir.Tensor(ir.BF16, tc.ls...), ir.Tensor(ir.BF16, tc.rs...)},
				[]*ir.TensorType{ir.Tensor(ir.F32, os...)}, attrs)
			got := bytesF32(runOp(t, fakeCtx{2}, op, a, b)[0])
			for i := range got {
				require.InDelta(t, real(want[i]), float64(got[i]), 1e-4)
			}
		})
	}
}

func TestDotGeneralIntegerWrapAndPred(t *testing.T) {
	// i32 overflow wraps as in two's complement arithmetic.
	a := make([]byte, 8)
	b := make([]byte, 8)
	for i, v := range []int32{1 << 30, 1 << 30} {
		putI32(a[4*i:], v)
		putI32(b[4*i:], 4)
	}
	op := mkOp("stablehlo.dot_general", []*ir.TensorType{ir.Tensor(ir.S32, 2), ir.Tensor(ir.S32, 2)},
		[]*ir.TensorType{ir.Tensor(ir.S32)}, dotAttrs(nil, nil, []int64{0}, []int64{0}))
	out := runOp(t, fakeCtx{1}, op, a, b)[0]
	require.Equal(t, int64(0), loadInt(ir.S32, out, 0)) // 2^30*4*2 = 2^33 ≡ 0

	// pred: OR of ANDs.
	op = mkOp("stablehlo.dot_general", []*ir.TensorType{ir.Tensor(ir.Pred, 2, 3), ir.Tensor(ir.Pred, 3, 2)},
		[]*ir.TensorType{ir.Tensor(ir.Pred, 2, 2)}, dotAttrs(nil, nil, []int64{1}, []int64{0}))
	out = runOp(t, fakeCtx{1}, op, []byte{1, 0, 1, 0, 0, 0}, []byte{1, 0, 0, 0, 1, 0})[0]
	require.Equal(t, []byte{1, 0, 0, 0}, out)
}

func putI32(b []byte, v int32) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}

func TestDotGeneralErrors(t *testing.T) {
	tests := []struct {
		name     string
		lhs, rhs *ir.TensorType
		out      *ir.TensorType
		attrs    ir.Attrs
		msg      string
	}{
		{"contract-size", ir.Tensor(ir.F32, 2, 3), ir.Tensor(ir.F32, 4, 2), ir.Tensor(ir.F32, 2, 2),
			dotAttrs(nil, nil, []int64{1}, []int64{0}), "contracting dimension"},
		{"result-shape", ir.Tensor(ir.F32, 2, 3), ir.Tensor(ir.F32, 3, 2), ir.Tensor(ir.F32, 2, 3),
			dotAttrs(nil, nil, []int64{1}, []int64{0}), "result type"},
		{"dim-range", ir.Tensor(ir.F32, 2, 3), ir.Tensor(ir.F32, 3, 2), ir.Tensor(ir.F32, 2, 2),
			dotAttrs(nil, nil, []int64{2}, []int64{0}), "out of range"},
		{"dup-dim", ir.Tensor(ir.F32, 3, 3), ir.Tensor(ir.F32, 3, 3), ir.Tensor(ir.F32, 3),
			dotAttrs([]int64{0}, []int64{0}, []int64{0}, []int64{1}), "used twice"},
		{"batch-count", ir.Tensor(ir.F32, 3, 3), ir.Tensor(ir.F32, 3, 3), ir.Tensor(ir.F32, 3),
			dotAttrs([]int64{0}, nil, []int64{1}, []int64{1}), "batching dimensions"},
		{"int-float", ir.Tensor(ir.S32, 2, 3), ir.Tensor(ir.F32, 3, 2), ir.Tensor(ir.F32, 2, 2),
			dotAttrs(nil, nil, []int64{1}, []int64{0}), "mixed integer and floating-point"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			op := mkOp("stablehlo.dot_general", []*ir.TensorType{tc.lhs, tc.rhs}, []*ir.TensorType{tc.out}, tc.attrs)
			_, err := lowerOp(t, fakeCtx{1}, op)
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.msg)
			require.Contains(t, err.Error(), "stablehlo.dot_general")
		})
	}
}

// TestDotGeneralNarrowFloats: f8 operands are widened to f32, summed there
// and rounded once (the interpreter's dot_general cases).
func TestDotGeneralNarrowFloats(t *testing.T) {
	for _, tc := range []struct {
		et   ir.ElemType
		in   []float32
		want float32
	}{
		{ir.F8E3M4, []float32{0, 1, 2, 3}, 14},
		{ir.F8E4M3, []float32{0, 1, 2, 3, 4, 5, 6, 7}, 144}, // 140 rounds to 144
		{ir.F8E4M3FN, []float32{1, 2, 3}, 14},
		{ir.F8E5M2, []float32{1, 2, 3}, 14},
	} {
		t.Run(tc.et.String(), func(t *testing.T) {
			n := int64(len(tc.in))
			in := make([]byte, n)
			smallFloatConv(ir.F32, tc.et)(in, byteview.Bytes(tc.in))
			op := mkOp("stablehlo.dot_general", []*ir.TensorType{ir.Tensor(tc.et, n), ir.Tensor(tc.et, n)},
				[]*ir.TensorType{ir.Tensor(tc.et)}, dotAttrs(nil, nil, []int64{0}, []int64{0}))
			out := runOp(t, fakeCtx{1}, op, in, in)[0]
			got := make([]float32, 1)
			smallFloatConv(tc.et, ir.F32)(byteview.Bytes(got), out)
			require.Equal(t, tc.want, got[0])
		})
	}
}
