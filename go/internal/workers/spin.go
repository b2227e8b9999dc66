package workers

import (
	"os"
	"strconv"
	"sync/atomic"
	"time"
)

// spinNanos is how long an idle worker, or a caller waiting for the last
// chunk, polls before it parks (GOJAX_SPIN_US; default 0, park at once).
// Polling saves the thread hand-offs of waking a parked locked worker, but
// on a machine whose cores are busy with other processes it loses:
// BenchmarkStepChain (50 parallel steps of ~5 us, 2 workers, load average
// 12 on 2 cores) took 850-1020 us polling for 100 us against 200-290 us
// parking at once, because a polling worker takes a chunk and is then
// descheduled, while a parked one leaves the chunks to the caller.
var spinNanos atomic.Int64

func init() {
	us := int64(0)
	if v, err := strconv.ParseInt(os.Getenv("GOJAX_SPIN_US"), 10, 64); err == nil && v >= 0 {
		us = v
	}
	spinNanos.Store(us * 1000)
}

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
