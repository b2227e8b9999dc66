package shape

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/ir"
)

// refPoints applies updates one by one in update order, as the spec reads.
func refPoints[T byteview.Elem](operand []T, idx []int64, upd []T, f func(a, b T) T) []T {
	out := append([]T(nil), operand...)
	for u, i := range idx {
		if i >= 0 && i < int64(len(out)) {
			out[i] = f(out[i], upd[u])
		}
	}
	return out
}

func encodeIndices(et ir.ElemType, idx []int64) []byte {
	b := make([]byte, len(idx)*et.ByteSize())
	for i, v := range idx {
		switch et.ByteSize() {
		case 1:
			b[i] = byte(v)
		case 4:
			byteview.As[uint32](b)[i] = uint32(v)
		default:
			byteview.As[uint64](b)[i] = uint64(v)
		}
	}
	return b
}

// decodedIndex is what an encoded index means: unsigned types never
// negative.
func decodedIndex(et ir.ElemType, v int64) int64 {
	switch et {
	case ir.U8:
		return int64(uint8(v))
	case ir.U32:
		return int64(uint32(v))
	case ir.S32:
		return int64(int32(v))
	}
	return v
}

func pointScatterOp(et, it ir.ElemType, n int64, batch []int64, implicit bool, body string) *ir.Op {
	region := replaceRegion(et)
	if body != "replace" {
		region = binRegion(body, et)
	}
	idxShape := append([]int64(nil), batch...)
	ivd := int64(len(batch))
	if !implicit {
		idxShape = append(idxShape, 1)
	}
	return mkOpR("stablehlo.scatter",
		[]ir.Type{ir.Tensor(et, n), ir.Tensor(it, idxShape...), ir.Tensor(et, batch...)},
		[]ir.Type{ir.Tensor(et, n)}, ir.Attrs{
			"update_window_dims": i64a(), "inserted_window_dims": i64a(0), "input_batching_dims": i64a(),
			"scatter_indices_batching_dims": i64a(), "scatter_dims_to_operand_dims": i64a(0),
			"index_vector_dim": ir.IntAttr{Value: ivd}}, region)
}

