//go:build amd64 && !purego

package shape

import (
	"unsafe"

	"github.com/gojax/gojax/go/internal/cpufeat"
)

//go:noescape
func takeFill32Z(dst, src *uint32, ix *int32, n, wrap, lim int, fill uint32, pf *byte)

// vectorTakeFill is whether takeFill32 runs the vector loop; tests turn it
// off to run the Go loop.
var vectorTakeFill = cpufeat.Widest() == "Z"

// takeFill32Vec gathers the first n &^ 15 elements of a contiguous run with
// the vector loop (s: the valid entries, len(s) < 2^31; wrap < 2^31) and
// returns how many it did; next, when not empty, is the table the next run
// reads (prefetched meanwhile).
func takeFill32Vec(d, s []uint32, x []int32, wrap int64, fill uint32, next []uint32) int {
	k := len(x) &^ 15
	if !vectorTakeFill || k == 0 || len(s) == 0 {
		return 0
	}
	var pf *byte
	if len(next) > 0 {
		pf = (*byte)(unsafe.Pointer(&next[0]))
	}
	takeFill32Z(&d[0], &s[0], &x[0], k, int(wrap), len(s), fill, pf)
	return k
}
