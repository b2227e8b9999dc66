package verify

import (
	"hash/maphash"

	"github.com/gojax/gojax/go/ir"
)

// valueSet is the verifier's set of defined values: an open-addressing hash
// table of values (linear probing, deletion by backward shift), recycled
// between modules with its table. It holds the values themselves, so an
// entry keeps its value alive and cannot be confused with a later value at
// a reused address; an emptied set holds none, so a recycled one keeps no
// module alive.
type valueSet struct {
	slots []*ir.Value // nil is an empty slot; len is a power of two
	n     int
	shift uint // 64 - log2(len(slots))
}

var valueSeed = maphash.MakeSeed()

const minSetSlots = 64

func (s *valueSet) home(k *ir.Value) int {
	return int(maphash.Comparable(valueSeed, k) >> s.shift)
}

func (s *valueSet) has(k *ir.Value) bool {
	if s.n == 0 {
		return false
	}
	mask := len(s.slots) - 1
	for i := s.home(k); ; i = (i + 1) & mask {
		switch s.slots[i] {
		case k:
			return true
		case nil:
			return false
		}
	}
}

func (s *valueSet) add(k *ir.Value) {
	if 2*(s.n+1) > len(s.slots) {
		s.grow()
	}
	mask := len(s.slots) - 1
	for i := s.home(k); ; i = (i + 1) & mask {
		switch s.slots[i] {
		case k:
			return
		case nil:
			s.slots[i] = k
			s.n++
			return
		}
	}
}

func (s *valueSet) del(k *ir.Value) {
	if s.n == 0 {
		return
	}
	mask := len(s.slots) - 1
	i := s.home(k)
	for ; s.slots[i] != k; i = (i + 1) & mask {
		if s.slots[i] == nil {
			return
		}
	}
	// Shift later entries of the probe run back over the hole when their
	// home position does not lie cyclically in (hole, their slot].
	for j := (i + 1) & mask; s.slots[j] != nil; j = (j + 1) & mask {
		h := s.home(s.slots[j])
		if (j > i && (h <= i || h > j)) || (j < i && h <= i && h > j) {
			s.slots[i] = s.slots[j]
			i = j
		}
	}
	s.slots[i] = nil
	s.n--
}

func (s *valueSet) grow() {
	old := s.slots
	size := max(2*len(old), minSetSlots)
	s.slots = make([]*ir.Value, size)
	s.shift = 64
	for size > 1 {
		size >>= 1
		s.shift--
	}
	s.n = 0
	for _, k := range old {
		if k != nil {
			s.add(k)
		}
	}
}

// reset empties the set, keeping its table.
func (s *valueSet) reset() {
	if s.n != 0 {
		clear(s.slots)
		s.n = 0
	}
}
