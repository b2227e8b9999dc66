package devmem

import (
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gojax/gojax/go/config"
)

// The cache keeps freed large blocks for the next Alloc of the same size
// class. A program run again allocates the same output sizes, and a block
// whose pages are still mapped costs nothing to reuse, where a fresh one
// costs a page fault and a page clear per 4 KiB on first touch (16 MiB: 4096
// faults, several milliseconds of system time).
//
// Only memory its owner has freed enters the cache, so reuse never changes
// who may see a block: the runtime frees a buffer's memory only once no
// execution, copy or external reference (DLPack, NumPy, Arrow) uses it.
//
// The cache holds at most its budget (GOJAX_BUFFER_CACHE_BYTES, default
// min(1 GiB, RAM/8); 0 disables it): past it, the oldest blocks are
// unmapped. Blocks unused for 5 s are unmapped by a timer, so an idle
// process gives the memory back, and a failed allocation empties the cache
// before it reports out-of-memory. While the system is low on memory
// (MemAvailable under RAM/16, looked at most once a second when a block is
// cached), the cache empties itself.
//
// Cached blocks keep their pages: marking them MADV_FREE on the way in would
// let the kernel reclaim them under pressure, but measured it cost 0.5-0.7 ms
// of system time per 16-64 MiB block and slowed the next writer (dirty-bit
// and TLB work), for no fewer page faults.

// MinCachedBytes is the smallest request served from size classes (and the
// cache); smaller ones go to malloc, which recycles them well by itself.
const MinCachedBytes = 64 << 10

const pageSize = 4096

// classOf returns the block size that serves an n-byte request (0: not a
// cached class). Classes are page multiples with eight steps per power of
// two, so a class wastes at most 1/8 of the request's address space (pages
// past the request are never touched, so never backed by memory, but for
// the rest of a huge page the request ends in: under 2 MiB per block).
func classOf(n int) int {
	if n < MinCachedBytes {
		return 0
	}
	step := 1 << (bits.Len(uint(n)) - 1) / 8
	if step < pageSize {
		step = pageSize
	}
	return (n + step - 1) / step * step
}

// idleRelease is how long a cached block may go unused before the cache
// unmaps it (a variable only so tests can shorten it).
var idleRelease = 5 * time.Second

type cachedBlock struct {
	p     unsafe.Pointer
	freed time.Duration // when it entered the cache (since epoch)
}

type blockCache struct {
	mu      sync.Mutex
	budget  int64
	bytes   int64                  // sum of cached class sizes
	classes map[int][]cachedBlock  // oldest first
	where   map[unsafe.Pointer]int // every cached block's class (double-free check)
	timer   *time.Timer
	armed   bool

	cached    atomic.Int64 // bytes, readable without the lock
	hits      atomic.Int64
	lastCheck atomic.Int64 // when checkPressure last looked (since epoch)
}

var (
	epoch    = time.Now()
	theCache = &blockCache{
		budget:  startBudget(),
		classes: map[int][]cachedBlock{},
		where:   map[unsafe.Pointer]int{},
	}
)

func now() time.Duration { return time.Since(epoch) }

// DefaultCacheBudget is the budget when GOJAX_BUFFER_CACHE_BYTES sets none:
// min(1 GiB, RAM/8).
func DefaultCacheBudget() int64 {
	b := int64(1 << 30)
	if ram := physBytes(); ram > 0 && ram/8 < b {
		b = ram / 8
	}
	return b
}

// startBudget is the budget at load: GOJAX_BUFFER_CACHE_BYTES, else the
// default.
func startBudget() int64 {
	if n := config.Env().BufferCacheBytes; n >= 0 {
		return n
	}
	return DefaultCacheBudget()
}

// SetCacheBudget sets the most bytes the cache may hold (0 disables it; < 0
// restores the default) and unmaps what is over it.
func SetCacheBudget(n int64) {
	if n < 0 {
		n = DefaultCacheBudget()
	}
	c := theCache
	c.mu.Lock()
	c.budget = n
	c.mu.Unlock()
	c.trim(n)
}

// CacheBudget returns the cache's byte budget.
func CacheBudget() int64 {
	c := theCache
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.budget
}

// TrimCache unmaps every cached block and returns the bytes released.
func TrimCache() int64 { return theCache.trim(0) }

// get pops the most recently freed block of the class (its pages are the
// likeliest to be in the CPU caches), or returns nil.
func (c *blockCache) get(class int) unsafe.Pointer {
	c.mu.Lock()
	defer c.mu.Unlock()
	list := c.classes[class]
	if len(list) == 0 {
		return nil
	}
	b := list[len(list)-1]
	list[len(list)-1] = cachedBlock{}
	c.classes[class] = list[:len(list)-1]
	delete(c.where, b.p)
	c.bytes -= int64(class)
	c.cached.Store(c.bytes)
	c.hits.Add(1)
	return b.p
}

