package compiler

import (
	"encoding/binary"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/reduce"
)

// rollThreefry replaces the while loop JAX lowers threefry2x32 to on CPU
// (every jax.random sampler draws its bits through it) with
// gojax.threefry_rounds. The loop carries (i, j, x0, x1, ks0, ks1, ks2, rA,
// rB); each iteration runs four rounds x0 += x1; x1 = rotl(x1, rA[r]) ^ x0,
// adds ks0 to x0 and ks1 + uint32(j+1) to x1, rotates the key schedule and
// swaps the count sets; the condition is i < N. As ops, each iteration made
// a pass over both arrays per op (36 of them); the kernel keeps an
// element's pair in registers through all rounds. The match is structural
// (every op of the body and condition is checked, operands of commutative
// ops in either order), and only loops whose other results are unused are
// replaced.
func rollThreefry(st *passState) error {
	uses := useCounts(st.entry.Body)
	rewritten := map[*ir.Op][]*ir.Op{}
	repl := map[*ir.Value]*ir.Value{}
	st.entry.Body.Walk(func(op *ir.Op) bool {
		if op.Name != "stablehlo.while" {
			return true
		}
		m, ok := matchThreefryLoop(op)
		if !ok {
			return true
		}
		for i, r := range op.Results {
			if i != 2 && i != 3 && uses[r] > 0 {
				return true
			}
		}
		tf := ir.NewOp(reduce.ThreefryRoundsOp, op.Operands[2:7],
			[]ir.Type{op.Results[2].Type, op.Results[3].Type}, ir.Attrs{
				"rotations":  ir.DenseI64Attr{Values: m.rotations},
				"iterations": ir.IntAttr{Value: m.iterations},
				"counter":    ir.IntAttr{Value: m.counter},
			})
		tf.Loc, tf.Block = op.Loc, op.Block
		rewritten[op] = []*ir.Op{tf}
		repl[op.Results[2]], repl[op.Results[3]] = tf.Results[0], tf.Results[1]
		return true
	})
	applyRewrites(st.entry.Body, rewritten, repl)
	return nil
}

type threefryLoop struct {
	rotations           []int64
	iterations, counter int64
}

// matchThreefryLoop checks op against the loop rollThreefry describes.
func matchThreefryLoop(w *ir.Op) (threefryLoop, bool) {
	var m threefryLoop
	if len(w.Operands) != 9 || len(w.Results) != 9 || len(w.Regions) != 2 {
		return m, false
	}
	for i, v := range w.Operands {
		t := v.StaticTensor()
		if t == nil {
			return m, false
		}
		var ok bool
		switch i {
		case 0, 1:
			ok = t.Elem == ir.S32 && t.Rank() == 0
		case 2, 3:
			ok = t.Elem == ir.U32 && ir.TypesEqual(v.Type, w.Operands[2].Type)
		case 4, 5, 6:
			ok = t.Elem == ir.U32 && ir.TypesEqual(v.Type, w.Operands[4].Type) &&
				reduce.ThreefryKeyShaped(t, w.Operands[2].StaticTensor())
		case 7, 8:
			ok = t.Elem == ir.U32 && t.Rank() == 1 && t.Shape[0] == 4
		}
		if !ok {
			return m, false
		}
	}
	i0, ok1 := scalarConst(w.Operands[0])
	j0, ok2 := scalarConst(w.Operands[1])
	ra, ok3 := u32Consts(w.Operands[7])
	rb, ok4 := u32Consts(w.Operands[8])
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return m, false
	}
	cond, body := w.Regions[0].Blocks, w.Regions[1].Blocks
	if len(cond) != 1 || len(body) != 1 || len(cond[0].Args) != 9 || len(body[0].Args) != 9 {
		return m, false
	}
	// Condition: i < N.
	ct := cond[0].Terminator()
	if ct == nil || len(ct.Operands) != 1 {
		return m, false
	}
	cmp := ct.Operands[0].Def
	if cmp == nil || cmp.Name != "stablehlo.compare" || len(cmp.Operands) != 2 || cmp.Operands[0] != cond[0].Args[0] {
		return m, false
	}
	if dir, _ := cmp.Attrs.Enum("comparison_direction"); dir != "LT" {
		return m, false
	}
	if ty, ok := cmp.Attrs.Enum("comparison_type"); ok && ty != "SIGNED" && ty != "NOTYPE" {
		return m, false
	}
	n, ok := scalarConst(cmp.Operands[1])
	if !ok {
		return m, false
	}
	// Body.
	a := body[0].Args
	t := body[0].Terminator()
	if t == nil || len(t.Operands) != 9 {
		return m, false
	}
	r := t.Operands
	if r[4] != a[5] || r[5] != a[6] || r[6] != a[4] || r[7] != a[8] || r[8] != a[7] {
		return m, false
	}
	if !isIncrement(r[0], a[0]) || !isIncrement(r[1], a[1]) {
		return m, false
	}
	// x0' = x0_4 + bcast(ks0); x1' = (x1_4 + bcast(ks1)) + bcast(convert(j+1)).
	x0, ok := addOfBroadcast(r[2], a[4])
	if !ok {
		return m, false
	}
	s, c, ok := binary2(r[3], "stablehlo.add")
	if !ok {
		return m, false
	}
	if !isCounterWord(c, a[1]) {
		s, c = c, s
		if !isCounterWord(c, a[1]) {
			return m, false
		}
	}
	x1, ok := addOfBroadcast(s, a[5])
	if !ok {
		return m, false
	}
	// Four rounds, undone from the last.
	for k := 3; k >= 0; k-- {
		if x0, x1, ok = undoRound(x0, x1, a[7], int64(k)); !ok {
			return m, false
		}
	}
	if x0 != a[2] || x1 != a[3] {
		return m, false
	}
	m.rotations = append(ra, rb...)
	m.iterations = max(0, n-i0)
	m.counter = j0
	return m, true
}

