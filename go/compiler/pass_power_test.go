package compiler

import (
	"math"
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// x**1, x**2, x**3 and x**-1 by a broadcast splat become multiplies and a
// divide (as in XLA's simplifier); other exponents stay power.
func TestPowerBySmallIntegerIsRewritten(t *testing.T) {
	for _, tc := range []struct {
		exp   float32
		names []string
		want  func(x float32) float32
	}{
		{1, nil, func(x float32) float32 { return x }},
		{2, []string{"stablehlo.multiply"}, func(x float32) float32 { return x * x }},
		{3, []string{"stablehlo.multiply", "stablehlo.multiply"}, func(x float32) float32 { return x * (x * x) }},
		{-1, []string{"stablehlo.constant", "stablehlo.broadcast_in_dim", "stablehlo.divide"}, func(x float32) float32 { return 1 / x }},
		{0.5, []string{"stablehlo.power"}, func(x float32) float32 { return float32(math.Pow(float64(x), 0.5)) }},
	} {
		mb := newMod()
		mb.fn("main", "public", []ir.Type{f32t(3)}, []ir.Type{f32t(3)}, func(b *blkB, a []*ir.Value) []*ir.Value {
			e := b.v("stablehlo.broadcast_in_dim", f32t(3), ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{}}, b.f32c(nil, tc.exp))
			return []*ir.Value{b.v("stablehlo.power", f32t(3), nil, a[0], e)}
		})
		st := &passState{module: mb.m, entry: mb.m.Main()}
		require.NoError(t, rewritePowers(st))
		require.NoError(t, checkInvariants(mb.m))
		var names []string
		for _, op := range mb.m.Main().Entry().Ops {
			switch op.Name {
			case "func.return":
			case "stablehlo.constant", "stablehlo.broadcast_in_dim":
				if op.Loc != nil && op.Loc.Line > 0 && op.Loc.Line <= 2 { // the exponent, now dead
					continue
				}
				names = append(names, op.Name)
			default:
				names = append(names, op.Name)
			}
		}
		require.Equal(t, tc.names, names, "exponent %v", tc.exp)

		mb2 := newMod()
		mb2.fn("main", "public", []ir.Type{f32t(3)}, []ir.Type{f32t(3)}, func(b *blkB, a []*ir.Value) []*ir.Value {
			e := b.v("stablehlo.broadcast_in_dim", f32t(3), ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{}}, b.f32c(nil, tc.exp))
			return []*ir.Value{b.v("stablehlo.power", f32t(3), nil, a[0], e)}
		})
		xs := []float32{1.1, -3, float32(math.Inf(1))}
		got := toF32(run(t, compile(t, mb2.m), f32s(xs...))[0])
		for i, x := range xs {
			if w := tc.want(x); w != w {
				require.True(t, got[i] != got[i], "%v ** %v", x, tc.exp)
				continue
			}
			require.Equal(t, math.Float32bits(tc.want(x)), math.Float32bits(got[i]), "%v ** %v", x, tc.exp)
		}
	}
}

func TestSmallIntEncodings(t *testing.T) {
	require.Equal(t, []byte{0x00, 0x3c}, encodeSmallInt(1, ir.F16))
	require.Equal(t, []byte{0x00, 0x42}, encodeSmallInt(3, ir.F16))
	require.Equal(t, []byte{0x00, 0xbc}, encodeSmallInt(-1, ir.F16))
	require.Equal(t, []byte{0x40, 0x40}, encodeSmallInt(3, ir.BF16))
	require.Len(t, encodeSmallInt(2, ir.C128), 16)
}

func TestSplatExponentComplex(t *testing.T) {
	mb := newMod()
	ct := ir.Tensor(ir.C64)
	var e *ir.Value
	mb.fn("main", "public", nil, []ir.Type{ct}, func(b *blkB, _ []*ir.Value) []*ir.Value {
		e = b.constant(ct, encodeSmallInt(-1, ir.C64))
		return []*ir.Value{e}
	})
	got, ok := splatExponent(e, ir.C64)
	require.True(t, ok)
	require.Equal(t, -1, got)
}
