package shape

import (
	"math/rand/v2"
	"testing"

	"github.com/gojax/gojax/go/internal/cpufeat"
	"github.com/stretchr/testify/require"
)

// TestTakeTableMatchesLoop: on every vector set, the table take gives the
// Go loop's results for every table size up to 16 entries, run lengths
// around the vector blocks, offsets into all three arrays, and indices
// below 0 and past the table (clamped).
func TestTakeTableMatchesLoop(t *testing.T) {
	defer useTake16(cpufeat.Widest())
	rng := rand.New(rand.NewPCG(16, 1))
	for _, isa := range cpufeat.Sets() {
		useTake16(isa)
		for size := 1; size <= tableMax+1; size++ {
			for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 31, 33, 100} {
				src := make([]uint32, size+5)
				for i := range src {
					src[i] = rng.Uint32()
				}
				ix := make([]int32, n+3)
				for i := range ix {
					switch rng.IntN(8) {
					case 0:
						ix[i] = -rng.Int32N(1 << 30)
					case 1:
						ix[i] = int32(size) + rng.Int32N(1<<30)
					case 2:
						ix[i] = rng.Int32()
					default:
						ix[i] = rng.Int32N(int32(size))
					}
				}
				r := pointRun{n: n, d0: 2, ds: 1, s0: 3, i0: 1, is: 1}
				maxStart := int64(size - 1)
				want := make([]uint32, n+4)
				takeTyped(want, src, ix, r, maxStart, 1, 0)
				got := make([]uint32, n+4)
				used := takeTable32(got, src, ix, r, maxStart, 1)
				if !used {
					takeTyped(got, src, ix, r, maxStart, 1, 0)
				}
				require.Equal(t, want, got, "isa %q size %d n %d", isa, size, n)
				require.Equal(t, isa != "" && size <= tableMax && n >= take16Block, used, "isa %q size %d n %d", isa, size, n)
			}
		}
	}
}

// BenchmarkTakeTable: 100k lookups in a 16-entry table (the poisson
// sampler's lgamma gathers), the vector set against the Go loop.
func BenchmarkTakeTable(b *testing.B) {
	defer useTake16(cpufeat.Widest())
	const n = 100000
	src, dst, ix := make([]uint32, 16), make([]uint32, n), make([]int32, n)
	for i := range ix {
		ix[i] = int32(i*7) % 16
	}
	r := pointRun{n: n, ds: 1, is: 1}
	for _, isa := range cpufeat.Sets() {
		b.Run("isa="+isa, func(b *testing.B) {
			useTake16(isa)
			for range b.N {
				if !takeTable32(dst, src, ix, r, 15, 1) {
					takeTyped(dst, src, ix, r, 15, 1, 0)
				}
			}
		})
	}
}
