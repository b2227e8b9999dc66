package shape

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/ir"
)

// The contiguous fill take (take_along_axis's rows), vector loop and Go
// loop: each index wrapped when negative, then gathered when in range and
// filled otherwise, for the extreme int32 values, both sides of every
// bound, runs of every length around the vector width, with and without a
// wrap.
func TestTakeFillContiguous(t *testing.T) {
	const fill = 0xdeadbeef
	for _, n := range []int{1, 5, 7, 15, 16, 17, 31, 32, 33, 100, 1000, 4096} {
		for _, tableLen := range []int{1, 5, 16, 4096} {
			for _, wrap := range []int64{0, int64(tableLen), 3 * int64(tableLen)} {
				s := make([]uint32, tableLen)
				for i := range s {
					s[i] = uint32(i*2654435761) | 1
				}
				edges := []int32{math.MinInt32, math.MaxInt32, -1, 0, int32(tableLen - 1), int32(tableLen), int32(tableLen + 1),
					int32(-tableLen), int32(-tableLen - 1), int32(-wrap), int32(-wrap - 1), int32(1 - wrap)}
				x := randIdx(n, 3*tableLen+6)
				for i := range x {
					x[i] -= int32(tableLen + 3)
					if i%5 == 0 {
						x[i] = edges[(i/5)%len(edges)]
					}
				}
				want := make([]uint32, n)
				for j, i := range x {
					v := int64(i)
					if v < 0 {
						v += wrap
					}
					want[j] = fill
					if v >= 0 && v < int64(tableLen) {
						want[j] = s[v]
					}
				}
				for _, vec := range []bool{false, true} {
					t.Run(fmt.Sprintf("n%d/len%d/wrap%d/vec=%v", n, tableLen, wrap, vec), func(t *testing.T) {
						saved := vectorTakeFill
						vectorTakeFill = vec && saved
						defer func() { vectorTakeFill = saved }()
						// The run sits inside larger buffers, as a row of a batch does.
						g := &fastGather{idxElem: ir.S32, es: 4, vecLen: 1, maxStart: []int64{int64(tableLen - 1)}, stStride: []int64{1},
							wrap: wrap, fill: []byte{0xef, 0xbe, 0xad, 0xde}}
						// A second table after the first: runs as long as the
						// table prefetch it.
						src := append(append(append([]uint32{7, 7, 7}, s...), s...), 9, 9)
						ix := append(append([]int32{0, 0}, x...), 0)
						dst := make([]uint32, n+4)
						require.True(t, g.take(u32Bytes(dst), u32Bytes(src), i32s(ix...), pointRun{n: n, d0: 1, ds: 1, s0: 3, i0: 2, is: 1}))
						require.Equal(t, want, dst[1:n+1])
						require.Equal(t, []uint32{0, 0, 0}, []uint32{dst[0], dst[n+1], dst[n+3]})
					})
				}
			}
		}
	}
}

func u32Bytes(v []uint32) []byte { return byteview.Bytes(v) }
