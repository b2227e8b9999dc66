package shape

import (
	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/ir"
)

// Point scatters with contiguous 32- or 64-bit signed indices and the
// commonest combiners (segment_max/min, bincount, segment sums, point
// scatter-adds) decode each index and combine its update in one typed loop: the
// block path's two passes (offsets stored, then read back by an indirect
// combiner) cost about twice the instructions. Updates are combined in
// order, with the combiners of the block path, so results are its bits.

// fusedPoints turns the fused loops on (tests compare both paths).
var fusedPoints = true

// fusedPointFn combines updates [lo, hi) (update j at element j*us of src)
// into dst at the offsets their indices give, in order, skipping indices
// outside [0, maxStart] after the wrap.
type fusedPointFn func(dst, src, ix []byte, lo, hi, us int)

// fusedPointsFor returns the fused loop for kind over et with indices of
// ixElem, or nil where there is none.
func fusedPointsFor(kind string, et, ixElem ir.ElemType, maxStart, stride, wrap int64) fusedPointFn {
	switch ixElem {
	case ir.S32:
		return fusedPointsI[int32](kind, et, maxStart, stride, wrap)
	case ir.S64:
		return fusedPointsI[int64](kind, et, maxStart, stride, wrap)
	}
	return nil
}

func fusedPointsI[I int32 | int64](kind string, et ir.ElemType, m, st, w int64) fusedPointFn {
	switch et {
	case ir.F32:
		return fusedFloat[float32, I](kind, m, st, w)
	case ir.F64:
		return fusedFloat[float64, I](kind, m, st, w)
	case ir.S32:
		return fusedInt[int32, I](kind, m, st, w)
	case ir.S64:
		return fusedInt[int64, I](kind, m, st, w)
	case ir.U32:
		return fusedInt[uint32, I](kind, m, st, w)
	}
	return nil
}

func fusedFloat[T ~float32 | ~float64, I int32 | int64](kind string, m, st, w int64) fusedPointFn {
	switch kind {
	case "stablehlo.maximum":
		return func(dst, src, ix []byte, lo, hi, us int) {
			fusedMaxF(byteview.As[T](dst), byteview.As[T](src), byteview.As[I](ix)[lo:hi], lo*us, us, m, st, w)
		}
	case "stablehlo.minimum":
		return func(dst, src, ix []byte, lo, hi, us int) {
			fusedMinF(byteview.As[T](dst), byteview.As[T](src), byteview.As[I](ix)[lo:hi], lo*us, us, m, st, w)
		}
	case "stablehlo.add":
		// In update order, like the block path (float sums depend on it).
		// Where both sides are NaN the operand's payload wins, as in the
		// block path and the row adds (TestFusedPointAddNaN pins it).
		return func(dst, src, ix []byte, lo, hi, us int) {
			fusedAddF(byteview.As[T](dst), byteview.As[T](src), byteview.As[I](ix)[lo:hi], lo*us, us, m, st, w)
		}
	}
	return nil
}

func fusedInt[T intT, I int32 | int64](kind string, m, st, w int64) fusedPointFn {
	switch kind {
	case "stablehlo.maximum":
		return func(dst, src, ix []byte, lo, hi, us int) {
			fusedMax(byteview.As[T](dst), byteview.As[T](src), byteview.As[I](ix)[lo:hi], lo*us, us, m, st, w)
		}
	case "stablehlo.minimum":
		return func(dst, src, ix []byte, lo, hi, us int) {
			fusedMin(byteview.As[T](dst), byteview.As[T](src), byteview.As[I](ix)[lo:hi], lo*us, us, m, st, w)
		}
	case "stablehlo.add":
		return func(dst, src, ix []byte, lo, hi, us int) {
			fusedAdd(byteview.As[T](dst), byteview.As[T](src), byteview.As[I](ix)[lo:hi], lo*us, us, m, st, w)
		}
	}
	return nil
}

