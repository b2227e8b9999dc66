package elementwise

import (
	"sync"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// stablehlo.map applies its region to each element: the slow path, one
// region call per element (the compiler may fuse simple maps itself).

func init() {
	kernel.RegisterOp("stablehlo.map", lowerMap, kernel.Traits{Storage: true, Cost: func(op *ir.Op) kernel.Work {
		// The body runs once per result element.
		if len(op.Regions) != 1 || len(op.Results) != 1 {
			return kernel.Work{}
		}
		return kernel.RegionWork(op.Regions[0]).Scaled(kernel.Elements(op.Results[0]))
	}})
}

func lowerMap(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	if len(op.Results) != 1 || op.Results[0].Tensor() == nil {
		return nil, op.Errorf("wants one tensor result")
	}
	out := op.Results[0].Tensor()
	if len(op.Regions) != 1 || len(op.Regions[0].Blocks) != 1 {
		return nil, op.Errorf("wants one single-block region")
	}
	blk := op.Regions[0].Blocks[0]
	if len(blk.Args) != len(op.Operands) {
		return nil, op.Errorf("region takes %d arguments for %d operands", len(blk.Args), len(op.Operands))
	}
	if dims, ok := op.Attrs.I64s("dimensions"); ok {
		for i, d := range dims {
			if d != int64(i) || len(dims) != out.Rank() {
				return nil, op.Errorf("dimensions %v must be [0, …, %d]", dims, out.Rank()-1)
			}
		}
	}
	ins := make([]*ir.TensorType, len(op.Operands))
	for i, v := range op.Operands {
		t := v.Tensor()
		if t == nil || !sameDims(t.Shape, out.Shape) {
			return nil, op.Errorf("operand %d must have the result's shape %v", i, out.Shape)
		}
		at := blk.Args[i].Tensor()
		if at == nil || at.Rank() != 0 || at.Elem != t.Elem {
			return nil, op.Errorf("region argument %d must be a scalar %s", i, t.Elem)
		}
		ins[i] = t
	}
	body, err := ctx.CompileRegion(op.Regions[0])
	if err != nil {
		return nil, err
	}
	n := int(out.NumElements())
	os := out.Elem.ByteSize()
	sizes := make([]int, len(ins))
	for i, t := range ins {
		sizes[i] = t.Elem.ByteSize()
	}
	// Argument slices are pooled so a run does not allocate.
	pool := sync.Pool{New: func() any { s := make([][]byte, len(ins)+1); return &s }}
	return func(inBufs, outs [][]byte) error {
		if len(inBufs) != len(ins) || len(outs) != 1 || len(outs[0]) != n*os {
			return op.Errorf("buffer count or size mismatch")
		}
		for i, b := range inBufs {
			if len(b) != n*sizes[i] {
				return op.Errorf("operand %d buffer has %d bytes, want %d", i, len(b), n*sizes[i])
			}
		}
		bufs := pool.Get().(*[][]byte)
		defer pool.Put(bufs)
		args, res := (*bufs)[:len(ins)], (*bufs)[len(ins):]
		for e := range n {
			for i, b := range inBufs {
				args[i] = b[e*sizes[i] : (e+1)*sizes[i]]
			}
			res[0] = outs[0][e*os : (e+1)*os]
			if err := body.Call(args, res); err != nil {
				return op.Errorf("region: %v", err)
			}
		}
		return nil
	}, nil
}
