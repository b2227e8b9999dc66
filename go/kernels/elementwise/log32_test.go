package elementwise

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/gojax/gojax/go/internal/cpufeat"

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

// TestLog32VectorMatchesScalar: the slice loops (the vector loop where
// AVX-512 is in use) give log32/log1p32's bits for every input, over a
// stride through all bit patterns and dense runs, with special inputs
// (NaN, ±0, ±inf, ≤ -1, tiny) at every position of a block.
func TestLog32VectorMatchesScalar(t *testing.T) {
	var in []float32
	for b := uint64(0); b < 1<<32; b += 4093 {
		in = append(in, math.Float32frombits(uint32(b)))
	}
	for _, c := range []float32{0, 1, -1, 0x1p-29, -0x1p-29} {
		cb := math.Float32bits(c)
		for d := uint32(0); d < 5000; d++ {
			in = append(in, math.Float32frombits(cb+d), math.Float32frombits(cb-d))
		}
	}
	specials := []float32{nan32, 0, negz32, inf32, -inf32, -1, -2, 0x1p-30, -0x1p-30, math.MaxFloat32, 0x1p-149}
	for pos := range 40 {
		blk := make([]float32, 48)
		for i := range blk {
			blk[i] = 0.25 + float32(i)
		}
		blk[pos] = specials[pos%len(specials)]
		in = append(in, blk...)
	}
	r := rand.New(rand.NewSource(4))
	for range 100_000 {
		in = append(in, r.Float32()*2-1, r.Float32())
	}
	for _, c := range []struct {
		name   string
		slice  func(d, a []float32)
		scalar func(float32) float32
	}{{"log1p", flog1p32, log1p32}, {"log", flog32, log32}} {
		for _, off := range []int{0, 1, 7} { // vector blocks at every alignment and tail length
			got := make([]float32, len(in)-off)
			c.slice(got, in[off:])
			for i, x := range in[off:] {
				want := c.scalar(x)
				require.Equalf(t, math.Float32bits(want), math.Float32bits(got[i]), "%s(%v) (%#x) at %d", c.name, x, math.Float32bits(x), i)
			}
		}
	}
}

func BenchmarkLog1p32Slice(b *testing.B) {
	wide := cpufeat.AVX512
	defer func() { cpufeat.AVX512 = wide }()
	a, d := make([]float32, 1<<16), make([]float32, 1<<16)
	r := rand.New(rand.NewSource(1))
	for i := range a {
		a[i] = -r.Float32()
	}
	for _, vec := range []bool{false, wide} {
		cpufeat.AVX512 = vec
		b.Run(fmt.Sprintf("avx512=%v", vec), func(b *testing.B) {
			b.SetBytes(4 << 16)
			for range b.N {
				flog1p32(d, a)
			}
		})
	}
}
