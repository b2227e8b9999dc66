package engine

import (
	"sync/atomic"
	"time"

	"github.com/gojax/gojax/go/devmem"
)

// Counters are process-wide (one Go runtime per process serves every client),
// updated with atomics so reading them never blocks the runtime.
var counters struct {
	liveBuffers      atomic.Int64
	buffersCreated   atomic.Int64
	compiles         atomic.Int64
	failedCompiles   atomic.Int64
	compileNanos     atomic.Int64
	executions       atomic.Int64
	failedExecutions atomic.Int64
	executeNanos     atomic.Int64
	partitionedRuns  atomic.Int64
}

// Stats is a snapshot of the runtime's counters.
type Stats struct {
	// LiveBuffers counts buffers whose memory has not been released yet
	// (not deleted, or deleted while an execution, copy or external
	// reference still uses it).
	LiveBuffers int64
	// BuffersCreated counts buffers ever created.
	BuffersCreated int64
	// Compiles counts successful compilations (Deserialize recompiles, so it
	// counts too); FailedCompiles those that returned an error.
	Compiles       int64
	FailedCompiles int64
	// CompileTime is the time spent in successful compilations.
	CompileTime time.Duration
	// Executions counts program runs started, one per device (an SPMD
	// program counts once), at the time Execute returns; FailedExecutions
	// those that ended in an error. Calls that Execute rejects before
	// starting a run are not counted.
	Executions       int64
	FailedExecutions int64
	// ExecuteTime is the time runs spent holding a run slot (running).
	ExecuteTime time.Duration
	// PartitionedExecutions counts runs of SPMD programs that ran as
	// per-device programs on their shards (go/shardy/partition), not on
	// global arrays.
	PartitionedExecutions int64
}

// ReadStats returns the current counters.
func ReadStats() Stats {
	return Stats{
		LiveBuffers:           counters.liveBuffers.Load(),
		BuffersCreated:        counters.buffersCreated.Load(),
		Compiles:              counters.compiles.Load(),
		FailedCompiles:        counters.failedCompiles.Load(),
		CompileTime:           time.Duration(counters.compileNanos.Load()),
		Executions:            counters.executions.Load(),
		PartitionedExecutions: counters.partitionedRuns.Load(),
		FailedExecutions:      counters.failedExecutions.Load(),
		ExecuteTime:           time.Duration(counters.executeNanos.Load()),
	}
}

func countCompile(start time.Time, err error) {
	if err != nil {
		counters.failedCompiles.Add(1)
		return
	}
	counters.compiles.Add(1)
	counters.compileNanos.Add(int64(time.Since(start)))
}

// countExecutionEnd records how a started run ended, before its outputs or
// event report the error, so a caller who saw the failure sees it counted.
// running is the time it held a run slot.
func countExecutionEnd(running time.Duration, err error) {
	if err != nil {
		counters.failedExecutions.Add(1)
	}
	counters.executeNanos.Add(int64(running))
}

// markReleasedLocked records that the buffer's memory is gone for good; every
// place that sets released goes through it so LiveBuffers stays exact.
func (b *Buffer) markReleasedLocked() {
	if !b.released {
		b.released = true
		counters.liveBuffers.Add(-1)
	}
}

// discard drops a buffer that a constructor created but never handed out
// (an error after newBuffer), freeing memory it may already own.
func (b *Buffer) discard() {
	b.mu.Lock()
	b.setDeletedLocked()
	data, own := b.data, b.own
	b.data, b.own, b.release = nil, ownNone, nil
	b.markReleasedLocked()
	b.mu.Unlock()
	if own == ownDevmem {
		devmem.Free(data)
	}
}
