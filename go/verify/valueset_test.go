package verify

import (
	"math/rand/v2"
	"testing"
)

// The open-addressing set agrees with a map under random adds and deletes
// (keys drawn from a small range so probe runs collide and wrap).
func TestValueSetMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var s valueSet
	ref := map[valueKey]bool{}
	for step := 0; step < 200000; step++ {
		k := valueKey(1 + rng.IntN(300)*8)
		switch rng.IntN(3) {
		case 0, 1:
			s.add(k)
			ref[k] = true
		case 2:
			s.del(k)
			delete(ref, k)
		}
		if s.n != len(ref) {
			t.Fatalf("step %d: size %d, want %d", step, s.n, len(ref))
		}
		if step%97 == 0 {
			for q := valueKey(1); q < 301*8; q += 8 {
				if s.has(q) != ref[q] {
					t.Fatalf("step %d: has(%d) = %v, want %v", step, q, s.has(q), ref[q])
				}
			}
		}
		if step%50000 == 0 {
			s.reset()
			clear(ref)
		}
	}
}
