package shape

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/ir"
)

// The fused point loops give the serial loop's results exactly: every
// type and combiner they cover, 32- and 64-bit indices, negative indices
// moved by the wrap attribute (and skipped where still negative), indices
// past the end, operands whose index step is a row (stride 3: only column 0
// is written), one value standing for all updates (splat), one update, and
// for floats NaNs with payloads on both sides and signed zeros.
func TestFusedPointScatter(t *testing.T) {
	t.Run("in range", func(t *testing.T) {
		inRangeOnly = true
		defer func() { inRangeOnly = false }()
		for _, zeros := range []bool{false, true} {
			zerosOnly = zeros
			for _, count := range []int{16, 17, 5000, 200_000} {
				checkFused[float32](t, ir.F32, ir.S32, 1, 0, count, false)
			}
		}
		zerosOnly = false
	})
	t.Run("signed zeros", func(t *testing.T) {
		zerosOnly = true
		defer func() { zerosOnly = false }()
		for _, count := range []int{1, 5000, 200_000} {
			saved := vectorPointsF32
			vectorPointsF32 = false
			checkFused[float32](t, ir.F32, ir.S32, 1, 37, count, false)
			vectorPointsF32 = saved
			checkFused[float32](t, ir.F32, ir.S32, 1, 37, count, false)
			checkFused[float32](t, ir.F32, ir.S32, 1, 0, count, false)
			checkFused[float64](t, ir.F64, ir.S64, 3, 0, count, false)
		}
	})
	for _, it := range []ir.ElemType{ir.S32, ir.S64} {
		for _, cols := range []int64{1, 3} {
			for _, wrap := range []int64{0, 37} {
				for _, count := range []int{1, 5000, 200_000} {
					for _, splat := range []bool{false, true} {
						name := fmt.Sprintf("%s/cols%d/wrap%d/n%d/splat=%v", it, cols, wrap, count, splat)
						t.Run(name, func(t *testing.T) {
							saved := vectorPointsF32
							vectorPointsF32 = false
							checkFused[float32](t, ir.F32, it, cols, wrap, count, splat)
							vectorPointsF32 = saved
							checkFused[float32](t, ir.F32, it, cols, wrap, count, splat)
							checkFused[float64](t, ir.F64, it, cols, wrap, count, splat)
							checkFused[int32](t, ir.S32, it, cols, wrap, count, splat)
							checkFused[int64](t, ir.S64, it, cols, wrap, count, splat)
							checkFused[uint32](t, ir.U32, it, cols, wrap, count, splat)
						})
					}
				}
			}
		}
	}
	require.Nil(t, fusedPointsFor("stablehlo.multiply", ir.F32, ir.S32, 9, 1, 0))
	require.Nil(t, fusedPointsFor("stablehlo.add", ir.F64, ir.S32, 9, 1, 0))
	require.Nil(t, fusedPointsFor("stablehlo.add", ir.F32, ir.U32, 9, 1, 0))
	require.NotNil(t, fusedPointsFor("stablehlo.maximum", ir.F32, ir.S32, 9, 1, 0))
}

// inRangeOnly makes checkFused's indices all valid.
var inRangeOnly bool

// zerosOnly makes checkFused's float values ±0 (and a few NaNs), whose
// order only the signed-zero rule decides.
var zerosOnly bool

