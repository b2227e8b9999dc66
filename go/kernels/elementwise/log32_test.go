package elementwise

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLog32Accuracy checks log32 and log1p32 over every float32 exponent
// (a stride through all bit patterns, plus dense runs near 0 and -1 for
// log1p and near 1 for log) against math.Log/Log1p in float64 rounded to
// float32, which is within 0.5 + 2^-29 ULP of exact: with log32.go's bound
// of 0.5 + 2^-23 ULP the two differ by at most 1 ULP, and only where the
// exact value lies that close to a rounding midpoint, so almost never.
func TestLog32Accuracy(t *testing.T) {
	type fn struct {
		name string
		f    func(float32) float32
		ref  func(float64) float64
		near float32 // a dense run of inputs around here
	}
	for _, c := range []fn{{"log1p", log1p32, math.Log1p, 0}, {"log1p", log1p32, math.Log1p, -1}, {"log", log32, math.Log, 1}} {
		n, off := 0, 0
		check := func(x float32) {
			got, want := c.f(x), float32(c.ref(float64(x)))
			u := f32ULPs(got, want)
			require.LessOrEqualf(t, u, int64(1), "%s(%v) = %v, want %v", c.name, x, got, want)
			n++
			if u != 0 {
				off++
			}
		}
		for b := uint64(0); b < 1<<32; b += 1021 {
			check(math.Float32frombits(uint32(b)))
		}
		nb := math.Float32bits(c.near)
		for d := uint32(0); d < 1<<16; d++ {
			check(math.Float32frombits(nb + d))
			check(math.Float32frombits(nb - d))
			check(math.Float32frombits((nb + d) ^ 1<<31))
		}
		t.Logf("%s near %v: %d inputs, %d not correctly rounded", c.name, c.near, n, off)
		require.LessOrEqual(t, off*100000, n, "more than 1e-5 of the results are off by one ULP")
	}
	for _, c := range []struct {
		f       func(float32) float32
		x, want float32
	}{
		{log1p32, 0, 0}, {log1p32, negz32, negz32}, {log1p32, -1, -inf32}, {log1p32, inf32, inf32},
		{log1p32, 0x1p-30, 0x1p-30}, {log1p32, -0x1p-30, -0x1p-30}, {log1p32, math.MaxFloat32, 88.72284},
		{log32, 1, 0}, {log32, 0, -inf32}, {log32, negz32, -inf32}, {log32, inf32, inf32},
		{log32, 0x1p-149, -103.27893}, {log32, 2, 0.6931472},
	} {
		require.Equalf(t, c.want, c.f(c.x), "%v", c.x)
	}
	for _, x := range []float32{nan32, -inf32, -2, -1e-30} {
		require.True(t, log32(x) != log32(x), "log(%v)", x)
	}
	for _, x := range []float32{nan32, -inf32, -2, -1.0000001} {
		require.True(t, log1p32(x) != log1p32(x), "log1p(%v)", x)
	}
}