// undoRound matches x0 = x0p + x1p; x1 = rotl(x1p, rot[k]) ^ x0 and
// returns (x0p, x1p).
func undoRound(x0, x1, rot *ir.Value, k int64) (*ir.Value, *ir.Value, bool) {
	p, q, ok := binary2(x1, "stablehlo.xor")
	if !ok {
		return nil, nil, false
	}
	if q == x0 {
		p, q = q, p
	}
	if p != x0 {
		return nil, nil, false
	}
	x1p, ok := rotateLeft(q, rot, k)
	if !ok {
		return nil, nil, false
	}
	u, v, ok := binary2(x0, "stablehlo.add")
	if !ok {
		return nil, nil, false
	}
	switch x1p {
	case v:
		return u, v, true
	case u:
		return v, u, true
	}
	return nil, nil, false
}

// rotateLeft matches (x << bcast(c)) | (x >> bcast(32 - c)), c the k-th
// element of rot, and returns x.
func rotateLeft(v, rot *ir.Value, k int64) (*ir.Value, bool) {
	p, q, ok := binary2(v, "stablehlo.or")
	if !ok {
		return nil, false
	}
	if q.Def != nil && q.Def.Name == "stablehlo.shift_left" {
		p, q = q, p
	}
	if p.Def == nil || p.Def.Name != "stablehlo.shift_left" || q.Def == nil ||
		q.Def.Name != "stablehlo.shift_right_logical" || len(p.Def.Operands) != 2 || len(q.Def.Operands) != 2 {
		return nil, false
	}
	x := p.Def.Operands[0]
	if q.Def.Operands[0] != x {
		return nil, false
	}
	c := broadcastScalar(p.Def.Operands[1])
	if c == nil || !isElementOf(c, rot, k) {
		return nil, false
	}
	d := broadcastScalar(q.Def.Operands[1])
	if d == nil || d.Def == nil || d.Def.Name != "stablehlo.subtract" || len(d.Def.Operands) != 2 || d.Def.Operands[1] != c {
		return nil, false
	}
	if w, ok := scalarConst(d.Def.Operands[0]); !ok || w != 32 {
		return nil, false
	}
	return x, true
}

// isElementOf reports whether v is reshape(slice(vec, [k:k+1])).
func isElementOf(v, vec *ir.Value, k int64) bool {
	if v.Def == nil || v.Def.Name != "stablehlo.reshape" || len(v.Def.Operands) != 1 {
		return false
	}
	s := v.Def.Operands[0].Def
	if s == nil || s.Name != "stablehlo.slice" || len(s.Operands) != 1 || s.Operands[0] != vec {
		return false
	}
	start, _ := s.Attrs["start_indices"].(ir.DenseI64Attr)
	limit, _ := s.Attrs["limit_indices"].(ir.DenseI64Attr)
	stride, _ := s.Attrs["strides"].(ir.DenseI64Attr)
	return len(start.Values) == 1 && len(limit.Values) == 1 && len(stride.Values) == 1 &&
		start.Values[0] == k && limit.Values[0] == k+1 && stride.Values[0] == 1
}

