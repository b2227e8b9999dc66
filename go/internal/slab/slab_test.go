package slab

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

func TestTakeIsolatesPieces(t *testing.T) {
	var s Slab[int]
	a := s.Take(3)
	b := s.Take(2)
	require.Len(t, a, 3)
	require.Equal(t, 3, cap(a), "pieces are capped")
	a = append(a, 7) // must reallocate, not overwrite b
	b[0], b[1] = 1, 2
	require.Equal(t, []int{0, 0, 0, 7}, a)
	require.Equal(t, []int{1, 2}, b)
	require.Nil(t, s.Take(0))
}

func TestTakeLargeAndGrowth(t *testing.T) {
	var s Slab[byte]
	big := s.Take(5000)
	require.Len(t, big, 5000)
	total := 0
	for i := 0; i < 10000; i++ {
		p := s.One()
		require.Zero(t, *p)
		*p = 1
		total++
	}
	require.LessOrEqual(t, cap(s.buf), limit)
	require.Equal(t, 10000, total)
}

func TestOneAllocatesInChunks(t *testing.T) {
	var s Slab[[4]int64]
	allocs := testing.AllocsPerRun(10, func() {
		for i := 0; i < 1000; i++ {
			s.One()
		}
	})
	require.Less(t, allocs, 10.0, "1000 elements should take a handful of chunk allocations")
}

func TestResetReusesZeroedChunks(t *testing.T) {
	var s Slab[int]
	for i := 0; i < 100; i++ {
		*s.One() = 42
	}
	s.Reset()
	allocs := testing.AllocsPerRun(5, func() {
		for i := 0; i < 100; i++ {
			p := s.One()
			if *p != 0 {
				t.Fatalf("reused element not zeroed: %d", *p)
			}
			*p = 42
		}
		s.Reset()
	})
	require.Zero(t, allocs, "after a Reset the same amount of work reuses the chunks")
}

// After a Reset the spares come in every size the slab grew through; a
// request bigger than the next spare must not get that spare (found by
// fuzzing the bytecode reader).
func TestResetThenLargerRequest(t *testing.T) {
	var s Slab[int]
	for i := 0; i < 200; i++ {
		s.Take(3)
	}
	s.Reset()
	for k := 0; k < 100; k++ { // uses up the big spares, then meets the 16-element one
		p := s.Take(24)
		require.Len(t, p, 24)
		for i := range p {
			p[i] = k
		}
	}
}

func TestReserveServesTakesFromOneChunk(t *testing.T) {
	var s Slab[int]
	s.Take(14) // a first chunk of 16, two left
	s.Reserve(10)
	a, b := s.Take(4), s.Take(6)
	require.Equal(t, 10, cap(a)+cap(b))
	// Both pieces sit in the reserved chunk, back to back.
	require.Equal(t, uintptr(unsafe.Pointer(&a[0]))+4*unsafe.Sizeof(0), uintptr(unsafe.Pointer(&b[0])))
	s.Reserve(0) // room enough: no new chunk
	s.Reset()
	require.Len(t, s.spare, 2, "the reserved chunk is recycled by Reset like any other")
}
