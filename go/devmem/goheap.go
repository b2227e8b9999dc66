package devmem

import (
	"math"
	"runtime/debug"
	"sync"
)

// The Go heap holds what is not device memory: compiled programs, small
// arenas, kernel scratch. Left at Go's defaults the collector lets it grow
// to twice its live size (GOGC=100) whatever the host has left, and a Go
// allocation the system refuses ends the process. So a process hosting the
// plugin (PaceGoHeap, called when the plugin starts) gets:
//   - GOGC 50: the heap may grow 1.5x its live size between collections.
//     Steady-state runs allocate almost nothing on the Go heap, so this
//     costs collections only while compiling; three cached 2000-op
//     programs left RSS at 330-390 MiB instead of 430-530 MiB, compile
//     time within the noise (docs/runtime.md, "Out of memory").
//   - a soft memory limit (debug.SetMemoryLimit): near it the collector
//     runs early and returns freed pages at once, instead of GOGC's
//     headroom taking the last free memory. It is the memory limit when
//     one is set (SetLimit), but at least goLimitFloor, else what the host
//     could give when the plugin started (HostRoom).
//
// A GOMEMLIMIT, or a GOGC other than 100, in the environment is the user's
// choice and is left alone.

// goGCPercent is the GOGC the plugin sets.
const goGCPercent = 50

// goLimitFloor is the least soft limit: the Go heap is mostly the compiled
// programs themselves, and a limit below it would have the collector run
// without pause for a heap it cannot shrink.
const goLimitFloor = 256 << 20

var (
	goLimitMu   sync.Mutex
	goPaced     bool                                        // PaceGoHeap ran
	goLimitUser = debug.SetMemoryLimit(-1) != math.MaxInt64 // GOMEMLIMIT given
	goLimitHost int64                                       // HostRoom when paced, -1 unknown
)

// PaceGoHeap sets the Go runtime's GC pacing and soft memory limit for a
// process hosting the plugin (see above). Later calls do nothing.
func PaceGoHeap() {
	goLimitMu.Lock()
	if goPaced {
		goLimitMu.Unlock()
		return
	}
	goPaced = true
	goLimitHost = HostRoom()
	goLimitMu.Unlock()
	if prev := debug.SetGCPercent(goGCPercent); prev != 100 {
		debug.SetGCPercent(prev) // GOGC given
	}
	setGoLimit(limit.Load())
}

// setGoLimit sets the Go runtime's soft memory limit for a memory limit of
// n bytes (-1: none), once PaceGoHeap ran.
func setGoLimit(n int64) {
	goLimitMu.Lock()
	defer goLimitMu.Unlock()
	if goLimitUser || !goPaced {
		return
	}
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
