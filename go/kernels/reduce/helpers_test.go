package reduce

import (
	"encoding/binary"
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/floatconv"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// fakeCtx runs Parallel in fixed-size chunks on goroutines and compiles
// regions with a tiny scalar interpreter (interp), standing in for the
// compiler that is written elsewhere.
type fakeCtx struct {
	chunk int
	calls int64
	mu    sync.Mutex
}

func (c *fakeCtx) CompileRegion(r *ir.Region) (kernel.Callable, error) {
	return &interp{r: r, ctx: c}, nil
}

func (c *fakeCtx) Parallel(n, grain int, fn func(lo, hi int)) {
	chunk := c.chunk
	if chunk <= 0 {
		chunk = max(1, grain)
	}
	var wg sync.WaitGroup
	for lo := 0; lo < n; lo += chunk {
		hi := min(n, lo+chunk)
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(lo, hi)
		}()
	}
	wg.Wait()
}

var testCtxs = []*fakeCtx{{chunk: 1 << 30}, {chunk: 1}, {chunk: 3}, {chunk: 0}}

// interp evaluates a scalar region: values are held as float64 (floats),
// int64 (ints) or bool, keyed by *ir.Value.
type interp struct {
	r   *ir.Region
	ctx *fakeCtx
}

type scalar struct {
	f float64
	i int64
	t ir.ElemType
}

func decode(b []byte, t ir.ElemType) scalar {
	s := scalar{t: t}
	switch t {
	case ir.F32:
		s.f = float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	case ir.F64:
		s.f = math.Float64frombits(binary.LittleEndian.Uint64(b))
	case ir.BF16:
		s.f = float64(floatconv.BF16ToF32(binary.LittleEndian.Uint16(b)))
	case ir.F16:
		s.f = float64(floatconv.F16ToF32(binary.LittleEndian.Uint16(b)))
	case ir.S32:
		s.i = int64(int32(binary.LittleEndian.Uint32(b)))
	case ir.U32:
		s.i = int64(binary.LittleEndian.Uint32(b))
	case ir.S64, ir.U64:
		s.i = int64(binary.LittleEndian.Uint64(b))
	case ir.Pred, ir.U8:
		s.i = int64(b[0])
	case ir.S8:
		s.i = int64(int8(b[0]))
	default:
		panic(fmt.Sprintf("interp: type %s", t))
	}
	return s
}

func encode(b []byte, s scalar) {
	switch s.t {
	case ir.F32:
		binary.LittleEndian.PutUint32(b, math.Float32bits(float32(s.f)))
	case ir.F64:
		binary.LittleEndian.PutUint64(b, math.Float64bits(s.f))
	case ir.BF16:
		binary.LittleEndian.PutUint16(b, floatconv.F32ToBF16(float32(s.f)))
	case ir.F16:
		binary.LittleEndian.PutUint16(b, floatconv.F32ToF16(float32(s.f)))
	case ir.S32, ir.U32:
		binary.LittleEndian.PutUint32(b, uint32(s.i))
	case ir.S64, ir.U64:
		binary.LittleEndian.PutUint64(b, uint64(s.i))
	case ir.Pred, ir.U8, ir.S8:
		b[0] = byte(s.i)
	}
}

func (s scalar) isF() bool { return s.t.IsFloat() }