// TestPointScatter checks the point path (bincount, segment_sum) against
// updates applied one by one: value and index types, every combiner,
// indices out of range on both sides, batch shapes of rank 1 and 2 with
// explicit and implicit index vectors, more updates than one block.
func TestPointScatter(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	const n = 37
	batches := [][]int64{{1}, {3000}, {40, 70}}
	for _, it := range []ir.ElemType{ir.S32, ir.S64, ir.U8, ir.U32} {
		for _, batch := range batches {
			for _, implicit := range []bool{false, true} {
				count := 1
				for _, d := range batch {
					count *= int(d)
				}
				idx := make([]int64, count)
				for i := range idx {
					idx[i] = decodedIndex(it, int64(rng.Intn(n+10)-5))
				}
				ix := encodeIndices(it, idx)
				name := fmt.Sprintf("%s/%v/implicit=%v", it, batch, implicit)
				t.Run(name+"/f32", func(t *testing.T) {
					op0 := make([]float32, n)
					upd := make([]float32, count)
					for i := range upd {
						upd[i] = float32(rng.NormFloat64())
					}
					upd[0] = float32(math.NaN())
					for body, f := range map[string]func(a, b float32) float32{
						"stablehlo.add":      func(a, b float32) float32 { return a + b },
						"stablehlo.multiply": func(a, b float32) float32 { return a * b },
						"stablehlo.maximum": func(a, b float32) float32 {
							if b > a || b != b {
								return b
							}
							return a
						},
						"replace": func(a, b float32) float32 { return b },
						"stablehlo.minimum": func(a, b float32) float32 {
							if b < a || b != b {
								return b
							}
							return a
						},
					} {
						got := runOp(t, testCtxs[1], pointScatterOp(ir.F32, it, n, batch, implicit, body),
							byteview.Bytes(op0), ix, byteview.Bytes(upd))
						want := refPoints(op0, idx, upd, f)
						for i := range want {
							require.Equal(t, math.Float32bits(want[i]), math.Float32bits(toF32(got[0])[i]), "%s at %d", body, i)
						}
					}
				})
				t.Run(name+"/s8", func(t *testing.T) {
					op0 := make([]int8, n)
					upd := make([]int8, count)
					for i := range upd {
						upd[i] = int8(rng.Intn(256) - 128)
					}
					for body, f := range map[string]func(a, b int8) int8{
						"stablehlo.add":     func(a, b int8) int8 { return a + b },
						"stablehlo.minimum": func(a, b int8) int8 { return min(a, b) },
						"stablehlo.xor":     func(a, b int8) int8 { return a ^ b },
					} {
						got := runOp(t, testCtxs[0], pointScatterOp(ir.S8, it, n, batch, implicit, body),
							byteview.Bytes(op0), ix, byteview.Bytes(upd))
						require.Equal(t, refPoints(op0, idx, upd, f), byteview.As[int8](got[0]), body)
					}
				})
				t.Run(name+"/u64+c128", func(t *testing.T) {
					op0 := make([]uint64, n)
					upd := make([]uint64, count)
					for i := range upd {
						upd[i] = rng.Uint64()
					}
					got := runOp(t, testCtxs[0], pointScatterOp(ir.U64, it, n, batch, implicit, "stablehlo.maximum"),
						byteview.Bytes(op0), ix, byteview.Bytes(upd))
					require.Equal(t, refPoints(op0, idx, upd, func(a, b uint64) uint64 { return max(a, b) }), byteview.As[uint64](got[0]))
					c0 := make([]complex128, n)
					cu := make([]complex128, count)
					for i := range cu {
						cu[i] = complex(rng.NormFloat64(), rng.NormFloat64())
					}
					got = runOp(t, testCtxs[0], pointScatterOp(ir.C128, it, n, batch, implicit, "stablehlo.add"),
						byteview.Bytes(c0), ix, byteview.Bytes(cu))
					require.Equal(t, refPoints(c0, idx, cu, func(a, b complex128) complex128 { return a + b }), byteview.As[complex128](got[0]))
				})
			}
		}
	}
}

