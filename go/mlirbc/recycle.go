package mlirbc

import "github.com/gojax/gojax/go/internal/slab"

// arenas recycles the memory of released files: a reader that converts the
// generic ops and drops them (go/vhlo) would otherwise leave most of what it
// allocated to the garbage collector. One arena of modest size (see small)
// is kept aside from the pool.
var arenas slab.Recycler[arena]

// spareMax bounds the values, value ids and ops of the arena kept aside
// (a few MB).
const spareMax = 1 << 15

// small reports whether a is modest enough to keep aside.
func (a *arena) small() bool {
	return cap(a.vals) <= spareMax && cap(a.ids.buf) <= 4*spareMax && a.nops <= spareMax
}
