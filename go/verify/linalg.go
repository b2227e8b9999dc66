package verify

import (
	"slices"

	"github.com/gojax/gojax/go/ir"
)

// Linear algebra and neural-network ops: dot, dot_general, convolution,
// einsum, cholesky, triangular_solve, fft, batch_norm_*.

func init() {
	register(map[string]checkFunc{
		"stablehlo.dot":                  checkDot,
		"stablehlo.dot_general":          checkDotGeneral,
		"stablehlo.convolution":          checkConvolution,
		"stablehlo.dynamic_conv":         checkDynamicConv,
		"stablehlo.einsum":               checkEinsum(2),
		"stablehlo.unary_einsum":         checkEinsum(1),
		"stablehlo.cholesky":             checkCholesky,
		"stablehlo.triangular_solve":     checkTriangularSolve,
		"stablehlo.fft":                  checkFFT,
		"stablehlo.batch_norm_inference": checkBatchNormInference,
		"stablehlo.batch_norm_training":  checkBatchNormTraining,
		"stablehlo.batch_norm_grad":      checkBatchNormGrad,
	})
}

func checkDot(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 2, 1)
	if err != nil {
		return err
	}
	l, r := ins[0], ins[1]
	if err := precisionConfig(op, 2); err != nil {
		return err
	}
	var want []int64
	switch {
	case l.Rank() == 1 && r.Rank() == 1 && l.Shape[0] == r.Shape[0]:
	case l.Rank() == 2 && r.Rank() == 1 && l.Shape[1] == r.Shape[0]:
		want = []int64{l.Shape[0]}
	case l.Rank() == 1 && r.Rank() == 2 && l.Shape[0] == r.Shape[0]:
		want = []int64{r.Shape[1]}
	case l.Rank() == 2 && r.Rank() == 2 && l.Shape[1] == r.Shape[0]:
		want = []int64{l.Shape[0], r.Shape[1]}
	default:
		return op.Errorf("incompatible operands %s and %s", l, r)
	}
	return wantShape(op, "result", outs[0], want)
}

func checkDotGeneral(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 2, 1)
	if err != nil {
		return err
	}
	l, r := ins[0], ins[1]
	var dims [4][]int64
	for i, name := range []string{"lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions", "rhs_contracting_dimensions"} {
		d, _, err := i64s(op, name, false)
		if err != nil {
			return err
		}
		rank := l.Rank()
		if i%2 == 1 {
			rank = r.Rank()
		}
		if err := dimsIn(op, name, d, rank); err != nil {
			return err
		}
		dims[i] = d
	}
	lb, rb, lc, rc := dims[0], dims[1], dims[2], dims[3]
	if len(lb) != len(rb) || len(lc) != len(rc) {
		return op.Errorf("batching (%v, %v) or contracting (%v, %v) dimension lists differ in length", lb, rb, lc, rc)
	}
	if err := unique2(op, "lhs batching and contracting dimensions", lb, lc); err != nil {
		return err
	}
	if err := unique2(op, "rhs batching and contracting dimensions", rb, rc); err != nil {
		return err
	}
	for i := range lb {
		if l.Shape[lb[i]] != r.Shape[rb[i]] {
			return op.Errorf("batching dims %d/%d differ in size: %d vs %d", lb[i], rb[i], l.Shape[lb[i]], r.Shape[rb[i]])
		}
	}
	for i := range lc {
		if l.Shape[lc[i]] != r.Shape[rc[i]] {
			return op.Errorf("contracting dims %d/%d differ in size: %d vs %d", lc[i], rc[i], l.Shape[lc[i]], r.Shape[rc[i]])
		}
	}
	if err := precisionConfig(op, 2); err != nil {
		return err
	}
	want := make([]int64, 0, 8) // on the stack for ranks up to 8
	for _, d := range lb {
		want = append(want, l.Shape[d])
	}
	for d := range l.Shape {
		if !slices.Contains(lb, int64(d)) && !slices.Contains(lc, int64(d)) {
			want = append(want, l.Shape[d])
		}
	}
	for d := range r.Shape {
		if !slices.Contains(rb, int64(d)) && !slices.Contains(rc, int64(d)) {
			want = append(want, r.Shape[d])
		}
	}
	return wantShape(op, "result", outs[0], want)
}

// convDims are the convolution dimension numbers and window attributes.
type convDims struct {
	inBatch, inFeature, kIn, kOut, outBatch, outFeature int64
	inSpatial, kSpatial, outSpatial                     []int64
	fgc, bgc                                            int64
}