// Point scatters of many updates into a small operand split into parts
// folded into copies of identities (order-insensitive ops only); results
// are the serial ones exactly: integer ops of each kind, float max and min
// with NaNs of distinct payloads (the last one wins) and signed zeros.
func TestPointScatterParts(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	const n, count = 37, 300_000
	idx := make([]int64, count)
	for i := range idx {
		idx[i] = int64(rng.Intn(n+4) - 2)
	}
	ix := encodeIndices(ir.S32, idx)
	negZero := float32(math.Copysign(0, -1))
	fu := make([]float32, count)
	for i := range fu {
		switch rng.Intn(1000) {
		case 0:
			fu[i] = math.Float32frombits(0x7fc00000 | uint32(rng.Intn(1<<20)))
		case 1, 2:
			fu[i] = negZero
		case 3, 4:
			fu[i] = 0
		default:
			fu[i] = float32(rng.NormFloat64())
		}
	}
	f0 := make([]float32, n)
	for i := range f0 {
		f0[i] = []float32{negZero, 0, float32(math.Inf(-1)), float32(math.Inf(1))}[i%4]
	}
	isNeg := func(x float32) bool { return x == 0 && math.Signbit(float64(x)) }
	for body, f := range map[string]func(m, v float32) float32{
		"stablehlo.maximum": func(m, v float32) float32 {
			if v > m || v != v || (v == m && isNeg(m)) {
				return v
			}
			return m
		},
		"stablehlo.minimum": func(m, v float32) float32 {
			if v < m || v != v || (v == m && isNeg(v)) {
				return v
			}
			return m
		},
	} {
		want := refPoints(f0, idx, fu, f)
		for _, ctx := range testCtxs {
			got := toF32(runOp(t, ctx, pointScatterOp(ir.F32, ir.S32, n, []int64{count}, true, body), byteview.Bytes(f0), ix, byteview.Bytes(fu))[0])
			for i := range want {
				require.Equal(t, math.Float32bits(want[i]), math.Float32bits(got[i]), "%s chunk %d at %d", body, ctx.chunk, i)
			}
		}
	}
	iu := make([]int32, count)
	for i := range iu {
		iu[i] = int32(rng.Uint32())
		if i%3 == 0 {
			iu[i] = int32(rng.Intn(3)*2 - 1) // ±1: products stay away from 0
		}
	}
	i0 := make([]int32, n)
	for i := range i0 {
		i0[i] = int32(rng.Uint32())
	}
	for body, f := range map[string]func(a, b int32) int32{
		"stablehlo.add":      func(a, b int32) int32 { return a + b },
		"stablehlo.multiply": func(a, b int32) int32 { return a * b },
		"stablehlo.maximum":  func(a, b int32) int32 { return max(a, b) },
		"stablehlo.minimum":  func(a, b int32) int32 { return min(a, b) },
		"stablehlo.and":      func(a, b int32) int32 { return a & b },
		"stablehlo.or":       func(a, b int32) int32 { return a | b },
		"stablehlo.xor":      func(a, b int32) int32 { return a ^ b },
	} {
		want := refPoints(i0, idx, iu, f)
		for _, ctx := range testCtxs {
			got := runOp(t, ctx, pointScatterOp(ir.S32, ir.S32, n, []int64{count}, true, body), byteview.Bytes(i0), ix, byteview.Bytes(iu))
			require.Equal(t, want, byteview.As[int32](got[0]), "%s chunk %d", body, ctx.chunk)
		}
	}
	u8 := make([]uint8, count)
	for i := range u8 {
		u8[i] = uint8(rng.Intn(256))
	}
	for body, f := range map[string]func(a, b uint8) uint8{
		"stablehlo.maximum": func(a, b uint8) uint8 { return max(a, b) },
		"stablehlo.minimum": func(a, b uint8) uint8 { return min(a, b) },
	} {
		b0 := []uint8{7, 200, 0, 255}
		o0 := make([]uint8, n)
		for i := range o0 {
			o0[i] = b0[i%4]
		}
		want := refPoints(o0, idx, u8, f)
		for _, ctx := range testCtxs {
			got := runOp(t, ctx, pointScatterOp(ir.U8, ir.S32, n, []int64{count}, true, body), o0, ix, u8)
			require.Equal(t, want, got[0], "%s chunk %d", body, ctx.chunk)
		}
	}
}

// The identities: combining one leaves every value unchanged.
func TestPointIdentity(t *testing.T) {
	require.Equal(t, []byte{0, 0, 0, 0x80}, pointIdentity("stablehlo.maximum", ir.S32))
	require.Equal(t, []byte{0xff, 0xff, 0xff, 0x7f}, pointIdentity("stablehlo.minimum", ir.S32))
	require.Equal(t, []byte{0}, pointIdentity("stablehlo.maximum", ir.U8))
	require.Equal(t, []byte{0xff, 0xff}, pointIdentity("stablehlo.minimum", ir.U16))
	require.Equal(t, []byte{1, 0}, pointIdentity("stablehlo.multiply", ir.S16))
	require.Equal(t, math.Inf(-1), float64(byteview.As[float32](pointIdentity("stablehlo.maximum", ir.F32))[0]))
	require.Equal(t, math.Inf(1), byteview.As[float64](pointIdentity("stablehlo.minimum", ir.F64))[0])
	require.Nil(t, pointIdentity("stablehlo.add", ir.F32), "float sums depend on the order")
	require.Nil(t, pointIdentity("replace", ir.S32), "the last update wins")
	require.Nil(t, pointIdentity("stablehlo.add", ir.C64))
}
