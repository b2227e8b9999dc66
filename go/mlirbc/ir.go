package mlirbc

import (
	"fmt"
	"slices"
)

// Op is one operation in generic form. Its results and operands are value
// ids (see File.Value) rather than pointers: ops come by the thousand, and
// their only pointer written per op is f, so building, scanning and clearing
// them costs the garbage collector little.
type Op struct {
	f         *File
	NameIndex int    // index of the name in the file's op-name table (cheap to key on)
	Loc       uint64 // attribute index of the location

	Attrs uint64 // attribute index of a builtin DictionaryAttr (discardable attrs; all attrs before format 5); valid when HasAttrs

	// Properties (format >= 5): a registered op's blob is read with
	// PropsReader; an unregistered op stores an attribute index, PropsAttr.
	// Valid when HasProps.
	PropsAttr uint64
	// PropsIndex is the properties entry (blob index of a registered op,
	// attribute index otherwise). The writer uniques property encodings, so
	// equal indices mean equal properties.
	PropsIndex uint64

	// results and operands are ranges of the arena's id list.
	results, operands idRange
	Successors        []*Block

	NumRegions int
	// Regions is nil until loaded when the op is lazy (see Lazy and Load).
	Regions []*Region

	// lazyOff and lazyLen locate the unread section of the regions in
	// the file while lazy is set.
	lazyOff, lazyLen int

	// The flags sit together at the end: ops are allocated by the thousand.
	Registered bool
	HasAttrs   bool
	HasProps   bool
	// Isolated is the writer's isolated-from-above flag for the regions.
	Isolated bool
	lazy     bool
}

// idRange is a piece of the arena's id list.
type idRange struct{ lo, n uint32 }

// Value is an SSA value: an op result or a block argument. It holds no
// pointers, so the arena that recycles values costs the garbage collector
// nothing to scan or clear.
type Value struct {
	Type  uint64 // type index
	Index int    // result index in its op, or argument index in its block
	// HasLoc/Loc: block-argument location when present.
	Loc uint64

	HasLoc  bool
	IsArg   bool // a block argument (else an op result)
	forward bool // referenced before its definition and not yet defined
}

// Block is a list of ops with arguments (value ids, see File.Value).
type Block struct {
	Args []uint32
	Ops  []*Op
}

// Region is a list of blocks.
type Region struct {
	Blocks []*Block
}

// Name is the op's full name, "dialect.op".
func (o *Op) Name() string { return o.f.OpNames[o.NameIndex].FullName }

// Dialect is the name of the op's dialect.
func (o *Op) Dialect() string { return o.f.Dialects[o.f.OpNames[o.NameIndex].Dialect].Name }

// Results are the ids of the op's results (see File.Value).
func (o *Op) Results() []uint32 { return o.f.slabs.ids.at(o.results) }

// Operands are the ids of the values the op uses.
func (o *Op) Operands() []uint32 { return o.f.slabs.ids.at(o.operands) }

// PropsReader returns a fresh reader over the op's property blob (nil when
// the op has none or is unregistered). Blobs are shared between identical ops.
func (o *Op) PropsReader() *Reader {
	if !o.HasProps || !o.Registered {
		return nil
	}
	return NewReader(o.f.properties.blobs[o.PropsIndex], o.f.properties.offs[o.PropsIndex], "properties")
}

// Value returns value id (from an op's results or operands or a block's
// arguments). Ids number the values of a File densely from 0 in the order
// the reader met them (regions loaded later get later ids); a client keeps
// its own per-value data in a side table indexed by id (see NumValues).
func (f *File) Value(id uint32) Value { return f.slabs.vals[id] }

// Lazy reports whether the op's regions have not been read yet.
func (o *Op) Lazy() bool { return o.lazy }

// MaxNesting bounds region nesting so hostile input cannot exhaust the stack
// (Go's stacks grow, to 1 GB; the reader and the compiler's passes recurse
// once per level, a few KB at most). Programs nest that deep: each lax.cond
// inside a branch of another is one level, and XLA compiles 1000 of them.
const MaxNesting = 8192