// The loops below take the commonest shape of all, a vector operand
// (stride 1) and one update per index (us 1), first: with the bounds known
// to the compiler and the wrap moved off the in-range path, an update costs
// about ten instructions, where the general loop's stride and checks
// doubled that.

// fusedMaxF follows maxPointsF (NaN wins, -0 < +0); the first compare
// settles the common case, an update below the current value.
func fusedMaxF[T ~float32 | ~float64, I int32 | int64](D, S []T, ix []I, u, us int, maxStart, stride, wrap int64) {
	if stride == 1 && us == 1 {
		D, S := D[:maxStart+1], S[u:u+len(ix)]
		d, f32 := any(D).([]float32)
		x32, i32 := any(ix).([]int32)
		if !f32 || !i32 || !vectorPointsF32 {
			fusedMaxRun(D, S, ix, wrap)
			return
		}
		s32 := any(S).([]float32)
		for j := 0; j < len(ix); {
			j += pointsF32Vec(d, s32[j:], x32[j:], false)
			// What the vector loop left: a block with an index to wrap
			// or skip, or the tail.
			e := min(len(ix), j+16)
			fusedMaxRun(D, S[j:e], ix[j:e], wrap)
			j = e
		}
		return
	}
	for _, i := range ix {
		v := int64(i)
		if v < 0 {
			v += wrap
		}
		if uint64(v) <= uint64(maxStart) {
			o := v * stride
			if x, m := S[u], D[o]; !(x < m) && (x > m || x != x || (x == m && isNegZero(m))) {
				D[o] = x
			}
		}
		u += us
	}
}

// fusedMinF follows minPointsF.
func fusedMinF[T ~float32 | ~float64, I int32 | int64](D, S []T, ix []I, u, us int, maxStart, stride, wrap int64) {
	if stride == 1 && us == 1 {
		D, S := D[:maxStart+1], S[u:u+len(ix)]
		d, f32 := any(D).([]float32)
		x32, i32 := any(ix).([]int32)
		if !f32 || !i32 || !vectorPointsF32 {
			fusedMinRun(D, S, ix, wrap)
			return
		}
		s32 := any(S).([]float32)
		for j := 0; j < len(ix); {
			j += pointsF32Vec(d, s32[j:], x32[j:], true)
			// What the vector loop left: a block with an index to wrap
			// or skip, or the tail.
			e := min(len(ix), j+16)
			fusedMinRun(D, S[j:e], ix[j:e], wrap)
			j = e
		}
		return
	}
	for _, i := range ix {
		v := int64(i)
		if v < 0 {
			v += wrap
		}
		if uint64(v) <= uint64(maxStart) {
			o := v * stride
			if x, m := S[u], D[o]; !(x > m) && (x < m || x != x || (x == m && isNegZero(x))) {
				D[o] = x
			}
		}
		u += us
	}
}

func fusedMax[T intT, I int32 | int64](D, S []T, ix []I, u, us int, maxStart, stride, wrap int64) {
	if stride == 1 && us == 1 {
		D, S := D[:maxStart+1], S[u:u+len(ix)]
		for j, i := range ix {
			v := int(i)
			if uint(v) >= uint(len(D)) {
				if v += int(wrap); i >= 0 || uint(v) >= uint(len(D)) {
					continue
				}
			}
			D[v] = max(D[v], S[j])
		}
		return
	}
	for _, i := range ix {
		v := int64(i)
		if v < 0 {
			v += wrap
		}
		if uint64(v) <= uint64(maxStart) {
			o := v * stride
			D[o] = max(D[o], S[u])
		}
		u += us
	}
}

func fusedMin[T intT, I int32 | int64](D, S []T, ix []I, u, us int, maxStart, stride, wrap int64) {
	if stride == 1 && us == 1 {
		D, S := D[:maxStart+1], S[u:u+len(ix)]
		for j, i := range ix {
			v := int(i)
			if uint(v) >= uint(len(D)) {
				if v += int(wrap); i >= 0 || uint(v) >= uint(len(D)) {
					continue
				}
			}
			D[v] = min(D[v], S[j])
		}
		return
	}
	for _, i := range ix {
		v := int64(i)
		if v < 0 {
			v += wrap
		}
		if uint64(v) <= uint64(maxStart) {
			o := v * stride
			D[o] = min(D[o], S[u])
		}
		u += us
	}
}

