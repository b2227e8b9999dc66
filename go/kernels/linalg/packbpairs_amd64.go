//go:build amd64 && !purego

package linalg

//go:noescape
func packBPairs32Asm(dst *uint32, b *uint16, ks *int, kq, c0 int, mask uint32)

// packBPairsVec packs the len(ks)/2 whole k pairs of every panel of
// packBPairs (nr 32, unit-stride cols, kpad pairs per panel) in assembly
// and returns how many it packed per panel: 0 without AVX-512
// (packTransOK) or for other layouts.
func packBPairsVec(dst []uint32, b []uint16, ks, cols []int, nr int, unit bool, kpad int) int {
	kq := len(ks) / 2
	if !packTransOK || !unit || nr != 32 || kq == 0 || len(cols) == 0 {
		return 0
	}
	// Bounds: every row read lies within b[lo+cols[0] : hi+cols[n-1]+1].
	lo, hi := ks[0], ks[0]
	for _, o := range ks[:2*kq] {
		lo, hi = min(lo, o), max(hi, o)
	}
	if lo+cols[0] < 0 {
		return 0
	}
	_ = b[hi+cols[len(cols)-1]]
	_ = dst[(len(cols)+31)/32*32*kpad-1]
	for j0 := 0; j0 < len(cols); j0 += 32 {
		nn := min(32, len(cols)-j0)
		packBPairs32Asm(&dst[j0*kpad], &b[0], &ks[0], kq, cols[j0], uint32(1<<nn-1))
	}
	return kq
}
