package mlirbc

import (
	"fmt"
	"math"
	"slices"
)

// Entry is one attribute or type entry: its dialect, whether it uses the
// dialect's custom encoding (else it is NUL-terminated assembly text), and
// its payload.
type Entry struct {
	Dialect string
	Custom  bool
	Data    []byte
	Offset  int // absolute offset of Data[0]
}

// Reader returns a reader over the entry payload.
func (e Entry) Reader(kind string) *Reader {
	return &Reader{data: e.Data, base: e.Offset, section: kind, dialect: e.Dialect}
}

// AttrTypes is the attribute and type table. Entries are decoded on demand
// by the caller; Decode memoizes results and rejects cyclic references.
//
// The table is kept compact and free of pointers (offsets into the payload,
// dialect indices): a file has an entry per unique attribute and type, and
// the garbage collector never needs to look inside these tables.
type AttrTypes struct {
	payload  section
	dialects []Dialect
	attrs    []entryRec
	types    []entryRec

	// state[i] is decodeSlot state of entry i (attributes first, then
	// types); vals and errs hold the memoized results (errs only once an
	// entry failed).
	state []uint8
	vals  []any
	errs  []error
	depth int
}

// entryRec locates one entry in the attr/type payload.
type entryRec struct {
	off, size uint32 // payload-relative
	dialect   uint32
	custom    bool
}

// NumAttrs is the number of attribute entries.
func (t *AttrTypes) NumAttrs() int { return len(t.attrs) }

// NumTypes is the number of type entries.
func (t *AttrTypes) NumTypes() int { return len(t.types) }

// Attr returns attribute entry i (0 <= i < NumAttrs).
func (t *AttrTypes) Attr(i int) Entry { return t.entry(t.attrs[i]) }

// Type returns type entry i (0 <= i < NumTypes).
func (t *AttrTypes) Type(i int) Entry { return t.entry(t.types[i]) }

func (t *AttrTypes) entry(e entryRec) Entry {
	return Entry{
		Dialect: t.dialects[e.dialect].Name,
		Custom:  e.custom,
		Data:    t.payload.data[e.off : e.off+e.size : e.off+e.size],
		Offset:  t.payload.off + int(e.off),
	}
}

const (
	slotNew uint8 = iota
	slotBusy
	slotDone
)

// MaxDecodeDepth bounds nesting of attribute/type references so hostile input
// cannot exhaust the stack. Real artifacts nest deeply only in locations
// (one CallSiteLoc per Python frame; JAX emits about a hundred).
const MaxDecodeDepth = 4096

func (f *File) readAttrTypeOffsets() error {
	r := f.sections[SectionAttrTypeOffset].reader()
	payload := f.sections[SectionAttrType]
	nAttrs, err := r.VarInt()
	if err != nil {
		return err
	}
	nTypes, err := r.VarInt()
	if err != nil {
		return err
	}
	// Each entry needs at least one size byte in the offset section.
	if nAttrs > uint64(r.Len()) || nTypes > uint64(r.Len())-nAttrs {
		return r.Errorf("%d attributes and %d types cannot fit in %d bytes", nAttrs, nTypes, r.Len())
	}
	if uint64(len(payload.data)) > math.MaxUint32 {
		return r.Errorf("attr/type section of %d bytes is too large", len(payload.data))
	}
	n := nAttrs + nTypes
	// The tables come from the arena: Release recycles them.
	a := f.arena()
	a.recs = slices.Grow(a.recs[:0], int(n))[:n]
	a.state = slices.Grow(a.state[:0], int(n))[:n]
	a.attrVals = slices.Grow(a.attrVals[:0], int(n))[:n]
	clear(a.state)
	at := &AttrTypes{
		payload:  *payload,
		dialects: f.Dialects,
		state:    a.state,
		vals:     a.attrVals,
	}
	recs := a.recs
	at.attrs, at.types = recs[:nAttrs:nAttrs], recs[nAttrs:]
	cur := uint64(0)
	fill := func(list []entryRec) error {
		i := 0
		for i < len(list) {
			d, err := r.VarInt()
			if err != nil {
				return err
			}
			if d >= uint64(len(f.Dialects)) {
				return r.Errorf("dialect index %d out of range (%d dialects)", d, len(f.Dialects))
			}
			n, err := r.VarInt()
			if err != nil {
				return err
			}
			if n > uint64(len(list)-i) {
				return r.Errorf("dialect group of %d entries overruns the %d left", n, len(list)-i)
			}
			for j := uint64(0); j < n; j++ {
				size, custom, err := r.VarIntWithFlag()
				if err != nil {
					return err
				}
				if size > uint64(len(payload.data))-cur {
					return r.Errorf("entry of %d bytes at payload offset %d overruns the attr/type section (%d bytes)", size, cur, len(payload.data))
				}
				list[i] = entryRec{off: uint32(cur), size: uint32(size), dialect: uint32(d), custom: custom}
				cur += size
				i++
			}
		}
		return nil
	}
	if err := fill(at.attrs); err != nil {
		return err
	}
	if err := fill(at.types); err != nil {
		return err
	}
	if !r.Empty() {
		return r.Errorf("%d trailing bytes in the attr/type offset section", r.Len())
	}
	f.AttrTypes = at
	return nil
}

// DecodeAttr decodes attribute idx with fn, once; later calls return the
// memoized result. A reference cycle or excessive nesting is an error.
func (t *AttrTypes) DecodeAttr(idx uint64, fn func(Entry) (any, error)) (any, error) {
	if idx >= uint64(len(t.attrs)) {
		return nil, fmt.Errorf("mlirbc: attribute index %d out of range (%d attributes)", idx, len(t.attrs))
	}
	if t.state[idx] == slotDone && t.errs == nil {
		return t.vals[idx], nil
	}
	return t.decode(int(idx), t.attrs[idx], "attribute", idx, fn)
}

// DecodeType is DecodeAttr for types.
func (t *AttrTypes) DecodeType(idx uint64, fn func(Entry) (any, error)) (any, error) {
	if idx >= uint64(len(t.types)) {
		return nil, fmt.Errorf("mlirbc: type index %d out of range (%d types)", idx, len(t.types))
	}
	slot := len(t.attrs) + int(idx)
	if t.state[slot] == slotDone && t.errs == nil {
		return t.vals[slot], nil
	}
	return t.decode(slot, t.types[idx], "type", idx, fn)
}

func (t *AttrTypes) decode(slot int, rec entryRec, kind string, idx uint64, fn func(Entry) (any, error)) (any, error) {
	switch t.state[slot] {
	case slotDone:
		var err error
		if t.errs != nil {
			err = t.errs[slot]
		}
		return t.vals[slot], err
	case slotBusy:
		return nil, &Error{Section: kind + " entry", Offset: t.payload.off + int(rec.off), Msg: fmt.Sprintf("%s %d refers to itself", kind, idx)}
	}
	if t.depth >= MaxDecodeDepth {
		return nil, &Error{Section: kind + " entry", Offset: t.payload.off + int(rec.off), Msg: fmt.Sprintf("%s nesting deeper than %d", kind, MaxDecodeDepth)}
	}
	t.state[slot] = slotBusy
	t.depth++
	v, err := fn(t.entry(rec))
	t.depth--
	t.state[slot], t.vals[slot] = slotDone, v
	if err != nil {
		if t.errs == nil {
			t.errs = make([]error, len(t.state))
		}
		t.errs[slot] = err
	}
	return v, err
}
