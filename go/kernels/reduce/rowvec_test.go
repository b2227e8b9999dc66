package reduce

import (
	"github.com/gojax/gojax/go/internal/cpufeat"
	"math"
	"math/rand"
	"testing"
)

// refSum32 is the documented order of sumSliceF32 written out plainly.
func refSum32(s []float32) float32 {
	if len(s) < 128 {
		return sumSlice(s)
	}
	if len(s) > sumLeaf32 {
		h := len(s) / 2
		return refSum32(s[:h]) + refSum32(s[h:])
	}
	var p [64]float32
	for i, v := range s {
		p[i%64] += v
	}
	for w := 32; w >= 1; w /= 2 {
		for j := range w {
			p[j] += p[j+w]
		}
	}
	return p[0]
}

func TestRowVecMatchesGo(t *testing.T) {
	defer useRowVec(cpufeat.Widest())
	r := rand.New(rand.NewSource(3))
	negZero := float32(math.Copysign(0, -1))
	for _, isa := range cpufeat.Sets() {
		useRowVec(isa)
		for _, n := range []int{1, 5, 63, 64, 65, 127, 128, 129, 191, 192, 200, 1000, 1024, 1025, 2048, 2049, 3000, 8192} {
			s := make([]float32, n)
			for i := range s {
				s[i] = float32(r.NormFloat64()) * float32(math.Pow(10, float64(r.Intn(8)-4)))
			}
			check := func(what string, s []float32) {
				t.Helper()
				// With two NaN payloads in a sum, which one survives is the
				// hardware's choice: any NaN will do.
				if got, want := sumSliceF32(s), refSum32(s); math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
					t.Errorf("isa %q n %d %s: sum %v, want %v", isa, n, what, got, want)
				}
				if got, want := maxSliceF32(s), maxSliceF(s); math.Float32bits(got) != math.Float32bits(want) {
					t.Errorf("isa %q n %d %s: max %v (%#x), want %v (%#x)", isa, n, what, got, math.Float32bits(got), want, math.Float32bits(want))
				}
			}
			check("random", s)
			// Maximum zero with both signs of zero, at every lane position.
			z := make([]float32, n)
			for i := range z {
				z[i] = -float32(i%5) - 1
			}
			for _, pos := range []int{0, n / 3, n - 1} {
				for i := range z {
					if z[i] == 0 {
						z[i] = negZero
					}
				}
				z[pos] = 0
				if pos > 0 {
					z[pos-1] = negZero
				}
				check("zeros", z)
			}
			for i := range z {
				z[i] = negZero
			}
			check("all -0", z)
			// NaNs (two payloads: the last one wins in maxSliceF), infinities.
			for _, pos := range []int{0, n / 2, n - 1} {
				u := append([]float32(nil), s...)
				u[pos] = math.Float32frombits(0x7fc00001)
				u[n-1-pos] = math.Float32frombits(0xffc00002)
				check("nan", u)
				u = append([]float32(nil), s...)
				u[pos] = float32(math.Inf(1))
				u[n-1-pos] = float32(math.Inf(-1))
				check("inf", u)
			}
		}
	}
}

// TestRowSumAccuracy checks the lane order keeps pairwise accuracy.
func TestRowSumAccuracy(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	for _, n := range []int{1024, 8192, 1 << 16} {
		s := make([]float32, n)
		exact := 0.0
		abs := 0.0
		for i := range s {
			s[i] = float32(r.Float64()*2 - 0.5)
			exact += float64(s[i])
			abs += math.Abs(float64(s[i]))
		}
		got := float64(sumSliceF32(s))
		if e := math.Abs(got-exact) / abs; e > 1e-6 {
			t.Errorf("n %d: relative error %g", n, e)
		}
	}
}

func BenchmarkRowLeafF32(b *testing.B) {
	s := make([]float32, 1024)
	for i := range s {
		s[i] = float32(i%97) * 0.25
	}
	for _, isa := range cpufeat.Sets() {
		b.Run("sum/"+isa, func(b *testing.B) {
			defer useRowVec(cpufeat.Widest())
			useRowVec(isa)
			for range b.N {
				sumSliceF32(s)
			}
		})
		b.Run("max/"+isa, func(b *testing.B) {
			defer useRowVec(cpufeat.Widest())
			useRowVec(isa)
			for range b.N {
				maxSliceF32(s)
			}
		})
	}
	b.Run("sum/old", func(b *testing.B) {
		for range b.N {
			sumSlice(s)
		}
	})
	b.Run("max/old", func(b *testing.B) {
		for range b.N {
			maxSliceF(s)
		}
	})
}
