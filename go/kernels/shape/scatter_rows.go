package shape

import (
	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// Scatters of contiguous rows addressed by one index each (x.at[i].add(u)
// on a matrix, embedding and segment_sum gradients over rows) located each
// row through the general batch walk: an odometer, a generic index read and
// the window plan's row walk per update. The row path decodes a block of
// indices with the point path's loop and combines each row with one typed
// row call. Large ones split the operand's rows between the workers, each
// worker applying, in update order, only the updates that land in its
// rows: every element sees its updates in the serial order, so results
// are those of the serial loop bit for bit (float adds included).

// rowScatter is the plan of a row scatter.
type rowScatter struct {
	pointScatter       // index decoding (offsets of row starts); combine unused
	rowLen       int   // elements per row
	rows         int64 // valid row starts: maxStart + 1
	fn           rowFn // combines a row of updates into the operand
	es           int   // element bytes
	vecAdd       addRows
}

// addRows is a block row add in a vector set (f32 and f64 adds): the
// block's rows in one call, with the next rows' cache misses prefetched,
// instead of a row call each (four calls deep); the zero value: none.
type addRows struct {
	et         ir.ElemType
	full, tail int // full vectors per row; the tail's lane mask
}

// newRowScatter returns the row plan of a scatter whose window is one row
// contiguous in the operand and in the updates (win collapses to one
// dimension of unit strides) and no wider than an index step, with one index component and a linear
// update numbering, when kind has a row combiner for et; else nil.
func newRowScatter(ib *indexBatch, kind string, et ir.ElemType, maxStart, opStride int64, win *copyPlan) *rowScatter {
	if ib.vecLen != 1 || ib.count == 0 || maxStart < 0 || win.empty || len(win.shape) != 1 || win.ds[0] != 1 || win.ss[0] != 1 {
		return nil
	}
	if int64(win.shape[0]) > opStride {
		// Windows of neighbouring starts overlap: splitting by start would
		// not keep each element's updates in order.
		return nil
	}
	var fn rowFn
	var va addRows
	switch {
	case kind == "replace":
		fn = copyRow(et.ByteSize())
	case kind == "stablehlo.add" && (et == ir.F32 || et == ir.F64):
		fn = vectorRow(kind, et, win.shape[0])
		va = addRowsFor(et, win.shape[0])
	}
	if fn == nil {
		fn = rowFnFor(kind, et)
	}
	if fn == nil {
		return nil
	}
	lb, ok := linearize(ib)
	if !ok {
		return nil
	}
	return &rowScatter{pointScatter: pointScatter{lb: lb, ixElem: ib.idxElem, maxStart: maxStart, opStride: opStride, wrap: ib.wrap},
		rowLen: win.shape[0], rows: maxStart + 1, fn: fn, es: et.ByteSize(), vecAdd: va}
}

// rowScatterParallelMin is the fewest update elements a row scatter splits
// between workers for. Below it the work is mostly memory traffic (the
// operand's copy, rows missing the caches) that a second worker on the
// same memory shares rather than adds to, while each worker decodes every
// index and the first waits for the last: 16384 rows of 64 f32 into
// 10000 ran in about 205 us on one worker and 300-360 us on two (2-vCPU
// AMD EPYC under other jobs' load). A variable: tests lower it to split
// small scatters.
var rowScatterParallelMin = 1 << 21

// copyPiece is the most bytes one copy moves (below memmove's
// non-temporal size).
const copyPiece = 256 << 10

// run applies every update row of upd at the indices of ix to out, which
// starts as a copy of in (when they are not one buffer).
func (p *rowScatter) run(ctx kernel.Context, out, in, upd, ix []byte) {
	copyIn := !sameBuffer(out, in)
	work := func(lo, hi int) {
		if copyIn {
			// This worker's rows of the operand (the first and last
			// worker also what lies outside the rows): they are then warm
			// in its cache, and no separate pass waits for both workers.
			b0, b1 := lo*int(p.opStride)*p.es, min(len(out), hi*int(p.opStride)*p.es)
			if lo == 0 {
				b0 = 0
			}
			if int64(hi) == p.rows {
				b1 = len(out)
			}
			// In pieces: Go's copy streams past the caches from 1 MiB
			// up, and the row updates that follow would then miss to
			// memory.
			for b := b0; b < b1; b += copyPiece {
				e := min(b1, b+copyPiece)
				copy(out[b:e], in[b:e])
			}
		}
		first, last := int64(lo)*p.opStride, int64(hi-1)*p.opStride
		var offs, doff, soff [pointBlock]int64
		for b := 0; b < p.lb.count; b += pointBlock {
			o := offs[:min(pointBlock, p.lb.count-b)]
			if p.vecAdd.full|p.vecAdd.tail != 0 {
				k := p.rowsIn(doff[:len(o)], soff[:len(o)], o, ix, b, int64(lo), int64(hi))
				p.vecAdd.run(out, upd, doff[:k], soff[:k])
				continue
			}
			p.offsets(o, ix, b)
			u := b * p.lb.outSt
			for _, so := range o {
				if so >= first && so <= last {
					p.fn(out, upd, int(so), 1, u, 1, p.rowLen)
				}
				u += p.lb.outSt
			}
		}
	}
	if ctx == nil || p.lb.count*p.rowLen < rowScatterParallelMin || p.rows < 2 {
		work(0, int(p.rows))
		return
	}
	// Each worker decodes every index: at least a quarter of the rows apiece
	// keeps that to a few passes over the indices.
	ctx.Parallel(int(p.rows), max(1, int(p.rows)/4), work)
}

// rowsIn lists the updates b.. (as many as doff holds) whose row lies in
// [lo, hi): operand offsets in doff, update offsets in soff, in update
// order; it returns how many. Contiguous 32/64-bit signed indices take a
// loop without branches (half of the rows are each worker's at random, so
// a branch on it mispredicted half the time); o is scratch for the others.
func (p *rowScatter) rowsIn(doff, soff, o []int64, ix []byte, b int, lo, hi int64) int {
	if p.lb.ixSt == 1 {
		switch p.ixElem {
		case ir.S32:
			x := byteview.As[int32](ix)[b : b+len(doff)]
			return rowsInRange(doff, soff, x, b*p.lb.outSt, p.lb.outSt, lo, hi, p.wrap, p.opStride)
		case ir.S64:
			x := byteview.As[int64](ix)[b : b+len(doff)]
			return rowsInRange(doff, soff, x, b*p.lb.outSt, p.lb.outSt, lo, hi, p.wrap, p.opStride)
		}
	}
	p.offsets(o, ix, b)
	first, last := lo*p.opStride, (hi-1)*p.opStride
	k, u := 0, b*p.lb.outSt
	for _, so := range o {
		if so >= first && so <= last {
			doff[k], soff[k] = so, int64(u)
			k++
		}
		u += p.lb.outSt
	}
	return k
}

// rowsInRange is rowsIn's loop: an index v (v + wrap when negative) in
// [lo, hi) keeps the entry written at k.
func rowsInRange[I int32 | int64](doff, soff []int64, ix []I, u, us int, lo, hi, wrap, stride int64) int {
	k := 0
	soff = soff[:len(doff)]
	for _, i := range ix {
		v := int64(i)
		v += v >> 63 & wrap
		if k < len(doff) {
			doff[k], soff[k] = v*stride, int64(u)
		}
		// Negative where v < lo or v >= hi.
		k += int(1 + ((v-lo)|(hi-1-v))>>63)
		u += us
	}
	return k
}

// vectorRow returns a row combiner running the elementwise family's loop
// of the binary op kind over rows of n elements of et (vectorized where
// the family has a vector loop; every element as the op's own kernel
// computes it: for float adds the one correctly rounded sum, the scalar
// loop's bits), or nil where the family has no such loop.
func vectorRow(kind string, et ir.ElemType, n int) rowFn {
	tr := kernel.TraitsOf(kind)
	if tr.Loop == nil {
		return nil
	}
	row := ir.Tensor(et, int64(n))
	x, y := &ir.Value{Type: row}, &ir.Value{Type: row}
	loop, ok := tr.Loop(ir.NewOp(kind, []*ir.Value{x, y}, []ir.Type{row}, nil))
	if !ok || loop.F2 == nil {
		return nil
	}
	es := et.ByteSize()
	return func(dst, src []byte, d, ds, s, ss, n int) {
		if ds != 1 || ss != 1 {
			panic("vectorRow: rows must be contiguous") // newRowScatter's condition
		}
		row := dst[d*es : (d+n)*es]
		loop.F2(row, row, src[s*es:(s+n)*es])
	}
}

// copyRow returns the row combiner of replace for es-byte elements.
func copyRow(es int) rowFn {
	return func(dst, src []byte, d, ds, s, ss, n int) {
		copy(dst[d*es:(d+n)*es], src[s*es:(s+n)*es])
	}
}
