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
		require.Equal(t, !c.broadcasts, ser.direct, "%+v", c)
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
