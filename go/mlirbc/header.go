package mlirbc

import (
	"bytes"
	"fmt"
)

// Magic starts every MLIR bytecode file.
var Magic = []byte{'M', 'L', 0xEF, 'R'}

// Bytecode format versions and the features they introduced.
const (
	VersionDialectVersioning           = 1
	VersionLazyLoading                 = 2
	VersionUseListOrdering             = 3
	VersionElideUnknownBlockArgLoc     = 4
	VersionNativePropertiesEncoding    = 5
	VersionNativePropertiesSegmentSize = 6
	// MaxVersion is the newest format version this package reads.
	MaxVersion = 6
)

// Section IDs.
const (
	SectionString          = 0
	SectionDialect         = 1
	SectionAttrType        = 2
	SectionAttrTypeOffset  = 3
	SectionIR              = 4
	SectionResource        = 5
	SectionResourceOffset  = 6
	SectionDialectVersions = 7
	SectionProperties      = 8
	numSections            = 9
)

var sectionNames = [numSections]string{
	"string", "dialect", "attr/type", "attr/type offset", "IR",
	"resource", "resource offset", "dialect versions", "properties",
}

// SectionName names a section ID for messages.
func SectionName(id int) string {
	if id >= 0 && id < numSections {
		return sectionNames[id]
	}
	return fmt.Sprintf("unknown(%d)", id)
}

// section is one top-level or nested section.
type section struct {
	id   int
	data []byte
	off  int // absolute offset of data[0]
}

func (s section) reader() *Reader { return NewReader(s.data, s.off, SectionName(s.id)) }

// readSection reads a section header and returns its payload.
func readSection(r *Reader) (section, error) {
	idb, err := r.Byte()
	if err != nil {
		return section{}, err
	}
	id := int(idb & 0x7f)
	if id >= numSections {
		return section{}, r.Errorf("invalid section ID %d", id)
	}
	length, err := r.VarInt()
	if err != nil {
		return section{}, err
	}
	if idb&0x80 != 0 {
		align, err := r.VarInt()
		if err != nil {
			return section{}, err
		}
		if err := r.AlignTo(align); err != nil {
			return section{}, err
		}
	}
	off := r.Offset()
	data, err := r.Bytes(length)
	if err != nil {
		return section{}, fmt.Errorf("%s section: %w", SectionName(id), err)
	}
	return section{id: id, data: data, off: off}, nil
}

// File is a parsed bytecode file: header, tables, and the unparsed IR.
type File struct {
	Version  uint64
	Producer string

	data     []byte
	sections [numSections]*section

	Strings    []string
	Dialects   []Dialect
	OpNames    []OpName
	AttrTypes  *AttrTypes
	Resources  []Resource
	properties *properties
	slabs      *arena
}

func (f *File) arena() *arena {
	if f.slabs == nil {
		f.slabs = arenas.Get()
	}
	return f.slabs
}

// IsBytecode reports whether data starts with the MLIR bytecode magic.
func IsBytecode(data []byte) bool { return bytes.HasPrefix(data, Magic) }

// Parse reads the header and every table of a bytecode file. The IR itself is
// read by (*File).TopLevel.
func Parse(data []byte) (*File, error) {
	r := NewReader(data, 0, "header")
	if !IsBytecode(data) {
		return nil, r.Errorf("not MLIR bytecode (missing magic \"ML\\xEFR\")")
	}
	r.pos = len(Magic)
	f := &File{data: data}
	var err error
	if f.Version, err = r.VarInt(); err != nil {
		return nil, err
	}
	if f.Version > MaxVersion {
		return nil, r.Errorf("bytecode version %d is newer than the newest supported (%d)", f.Version, MaxVersion)
	}
	prod, err := r.CString()
	if err != nil {
		return nil, err
	}
	f.Producer = string(prod)

	for !r.Empty() {
		start := r.Offset()
		s, err := readSection(r)
		if err != nil {
			return nil, err
		}
		if f.sections[s.id] != nil {
			return nil, &Error{Section: "header", Offset: start, Msg: "duplicate " + SectionName(s.id) + " section"}
		}
		if s.id == SectionDialectVersions {
			return nil, &Error{Section: "header", Offset: start, Msg: "dialect versions section at top level"}
		}
		f.sections[s.id] = &s
	}
	for _, id := range []int{SectionString, SectionDialect, SectionAttrType, SectionAttrTypeOffset, SectionIR} {
		if f.sections[id] == nil {
			return nil, r.Errorf("missing %s section", SectionName(id))
		}
	}
	if f.Version >= VersionNativePropertiesEncoding && f.sections[SectionProperties] == nil {
		return nil, r.Errorf("missing properties section (required from version %d)", VersionNativePropertiesEncoding)
	}
	if (f.sections[SectionResource] == nil) != (f.sections[SectionResourceOffset] == nil) {
		return nil, r.Errorf("resource and resource offset sections must come together")
	}

	// Same order as MLIR's reader: strings, properties, dialects, resources,
	// attributes/types.
	if err := f.readStrings(); err != nil {
		return nil, err
	}
	if err := f.readProperties(); err != nil {
		return nil, err
	}
	if err := f.readDialects(); err != nil {
		return nil, err
	}
	if err := f.readResources(); err != nil {
		return nil, err
	}
	if err := f.readAttrTypeOffsets(); err != nil {
		return nil, err
	}
	return f, nil
}

// StringAt resolves a string-table index.
func (f *File) StringAt(r *Reader, idx uint64) (string, error) {
	if idx >= uint64(len(f.Strings)) {
		return "", r.Errorf("string index %d out of range (%d strings)", idx, len(f.Strings))
	}
	return f.Strings[idx], nil
}

// ReadString reads a string-table reference.
func (f *File) ReadString(r *Reader) (string, error) {
	idx, err := r.VarInt()
	if err != nil {
		return "", err
	}
	return f.StringAt(r, idx)
}
