package linalg

import (
	"encoding/binary"
	"testing"

	"github.com/gojax/gojax/go/kernels/internal/floatconv/floatref"
)

// TestFromF64NarrowExact checks that results computed in f64 are rounded
// once to every narrow float type (not through f32).
func TestFromF64NarrowExact(t *testing.T) {
	for _, s := range floatref.Specs {
		xs := s.Cases()
		dst := make([]byte, len(xs)*s.T.ByteSize())
		fromF64(dst, xs, s.T)
		bad := 0
		for i, x := range xs {
			got := uint32(dst[i])
			if s.T.ByteSize() == 2 {
				got = uint32(binary.LittleEndian.Uint16(dst[2*i:]))
			}
			if want := s.Round(x); !s.Is(got, want) && bad < 5 {
				bad++
				t.Errorf("%s of %v: got %#x, want %#x", s.T, x, got, want)
			}
		}
	}
}
