package devmem

import (
	"math"
	"runtime/debug"
	"sync"
)

// The Go heap holds what is not device memory: compiled programs, small
// arenas, kernel scratch. Go's collector lets it grow to twice its live
// size (GOGC=100) before collecting, whatever the host has left, and a Go
// allocation the system refuses ends the process. So gojax gives the
// runtime a soft memory limit (debug.SetMemoryLimit): near it the collector
// runs early and returns freed pages to the system at once, instead of
// letting GOGC's headroom take the last free memory. The limit is the
// memory limit when one is set (SetLimit), but at least goLimitFloor, else
// what the host could give when the library loaded (HostRoom). GOGC keeps Go's default: in steady
// state runs allocate almost nothing on the Go heap, so collections are
// rare and a lower GOGC only costs compile time (docs/runtime.md has the
// measurements). A GOMEMLIMIT in the environment is the user's choice and
// is left alone.

var (
	goLimitMu   sync.Mutex
	goLimitUser = debug.SetMemoryLimit(-1) != math.MaxInt64 // GOMEMLIMIT given
	goLimitHost int64                                       // HostRoom at load, -1 unknown
)

// goLimitFloor is the least soft limit: the Go heap is mostly the
// compiled programs themselves, and a limit below it would have the
// collector run without pause for a heap it cannot shrink.
const goLimitFloor = 256 << 20

func init() {
	goLimitHost = HostRoom()
	setGoLimit(limit.Load())
}

// setGoLimit sets the Go runtime's soft memory limit for a memory limit of
// n bytes (-1: none).
func setGoLimit(n int64) {
	if goLimitUser {
		return
	}
	goLimitMu.Lock()
	defer goLimitMu.Unlock()
	switch {
	case n > 0:
		debug.SetMemoryLimit(max(n, goLimitFloor))
	case goLimitHost > 0:
		debug.SetMemoryLimit(goLimitHost)
	default:
		debug.SetMemoryLimit(math.MaxInt64)
	}
}

// GoMemoryLimit returns the Go runtime's soft memory limit now.
func GoMemoryLimit() int64 { return debug.SetMemoryLimit(-1) }