func readConvDims(op *ir.Op, rank int) (convDims, error) {
	var c convDims
	ints := []struct {
		name string
		dst  *int64
	}{
		{"input_batch_dimension", &c.inBatch}, {"input_feature_dimension", &c.inFeature},
		{"kernel_input_feature_dimension", &c.kIn}, {"kernel_output_feature_dimension", &c.kOut},
		{"output_batch_dimension", &c.outBatch}, {"output_feature_dimension", &c.outFeature},
	}
	for _, x := range ints {
		n, err := intAttr(op, x.name, true, 0)
		if err != nil {
			return c, err
		}
		if n < 0 || n >= int64(rank) {
			return c, op.Errorf("%s = %d out of range for rank %d", x.name, n, rank)
		}
		*x.dst = n
	}
	lists := []struct {
		name string
		dst  *[]int64
	}{{"input_spatial_dimensions", &c.inSpatial}, {"kernel_spatial_dimensions", &c.kSpatial}, {"output_spatial_dimensions", &c.outSpatial}}
	for _, x := range lists {
		l, _, err := i64s(op, x.name, false)
		if err != nil {
			return c, err
		}
		if err := lenIs(op, x.name, l, rank-2); err != nil {
			return c, err
		}
		if err := dimsIn(op, x.name, l, rank); err != nil {
			return c, err
		}
		*x.dst = l
	}
	if err := isPermutation(op, "input dimension numbers", append([]int64{c.inBatch, c.inFeature}, c.inSpatial...), rank); err != nil {
		return c, err
	}
	if err := isPermutation(op, "kernel dimension numbers", append([]int64{c.kIn, c.kOut}, c.kSpatial...), rank); err != nil {
		return c, err
	}
	if err := isPermutation(op, "output dimension numbers", append([]int64{c.outBatch, c.outFeature}, c.outSpatial...), rank); err != nil {
		return c, err
	}
	var err error
	if c.fgc, err = intAttr(op, "feature_group_count", false, 1); err != nil {
		return c, err
	}
	if c.bgc, err = intAttr(op, "batch_group_count", false, 1); err != nil {
		return c, err
	}
	if c.fgc <= 0 || c.bgc <= 0 || (c.fgc > 1 && c.bgc > 1) {
		return c, op.Errorf("feature_group_count %d / batch_group_count %d invalid", c.fgc, c.bgc)
	}
	return c, precisionConfig(op, 2)
}

// checkConvGroups checks the feature and batch group constraints.
func checkConvGroups(op *ir.Op, c convDims, lhs, rhs *ir.TensorType) error {
	inF, kIn, kOut, inB := lhs.Shape[c.inFeature], rhs.Shape[c.kIn], rhs.Shape[c.kOut], lhs.Shape[c.inBatch]
	if inF%c.fgc != 0 || inF/c.fgc != kIn {
		return op.Errorf("input features %d / feature_group_count %d must equal kernel input features %d", inF, c.fgc, kIn)
	}
	if kOut%c.fgc != 0 || kOut%c.bgc != 0 {
		return op.Errorf("kernel output features %d must divide by feature_group_count %d and batch_group_count %d", kOut, c.fgc, c.bgc)
	}
	if inB%c.bgc != 0 {
		return op.Errorf("input batch %d must divide by batch_group_count %d", inB, c.bgc)
	}
	return nil
}

