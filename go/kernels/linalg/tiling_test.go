package linalg

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// Tilings must cover C with whole micro-tiles and at most ncBlock columns
// a tile; 784 columns on two workers split evenly (416+368, not 512+272).
func TestChooseTiling(t *testing.T) {
	r := rand.New(rand.NewSource(12))
	for range 500 {
		p := &gemmPlan{batch: 1 + r.Intn(4), m: 3 + r.Intn(1500), n: 3 + r.Intn(1500), k: 1 + r.Intn(1500)}
		mr, nr := []int{4, 14}[r.Intn(2)], []int{8, 16, 32}[r.Intn(3)]
		w := 1 + r.Intn(16)
		tl := chooseTiling(p, mr, nr, w)
		require.Zero(t, tl.mtile%mr, "%+v", p)
		require.Zero(t, tl.ncb%nr, "%+v", p)
		require.LessOrEqual(t, tl.ncb, ncBlock, "%+v", p)
		require.Equal(t, ceilDiv(p.m, tl.mtile), tl.tilesM, "%+v", p)
		require.Equal(t, ceilDiv(p.n, tl.ncb), tl.tilesN, "%+v", p)
	}
	tl := chooseTiling(&gemmPlan{batch: 1, m: 1024, n: 784, k: 256}, 14, 32, 2)
	require.Equal(t, gemmTiling{mtile: 1036, ncb: 416, tilesM: 1, tilesN: 2}, tl)
}
