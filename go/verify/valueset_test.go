package verify

import (
	"math/rand/v2"
	"runtime"
	"testing"
	"weak"

	"github.com/gojax/gojax/go/ir"
)

// The open-addressing set agrees with a map under random adds and deletes
// (keys drawn from a small range so probe runs collide and wrap).
func TestValueSetMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var s valueSet
	vals := make([]*ir.Value, 300)
	for i := range vals {
		vals[i] = &ir.Value{Index: i}
	}
	ref := map[*ir.Value]bool{}
	for step := 0; step < 200000; step++ {
		k := vals[rng.IntN(len(vals))]
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
			for _, q := range vals {
				if s.has(q) != ref[q] {
					t.Fatalf("step %d: has(value %d) = %v, want %v", step, q.Index, s.has(q), ref[q])
				}
			}
		}
		if step%50000 == 0 {
			s.reset()
			clear(ref)
		}
	}
}

// A set keeps its values alive while they are in it, and an emptied set
// (as recycled between modules) keeps none.
func TestValueSetHoldsItsValues(t *testing.T) {
	var s valueSet
	v := &ir.Value{Index: 1}
	w := weak.Make(v)
	s.add(v)
	v = nil
	runtime.GC()
	if w.Value() == nil {
		t.Fatal("a value in the set was collected")
	}
	s.del(w.Value())
	runtime.GC()
	if w.Value() != nil {
		t.Fatal("a value deleted from the set is still held")
	}
	for i := range 100 {
		s.add(&ir.Value{Index: i})
	}
	u := &ir.Value{}
	wu := weak.Make(u)
	s.add(u)
	u = nil
	s.reset()
	runtime.GC()
	if wu.Value() != nil {
		t.Fatal("a reset set still holds a value")
	}
}
