package verify

// valueSet is the verifier's set of defined values: an open-addressing hash
// table of value addresses (linear probing, deletion by backward shift). It
// holds no pointers, so the collector never scans it, and it is recycled
// between modules with its table.
type valueSet struct {
	slots []valueKey // 0 is an empty slot; len is a power of two
	n     int
	shift uint // 64 - log2(len(slots))
}

const minSetSlots = 64

func (s *valueSet) home(k valueKey) int {
	return int(uint64(k) * 0x9E3779B97F4A7C15 >> s.shift)
}

func (s *valueSet) has(k valueKey) bool {
	if s.n == 0 {
		return false
	}
	mask := len(s.slots) - 1
	for i := s.home(k); ; i = (i + 1) & mask {
		switch s.slots[i] {
		case k:
			return true
		case 0:
			return false
		}
	}
}

func (s *valueSet) add(k valueKey) {
	if 2*(s.n+1) > len(s.slots) {
		s.grow()
	}
	mask := len(s.slots) - 1
	for i := s.home(k); ; i = (i + 1) & mask {
		switch s.slots[i] {
		case k:
			return
		case 0:
			s.slots[i] = k
			s.n++
			return
		}
	}
}

func (s *valueSet) del(k valueKey) {
	if s.n == 0 {
		return
	}
	mask := len(s.slots) - 1
	i := s.home(k)
	for ; s.slots[i] != k; i = (i + 1) & mask {
		if s.slots[i] == 0 {
			return
		}
	}
	// Shift later entries of the probe run back over the hole when their
	// home position does not lie cyclically in (hole, their slot].
	for j := (i + 1) & mask; s.slots[j] != 0; j = (j + 1) & mask {
		h := s.home(s.slots[j])
		if (j > i && (h <= i || h > j)) || (j < i && h <= i && h > j) {
			s.slots[i] = s.slots[j]
			i = j
		}
	}
	s.slots[i] = 0
	s.n--
}

func (s *valueSet) grow() {
	old := s.slots
	size := max(2*len(old), minSetSlots)
	s.slots = make([]valueKey, size)
	s.shift = 64
	for size > 1 {
		size >>= 1
		s.shift--
	}
	s.n = 0
	for _, k := range old {
		if k != 0 {
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
