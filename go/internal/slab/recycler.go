package slab

import "sync"

// Recycler recycles *T through a sync.Pool and keeps one modest value
// aside. A sync.Pool keeps what is put back in the putting P's private
// slot, which a goroutine that moved to another P cannot reach: it would
// build a whole new value. Only small values are kept aside, so a huge one
// is still left to the pool (which the garbage collector empties). The zero
// Recycler is ready; it is safe for concurrent use.
type Recycler[T any] struct {
	mu    sync.Mutex
	spare *T
	pool  sync.Pool
}

// Get returns the value kept aside, else one from the pool, else a new one.
func (r *Recycler[T]) Get() *T {
	r.mu.Lock()
	x := r.spare
	r.spare = nil
	r.mu.Unlock()
	if x != nil {
		return x
	}
	if x, ok := r.pool.Get().(*T); ok {
		return x
	}
	return new(T)
}

// Put takes x back, ready for reuse; small says whether it is modest
// enough to keep aside.
func (r *Recycler[T]) Put(x *T, small bool) {
	if small {
		r.mu.Lock()
		if r.spare == nil {
			r.spare, x = x, nil
		}
		r.mu.Unlock()
		if x == nil {
			return
		}
	}
	r.pool.Put(x)
}
