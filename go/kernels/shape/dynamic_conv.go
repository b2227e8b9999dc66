package shape

import (
	"slices"
	"sync"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/lowerutil"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// dynamic_conv is convolution with its padding given as an operand
// (tensor<Sx2xiN>, low and high per spatial dimension). The convolution
// itself is the stablehlo.convolution kernel (go/kernels/linalg): this
// builds the static op from the padding values and delegates. A constant
// padding is resolved at compile time; otherwise the static op is lowered at
// run time and reused while the padding stays the same.
func init() {
	kernel.Register("stablehlo.dynamic_conv", lowerDynamicConv)
}

func lowerDynamicConv(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	if len(op.Operands) != 3 || len(op.Results) != 1 {
		return nil, op.Errorf("expected lhs, rhs, padding and 1 result")
	}
	conv, ok := kernel.Lookup("stablehlo.convolution")
	if !ok {
		return nil, op.Errorf("no stablehlo.convolution kernel to delegate to")
	}
	lhs, err := lowerutil.TensorOperand(op, 0)
	if err != nil {
		return nil, err
	}
	pt, err := lowerutil.TensorOperand(op, 2)
	if err != nil {
		return nil, err
	}
	s := lhs.Rank() - 2
	if pt.Rank() != 2 || int(pt.Shape[0]) != s || pt.Shape[1] != 2 || !lowerutil.IsIndexType(pt.Elem) {
		return nil, op.Errorf("padding is %s, want a %dx2 integer tensor (low, high per spatial dimension)", pt, s)
	}
	lower := func(pad []int64) (kernel.Step, error) {
		attrs := make(ir.Attrs, len(op.Attrs)+1)
		for k, v := range op.Attrs {
			attrs[k] = v
		}
		attrs["padding"] = ir.DenseI64Attr{Values: pad}
		static := &ir.Op{Name: "stablehlo.convolution", Operands: op.Operands[:2], Results: op.Results,
			Attrs: attrs, Loc: op.Loc, Block: op.Block}
		st, err := conv(ctx, static)
		if err != nil {
			return nil, op.Errorf("as convolution with padding %v: %v", pad, err)
		}
		return st, nil
	}
	if c := op.Operands[2].Def; c != nil && c.Name == "stablehlo.constant" {
		if e, ok := c.Attrs.Elements("value"); ok && e.Type != nil && e.Type.Equal(pt) {
			st, err := lower(readVec(e.Data, pt.Elem, 2*s))
			if err != nil {
				return nil, err
			}
			return func(ins, outs [][]byte) error { return st(ins[:2], outs) }, nil
		}
	}
	var (
		mu      sync.Mutex
		lastPad []int64
		last    kernel.Step
	)
	return func(ins, outs [][]byte) error {
		pad := readVec(ins[2], pt.Elem, 2*s)
		mu.Lock()
		st := last
		if st == nil || !slices.Equal(pad, lastPad) {
			var err error
			if st, err = lower(pad); err != nil {
				mu.Unlock()
				return err
			}
			last, lastPad = st, pad
		}
		mu.Unlock()
		return st(ins[:2], outs)
	}, nil
}
