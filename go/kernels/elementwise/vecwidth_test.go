package elementwise

import (
	"math"
	"testing"

	"github.com/gojax/gojax/go/internal/cpufeat"
)

// TestExpTanhVectorWidths runs the 8- and 16-lane kernels directly (fexp32
// and ftanh32 use only the widest) against the scalar code, bit for bit.
func TestExpTanhVectorWidths(t *testing.T) {
	var src []float32
	for b := uint32(0); b < 0xffffffff-4093; b += 4093 {
		src = append(src, math.Float32frombits(b))
	}
	src = append(src, 0, negz32, inf32, -inf32, nan32, 88.72, 88.73, -87.3, -103.9, -110, 100, 1e-5, -1e-5, 9, -9)
	for len(src)%16 != 0 {
		src = append(src, 1.5)
	}
	type kernel struct {
		name   string
		ok     bool
		f      func(d, s []float32)
		scalar func(float32) float32
	}
	for _, k := range []kernel{
		{"exp32x8", cpufeat.AVX2FMA, exp32x8, expPoly},
		{"exp32x16", cpufeat.AVX512, exp32x16, expPoly},
		{"tanh32x8", cpufeat.AVX2FMA, noAff(tanh32x8), tanhRational},
		{"tanh32x16", cpufeat.AVX512, noAff(tanh32x16), tanhRational},
		{"tanh32x8 affine", cpufeat.AVX2FMA, withAff(tanh32x8), tanhAff},
		{"tanh32x16 affine", cpufeat.AVX512, withAff(tanh32x16), tanhAff},
	} {
		if !k.ok {
			t.Logf("%s: not supported here", k.name)
			continue
		}
		got := make([]float32, len(src))
		k.f(got, src)
		for i, x := range src {
			want := k.scalar(x)
			if !sameF32(got[i], want) {
				t.Fatalf("%s(%v) = %v, scalar %v", k.name, x, got[i], want)
			}
		}
	}
}

func BenchmarkExpTanhWidths(b *testing.B) {
	src := make([]float32, 1024)
	for i := range src {
		src[i] = float32(i-512) / 64
	}
	dst := make([]float32, len(src))
	for _, k := range []struct {
		name string
		ok   bool
		f    func(d, s []float32)
	}{
		{"exp/8", cpufeat.AVX2FMA, exp32x8}, {"exp/16", cpufeat.AVX512, exp32x16},
		{"tanh/8", cpufeat.AVX2FMA, noAff(tanh32x8)}, {"tanh/16", cpufeat.AVX512, noAff(tanh32x16)},
	} {
		if k.ok {
			b.Run(k.name, func(b *testing.B) {
				for b.Loop() {
					k.f(dst, src)
				}
			})
		}
	}
}

// testAff is the affine prologue the width tests use: scale and offset
// chosen so products and sums round.
var testAff = [2]float32{1.2345678, -0.3333333}

type tanhKernel = func(d, s []float32, aff *[2]float32, w *float32, epi int)

func noAff(f tanhKernel) func(d, s []float32) {
	return func(d, s []float32) { f(d, s, nil, nil, 0) }
}

func withAff(f tanhKernel) func(d, s []float32) {
	return func(d, s []float32) { f(d, s, &testAff, nil, 0) }
}

// tanhAff is the unfused multiply, add and tanh.
func tanhAff(x float32) float32 {
	m := []float32{x}
	arithF32(arMul, formVS, m, m, testAff[:1])
	arithF32(arAdd, formVS, m, m, testAff[1:])
	return tanhRational(m[0])
}
