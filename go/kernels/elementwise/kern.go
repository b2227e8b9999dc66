package elementwise

import (
	"strings"
	"sync"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// kern is a loop over whole elements: it fills d (len(d)/outSize elements)
// from up to three operands of the same element count. An operand of exactly
// one element where more are expected is a broadcast scalar (only clamp and
// select accept those); kernels that allow it check the length once, outside
// the loop. Unused operands are nil.
type kern func(d, a, b, c []byte)

// grain is the minimum number of elements worth handing to another worker
// for cheap ops (a few ns per element); costly ones (transcendental
// functions, complex math, emulated float types) use costlyGrain.
const (
	grain       = 32 << 10
	costlyGrain = 4 << 10
)

// costly reports ops whose per-element cost is tens of ns or more.
func costly(name string, t ir.ElemType) bool {
	if emulated(t) || t.IsComplex() && name != "add" && name != "subtract" && name != "negate" {
		return true
	}
	return !cheapOp(name)
}

// cheapOp reports ops of a few ns per element on native types.
func cheapOp(name string) bool {
	switch name {
	case "add", "subtract", "multiply", "divide", "maximum", "minimum", "negate", "abs",
		"and", "or", "xor", "not", "sign", "compare", "select", "clamp", "convert",
		"shift_left", "shift_right_logical", "shift_right_arithmetic", "popcnt",
		"count_leading_zeros", "floor", "ceil", "sqrt", "is_finite", "real", "imag",
		"complex", "bitcast_convert", "reduce_precision", "remainder":
		return true
	}
	return false
}

// plan is what a lowering resolves at compile time.
type plan struct {
	op      *ir.Op
	k       kern
	grain   int    // parallel chunk size
	n       int    // elements in the result
	outSize int    // bytes per result element
	inSize  []int  // bytes per operand element
	scalar  []bool // operand is a one-element broadcast
}

// job carries one parallel run; pooled so a Step does not allocate.
type job struct {
	p       *plan
	d       []byte
	a, b, c []byte
	fn      func(lo, hi int)
}

func (j *job) run(lo, hi int) {
	p := j.p
	j.p.k(j.d[lo*p.outSize:hi*p.outSize], j.part(0, j.a, lo, hi), j.part(1, j.b, lo, hi), j.part(2, j.c, lo, hi))
}

func (j *job) part(i int, buf []byte, lo, hi int) []byte {
	if i >= len(j.p.inSize) || j.p.scalar[i] {
		return buf
	}
	s := j.p.inSize[i]
	return buf[lo*s : hi*s]
}

// step turns a plan into a kernel.Step. Buffer sizes are checked on every
// run so a planner bug surfaces as an error naming the op, not a panic.
func (p *plan) step(ctx kernel.Context) kernel.Step {
	pool := &sync.Pool{New: func() any {
		j := &job{p: p}
		j.fn = j.run
		return j
	}}
	return func(ins, outs [][]byte) error {
		if len(ins) != len(p.inSize) || len(outs) != 1 {
			return p.op.Errorf("got %d operands and %d results, want %d and 1", len(ins), len(outs), len(p.inSize))
		}
		if len(outs[0]) != p.n*p.outSize {
			return p.op.Errorf("result buffer has %d bytes, want %d", len(outs[0]), p.n*p.outSize)
		}
		for i, b := range ins {
			want := p.n * p.inSize[i]
			if p.scalar[i] {
				want = p.inSize[i]
			}
			if len(b) != want {
				return p.op.Errorf("operand %d buffer has %d bytes, want %d", i, len(b), want)
			}
		}
		var a, b, c []byte
		switch len(ins) {
		case 3:
			c = ins[2]
			fallthrough
		case 2:
			b = ins[1]
			fallthrough
		case 1:
			a = ins[0]
		}
		if p.n < 2*p.grain || ctx == nil {
			p.k(outs[0], a, b, c)
			return nil
		}
		j := pool.Get().(*job)
		j.d, j.a, j.b, j.c = outs[0], a, b, c
		ctx.Parallel(p.n, p.grain, j.fn)
		j.d, j.a, j.b, j.c = nil, nil, nil, nil
		pool.Put(j)
		return nil
	}
}

// tensorOperands returns the tensor types of the op's operands and its single
// result, failing on tokens, tuples or a result count other than one.
func tensorOperands(op *ir.Op, nin int) ([]*ir.TensorType, *ir.TensorType, error) {
	if len(op.Operands) != nin {
		return nil, nil, op.Errorf("has %d operands, want %d", len(op.Operands), nin)
	}
	if len(op.Results) != 1 {
		return nil, nil, op.Errorf("has %d results, want 1", len(op.Results))
	}
	ins := make([]*ir.TensorType, nin)
	for i, v := range op.Operands {
		if v == nil || v.Tensor() == nil {
			return nil, nil, op.Errorf("operand %d is not a tensor", i)
		}
		ins[i] = v.Tensor()
	}
	out := op.Results[0].Tensor()
	if out == nil {
		return nil, nil, op.Errorf("result is not a tensor")
	}
	return ins, out, nil
}

// sameShape checks that every operand has the result's shape; operands whose
// index is in scalarOK may instead be rank-0 (broadcast).
func sameShape(op *ir.Op, ins []*ir.TensorType, out *ir.TensorType, scalarOK ...int) ([]bool, error) {
	scalar := make([]bool, len(ins))
	for i, t := range ins {
		if sameDims(t.Shape, out.Shape) {
			continue
		}
		ok := false
		for _, s := range scalarOK {
			if s == i && t.Rank() == 0 {
				ok = true
			}
		}
		if !ok {
			return nil, op.Errorf("operand %d has type %s, incompatible with result %s", i, t, out)
		}
		scalar[i] = true
	}
	return scalar, nil
}

func sameDims(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// newPlan builds a plan from resolved types.
func newPlan(op *ir.Op, k kern, ins []*ir.TensorType, out *ir.TensorType, scalar []bool) *plan {
	p := &plan{op: op, k: k, grain: grain, n: int(out.NumElements()), outSize: out.Elem.ByteSize(), scalar: scalar}
	name := strings.TrimPrefix(op.Name, "stablehlo.")
	if len(ins) > 0 && (costly(name, ins[len(ins)-1].Elem) || costly(name, out.Elem)) {
		p.grain = costlyGrain
	}
	p.inSize = make([]int, len(ins))
	for i, t := range ins {
		p.inSize[i] = t.Elem.ByteSize()
	}
	return p
}
