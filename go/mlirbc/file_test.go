package mlirbc

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// builder assembles small bytecode files for tests.
type builder struct {
	version uint64
	strings []string
}

func (b *builder) str(s string) uint64 {
	for i, x := range b.strings {
		if x == s {
			return uint64(i)
		}
	}
	b.strings = append(b.strings, s)
	return uint64(len(b.strings) - 1)
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
func vi(v uint64) []byte         { return encVarInt(v) }

func sec(id byte, data []byte) []byte { return cat([]byte{id}, vi(uint64(len(data))), data) }

func (b *builder) stringSection() []byte {
	out := vi(uint64(len(b.strings)))
	for i := len(b.strings) - 1; i >= 0; i-- {
		out = append(out, vi(uint64(len(b.strings[i])+1))...)
	}
	for _, s := range b.strings {
		out = append(out, append([]byte(s), 0)...)
	}
	return sec(SectionString, out)
}

// file builds a file with dialects "builtin" and "test", op names
// builtin.module and test.{a,b,f,ret}, one type (custom, 1 byte), one
// attribute (custom, 1 byte), and the given IR section payload.
func (b *builder) file(ir []byte, extra ...[]byte) []byte {
	dBuiltin, dTest := b.str("builtin"), b.str("test")
	names := []uint64{b.str("module"), b.str("a"), b.str("b"), b.str("f"), b.str("ret")}
	dia := vi(2)
	if b.version >= 1 {
		dia = cat(dia, vi(dBuiltin<<1), vi(dTest<<1))
	} else {
		dia = cat(dia, vi(dBuiltin), vi(dTest))
	}
	if b.version >= 4 {
		dia = cat(dia, vi(5))
	}
	reg := func(n uint64) []byte {
		if b.version >= 5 {
			return vi(n<<1 | 1)
		}
		return vi(n)
	}
	dia = cat(dia, vi(0), vi(1), reg(names[0]), vi(1), vi(4), reg(names[1]), reg(names[2]), reg(names[3]), reg(names[4]))
	offsets := cat(vi(1), vi(1), vi(1), vi(1), vi(1<<1|1), vi(1), vi(1), vi(1<<1|1))
	payload := []byte{0xAA, 0xBB}
	out := cat(Magic, vi(b.version), []byte("test\x00"),
		sec(SectionDialect, dia),
		sec(SectionAttrTypeOffset, offsets),
		sec(SectionAttrType, payload),
		sec(SectionIR, ir))
	for _, e := range extra {
		out = append(out, e...)
	}
	out = append(out, b.stringSection()...)
	if b.version >= 5 {
		out = append(out, sec(SectionProperties, vi(0))...)
	}
	return out
}

// op encodes an op: name index, mask, location attr 0, then the parts.
func op(name uint64, mask byte, parts ...[]byte) []byte {
	return cat(vi(name), []byte{mask}, vi(0), cat(parts...))
}

// testIR is: module { f(%x) isolated { %1 = a(%x); b { ret(%1, %x) }; ret(%1) } }
// where b's region is not isolated and uses values of f's region, and a's
// use of %2 (defined later) is a forward reference resolved by b's result.
func (b *builder) testIR(isolatedAsSection bool) []byte {
	arg := vi(0 << 1) // type 0, no location (format >= 4)
	if b.version < 4 {
		arg = cat(vi(0), vi(0))
	}
	useList := []byte{}
	if b.version >= 3 {
		useList = []byte{0} // no use-list orders for the block arguments
	}
	// f's region: 1 block, values: %x, %1 (a), %2 (b's result) = 3.
	bRegion := cat(vi(1), vi(0), vi(2<<1), // 1 block, 0 values, 2 ops, no args
		op(4, maskOperands, vi(2), vi(1), vi(0)), // ret(%1, %x)
		op(4, maskOperands, vi(1), vi(2)))        // ret(%2): forward-free, %2 is defined before its regions
	fBody := cat(vi(1), vi(3), vi(3<<1|1), vi(1), arg, useList,
		op(1, maskResults|maskOperands, vi(1), vi(0), vi(1), vi(0)),       // %1 = a(%x)
		op(2, maskResults|maskRegions, vi(1), vi(0), vi(1<<1|0), bRegion), // %2 = b { ... }
		op(4, maskOperands, vi(1), vi(1)))                                 // ret(%1)
	var fRegions []byte
	if isolatedAsSection {
		fRegions = sec(SectionIR, fBody)
	} else {
		fRegions = fBody
	}
	fOp := op(3, maskRegions, vi(1<<1|1), fRegions)
	moduleBody := cat(vi(1), vi(0), vi(1<<1), fOp) // 1 block, 0 values, 1 op
	var moduleRegions []byte
	if isolatedAsSection {
		moduleRegions = sec(SectionIR, moduleBody)
	} else {
		moduleRegions = moduleBody
	}
	return cat(vi(1<<1), op(0, maskRegions, vi(1<<1|1), moduleRegions))
}

func TestParseHandBuilt(t *testing.T) {
	for _, version := range []uint64{0, 1, 2, 3, 4, 5, 6} {
		for _, lazy := range []bool{false, true} {
			b := &builder{version: version}
			data := b.file(b.testIR(version >= VersionLazyLoading))
			f, err := Parse(data)
			require.NoError(t, err, "version %d", version)
			require.Equal(t, "test", f.Producer)
			require.Equal(t, version, f.Version)
			top, err := f.TopLevel(lazy)
			require.NoError(t, err, "version %d", version)
			require.Len(t, top, 1)
			mod := top[0]
			require.Equal(t, "builtin.module", mod.Name())
			require.Equal(t, lazy && version >= VersionLazyLoading, mod.Lazy())
			require.NoError(t, LoadAll(top))
			fn := mod.Regions[0].Blocks[0].Ops[0]
			require.Equal(t, "test.f", fn.Name())
			require.True(t, fn.Isolated)
			blk := fn.Regions[0].Blocks[0]
			require.Len(t, blk.Args, 1)
			x := blk.Args[0]
			a, bop, ret := blk.Ops[0], blk.Ops[1], blk.Ops[2]
			require.Equal(t, "test.a", a.Name())
			require.True(t, f.Value(x).IsArg)
			require.Equal(t, x, a.Operands()[0])
			inner := bop.Regions[0].Blocks[0].Ops
			require.Equal(t, a.Results()[0], inner[0].Operands()[0], "nested region sees outer values")
			require.Equal(t, x, inner[0].Operands()[1])
			require.Equal(t, bop.Results()[0], inner[1].Operands()[0])
			require.Equal(t, a.Results()[0], ret.Operands()[0])
			require.NotEqual(t, a.Results()[0], bop.Results()[0])
		}
	}
}

func TestParseErrors(t *testing.T) {
	b := &builder{version: 6}
	good := b.file(b.testIR(true))
	for name, tc := range map[string]struct {
		data []byte
		want string
	}{
		"no magic":     {[]byte("MLIR"), "magic"},
		"new version":  {cat(Magic, vi(7), []byte("x\x00")), "newer"},
		"no producer":  {cat(Magic, vi(6), []byte("x")), "NUL"},
		"missing":      {cat(Magic, vi(6), []byte("x\x00")), "missing"},
		"truncated":    {good[:len(good)-3], "section"},
		"bad section":  {cat(Magic, vi(6), []byte("x\x00"), []byte{9}, vi(0)), "invalid section ID 9"},
		"duplicate":    {cat(good, sec(SectionString, vi(0))), "duplicate string section"},
		"bad operand":  {(&builder{version: 6}).file(cat(vi(1<<1), op(1, maskOperands, vi(1), vi(0)))), "operand refers to value 0"},
		"bad op name":  {(&builder{version: 6}).file(cat(vi(1<<1), op(9, 0))), "op name index 9"},
		"huge region":  {(&builder{version: 6}).file(cat(vi(1<<1), op(2, maskRegions, vi(1<<1), vi(1), vi(1<<40)))), "values in"},
		"undefined fw": {(&builder{version: 6}).file(cat(vi(1<<1), op(2, maskRegions, vi(1<<1), vi(1), vi(2), vi(1<<1), op(4, maskOperands, vi(1), vi(1))))), "forward value references"},
	} {
		t.Run(name, func(t *testing.T) {
			f, err := Parse(tc.data)
			if err == nil {
				_, err = f.TopLevel(false)
			}
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestStringsReversedSizes(t *testing.T) {
	b := &builder{version: 6}
	b.str("zero")
	b.str("a longer string")
	f, err := Parse(b.file(b.testIR(true)))
	require.NoError(t, err)
	require.Equal(t, "zero", f.Strings[0])
	require.Equal(t, "a longer string", f.Strings[1])
}

func TestAttrTypeEntries(t *testing.T) {
	b := &builder{version: 6}
	f, err := Parse(b.file(b.testIR(true)))
	require.NoError(t, err)
	require.Equal(t, 1, f.AttrTypes.NumAttrs())
	require.Equal(t, "test", f.AttrTypes.Attr(0).Dialect)
	require.True(t, f.AttrTypes.Attr(0).Custom)
	require.Equal(t, []byte{0xAA}, f.AttrTypes.Attr(0).Data)
	require.Equal(t, []byte{0xBB}, f.AttrTypes.Type(0).Data)

	calls := 0
	decode := func(e Entry) (any, error) { calls++; return e.Data[0], nil }
	for i := 0; i < 3; i++ {
		v, err := f.AttrTypes.DecodeAttr(0, decode)
		require.NoError(t, err)
		require.Equal(t, byte(0xAA), v)
	}
	require.Equal(t, 1, calls, "decoded once, then memoized")
	_, err = f.AttrTypes.DecodeType(5, decode)
	require.ErrorContains(t, err, "out of range")

	// A self-referencing entry is reported, not followed forever.
	var self func(Entry) (any, error)
	self = func(Entry) (any, error) { return f.AttrTypes.DecodeType(0, self) }
	_, err = f.AttrTypes.DecodeType(0, self)
	require.ErrorContains(t, err, "refers to itself")
}

func TestResources(t *testing.T) {
	b := &builder{version: 6}
	key := b.str("blob_key")
	// Dialect group for dialect 1 ("test"): one blob resource, 8-aligned.
	blob := cat(vi(8), vi(3))
	offsets := cat(vi(0), vi(1), vi(1), vi(key), vi(0), []byte{ResourceBlob})
	// The blob payload's absolute alignment depends on where the section lands,
	// so compute the padding after assembling once.
	for pad := 0; pad < 8; pad++ {
		payload := cat(blob, bytes.Repeat([]byte{0xCB}, pad), []byte{1, 2, 3})
		offsets[len(offsets)-2] = vi(uint64(len(payload)))[0]
		data := b.file(b.testIR(true), sec(SectionResourceOffset, offsets), sec(SectionResource, payload))
		f, err := Parse(data)
		if err != nil {
			continue
		}
		require.Len(t, f.Resources, 1)
		require.Equal(t, "test", f.Resources[0].Group)
		require.Equal(t, "blob_key", f.Resources[0].Key)
		require.Equal(t, []byte{1, 2, 3}, f.Resources[0].Blob)
		return
	}
	t.Fatal("no padding produced an aligned blob")
}

// Use-list orders (format >= 3) are parsed past for block arguments and op
// results.
func TestUseListOrders(t *testing.T) {
	b := &builder{version: 6}
	args := cat(vi(2), vi(0<<1), vi(0<<1), // two arguments of type 0, no locations
		[]byte{1},                            // has use-list orders
		vi(1), vi(1), vi(2<<1), vi(1), vi(0)) // one entry: value 1, 2 indices
	aOp := op(1, maskResults|maskOperands|maskUseListOrder, vi(2), vi(0), vi(0), vi(1), vi(0),
		vi(1), vi(0), vi(2<<1|1), vi(0), vi(1)) // one entry: result 0, index pairs
	body := cat(vi(1), vi(4), vi(2<<1|1), args, aOp, op(4, maskOperands, vi(2), vi(2), vi(3)))
	ir := cat(vi(1<<1), op(3, maskRegions, vi(1<<1|1), sec(SectionIR, body)))
	f, err := Parse(b.file(ir))
	require.NoError(t, err)
	top, err := f.TopLevel(false)
	require.NoError(t, err)
	blk := top[0].Regions[0].Blocks[0]
	require.Len(t, blk.Args, 2)
	require.Len(t, blk.Ops, 2)
	require.Equal(t, blk.Ops[0].Results()[1], blk.Ops[1].Operands()[1])
	require.Equal(t, 1, f.Value(blk.Ops[1].Operands()[1]).Index)
}
