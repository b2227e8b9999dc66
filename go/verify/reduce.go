package verify

import (
	"fmt"
	"slices"

	"github.com/gojax/gojax/go/ir"
)

// Ops with a computation region applied over windows or dimensions: reduce,
// reduce_window, select_and_scatter, sort, map.

func init() {
	register(map[string]checkFunc{
		"stablehlo.reduce":             checkReduce,
		"stablehlo.reduce_window":      checkReduceWindow,
		"stablehlo.select_and_scatter": checkSelectAndScatter,
		"stablehlo.sort":               checkSort,
		"stablehlo.map":                checkMap,
	})
}

// splitInputsInits splits reduce-style operands into N inputs and N init values.
func splitInputsInits(v *verifier, op *ir.Op) ([]*ir.TensorType, []*ir.TensorType, error) {
	if len(op.Operands) == 0 || len(op.Operands)%2 != 0 {
		return nil, nil, op.Errorf("expects N inputs then N init values; has %d operands", len(op.Operands))
	}
	ins, err := v.operandTensors(op)
	if err != nil {
		return nil, nil, err
	}
	n := len(ins) / 2
	inputs, inits := ins[:n], ins[n:]
	for i := range inputs {
		if err := sameShape(op, "inputs must share one shape", inputs[0], inputs[i]); err != nil {
			return nil, nil, err
		}
		if inits[i].Rank() != 0 {
			return nil, nil, op.Errorf("init value %d must be 0-d, is %s", i, inits[i])
		}
	}
	return inputs, inits, nil
}

// bodyScalars checks a reduction body: 2N 0-d tensor arguments (accumulators
// then elements) returning N 0-d tensors of the given element types.
func (v *verifier) bodyScalars(op *ir.Op, idx int, inits []*ir.TensorType, elems []*ir.TensorType) error {
	args := make([]ir.Type, 0, 2*len(inits))
	for _, t := range inits {
		args = append(args, scalarLike(t))
	}
	for _, t := range inits {
		args = append(args, scalarLike(t))
	}
	rets := make([]ir.Type, len(elems))
	for i, e := range elems {
		rets[i] = scalarLike(e)
	}
	return v.regionSig(op, idx, args, rets)
}

func checkReduce(v *verifier, op *ir.Op) error {
	if err := regions(op, 1); err != nil {
		return err
	}
	inputs, inits, err := splitInputsInits(v, op)
	if err != nil {
		return err
	}
	if err := counts(op, -1, len(inputs)); err != nil {
		return err
	}
	outs, err := v.resultTensors(op)
	if err != nil {
		return err
	}
	dims, _, err := i64s(op, "dimensions", true)
	if err != nil {
		return err
	}
	r := inputs[0].Rank()
	if err := dimsIn(op, "dimensions", dims, r); err != nil {
		return err
	}
	if err := unique(op, "dimensions", dims); err != nil {
		return err
	}
	var want []int64
	for d := 0; d < r; d++ {
		if !slices.Contains(dims, int64(d)) {
			want = append(want, inputs[0].Shape[d])
		}
	}
	elems := make([]*ir.TensorType, len(outs))
	for i, o := range outs {
		if err := wantShape(op, resultLabel(i), o, want); err != nil {
			return err
		}
		if err := wantElem(op, resultLabel(i), o, inits[i].Elem); err != nil {
			return err
		}
		elems[i] = o
	}
	return v.bodyScalars(op, 0, inits, elems)
}

// window holds the reduce_window / select_and_scatter window attributes.
type window struct {
	dims, strides, baseDil, winDil, padding []int64
}

