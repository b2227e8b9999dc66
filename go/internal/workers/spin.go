package workers

import (
	"os"
	"strconv"
	"sync/atomic"
	"time"
)

// spinNanos is how long an idle worker, or a caller waiting for the last
// chunk, polls before it parks. Parking a locked goroutine and waking it
// costs tens of microseconds of thread hand-offs (more on a loaded machine),
// while the next kernel step of a run usually arrives within a few. Kept
// short so that an idle process gives its cores back at once.
// GOJAX_SPIN_US overrides it (0: park at once).
var spinNanos atomic.Int64

func init() {
	us := int64(100)
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
