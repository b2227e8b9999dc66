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
type Rendezvous struct {
	mu      sync.Mutex
	cond    *sync.Cond
	n       int
	slots   [][]byte
	arrived int
	leaving int
	gen     uint64
	aborted bool
}

// NewRendezvous creates a rendezvous for n partitions.
func NewRendezvous(n int) *Rendezvous {
	r := &Rendezvous{n: n, slots: make([][]byte, n)}
	r.cond = sync.NewCond(&r.mu)
	return r
}

// Exchange publishes data as partition self's contribution, waits until every
// partition has published, calls read with all contributions (index =
// partition), and returns once every partition has finished reading, so no
// contribution is overwritten while a peer still reads it.
func (r *Rendezvous) Exchange(self int, data []byte, read func(all [][]byte)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.aborted {
		return ErrAborted
	}
	gen := r.gen
	r.slots[self] = data
	r.arrived++
	if r.arrived == r.n {
		r.leaving = r.n
		r.cond.Broadcast()
	}
	for r.arrived < r.n && r.gen == gen && !r.aborted {
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
	r.aborted = true
	r.cond.Broadcast()
	r.mu.Unlock()
}

// Reset makes an aborted or finished rendezvous usable for the next run.
func (r *Rendezvous) Reset() {
	r.mu.Lock()
	r.aborted, r.arrived, r.leaving = false, 0, 0
	r.gen++
	clear(r.slots)
	r.mu.Unlock()
}
