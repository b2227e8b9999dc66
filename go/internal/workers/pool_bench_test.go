package workers

import (
	"testing"
	"time"
)

// BenchmarkStepChain is a run of back-to-back parallel kernel steps of
// about 20 us each (the shape of a training step's small ops), with idle
// workers polling (the default) and parking at once.
func BenchmarkStepChain(b *testing.B) {
	for _, d := range []time.Duration{100 * time.Microsecond, 0} {
		b.Run("spin="+d.String(), func(b *testing.B) {
			setWorkers(b, 2)
			old := Spin()
			SetSpin(d)
			defer SetSpin(old)
			p := NewPool()
			buf := make([]float64, 8192)
			work := func(lo, hi int) {
				for i := lo * 1024; i < hi*1024; i++ {
					buf[i] = buf[i]*0.5 + 1
				}
			}
			b.ResetTimer()
			for b.Loop() {
				for range 50 {
					p.Parallel(8, 1, work)
				}
			}
		})
	}
}
