package elementwise

import (
	"math"
	"testing"

	"github.com/gojax/gojax/go/internal/cpufeat"
	"github.com/stretchr/testify/require"
)

// TestExpPolyAccuracy bounds expPoly against math.Exp rounded to float32,
// subnormal results included (2^n is applied with one rounding).
func TestExpPolyAccuracy(t *testing.T) {
	worst, exact, n := int64(0), 0, 0
	for b := uint32(0); b < 0xff800000; b += 997 {
		x := math.Float32frombits(b)
		if x > 89 || x < -104 { // +Inf / 0 there, checked below
			continue
		}
		got, want := expPoly(x), float32(math.Exp(float64(x)))
		u := f32ULPs(got, want)
		require.LessOrEqualf(t, u, int64(1), "exp(%v) = %v, want %v", x, got, want)
		worst = max(worst, u)
		n++
		if u == 0 {
			exact++
		}
	}
	t.Logf("worst %d ULP, %.2f %% correctly rounded", worst, 100*float64(exact)/float64(n))
	for _, c := range []struct{ x, want float32 }{
		{0, 1}, {negz32, 1}, {inf32, inf32}, {-inf32, 0}, {88.8, inf32}, {-104, 0}, {1e30, inf32}, {-1e30, 0},
	} {
		require.Equalf(t, c.want, expPoly(c.x), "exp(%v)", c.x)
	}
	require.True(t, expPoly(nan32) != expPoly(nan32))
	require.InEpsilon(t, math.Exp(float64(float32(88.72))), float64(expPoly(88.72)), 1e-6, "just below overflow")
	require.Greater(t, expPoly(-103), float32(0), "subnormal, not flushed")
}

// TestExpVectorMatchesScalar checks every kernel this machine runs against
// expPoly bit for bit, NaNs included (both return x quieted), over a sweep
// of all float32 bit patterns and dense steps through the range where the
// result is neither 0 nor +Inf.
func TestExpVectorMatchesScalar(t *testing.T) {
	var src []float32
	for b := uint32(0); b < 0xffffffff-8191; b += 8191 {
		src = append(src, math.Float32frombits(b))
	}
	for x := float32(-105); x < 90; x += 0.00123 {
		src = append(src, x)
	}
	src = append(src, 0, negz32, inf32, -inf32, nan32, 88.72, 88.73, -87.3, -103.9, -110, 100,
		math.Float32frombits(0x7f800001), math.Float32frombits(0xffc12345))
	for len(src)%16 != 5 {
		src = append(src, 1.5)
	}
	want := make([]float32, len(src))
	for i, x := range src {
		want[i] = expPoly(x)
	}
	check := func(name string, got []float32, off int) {
		t.Helper()
		for i := range got {
			if g, w := math.Float32bits(got[i]), math.Float32bits(want[off+i]); g != w {
				t.Fatalf("%s(%v): %#x, scalar %#x", name, src[off+i], g, w)
			}
		}
	}
	got := make([]float32, len(src))
	fexp32(got, src)
	check("fexp32", got, 0)
	// Every tail length, also in place, with the AVX2 route too where
	// AVX-512 would be taken.
	wide := cpufeat.AVX512
	defer func() { cpufeat.AVX512 = wide }()
	for _, cpufeat.AVX512 = range []bool{wide, false} {
		for l := range 40 {
			o := 1000 + 3*l
			fexp32(got[:l], src[o:o+l])
			check("fexp32 tail", got[:l], o)
			in := append([]float32(nil), src[o:o+l]...)
			fexp32(in, in)
			check("fexp32 in place", in, o)
		}
	}
	cpufeat.AVX512 = wide
	n8, n16 := len(src)&^7, len(src)&^15
	if cpufeat.AVX2FMA {
		exp32x8(got[:n8], src[:n8])
		check("exp32x8", got[:n8], 0)
	}
	if cpufeat.AVX512 {
		exp32x16(got[:n16], src[:n16])
		check("exp32x16", got[:n16], 0)
	}
	require.Equal(t, uint32(0x7fc00001), math.Float32bits(expPoly(math.Float32frombits(0x7f800001))), "signalling NaN quieted")
}

func BenchmarkExp32(b *testing.B) {
	src := make([]float32, 1<<16)
	for i := range src {
		src[i] = float32(i-1<<15) / 1024
	}
	dst := make([]float32, len(src))
	b.SetBytes(int64(4 * len(src)))
	for b.Loop() {
		fexp32(dst, src)
	}
}
