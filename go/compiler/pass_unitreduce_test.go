package compiler

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
)

// A reduce over a size-1 dimension becomes a reshape only when its init is
// the op's identity; either way the compiled program gives op(init, x).
func TestUnitReduceDroppedOnlyForIdentityInit(t *testing.T) {
	needOps(t, "stablehlo.reduce", "stablehlo.maximum", "stablehlo.minimum", "stablehlo.and", "stablehlo.add", "stablehlo.reshape")
	i32 := func(v int32) []byte { return binary.LittleEndian.AppendUint32(nil, uint32(v)) }
	f32 := func(v float32) []byte { return binary.LittleEndian.AppendUint32(nil, math.Float32bits(v)) }
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	for _, tc := range []struct {
		name    string
		elem    ir.ElemType
		op      string
		init    []byte
		dropped bool
		xs      [][]byte
		want    [][]byte
	}{
		{"s32 max lowest", ir.S32, "maximum", i32(math.MinInt32), true,
			[][]byte{i32(-5), i32(7), i32(math.MinInt32)}, [][]byte{i32(-5), i32(7), i32(math.MinInt32)}},
		{"s32 max 0", ir.S32, "maximum", i32(0), false,
			[][]byte{i32(-5), i32(7), i32(math.MinInt32)}, [][]byte{i32(0), i32(7), i32(0)}},
		{"s32 and ones", ir.S32, "and", i32(-1), true,
			[][]byte{i32(-5), i32(7), i32(0)}, [][]byte{i32(-5), i32(7), i32(0)}},
		{"s32 add 0", ir.S32, "add", i32(0), true,
			[][]byte{i32(-5), i32(7), i32(0)}, [][]byte{i32(-5), i32(7), i32(0)}},
		{"s32 add 1", ir.S32, "add", i32(1), false,
			[][]byte{i32(-5), i32(7), i32(0)}, [][]byte{i32(-4), i32(8), i32(1)}},
		{"u8 min highest", ir.U8, "minimum", []byte{255}, true,
			[][]byte{{3}, {255}, {0}}, [][]byte{{3}, {255}, {0}}},
		{"pred and true", ir.Pred, "and", []byte{1}, true,
			[][]byte{{1}, {0}, {1}}, [][]byte{{1}, {0}, {1}}},
		{"pred and false", ir.Pred, "and", []byte{0}, false,
			[][]byte{{1}, {0}, {1}}, [][]byte{{0}, {0}, {0}}},
		{"f32 max -inf", ir.F32, "maximum", f32(-inf), true,
			[][]byte{f32(-inf), f32(2.5), f32(nan)}, [][]byte{f32(-inf), f32(2.5), f32(nan)}},
		{"f32 min +inf", ir.F32, "minimum", f32(inf), true,
			[][]byte{f32(inf), f32(-2.5), f32(float32(math.Copysign(0, -1)))}, [][]byte{f32(inf), f32(-2.5), f32(float32(math.Copysign(0, -1)))}},
		{"f32 add 0 (not for -0)", ir.F32, "add", f32(0), false,
			[][]byte{f32(float32(math.Copysign(0, -1))), f32(1)}, [][]byte{f32(0), f32(1)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := int64(len(tc.xs))
			build := func() *ir.Module {
				mb := newMod()
				mb.fn("main", "public", []ir.Type{ir.Tensor(tc.elem, n, 1)}, []ir.Type{ir.Tensor(tc.elem, n)}, func(b *blkB, a []*ir.Value) []*ir.Value {
					red := b.op("stablehlo.reduce", []*ir.Value{a[0], b.constant(ir.Tensor(tc.elem), tc.init)}, []ir.Type{ir.Tensor(tc.elem, n)},
						ir.Attrs{"dimensions": ir.DenseI64Attr{Values: []int64{1}}})
					red.AddRegion(b.region([]ir.Type{ir.Tensor(tc.elem), ir.Tensor(tc.elem)}, func(rb *blkB, x []*ir.Value) []*ir.Value {
						return []*ir.Value{rb.hlo(tc.op, x[0], x[1])}
					}))
					return red.Results
				})
				return mb.m
			}
			m := build()
			st := &passState{module: m, entry: m.Main()}
			require.NoError(t, dropUnitReduces(st))
			require.NoError(t, checkInvariants(m))
			reduces := 0
			m.Main().Body.Walk(func(op *ir.Op) bool {
				if op.Name == "stablehlo.reduce" {
					reduces++
				}
				return true
			})
			require.Equal(t, tc.dropped, reduces == 0)

			var in, want []byte
			for i := range tc.xs {
				in, want = append(in, tc.xs[i]...), append(want, tc.want[i]...)
			}
			got := run(t, compile(t, build()), in)[0]
			if tc.elem == ir.F32 {
				for i := range tc.want {
					w, g := math.Float32frombits(binary.LittleEndian.Uint32(want[4*i:])), math.Float32frombits(binary.LittleEndian.Uint32(got[4*i:]))
					if w != w {
						require.True(t, g != g, "element %d", i)
						continue
					}
					require.Equal(t, math.Float32bits(w), math.Float32bits(g), "element %d", i)
				}
				return
			}
			require.Equal(t, want, got)
		})
	}
}
