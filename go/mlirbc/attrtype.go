package mlirbc

import "fmt"

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
type AttrTypes struct {
	Attrs []Entry
	Types []Entry

	attrCache []decodeSlot
	typeCache []decodeSlot
	depth     int
}

type decodeSlot struct {
	state uint8 // 0 not decoded, 1 in progress, 2 done
	val   any
	err   error
}

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
	at := &AttrTypes{
		Attrs: make([]Entry, nAttrs),
		Types: make([]Entry, nTypes),
	}
	at.attrCache = make([]decodeSlot, nAttrs)
	at.typeCache = make([]decodeSlot, nTypes)
	cur := uint64(0)
	fill := func(list []Entry) error {
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
				list[i] = Entry{
					Dialect: f.Dialects[d].Name,
					Custom:  custom,
					Data:    payload.data[cur : cur+size],
					Offset:  payload.off + int(cur),
				}
				cur += size
				i++
			}
		}
		return nil
	}
	if err := fill(at.Attrs); err != nil {
		return err
	}
	if err := fill(at.Types); err != nil {
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
	if idx >= uint64(len(t.Attrs)) {
		return nil, fmt.Errorf("mlirbc: attribute index %d out of range (%d attributes)", idx, len(t.Attrs))
	}
	return t.decode(&t.attrCache[idx], t.Attrs[idx], "attribute", idx, fn)
}

// DecodeType is DecodeAttr for types.
func (t *AttrTypes) DecodeType(idx uint64, fn func(Entry) (any, error)) (any, error) {
	if idx >= uint64(len(t.Types)) {
		return nil, fmt.Errorf("mlirbc: type index %d out of range (%d types)", idx, len(t.Types))
	}
	return t.decode(&t.typeCache[idx], t.Types[idx], "type", idx, fn)
}

func (t *AttrTypes) decode(s *decodeSlot, e Entry, kind string, idx uint64, fn func(Entry) (any, error)) (any, error) {
	switch s.state {
	case 2:
		return s.val, s.err
	case 1:
		return nil, &Error{Section: kind + " entry", Offset: e.Offset, Msg: fmt.Sprintf("%s %d refers to itself", kind, idx)}
	}
	if t.depth >= MaxDecodeDepth {
		return nil, &Error{Section: kind + " entry", Offset: e.Offset, Msg: fmt.Sprintf("%s nesting deeper than %d", kind, MaxDecodeDepth)}
	}
	s.state = 1
	t.depth++
	v, err := fn(e)
	t.depth--
	s.state, s.val, s.err = 2, v, err
	return v, err
}
