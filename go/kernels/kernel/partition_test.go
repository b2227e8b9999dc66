package kernel

import (
	"encoding/binary"
	"errors"
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

// pipeRemote joins two processes' rendezvous in memory: each sends its
// partitions' contributions on its channel and reads the other's.
type pipeRemote struct {
	mine, theirs []int // partitions of this and of the other process
	send, recv   chan [][]byte
	rounds       []uint64
	fail         error
}

func (x *pipeRemote) Share(round uint64, slots [][]byte) error {
	x.rounds = append(x.rounds, round)
	if x.fail != nil {
		return x.fail
	}
	out := make([][]byte, len(x.mine))
	for i, p := range x.mine {
		out[i] = append([]byte(nil), slots[p]...)
	}
	x.send <- out
	in := <-x.recv
	for i, q := range x.theirs {
		slots[q] = in[i]
	}
	return nil
}

// Partitions split over two processes (0 and 2 in one, 1 and 3 in the
// other) see every contribution of every round, in partition order, and
// the trades are numbered from 0 again after Reset.
func TestRendezvousAcross(t *testing.T) {
	const n, rounds = 4, 50
	ab, ba := make(chan [][]byte, 1), make(chan [][]byte, 1)
	procs := [][]int{{0, 2}, {1, 3}}
	remotes := []*pipeRemote{
		{mine: procs[0], theirs: procs[1], send: ab, recv: ba},
		{mine: procs[1], theirs: procs[0], send: ba, recv: ab},
	}
	meets := []*Rendezvous{NewRendezvousAcross(n, 2, remotes[0]), NewRendezvousAcross(n, 2, remotes[1])}
	for run := 0; run < 2; run++ {
		var wg sync.WaitGroup
		for pi, parts := range procs {
			meets[pi].Reset()
			for _, p := range parts {
				wg.Add(1)
				go func(r *Rendezvous, p int) {
					defer wg.Done()
					buf := make([]byte, 8)
					for k := 0; k < rounds; k++ {
						binary.LittleEndian.PutUint64(buf, uint64(k*10+p))
						require.NoError(t, r.Exchange(p, buf, func(all [][]byte) {
							for q, b := range all {
								require.Equal(t, uint64(k*10+q), binary.LittleEndian.Uint64(b))
							}
						}))
					}
				}(meets[pi], p)
			}
		}
		wg.Wait()
	}
	for _, x := range remotes {
		require.Len(t, x.rounds, 2*rounds)
		require.Equal(t, uint64(0), x.rounds[rounds])
		require.Equal(t, uint64(rounds-1), x.rounds[rounds-1])
	}
}

// A failed trade is the error of the partition that ran it; its local
// peers get ErrAborted.
func TestRendezvousAcrossFailure(t *testing.T) {
	boom := errors.New("process 1: closed its connection")
	r := NewRendezvousAcross(4, 2, &pipeRemote{mine: []int{0, 1}, fail: boom})
	errs := make(chan error, 2)
	for p := 0; p < 2; p++ {
		go func(p int) { errs <- r.Exchange(p, []byte{1}, func([][]byte) {}) }(p)
	}
	got := []error{<-errs, <-errs}
	if errors.Is(got[0], ErrAborted) {
		got[0], got[1] = got[1], got[0]
	}
	require.ErrorIs(t, got[0], boom)
	require.ErrorIs(t, got[1], ErrAborted)
}
