package pyapi

import "github.com/gojax/gojax/go/devmem"

// Stats is a snapshot of gojax's runtime counters.
type Stats struct {
	// BytesInUse is device memory currently allocated.
	BytesInUse int64
	// PeakBytes is the highest BytesInUse seen.
	PeakBytes int64
	// NumAllocs counts device allocations ever made.
	NumAllocs int64
	// LiveBuffers counts device allocations not yet freed.
	LiveBuffers int64
}

// ReadStats returns the current counters.
func ReadStats() *Stats {
	m := devmem.ReadStats()
	return &Stats{
		BytesInUse:  m.BytesInUse,
		PeakBytes:   m.PeakBytes,
		NumAllocs:   m.NumAllocs,
		LiveBuffers: m.LiveAllocs,
	}
}
