package fused

import (
	"bytes"
	"math"
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// serialCase builds a fusion over n elements: r0 = tanh(x*y + z) and, with
// broadcasts, r1 = (x * s + o) - g where s, o are broadcast scalars (fills,
// the affine fold) and g broadcasts a [cols] operand along rows (a gather).
func serialCase(n, cols int, broadcasts bool) (*ir.Op, [][]byte) {
	vec, sc := ir.Tensor(ir.F32, int64(n/cols), int64(cols)), ir.Tensor(ir.F32)
	row := ir.Tensor(ir.F32, int64(cols))
	ins := []ir.Type{vec, vec, vec}
	if broadcasts {
		ins = append(ins, sc, sc, row)
	}
	body := ir.NewBlock(ins...)
	op := func(name string, args ...*ir.Value) *ir.Value {
		return body.Append(ir.NewOp(name, args, []ir.Type{vec}, nil)).Result()
	}
	a := body.Args
	results := []*ir.Value{op("stablehlo.tanh", op("stablehlo.add", op("stablehlo.multiply", a[0], a[1]), a[2]))}
	if broadcasts {
		bc := func(v *ir.Value, dims ...int64) *ir.Value {
			return body.Append(ir.NewOp("stablehlo.broadcast_in_dim", []*ir.Value{v}, []ir.Type{vec},
				ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{Values: dims}})).Result()
		}
		s, o, g := bc(a[3]), bc(a[4]), bc(a[5], 1)
		results = append(results, op("stablehlo.subtract", op("stablehlo.add", op("stablehlo.multiply", a[0], s), o), g))
	}
	body.Append(ir.NewOp("stablehlo.return", results, nil, nil))
	outer := ir.NewBlock(ins...)
	types := make([]ir.Type, len(results))
	for i := range types {
		types[i] = vec
	}
	f := ir.NewOp(Op, outer.Args, types, nil)
	f.AddRegion(ir.NewRegion(body))
	outer.Append(f)

	var data [][]byte
	for k, t := range ins {
		m := int(t.(*ir.TensorType).NumElements())
		v := make([]float32, m)
		for i := range v {
			v[i] = float32((i*7+k*3)%23)/5 - 2
		}
		if m > 3 {
			v[1], v[2] = float32(math.NaN()), float32(math.Inf(1))
		}
		data = append(data, f32bytes(v))
	}
	return f, data
}

// TestSerialMatchesStep: a Serial computes the step's bits, for direct
// fusions and ones with fills, gathers and folded affine members, with
// results written over an operand (a loop carry updated in place) or not.
func TestSerialMatchesStep(t *testing.T) {
	for _, c := range []struct {
		n, cols    int
		broadcasts bool
	}{{1, 1, false}, {7, 7, false}, {16, 16, false}, {1024, 32, false}, {1, 1, true}, {12, 4, true}, {1024, 16, true}} {
		op, ins := serialCase(c.n, c.cols, c.broadcasts)
		ser, ok, err := NewSerial(nil, op)
		require.NoError(t, err)
		require.True(t, ok)
		// One element: the broadcasts are fills read as scalars (direct).
		require.Equal(t, !c.broadcasts || c.n == 1, ser.direct, "%+v", c)
		sc := ser.NewScratch()
		for _, inPlace := range []bool{false, true} {
			run := func(serial bool) [][]byte {
				in := make([][]byte, len(ins))
				for i := range ins {
					in[i] = bytes.Clone(ins[i])
				}
				outs := make([][]byte, len(op.Results))
				for k := range outs {
					outs[k] = bytes.Repeat([]byte{0xa5}, 4*c.n)
				}
				if inPlace {
					outs[0] = in[0]
				}
				if serial {
					ser.Run(in, outs, sc)
				} else {
					require.NoError(t, ser.Step()(in, outs))
				}
				return outs
			}
			want := run(false)
			for range 2 { // the scratch is reused
				require.Equal(t, want, run(true), "%+v in place %v", c, inPlace)
			}
		}
	}
	op, _ := serialCase(2048, 32, false)
	_, ok, err := NewSerial(nil, op)
	require.NoError(t, err)
	require.False(t, ok, "two blocks are not serial")
}

