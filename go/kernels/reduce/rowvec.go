package reduce

// Float32 row reductions along a contiguous run (softmax's max and sum over
// the last axis). Both use 64 lanes, lane j taking elements i ≡ j (mod 64)
// in order, then fold the lanes in a fixed order, so the vector kernels
// (rowvec_amd64.s: AVX2 or AVX-512, chosen at start) and the Go loops give
// the same bits and results do not depend on the thread count.

// rowISA selects the kernels (rowvec_amd64.s) over n (a multiple of 64, at
// least 64) elements: 0 Go only, 1 AVX2, 2 AVX-512. They are called
// directly, not through function values, so that the tail array passed by
// address stays on the stack.
var rowISA uint8

// sumLeaf32 is the longest run summed by lanes; longer runs are split in
// halves (pairwise), so a sum's error grows with n/sumLeaf32 as log2 and
// with the 32 adds per lane of a leaf linearly (as sumSlice's 128-element
// leaves of four accumulators).
const sumLeaf32 = 2048

// sumSliceF32 sums s: runs under 128 elements as sumSlice does, longer ones
// by 64 lanes per leaf of at most sumLeaf32 elements, leaves pairwise.
func sumSliceF32(s []float32) float32 {
	if len(s) < 128 {
		return sumSlice(s)
	}
	if len(s) > sumLeaf32 {
		h := len(s) / 2
		return sumSliceF32(s[:h]) + sumSliceF32(s[h:])
	}
	var p [64]float32
	n := len(s) &^ 63
	if rowISA != 0 {
		// Missing tail elements add +0, which changes nothing: a lane
		// starts at +0 and so never holds -0.
		var tail *[64]float32
		if n < len(s) {
			copy(p[:], s[n:])
			tail = &p
		}
		if rowISA == 2 {
			return sumLanes32Z(&s[0], n, tail)
		}
		return sumLanes32Y(&s[0], n, tail)
	}
	for i, v := range s {
		p[i&63] += v
	}
	for w := 32; w >= 1; w /= 2 {
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
	if rowISA == 0 || len(s) < 128 {
		return maxSliceF(s)
	}
	n := len(s) &^ 63
	var m float32
	var nan bool
	if rowISA == 2 {
		m, nan = maxLanes32Z(&s[0], n)
	} else {
		m, nan = maxLanes32Y(&s[0], n)
	}
	if nan {
		return maxSliceF(s)
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
