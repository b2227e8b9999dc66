package reduce

import (
	"sync/atomic"

	"github.com/gojax/gojax/go/kernels/kernel"
)

// claim runs do(u, sc) for every u in [0, n) on up to procs chunks of
// ctx.Parallel that take units in order from a shared counter. The cores
// are shared with other processes: a worker the OS delays then leaves its
// units to the others, where a static split would wait for it.
func (r *fastReducer[A]) claim(ctx kernel.Context, n, procs int, do func(u int, sc *scratch[A])) {
	var next atomic.Int64
	ctx.Parallel(min(n, procs), 1, func(int, int) {
		sc := r.getScratch()
		for u := int(next.Add(1) - 1); u < n; u = int(next.Add(1) - 1) {
			do(u, sc)
		}
		r.pool.Put(sc)
	})
}
