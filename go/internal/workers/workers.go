// Package workers holds how many goroutines run kernel chunks at once.
//
// Inside the plugin, gojax keeps one more P than kernel workers
// (GOMAXPROCS = Count()+1). Every PJRT call enters Go from a C thread (a cgo
// callback); when it returns, its P stays attached to that thread in syscall
// state until Go's sysmon retakes it, 20 us to 10 ms later. With GOMAXPROCS
// equal to the worker count, the run started by Execute or the kernel pool's
// other worker waited for that P: a 1024² matmul took 8.6-9.1 ms through
// PJRT instead of 6.0 ms on the calling thread; with the spare P, 6.5-6.8 ms.
package workers

import (
	"runtime"
	"sync/atomic"
)

// n is the configured worker count; 0 means "follow GOMAXPROCS" (Go tests,
// tools and any process that never called Set).
var n atomic.Int32

// Count is the number of goroutines, the caller included, that kernels
// split their work for.
func Count() int {
	if v := n.Load(); v > 0 {
		return int(v)
	}
	return max(1, runtime.GOMAXPROCS(0))
}

// Configured reports whether Set was called.
func Configured() bool { return n.Load() > 0 }

// Set makes k the worker count and gives the process k+1 Ps. k <= 0 goes
// back to the CPUs available to the process (Go's default GOMAXPROCS, which
// follows cgroup limits and the GOMAXPROCS environment variable).
func Set(k int) {
	if k <= 0 {
		runtime.SetDefaultGOMAXPROCS()
		k = runtime.GOMAXPROCS(0)
	}
	n.Store(int32(k))
	runtime.GOMAXPROCS(k + 1)
}
