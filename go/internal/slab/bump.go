package slab

// Bump hands out capped pieces of one growing array that its owner keeps
// from use to use. Unlike Slab it serves large requests too (go/mlirbc: a
// function body lists all its ops in one block), so once the array has grown to a
// workload's size, the next one allocates nothing. A Bump is not safe for
// concurrent use.
type Bump[T any] struct{ buf []T }

// Take returns n elements (nil for n == 0): zeroed, unless a Rewind left
// them as they were. Pieces handed out before a growth stay in the old
// array, which lives as long as they do.
func (b *Bump[T]) Take(n int) []T {
	if n <= 0 {
		return nil
	}
	if n > cap(b.buf)-len(b.buf) {
		b.buf = make([]T, 0, max(2*cap(b.buf), n, 64))
	}
	lo := len(b.buf)
	b.buf = b.buf[:lo+n]
	return b.buf[lo : lo+n : lo+n]
}

// Reset zeroes what the current array handed out and makes it reusable.
func (b *Bump[T]) Reset() {
	clear(b.buf)
	b.buf = b.buf[:0]
}

// Rewind makes the current array reusable without zeroing it, for a caller
// that overwrites every element it takes: clearing pointerful memory costs
// write barriers while the collector marks. Stale elements keep what they
// point to alive until overwritten.
func (b *Bump[T]) Rewind() { b.buf = b.buf[:0] }
