package devmem

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAllocAlignedAndAccounted(t *testing.T) {
	before := ReadStats()
	var bufs [][]byte
	for _, n := range []int{0, 1, 63, 64, 1000, 1 << 20} {
		b, err := Alloc(n)
		require.NoError(t, err)
		require.Len(t, b, n)
		require.Zero(t, uintptr(Pointer(b))%Alignment, "size %d", n)
		bufs = append(bufs, b)
	}
	mid := ReadStats()
	require.Equal(t, before.LiveAllocs+6, mid.LiveAllocs)
	require.Equal(t, before.BytesInUse+1+63+64+1000+(1<<20), mid.BytesInUse)
	for _, b := range bufs {
		Free(b)
	}
	require.Equal(t, before.BytesInUse, ReadStats().BytesInUse)
	require.GreaterOrEqual(t, ReadStats().PeakBytes, mid.BytesInUse)
}

func TestAllocZeroed(t *testing.T) {
	b, err := AllocZeroed(4096)
	require.NoError(t, err)
	defer Free(b)
	for _, v := range b {
		require.Zero(t, v)
	}
}

func TestNegativeSizeIsAnError(t *testing.T) {
	_, err := Alloc(-1)
	require.Error(t, err)
}
