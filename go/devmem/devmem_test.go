package devmem

import (
	"errors"
	"testing"
	"unsafe"

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

// Blocks of two huge pages or more start on a huge-page boundary (so the
// kernel can back them with transparent huge pages), whatever their size
// class, and unmapping them gives back exactly what was kept.
func TestLargeBlocksHugePageAligned(t *testing.T) {
	for _, n := range []int{4 << 20, 4<<20 + 4096, 9<<20 + 123, 64 << 20} {
		class := classOf(n)
		p := sysAlloc(n, class)
		require.NotNil(t, p, "size %d", n)
		require.Zero(t, uintptr(p)%(2<<20), "size %d", n)
		b := unsafe.Slice((*byte)(p), class)
		b[0], b[n-1], b[class-1] = 1, 2, 3 // the whole class is mapped
		sysFree(p, class)
	}
	p := sysAlloc(1<<20, classOf(1<<20))
	require.NotNil(t, p)
	sysFree(p, classOf(1<<20))
}

// An allocation the system cannot back is an *OutOfMemoryError naming the
// size (reported to JAX as RESOURCE_EXHAUSTED), not a crash; both the cached
// size classes (mmap) and small blocks (malloc) fail this way.
func TestOutOfMemoryIsTyped(t *testing.T) {
	before := ReadStats()
	for _, n := range []int{1 << 50, 1<<62 - 1} {
		b, err := Alloc(n)
		require.Nil(t, b)
		var oom *OutOfMemoryError
		require.True(t, errors.As(err, &oom), "%v", err)
		require.Equal(t, n, oom.Bytes)
		require.Contains(t, err.Error(), "out of memory")
	}
	require.Equal(t, before.BytesInUse, ReadStats().BytesInUse)
}
