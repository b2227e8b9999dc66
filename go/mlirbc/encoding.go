package mlirbc

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// Reader decodes the primitive encodings of MLIR bytecode from one byte range.
// Every error it returns names its section and the absolute file offset of
// the failing read.
type Reader struct {
	data    []byte
	pos     int
	base    int    // absolute offset of data[0] in the input file
	section string // for error messages
	// dialect, when set, qualifies section as "<section> entry (<dialect>)";
	// the label is only built when an error needs it.
	dialect string
}

// NewReader reads data, which starts at absolute offset base of a file, and
// labels errors with section.
func NewReader(data []byte, base int, section string) *Reader {
	return &Reader{data: data, base: base, section: section}
}

// Offset is the absolute file offset of the next byte.
func (r *Reader) Offset() int { return r.base + r.pos }

// Len is the number of unread bytes.
func (r *Reader) Len() int { return len(r.data) - r.pos }

// Empty reports whether everything has been read.
func (r *Reader) Empty() bool { return r.pos >= len(r.data) }

// Section is the label used in errors.
func (r *Reader) Section() string {
	if r.dialect == "" {
		return r.section
	}
	return r.section + " entry (" + r.dialect + ")"
}

// Errorf builds an error naming the section and the current offset.
func (r *Reader) Errorf(format string, args ...any) error {
	return &Error{Section: r.Section(), Offset: r.Offset(), Msg: fmt.Sprintf(format, args...)}
}

// Error is a decoding failure at a known place.
type Error struct {
	Section string
	Offset  int
	Msg     string
}

func (e *Error) Error() string {
	return fmt.Sprintf("mlirbc: %s section at byte %d: %s", e.Section, e.Offset, e.Msg)
}

// Byte reads one raw byte.
func (r *Reader) Byte() (byte, error) {
	if r.pos >= len(r.data) {
		return 0, r.Errorf("unexpected end of data reading a byte")
	}
	b := r.data[r.pos]
	r.pos++
	return b, nil
}

// Bytes reads n raw bytes (a sub-slice of the input, not a copy).
func (r *Reader) Bytes(n uint64) ([]byte, error) {
	if n > uint64(r.Len()) {
		return nil, r.Errorf("need %d bytes, only %d remain", n, r.Len())
	}
	b := r.data[r.pos : r.pos+int(n)]
	r.pos += int(n)
	return b, nil
}

// Skip advances over n bytes.
func (r *Reader) Skip(n uint64) error {
	_, err := r.Bytes(n)
	return err
}

// VarInt reads a prefix varint: the count of trailing zero bits of the first
// byte is the number of extra bytes; 0x00 means 8 raw little-endian bytes.
func (r *Reader) VarInt() (uint64, error) {
	first, err := r.Byte()
	if err != nil {
		return 0, err
	}
	if first&1 == 1 {
		return uint64(first >> 1), nil
	}
	if first == 0 {
		b, err := r.Bytes(8)
		if err != nil {
			return 0, err
		}
		return binary.LittleEndian.Uint64(b), nil
	}
	n := bits.TrailingZeros8(first) // 1..7 extra bytes
	b, err := r.Bytes(uint64(n))
	if err != nil {
		return 0, err
	}
	v := uint64(first)
	for i, x := range b {
		v |= uint64(x) << (8 * (i + 1))
	}
	return v >> (n + 1), nil
}

// SignedVarInt reads a zigzag-encoded varint.
func (r *Reader) SignedVarInt() (int64, error) {
	v, err := r.VarInt()
	if err != nil {
		return 0, err
	}
	return int64(v>>1) ^ -int64(v&1), nil
}

// VarIntWithFlag reads (value<<1)|flag.
func (r *Reader) VarIntWithFlag() (uint64, bool, error) {
	v, err := r.VarInt()
	return v >> 1, v&1 == 1, err
}

// Count reads a list length and checks that at least minBytes bytes per
// element remain, so a corrupt length cannot trigger a huge allocation.
func (r *Reader) Count(minBytes int) (int, error) {
	n, err := r.VarInt()
	if err != nil {
		return 0, err
	}
	if minBytes < 1 {
		minBytes = 1
	}
	if n > uint64(r.Len()/minBytes) {
		return 0, r.Errorf("count %d exceeds the %d bytes left", n, r.Len())
	}
	return int(n), nil
}

// Blob reads a varint length followed by that many raw bytes.
func (r *Reader) Blob() ([]byte, error) {
	n, err := r.VarInt()
	if err != nil {
		return nil, err
	}
	return r.Bytes(n)
}

// CString reads a NUL-terminated string (without the NUL).
func (r *Reader) CString() ([]byte, error) {
	for i := r.pos; i < len(r.data); i++ {
		if r.data[i] == 0 {
			s := r.data[r.pos:i]
			r.pos = i + 1
			return s, nil
		}
	}
	return nil, r.Errorf("string without NUL terminator")
}

// SignedVarInts reads a varint count then that many signed varints.
func (r *Reader) SignedVarInts() ([]int64, error) {
	n, err := r.Count(1)
	if err != nil {
		return nil, err
	}
	out := make([]int64, n)
	for i := range out {
		if out[i], err = r.SignedVarInt(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// VarInts reads a varint count then that many varints.
func (r *Reader) VarInts() ([]uint64, error) {
	n, err := r.Count(1)
	if err != nil {
		return nil, err
	}
	out := make([]uint64, n)
	for i := range out {
		if out[i], err = r.VarInt(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// APInt reads an integer of known bit width as MLIR writes it: widths up to
// 8 are one raw byte, up to 64 a signed varint, wider a word count then
// signed varint words (least significant first). The result holds the low
// 64 bits; wide reports whether any higher word was non-zero.
func (r *Reader) APInt(width int) (v uint64, wide bool, err error) {
	switch {
	case width <= 8:
		b, err := r.Byte()
		return uint64(b), false, err
	case width <= 64:
		s, err := r.SignedVarInt()
		return uint64(s), false, err
	}
	n, err := r.Count(1)
	if err != nil {
		return 0, false, err
	}
	for i := 0; i < n; i++ {
		w, err := r.SignedVarInt()
		if err != nil {
			return 0, false, err
		}
		if i == 0 {
			v = uint64(w)
		} else if w != 0 {
			wide = true
		}
	}
	return v, wide, nil
}

// AlignTo skips 0xCB padding bytes until the absolute offset is a multiple
// of align (alignment is relative to the start of the file).
func (r *Reader) AlignTo(align uint64) error {
	if align == 0 || align&(align-1) != 0 {
		return r.Errorf("alignment %d is not a power of two", align)
	}
	for uint64(r.Offset())&(align-1) != 0 {
		b, err := r.Byte()
		if err != nil {
			return err
		}
		if b != 0xCB {
			return r.Errorf("expected alignment padding 0xCB, got 0x%02x", b)
		}
	}
	return nil
}

// Sub returns a reader over the next n bytes, labelled section, and advances
// past them.
func (r *Reader) Sub(n uint64, section string) (*Reader, error) {
	off := r.Offset()
	b, err := r.Bytes(n)
	if err != nil {
		return nil, err
	}
	return NewReader(b, off, section), nil
}
