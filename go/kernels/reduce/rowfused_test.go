package reduce

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
)

// RowReduce must give stablehlo.reduce's bits over trailing dims, rows taken
// in any grouping (one row at a time or many).
func TestRowReduceMatchesReduce(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for _, et := range []ir.ElemType{ir.F32, ir.F64, ir.BF16, ir.S32} {
		for _, body := range []string{"stablehlo.add", "stablehlo.maximum", "stablehlo.multiply"} {
			for _, shape := range [][]int64{{3, 7}, {5, 1024}, {2, 3, 100}, {2, 20000}} {
				rows := shape[0]
				n := int64(1)
				for _, d := range shape[1:] {
					n *= d
				}
				dims := []int64{}
				for d := 1; d < len(shape); d++ {
					dims = append(dims, int64(d))
				}
				in := make([]byte, rows*n*int64(et.ByteSize()))
				r.Read(in)
				if et == ir.F32 || et == ir.BF16 || et == ir.F64 {
					// Mostly finite values: random bytes are often NaN/huge.
					for i := 0; i < len(in); i += et.ByteSize() {
						in[i+et.ByteSize()-1] &= 0x3f
					}
				}
				init := make([]byte, et.ByteSize())
				want := runOp(t, testCtxs[0], reduceOp(et, shape, dims, binRegion(body, et)), in, init)[0]
				fn, ok := RowReduce(binRegion(body, et), et, int(n))
				require.True(t, ok)
				got := make([]byte, len(want))
				es := int64(et.ByteSize())
				for k := int64(0); k < rows; k++ { // one row at a time
					fn(got[k*es:(k+1)*es], in[k*n*es:(k+1)*n*es], init, 1)
				}
				require.Equal(t, want, got, "%s %s %v", et, body, shape)
				clear(got)
				fn(got, in, init, int(rows)) // all rows at once
				require.Equal(t, want, got, "%s %s %v", et, body, shape)
			}
		}
	}
}

func TestRowReduceNoFastPath(t *testing.T) {
	_, ok := RowReduce(binRegion("stablehlo.subtract", ir.F32), ir.F32, 8)
	require.False(t, ok, "a body without a fast path")
	_, ok = RowReduce(binRegion("stablehlo.and", ir.F32), ir.F32, 8)
	require.False(t, ok, "a float and has no typed kernels")
	_, ok = RowReduce(binRegion("stablehlo.add", ir.F32), ir.F32, 0)
	require.False(t, ok)
}
