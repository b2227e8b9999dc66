package kernel

import (
	"encoding/binary"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// Several rounds of exchanges: every partition sees every contribution of
// the round, and no round mixes with the next.
func TestRendezvousRounds(t *testing.T) {
	const n, rounds = 4, 200
	r := NewRendezvous(n)
	var wg sync.WaitGroup
	sums := make([]uint64, n)
	for p := 0; p < n; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			buf := make([]byte, 8)
			for k := 0; k < rounds; k++ {
				binary.LittleEndian.PutUint64(buf, uint64(k*10+p))
				require.NoError(t, r.Exchange(p, buf, func(all [][]byte) {
					for q, b := range all {
						require.Equal(t, uint64(k*10+q), binary.LittleEndian.Uint64(b))
						sums[p] += binary.LittleEndian.Uint64(b)
					}
				}))
			}
		}(p)
	}
	wg.Wait()
	for p := 1; p < n; p++ {
		require.Equal(t, sums[0], sums[p])
	}
}

// A partition that fails aborts the peers waiting for it; Reset re-arms.
func TestRendezvousAbortAndReset(t *testing.T) {
	r := NewRendezvous(2)
	done := make(chan error)
	go func() { done <- r.Exchange(0, []byte{1}, func([][]byte) {}) }()
	r.Abort()
	require.ErrorIs(t, <-done, ErrAborted)
	r.Reset()
	var wg sync.WaitGroup
	for p := 0; p < 2; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			require.NoError(t, r.Exchange(p, []byte{byte(p)}, func(all [][]byte) {
				require.Equal(t, []byte{1}, all[1])
			}))
		}(p)
	}
	wg.Wait()
}
