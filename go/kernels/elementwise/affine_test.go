package elementwise

import (
	"math"
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// The affine loop equals multiply, add and the unary loop run in turn, bit
// for bit, on every vector width and the Go tail, and does not allocate.
func TestUnaryAffineMatchesUnfused(t *testing.T) {
	var src []float32
	for b := uint32(0); b < 0xffffffff-8191; b += 8191 {
		src = append(src, math.Float32frombits(b))
	}
	src = append(src, 0, negz32, inf32, -inf32, nan32, 1e-4, -3e-4, 7.99, -8, 0.5, 3)
	mul, _ := BinaryScalarLoop("multiply", ir.F32, false)
	add, _ := BinaryScalarLoop("add", ir.F32, false)
	tanh, _ := UnaryLoop("stablehlo.tanh", ir.F32)
	aff, ok := UnaryAffineLoop("stablehlo.tanh", ir.F32)
	require.True(t, ok)
	for _, sc := range [][2]float32{{2, 1}, {1.2345678, -0.3333333}, {1, 0.25}, {-0.5, negz32}, {0, 1}, {inf32, 0}, {1, nan32}} {
		for _, n := range []int{len(src), len(src) - 1, 15, 7, 1, 0} {
			in := bytesOf(src[:n])
			want, got := make([]byte, len(in)), make([]byte, len(in))
			mul(want, in, bytesOf(sc[:1]))
			add(want, want, bytesOf(sc[1:]))
			tanh(want, want)
			aff(got, in, bytesOf(sc[:1]), bytesOf(sc[1:]))
			w, g := view[float32](want), view[float32](got)
			for i := range w {
				require.Truef(t, math.Float32bits(w[i]) == math.Float32bits(g[i]) || (w[i] != w[i] && g[i] != g[i]),
					"tanh(%v*%v+%v): fused %v, unfused %v", src[i], sc[0], sc[1], g[i], w[i])
			}
		}
	}
	d := make([]byte, 4096)
	s, o := bytesOf([]float32{2}), bytesOf([]float32{1})
	require.Zero(t, testing.AllocsPerRun(10, func() { aff(d, d, s, o) }))
	_, ok = UnaryAffineLoop("exponential", ir.F64)
	require.False(t, ok)
}
