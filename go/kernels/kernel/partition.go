package kernel

import (
	"errors"
	"sync"

	"github.com/gojax/gojax/go/ir"
)

// Partition identifies which SPMD partition a plan is compiled for. The body
// of a manual computation (shard_map) is compiled once per partition; the
// collectives inside it meet their peers through the shared Rendezvous.
type Partition struct {
	Self, Count int
	Meet        *Rendezvous
}

// PartitionContext is implemented by the compiler's Context: Partition is
// nil outside a manual computation (one process, collectives are copies).
type PartitionContext interface {
	Partition() *Partition
	// CompileRegionAs compiles a region for partition p.
	CompileRegionAs(r *ir.Region, p *Partition) (Callable, error)
}

// ErrAborted is returned by Exchange when another partition failed: the
// peers it would have waited for will never arrive.
var ErrAborted = errors.New("another partition of the manual computation failed")

// Rendezvous lets the partitions of one manual computation exchange buffers.
// SPMD bodies run the same collectives in the same order on every partition,
// so the n-th Exchange of each partition meets the n-th of all others.
//
// When the partitions belong to several processes (NewRendezvousAcross),
// each process's partitions meet locally and the last one to arrive trades
// their contributions with the other processes through a Remote; then every
// local partition reads all n contributions as in one process.
type Rendezvous struct {
	mu      sync.Mutex
	cond    *sync.Cond
	n       int
	local   int    // partitions of this process
	remote  Remote // nil: every partition is local
	round   uint64 // exchanges since Reset, numbering Remote.Share calls
	slots   [][]byte
	arrived int
	leaving int
	open    bool // every contribution of this generation is in
	gen     uint64
	aborted bool
}

// Remote trades the contributions of one process's partitions with the
// other processes of a Rendezvous across processes.
type Remote interface {
	// Share publishes slots[p] for this process's partitions p as exchange
	// number round (0 after every Reset) and fills slots[q] for the other
	// processes' partitions q. Every local partition waits in the exchange
	// meanwhile, so none can fail: Share ends when the peers answer, or
	// with an error naming a peer that failed or stayed silent.
	Share(round uint64, slots [][]byte) error
}

// NewRendezvous creates a rendezvous for n partitions.
func NewRendezvous(n int) *Rendezvous {
	return NewRendezvousAcross(n, n, nil)
}

// NewRendezvousAcross creates a rendezvous for n partitions of which local
// run in this process; remote trades with the processes that run the rest.
func NewRendezvousAcross(n, local int, remote Remote) *Rendezvous {
	r := &Rendezvous{n: n, local: local, remote: remote, slots: make([][]byte, n)}
	r.cond = sync.NewCond(&r.mu)
	return r
}

// Across reports whether the partitions span processes (trades go over
// the network, so collectives should send as little as they can).
func (r *Rendezvous) Across() bool { return r != nil && r.remote != nil }

// Exchange publishes data as partition self's contribution, waits until every
// partition has published, calls read with all contributions (index =
// partition), and returns once every partition of this process has finished
// reading, so no contribution is overwritten while a peer still reads it.
// The partition whose arrival completes the local set runs the Remote's
// trade, and its error (naming the peer) is what it returns; the others get
// ErrAborted.
func (r *Rendezvous) Exchange(self int, data []byte, read func(all [][]byte)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.aborted {
		return ErrAborted
	}
	gen := r.gen
	r.slots[self] = data
	r.arrived++
	if r.arrived == r.local {
		if r.remote != nil {
			round := r.round
			r.round++
			// Unlocked while the network runs, so Abort can get in; the
			// local partitions all wait, and none touches slots.
			r.mu.Unlock()
			err := r.remote.Share(round, r.slots)
			r.mu.Lock()
			if err != nil {
				r.abortLocked()
				return err
			}
		}
		r.open = true
		r.leaving = r.local
		r.cond.Broadcast()
	}
	for !r.open && r.gen == gen && !r.aborted {
		r.cond.Wait()
	}
	if r.aborted {
		return ErrAborted
	}
	r.mu.Unlock()
	read(r.slots)
	r.mu.Lock()
	r.leaving--
	if r.leaving == 0 {
		clear(r.slots)
		r.arrived = 0
		r.open = false
		r.gen++
		r.cond.Broadcast()
	}
	for r.gen == gen && !r.aborted {
		r.cond.Wait()
	}
	if r.aborted {
		return ErrAborted
	}
	return nil
}

// Abort wakes every waiting partition with ErrAborted (a partition failed).
func (r *Rendezvous) Abort() {
	r.mu.Lock()
	r.abortLocked()
	r.mu.Unlock()
}

func (r *Rendezvous) abortLocked() {
	r.aborted = true
	r.cond.Broadcast()
}

// Reset makes an aborted or finished rendezvous usable for the next run.
func (r *Rendezvous) Reset() {
	r.mu.Lock()
	r.aborted, r.arrived, r.leaving, r.open, r.round = false, 0, 0, false, 0
	r.gen++
	clear(r.slots)
	r.mu.Unlock()
}