func checkFused[T byteview.Elem](t *testing.T, et, it ir.ElemType, cols, wrap int64, count int, splat bool) {
	const rows = 37
	raw := randIdx(count, rows+8)
	idx := make([]int64, count)
	for i, v := range raw {
		idx[i] = int64(v) - 4 // -4 .. rows+3
		if inRangeOnly {
			idx[i] = int64(v) % rows // whole blocks for the vector loops
		}
	}
	float := et == ir.F32 || et == ir.F64
	val := func(x int32, i int) T {
		var z T
		switch any(z).(type) {
		case float32:
			f := float32(x%2000)/64 - 15
			if zerosOnly {
				f = float32(math.Copysign(0, float64(x%2)-0.5))
			}
			switch i % 101 {
			case 1:
				f = float32(math.Copysign(0, -1))
			case 2:
				f = 0
			case 3:
				f = math.Float32frombits(0x7fc00000 | uint32(i))
			}
			return any(f).(T)
		case float64:
			f := float64(x%2000)/64 - 15
			if zerosOnly {
				f = math.Copysign(0, float64(x%2)-0.5)
			}
			switch i % 101 {
			case 1:
				f = math.Copysign(0, -1)
			case 2:
				f = 0
			case 3:
				f = math.Float64frombits(0x7ff8000000000000 | uint64(i))
			}
			return any(f).(T)
		case int32:
			return any(x - 1<<30).(T)
		case int64:
			return any(int64(x)<<20 - 1<<40).(T)
		default:
			return any(uint32(x) * 977).(T)
		}
	}
	operand := make([]T, rows*cols)
	for i, x := range randIdx(len(operand), 1<<24) {
		operand[i] = val(x, i+50)
	}
	if float {
		operand[0] = val(0, 3)    // NaN: stays unless a NaN update comes
		operand[cols] = val(0, 1) // -0
	}
	upd := make([]T, count)
	for i, x := range randIdx(count, 1<<24) {
		upd[i] = val(x, i)
	}
	if splat {
		upd = upd[:1]
	}
	for _, kind := range []string{"stablehlo.add", "stablehlo.maximum", "stablehlo.minimum"} {
		want := append([]T(nil), operand...)
		for j, v := range idx {
			if v < 0 {
				v += wrap
			}
			if v < 0 || v >= rows {
				continue
			}
			u := upd[0]
			if !splat {
				u = upd[j]
			}
			want[v*cols] = combineRef(kind, want[v*cols], u)
		}
		updShape := []int64{int64(count)}
		winDims := []int64{}
		if cols > 1 {
			updShape, winDims = []int64{int64(count), 1}, []int64{1}
		}
		op := mkOpR("stablehlo.scatter",
			[]ir.Type{ir.Tensor(et, rows, cols), ir.Tensor(it, int64(count)), ir.Tensor(et, updShape...)},
			[]ir.Type{ir.Tensor(et, rows, cols)}, ir.Attrs{
				"update_window_dims": i64a(winDims...), "inserted_window_dims": i64a(0), "input_batching_dims": i64a(),
				"scatter_indices_batching_dims": i64a(), "scatter_dims_to_operand_dims": i64a(0),
				"index_vector_dim": ir.IntAttr{Value: 1}}, binRegion(kind, et))
		if cols == 1 {
			op = mkOpR("stablehlo.scatter",
				[]ir.Type{ir.Tensor(et, rows), ir.Tensor(it, int64(count)), ir.Tensor(et, updShape...)},
				[]ir.Type{ir.Tensor(et, rows)}, op.Attrs, binRegion(kind, et))
		}
		if wrap != 0 {
			op.Attrs[WrapIndicesAttr] = ir.IntAttr{Value: wrap, Type: ir.S64}
		}
		if splat {
			op.Operands[2] = &ir.Value{Type: ir.Tensor(et)}
			op.Attrs[SplatUpdatesAttr] = ir.DenseI64Attr{Values: updShape}
		}
		fusedPoints = false
		block := byteview.As[T](runOp(t, testCtxs[0], op, bytesOf(operand), encodeIndices(it, idx), bytesOf(upd))[0])
		fusedPoints = true
		for _, ctx := range testCtxs {
			got := byteview.As[T](runOp(t, ctx, op, bytesOf(operand), encodeIndices(it, idx), bytesOf(upd))[0])
			for i := range want {
				require.Equal(t, bitsAny(block[i]), bitsAny(got[i]), "%s %s chunk %d: element %d (block path)", kind, et, ctx.chunk, i)
				if kind == "stablehlo.add" && float && want[i] != want[i] {
					// Which NaN a sum of two returns is the compiler's
					// operand order (float adds keep the block path).
					require.True(t, got[i] != got[i], "%s %s chunk %d: element %d", kind, et, ctx.chunk, i)
					continue
				}
				require.Equal(t, bitsAny(want[i]), bitsAny(got[i]), "%s %s chunk %d: element %d", kind, et, ctx.chunk, i)
			}
		}
	}
}

// combineRef is the serial combiner: for floats NaN wins (the update's
// when both are) and -0 < +0.
func combineRef[T byteview.Elem](kind string, m, x T) T {
	switch a := any(m).(type) {
	case float32:
		return any(combineRefF(kind, a, any(x).(float32))).(T)
	case float64:
		return any(combineRefF(kind, a, any(x).(float64))).(T)
	case int32:
		return any(combineRefI(kind, a, any(x).(int32))).(T)
	case int64:
		return any(combineRefI(kind, a, any(x).(int64))).(T)
	default:
		return any(combineRefI(kind, any(m).(uint32), any(x).(uint32))).(T)
	}
}

func combineRefF[T float32 | float64](kind string, m, x T) T {
	neg := func(v T) bool { return v == 0 && math.Signbit(float64(v)) }
	switch kind {
	case "stablehlo.add":
		return m + x
	case "stablehlo.maximum":
		if x != x || (m == m && (x > m || (x == m && neg(m)))) {
			return x
		}
		return m
	}
	if x != x || (m == m && (x < m || (x == m && neg(x)))) {
		return x
	}
	return m
}

func combineRefI[T int32 | int64 | uint32](kind string, m, x T) T {
	switch kind {
	case "stablehlo.add":
		return m + x
	case "stablehlo.maximum":
		return max(m, x)
	}
	return min(m, x)
}

func bitsAny[T byteview.Elem](v T) uint64 {
	switch a := any(v).(type) {
	case float32:
		return uint64(math.Float32bits(a))
	case float64:
		return math.Float64bits(a)
	case int32:
		return uint64(uint32(a))
	case int64:
		return uint64(a)
	}
	return uint64(any(v).(uint32))
}