// TopLevel reads the IR section and returns the ops of its top-level block
// (normally one builtin.module). With lazy set, the regions of ops that the
// writer encoded as isolated nested sections (format >= 2) are not read until
// Load is called on the op.
func (f *File) TopLevel(lazy bool) ([]*Op, error) {
	s := f.sections[SectionIR]
	p := f.arena().parser(f, lazy)
	r := s.reader()
	p.pushScope()
	// The section is encoded as a block header then its ops, in a region of
	// zero values.
	rs := regionState{}
	p.scope().push(0)
	b, nOps, err := p.blockHeaderInto(r, p.blks.One())
	if err != nil {
		return nil, err
	}
	if err := p.blockOps(r, &rs, b, nOps, 0); err != nil {
		return nil, err
	}
	if !r.Empty() {
		return nil, r.Errorf("%d trailing bytes after the top-level block", r.Len())
	}
	if err := p.popScope(r); err != nil {
		return nil, err
	}
	return b.Ops, nil
}

// Load reads the regions of a lazily loaded op (a no-op otherwise). Ops found
// inside stay lazy if the file was read lazily.
func (o *Op) Load() error { return o.load(true) }

// LoadDeep is Load that also reads the regions of every op inside, so that
// none is left lazy. On error the op stays lazy (Load may read it again).
func (o *Op) LoadDeep() error { return o.load(false) }

func (o *Op) load(lazy bool) error {
	if !o.lazy {
		return nil
	}
	f := o.f
	p := f.arena().parser(f, lazy)
	r := &p.r // the arena's: a reader per load would be garbage
	*r = Reader{data: f.data[o.lazyOff : o.lazyOff+o.lazyLen], base: o.lazyOff, section: SectionName(SectionIR)}
	p.pushScope()
	if err := p.regions(r, o, 0); err != nil {
		return err
	}
	if !r.Empty() {
		return r.Errorf("%d trailing bytes after the regions of %s", r.Len(), o.Name())
	}
	if err := p.popScope(r); err != nil {
		return err
	}
	o.lazy = false
	return nil
}

