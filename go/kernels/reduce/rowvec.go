package reduce

// Float32 row reductions along a contiguous run (softmax's max and sum over
// the last axis). Both use 32 lanes, lane j taking elements i ≡ j (mod 32)
// in order, then fold the lanes in a fixed order, so the vector kernels
// (rowvec_amd64.s: AVX2 or AVX-512, chosen at start) and the Go loops give
// the same bits and results do not depend on the thread count.

// Kernels over n (a multiple of 32, at least 32) elements; nil: Go only.
var (
	sumLanes32 func(p *[32]float32, s *float32, n int)
	maxLanes32 func(p *[32]float32, s *float32, n int) bool
)

// sumLeaf32 is the longest run summed by lanes; longer runs are split in
// halves (pairwise), so a sum's error grows with n/sumLeaf32 as log2 and
// with the 32 adds per lane of a leaf linearly.
const sumLeaf32 = 1024

// sumSliceF32 sums s: runs under 64 elements as sumSlice does, longer ones
// by 32 lanes per leaf of at most sumLeaf32 elements, leaves pairwise.
func sumSliceF32(s []float32) float32 {
	if len(s) < 64 {
		return sumSlice(s)
	}
	if len(s) > sumLeaf32 {
		h := len(s) / 2
		return sumSliceF32(s[:h]) + sumSliceF32(s[h:])
	}
	var p [32]float32
	n := len(s) &^ 31
	if f := sumLanes32; f != nil {
		f(&p, &s[0], n)
	} else {
		for i, v := range s[:n] {
			p[i&31] += v
		}
	}
	for i := n; i < len(s); i++ {
		p[i&31] += s[i]
	}
	for w := 16; w >= 1; w /= 2 {
		for j := range w {
			p[j] += p[j+w]
		}
	}
	return p[0]
}

// maxSliceF32 is maxSliceF (IEEE maximum: NaN propagates, -0 < +0) with a
// vector scan. The scan's answer is exact unless the row holds a NaN or its
// maximum is zero (a lane may have kept -0 over +0); those rows are redone
// by maxSliceF, so results are always maxSliceF's, NaN payload included.
func maxSliceF32(s []float32) float32 {
	f := maxLanes32
	if f == nil || len(s) < 64 {
		return maxSliceF(s)
	}
	var p [32]float32
	n := len(s) &^ 31
	if f(&p, &s[0], n) {
		return maxSliceF(s)
	}
	m := p[0]
	for _, v := range p[1:] {
		m = max(m, v)
	}
	for _, v := range s[n:] {
		if v != v {
			return maxSliceF(s)
		}
		m = max(m, v)
	}
	if m == 0 {
		return maxSliceF(s)
	}
	return m
}
