package linalg

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// packBPairs with the assembly must give the Go loop's panels exactly,
// padding included, into buffers holding stale data.
func TestPackBPairsVecMatchesGo(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	const ld = 150
	for _, k := range []int{1, 2, 3, 15, 16, 17, 64, 513} {
		for _, n := range []int{1, 5, 31, 32, 33, 63, 64, 100} {
			for _, order := range []string{"rows", "shuffled"} {
				ks := make([]int, k)
				for i := range ks {
					ks[i] = i * ld
				}
				if order == "shuffled" {
					r.Shuffle(k, func(i, j int) { ks[i], ks[j] = ks[j], ks[i] })
				}
				c0 := ld - n - r.Intn(ld-n+1)
				cols := make([]int, n)
				for j := range cols {
					cols[j] = c0 + j
				}
				// b ends at the last element read: the bounds checks must admit it.
				b := make([]uint16, (k-1)*ld+c0+n)
				for i := range b {
					b[i] = uint16(r.Uint32())
				}
				kp := (k + 1) / 2
				// Panels of exactly kp pairs, and padded for tile kernels.
				for _, kpad := range []int{kp, roundUp(kp, tileStep)} {
					size := (n + 31) / 32 * 32 * kpad
					want, got := make([]uint32, size), make([]uint32, size)
					for i := range want {
						want[i], got[i] = 0xdeadbeef, 0xdeadbeef
					}
					old := packTransOK
					packTransOK = false
					packBPairs(want, b, ks, cols, 32, true, kpad)
					packTransOK = old
					packBPairs(got, b, ks, cols, 32, true, kpad)
					require.Equal(t, want, got, "k=%d n=%d %s kpad=%d", k, n, order, kpad)
					for p := 0; p < len(want); p += 32 * kpad {
						for _, v := range want[p+32*kp : p+32*kpad] {
							require.Zero(t, v, "padding pair not zero")
						}
					}
				}
			}
		}
	}
}
