package mlirbc

import (
	"sync"

	"github.com/gojax/gojax/go/internal/slab"
)

// arena holds the slabs of one File; lazily loaded regions share it, which is
// why Load is not safe for concurrent use (it never was: it mutates the op).
type arena struct {
	ops  slab.Slab[Op]
	vals slab.Slab[Value]
	refs slab.Slab[*Value]
	// The blocks and regions of the IR and the lists that hold them.
	blks       slab.Slab[Block]
	regs       slab.Slab[Region]
	opRefs     bump[*Op]
	blockRefs  slab.Slab[*Block]
	regionRefs slab.Slab[*Region]
	// p is the one IR parser (TopLevel and Load never nest).
	p irParser
	// nvals is the number of values handed out (the next Value.ID).
	nvals uint32
	// freeScopes keeps the storage of closed value scopes for the next.
	freeScopes []*valueScope
	// The attribute/type tables (see AttrTypes).
	recs     []entryRec
	state    []uint8
	attrVals []any
}

// takeVals returns n zeroed values numbered with the next ids. The caller
// bounds n by the bytes left, so ids cannot overflow.
func (a *arena) takeVals(n int) []Value {
	vals := a.vals.Take(n)
	for i := range vals {
		vals[i].ID = a.nvals + uint32(i)
	}
	a.nvals += uint32(len(vals))
	return vals
}

// parser returns the arena's IR parser, reset to read f.
func (a *arena) parser(f *File, lazy bool) *irParser {
	clear(a.p.scopes)
	a.p = irParser{f: f, lazy: lazy, scopes: a.p.scopes[:0], arena: a}
	return &a.p
}

// NumValues bounds the ids of the values read so far (Value.ID).
func (f *File) NumValues() int {
	if f.slabs == nil {
		return 0
	}
	return int(f.slabs.nvals)
}

// arenas recycles the memory of released files: a reader that converts the
// generic ops and drops them (go/vhlo) would otherwise leave most of what it
// allocated to the garbage collector.
var arenas = sync.Pool{New: func() any { return &arena{} }}

func (a *arena) reset() {
	a.ops.Reset()
	a.vals.Reset()
	a.refs.Reset()
	a.blks.Reset()
	a.regs.Reset()
	a.opRefs.reset()
	a.blockRefs.Reset()
	a.regionRefs.Reset()
	a.p = irParser{scopes: a.p.scopes[:0]}
	a.nvals = 0
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
	a.reset()
	arenas.Put(a)
}
