package shape

import (
	"encoding/binary"
	"fmt"

	"github.com/gojax/gojax/go/devmem"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/lowerutil"
	"github.com/gojax/gojax/go/kernels/kernel"
)

func init() {
	kernel.Register("stablehlo.iota", lowerIota)
	kernel.Register("stablehlo.get_dimension_size", lowerGetDimensionSize)
}

// lowerIota precomputes the values along iota_dimension once; the step
// broadcasts that line over the other dims.
func lowerIota(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	if len(op.Results) != 1 {
		return nil, op.Errorf("expected 1 result")
	}
	out, err := lowerutil.TensorResult(op, 0)
	if err != nil {
		return nil, err
	}
	dim, err := lowerutil.IntAttr(op, "iota_dimension")
	if err != nil {
		return nil, err
	}
	return iotaStep(ctx, op, out, dim)
}

func iotaStep(ctx kernel.Context, op *ir.Op, out *ir.TensorType, dim int64) (kernel.Step, error) {
	if dim < 0 || int(dim) >= out.Rank() {
		return nil, op.Errorf("iota_dimension %d out of range for %s", dim, out)
	}
	es := out.Elem.ByteSize()
	n := out.Shape[dim]
	// The line is a Go-heap table, whose exhaustion ends the process.
	if err := devmem.CheckHostBytes(n * int64(es)); err != nil {
		return nil, fmt.Errorf("%s at %s: %s: %w", op.Name, op.Loc, out, err)
	}
	line := make([]byte, int(n)*es)
	for k := range n {
		if err := encodeInt(line[int(k)*es:], out.Elem, k); err != nil {
			return nil, op.Errorf("%v", err)
		}
	}
	src := make([]int64, out.Rank())
	src[dim] = 1
	p := newCopyPlan(out.Shape, out.Strides(), src, es)
	return func(ins, outs [][]byte) error {
		p.run(ctx, outs[0], line, 0, 0)
		return nil
	}, nil
}

func lowerGetDimensionSize(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	in, out, err := lowerutil.Unary(op)
	if err != nil {
		return nil, err
	}
	dim, err := lowerutil.IntAttr(op, "dimension")
	if err != nil {
		return nil, err
	}
	if dim < 0 || int(dim) >= in.Rank() || out.Rank() != 0 || out.Elem != ir.S32 {
		return nil, op.Errorf("dimension %d of %s into %s is invalid", dim, in, out)
	}
	v := uint32(in.Shape[dim])
	return func(ins, outs [][]byte) error {
		binary.LittleEndian.PutUint32(outs[0], v)
		return nil
	}, nil
}