// addOfBroadcast matches x + key(s) in either order and returns x.
func addOfBroadcast(v, s *ir.Value) (*ir.Value, bool) {
	p, q, ok := binary2(v, "stablehlo.add")
	if !ok {
		return nil, false
	}
	if isKeyBroadcast(q, s) {
		return p, true
	}
	if isKeyBroadcast(p, s) {
		return q, true
	}
	return nil, false
}

// isKeyBroadcast matches s itself, or broadcast_in_dim of s keeping its
// dimensions in order (a scalar key's dims are empty; a per-sample key's
// trailing 1s widen to x's shape).
func isKeyBroadcast(v, s *ir.Value) bool {
	if v == s {
		return true
	}
	if v.Def == nil || v.Def.Name != "stablehlo.broadcast_in_dim" || len(v.Def.Operands) != 1 || v.Def.Operands[0] != s {
		return false
	}
	st, vt := s.StaticTensor(), v.StaticTensor()
	dims, _ := v.Def.Attrs["broadcast_dimensions"].(ir.DenseI64Attr)
	if st == nil || vt == nil || len(dims.Values) != st.Rank() || (st.Rank() != 0 && st.Rank() != vt.Rank()) {
		return false
	}
	for i, d := range dims.Values {
		if d != int64(i) {
			return false
		}
	}
	return true
}

// isCounterWord matches bcast(convert(j + 1)) with a u32 convert.
func isCounterWord(v, j *ir.Value) bool {
	c := broadcastScalar(v)
	if c == nil || c.Def == nil || c.Def.Name != "stablehlo.convert" || len(c.Def.Operands) != 1 {
		return false
	}
	if t := c.StaticTensor(); t == nil || t.Elem != ir.U32 {
		return false
	}
	return isIncrement(c.Def.Operands[0], j)
}

// isIncrement matches x + 1 in either order.
func isIncrement(v, x *ir.Value) bool {
	p, q, ok := binary2(v, "stablehlo.add")
	if !ok {
		return false
	}
	if q == x {
		p, q = q, p
	}
	one, ok := scalarConst(q)
	return p == x && ok && one == 1
}

// binary2 returns the operands of v's defining op when it is name.
func binary2(v *ir.Value, name string) (*ir.Value, *ir.Value, bool) {
	if v.Def == nil || v.Def.Name != name || len(v.Def.Operands) != 2 || len(v.Def.Results) != 1 {
		return nil, nil, false
	}
	return v.Def.Operands[0], v.Def.Operands[1], true
}

// broadcastScalar returns s when v is broadcast_in_dim of the scalar s, v
// itself when it is a scalar, else nil.
func broadcastScalar(v *ir.Value) *ir.Value {
	if t := v.StaticTensor(); t != nil && t.Rank() == 0 {
		return v
	}
	if v.Def == nil || v.Def.Name != "stablehlo.broadcast_in_dim" || len(v.Def.Operands) != 1 {
		return nil
	}
	if t := v.Def.Operands[0].StaticTensor(); t == nil || t.Rank() != 0 {
		return nil
	}
	return v.Def.Operands[0]
}

// scalarConst returns the value of a 32-bit integer constant of one
// element (or splat, or broadcast of one), sign-extended for s32.
func scalarConst(v *ir.Value) (int64, bool) {
	if s := broadcastScalar(v); s != nil {
		v = s
	}
	t := v.StaticTensor()
	if t == nil || (t.Elem != ir.S32 && t.Elem != ir.U32) {
		return 0, false
	}
	c := splatConst(v) // a full-shape splat, as constant folding leaves broadcasts
	if c == nil {
		if c = constData(v); c == nil || len(c.Data) != 4 {
			return 0, false
		}
	}
	w := binary.LittleEndian.Uint32(c.Data)
	if t.Elem == ir.S32 {
		return int64(int32(w)), true
	}
	return int64(w), true
}

// u32Consts returns the elements of a u32 constant vector.
func u32Consts(v *ir.Value) ([]int64, bool) {
	c := constData(v)
	if c == nil {
		return nil, false
	}
	out := make([]int64, len(c.Data)/4)
	for i := range out {
		out[i] = int64(binary.LittleEndian.Uint32(c.Data[4*i:]))
	}
	return out, true
}
