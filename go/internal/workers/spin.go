package workers

import (
	"sync/atomic"
	"time"

	"github.com/gojax/gojax/go/config"
)

// spinNanos is how long an idle worker, or a caller waiting for the last
// chunk, polls before it parks (GOJAX_SPIN_US; default 100 us, 0 parks at
// once). Waking a parked worker locked to its thread takes several thread
// hand-offs, while the next kernel step of a run, or the next call from a
// Python loop, usually arrives within tens of microseconds. Measured
// (BenchmarkStepChain, 50 parallel steps of ~5 us on 2 workers): quiet
// machine 119-123 us polling vs 211-218 us parking; python -m benchmarks,
// gojax/XLA time, polling vs parking: matmul f32 256² 0.77 vs 1.23,
// elementwise 1M 0.83 vs 1.43, MLP step 0.99 vs 1.08. On cores busy with
// other processes it loses (load average 12 on 2 cores: 850-1020 us vs
// 200-290 us), because a polling worker takes a chunk and is then
// descheduled while the caller waits for it; GOJAX_SPIN_US=0 suits such
// machines.
var spinNanos atomic.Int64

func init() { spinNanos.Store(config.Env().SpinMicros * 1000) }

// SetSpin sets how long idle workers poll before parking (0: never poll).
func SetSpin(d time.Duration) { spinNanos.Store(max(0, int64(d))) }

// Spin is how long idle workers poll before parking.
func Spin() time.Duration { return time.Duration(spinNanos.Load()) }

// spinUntil polls cond for up to the spin time and reports whether it
// became true.
func spinUntil(cond func() bool) bool {
	d := spinNanos.Load()
	if d <= 0 {
		return cond()
	}
	start := time.Now()
	for i := 0; ; i++ {
		if cond() {
			return true
		}
		cpuRelax()
		if i&31 == 31 && int64(time.Since(start)) > d {
			return cond()
		}
	}
}