func readWindow(op *ir.Op, rank int, dilations bool) (window, error) {
	w := window{}
	var err error
	if w.dims, _, err = i64s(op, "window_dimensions", true); err != nil {
		return w, err
	}
	if err := lenIs(op, "window_dimensions", w.dims, rank); err != nil {
		return w, err
	}
	ones := func() []int64 {
		o := make([]int64, rank)
		for i := range o {
			o[i] = 1
		}
		return o
	}
	opt := func(name string) ([]int64, error) {
		l, ok, err := i64s(op, name, false)
		if err != nil {
			return nil, err
		}
		if !ok {
			return ones(), nil
		}
		if err := lenIs(op, name, l, rank); err != nil {
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
		return w, err
	}
	if dilations {
		if w.baseDil, err = opt("base_dilations"); err != nil {
			return w, err
		}
		if w.winDil, err = opt("window_dilations"); err != nil {
			return w, err
		}
	} else {
		w.baseDil, w.winDil = ones(), ones()
	}
	pad, ok, err := i64s(op, "padding", false)
	if err != nil {
		return w, err
	}
	if !ok {
		pad = make([]int64, 2*rank)
	}
	if len(pad) != 2*rank {
		return w, op.Errorf("padding has %d values; expected %d (rank x 2)", len(pad), 2*rank)
	}
	w.padding = pad
	for _, d := range w.dims {
		if d <= 0 {
			return w, op.Errorf("window_dimensions entries must be positive, is %v", w.dims)
		}
	}
	return w, nil
}

// resultShape is the shape of a windowed reduction of an input of this shape.
func (w window) resultShape(shape []int64) []int64 {
	out := make([]int64, len(shape))
	for d, n := range shape {
		padded := w.padding[2*d] + w.padding[2*d+1]
		if n > 0 {
			padded += (n-1)*w.baseDil[d] + 1
		}
		win := (w.dims[d]-1)*w.winDil[d] + 1
		if padded < win {
			out[d] = 0
		} else {
			out[d] = (padded-win)/w.strides[d] + 1
		}
	}
	return out
}

func checkReduceWindow(v *verifier, op *ir.Op) error {
	if err := regions(op, 1); err != nil {
		return err
	}
	inputs, inits, err := splitInputsInits(v, op)
	if err != nil {
		return err
	}
	if err := counts(op, -1, len(inputs)); err != nil {
		return err
	}
	outs, err := v.resultTensors(op)
	if err != nil {
		return err
	}
	w, err := readWindow(op, inputs[0].Rank(), true)
	if err != nil {
		return err
	}
	want := w.resultShape(inputs[0].Shape)
	elems := make([]*ir.TensorType, len(outs))
	for i, o := range outs {
		if err := wantShape(op, resultLabel(i), o, want); err != nil {
			return err
		}
		if err := wantElem(op, resultLabel(i), o, inits[i].Elem); err != nil {
			return err
		}
		elems[i] = o
	}
	return v.bodyScalars(op, 0, inits, elems)
}

func checkSelectAndScatter(v *verifier, op *ir.Op) error {
	if err := regions(op, 2); err != nil {
		return err
	}
	if err := counts(op, 3, 1); err != nil {
		return err
	}
	ins, err := v.operandTensors(op)
	if err != nil {
		return err
	}
	outs, err := v.resultTensors(op)
	if err != nil {
		return err
	}
	operand, source, init := ins[0], ins[1], ins[2]
	if init.Rank() != 0 || init.Elem != source.Elem {
		return op.Errorf("init_value must be a 0-d %s tensor, is %s", source.Elem, init)
	}
	w, err := readWindow(op, operand.Rank(), false)
	if err != nil {
		return err
	}
	if err := wantShape(op, "source", source, w.resultShape(operand.Shape)); err != nil {
		return err
	}
	if err := sameType(op, "result type must equal operand type", operand, outs[0]); err != nil {
		return err
	}
	e := scalarLike(operand)
	if err := v.regionSig(op, 0, []ir.Type{e, e}, []ir.Type{scalarOf(ir.Pred)}); err != nil {
		return err
	}
	s := scalarLike(source)
	return v.regionSig(op, 1, []ir.Type{s, s}, []ir.Type{s})
}

func checkSort(v *verifier, op *ir.Op) error {
	if err := regions(op, 1); err != nil {
		return err
	}
	if len(op.Operands) == 0 {
		return op.Errorf("expects at least one input")
	}
	if err := counts(op, -1, len(op.Operands)); err != nil {
		return err
	}
	ins, err := v.operandTensors(op)
	if err != nil {
		return err
	}
	outs, err := v.resultTensors(op)
	if err != nil {
		return err
	}
	args := make([]ir.Type, 0, 2*len(ins))
	for i, t := range ins {
		if err := sameShape(op, "inputs must share one shape", ins[0], t); err != nil {
			return err
		}
		if err := sameType(op, "result type must equal input type", t, outs[i]); err != nil {
			return err
		}
		args = append(args, scalarLike(t), scalarLike(t))
	}
	dim, err := intAttr(op, "dimension", false, -1)
	if err != nil {
		return err
	}
	r := int64(ins[0].Rank())
	if dim < -r || dim >= r {
		return op.Errorf("dimension %d out of range for rank %d", dim, r)
	}
	if _, err := boolAttr(op, "is_stable", false); err != nil {
		return err
	}
	return v.regionSig(op, 0, args, []ir.Type{scalarOf(ir.Pred)})
}

func checkMap(v *verifier, op *ir.Op) error {
	if err := regions(op, 1); err != nil {
		return err
	}
	if len(op.Operands) == 0 {
		return op.Errorf("expects at least one input")
	}
	if err := counts(op, -1, 1); err != nil {
		return err
	}
	ins, err := v.operandTensors(op)
	if err != nil {
		return err
	}
	outs, err := v.resultTensors(op)
	if err != nil {
		return err
	}
	args := make([]ir.Type, len(ins))
	for i, t := range ins {
		if err := sameShape(op, "inputs must share one shape", ins[0], t); err != nil {
			return err
		}
		args[i] = scalarLike(t)
	}
	dims, _, err := i64s(op, "dimensions", true)
	if err != nil {
		return err
	}
	for i, d := range dims {
		if d != int64(i) || len(dims) != ins[0].Rank() {
			return op.Errorf("dimensions must be [0, ..., rank-1], is %v", dims)
		}
	}
	if len(dims) != ins[0].Rank() {
		return op.Errorf("dimensions must be [0, ..., rank-1], is %v", dims)
	}
	if err := sameShape(op, "result shape must equal input shape", ins[0], outs[0]); err != nil {
		return err
	}
	return v.regionSig(op, 0, args, []ir.Type{scalarLike(outs[0])})
}

// resultLabels spares the success path of the reductions a Sprintf per result.
var resultLabels = func() (l [8]string) {
	for i := range l {
		l[i] = fmt.Sprintf("result %d", i)
	}
	return l
}()

// resultLabel is "result i", naming a result in diagnostics.
func resultLabel(i int) string {
	if i < len(resultLabels) {
		return resultLabels[i]
	}
	return fmt.Sprintf("result %d", i)
}
