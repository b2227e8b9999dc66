package mlirbc

// bump hands out capped pieces of one growing array that a File's arena
// keeps from file to file. Unlike slab.Slab it serves large requests too
// (a function body lists all its ops in one block), so once the array has
// grown to an artifact's size, reading the next one allocates nothing.
type bump[T any] struct{ buf []T }

// take returns n zeroed elements (nil for n == 0). Pieces handed out before
// a growth stay in the old array, which lives as long as they do.
func (b *bump[T]) take(n int) []T {
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

// reset zeroes what the current array handed out and makes it reusable.
func (b *bump[T]) reset() {
	clear(b.buf)
	b.buf = b.buf[:0]
}
