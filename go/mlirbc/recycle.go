package mlirbc

import "sync"

// arenas recycles the memory of released files: a reader that converts the
// generic ops and drops them (go/vhlo) would otherwise leave most of what it
// allocated to the garbage collector.
var arenas = sync.Pool{New: func() any { return &arena{} }}

// spareArena keeps one released arena of modest size outside the pool. A
// sync.Pool keeps what is put back in the putting P's private slot, which a
// reader whose goroutine moved to another P cannot reach: it would build a
// whole new arena. Only small arenas are kept, so a huge artifact's memory is
// still left to the pool (which the garbage collector empties).
var spareArena struct {
	sync.Mutex
	a *arena
}

// spareMax bounds the values, value ids and ops of the arena kept aside
// (a few MB).
const spareMax = 1 << 15

// small reports whether a is modest enough to keep aside.
func (a *arena) small() bool {
	return cap(a.vals) <= spareMax && cap(a.ids.buf) <= 4*spareMax && a.nops <= spareMax
}

func getArena() *arena {
	spareArena.Lock()
	a := spareArena.a
	spareArena.a = nil
	spareArena.Unlock()
	if a != nil {
		return a
	}
	return arenas.Get().(*arena)
}

// putArena takes a reset arena back; small is what a.small said before the
// reset.
func putArena(a *arena, small bool) {
	if small {
		spareArena.Lock()
		if spareArena.a == nil {
			spareArena.a, a = a, nil
		}
		spareArena.Unlock()
		if a == nil {
			return
		}
	}
	arenas.Put(a)
}
