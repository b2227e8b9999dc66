package byteview

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEmpty(t *testing.T) {
	require.Nil(t, As[float32](nil))
	require.Nil(t, As[float32]([]byte{}))
	require.Nil(t, As[complex128](make([]byte, 0, 64)))
	require.Nil(t, Bytes[float64](nil))
	require.Nil(t, Bytes([]int16{}))
}

func TestLengthNotWholeElements(t *testing.T) {
	for _, n := range []int{1, 3, 5, 7} {
		require.Panics(t, func() { As[float64](make([]byte, n)) }, "%d bytes", n)
	}
	require.Panics(t, func() { As[[2]uint64](make([]byte, 24)) })
	require.Len(t, As[uint8](make([]byte, 3)), 3)
}

// TestSharesMemory checks that the view aliases the buffer both ways and
// reads little-endian elements.
func TestSharesMemory(t *testing.T) {
	b := make([]byte, 16)
	binary.LittleEndian.PutUint32(b[4:], math.Float32bits(1.5))
	v := As[float32](b)
	require.Len(t, v, 4)
	require.Equal(t, 4, cap(v))
	require.Equal(t, float32(1.5), v[1])
	v[3] = -2
	require.Equal(t, math.Float32bits(-2), binary.LittleEndian.Uint32(b[12:]))

	w := Bytes(v)
	require.Len(t, w, 16)
	require.Same(t, &b[0], &w[0])
	require.Equal(t, v, As[float32](w))
}

// TestMisaligned views a buffer at every offset within one element: the
// values read and written are those of the bytes there.
func TestMisaligned(t *testing.T) {
	base := make([]byte, 8*4+16)
	for off := range 16 {
		b := base[off : off+8*4]
		for i := range 4 {
			binary.LittleEndian.PutUint64(b[8*i:], uint64(i+1)*0x0101010101010101)
		}
		v := As[uint64](b)
		require.Equal(t, []uint64{0x0101010101010101, 0x0202020202020202, 0x0303030303030303, 0x0404040404040404}, v, "offset %d", off)
		v[2] = 7
		require.Equal(t, uint64(7), binary.LittleEndian.Uint64(b[16:]), "offset %d", off)

		c := As[complex128](b)
		c[1] = complex(1, -1)
		require.Equal(t, math.Float64bits(1), binary.LittleEndian.Uint64(b[16:]), "offset %d", off)
		require.Equal(t, math.Float64bits(-1), binary.LittleEndian.Uint64(b[24:]), "offset %d", off)
	}
}

// TestAppendCopies checks that appending to a view never writes into the
// rest of the buffer it came from.
func TestAppendCopies(t *testing.T) {
	b := make([]byte, 12)
	v := As[uint32](b[:8])
	v = append(v, 0xffffffff)
	require.Equal(t, []byte{0, 0, 0, 0}, b[8:])
	require.Len(t, v, 3)
}

// bf16 is a named element type like those the kernels define.
type bf16 uint16

func TestNamedTypes(t *testing.T) {
	b := []byte{1, 2, 3, 4}
	require.Equal(t, []bf16{0x0201, 0x0403}, As[bf16](b))
	require.Equal(t, b, Bytes(As[bf16](b)))
}