func (in *interp) Call(ins, outs [][]byte) error {
	in.ctx.mu.Lock()
	in.ctx.calls++
	in.ctx.mu.Unlock()
	b := in.r.Blocks[0]
	env := map[*ir.Value]scalar{}
	for i, a := range b.Args {
		env[a] = decode(ins[i], a.Tensor().Elem)
	}
	for _, op := range b.Ops {
		get := func(i int) scalar {
			v := op.Operands[i]
			if s, ok := env[v]; ok {
				return s
			}
			// A constant defined outside the region (hoisted by the compiler).
			if v.Def == nil || v.Def.Name != "stablehlo.constant" {
				panic(fmt.Sprintf("interp: operand %d of %s is not visible", i, op.Name))
			}
			e, _ := v.Def.Attrs.Elements("value")
			return decode(e.Data, v.Tensor().Elem)
		}
		var r scalar
		if len(op.Results) == 1 {
			r.t = op.Results[0].Tensor().Elem
		}
		switch op.Name {
		case "stablehlo.return", "func.return":
			for i := range op.Operands {
				encode(outs[i], get(i))
			}
			return nil
		case "stablehlo.constant":
			e, _ := op.Attrs.Elements("value")
			r = decode(e.Data, r.t)
		case "stablehlo.add":
			r.f, r.i = get(0).f+get(1).f, get(0).i+get(1).i
		case "stablehlo.multiply":
			r.f, r.i = get(0).f*get(1).f, get(0).i*get(1).i
		case "stablehlo.maximum":
			r.f, r.i = math.Max(get(0).f, get(1).f), max(get(0).i, get(1).i)
		case "stablehlo.minimum":
			r.f, r.i = math.Min(get(0).f, get(1).f), min(get(0).i, get(1).i)
		case "stablehlo.and":
			r.i = get(0).i & get(1).i
		case "stablehlo.or":
			r.i = get(0).i | get(1).i
		case "stablehlo.xor":
			r.i = get(0).i ^ get(1).i
		case "stablehlo.select":
			if get(0).i != 0 {
				r = get(1)
			} else {
				r = get(2)
			}
		case "stablehlo.compare":
			dir, _ := op.Attrs.Enum("comparison_direction")
			x, y := get(0), get(1)
			var lt, eq bool
			if x.isF() {
				lt, eq = x.f < y.f, x.f == y.f
				ct, _ := op.Attrs.Enum("compare_type")
				if ct == "TOTALORDER" {
					kx, ky := totalKey(x.f), totalKey(y.f)
					lt, eq = kx < ky, kx == ky
				}
			} else if x.t.IsUnsigned() {
				lt, eq = uint64(x.i) < uint64(y.i), x.i == y.i
			} else {
				lt, eq = x.i < y.i, x.i == y.i
			}
			gt := !lt && !eq
			if x.isF() && (math.IsNaN(x.f) || math.IsNaN(y.f)) {
				if ct, _ := op.Attrs.Enum("compare_type"); ct != "TOTALORDER" {
					lt, eq, gt = false, false, false // unordered
				}
			}
			var res bool
			switch dir {
			case "LT":
				res = lt
			case "LE":
				res = lt || eq
			case "EQ":
				res = eq
			case "NE":
				res = !eq
			case "GT":
				res = gt
			case "GE":
				res = gt || eq
			}
			if res {
				r.i = 1
			}
		default:
			return fmt.Errorf("interp: unsupported op %s", op.Name)
		}
		env[op.Results[0]] = r
	}
	return fmt.Errorf("interp: no return")
}

// totalKey orders float64 values by IEEE totalOrder: negative values by
// reversed magnitude, all below +0 (so -0 < +0).
func totalKey(f float64) int64 {
	b := int64(math.Float64bits(f))
	if b < 0 {
		return -1 - b&math.MaxInt64
	}
	return b
}

func scalarT(et ir.ElemType) *ir.TensorType { return ir.Tensor(et) }

// binRegion builds ^bb(a, b): r = opName(a, b); return r.
func binRegion(opName string, et ir.ElemType) *ir.Region {
	b := ir.NewBlock(scalarT(et), scalarT(et))
	o := b.Append(ir.NewOp(opName, []*ir.Value{b.Args[0], b.Args[1]}, []ir.Type{scalarT(et)}, nil))
	b.Append(ir.NewOp("stablehlo.return", []*ir.Value{o.Result()}, nil, nil))
	return ir.NewRegion(b)
}

func mkOp(name string, operands []ir.Type, results []ir.Type, attrs ir.Attrs, regions ...*ir.Region) *ir.Op {
	vals := make([]*ir.Value, len(operands))
	for i, t := range operands {
		vals[i] = &ir.Value{Type: t}
	}
	op := ir.NewOp(name, vals, results, attrs)
	for _, r := range regions {
		op.AddRegion(r)
	}
	return op
}

func i64a(v ...int64) ir.DenseI64Attr { return ir.DenseI64Attr{Values: v} }

func runOp(t *testing.T, ctx kernel.Context, op *ir.Op, ins ...[]byte) [][]byte {
	t.Helper()
	l, ok := kernel.Lookup(op.Name)
	require.True(t, ok, "%s not registered", op.Name)
	st, err := l(ctx, op)
	require.NoError(t, err)
	outs := make([][]byte, len(op.Results))
	for i, r := range op.Results {
		if tt := r.Tensor(); tt != nil {
			outs[i] = make([]byte, tt.ByteSize())
			for j := range outs[i] {
				outs[i][j] = 0xAB
			}
		}
	}
	require.NoError(t, st(ins, outs))
	return outs
}

func lowerErr(ctx kernel.Context, op *ir.Op) error {
	l, _ := kernel.Lookup(op.Name)
	_, err := l(ctx, op)
	return err
}

func f32s(v ...float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func toF32(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func f64s(v ...float64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return b
}

func toF64(b []byte) []float64 {
	out := make([]float64, len(b)/8)
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return out
}

func i32s(v ...int32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return b
}

func toI32(b []byte) []int32 {
	out := make([]int32, len(b)/4)
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func u64s(v ...uint64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], x)
	}
	return b
}

func toU64(b []byte) []uint64 {
	out := make([]uint64, len(b)/8)
	for i := range out {
		out[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return out
}

func unravel(i int64, shape []int64) []int64 {
	idx := make([]int64, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		if shape[d] > 0 {
			idx[d] = i % shape[d]
			i /= shape[d]
		}
	}
	return idx
}

func lookupCustomCall(name string) (kernel.Lower, bool) { return kernel.LookupCustomCall(name) }

func lookupOp(name string) (kernel.Lower, bool) { return kernel.Lookup(name) }
