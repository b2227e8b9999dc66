package shape

import (
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
			p.offsets(o, ix, b)
			u := b * p.lb.outSt
			if p.vecAdd.full|p.vecAdd.tail != 0 {
				k := 0
				for _, so := range o {
					if so >= first && so <= last {
						doff[k], soff[k] = so, int64(u)
						k++
					}
					u += p.lb.outSt
				}
				p.vecAdd.run(out, upd, doff[:k], soff[:k])
				continue
			}
			for _, so := range o {
				if so >= first && so <= last {
					p.fn(out, upd, int(so), 1, u, 1, p.rowLen)
				}
				u += p.lb.outSt
			}
		}
	}
	if ctx == nil || p.lb.count*p.rowLen < parallelMinElems || p.rows < 2 {
		work(0, int(p.rows))
		return
	}
	// Each worker decodes every index: at least a quarter of the rows apiece
	// keeps that to a few passes over the indices.
	ctx.Parallel(int(p.rows), max(1, int(p.rows)/4), work)
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
