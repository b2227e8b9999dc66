package shape

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
)

// TestFastGather checks the block path (points and rows, every index type,
// indices clamped on both sides, more slices than a block, split over
// workers) against element-by-element indexing written from the spec.
func TestFastGather(t *testing.T) {
	rng := rand.New(rand.NewSource(13))
	const rows, cols = 37, 5
	for _, et := range []ir.ElemType{ir.U8, ir.BF16, ir.F32, ir.F64, ir.C128} {
		es := et.ByteSize()
		operand := make([]byte, rows*cols*es)
		rng.Read(operand)
		for _, it := range []ir.ElemType{ir.S8, ir.S32, ir.S64, ir.U8, ir.U32, ir.U64} {
			for _, count := range []int{1, 1500} {
				for _, points := range []bool{true, false} {
					vec := 1
					if points {
						vec = 2
					}
					raw := make([]int64, count*vec)
					for i := range raw {
						raw[i] = int64(rng.Intn(rows+20) - 10)
					}
					ix := encodeIndices(it, raw)
					var op *ir.Op
					var outShape []int64
					if points { // x[i, j]: slices of one element
						outShape = []int64{int64(count)}
						op = mkOp("stablehlo.gather", []ir.Type{ir.Tensor(et, rows, cols), ir.Tensor(it, int64(count), 2)},
							[]ir.Type{ir.Tensor(et, outShape...)}, ir.Attrs{
								"offset_dims": i64a(), "collapsed_slice_dims": i64a(0, 1), "start_index_map": i64a(0, 1),
								"index_vector_dim": ir.IntAttr{Value: 1}, "slice_sizes": i64a(1, 1)})
					} else { // take(x, i, axis=0): rows, implicit index vector
						outShape = []int64{int64(count), cols}
						op = mkOp("stablehlo.gather", []ir.Type{ir.Tensor(et, rows, cols), ir.Tensor(it, int64(count))},
							[]ir.Type{ir.Tensor(et, outShape...)}, ir.Attrs{
								"offset_dims": i64a(1), "collapsed_slice_dims": i64a(0), "start_index_map": i64a(0),
								"index_vector_dim": ir.IntAttr{Value: 1}, "slice_sizes": i64a(1, cols)})
					}
					clamp := func(v int64, hi int) int {
						v = decodedIndex(it, v)
						if it == ir.U64 && v < 0 {
							return hi // above MaxInt64 as an unsigned value
						}
						return int(min(max(v, 0), int64(hi)))
					}
					t.Run(fmt.Sprint(et, it, count, points), func(t *testing.T) {
						for _, ctx := range testCtxs {
							got := runOp(t, ctx, op, operand, ix)[0]
							for b := range count {
								if points {
									r, c := clamp(raw[2*b], rows-1), clamp(raw[2*b+1], cols-1)
									require.Equal(t, operand[(r*cols+c)*es:(r*cols+c+1)*es], got[b*es:(b+1)*es], "slice %d", b)
								} else {
									r := clamp(raw[b], rows-1)
									require.Equal(t, operand[r*cols*es:(r+1)*cols*es], got[b*cols*es:(b+1)*cols*es], "slice %d", b)
								}
							}
						}
					})
				}
			}
		}
	}
}

// TestFastGatherTake checks x[i] on a vector (take's one-loop path for 32-
// and 64-bit indices and 4- and 8-byte elements, the block path for the
// rest) against indexing written from the spec, indices clamped on both
// sides, split over workers.
func TestFastGatherTake(t *testing.T) {
	rng := rand.New(rand.NewSource(14))
	const n, count = 100, 1500 // indices from -20 to 119 fit int8
	for _, et := range []ir.ElemType{ir.U8, ir.BF16, ir.F32, ir.F64, ir.C128} {
		es := et.ByteSize()
		operand := make([]byte, n*es)
		rng.Read(operand)
		for _, it := range []ir.ElemType{ir.S8, ir.S32, ir.S64, ir.U32, ir.U64} {
			raw := make([]int64, count)
			for i := range raw {
				raw[i] = int64(rng.Intn(n+40) - 20)
			}
			ix := encodeIndices(it, raw)
			op := mkOp("stablehlo.gather", []ir.Type{ir.Tensor(et, n), ir.Tensor(it, count)},
				[]ir.Type{ir.Tensor(et, count)}, ir.Attrs{
					"offset_dims": i64a(), "collapsed_slice_dims": i64a(0), "start_index_map": i64a(0),
					"index_vector_dim": ir.IntAttr{Value: 1}, "slice_sizes": i64a(1)})
			t.Run(fmt.Sprint(et, it), func(t *testing.T) {
				for _, ctx := range testCtxs {
					got := runOp(t, ctx, op, operand, ix)[0]
					for b, v := range raw {
						v = decodedIndex(it, v)
						r := int(min(max(v, 0), n-1))
						if it == ir.U64 && v < 0 {
							r = n - 1 // above MaxInt64 as an unsigned value
						}
						require.Equal(t, operand[r*es:(r+1)*es], got[b*es:(b+1)*es], "element %d (index %d)", b, v)
					}
				}
			})
		}
	}
}
