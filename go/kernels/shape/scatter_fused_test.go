package shape

import (
	"fmt"
	"math"
	"runtime"
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
	require.NotNil(t, fusedPointsFor("stablehlo.add", ir.F64, ir.S32, 9, 1, 0))
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
				require.Equal(t, bitsAny(want[i]), bitsAny(got[i]), "%s %s chunk %d: element %d", kind, et, ctx.chunk, i)
			}
		}
	}
}

// combineRef is the serial combiner: for floats NaN wins (for max and min
// the update's when both are, for add the operand's) and -0 < +0.
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
		switch { // the operand's NaN first (checkFused's NaNs are quiet)
		case m != m:
			return m
		case x != x:
			return x
		}
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

// Float point adds, fused and block paths, follow one NaN rule: where the
// operand and the update are both NaN the operand's payload wins (quieted),
// as x86's ADDSS gives with the operand as first source; a NaN update into
// a number gives the update's payload; inf + -inf the CPU's default NaN.
// Payloads differ on every element, quiet and signaling, so a loop that
// puts the update first fails.
func TestFusedPointAddNaN(t *testing.T) {
	for _, it := range []ir.ElemType{ir.S32, ir.S64} {
		for _, splat := range []bool{false, true} {
			for _, count := range []int{1, 17, 4099} {
				name := fmt.Sprintf("%s/n%d/splat=%v", it, count, splat)
				t.Run(name, func(t *testing.T) {
					checkAddNaN(t, ir.F32, it, count, splat, func(b uint64) float32 { return math.Float32frombits(uint32(b)) },
						func(q float32) float32 { return math.Float32frombits(math.Float32bits(q) | 0x00400000) })
					checkAddNaN(t, ir.F64, it, count, splat, func(b uint64) float64 {
						return math.Float64frombits(b&0x80000000<<32 | 0x7ff0000000000000 | b&0x7fffff<<29 | b&0xffff)
					},
						func(q float64) float64 { return math.Float64frombits(math.Float64bits(q) | 1<<51) })
				})
			}
		}
	}
}

// checkAddNaN runs a point scatter-add of NaNs, infinities and numbers;
// fromBits makes a T NaN of a float32 NaN's bits (sign, quiet bit, payload),
// quiet sets T's quiet bit.
func checkAddNaN[T float32 | float64](t *testing.T, et, it ir.ElemType, count int, splat bool, fromBits func(uint64) T, quiet func(T) T) {
	const rows = 11
	pattern := func(k int) T {
		switch k % 7 {
		case 0, 1:
			return fromBits(0x7fc00000 | uint64(k)*37&0x3fffff) // quiet NaN
		case 2:
			return fromBits(0x7f800000 | (uint64(k)*53&0x3fffff | 1)) // signaling NaN
		case 3:
			return T(math.Inf(1))
		case 4:
			return T(math.Inf(-1))
		case 5:
			return fromBits(0xffc00000 | uint64(k)*11&0x3fffff) // negative quiet NaN
		}
		return T(k) - 2.5
	}
	operand := make([]T, rows)
	for i := range operand {
		operand[i] = pattern(i + 3)
	}
	idx := make([]int64, count)
	upd := make([]T, count)
	for j, x := range randIdx(count, rows) {
		idx[j] = int64(x)
		upd[j] = pattern(j*5 + 1)
	}
	if splat {
		upd = upd[:1]
	}
	want := append([]T(nil), operand...)
	for j, v := range idx {
		d, u := want[v], upd[0]
		if !splat {
			u = upd[j]
		}
		switch {
		case d != d:
			want[v] = quiet(d)
		case u != u:
			want[v] = quiet(u)
		default:
			want[v] = d + u // no NaN in: the CPU's sum or default NaN
		}
	}
	updShape := []int64{int64(count)}
	op := mkOpR("stablehlo.scatter",
		[]ir.Type{ir.Tensor(et, rows), ir.Tensor(it, int64(count)), ir.Tensor(et, updShape...)},
		[]ir.Type{ir.Tensor(et, rows)}, ir.Attrs{
			"update_window_dims": i64a(), "inserted_window_dims": i64a(0), "input_batching_dims": i64a(),
			"scatter_indices_batching_dims": i64a(), "scatter_dims_to_operand_dims": i64a(0),
			"index_vector_dim": ir.IntAttr{Value: 1}}, binRegion("stablehlo.add", et))
	if splat {
		op.Operands[2] = &ir.Value{Type: ir.Tensor(et)}
		op.Attrs[SplatUpdatesAttr] = ir.DenseI64Attr{Values: updShape}
	}
	defer func() { fusedPoints = true }()
	for _, fused := range []bool{false, true} {
		fusedPoints = fused
		for _, ctx := range testCtxs {
			got := byteview.As[T](runOp(t, ctx, op, bytesOf(operand), encodeIndices(it, idx), bytesOf(upd))[0])
			for i := range want {
				if runtime.GOARCH != "amd64" && want[i] != want[i] {
					// Other CPUs rank signaling NaNs first.
					require.True(t, got[i] != got[i], "%s fused=%v element %d", et, fused, i)
					continue
				}
				require.Equal(t, bitsAny(want[i]), bitsAny(got[i]), "%s fused=%v chunk %d: element %d", et, fused, ctx.chunk, i)
			}
		}
	}
}