// put caches a freed block; false means the caller must unmap it (the
// cache is off or the block alone exceeds the budget).
func (c *blockCache) put(p unsafe.Pointer, class int) bool {
	c.mu.Lock()
	if int64(class) > c.budget {
		c.mu.Unlock()
		return false
	}
	if _, dup := c.where[p]; dup {
		c.mu.Unlock()
		panic(fmt.Sprintf("devmem: block %p freed twice", p))
	}
	c.where[p] = class
	c.classes[class] = append(c.classes[class], cachedBlock{p, now()})
	c.bytes += int64(class)
	var evicted []evictedBlock
	for c.bytes > c.budget {
		evicted = append(evicted, c.evictOldestLocked())
	}
	c.cached.Store(c.bytes)
	if !c.armed && c.bytes > 0 {
		c.armed = true
		c.armLocked(idleRelease)
	}
	c.mu.Unlock()
	for _, e := range evicted {
		sysFree(e.p, e.class)
	}
	c.checkPressure()
	return true
}

// pressureInterval is how often (at most) a put looks at the system's
// available memory.
const pressureInterval = time.Second

// checkPressure empties the cache when the system runs low on memory
// (MemAvailable under 1/16 of RAM): cached blocks are resident pages that
// the kernel cannot reclaim by itself.
func (c *blockCache) checkPressure() {
	t := now()
	last := c.lastCheck.Load()
	if time.Duration(t-time.Duration(last)) < pressureInterval || !c.lastCheck.CompareAndSwap(last, int64(t)) {
		return
	}
	avail, ram := memAvailable(), physBytes()
	if avail >= 0 && ram > 0 && avail < ram/16 {
		c.trim(0)
	}
}

// memAvailable reads MemAvailable from /proc/meminfo (-1: unknown).
func memAvailable() int64 { return meminfoBytes("MemAvailable:") }

type evictedBlock struct {
	p     unsafe.Pointer
	class int
}

// evictOldestLocked removes the block that has been cached longest.
func (c *blockCache) evictOldestLocked() evictedBlock {
	best := -1
	var t time.Duration
	for class, list := range c.classes {
		if len(list) > 0 && (best < 0 || list[0].freed < t) {
			best, t = class, list[0].freed
		}
	}
	return c.removeFirstLocked(best)
}

func (c *blockCache) removeFirstLocked(class int) evictedBlock {
	list := c.classes[class]
	b := list[0]
	copy(list, list[1:])
	list[len(list)-1] = cachedBlock{}
	if len(list) == 1 {
		delete(c.classes, class)
	} else {
		c.classes[class] = list[:len(list)-1]
	}
	delete(c.where, b.p)
	c.bytes -= int64(class)
	return evictedBlock{b.p, class}
}

// trim unmaps the oldest blocks until at most keep bytes stay cached and
// returns the bytes released.
func (c *blockCache) trim(keep int64) int64 {
	c.mu.Lock()
	var evicted []evictedBlock
	var n int64
	for c.bytes > keep {
		e := c.evictOldestLocked()
		evicted = append(evicted, e)
		n += int64(e.class)
	}
	c.cached.Store(c.bytes)
	if c.bytes == 0 && c.armed {
		c.timer.Stop()
		c.armed = false
	}
	c.mu.Unlock()
	for _, e := range evicted {
		sysFree(e.p, e.class)
	}
	return n
}

// armLocked schedules the idle sweep after d.
func (c *blockCache) armLocked(d time.Duration) {
	if c.timer == nil {
		c.timer = time.AfterFunc(d, c.sweep)
	} else {
		c.timer.Reset(d)
	}
}

// sweep unmaps blocks idle for idleRelease or longer and re-arms itself for
// the next block to expire while any remain.
func (c *blockCache) sweep() {
	c.mu.Lock()
	idle := idleRelease
	t := now()
	var evicted []evictedBlock
	next := time.Duration(-1)
	for class, list := range c.classes {
		for len(list) > 0 && t-list[0].freed >= idle {
			evicted = append(evicted, c.removeFirstLocked(class))
			list = c.classes[class]
		}
		if len(list) > 0 {
			if wait := idle - (t - list[0].freed); next < 0 || wait < next {
				next = wait
			}
		}
	}
	c.cached.Store(c.bytes)
	if next >= 0 {
		c.armLocked(next)
	} else {
		c.armed = false
	}
	c.mu.Unlock()
	for _, e := range evicted {
		sysFree(e.p, e.class)
	}
}
