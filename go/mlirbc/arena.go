package mlirbc

import (
	"slices"

	"github.com/gojax/gojax/go/internal/slab"
)

// arena holds the slabs of one File; lazily loaded regions share it, which is
// why Load is not safe for concurrent use (it never was: it mutates the op).
type arena struct {
	ops slab.Slab[Op]
	// Ops, regions and blocks read since the last reset (see Counts).
	nops, nregions, nblocks int
	// readers are those of isolated regions read eagerly.
	readers slab.Bump[Reader]
	// vals holds the values, at their ids; ids the lists of value ids of
	// ops and blocks. Both are pointer-free and grow by copying (ops keep
	// ranges, not slices), so the garbage collector never looks inside.
	vals []Value
	ids  idList
	// The blocks and regions of the IR and the lists that hold them.
	blks       slab.Slab[Block]
	regs       slab.Slab[Region]
	opRefs     slab.Bump[*Op]
	blockRefs  slab.Slab[*Block]
	regionRefs slab.Slab[*Region]
	// p is the one IR parser (TopLevel and Load never nest).
	p irParser
	// freeScopes keeps the storage of closed value scopes for the next.
	freeScopes []*valueScope
	// The attribute/type tables (see AttrTypes).
	recs     []entryRec
	state    []uint8
	attrVals []any
}

// newVals adds n zeroed values and returns the id of the first. The caller
// bounds n by the bytes left, so ids cannot overflow.
func (a *arena) newVals(n int) uint32 {
	first := len(a.vals)
	if n > cap(a.vals)-first {
		a.vals = slices.Grow(a.vals, n)
	}
	a.vals = a.vals[:first+n] // reslicing in place writes no pointer (no write barrier)
	clear(a.vals[first:])
	return uint32(first)
}

// idList is a growing list of value ids handed out as ranges.
type idList struct{ buf []uint32 }

// take appends n zeroed ids (bounded by the caller by the bytes left).
func (l *idList) take(n int) idRange {
	lo := len(l.buf)
	if n > cap(l.buf)-lo {
		l.buf = slices.Grow(l.buf, n)
	}
	l.buf = l.buf[:lo+n] // in place: no write barrier
	clear(l.buf[lo:])
	return idRange{uint32(lo), uint32(n)}
}

// at is the current storage of r.
func (l *idList) at(r idRange) []uint32 { return l.buf[r.lo : r.lo+r.n : r.lo+r.n] }

// parser returns the arena's IR parser, reset to read f.
func (a *arena) parser(f *File, lazy bool) *irParser {
	clear(a.p.scopes)
	a.p = irParser{f: f, lazy: lazy, scopes: a.p.scopes[:0], arena: a}
	return &a.p
}

// Counts are running totals of what reading a File's IR has built: a
// client that converts a region can size its own storage from the
// difference across loading it (see Op.LoadDeep).
type Counts struct {
	Ops, Regions, Blocks int
	// IDs counts the entries of every op's results and operands and every
	// block's arguments (NumValues gives the values).
	IDs int
}

// Counts returns the totals so far.
func (f *File) Counts() Counts {
	a := f.slabs
	if a == nil {
		return Counts{}
	}
	return Counts{Ops: a.nops, Regions: a.nregions, Blocks: a.nblocks, IDs: len(a.ids.buf)}
}

// NumValues bounds the ids of the values read so far (see File.Value).
func (f *File) NumValues() int {
	if f.slabs == nil {
		return 0
	}
	return len(f.slabs.vals)
}

func (a *arena) reset() {
	a.ops.Reset()
	a.nops, a.nregions, a.nblocks = 0, 0, 0
	a.readers.Reset()
	a.vals = a.vals[:0]
	a.ids.buf = a.ids.buf[:0]
	a.blks.Reset()
	a.regs.Reset()
	a.opRefs.Reset()
	a.blockRefs.Reset()
	a.regionRefs.Reset()
	a.p = irParser{scopes: a.p.scopes[:0]}
	clear(a.attrVals) // the memoized values belong to the released file's reader
}

// Release recycles the memory of f's ops, values and attribute/type tables.
// After it, no Op, Value, Region or Block obtained from f may be used (their
// memory is reused by the next file), nor f.AttrTypes (nil after Release);
// values already decoded from attributes and types stay valid.
func (f *File) Release() {
	if f.slabs == nil {
		return
	}
	a := f.slabs
	f.slabs = nil
	f.AttrTypes = nil
	small := a.small()
	a.reset()
	arenas.Put(a, small)
}
