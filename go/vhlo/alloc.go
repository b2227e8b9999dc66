package vhlo

import (
	"github.com/gojax/gojax/go/mlirbc"
)

// pieces hands out small capped slices of T from larger chunks, like
// internal/slab, but a caller that knows how many elements it is about to
// take can reserve them in one chunk of exactly that size: a function's ops,
// values and operand lists then cost three allocations and no slack.
type pieces[T any] struct {
	buf  []T
	next int // size of the next chunk when the reservation runs out
}

const (
	firstPiece = 16
	maxPiece   = 1024
)

// reserve makes room for n more elements in the current chunk.
func (p *pieces[T]) reserve(n int) {
	if n > cap(p.buf)-len(p.buf) {
		p.buf = make([]T, 0, n)
	}
}

// take returns n zeroed elements (nil for n == 0).
func (p *pieces[T]) take(n int) []T {
	if n <= 0 {
		return nil
	}
	if n > cap(p.buf)-len(p.buf) {
		if p.next == 0 {
			p.next = firstPiece
		}
		if n >= p.next {
			return make([]T, n)
		}
		p.buf = make([]T, 0, p.next)
		p.next = min(2*p.next, maxPiece)
	}
	lo := len(p.buf)
	p.buf = p.buf[:lo+n]
	return p.buf[lo : lo+n : lo+n]
}

// irCounts is what converting a list of generic ops allocates.
type irCounts struct{ ops, vals, refs, blockOps int }

// count adds up the ops, results and operand/result pointers of ops and of
// their regions, loading lazy regions (which converting them does anyway).
// A region that fails to load is not counted; converting its op loads it
// again and reports the error in order.
func (c *irCounts) count(ops []*mlirbc.Op) {
	for _, op := range ops {
		if op.Lazy() {
			if err := op.Load(); err != nil {
				continue
			}
		}
		c.ops++
		c.vals += len(op.Results)
		c.refs += len(op.Results) + len(op.Operands)
		for _, r := range op.Regions {
			for _, b := range r.Blocks {
				c.blockOps += len(b.Ops)
				c.refs += len(b.Args)
				c.count(b.Ops)
			}
		}
	}
}

// reserve makes room for c in the decoder's pieces.
func (d *decoder) reserve(c irCounts) {
	d.ops.reserve(c.ops)
	d.refs.reserve(c.refs)
	d.blockOps.reserve(c.blockOps)
}
