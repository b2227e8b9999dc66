package shape

// A take from a table of at most 16 four-byte entries with 32-bit indices
// (lgamma's and digamma's coefficient tables, gathered once per element
// by jax.random's samplers) is a register permute: the table fits one
// AVX-512 register (two AVX2 ones), so a block of indices is clamped and
// looked up in four instructions instead of one load per element. The
// result is the Go loop's: indices clamped to [0, len-1], the entry copied.

// tableMax is the most entries a vector table holds.
const tableMax = 16

// take16 looks up n (a multiple of take16Block) clamped indices in table;
// nil where no vector set runs.
var (
	take16      func(dst *uint32, table *[tableMax]uint32, ix *int32, n, maxIdx int)
	take16Block int
)

// takeTable32 runs a contiguous take of a small table with the vector
// loop and the Go loop for the tail; false (doing nothing) when the run is
// not one.
func takeTable32(dst, src []uint32, ix []int32, r pointRun, maxStart, stride int64) bool {
	if take16 == nil || r.ds != 1 || r.ss != 0 || r.is != 1 || stride != 1 || maxStart >= tableMax || maxStart < 0 || r.n < take16Block {
		return false
	}
	var table [tableMax]uint32
	copy(table[:], src[r.s0:r.s0+int(maxStart)+1])
	k := r.n &^ (take16Block - 1)
	d, x := dst[r.d0:r.d0+r.n], ix[r.i0:r.i0+r.n]
	take16(&d[0], &table, &x[0], k, int(maxStart))
	tail := r
	tail.n, tail.d0, tail.i0 = r.n-k, r.d0+k, r.i0+k
	takeTyped(dst, src, ix, tail, maxStart, stride, 0)
	return true
}
