package verify

import "github.com/gojax/gojax/go/internal/slab"

// definedSets recycles the verifier's defined-value sets: building a set
// sized for a few thousand values is a large part of verifying a module.
// One set of modest size (spareSetSlots) is kept aside from the pool.
var definedSets slab.Recycler[valueSet]

// spareSetSlots bounds the set kept aside (256 KB).
const spareSetSlots = 1 << 15

// putSet empties s, keeping its table's size for the next module.
func putSet(s *valueSet) {
	s.reset()
	definedSets.Put(s, len(s.slots) <= spareSetSlots)
}
