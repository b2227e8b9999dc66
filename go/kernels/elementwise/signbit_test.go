package elementwise

import (
	"math"
	"math/rand"
	"testing"

	"github.com/gojax/gojax/go/internal/cpufeat"
	"github.com/stretchr/testify/require"
)

// TestFloat32SignBitOps: negate and abs of f32 flip and clear the sign bit
// of every input, NaN payloads and signs included, on every vector set and
// for lengths around the vector widths (the tails run in Go).
func TestFloat32SignBitOps(t *testing.T) {
	defer useIntArith(cpufeat.Widest())
	r := rand.New(rand.NewSource(7))
	for _, isa := range cpufeat.Sets() {
		useIntArith(isa)
		for _, n := range []int{1, 7, 8, 15, 16, 17, 33, 64, 100, 1000} {
			a := make([]float32, n)
			for i := range a {
				a[i] = math.Float32frombits(r.Uint32())
			}
			a[0] = float32(math.NaN())
			d := make([]float32, n)
			fneg32(d, a)
			for i := range a {
				require.Equal(t, math.Float32bits(a[i])^1<<31, math.Float32bits(d[i]), "isa %q n %d neg %d", isa, n, i)
			}
			fabs32(d, a)
			for i := range a {
				require.Equal(t, math.Float32bits(a[i])&^(1<<31), math.Float32bits(d[i]), "isa %q n %d abs %d", isa, n, i)
			}
			fneg32(a, a) // in place, as the planner may run it
			fneg32(a, a)
			fabs32(d, a)
			for i := range a {
				require.Equal(t, math.Float32bits(a[i])&^(1<<31), math.Float32bits(d[i]))
			}
		}
	}
}
