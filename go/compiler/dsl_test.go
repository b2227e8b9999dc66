package compiler

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync/atomic"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// A tiny IR builder for tests: functions, ops with fake source locations,
// constants, regions, while and case.

type modB struct{ m *ir.Module }

func newMod() *modB { return &modB{m: &ir.Module{Attrs: ir.Attrs{}}} }

// fn adds a function; body receives the arguments and returns the results.
func (mb *modB) fn(name, vis string, ins, outs []ir.Type, body func(b *blkB, args []*ir.Value) []*ir.Value) *ir.Func {
	blk := ir.NewBlock(ins...)
	f := &ir.Func{Name: name, Visibility: vis, Type: ir.FuncType{Inputs: ins, Results: outs}, Body: ir.NewRegion(blk)}
	f.ArgAttrs = make([]ir.Attrs, len(ins))
	for i := range f.ArgAttrs {
		f.ArgAttrs[i] = ir.Attrs{}
	}
	b := &blkB{b: blk, file: name + ".py"}
	b.ret("func.return", body(b, blk.Args)...)
	mb.m.Funcs = append(mb.m.Funcs, f)
	return f
}

type blkB struct {
	b    *ir.Block
	file string
	line *int
}

func (b *blkB) nextLoc(name string) *ir.Location {
	if b.line == nil {
		b.line = new(int)
	}
	*b.line++
	return &ir.Location{Name: name, File: b.file, Line: *b.line, Col: 1}
}

func (b *blkB) op(name string, ins []*ir.Value, outs []ir.Type, attrs ir.Attrs) *ir.Op {
	op := ir.NewOp(name, ins, outs, attrs)
	op.Loc = b.nextLoc(name)
	return b.b.Append(op)
}

func (b *blkB) v(name string, out ir.Type, attrs ir.Attrs, ins ...*ir.Value) *ir.Value {
	return b.op(name, ins, []ir.Type{out}, attrs).Result()
}

// cc is a custom call with one result.
func (b *blkB) cc(target string, out ir.Type, ins ...*ir.Value) *ir.Value {
	return b.op("stablehlo.custom_call", ins, []ir.Type{out}, ir.Attrs{
		"call_target_name": ir.StringAttr{Value: target},
		"api_version":      ir.EnumAttr{Kind: "custom_call_api_version", Value: "API_VERSION_TYPED_FFI"},
	}).Result()
}

func (b *blkB) add(x, y *ir.Value) *ir.Value { return b.cc("gojax.test.add", x.Type, x, y) }
func (b *blkB) mul(x, y *ir.Value) *ir.Value { return b.cc("gojax.test.mul", x.Type, x, y) }
func (b *blkB) lt(x, y *ir.Value) *ir.Value {
	return b.cc("gojax.test.lt", ir.Tensor(ir.Pred, x.Tensor().Shape...), x, y)
}

func (b *blkB) constant(t *ir.TensorType, data []byte) *ir.Value {
	return b.v("stablehlo.constant", t, ir.Attrs{"value": &ir.ElementsAttr{Type: t, Data: data}})
}
func (b *blkB) f32c(shape []int64, vals ...float32) *ir.Value {
	return b.constant(ir.Tensor(ir.F32, shape...), f32s(vals...))
}
func (b *blkB) i32c(v int32) *ir.Value { return b.constant(ir.Tensor(ir.S32), i32s(v)) }

func (b *blkB) ret(name string, vals ...*ir.Value) { b.op(name, vals, nil, nil) }

// region builds a one-block region sharing this builder's line counter.
func (b *blkB) region(args []ir.Type, body func(rb *blkB, args []*ir.Value) []*ir.Value) *ir.Region {
	blk := ir.NewBlock(args...)
	if b.line == nil {
		b.line = new(int)
	}
	rb := &blkB{b: blk, file: b.file, line: b.line}
	rb.ret("stablehlo.return", body(rb, blk.Args)...)
	return ir.NewRegion(blk)
}

func types(vs []*ir.Value) []ir.Type {
	out := make([]ir.Type, len(vs))
	for i, v := range vs {
		out[i] = v.Type
	}
	return out
}

func (b *blkB) while(init []*ir.Value, cond func(rb *blkB, a []*ir.Value) *ir.Value, body func(rb *blkB, a []*ir.Value) []*ir.Value) []*ir.Value {
	ts := types(init)
	op := b.op("stablehlo.while", init, ts, nil)
	op.AddRegion(b.region(ts, func(rb *blkB, a []*ir.Value) []*ir.Value { return []*ir.Value{cond(rb, a)} }))
	op.AddRegion(b.region(ts, body))
	return op.Results
}

func (b *blkB) caseOp(idx *ir.Value, res []ir.Type, branches ...func(rb *blkB) []*ir.Value) []*ir.Value {
	op := b.op("stablehlo.case", []*ir.Value{idx}, res, nil)
	for _, br := range branches {
		op.AddRegion(b.region(nil, func(rb *blkB, _ []*ir.Value) []*ir.Value { return br(rb) }))
	}
	return op.Results
}