// scalarsCase: r0 = (s + t) * (s - t) with t = tanh(x) and r1 =
// clamp(lo, x*y, hi), s a broadcast scalar (the members read it as a
// scalar) and lo, hi rank-0 clamp bounds (filled): scan_grad's body.
func scalarsCase(n int) (*ir.Op, [][]byte) {
	vec, sc := ir.Tensor(ir.F32, int64(n)), ir.Tensor(ir.F32)
	ins := []ir.Type{vec, vec, sc, sc, sc}
	body := ir.NewBlock(ins...)
	op := func(name string, args ...*ir.Value) *ir.Value {
		return body.Append(ir.NewOp(name, args, []ir.Type{vec}, nil)).Result()
	}
	a := body.Args
	s := body.Append(ir.NewOp("stablehlo.broadcast_in_dim", []*ir.Value{a[2]}, []ir.Type{vec},
		ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{}})).Result()
	tt := op("stablehlo.tanh", a[0])
	r0 := op("stablehlo.multiply", op("stablehlo.add", s, tt), op("stablehlo.subtract", s, tt))
	r1 := op("stablehlo.clamp", a[3], op("stablehlo.multiply", a[0], a[1]), a[4])
	body.Append(ir.NewOp("stablehlo.return", []*ir.Value{r0, r1}, nil, nil))
	outer := ir.NewBlock(ins...)
	f := ir.NewOp(Op, outer.Args, []ir.Type{vec, vec}, nil)
	f.AddRegion(ir.NewRegion(body))
	outer.Append(f)
	var data [][]byte
	for k, t := range ins {
		m := int(t.(*ir.TensorType).NumElements())
		v := make([]float32, m)
		for i := range v {
			v[i] = float32((i*5+k*3)%19)/4 - 2
		}
		if m > 3 {
			v[1], v[2] = float32(math.NaN()), float32(math.Inf(-1))
		}
		data = append(data, f32bytes(v))
	}
	data[2], data[3], data[4] = f32bytes([]float32{1}), f32bytes([]float32{-0.5}), f32bytes([]float32{0.75})
	return f, data
}

// TestSerialDirectScalars: members reading a broadcast scalar through
// their scalar loop and filled rank-0 operands run on the direct path, with
// the step's bits (sizes 1, odd, 16, a whole block; in place or not; the
// scratch reused, with other scalars on the second call).
func TestSerialDirectScalars(t *testing.T) {
	for _, n := range []int{1, 7, 16, 1024} {
		op, ins := scalarsCase(n)
		ser, ok, err := NewSerial(nil, op)
		require.NoError(t, err)
		require.True(t, ok)
		require.True(t, ser.direct, "n=%d", n)
		sc := ser.NewScratch()
		for _, inPlace := range []bool{false, true} {
			for call, s := range []float32{1, -3} {
				ins[2] = f32bytes([]float32{s})
				run := func(serial bool) [][]byte {
					in := make([][]byte, len(ins))
					for i := range ins {
						in[i] = bytes.Clone(ins[i])
					}
					outs := [][]byte{bytes.Repeat([]byte{0xa5}, 4*n), bytes.Repeat([]byte{0x5a}, 4*n)}
					if inPlace {
						outs[1] = in[1]
					}
					if serial {
						ser.Run(in, outs, sc)
					} else {
						require.NoError(t, ser.Step()(in, outs))
					}
					return outs
				}
				require.Equal(t, run(false), run(true), "n=%d in place %v call %d", n, inPlace, call)
			}
		}
		for _, b := range sc.all[:sc.nIn+sc.nOut] {
			require.Nil(t, b, "Run leaves no reference to the call's buffers")
		}
	}
}
