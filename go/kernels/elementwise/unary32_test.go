package elementwise

import (
	"math"
	"math/rand"
	"testing"

	"github.com/gojax/gojax/go/internal/cpufeat"
	"github.com/stretchr/testify/require"
)

// TestUnary32VectorMatchesFloat64: f32 sqrt, floor, ceil,
// round_nearest_even and s32→f32 convert give, on every vector set, the
// bits of the float64 computation rounded once (the Go loops' definition),
// over a stride through all bit patterns (NaNs of every kind, infinities,
// subnormals, ±0, halves for rounding, ints past 2^24 for the convert) at
// lengths around the vector widths.
func TestUnary32VectorMatchesFloat64(t *testing.T) {
	defer useUnary32(cpufeat.Widest())
	var in []uint32
	for b := uint64(0); b < 1<<32; b += 65521 {
		in = append(in, uint32(b))
	}
	for _, f := range []float32{0.5, 1.5, 2.5, -0.5, -1.5, 0x1p23 + 0.5, 16777217, -16777217} {
		in = append(in, math.Float32bits(f))
	}
	in = append(in, 0x7f800001, 0xff800001, 0x7fc00001, 0x7fbfffff, 0x80000000, 0x00000001, 0x7fffffff, 0x80000001)
	r := rand.New(rand.NewSource(9))
	for range 20000 {
		in = append(in, r.Uint32())
	}
	type op struct {
		name string
		vec  func(d, a []float32)
		ref  func(float64) float64
	}
	ops := []op{{"sqrt", fsqrt32, math.Sqrt}, {"floor", ffloor32, math.Floor}, {"ceil", fceil32, math.Ceil},
		{"round_nearest_even", frne32, math.RoundToEven}}
	for _, isa := range cpufeat.Sets() {
		useUnary32(isa)
		for _, n := range []int{1, 15, 16, 17, 31, 32, 33, 100, len(in)} {
			a := make([]float32, n)
			s := make([]int32, n)
			for i := range a {
				a[i] = math.Float32frombits(in[i])
				s[i] = int32(in[i])
			}
			d := make([]float32, n)
			for _, o := range ops {
				o.vec(d, a)
				for i, x := range a {
					want := float32(o.ref(float64(x)))
					require.Equalf(t, math.Float32bits(want), math.Float32bits(d[i]), "isa %q %s(%#x) n %d", isa, o.name, in[i], n)
				}
			}
			convI32F32(d, s)
			for i, x := range s {
				require.Equalf(t, math.Float32bits(float32(x)), math.Float32bits(d[i]), "isa %q convert(%d)", isa, x)
			}
		}
	}
}
