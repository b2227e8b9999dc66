package linalg

import (
	"math"
	"math/rand"
	"os"
	"testing"

	"github.com/gojax/gojax/go/kernels/internal/floatconv"
)

// narrowSpecials are the bit patterns where rounding or NaN handling could
// go wrong.
var narrowSpecials = []uint32{
	0, 0x80000000, // ±0
	1, 0x8000, 0x8001, 0x18000, 0x7fffff, 0x807fffff, 0x80008000, // subnormals, ties
	0x00800000, 0x3f808000, 0x3f818000, 0x3f807fff, 0x3f80ffff, 0x3f7fffff, // ties, near ties
	0x7f7fffff, 0xff7fffff, 0x7f7f8000, 0x7f7f7fff, // max finite, rounding to ±Inf
	0x7f800000, 0xff800000, // ±Inf
	0x7f800001, 0xff800001, 0x7fc00000, 0xffc00000, 0x7fbfffff, 0x7fffffff, 0xffffffff, 0x7f80ffff, 0x7fa00000, // NaNs
}

// narrowEach runs f once per narrowRowBF16 implementation this build and
// CPU offer, with that implementation selected.
func narrowEach(f func(name string)) {
	old512, old2 := narrowBF16OK512, narrowBF16OK2
	defer func() { narrowBF16OK512, narrowBF16OK2 = old512, old2 }()
	for _, v := range []struct {
		name        string
		v512, vAVX2 bool
	}{{"go", false, false}, {"avx2", false, old2}, {"avx512", old512, old2}} {
		narrowBF16OK512, narrowBF16OK2 = v.v512, v.vAVX2
		f(v.name)
	}
}

// narrowVariants runs f as a subtest per narrowRowBF16 implementation.
func narrowVariants(t *testing.T, f func(t *testing.T)) {
	narrowEach(func(name string) { t.Run(name, f) })
}

func TestNarrowRowBF16MatchesScalar(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	const maxN, pad = 100, 4
	src := make([]float32, maxN+2*pad)
	bits := make([]uint32, len(src))
	narrowVariants(t, func(t *testing.T) {
		for trial := 0; trial < 20; trial++ {
			for i := range bits {
				switch {
				case trial == 0:
					bits[i] = narrowSpecials[i%len(narrowSpecials)]
				case trial%3 == 0:
					// Near ties and near the special values.
					bits[i] = narrowSpecials[r.Intn(len(narrowSpecials))] ^ uint32(r.Intn(1<<17))
				default:
					bits[i] = r.Uint32()
				}
				src[i] = math.Float32frombits(bits[i])
			}
			for n := 0; n <= maxN; n++ {
				for off := 0; off < pad; off++ {
					dst := make([]uint16, n+2*pad)
					for i := range dst {
						dst[i] = 0xdead
					}
					narrowRowBF16(dst[off:off+n], src[off:off+n])
					for i := range dst {
						want := uint16(0xdead)
						if i >= off && i < off+n {
							want = floatconv.F32ToBF16(math.Float32frombits(bits[i]))
						}
						if dst[i] != want {
							t.Fatalf("n=%d off=%d i=%d: src %#08x: got %#04x, want %#04x", n, off, i, bits[i], dst[i], want)
						}
					}
				}
			}
		}
	})
}

// TestNarrowRowBF16Exhaustive checks every float32 bit pattern (seconds
// per variant, so only when GOJAX_EXHAUSTIVE is set).
func TestNarrowRowBF16Exhaustive(t *testing.T) {
	if os.Getenv("GOJAX_EXHAUSTIVE") == "" {
		t.Skip("set GOJAX_EXHAUSTIVE=1 to check all 2^32 inputs")
	}
	const chunk = 1 << 16
	src := make([]float32, chunk)
	dst := make([]uint16, chunk)
	narrowVariants(t, func(t *testing.T) {
		for hi := uint32(0); hi < 1<<16; hi++ {
			for i := range src {
				src[i] = math.Float32frombits(hi<<16 | uint32(i))
			}
			narrowRowBF16(dst, src)
			for i, v := range src {
				if want := floatconv.F32ToBF16(v); dst[i] != want {
					t.Fatalf("src %#08x: got %#04x, want %#04x", hi<<16|uint32(i), dst[i], want)
				}
			}
		}
	})
}

// BenchmarkNarrowRowBF16 narrows a 1024-element row (one output row of
// the 1024² bf16 dot) per variant.
func BenchmarkNarrowRowBF16(b *testing.B) {
	src := randF32(rand.New(rand.NewSource(1)), 1024)
	dst := make([]uint16, len(src))
	narrowEach(func(name string) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(6 * len(src)))
			for i := 0; i < b.N; i++ {
				narrowRowBF16(dst, src)
			}
		})
	})
}