func fusedAdd[T intT, I int32 | int64](D, S []T, ix []I, u, us int, maxStart, stride, wrap int64) {
	if stride == 1 && us <= 1 {
		D := D[:maxStart+1]
		if us == 0 { // one value for every update (bincount's ones)
			x := S[u]
			// Four at a time, one check of the four in range: the loop's
			// count, compare and branch were half of its instructions.
			n := uint(len(D))
			for ; len(ix) >= 4; ix = ix[4:] {
				v0, v1, v2, v3 := int(ix[0]), int(ix[1]), int(ix[2]), int(ix[3])
				if uint(v0) < n && uint(v1) < n && uint(v2) < n && uint(v3) < n {
					D[v0] += x
					D[v1] += x
					D[v2] += x
					D[v3] += x
					continue
				}
				fusedAddSplat(D, x, ix[:4], wrap)
			}
			fusedAddSplat(D, x, ix, wrap)
			return
		}
		S := S[u : u+len(ix)]
		n := uint(len(D))
		for ; len(ix) >= 4 && len(S) >= 4; ix, S = ix[4:], S[4:] {
			v0, v1, v2, v3 := int(ix[0]), int(ix[1]), int(ix[2]), int(ix[3])
			if uint(v0) < n && uint(v1) < n && uint(v2) < n && uint(v3) < n {
				D[v0] += S[0]
				D[v1] += S[1]
				D[v2] += S[2]
				D[v3] += S[3]
				continue
			}
			fusedAddRun(D, S[:4], ix[:4], wrap)
		}
		fusedAddRun(D, S, ix, wrap)
		return
	}
	for _, i := range ix {
		v := int64(i)
		if v < 0 {
			v += wrap
		}
		if uint64(v) <= uint64(maxStart) {
			D[v*stride] += S[u]
		}
		u += us
	}
}

// fusedAddRun adds S[j] at ix[j] in D, with the wrap rule.
func fusedAddRun[T intT, I int32 | int64](D, S []T, ix []I, wrap int64) {
	S = S[:len(ix)]
	for j, i := range ix {
		v := int(i)
		if uint(v) >= uint(len(D)) {
			if v += int(wrap); i >= 0 || uint(v) >= uint(len(D)) {
				continue
			}
		}
		D[v] += S[j]
	}
}

// fusedAddSplat adds x at each index of ix in D, with the wrap rule.
func fusedAddSplat[T intT, I int32 | int64](D []T, x T, ix []I, wrap int64) {
	for _, i := range ix {
		v := int(i)
		if uint(v) >= uint(len(D)) {
			if v += int(wrap); i >= 0 || uint(v) >= uint(len(D)) {
				continue
			}
		}
		D[v] += x
	}
}

// fusedMaxRun is fusedMaxF's loop for stride 1 and one update per index.
func fusedMaxRun[T ~float32 | ~float64, I int32 | int64](D, S []T, ix []I, wrap int64) {
	S = S[:len(ix)]
	for j, i := range ix {
		v := int(i)
		if uint(v) >= uint(len(D)) {
			if v += int(wrap); i >= 0 || uint(v) >= uint(len(D)) {
				continue
			}
		}
		if x, m := S[j], D[v]; !(x < m) && (x > m || x != x || (x == m && isNegZero(m))) {
			D[v] = x
		}
	}
}

