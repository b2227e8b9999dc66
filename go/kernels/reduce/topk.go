package reduce

import (
	"encoding/binary"
	"slices"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/lowerutil"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// top_k as XLA:CPU computes it for jax.lax.top_k: along the last dim, the k
// largest by IEEE totalOrder (+NaN first, -NaN last, +0 before -0), ties by
// lower index. It reaches gojax as chlo.top_k, or as the custom call
// stablehlo.dynamic_top_k once shapes are refined to static types.
func init() {
	kernel.Register("chlo.top_k", lowerTopK)
	kernel.RegisterCustomCall("stablehlo.dynamic_top_k", lowerTopK)
}

func lowerTopK(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	dynamic := op.Name != "chlo.top_k"
	if (dynamic && len(op.Operands) != 2) || (!dynamic && len(op.Operands) != 1) || len(op.Results) != 2 {
		return nil, op.Errorf("expected operand%s and results (values, indices)", map[bool]string{true: ", k", false: ""}[dynamic])
	}
	in, err := lowerutil.TensorOperand(op, 0)
	if err != nil {
		return nil, err
	}
	vals, err := lowerutil.TensorResult(op, 0)
	if err != nil {
		return nil, err
	}
	idx, err := lowerutil.TensorResult(op, 1)
	if err != nil {
		return nil, err
	}
	r := in.Rank()
	if r == 0 || vals.Rank() != r || !lowerutil.SameShape(vals.Shape, idx.Shape) || vals.Elem != in.Elem ||
		!(idx.Elem == ir.S32 || idx.Elem == ir.S64) || !lowerutil.SameShape(vals.Shape[:r-1], in.Shape[:r-1]) {
		return nil, op.Errorf("results %s, %s do not fit operand %s", vals, idx, in)
	}
	k := int(vals.Shape[r-1])
	n := int(in.Shape[r-1])
	if !dynamic {
		if ka, ok := op.Attrs.Int("k"); !ok || int(ka) != k {
			return nil, op.Errorf("attribute k does not match result dim %d", k)
		}
	}
	if k > n {
		return nil, op.Errorf("k = %d exceeds the last dim %d", k, n)
	}
	et := in.Elem
	// Largest first: descending keys, so the k smallest keys win.
	key := sortKey{desc: true}
	switch {
	case et.IsFloat() && !et.IsSmallFloat():
		key.total = true
	case et.IsSigned():
		key.signed = true
	case et.IsUnsigned() || et == ir.Pred:
	default:
		return nil, op.Errorf("element type %s is not supported", et)
	}
	var kType ir.ElemType
	if dynamic {
		kt, err := lowerutil.TensorOperand(op, 1)
		if err != nil {
			return nil, err
		}
		if kt.Rank() != 0 || !kt.Elem.IsInteger() {
			return nil, op.Errorf("k operand %s is not an integer scalar", kt)
		}
		kType = kt.Elem
	}
	rows := int(in.NumElements()) / max(1, n)
	if n == 0 {
		rows = 0
	}
	es := et.ByteSize()
	return func(ins, outs [][]byte) error {
		if dynamic {
			if kv := lowerutil.ReadIndex(ins[1], kType, 0); kv != int64(k) {
				return op.Errorf("k = %d at run time, but the static result needs %d", kv, k)
			}
		}
		split := ctx != nil && rows < 4 && n >= splitSelectMin
		work := func(lo, hi int) {
			sel := &topKSelector{n: n, k: k, et: et, key: key}
			for row := lo; row < hi; row++ {
				var best []int32
				// TOTALORDER keys: always ordered, so selection cannot fail.
				if split {
					best, _ = sel.rowSplit(ctx.Parallel, ins[0], row*n, 1)
				} else {
					best, _ = sel.row(ins[0], row*n, 1)
				}
				for j, p := range best {
					o := row*k + j
					copy(outs[0][o*es:(o+1)*es], ins[0][(row*n+int(p))*es:])
					if idx.Elem == ir.S32 {
						binary.LittleEndian.PutUint32(outs[1][4*o:], uint32(p))
					} else {
						binary.LittleEndian.PutUint64(outs[1][8*o:], uint64(p))
					}
				}
			}
		}
		if split || ctx == nil || rows < 2 || rows*n < 4096 {
			work(0, rows)
		} else {
			ctx.Parallel(rows, max(1, 4096/n), work)
		}
		return nil
	}, nil
}

// topKSelector finds a row's k best positions: smallest keys (descending
// values), ties to the lower position, in that order.
type topKSelector struct {
	n, k  int
	et    ir.ElemType
	key   sortKey
	keys  []uint64
	perm  []int32
	heap  []keyPos
	radix radixScratch
}

type keyPos struct {
	key uint64
	pos int32
}

// worse orders keyPos by (key, pos): the later one loses.
func (a keyPos) worse(b keyPos) bool {
	return a.key > b.key || (a.key == b.key && a.pos > b.pos)
}

// topKChunk is how many keys are made at a time on the selection path.
const topKChunk = 1024

// row returns the positions of the k best elements of the row at base
// (elements base + j*stride), or false where a FLOAT comparison meets a
// NaN (see fillKeys).
func (s *topKSelector) row(b []byte, base, stride int) ([]int32, bool) {
	n, k := s.n, s.k
	if k == 0 {
		return nil, true
	}
	if n <= smallSort || 4*k >= n {
		// Most of the row is kept: sorting it all is as cheap.
		s.perm = growI32(&s.perm, n)
		keys := grow(&s.keys, n)
		if !fillKeys(keys, b, s.et, base, stride, s.key) {
			return nil, false
		}
		sortByKey(keys, s.perm[:n], keyBits(s.et), &s.radix)
		return s.perm[:k], true
	}
	// Selection: a max-heap of the k best so far, its root the worst of
	// them; a later element displaces it only with a strictly smaller key
	// (an equal key has a higher position), so most elements cost one
	// comparison with the root's key.
	h := s.heap[:0]
	keys := grow(&s.keys, topKChunk)
	for lo := 0; lo < n; lo += topKChunk {
		hi := min(n, lo+topKChunk)
		ck := keys[:hi-lo]
		if !fillKeys(ck, b, s.et, base+lo*stride, stride, s.key) {
			return nil, false
		}
		j := 0
		for ; len(h) < k && j < len(ck); j++ {
			h = append(h, keyPos{ck[j], int32(lo + j)})
			if len(h) == k {
				for i := k/2 - 1; i >= 0; i-- {
					siftDown(h, i)
				}
			}
		}
		if len(h) < k {
			continue
		}
		thr := h[0].key
		for ; j < len(ck); j++ {
			if ck[j] < thr {
				h[0] = keyPos{ck[j], int32(lo + j)}
				siftDown(h, 0)
				thr = h[0].key
			}
		}
	}
	s.heap = h
	// Pop the worst to the back: ascending (key, pos) order.
	for end := len(h) - 1; end > 0; end-- {
		h[0], h[end] = h[end], h[0]
		siftDown(h[:end], 0)
	}
	// Only k positions: a row-sized perm would cost a clear of 4n bytes.
	out := growI32(&s.perm, k)
	for i, e := range h {
		out[i] = e.pos
	}
	return out, true
}

// siftDown restores the max-heap (by worse) below i.
func siftDown(h []keyPos, i int) {
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && h[c+1].worse(h[c]) {
			c++
		}
		if !h[c].worse(h[i]) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// splitSelectMin is the row length from which a few long rows are each
// selected in parts on the worker pool; splitSelectParts is how many.
const (
	splitSelectMin   = 1 << 16
	splitSelectParts = 8
)

// rowSplit selects as row does, with the row cut into parts selected
// concurrently by par (kernel.Context.Parallel) and their winners merged
// by (key, position): the same k elements in the same order.
func (s *topKSelector) rowSplit(par func(n, grain int, fn func(lo, hi int)), b []byte, base, stride int) ([]int32, bool) {
	seg := (s.n + splitSelectParts - 1) / splitSelectParts
	cands := make([][]keyPos, splitSelectParts)
	ok := make([]bool, splitSelectParts)
	par(splitSelectParts, 1, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			start, end := p*seg, min(s.n, (p+1)*seg)
			if start >= end {
				ok[p] = true
				continue
			}
			sub := &topKSelector{n: end - start, k: min(s.k, end-start), et: s.et, key: s.key}
			best, good := sub.row(b, base+start*stride, stride)
			if ok[p] = good; !good {
				continue
			}
			c := kernel.Make[keyPos](len(best))
			var key [1]uint64
			for i, q := range best {
				at := start + int(q)
				fillKeys(key[:], b, s.et, base+at*stride, stride, s.key)
				c[i] = keyPos{key[0], int32(at)}
			}
			cands[p] = c
		}
	})
	var all []keyPos
	for p, c := range cands {
		if !ok[p] {
			return nil, false
		}
		all = append(all, c...)
	}
	slices.SortFunc(all, func(a, b keyPos) int {
		if a.worse(b) {
			return 1
		}
		if b.worse(a) {
			return -1
		}
		return 0
	})
	out := growI32(&s.perm, s.k)[:s.k]
	for i := range out {
		out[i] = all[i].pos
	}
	return out, true
}
