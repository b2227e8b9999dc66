package elementwise

import (
	"math"
	"testing"

	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/internal/cpufeat"
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
	mul, _ := binaryScalarLoop("multiply", ir.F32, false)
	add, _ := binaryScalarLoop("add", ir.F32, false)
	tanh, _ := unaryLoopOf("stablehlo.tanh", ir.F32)
	aff, ok := unaryAffineLoop("stablehlo.tanh", ir.F32)
	require.True(t, ok)
	for _, sc := range [][2]float32{{2, 1}, {1.2345678, -0.3333333}, {1, 0.25}, {-0.5, negz32}, {0, 1}, {inf32, 0}, {1, nan32}} {
		for _, n := range []int{len(src), len(src) - 1, 15, 7, 1, 0} {
			in := byteview.Bytes(src[:n])
			want, got := make([]byte, len(in)), make([]byte, len(in))
			mul(want, in, byteview.Bytes(sc[:1]))
			add(want, want, byteview.Bytes(sc[1:]))
			tanh(want, want)
			aff(got, in, byteview.Bytes(sc[:1]), byteview.Bytes(sc[1:]))
			w, g := byteview.As[float32](want), byteview.As[float32](got)
			for i := range w {
				require.Truef(t, sameF32(g[i], w[i]),
					"tanh(%v*%v+%v): fused %v, unfused %v", src[i], sc[0], sc[1], g[i], w[i])
			}
		}
	}
	d := make([]byte, 4096)
	s, o := byteview.Bytes([]float32{2}), byteview.Bytes([]float32{1})
	require.Zero(t, testing.AllocsPerRun(10, func() { aff(d, d, s, o) }))
	_, ok = unaryAffineLoop("exponential", ir.F64)
	require.False(t, ok)
}

// The binary epilogue equals the binary loop run on the affine loop's
// result, through the public loop (widest kernel and Go tail) and through
// each vector width against the Go loop.
func TestUnaryAffineBinaryMatchesUnfused(t *testing.T) {
	var src, w []float32
	for b := uint32(0); b < 0xffffffff-65521; b += 65521 {
		src = append(src, math.Float32frombits(b))
		w = append(w, math.Float32frombits(b*7+12345))
	}
	src = append(src, 0, negz32, inf32, -inf32, nan32, 1e-4, -3e-4, 7.99, -8, 0.5, 3, 0.25)
	w = append(w, 0, 0, inf32, 2, 3, nan32, negz32, -inf32, 1e-40, 5, -1, 0.5)
	sc, off := byteview.Bytes([]float32{2}), byteview.Bytes([]float32{1})
	aff, _ := unaryAffineLoop("tanh", ir.F32)
	for _, bop := range []string{"add", "subtract", "multiply", "divide"} {
		bin, _ := binaryLoopOf(bop, ir.F32)
		for _, first := range []bool{true, false} {
			f, ok := unaryAffineBinaryLoop("stablehlo.tanh", bop, ir.F32, first)
			require.True(t, ok)
			for _, n := range []int{len(src), len(src) - 3, 9, 0} {
				want, got := make([]byte, 4*n), make([]byte, 4*n)
				aff(want, byteview.Bytes(src[:n]), sc, off)
				if first {
					bin(want, want, byteview.Bytes(w[:n]))
				} else {
					bin(want, byteview.Bytes(w[:n]), want)
				}
				f(got, byteview.Bytes(src[:n]), byteview.Bytes(w[:n]), sc, off)
				for i, g := range byteview.As[float32](got) {
					require.Truef(t, sameF32(g, byteview.As[float32](want)[i]), "%s(tanh(%v*2+1), %v) first=%v: fused %v, unfused %v",
						bop, src[i], w[i], first, g, byteview.As[float32](want)[i])
				}
			}
		}
	}
	// In place: the result over the array operand or over the source.
	for _, first := range []bool{true, false} {
		f, _ := unaryAffineBinaryLoop("tanh", "subtract", ir.F32, first)
		want := make([]byte, 4*len(src))
		f(want, byteview.Bytes(src), byteview.Bytes(w), sc, off)
		overW, overSrc := append([]float32(nil), w...), append([]float32(nil), src...)
		f(byteview.Bytes(overW), byteview.Bytes(src), byteview.Bytes(overW), sc, off)
		f(byteview.Bytes(overSrc), byteview.Bytes(overSrc), byteview.Bytes(w), sc, off)
		for i, v := range byteview.As[float32](want) {
			require.Truef(t, sameF32(overW[i], v) && sameF32(overSrc[i], v), "in place, element %d", i)
		}
	}
	n := len(src) &^ 15
	for _, k := range []struct {
		ok bool
		f  tanhKernel
	}{{cpufeat.AVX2FMA, tanh32x8}, {cpufeat.AVX512, tanh32x16}} {
		if !k.ok {
			continue
		}
		for epi := 1; epi <= 8; epi++ {
			for _, a := range []*[2]float32{nil, &testAff} {
				got, want := make([]float32, n), make([]float32, n)
				k.f(got, src[:n], a, &w[0], epi)
				tanh32Go(want, src[:n], a, w[:n], epi)
				for i := range got {
					require.Truef(t, sameF32(got[i], want[i]), "epi %d aff %v: x=%v w=%v vector %v, Go %v", epi, a != nil, src[i], w[i], got[i], want[i])
				}
			}
		}
	}
	_, ok := unaryAffineBinaryLoop("tanh", "maximum", ir.F32, true)
	require.False(t, ok)
}
