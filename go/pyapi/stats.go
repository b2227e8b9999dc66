package pyapi

import (
	"github.com/gojax/gojax/go/devmem"
	"github.com/gojax/gojax/go/engine"
)

// Stats is a snapshot of gojax's runtime counters (plain int64/float64
// fields so gopy maps them natively).
type Stats struct {
	// BytesInUse is device memory currently allocated.
	BytesInUse int64
	// PeakBytes is the highest BytesInUse since start or ResetPeakMemory.
	PeakBytes int64
	// NumAllocs counts device allocations ever made (buffers and temporaries).
	NumAllocs int64
	// LiveAllocations counts device allocations not yet freed.
	LiveAllocations int64
	// CachedBytes is freed device memory kept for reuse by later
	// allocations (not in BytesInUse); CacheHits counts allocations it served.
	CachedBytes int64
	CacheHits   int64
	// LiveBuffers counts PJRT buffers whose memory is not released yet.
	LiveBuffers int64
	// BuffersCreated counts PJRT buffers ever created.
	BuffersCreated int64
	// Compiles counts successful compilations, FailedCompiles failed ones.
	Compiles       int64
	FailedCompiles int64
	// CompileSeconds is the time spent in successful compilations.
	CompileSeconds float64
	// Executions counts program runs started (one per device),
	// FailedExecutions those that ended in an error.
	Executions       int64
	FailedExecutions int64
	// ExecuteSeconds is the time runs spent running.
	ExecuteSeconds float64
	// PartitionedExecutions counts SPMD runs that ran per device on their
	// shards (see docs/runtime.md, SPMD).
	PartitionedExecutions int64
}

// ReadStats returns the current counters.
func ReadStats() *Stats {
	m := devmem.ReadStats()
	r := engine.ReadStats()
	return &Stats{
		BytesInUse:            m.BytesInUse,
		PeakBytes:             m.PeakBytes,
		NumAllocs:             m.NumAllocs,
		LiveAllocations:       m.LiveAllocs,
		CachedBytes:           m.CachedBytes,
		CacheHits:             m.CacheHits,
		LiveBuffers:           r.LiveBuffers,
		BuffersCreated:        r.BuffersCreated,
		Compiles:              r.Compiles,
		FailedCompiles:        r.FailedCompiles,
		CompileSeconds:        r.CompileTime.Seconds(),
		Executions:            r.Executions,
		FailedExecutions:      r.FailedExecutions,
		ExecuteSeconds:        r.ExecuteTime.Seconds(),
		PartitionedExecutions: r.PartitionedExecutions,
	}
}

// ResetPeakMemory restarts peak tracking from the memory in use now.
func ResetPeakMemory() { devmem.ResetPeak() }
