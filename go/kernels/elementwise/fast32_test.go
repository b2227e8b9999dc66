package elementwise

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// f32ULPs is the distance in float32 ulps between two float32 values.
func f32ULPs(a, b float32) int64 {
	if a == b || (a != a && b != b) {
		return 0
	}
	d := int64(totalKey32(a)) - int64(totalKey32(b))
	if d < 0 {
		d = -d
	}
	return d
}

func TestFast32AgainstFloat64Math(t *testing.T) {
	ref := map[string]struct {
		fast func(float32) float32
		slow func(float64) float64
	}{
		"logistic": {logistic32, logistic},
	}
	for name, f := range ref {
		worst := int64(0)
		for b := uint32(0); b < 1<<32-1<<12; b += 1<<12 + 1 {
			x := math.Float32frombits(b)
			got, want := f.fast(x), float32(f.slow(float64(x)))
			if u := f32ULPs(got, want); u > worst {
				worst = u
				require.LessOrEqualf(t, u, int64(1), "%s(%v) = %v, want %v", name, x, got, want)
			}
		}
		for _, x := range []float32{0, negz32, inf32, -inf32, nan32, 88.72, 88.73, -103.9, -104, 1e-30, -1e-30} {
			got, want := f.fast(x), float32(f.slow(float64(x)))
			require.Truef(t, sameF32(got, want), "%s(%v) = %v, want %v", name, x, got, want)
		}
	}
}
