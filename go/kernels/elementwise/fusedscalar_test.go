package elementwise_test

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gojax/gojax/go/compiler"
	"github.com/gojax/gojax/go/devmem"
	"github.com/gojax/gojax/go/ir"
)

// TestFusedScalarOperandsMatchUnfused checks the fusion's use of
// binaryScalarLoop: binary members reading a broadcast scalar, or a row
// broadcast constant over a block (softmax's x - max, e / sum), on both
// sides, must give the unfused program's bits, for rows that fill whole
// blocks, span several and cut through them.
func TestFusedScalarOperandsMatchUnfused(t *testing.T) {
	for _, rc := range [][2]int64{{6, 2048}, {5, 1536}, {40, 1024}, {3, 700}, {70, 3000}} {
		for _, et := range []ir.ElemType{ir.F32, ir.F64} {
			m := scalarFusionModule(et, rc[0], rc[1])
			r := rand.New(rand.NewPCG(uint64(rc[0]), uint64(rc[1])))
			args := [][]byte{randFloats(r, et, rc[0]*rc[1]), randFloats(r, et, rc[0]), randFloats(r, et, 1)}
			ref, err := compiler.CompileModule(m, compiler.Options{NoFuse: true})
			if err != nil {
				t.Fatal(err)
			}
			fused, err := compiler.CompileModule(m, compiler.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if fused.Stats().KernelSteps >= ref.Stats().KernelSteps {
				t.Fatalf("%v %v: nothing fused:\n%s", rc, et, fused.PlanText())
			}
			want, got := runOnce(t, ref, args), runOnce(t, fused, args)
			for k := range want {
				if string(want[k]) != string(got[k]) {
					t.Fatalf("%v %v: result %d differs from the unfused plan\n%s", rc, et, k, fused.PlanText())
				}
			}
		}
	}
}

// scalarFusionModule builds main(x[R,C], col[R], s[]) with column and scalar
// broadcasts read by subtract, divide, maximum, minimum, multiply and add.
func scalarFusionModule(et ir.ElemType, R, C int64) *ir.Module {
	tt := func(d ...int64) *ir.TensorType { return ir.Tensor(et, d...) }
	ins := []ir.Type{tt(R, C), tt(R), tt()}
	outs := []ir.Type{tt(R, C), tt(R, C)}
	blk := ir.NewBlock(ins...)
	line := 0
	v := func(name string, out ir.Type, attrs ir.Attrs, args ...*ir.Value) *ir.Value {
		op := ir.NewOp(name, args, []ir.Type{out}, attrs)
		line++
		op.Loc = &ir.Location{Name: name, File: "t.py", Line: line, Col: 1}
		return blk.Append(op).Result()
	}
	bin := func(name string, x, y *ir.Value) *ir.Value { return v("stablehlo."+name, x.Type, nil, x, y) }
	a := blk.Args
	// One broadcast per use, as JAX emits them, so each fuses with its user.
	col := func() *ir.Value {
		return v("stablehlo.broadcast_in_dim", tt(R, C), ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{Values: []int64{0}}}, a[1])
	}
	sc := func() *ir.Value {
		return v("stablehlo.broadcast_in_dim", tt(R, C), ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{}}, a[2])
	}
	x := bin("subtract", a[0], col())
	x = v("stablehlo.exponential", x.Type, nil, x)
	y := bin("divide", col(), x)
	y = bin("maximum", y, sc())
	y = bin("subtract", sc(), y)
	y = bin("minimum", sc(), y)
	z := bin("divide", x, col())
	z = bin("multiply", z, bin("subtract", col(), a[0]))
	z = bin("divide", sc(), z)
	ret := ir.NewOp("func.return", []*ir.Value{y, z}, nil, nil)
	blk.Append(ret)
	f := &ir.Func{Name: "main", Visibility: "public", Type: ir.FuncType{Inputs: ins, Results: outs}, Body: ir.NewRegion(blk)}
	f.ArgAttrs = []ir.Attrs{{}, {}, {}}
	return &ir.Module{Attrs: ir.Attrs{}, Funcs: []*ir.Func{f}}
}

// randFloats returns n values of et: normal, with NaNs, infinities and
// zeros of both signs sprinkled in.
func randFloats(r *rand.Rand, et ir.ElemType, n int64) []byte {
	special := []float64{math.NaN(), math.Inf(1), math.Copysign(0, -1), 0}
	b := make([]byte, n*int64(et.ByteSize()))
	for i := range n {
		x := r.NormFloat64() * 3
		if r.IntN(40) == 0 {
			x = special[r.IntN(len(special))]
		}
		if et == ir.F32 {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(x)))
		} else {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
		}
	}
	return b
}

func runOnce(t *testing.T, e *compiler.Executable, args [][]byte) [][]byte {
	t.Helper()
	in := make([][]byte, len(args))
	for i, a := range args {
		in[i] = append([]byte(nil), a...)
	}
	res, err := e.Run(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]byte, len(res.Outputs))
	for i, o := range res.Outputs {
		out[i] = append([]byte(nil), o...)
		if res.AliasOf[i] < 0 {
			devmem.Free(o)
		}
	}
	return out
}
