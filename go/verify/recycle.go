package verify

import "sync"

// definedSets recycles the verifier's defined-value sets: building a set
// sized for a few thousand values is a large part of verifying a module.
var definedSets = sync.Pool{New: func() any { return &valueSet{} }}

// spareSet keeps one set of modest size outside the pool: a sync.Pool keeps
// what is put back in the putting P's private slot, out of reach of a
// verifier whose goroutine moved to another P. Big sets stay with the pool,
// which the garbage collector empties.
var spareSet struct {
	sync.Mutex
	s *valueSet
}

// spareSetSlots bounds the set kept aside (256 KB).
const spareSetSlots = 1 << 15

func getSet() *valueSet {
	spareSet.Lock()
	s := spareSet.s
	spareSet.s = nil
	spareSet.Unlock()
	if s != nil {
		return s
	}
	return definedSets.Get().(*valueSet)
}

// putSet empties s, keeping its table's size for the next module.
func putSet(s *valueSet) {
	s.reset()
	if len(s.slots) <= spareSetSlots {
		spareSet.Lock()
		if spareSet.s == nil {
			spareSet.s, s = s, nil
		}
		spareSet.Unlock()
		if s == nil {
			return
		}
	}
	definedSets.Put(s)
}