// LoadAll loads every lazy op reachable from ops.
func LoadAll(ops []*Op) error {
	for _, op := range ops {
		if err := op.Load(); err != nil {
			return err
		}
		for _, rg := range op.Regions {
			for _, b := range rg.Blocks {
				if err := LoadAll(b.Ops); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// valueScope is one isolated-from-above numbering scope. values holds
// 1 + the id of each value defined or used so far (0: neither yet).
type valueScope struct {
	values  []uint32
	next    []int // next value id, per open region
	forward int   // count of unresolved forward references
}

func (s *valueScope) push(n int) {
	s.next = append(s.next, len(s.values))
	s.values = slices.Grow(s.values, n)
	lo := len(s.values)
	s.values = s.values[:lo+n]
	clear(s.values[lo:])
}

func (s *valueScope) pop(n int) {
	s.values = s.values[:len(s.values)-n]
	s.next = s.next[:len(s.next)-1]
}

type irParser struct {
	f      *File
	lazy   bool
	r      Reader // Load's
	scopes []*valueScope
	// open counts the value slots of all regions being read. Each is a
	// distinct value needing at least one byte of input, so it can never
	// exceed the file size; the check bounds allocation on hostile input.
	open int

	*arena // the File's
}

type regionState struct {
	numValues int
	blocks    []*Block
}

func (p *irParser) scope() *valueScope { return p.scopes[len(p.scopes)-1] }

// pushScope opens a numbering scope, reusing the storage of a closed one.
func (p *irParser) pushScope() {
	var s *valueScope
	if k := len(p.freeScopes); k > 0 {
		s = p.freeScopes[k-1]
		p.freeScopes = p.freeScopes[:k-1]
		s.values, s.next, s.forward = s.values[:0], s.next[:0], 0
	} else {
		s = &valueScope{}
	}
	p.scopes = append(p.scopes, s)
}

func (p *irParser) popScope(r *Reader) error {
	s := p.scope()
	if s.forward != 0 {
		return r.Errorf("%d forward value references were never defined", s.forward)
	}
	p.scopes = p.scopes[:len(p.scopes)-1]
	p.freeScopes = append(p.freeScopes, s)
	return nil
}

// define assigns the next value numbers of the current region to the
// values ids lists. A value used before its definition already has an id:
// the definition takes over that id's slot, and ids is updated to it.
func (p *irParser) define(r *Reader, ids []uint32) error {
	s := p.scope()
	if len(s.next) == 0 {
		return r.Errorf("value defined outside any region")
	}
	id := s.next[len(s.next)-1]
	if id+len(ids) > len(s.values) {
		return r.Errorf("value ids [%d, %d) exceed the %d values the region declared", id, id+len(ids), len(s.values))
	}
	for i, v := range ids {
		if old := s.values[id+i]; old != 0 {
			ov := &p.vals[old-1]
			if !ov.forward {
				return r.Errorf("value %d defined twice", id+i)
			}
			// Fill the placeholder in place so earlier uses see the definition.
			nv := p.vals[v]
			*ov = Value{Type: nv.Type, Index: nv.Index, Loc: nv.Loc, HasLoc: nv.HasLoc, IsArg: nv.IsArg}
			s.forward--
			ids[i] = old - 1
			continue
		}
		s.values[id+i] = v + 1
	}
	s.next[len(s.next)-1] = id + len(ids)
	return nil
}

// operand reads a value number and returns the value's id, giving a value
// used before its definition an id now (a placeholder define fills).
func (p *irParser) operand(r *Reader) (uint32, error) {
	idx, err := r.VarInt()
	if err != nil {
		return 0, err
	}
	s := p.scope()
	if idx >= uint64(len(s.values)) {
		return 0, r.Errorf("operand refers to value %d, only %d in scope", idx, len(s.values))
	}
	if v := s.values[idx]; v != 0 {
		return v - 1, nil
	}
	id := p.newVals(1)
	p.vals[id].forward = true
	s.values[idx] = id + 1
	s.forward++
	return id, nil
}

// region reads one region header (block count, value count) and its blocks.
func (p *irParser) region(r *Reader, depth int) (*Region, error) {
	nBlocks, err := r.Count(1)
	if err != nil {
		return nil, err
	}
	rg := p.regs.One()
	p.nregions++
	if nBlocks == 0 {
		return rg, nil
	}
	nValues, err := r.VarInt()
	if err != nil {
		return nil, err
	}
	if nValues > uint64(r.Len()) || p.open+int(nValues) > len(p.f.data) {
		return nil, r.Errorf("region declares %d values in %d bytes", nValues, r.Len())
	}
	rs := regionState{numValues: int(nValues), blocks: p.blockRefs.Take(nBlocks)}
	p.nblocks += nBlocks
	bs := p.blks.Take(nBlocks)
	for i := range rs.blocks {
		rs.blocks[i] = &bs[i]
	}
	rg.Blocks = rs.blocks
	p.scope().push(rs.numValues)
	p.open += rs.numValues
	for i := 0; i < nBlocks; i++ {
		b, nOps, err := p.blockHeaderInto(r, rs.blocks[i])
		if err != nil {
			return nil, err
		}
		if err := p.blockOps(r, &rs, b, nOps, depth); err != nil {
			return nil, err
		}
	}
	p.scope().pop(rs.numValues)
	p.open -= rs.numValues
	return rg, nil
}

func (p *irParser) blockHeaderInto(r *Reader, b *Block) (*Block, int, error) {
	nOps, hasArgs, err := r.VarIntWithFlag()
	if err != nil {
		return nil, 0, err
	}
	if nOps > uint64(r.Len()) { // each op takes at least two bytes
		return nil, 0, r.Errorf("block declares %d ops in %d bytes", nOps, r.Len())
	}
	if hasArgs {
		n, err := r.Count(1)
		if err != nil {
			return nil, 0, err
		}
		first := p.newVals(n)
		args := p.ids.take(n)
		for i := range n {
			v := &p.vals[first+uint32(i)]
			v.Index, v.IsArg = i, true
			if p.f.Version >= VersionElideUnknownBlockArgLoc {
				t, hasLoc, err := r.VarIntWithFlag()
				if err != nil {
					return nil, 0, err
				}
				v.Type, v.HasLoc = t, hasLoc
				if hasLoc {
					if v.Loc, err = r.VarInt(); err != nil {
						return nil, 0, err
					}
				}
			} else {
				if v.Type, err = r.VarInt(); err != nil {
					return nil, 0, err
				}
				if v.Loc, err = r.VarInt(); err != nil {
					return nil, 0, err
				}
				v.HasLoc = true
			}
			if v.Type >= uint64(p.f.AttrTypes.NumTypes()) {
				return nil, 0, r.Errorf("block argument type index %d out of range", v.Type)
			}
		}
		ids := p.ids.at(args)
		for i := range ids {
			ids[i] = first + uint32(i)
		}
		if err := p.define(r, ids); err != nil {
			return nil, 0, err
		}
		b.Args = ids // final: nothing changes it once defined
	}
	if p.f.Version >= VersionUseListOrdering && hasArgs {
		has, err := r.Byte()
		if err != nil {
			return nil, 0, err
		}
		if has != 0 {
			if err := skipUseListOrders(r, len(b.Args)); err != nil {
				return nil, 0, err
			}
		}
	}
	return b, int(nOps), nil
}

func (p *irParser) blockOps(r *Reader, rs *regionState, b *Block, nOps, depth int) error {
	b.Ops = p.opRefs.Take(nOps) // nOps is bounded by the bytes left
	for i := range b.Ops {
		op, err := p.op(r, rs, depth)
		if err != nil {
			return err
		}
		b.Ops[i] = op
	}
	return nil
}

// Op encoding mask bits.
const (
	maskAttrs        = 0x01
	maskResults      = 0x02
	maskOperands     = 0x04
	maskSuccessors   = 0x08
	maskRegions      = 0x10
	maskUseListOrder = 0x20
	maskProperties   = 0x40
)

func (p *irParser) op(r *Reader, rs *regionState, depth int) (*Op, error) {
	start := r.Offset()
	nameIdx, err := r.VarInt()
	if err != nil {
		return nil, err
	}
	if nameIdx >= uint64(len(p.f.OpNames)) {
		return nil, r.Errorf("op name index %d out of range (%d names)", nameIdx, len(p.f.OpNames))
	}
	on := &p.f.OpNames[nameIdx]
	// Slab elements come zeroed: setting fields one by one spares the write
	// barriers of copying a whole pointerful struct while the GC marks.
	op := p.ops.One()
	p.nops++
	op.f, op.NameIndex, op.Registered = p.f, int(nameIdx), on.Registered
	wrap := func(err error) error { return fmt.Errorf("op %s at byte %d: %w", on.FullName, start, err) }
	mask, err := r.Byte()
	if err != nil {
		return nil, wrap(err)
	}
	if mask&0x80 != 0 {
		return nil, wrap(r.Errorf("unknown op mask bits 0x%02x", mask))
	}
	if op.Loc, err = r.VarInt(); err != nil {
		return nil, wrap(err)
	}
	if mask&maskAttrs != 0 {
		op.HasAttrs = true
		if op.Attrs, err = r.VarInt(); err != nil {
			return nil, wrap(err)
		}
	}
	if mask&maskProperties != 0 {
		if p.f.Version < VersionNativePropertiesEncoding {
			return nil, wrap(r.Errorf("properties flag in format version %d", p.f.Version))
		}
		op.HasProps = true
		idx, err := r.VarInt()
		if err != nil {
			return nil, wrap(err)
		}
		op.PropsIndex = idx
		if op.Registered {
			if idx >= uint64(len(p.f.properties.blobs)) {
				return nil, wrap(r.Errorf("properties index %d out of range (%d blobs)", idx, len(p.f.properties.blobs)))
			}
		} else {
			op.PropsAttr = idx
		}
	}
	if mask&maskResults != 0 {
		n, err := r.Count(1)
		if err != nil {
			return nil, wrap(err)
		}
		first := p.newVals(n)
		op.results = p.ids.take(n)
		ids := p.ids.at(op.results)
		for i := range ids {
			t, err := r.VarInt()
			if err != nil {
				return nil, wrap(err)
			}
			if t >= uint64(p.f.AttrTypes.NumTypes()) {
				return nil, wrap(r.Errorf("result type index %d out of range", t))
			}
			v := &p.vals[first+uint32(i)]
			v.Type, v.Index = t, i
			ids[i] = first + uint32(i)
		}
	}
	if mask&maskOperands != 0 {
		n, err := r.Count(1)
		if err != nil {
			return nil, wrap(err)
		}
		op.operands = p.ids.take(n)
		for i := range n {
			id, err := p.operand(r)
			if err != nil {
				return nil, wrap(err)
			}
			// operand may grow the arena: index it afresh.
			p.ids.buf[op.operands.lo+uint32(i)] = id
		}
	}
	if mask&maskSuccessors != 0 {
		n, err := r.Count(1)
		if err != nil {
			return nil, wrap(err)
		}
		op.Successors = make([]*Block, n)
		for i := range op.Successors {
			idx, err := r.VarInt()
			if err != nil {
				return nil, wrap(err)
			}
			if idx >= uint64(len(rs.blocks)) {
				return nil, wrap(r.Errorf("successor block %d out of range (%d blocks)", idx, len(rs.blocks)))
			}
			op.Successors[i] = rs.blocks[idx]
		}
	}
	if mask&maskUseListOrder != 0 && p.f.Version >= VersionUseListOrdering {
		if err := skipUseListOrders(r, int(op.results.n)); err != nil {
			return nil, wrap(err)
		}
	}
	if mask&maskRegions != 0 {
		n, iso, err := r.VarIntWithFlag()
		if err != nil {
			return nil, wrap(err)
		}
		if n > uint64(r.Len()) {
			return nil, wrap(r.Errorf("%d regions in %d bytes", n, r.Len()))
		}
		op.NumRegions, op.Isolated = int(n), iso
	}
	// Results are defined before the op's regions are read; a region that
	// declared no values (the top level) does not number them.
	if rs.numValues > 0 && op.results.n > 0 {
		if err := p.define(r, p.ids.at(op.results)); err != nil {
			return nil, wrap(err)
		}
	}
	if op.NumRegions == 0 {
		return op, nil
	}
	if depth >= MaxNesting {
		return nil, wrap(r.Errorf("regions nested deeper than %d", MaxNesting))
	}
	if op.Isolated && p.f.Version >= VersionLazyLoading {
		s, err := readSection(r)
		if err != nil {
			return nil, wrap(err)
		}
		if s.id != SectionIR {
			return nil, wrap(r.Errorf("expected an IR section for isolated regions, got %s", SectionName(s.id)))
		}
		if p.lazy {
			op.lazy, op.lazyOff, op.lazyLen = true, s.off, len(s.data)
			return op, nil
		}
		sr := p.readers.Take(1)
		sr[0] = Reader{data: s.data, base: s.off, section: SectionName(s.id)}
		p.pushScope()
		if err := p.regions(&sr[0], op, depth+1); err != nil {
			return nil, err
		}
		if !sr[0].Empty() {
			return nil, wrap(sr[0].Errorf("%d trailing bytes after the regions", sr[0].Len()))
		}
		if err := p.popScope(&sr[0]); err != nil {
			return nil, err
		}
		return op, nil
	}
	if op.Isolated {
		p.pushScope()
	}
	if err := p.regions(r, op, depth+1); err != nil {
		return nil, err
	}
	if op.Isolated {
		if err := p.popScope(r); err != nil {
			return nil, err
		}
	}
	return op, nil
}

func (p *irParser) regions(r *Reader, op *Op, depth int) error {
	op.Regions = p.regionRefs.Take(op.NumRegions)
	for i := range op.Regions {
		rg, err := p.region(r, depth)
		if err != nil {
			return fmt.Errorf("region %d of %s: %w", i, op.Name(), err)
		}
		op.Regions[i] = rg
	}
	return nil
}

// skipUseListOrders parses past the use-list order records of a range of
// n values; gojax does not need use-list order.
func skipUseListOrders(r *Reader, n int) error {
	count := uint64(1)
	var err error
	if n > 1 {
		if count, err = r.VarInt(); err != nil {
			return err
		}
		if count > uint64(n) {
			return r.Errorf("%d use-list orders for %d values", count, n)
		}
	}
	for i := uint64(0); i < count; i++ {
		if n > 1 {
			idx, err := r.VarInt()
			if err != nil {
				return err
			}
			if idx >= uint64(n) {
				return r.Errorf("use-list order for value %d of %d", idx, n)
			}
		}
		m, _, err := r.VarIntWithFlag()
		if err != nil {
			return err
		}
		if m > uint64(r.Len()) {
			return r.Errorf("use-list order of %d entries in %d bytes", m, r.Len())
		}
		for j := uint64(0); j < m; j++ {
			if _, err := r.VarInt(); err != nil {
				return err
			}
		}
	}
	return nil
}
