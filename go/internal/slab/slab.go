// Package slab hands out small slices carved from larger chunks, so a reader
// that builds thousands of ops costs a few dozen allocations instead of one or
// more per op.
//
// Pieces are capped (three-index slices): appending to one never writes into
// its neighbour. A chunk stays alive while any piece of it does, which suits
// IR that is built, used and dropped as a whole. Chunks grow geometrically, so
// a tiny module pays for a tiny chunk. A Slab is not safe for concurrent use.
package slab

const (
	first = 16
	limit = 1024
)

// Slab is the zero-value-ready allocator for one element type.
type Slab[T any] struct {
	buf  []T
	next int
	// chunks holds every chunk handed out since the last Reset; spare the
	// chunks a Reset made available again.
	chunks, spare [][]T
}

// Take returns n zeroed elements (nil for n == 0).
func (s *Slab[T]) Take(n int) []T {
	if n <= 0 {
		return nil
	}
	if n > cap(s.buf)-len(s.buf) {
		if s.next == 0 {
			s.next = first
		}
		if n >= s.next {
			return make([]T, n)
		}
		s.buf = s.chunk(n)
	}
	lo := len(s.buf)
	s.buf = s.buf[:lo+n]
	return s.buf[lo : lo+n : lo+n]
}

// Reserve makes room for n more elements, so that Takes adding up to n come
// from one allocation of exactly that size (a caller that knows what it is
// about to take pays no slack and no growth).
func (s *Slab[T]) Reserve(n int) {
	if n <= cap(s.buf)-len(s.buf) {
		return
	}
	if len(s.chunks) > 0 {
		s.chunks[len(s.chunks)-1] = s.buf // remember how much of it was used
	}
	s.buf = make([]T, 0, n)
	s.chunks = append(s.chunks, s.buf)
}

// One returns a pointer to one zeroed element.
func (s *Slab[T]) One() *T { return &s.Take(1)[0] }

// chunk starts a chunk with room for n < s.next elements: a spare one when
// the last spare is big enough (spares come in every size the slab grew
// through), else a new one.
func (s *Slab[T]) chunk(n int) []T {
	if len(s.chunks) > 0 {
		s.chunks[len(s.chunks)-1] = s.buf // remember how much of it was used
	}
	var c []T
	if k := len(s.spare); k > 0 && cap(s.spare[k-1]) >= n {
		c = s.spare[k-1]
		s.spare = s.spare[:k-1]
	} else {
		c = make([]T, 0, s.next)
		s.next = min(2*s.next, limit)
	}
	s.chunks = append(s.chunks, c)
	return c
}

// Reset makes every chunk reusable. The caller promises that nothing taken
// before the call is used after it: the used parts are zeroed (only those, so
// a Reset after little work costs little) and handed out again.
func (s *Slab[T]) Reset() {
	if len(s.chunks) > 0 {
		s.chunks[len(s.chunks)-1] = s.buf
	}
	for _, c := range s.chunks {
		clear(c)
		s.spare = append(s.spare, c[:0])
	}
	s.chunks = s.chunks[:0]
	s.buf = nil
}