func checkConvolution(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 2, 1)
	if err != nil {
		return err
	}
	lhs, rhs, out := ins[0], ins[1], outs[0]
	rank := lhs.Rank()
	if rank < 2 || rhs.Rank() != rank || out.Rank() != rank {
		return op.Errorf("lhs %s, rhs %s and result %s must share one rank >= 2", lhs, rhs, out)
	}
	c, err := readConvDims(op, rank)
	if err != nil {
		return err
	}
	if err := checkConvGroups(op, c, lhs, rhs); err != nil {
		return err
	}
	s := rank - 2
	w := window{dims: make([]int64, s)}
	for i, d := range c.kSpatial {
		w.dims[i] = rhs.Shape[d]
	}
	opt := func(name string) ([]int64, error) {
		l, ok, err := i64s(op, name, false)
		if err != nil || !ok {
			o := make([]int64, s)
			for i := range o {
				o[i] = 1
			}
			return o, err
		}
		if err := lenIs(op, name, l, s); err != nil {
			return nil, err
		}
		for _, x := range l {
			if x <= 0 {
				return nil, op.Errorf("%s entries must be positive, is %v", name, l)
			}
		}
		return l, nil
	}
	if w.strides, err = opt("window_strides"); err != nil {
		return err
	}
	if w.baseDil, err = opt("lhs_dilation"); err != nil {
		return err
	}
	if w.winDil, err = opt("rhs_dilation"); err != nil {
		return err
	}
	pad, ok, err := i64s(op, "padding", false)
	if err != nil {
		return err
	}
	if !ok {
		pad = make([]int64, 2*s)
	}
	if len(pad) != 2*s {
		return op.Errorf("padding has %d values; expected %d (spatial dims x 2)", len(pad), 2*s)
	}
	w.padding = pad
	if rev, ok := op.Attrs["window_reversal"]; ok {
		n := -1
		switch b := rev.(type) {
		case ir.DenseBoolAttr:
			n = len(b.Values)
		case *ir.ElementsAttr:
			if b != nil && b.Type != nil && b.Type.Elem == ir.Pred {
				n = int(b.Type.NumElements())
			}
		}
		if n != s {
			return op.Errorf("window_reversal must be %d bools, is %s", s, rev)
		}
	}
	spatial := make([]int64, s)
	for i, d := range c.inSpatial {
		spatial[i] = lhs.Shape[d]
	}
	spatialOut := w.resultShape(spatial)
	want := make([]int64, rank)
	want[c.outBatch] = lhs.Shape[c.inBatch] / c.bgc
	want[c.outFeature] = rhs.Shape[c.kOut]
	for i, d := range c.outSpatial {
		want[d] = spatialOut[i]
	}
	return wantShape(op, "result", out, want)
}

func checkDynamicConv(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 3, 1)
	if err != nil {
		return err
	}
	lhs, rhs, out := ins[0], ins[1], outs[0]
	rank := lhs.Rank()
	if rank < 2 || rhs.Rank() != rank || out.Rank() != rank {
		return op.Errorf("lhs %s, rhs %s and result %s must share one rank >= 2", lhs, rhs, out)
	}
	if ins[2].Rank() != 2 || !ins[2].Elem.IsInteger() || ins[2].Shape[0] != int64(rank-2) || ins[2].Shape[1] != 2 {
		return op.Errorf("padding must be a %dx2 integer tensor, is %s", rank-2, ins[2])
	}
	c, err := readConvDims(op, rank)
	if err != nil {
		return err
	}
	return checkConvGroups(op, c, lhs, rhs)
}

func checkEinsum(n int) checkFunc {
	return func(v *verifier, op *ir.Op) error {
		if _, _, err := v.sig(op, n, 1); err != nil {
			return err
		}
		_, err := stringAttr(op, "einsum_config", true)
		return err
	}
}

// squareBatch checks a rank >= 2 tensor whose two minor dims are equal.
func squareBatch(op *ir.Op, role string, t *ir.TensorType) error {
	r := t.Rank()
	if r < 2 || t.Shape[r-1] != t.Shape[r-2] {
		return op.Errorf("%s must be a batch of square matrices, is %s", role, t)
	}
	return nil
}

func checkCholesky(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 1, 1)
	if err != nil {
		return err
	}
	if err := elemIn(op, "a", ins[0], classFC); err != nil {
		return err
	}
	if err := squareBatch(op, "a", ins[0]); err != nil {
		return err
	}
	if _, err := boolAttr(op, "lower", false); err != nil {
		return err
	}
	return sameType(op, "result type must equal operand type", ins[0], outs[0])
}

func checkTriangularSolve(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 2, 1)
	if err != nil {
		return err
	}
	a, b := ins[0], ins[1]
	if err := elemIn(op, "a", a, classFC); err != nil {
		return err
	}
	if err := squareBatch(op, "a", a); err != nil {
		return err
	}
	if b.Elem != a.Elem || b.Rank() != a.Rank() {
		return op.Errorf("b %s must have a's element type and rank (%s)", b, a)
	}
	r := a.Rank()
	if !slices.Equal(a.Shape[:r-2], b.Shape[:r-2]) {
		return op.Errorf("batch dims of a %s and b %s differ", a, b)
	}
	left, err := boolAttr(op, "left_side", false)
	if err != nil {
		return err
	}
	for _, name := range []string{"lower", "unit_diagonal"} {
		if _, err := boolAttr(op, name, false); err != nil {
			return err
		}
	}
	if _, err := enumAttr(op, "transpose_a", true, "", "NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"); err != nil {
		return err
	}
	n := b.Shape[r-1]
	if left {
		n = b.Shape[r-2]
	}
	if a.Shape[r-1] != n {
		return op.Errorf("a %s does not match b %s (left_side = %t)", a, b, left)
	}
	return sameType(op, "result type must equal b's type", b, outs[0])
}