// Sorted indices (segment sums) take the run path of the float point adds:
// runs of 1 to 40 equal indices, starting anywhere in a block of four,
// with indices out of range (skipped), negative ones the wrap moves, and
// NaNs (quiet and signaling, in the operand and in the updates), infinities
// and signed zeros among the values; bit for bit against the serial loop.
func TestFusedPointAddSorted(t *testing.T) {
	for _, it := range []ir.ElemType{ir.S32, ir.S64} {
		for _, wrap := range []int64{0, 13} {
			for _, count := range []int{1, 7, 1000, 20000} {
				t.Run(fmt.Sprintf("%s/wrap%d/n%d", it, wrap, count), func(t *testing.T) {
					checkAddSorted[float32](t, ir.F32, it, wrap, count)
					checkAddSorted[float64](t, ir.F64, it, wrap, count)
				})
			}
		}
	}
}

func checkAddSorted[T float32 | float64](t *testing.T, et, it ir.ElemType, wrap int64, count int) {
	const rows = 13
	r := randIdx(2*count+rows, 1<<20)
	idx := make([]int64, count)
	upd := make([]T, count)
	v := int64(-2) // -2 and -1 wrap (when wrap is set), 13 and 14 are past the end
	for j := 0; j < count; {
		for run := int(r[j]%40) + 1; run > 0 && j < count; run-- {
			idx[j] = v
			j++
		}
		v = (v+int64(r[count+j-1]%3)+3)%(rows+4) - 2
	}
	val := func(x int32) T {
		switch x % 97 {
		case 0:
			return T(math.NaN())
		case 1:
			return T(math.Inf(1))
		case 2:
			return T(math.Inf(-1))
		case 3:
			return T(math.Copysign(0, -1))
		case 4:
			var z T
			if _, ok := any(z).(float32); ok {
				return any(math.Float32frombits(0x7f800000 | uint32(x))).(T) // signaling
			}
			return any(math.Float64frombits(0x7ff0000000000000 | uint64(x))).(T)
		}
		return T(x%4001)/16 - 125
	}
	for j := range upd {
		upd[j] = val(r[j] >> 3)
	}
	operand := make([]T, rows)
	for i := range operand {
		operand[i] = val(r[2*count+i] >> 3)
	}
	operand[5] = T(math.NaN())
	quiet := func(q T) T {
		if f, ok := any(q).(float32); ok {
			return any(math.Float32frombits(math.Float32bits(f) | 0x00400000)).(T)
		}
		return any(math.Float64frombits(math.Float64bits(any(q).(float64)) | 1<<51)).(T)
	}
	want := append([]T(nil), operand...)
	for j, v := range idx {
		if v < 0 {
			v += wrap
		}
		if v < 0 || v >= rows {
			continue
		}
		d, u := want[v], upd[j]
		switch {
		case d != d:
			want[v] = quiet(d)
		case u != u:
			want[v] = quiet(u)
		default:
			want[v] = d + u
		}
	}
	op := mkOpR("stablehlo.scatter",
		[]ir.Type{ir.Tensor(et, rows), ir.Tensor(it, int64(count)), ir.Tensor(et, int64(count))},
		[]ir.Type{ir.Tensor(et, rows)}, ir.Attrs{
			"update_window_dims": i64a(), "inserted_window_dims": i64a(0), "input_batching_dims": i64a(),
			"scatter_indices_batching_dims": i64a(), "scatter_dims_to_operand_dims": i64a(0),
			"index_vector_dim": ir.IntAttr{Value: 1}}, binRegion("stablehlo.add", et))
	if wrap != 0 {
		op.Attrs[WrapIndicesAttr] = ir.IntAttr{Value: wrap, Type: ir.S64}
	}
	defer func() { fusedPoints = true }()
	for _, fused := range []bool{false, true} {
		fusedPoints = fused
		for _, ctx := range testCtxs {
			got := byteview.As[T](runOp(t, ctx, op, bytesOf(operand), encodeIndices(it, idx), bytesOf(upd))[0])
			for i := range want {
				if runtime.GOARCH != "amd64" && want[i] != want[i] {
					require.True(t, got[i] != got[i], "%s fused=%v element %d", et, fused, i)
					continue
				}
				require.Equal(t, bitsAny(want[i]), bitsAny(got[i]), "%s fused=%v chunk %d: element %d", et, fused, ctx.chunk, i)
			}
		}
	}
}
