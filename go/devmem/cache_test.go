package devmem

import (
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// withBudget runs f with an empty cache of the given budget and restores
// the previous budget afterwards.
func withBudget(t *testing.T, budget int64, f func()) {
	t.Helper()
	old := CacheBudget()
	TrimCache()
	SetCacheBudget(budget)
	defer func() {
		SetCacheBudget(old)
		TrimCache()
	}()
	f()
}

func TestClassOf(t *testing.T) {
	require.Zero(t, classOf(0))
	require.Zero(t, classOf(MinCachedBytes-1))
	require.Equal(t, MinCachedBytes, classOf(MinCachedBytes))
	require.Equal(t, 16<<20, classOf(16<<20))
	require.Equal(t, 18<<20, classOf(16<<20+1))
	for n := MinCachedBytes; n < 64<<20; n = n*9/8 + 12345 {
		c := classOf(n)
		require.GreaterOrEqual(t, c, n)
		require.Zero(t, c%pageSize)
		require.LessOrEqual(t, c-n, n/8+pageSize, "class %d for %d", c, n)
		require.Equal(t, c, classOf(c), "a class serves itself")
	}
}

func TestCacheReusesFreedBlocks(t *testing.T) {
	withBudget(t, 64<<20, func() {
		before := ReadStats()
		a, err := Alloc(1 << 20)
		require.NoError(t, err)
		require.Zero(t, uintptr(Pointer(a))%Alignment)
		a[0], a[len(a)-1] = 1, 2
		pa := Pointer(a)
		Free(a)
		s := ReadStats()
		require.Equal(t, before.BytesInUse, s.BytesInUse, "a cached block is not in use")
		require.Equal(t, int64(classOf(1<<20)), s.CachedBytes)

		// A request of the same class gets the same block back.
		b, err := Alloc(1<<20 - 100)
		require.NoError(t, err)
		require.Equal(t, pa, Pointer(b))
		require.Len(t, b, 1<<20-100)
		s = ReadStats()
		require.Equal(t, before.CacheHits+1, s.CacheHits)
		require.Zero(t, s.CachedBytes)
		require.Equal(t, before.BytesInUse+1<<20-100, s.BytesInUse)

		// Small requests never go through the cache.
		c, err := Alloc(1000)
		require.NoError(t, err)
		Free(c)
		require.Zero(t, ReadStats().CachedBytes)
		Free(b)
		require.Equal(t, before.BytesInUse, ReadStats().BytesInUse)
		require.Equal(t, int64(classOf(1<<20)), TrimCache())
		require.Zero(t, ReadStats().CachedBytes)
	})
}

func TestCacheBudgetEvictsOldest(t *testing.T) {
	const mb = 1 << 20
	withBudget(t, 3*mb, func() {
		var bufs [][]byte
		for range 4 {
			b, err := Alloc(mb)
			require.NoError(t, err)
			bufs = append(bufs, b)
		}
		first := Pointer(bufs[0])
		for _, b := range bufs {
			Free(b)
		}
		require.Equal(t, int64(3*mb), ReadStats().CachedBytes, "the budget bounds the cache")
		c.mu.Lock()
		_, kept := c.where[first]
		c.mu.Unlock()
		require.False(t, kept, "the oldest block went first")

		// A block larger than the budget is not cached at all.
		big, err := Alloc(4 * mb)
		require.NoError(t, err)
		Free(big)
		require.Equal(t, int64(3*mb), ReadStats().CachedBytes)

		SetCacheBudget(mb)
		require.Equal(t, int64(mb), ReadStats().CachedBytes, "lowering the budget trims")
	})
}

var c = theCache

func TestCacheDisabled(t *testing.T) {
	withBudget(t, 0, func() {
		b, err := Alloc(1 << 20)
		require.NoError(t, err)
		Free(b)
		require.Zero(t, ReadStats().CachedBytes)
		require.Zero(t, CacheBudget())
	})
}

func TestCacheIdleRelease(t *testing.T) {
	old := idleRelease
	idleRelease = 50 * time.Millisecond
	defer func() { idleRelease = old }()
	withBudget(t, 64<<20, func() {
		b, err := Alloc(1 << 20)
		require.NoError(t, err)
		Free(b)
		require.NotZero(t, ReadStats().CachedBytes)
		require.Eventually(t, func() bool { return ReadStats().CachedBytes == 0 }, 5*time.Second, 10*time.Millisecond,
			"an idle cache gives its memory back")
		// The timer re-arms for later frees.
		b, err = Alloc(1 << 20)
		require.NoError(t, err)
		Free(b)
		require.Eventually(t, func() bool { return ReadStats().CachedBytes == 0 }, 5*time.Second, 10*time.Millisecond)
	})
}

func TestCacheDoubleFreePanics(t *testing.T) {
	withBudget(t, 64<<20, func() {
		b, err := Alloc(1 << 20)
		require.NoError(t, err)
		Free(b)
		require.Panics(t, func() { Free(b) })
	})
}

// TestCacheConcurrentOwnersDisjoint has goroutines allocate, fill, check and
// free blocks of a few sizes at once (run with -race): a block is never
// handed to two live owners, and every owner reads back what it wrote.
func TestCacheConcurrentOwnersDisjoint(t *testing.T) {
	withBudget(t, 8<<20, func() {
		sizes := []int{MinCachedBytes, 100 << 10, 1 << 20, 1<<20 + 4096, 3 << 20}
		var live sync.Map
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 200 {
					n := sizes[(g+i)%len(sizes)]
					b, err := Alloc(n)
					if err != nil {
						t.Error(err)
						return
					}
					p := uintptr(Pointer(b))
					if _, dup := live.LoadOrStore(p, g); dup {
						t.Errorf("block %#x handed out twice", p)
						return
					}
					v := byte(g*31 + i)
					for j := 0; j < n; j += 512 {
						b[j] = v
					}
					b[n-1] = v
					for j := 0; j < n; j += 512 {
						if b[j] != v {
							t.Errorf("block %#x changed under its owner", p)
							return
						}
					}
					live.Delete(p)
					Free(b)
				}
			}()
		}
		wg.Wait()
		s := ReadStats()
		require.LessOrEqual(t, s.CachedBytes, int64(8<<20))
		require.Positive(t, s.CacheHits)
	})
}

func TestCachedBlocksAreUnmappedOnTrim(t *testing.T) {
	withBudget(t, 64<<20, func() {
		b, err := Alloc(2 << 20)
		require.NoError(t, err)
		Free(b)
		require.Equal(t, int64(2<<20), TrimCache())
		// The address space is free again: a new mapping may land there;
		// at least the allocator still works and accounts correctly.
		b2, err := Alloc(2 << 20)
		require.NoError(t, err)
		require.NotNil(t, unsafe.Pointer(Pointer(b2)))
		Free(b2)
	})
}

func TestMemAvailable(t *testing.T) {
	avail := memAvailable()
	if avail < 0 {
		t.Skip("no /proc/meminfo")
	}
	require.Positive(t, avail)
	require.LessOrEqual(t, avail, physBytes())
	require.Positive(t, DefaultCacheBudget())
	require.LessOrEqual(t, DefaultCacheBudget(), int64(1<<30))
}