func checkFFT(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 1, 1)
	if err != nil {
		return err
	}
	in, out := ins[0], outs[0]
	kind, err := enumAttr(op, "fft_type", true, "", "FFT", "IFFT", "RFFT", "IRFFT")
	if err != nil {
		return err
	}
	length, _, err := i64s(op, "fft_length", true)
	if err != nil {
		return err
	}
	k := len(length)
	if k < 1 || k > 3 || in.Rank() < k {
		return op.Errorf("fft_length %v must have 1 to 3 entries and at most the operand's rank %d", length, in.Rank())
	}
	r := in.Rank()
	switch kind {
	case "FFT", "IFFT":
		if err := elemIn(op, "operand", in, classComplex); err != nil {
			return err
		}
		if !slices.Equal(in.Shape[r-k:], length) {
			return op.Errorf("operand minor dims %v must equal fft_length %v", in.Shape[r-k:], length)
		}
		return sameType(op, "result type must equal operand type", in, out)
	case "RFFT":
		if in.Elem != ir.F32 && in.Elem != ir.F64 {
			return op.Errorf("RFFT operand must be f32 or f64, is %s", in)
		}
		if !slices.Equal(in.Shape[r-k:], length) {
			return op.Errorf("operand minor dims %v must equal fft_length %v", in.Shape[r-k:], length)
		}
		want := slices.Clone(in.Shape)
		want[r-1] = length[k-1]/2 + 1
		if err := wantElem(op, "result", out, map[ir.ElemType]ir.ElemType{ir.F32: ir.C64, ir.F64: ir.C128}[in.Elem]); err != nil {
			return err
		}
		return wantShape(op, "result", out, want)
	default: // IRFFT
		if err := elemIn(op, "operand", in, classComplex); err != nil {
			return err
		}
		want := slices.Clone(in.Shape)
		want[r-1] = length[k-1]
		if !slices.Equal(in.Shape[r-k:r-1], length[:k-1]) || in.Shape[r-1] != length[k-1]/2+1 {
			return op.Errorf("operand minor dims %v do not match fft_length %v", in.Shape[r-k:], length)
		}
		if err := wantElem(op, "result", out, complexPart(in.Elem)); err != nil {
			return err
		}
		return wantShape(op, "result", out, want)
	}
}

// batchNormAttrs checks epsilon and feature_index and that every per-feature
// operand is 1-d of the feature size.
func batchNormAttrs(op *ir.Op, operand *ir.TensorType, perFeature []*ir.TensorType) error {
	if _, err := floatAttr(op, "epsilon"); err != nil {
		return err
	}
	fi, err := intAttr(op, "feature_index", true, 0)
	if err != nil {
		return err
	}
	if err := elemIn(op, "operand", operand, classFloat); err != nil {
		return err
	}
	if fi < 0 || fi >= int64(operand.Rank()) {
		return op.Errorf("feature_index %d out of range for %s", fi, operand)
	}
	want := []int64{operand.Shape[fi]}
	for _, t := range perFeature {
		if t.Elem != operand.Elem {
			return op.Errorf("per-feature tensor %s must have element type %s", t, operand.Elem)
		}
		if err := wantShape(op, "per-feature tensor", t, want); err != nil {
			return err
		}
	}
	return nil
}

func checkBatchNormInference(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 5, 1)
	if err != nil {
		return err
	}
	if err := batchNormAttrs(op, ins[0], ins[1:]); err != nil {
		return err
	}
	return sameType(op, "result type must equal operand type", ins[0], outs[0])
}

func checkBatchNormTraining(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 3, 3)
	if err != nil {
		return err
	}
	if err := batchNormAttrs(op, ins[0], append(slices.Clone(ins[1:]), outs[1:]...)); err != nil {
		return err
	}
	return sameType(op, "output type must equal operand type", ins[0], outs[0])
}

func checkBatchNormGrad(v *verifier, op *ir.Op) error {
	ins, outs, err := v.sig(op, 5, 3)
	if err != nil {
		return err
	}
	if err := batchNormAttrs(op, ins[0], append(slices.Clone(ins[1:4]), outs[1:]...)); err != nil {
		return err
	}
	if err := sameType(op, "grad_output type must equal operand type", ins[0], ins[4]); err != nil {
		return err
	}
	return sameType(op, "grad_operand type must equal operand type", ins[0], outs[0])
}
