package verify

import (
	"github.com/gojax/gojax/go/ir"
)

// A tiny IR builder for tests: one function @main whose body is filled op by op.

type fb struct {
	m     *ir.Module
	f     *ir.Func
	block *ir.Block
}

func newFunc(args ...ir.Type) *fb {
	blk := ir.NewBlock(args...)
	f := &ir.Func{Name: "main", Visibility: "public", Type: ir.FuncType{Inputs: args}, Body: ir.NewRegion(blk)}
	return &fb{m: &ir.Module{Funcs: []*ir.Func{f}}, f: f, block: blk}
}

func (b *fb) arg(i int) *ir.Value { return b.block.Args[i] }

// op appends an op to the body and returns it.
func (b *fb) op(name string, operands []*ir.Value, results []ir.Type, attrs ir.Attrs) *ir.Op {
	op := ir.NewOp(name, operands, results, attrs)
	op.Loc = &ir.Location{Name: "test", File: "t.py", Line: 1, Col: 1}
	return b.block.Append(op)
}

// ret closes the function, returning vals; the signature follows.
func (b *fb) ret(vals ...*ir.Value) *ir.Module {
	b.op("func.return", vals, nil, nil)
	b.f.Type.Results = nil
	for _, v := range vals {
		b.f.Type.Results = append(b.f.Type.Results, v.Type)
	}
	return b.m
}

// region builds a one-block region with the given argument types; body
// fills it and returns the values for stablehlo.return.
func region(args []ir.Type, body func(blk *ir.Block) []*ir.Value) *ir.Region {
	blk := ir.NewBlock(args...)
	rets := body(blk)
	blk.Append(ir.NewOp("stablehlo.return", rets, nil, nil))
	return ir.NewRegion(blk)
}

// addBody is a scalar add reduction body for element type e.
func addBody(e ir.ElemType, n int) *ir.Region {
	args := make([]ir.Type, 2*n)
	for i := range args {
		args[i] = ir.Tensor(e)
	}
	return region(args, func(blk *ir.Block) []*ir.Value {
		var out []*ir.Value
		for i := 0; i < n; i++ {
			s := blk.Append(ir.NewOp("stablehlo.add", []*ir.Value{blk.Args[i], blk.Args[n+i]}, []ir.Type{ir.Tensor(e)}, nil))
			out = append(out, s.Result())
		}
		return out
	})
}

func tensor(e ir.ElemType, shape ...int64) *ir.TensorType { return ir.Tensor(e, shape...) }

func i64(vs ...int64) ir.DenseI64Attr { return ir.DenseI64Attr{Values: vs} }

func intA(v int64) ir.IntAttr { return ir.IntAttr{Value: v, Type: ir.S64} }

func enum(kind, v string) ir.EnumAttr { return ir.EnumAttr{Kind: kind, Value: v} }

func constant(e ir.ElemType, shape ...int64) (*ir.TensorType, ir.Attrs) {
	tt := tensor(e, shape...)
	return tt, ir.Attrs{"value": &ir.ElementsAttr{Type: tt, Data: make([]byte, tt.ByteSize())}}
}