// fusedMinRun is fusedMinF's loop for stride 1 and one update per index.
func fusedMinRun[T ~float32 | ~float64, I int32 | int64](D, S []T, ix []I, wrap int64) {
	S = S[:len(ix)]
	for j, i := range ix {
		v := int(i)
		if uint(v) >= uint(len(D)) {
			if v += int(wrap); i >= 0 || uint(v) >= uint(len(D)) {
				continue
			}
		}
		if x, m := S[j], D[v]; !(x > m) && (x < m || x != x || (x == m && isNegZero(x))) {
			D[v] = x
		}
	}
}

// sumOpFirst is d + s, with d's payload where both are NaN whichever
// order the compiler gives the add's operands (x86's ADDSS returns its
// first source's): the block path's sum (d first) and the row adds'.
func sumOpFirst[T ~float32 | ~float64](d, s T) T {
	r := d + s
	if r != r && d != d {
		r = d + d // d, quieted
	}
	return r
}

// fusedAddF is fusedAdd for floats, with sumOpFirst's NaN rule.
func fusedAddF[T ~float32 | ~float64, I int32 | int64](D, S []T, ix []I, u, us int, maxStart, stride, wrap int64) {
	if stride == 1 && us <= 1 {
		D := D[:maxStart+1]
		if us == 0 { // one value for every update
			x := S[u]
			for _, i := range ix {
				v := int(i)
				if uint(v) >= uint(len(D)) {
					if v += int(wrap); i >= 0 || uint(v) >= uint(len(D)) {
						continue
					}
				}
				D[v] = sumOpFirst(D[v], x)
			}
			return
		}
		// Four at a time as in fusedAdd, each still in update order.
		// Where no update of the four is NaN a sum has at most one NaN
		// input, which either operand order returns: plain adds, whose
		// NaN test does not wait for the operand's (cache-missing) load.
		// Four equal indices (sorted segment ids) add into a register
		// that stands for D[pv] until another index comes: the same adds
		// in the same order, without a store and reload between each
		// (about ten cycles an update when every update was one chain).
		S := S[u : u+len(ix)]
		n := uint(len(D))
		pv, acc := -1, T(0) // D[pv] is acc while pv >= 0
		for ; len(ix) >= 4 && len(S) >= 4; ix, S = ix[4:], S[4:] {
			v0, v1, v2, v3 := int(ix[0]), int(ix[1]), int(ix[2]), int(ix[3])
			s0, s1, s2, s3 := S[0], S[1], S[2], S[3]
			if uint(v0) < n && uint(v1) < n && uint(v2) < n && uint(v3) < n &&
				s0 == s0 && s1 == s1 && s2 == s2 && s3 == s3 {
				if v0 == v1 && v1 == v2 && v2 == v3 {
					if v0 != pv {
						if pv >= 0 {
							D[pv] = acc
						}
						pv, acc = v0, D[v0]
					}
					acc += s0
					acc += s1
					acc += s2
					acc += s3
					continue
				}
				if pv >= 0 {
					D[pv], pv = acc, -1
				}
				D[v0] += s0
				D[v1] += s1
				D[v2] += s2
				D[v3] += s3
				continue
			}
			if pv >= 0 {
				D[pv], pv = acc, -1
			}
			fusedAddFRun(D, S[:4], ix[:4], wrap)
		}
		if pv >= 0 {
			D[pv] = acc
		}
		fusedAddFRun(D, S, ix, wrap)
		return
	}
	for _, i := range ix {
		v := int64(i)
		if v < 0 {
			v += wrap
		}
		if uint64(v) <= uint64(maxStart) {
			o := v * stride
			D[o] = sumOpFirst(D[o], S[u])
		}
		u += us
	}
}

// fusedAddFRun adds S[j] at ix[j] in D, in order, with the wrap rule.
func fusedAddFRun[T ~float32 | ~float64, I int32 | int64](D, S []T, ix []I, wrap int64) {
	S = S[:len(ix)]
	for j, i := range ix {
		v := int(i)
		if uint(v) >= uint(len(D)) {
			if v += int(wrap); i >= 0 || uint(v) >= uint(len(D)) {
				continue
			}
		}
		D[v] = sumOpFirst(D[v], S[j])
	}
}
