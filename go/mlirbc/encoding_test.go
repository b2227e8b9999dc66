package mlirbc

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// encVarInt is the MLIR bytecode prefix varint encoding (test-side writer).
func encVarInt(v uint64) []byte {
	for n := 1; n <= 8; n++ {
		if v < 1<<(7*n) {
			w := v<<n | 1<<(n-1)
			var b [8]byte
			binary.LittleEndian.PutUint64(b[:], w)
			return b[:n]
		}
	}
	out := []byte{0}
	return binary.LittleEndian.AppendUint64(out, v)
}

func encSigned(v int64) []byte { return encVarInt(uint64(v<<1) ^ uint64(v>>63)) }

func TestVarInt(t *testing.T) {
	for _, tc := range []struct {
		v    uint64
		size int
	}{
		{0, 1}, {1, 1}, {127, 1}, {128, 2}, {1<<14 - 1, 2}, {1 << 14, 3}, {1<<21 - 1, 3},
		{1<<49 - 1, 7}, {1 << 49, 8}, {1<<56 - 1, 8}, {1 << 56, 9}, {math.MaxUint64, 9},
	} {
		enc := encVarInt(tc.v)
		require.Len(t, enc, tc.size, "encoding of %d", tc.v)
		r := NewReader(enc, 0, "test")
		got, err := r.VarInt()
		require.NoError(t, err)
		require.Equal(t, tc.v, got)
		require.True(t, r.Empty())
	}
	// Known bytes: 0x0d is 6 (the version byte of every v6 artifact), 0x02 0x02 is 128.
	for _, tc := range []struct {
		in   []byte
		want uint64
	}{{[]byte{0x0d}, 6}, {[]byte{0x01}, 0}, {[]byte{0x02, 0x02}, 128}, {[]byte{0x00, 1, 0, 0, 0, 0, 0, 0, 0}, 1}} {
		got, err := NewReader(tc.in, 0, "test").VarInt()
		require.NoError(t, err)
		require.Equal(t, tc.want, got)
	}
}

func TestVarIntTruncated(t *testing.T) {
	for _, in := range [][]byte{{}, {0x02}, {0x00, 1, 2, 3}, {0x80, 1, 2, 3, 4, 5, 6}} {
		r := NewReader(in, 100, "strings")
		_, err := r.VarInt()
		require.Error(t, err)
		var e *Error
		require.ErrorAs(t, err, &e)
		require.Equal(t, "strings", e.Section)
		require.GreaterOrEqual(t, e.Offset, 100, "offsets are absolute")
	}
}

func TestSignedVarInt(t *testing.T) {
	for _, v := range []int64{0, 1, -1, 63, -64, 64, -65, 1 << 40, math.MinInt64, math.MaxInt64} {
		got, err := NewReader(encSigned(v), 0, "t").SignedVarInt()
		require.NoError(t, err)
		require.Equal(t, v, got)
	}
}

func TestVarIntWithFlagAndCount(t *testing.T) {
	v, flag, err := NewReader(encVarInt(5<<1|1), 0, "t").VarIntWithFlag()
	require.NoError(t, err)
	require.Equal(t, uint64(5), v)
	require.True(t, flag)

	// A count larger than the remaining bytes allow is rejected before any allocation.
	_, err = NewReader(append(encVarInt(1<<40), 1, 2, 3), 0, "t").Count(1)
	require.ErrorContains(t, err, "exceeds")
	n, err := NewReader(append(encVarInt(3), 1, 2, 3), 0, "t").Count(1)
	require.NoError(t, err)
	require.Equal(t, 3, n)
}

func TestAPInt(t *testing.T) {
	// Widths up to 8 are one raw byte (no varint), even for 0xFF.
	v, _, err := NewReader([]byte{0xFF}, 0, "t").APInt(8)
	require.NoError(t, err)
	require.Equal(t, uint64(0xFF), v)
	// Up to 64 bits: zigzag varint of the zero-extended value.
	v, _, err = NewReader(encSigned(0x3f80), 0, "t").APInt(16)
	require.NoError(t, err)
	require.Equal(t, uint64(0x3f80), v)
	// Wider: word count then signed words.
	in := append(encVarInt(2), encSigned(7)...)
	in = append(in, encSigned(0)...)
	v, wide, err := NewReader(in, 0, "t").APInt(128)
	require.NoError(t, err)
	require.Equal(t, uint64(7), v)
	require.False(t, wide)
}

func TestCStringBlobAlign(t *testing.T) {
	r := NewReader([]byte("abc\x00rest"), 0, "t")
	s, err := r.CString()
	require.NoError(t, err)
	require.Equal(t, "abc", string(s))
	_, err = r.CString()
	require.ErrorContains(t, err, "NUL")

	b, err := NewReader(append(encVarInt(2), 9, 8, 7), 0, "t").Blob()
	require.NoError(t, err)
	require.Equal(t, []byte{9, 8}, b)

	// Alignment is relative to the file start (absolute offsets).
	r = NewReader([]byte{0xCB, 0xCB, 0xCB, 42}, 5, "t")
	require.NoError(t, r.AlignTo(8))
	x, _ := r.Byte()
	require.Equal(t, byte(42), x)
	require.Error(t, NewReader([]byte{0x00}, 1, "t").AlignTo(2), "padding must be 0xCB")
	require.Error(t, NewReader(nil, 1, "t").AlignTo(3), "alignment must be a power of two")
}
