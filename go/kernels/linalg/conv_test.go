package linalg

import (
	"math"
	"math/rand"
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// convCase describes a convolution by its layout and window configuration.
type convCase struct {
	name               string
	lhsShape, rhsShape []int64
	inB, inF           int64
	inSp               []int64
	kI, kO             int64
	kSp                []int64
	outB, outF         int64
	outSp              []int64
	strides, lhsDil    []int64
	rhsDil, pad        []int64
	rev                []bool
	fgc, bgc           int64
}

func (c convCase) attrs() ir.Attrs {
	a := ir.Attrs{
		"input_batch_dimension":           ir.IntAttr{Value: c.inB, Type: ir.S64},
		"input_feature_dimension":         ir.IntAttr{Value: c.inF, Type: ir.S64},
		"input_spatial_dimensions":        ir.DenseI64Attr{Values: c.inSp},
		"kernel_input_feature_dimension":  ir.IntAttr{Value: c.kI, Type: ir.S64},
		"kernel_output_feature_dimension": ir.IntAttr{Value: c.kO, Type: ir.S64},
		"kernel_spatial_dimensions":       ir.DenseI64Attr{Values: c.kSp},
		"output_batch_dimension":          ir.IntAttr{Value: c.outB, Type: ir.S64},
		"output_feature_dimension":        ir.IntAttr{Value: c.outF, Type: ir.S64},
		"output_spatial_dimensions":       ir.DenseI64Attr{Values: c.outSp},
		"feature_group_count":             ir.IntAttr{Value: max(c.fgc, 1), Type: ir.S64},
		"batch_group_count":               ir.IntAttr{Value: max(c.bgc, 1), Type: ir.S64},
	}
	if c.strides != nil {
		a["window_strides"] = ir.DenseI64Attr{Values: c.strides}
	}
	if c.lhsDil != nil {
		a["lhs_dilation"] = ir.DenseI64Attr{Values: c.lhsDil}
	}
	if c.rhsDil != nil {
		a["rhs_dilation"] = ir.DenseI64Attr{Values: c.rhsDil}
	}
	if c.pad != nil {
		a["padding"] = ir.DenseI64Attr{Values: c.pad}
	}
	if c.rev != nil {
		a["window_reversal"] = ir.DenseBoolAttr{Values: c.rev}
	}
	return a
}

func orOnes(v []int64, n int) []int64 {
	if v != nil {
		return v
	}
	o := make([]int64, n)
	for i := range o {
		o[i] = 1
	}
	return o
}

// outShape computes the result shape from the spec's formula.
func (c convCase) outShape() []int64 {
	s := len(c.inSp)
	st, ld, rd := orOnes(c.strides, s), orOnes(c.lhsDil, s), orOnes(c.rhsDil, s)
	out := make([]int64, s+2)
	out[c.outB] = c.lhsShape[c.inB] / max(c.bgc, 1)
	out[c.outF] = c.rhsShape[c.kO]
	for d := 0; d < s; d++ {
		lo, hi := int64(0), int64(0)
		if c.pad != nil {
			lo, hi = c.pad[2*d], c.pad[2*d+1]
		}
		padded := (c.lhsShape[c.inSp[d]]-1)*ld[d] + 1 + lo + hi
		win := (c.rhsShape[c.kSp[d]]-1)*rd[d] + 1
		if padded < win {
			out[c.outSp[d]] = 0
		} else {
			out[c.outSp[d]] = (padded-win)/st[d] + 1
		}
	}
	return out
}

// refConv evaluates the spec definition element by element.
func refConv(c convCase, lhs, rhs []float64) []float64 {
	s := len(c.inSp)
	st, ld, rd := orOnes(c.strides, s), orOnes(c.lhsDil, s), orOnes(c.rhsDil, s)
	os := c.outShape()
	fgc, bgc := max(c.fgc, 1), max(c.bgc, 1)
	outN := 1
	for _, x := range os {
		outN *= int(x)
	}
	kSpShape := make([]int64, s)
	nk := 1
	for d := 0; d < s; d++ {
		kSpShape[d] = c.rhsShape[c.kSp[d]]
		nk *= int(kSpShape[d])
	}
	kin := c.rhsShape[c.kI]
	kout := c.rhsShape[c.kO]
	out := make([]float64, outN)
	for o := range out {
		oi := unravel(o, os)
		b, of := oi[c.outB], oi[c.outF]
		var sum float64
		inBatch := b
		featBase := int64(0)
		if bgc > 1 {
			inBatch = (of/(kout/bgc))*os[c.outB] + b
		}
		if fgc > 1 {
			featBase = (of / (kout / fgc)) * kin
		}
		for f := int64(0); f < kin; f++ {
			for k := 0; k < nk; k++ {
				ki := unravel(k, kSpShape)
				li := make([]int64, s+2)
				ri := make([]int64, s+2)
				li[c.inB], li[c.inF] = inBatch, featBase+f
				ri[c.kI], ri[c.kO] = f, of
				ok := true
				for d := 0; d < s; d++ {
					kd := ki[d]
					if c.rev != nil && c.rev[d] {
						ri[c.kSp[d]] = kSpShape[d] - 1 - kd
					} else {
						ri[c.kSp[d]] = kd
					}
					lo := int64(0)
					if c.pad != nil {
						lo = c.pad[2*d]
					}
					pos := oi[c.outSp[d]]*st[d] + kd*rd[d] - lo
					if pos < 0 || pos%ld[d] != 0 || pos/ld[d] >= c.lhsShape[c.inSp[d]] {
						ok = false
						break
					}
					li[c.inSp[d]] = pos / ld[d]
				}
				if ok {
					sum += lhs[ravel(li, c.lhsShape)] * rhs[ravel(ri, c.rhsShape)]
				}
			}
		}
		out[o] = sum
	}
	return out
}

var convCases = []convCase{
	{name: "nchw-oihw-basic", lhsShape: []int64{2, 3, 6, 5}, rhsShape: []int64{4, 3, 3, 2},
		inB: 0, inF: 1, inSp: []int64{2, 3}, kO: 0, kI: 1, kSp: []int64{2, 3}, outB: 0, outF: 1, outSp: []int64{2, 3}},
	{name: "nhwc-hwio-stride-pad", lhsShape: []int64{2, 7, 6, 3}, rhsShape: []int64{3, 3, 3, 5},
		inB: 0, inF: 3, inSp: []int64{1, 2}, kSp: []int64{0, 1}, kI: 2, kO: 3, outB: 0, outF: 3, outSp: []int64{1, 2},
		strides: []int64{2, 1}, pad: []int64{1, 1, 2, 0}},
	{name: "dilations-negpad", lhsShape: []int64{1, 2, 9, 8}, rhsShape: []int64{3, 2, 2, 3},
		inB: 0, inF: 1, inSp: []int64{2, 3}, kO: 0, kI: 1, kSp: []int64{2, 3}, outB: 0, outF: 1, outSp: []int64{2, 3},
		lhsDil: []int64{2, 1}, rhsDil: []int64{1, 2}, pad: []int64{-1, 2, 0, -1}, strides: []int64{1, 2}},
	{name: "reversal", lhsShape: []int64{1, 2, 5, 5}, rhsShape: []int64{2, 2, 3, 2},
		inB: 0, inF: 1, inSp: []int64{2, 3}, kO: 0, kI: 1, kSp: []int64{2, 3}, outB: 0, outF: 1, outSp: []int64{2, 3},
		rev: []bool{true, false}, pad: []int64{1, 1, 0, 0}},
	{name: "feature-groups", lhsShape: []int64{2, 6, 5}, rhsShape: []int64{6, 2, 3},
		inB: 0, inF: 1, inSp: []int64{2}, kO: 0, kI: 1, kSp: []int64{2}, outB: 0, outF: 1, outSp: []int64{2}, fgc: 3},
	{name: "depthwise", lhsShape: []int64{1, 5, 5, 4}, rhsShape: []int64{3, 3, 1, 4},
		inB: 0, inF: 3, inSp: []int64{1, 2}, kSp: []int64{0, 1}, kI: 2, kO: 3, outB: 0, outF: 3, outSp: []int64{1, 2},
		fgc: 4, pad: []int64{1, 1, 1, 1}},
	{name: "batch-groups", lhsShape: []int64{4, 3, 6}, rhsShape: []int64{4, 3, 2},
		inB: 0, inF: 1, inSp: []int64{2}, kO: 0, kI: 1, kSp: []int64{2}, outB: 0, outF: 1, outSp: []int64{2}, bgc: 2},
	{name: "odd-layout", lhsShape: []int64{5, 3, 2, 4}, rhsShape: []int64{2, 2, 3, 6},
		inB: 2, inF: 1, inSp: []int64{3, 0}, kO: 3, kI: 2, kSp: []int64{1, 0}, outB: 1, outF: 3, outSp: []int64{2, 0},
		strides: []int64{1, 2}},
	{name: "conv3d", lhsShape: []int64{1, 2, 4, 4, 3}, rhsShape: []int64{3, 2, 2, 2, 2},
		inB: 0, inF: 1, inSp: []int64{2, 3, 4}, kO: 0, kI: 1, kSp: []int64{2, 3, 4}, outB: 0, outF: 1, outSp: []int64{2, 3, 4},
		pad: []int64{0, 1, 1, 0, 0, 0}},
	{name: "big-gemm", lhsShape: []int64{2, 16, 20, 20}, rhsShape: []int64{40, 16, 3, 3},
		inB: 0, inF: 1, inSp: []int64{2, 3}, kO: 0, kI: 1, kSp: []int64{2, 3}, outB: 0, outF: 1, outSp: []int64{2, 3},
		pad: []int64{1, 1, 1, 1}},
	// Implicit-im2col path: several K blocks and partial row panels, and a
	// weight-gradient layout (batch and feature swapped, HWIO output, so
	// GEMM rows are permuted and features are strided).
	{name: "nhwc-big", lhsShape: []int64{3, 9, 10, 72}, rhsShape: []int64{3, 3, 72, 40},
		inB: 0, inF: 3, inSp: []int64{1, 2}, kSp: []int64{0, 1}, kI: 2, kO: 3, outB: 0, outF: 3, outSp: []int64{1, 2},
		pad: []int64{1, 1, 1, 1}},
	{name: "nhwc-input-grad", lhsShape: []int64{2, 8, 8, 20}, rhsShape: []int64{3, 3, 12, 20},
		inB: 0, inF: 3, inSp: []int64{1, 2}, kSp: []int64{0, 1}, kI: 3, kO: 2, outB: 0, outF: 3, outSp: []int64{1, 2},
		pad: []int64{1, 1, 1, 1}, rev: []bool{true, true}},
	{name: "nhwc-weight-grad", lhsShape: []int64{4, 6, 6, 5}, rhsShape: []int64{4, 6, 6, 7},
		inB: 3, inF: 0, inSp: []int64{1, 2}, kI: 0, kO: 3, kSp: []int64{1, 2}, outB: 2, outF: 3, outSp: []int64{0, 1},
		pad: []int64{1, 1, 1, 1}},
	{name: "nhwc-weight-grad-wide", lhsShape: []int64{3, 5, 6, 30}, rhsShape: []int64{3, 5, 6, 9},
		inB: 3, inF: 0, inSp: []int64{1, 2}, kI: 0, kO: 3, kSp: []int64{1, 2}, outB: 2, outF: 3, outSp: []int64{0, 1},
		pad: []int64{1, 1, 1, 1}},
	// First layer (3 input features, stride 2): the transposing pack
	// merges neighbouring kernel positions into one run per row.
	{name: "nhwc-first-layer", lhsShape: []int64{2, 17, 16, 3}, rhsShape: []int64{5, 5, 3, 8},
		inB: 0, inF: 3, inSp: []int64{1, 2}, kSp: []int64{0, 1}, kI: 2, kO: 3, outB: 0, outF: 3, outSp: []int64{1, 2},
		strides: []int64{2, 2}, pad: []int64{2, 2, 0, 3}},
	// Base-dilated (transposed) convolutions split by output phase: 2-D
	// with every phase, 1-D with phases that meet no input (zero rows), and
	// strided input features.
	{name: "nhwc-transposed", lhsShape: []int64{2, 5, 6, 8}, rhsShape: []int64{3, 3, 8, 6},
		inB: 0, inF: 3, inSp: []int64{1, 2}, kSp: []int64{0, 1}, kI: 2, kO: 3, outB: 0, outF: 3, outSp: []int64{1, 2},
		lhsDil: []int64{2, 2}, pad: []int64{2, 1, 1, 2}},
	{name: "nwc-dilated-empty-phases", lhsShape: []int64{2, 9, 4}, rhsShape: []int64{2, 4, 5},
		inB: 0, inF: 2, inSp: []int64{1}, kSp: []int64{0}, kI: 1, kO: 2, outB: 0, outF: 2, outSp: []int64{1},
		lhsDil: []int64{3}, rhsDil: []int64{3}, pad: []int64{1, 1}},
	{name: "nchw-in-nhwc-out-dilated", lhsShape: []int64{2, 4, 5, 5}, rhsShape: []int64{6, 4, 3, 2},
		inB: 0, inF: 1, inSp: []int64{2, 3}, kO: 0, kI: 1, kSp: []int64{2, 3}, outB: 0, outF: 3, outSp: []int64{1, 2},
		lhsDil: []int64{2, 3}, strides: []int64{1, 2}, pad: []int64{1, 1, 0, 1}, rev: []bool{false, true}},
	// One input feature: 14-row panels read consecutive elements per
	// kernel position (padding rows zeroed, panels at the buffer ends).
	{name: "nhwc-one-feature", lhsShape: []int64{2, 9, 16, 1}, rhsShape: []int64{3, 3, 1, 8},
		inB: 0, inF: 3, inSp: []int64{1, 2}, kSp: []int64{0, 1}, kI: 2, kO: 3, outB: 0, outF: 3, outSp: []int64{1, 2},
		pad: []int64{1, 1, 1, 1}},
	{name: "nhwc-one-feature-valid-w", lhsShape: []int64{2, 9, 17, 1}, rhsShape: []int64{3, 3, 1, 8},
		inB: 0, inF: 3, inSp: []int64{1, 2}, kSp: []int64{0, 1}, kI: 2, kO: 3, outB: 0, outF: 3, outSp: []int64{1, 2},
		pad: []int64{1, 1, 0, 0}},
	// Depthwise stencil: a channel multiplier over strided (NCHW) features,
	// and a parallel NHWC run with reversal and window dilation.
	{name: "depthwise-mult-nchw", lhsShape: []int64{2, 6, 7, 5}, rhsShape: []int64{12, 1, 3, 3},
		inB: 0, inF: 1, inSp: []int64{2, 3}, kO: 0, kI: 1, kSp: []int64{2, 3}, outB: 0, outF: 1, outSp: []int64{2, 3},
		fgc: 6, strides: []int64{2, 1}, pad: []int64{1, 1, 0, 2}},
	{name: "depthwise-big", lhsShape: []int64{2, 12, 11, 64}, rhsShape: []int64{3, 3, 1, 64},
		inB: 0, inF: 3, inSp: []int64{1, 2}, kSp: []int64{0, 1}, kI: 2, kO: 3, outB: 0, outF: 3, outSp: []int64{1, 2},
		fgc: 64, pad: []int64{2, 2, 1, 1}, rhsDil: []int64{2, 1}, rev: []bool{true, false}},
	// Depthwise weight gradient as JAX emits it (batch groups = channels,
	// channel-minor): group vectors, a partial last chunk.
	{name: "depthwise-wgrad", lhsShape: []int64{3, 7, 6, 40}, rhsShape: []int64{3, 7, 6, 40},
		inB: 3, inF: 0, inSp: []int64{1, 2}, kI: 0, kO: 3, kSp: []int64{1, 2}, outB: 2, outF: 3, outSp: []int64{0, 1},
		bgc: 40, pad: []int64{1, 1, 2, 0}},
	{name: "empty-output", lhsShape: []int64{1, 1, 2}, rhsShape: []int64{1, 1, 4},
		inB: 0, inF: 1, inSp: []int64{2}, kO: 0, kI: 1, kSp: []int64{2}, outB: 0, outF: 1, outSp: []int64{2}},
}

func TestConvolutionHandChecked(t *testing.T) {
	// 1-D, one channel: [1 2 3 4] * [1 10] with padding 1 each side, stride 2.
	c := convCase{lhsShape: []int64{1, 1, 4}, rhsShape: []int64{1, 1, 2},
		inB: 0, inF: 1, inSp: []int64{2}, kO: 0, kI: 1, kSp: []int64{2}, outB: 0, outF: 1, outSp: []int64{2},
		strides: []int64{2}, pad: []int64{1, 1}}
	op := mkOp("stablehlo.convolution", []*ir.TensorType{ir.Tensor(ir.F32, c.lhsShape...), ir.Tensor(ir.F32, c.rhsShape...)},
		[]*ir.TensorType{ir.Tensor(ir.F32, 1, 1, 3)}, c.attrs())
	out := runOp(t, fakeCtx{2}, op, f32Bytes([]float32{1, 2, 3, 4}), f32Bytes([]float32{1, 10}))
	// padded: 0 1 2 3 4 0 -> windows at 0,2,4: (0,1) (2,3) (4,0)
	require.Equal(t, []float32{10, 32, 4}, bytesF32(out[0]))

	// Same with window reversal: kernel read as [10 1].
	c.rev = []bool{true}
	op = mkOp("stablehlo.convolution", []*ir.TensorType{ir.Tensor(ir.F32, c.lhsShape...), ir.Tensor(ir.F32, c.rhsShape...)},
		[]*ir.TensorType{ir.Tensor(ir.F32, 1, 1, 3)}, c.attrs())
	out = runOp(t, fakeCtx{2}, op, f32Bytes([]float32{1, 2, 3, 4}), f32Bytes([]float32{1, 10}))
	require.Equal(t, []float32{1, 23, 40}, bytesF32(out[0]))

	// lhs dilation 2: input becomes 1 0 2 0 3 0 4, no padding, kernel [1 10].
	c = convCase{lhsShape: []int64{1, 1, 4}, rhsShape: []int64{1, 1, 2},
		inB: 0, inF: 1, inSp: []int64{2}, kO: 0, kI: 1, kSp: []int64{2}, outB: 0, outF: 1, outSp: []int64{2},
		lhsDil: []int64{2}}
	op = mkOp("stablehlo.convolution", []*ir.TensorType{ir.Tensor(ir.F32, c.lhsShape...), ir.Tensor(ir.F32, c.rhsShape...)},
		[]*ir.TensorType{ir.Tensor(ir.F32, 1, 1, 6)}, c.attrs())
	out = runOp(t, fakeCtx{2}, op, f32Bytes([]float32{1, 2, 3, 4}), f32Bytes([]float32{1, 10}))
	require.Equal(t, []float32{1, 20, 2, 30, 3, 40}, bytesF32(out[0]))
}

func TestConvolutionRandom(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for _, c := range convCases {
		nl, nr := 1, 1
		for _, x := range c.lhsShape {
			nl *= int(x)
		}
		for _, x := range c.rhsShape {
			nr *= int(x)
		}
		lhs, rhs := randF64(r, nl), randF64(r, nr)
		want := refConv(c, lhs, rhs)
		for _, et := range []ir.ElemType{ir.F32, ir.F64} {
			t.Run(c.name+"/"+et.String(), func(t *testing.T) {
				op := mkOp("stablehlo.convolution", []*ir.TensorType{ir.Tensor(et, c.lhsShape...), ir.Tensor(et, c.rhsShape...)},
					[]*ir.TensorType{ir.Tensor(et, c.outShape()...)}, c.attrs())
				var got []float64
				if et == ir.F32 {
					l32, r32 := make([]float32, nl), make([]float32, nr)
					for i := range lhs {
						l32[i] = float32(lhs[i])
					}
					for i := range rhs {
						r32[i] = float32(rhs[i])
					}
					for _, v := range bytesF32(runOp(t, fakeCtx{3}, op, f32Bytes(l32), f32Bytes(r32))[0]) {
						got = append(got, float64(v))
					}
				} else {
					got = bytesF64(runOp(t, fakeCtx{3}, op, f64Bytes(lhs), f64Bytes(rhs))[0])
				}
				require.Len(t, got, len(want))
				tol := 1e-4
				if et == ir.F64 {
					tol = 1e-12
				}
				for i := range want {
					require.InDelta(t, want[i], got[i], tol*(1+math.Abs(want[i])), "element %d", i)
					if want[i] == 0 {
						// No input met (random inputs): exactly zero, not
						// whatever the output buffer held.
						require.Zero(t, got[i], "element %d", i)
					}
				}
			})
		}
		t.Run(c.name+"/i32", func(t *testing.T) {
			li, ri := make([]byte, 4*nl), make([]byte, 4*nr)
			lf, rf := make([]float64, nl), make([]float64, nr)
			for i := range lf {
				v := int32(r.Intn(21) - 10)
				putI32(li[4*i:], v)
				lf[i] = float64(v)
			}
			for i := range rf {
				v := int32(r.Intn(21) - 10)
				putI32(ri[4*i:], v)
				rf[i] = float64(v)
			}
			want := refConv(c, lf, rf)
			op := mkOp("stablehlo.convolution", []*ir.TensorType{ir.Tensor(ir.S32, c.lhsShape...), ir.Tensor(ir.S32, c.rhsShape...)},
				[]*ir.TensorType{ir.Tensor(ir.S32, c.outShape()...)}, c.attrs())
			out := runOp(t, fakeCtx{2}, op, li, ri)[0]
			for i := range want {
				require.Equal(t, int64(want[i]), loadInt(ir.S32, out, i))
			}
		})
	}
}

func TestConvolutionErrors(t *testing.T) {
	c := convCases[0]
	// The verifier checks the dimension numbers and groups; the kernel checks
	// the window, which dynamic_conv hands it unverified.
	attrs := c.attrs()
	attrs["window_strides"] = ir.DenseI64Attr{Values: make([]int64, len(c.lhsShape)-2)}
	op := mkOp("stablehlo.convolution", []*ir.TensorType{ir.Tensor(ir.F32, c.lhsShape...), ir.Tensor(ir.F32, c.rhsShape...)},
		[]*ir.TensorType{ir.Tensor(ir.F32, c.outShape()...)}, attrs)
	_, err := lowerOp(t, fakeCtx{1}, op)
	require.ErrorContains(t, err, "window_strides must be positive")

	op = mkOp("stablehlo.convolution", []*ir.TensorType{ir.Tensor(ir.F32, c.lhsShape...), ir.Tensor(ir.F32, c.rhsShape...)},
		[]*ir.TensorType{ir.Tensor(ir.F32, 2, 4, 4, 5)}, c.attrs())
	_, err = lowerOp(t, fakeCtx{1}, op)
	require.ErrorContains(t, err, "result type")

	attrs = c.attrs()
	delete(attrs, "kernel_spatial_dimensions")
	op = mkOp("stablehlo.convolution", []*ir.TensorType{ir.Tensor(ir.F32, c.lhsShape...), ir.Tensor(ir.F32, c.rhsShape...)},
		[]*ir.TensorType{ir.Tensor(ir.F32, c.outShape()...)}, attrs)
	_, err = lowerOp(t, fakeCtx{1}, op)
	require.ErrorContains(t, err, "kernel_spatial_dimensions")
}

const convPyScript = `
import json, sys
import numpy as np
from jax import lax
cases = json.load(sys.stdin)
res = []
for c in cases:
    lhs = np.array(c["lhs"], np.float64).reshape(c["lhsShape"])
    rhs = np.array(c["rhs"], np.float64).reshape(c["rhsShape"])
    s = len(c["inSp"])
    if c["rev"]:
        rhs = np.flip(rhs, axis=[c["kSp"][d] for d in range(s) if c["rev"][d]])
    dn = lax.ConvDimensionNumbers(lhs_spec=tuple([c["inB"], c["inF"]] + c["inSp"]),
                                  rhs_spec=tuple([c["kO"], c["kI"]] + c["kSp"]),
                                  out_spec=tuple([c["outB"], c["outF"]] + c["outSp"]))
    pad = c["pad"] or [0] * (2 * s)
    out = lax.conv_general_dilated(lhs, rhs, c["strides"] or [1] * s, [(pad[2*d], pad[2*d+1]) for d in range(s)],
                                   lhs_dilation=c["lhsDil"] or [1] * s, rhs_dilation=c["rhsDil"] or [1] * s,
                                   dimension_numbers=dn, feature_group_count=max(c["fgc"], 1),
                                   batch_group_count=max(c["bgc"], 1), precision=lax.Precision.HIGHEST)
    res.append(np.asarray(out).reshape(-1).tolist())
json.dump(res, sys.stdout)
`

// TestConvolutionMatchesJAX checks the spec reading (and refConv) against
// lax.conv_general_dilated on XLA:CPU.
func TestConvolutionMatchesJAX(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	var cases []map[string]any
	var wants [][]float64
	for _, c := range convCases {
		if c.name == "empty-output" {
			continue
		}
		nl, nr := 1, 1
		for _, x := range c.lhsShape {
			nl *= int(x)
		}
		for _, x := range c.rhsShape {
			nr *= int(x)
		}
		lhs, rhs := randF64(r, nl), randF64(r, nr)
		op := mkOp("stablehlo.convolution", []*ir.TensorType{ir.Tensor(ir.F64, c.lhsShape...), ir.Tensor(ir.F64, c.rhsShape...)},
			[]*ir.TensorType{ir.Tensor(ir.F64, c.outShape()...)}, c.attrs())
		wants = append(wants, bytesF64(runOp(t, fakeCtx{2}, op, f64Bytes(lhs), f64Bytes(rhs))[0]))
		cases = append(cases, map[string]any{
			"lhsShape": c.lhsShape, "rhsShape": c.rhsShape, "inB": c.inB, "inF": c.inF, "kI": c.kI, "kO": c.kO,
			"outB": c.outB, "outF": c.outF, "inSp": c.inSp, "kSp": c.kSp, "outSp": c.outSp,
			"strides": c.strides, "lhsDil": c.lhsDil, "rhsDil": c.rhsDil, "pad": c.pad, "rev": c.rev,
			"fgc": c.fgc, "bgc": c.bgc, "lhs": lhs, "rhs": rhs,
		})
	}
	var got [][]float64
	pyRef(t, convPyScript, cases, &got)
	require.Len(t, got, len(wants))
	for i := range wants {
		require.Len(t, wants[i], len(got[i]), "case %d", i)
		for j := range wants[i] {
			require.InDelta(t, got[i][j], wants[i][j], 1e-10*(1+math.Abs(got[i][j])), "case %v element %d", cases[i]["lhsShape"], j)
		}
	}
}

// TestConvolutionEveryKernel runs the convolution cases on every GEMM
// micro-kernel and checks that results do not depend on the worker count.
func TestConvolutionEveryKernel(t *testing.T) {
	withKernels(t, func(t *testing.T) {
		r := rand.New(rand.NewSource(11))
		for _, c := range convCases {
			nl, nr := 1, 1
			for _, x := range c.lhsShape {
				nl *= int(x)
			}
			for _, x := range c.rhsShape {
				nr *= int(x)
			}
			lhs, rhs := randF64(r, nl), randF64(r, nr)
			want := refConv(c, lhs, rhs)
			for _, et := range []ir.ElemType{ir.F32, ir.F64} {
				op := mkOp("stablehlo.convolution", []*ir.TensorType{ir.Tensor(et, c.lhsShape...), ir.Tensor(et, c.rhsShape...)},
					[]*ir.TensorType{ir.Tensor(et, c.outShape()...)}, c.attrs())
				x, y := f64Bytes(lhs), f64Bytes(rhs)
				if et == ir.F32 {
					x, y = f32Bytes(f32of(lhs)), f32Bytes(f32of(rhs))
				}
				ref := runOp(t, fakeCtx{1}, op, x, y)[0]
				var got []float64
				if et == ir.F32 {
					for _, v := range bytesF32(ref) {
						got = append(got, float64(v))
					}
				} else {
					got = bytesF64(ref)
				}
				tol := 1e-4
				if et == ir.F64 {
					tol = 1e-12
				}
				for i := range want {
					require.InDelta(t, want[i], got[i], tol*(1+math.Abs(want[i])), "%s %s element %d", c.name, et, i)
				}
				for _, w := range []int{2, 3} {
					require.Equal(t, ref, runOp(t, fakeCtx{w}, op, x, y)[0], "%s %s workers=%d", c.name, et, w)
				}
			}
		}
	})
}

func f32of(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}