func (b *blkB) call(callee string, outs []ir.Type, ins ...*ir.Value) []*ir.Value {
	return b.op("func.call", ins, outs, ir.Attrs{"callee": ir.SymbolRefAttr{Name: callee}}).Results
}

// Data helpers.

func f32s(vals ...float32) []byte {
	out := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(v))
	}
	return out
}

func toF32(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func i32s(vals ...int32) []byte {
	out := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(out[4*i:], uint32(v))
	}
	return out
}

func toI32(b []byte) []int32 {
	out := make([]int32, len(b)/4)
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

var (
	f32t = func(shape ...int64) *ir.TensorType { return ir.Tensor(ir.F32, shape...) }
	i32t = func(shape ...int64) *ir.TensorType { return ir.Tensor(ir.S32, shape...) }
)

// Test-only custom-call kernels (stablehlo.* names belong to the kernel
// packages). They check sizes like real kernels and count their runs.

var testSteps atomic.Int64

func init() {
	binop := func(f32 func(a, b float32) float32, i32 func(a, b int32) int32) kernel.Lower {
		return func(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
			t := op.Results[0].Tensor()
			if len(op.Operands) != 2 || t == nil {
				return nil, op.Errorf("test binop needs 2 tensor operands")
			}
			switch t.Elem {
			case ir.F32:
				return func(ins, outs [][]byte) error {
					testSteps.Add(1)
					if len(ins[0]) != len(outs[0]) || len(ins[1]) != len(outs[0]) {
						return errors.New("size mismatch")
					}
					a, bb, o := ins[0], ins[1], outs[0]
					for i := 0; i < len(o); i += 4 {
						x := math.Float32frombits(binary.LittleEndian.Uint32(a[i:]))
						y := math.Float32frombits(binary.LittleEndian.Uint32(bb[i:]))
						binary.LittleEndian.PutUint32(o[i:], math.Float32bits(f32(x, y)))
					}
					return nil
				}, nil
			case ir.S32:
				return func(ins, outs [][]byte) error {
					testSteps.Add(1)
					a, bb, o := ins[0], ins[1], outs[0]
					for i := 0; i < len(o); i += 4 {
						x := int32(binary.LittleEndian.Uint32(a[i:]))
						y := int32(binary.LittleEndian.Uint32(bb[i:]))
						binary.LittleEndian.PutUint32(o[i:], uint32(i32(x, y)))
					}
					return nil
				}, nil
			}
			return nil, op.Errorf("test binop: unsupported type %s", t)
		}
	}
	kernel.RegisterCustomCall("gojax.test.add", binop(func(a, b float32) float32 { return a + b }, func(a, b int32) int32 { return a + b }))
	kernel.RegisterCustomCall("gojax.test.mul", binop(func(a, b float32) float32 { return a * b }, func(a, b int32) int32 { return a * b }))
	kernel.RegisterCustomCall("gojax.test.lt", func(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
		t := op.Operands[0].Tensor()
		return func(ins, outs [][]byte) error {
			for i := range outs[0] {
				var less bool
				if t.Elem == ir.F32 {
					less = math.Float32frombits(binary.LittleEndian.Uint32(ins[0][4*i:])) < math.Float32frombits(binary.LittleEndian.Uint32(ins[1][4*i:]))
				} else {
					less = int32(binary.LittleEndian.Uint32(ins[0][4*i:])) < int32(binary.LittleEndian.Uint32(ins[1][4*i:]))
				}
				outs[0][i] = 0
				if less {
					outs[0][i] = 1
				}
			}
			return nil
		}, nil
	})
	kernel.RegisterCustomCall("gojax.test.fail", func(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
		return func(ins, outs [][]byte) error { return errors.New("boom") }, nil
	})
	kernel.RegisterCustomCall("gojax.test.panic", func(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
		return func(ins, outs [][]byte) error { panic("kernel bug") }, nil
	})
	kernel.RegisterCustomCall("gojax.test.badlower", func(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
		return nil, fmt.Errorf("cannot lower this shape")
	})
	// Doubles every f32 element using ctx.Parallel with a small grain.
	kernel.RegisterCustomCall("gojax.test.pdouble", func(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
		return func(ins, outs [][]byte) error {
			in, out := ins[0], outs[0]
			ctx.Parallel(len(out)/4, 8, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					x := math.Float32frombits(binary.LittleEndian.Uint32(in[4*i:]))
					binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(2*x))
				}
				runtime.Gosched()
			})
			return nil
		}, nil
	})
	// Increments in place: relies on the planner copying operand 0 into the
	// output first (output_operand_aliases).
	kernel.RegisterCustomCall("gojax.test.incinplace", func(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
		return func(ins, outs [][]byte) error {
			o := outs[0]
			for i := 0; i < len(o); i += 4 {
				x := math.Float32frombits(binary.LittleEndian.Uint32(o[i:]))
				binary.LittleEndian.PutUint32(o[i:], math.Float32bits(x+1))
			}
			return nil
		}, nil
	})
}
