package reduce

import (
	"encoding/binary"
	"math"
	"math/bits"
	"slices"

	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/floatconv"
	"github.com/gojax/gojax/go/kernels/internal/lowerutil"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// PartialSortOp is stablehlo.sort keeping only the first k elements of
// every sorted slice (attribute "k"): the compiler makes it from a sort
// whose results are only read through slices of such a prefix (JAX's
// top_k reaches plugins as sort + slice). Results are the sort's prefix,
// bit for bit. Attribute "positions" lists the results whose operand was an
// iota along the dimension (argsort's, top_k's indices); those operands are
// left out, and the kernel writes the sorted positions instead of moving a
// materialized iota.
const PartialSortOp = "gojax.partial_sort"

func init() {
	kernel.RegisterOp("stablehlo.sort", lowerSort, kernel.Traits{Cost: sortCost, Storage: true, StorageShared: []int{}})
	kernel.RegisterOp(PartialSortOp, lowerSort, kernel.Traits{Cost: sortCost})
}

// Sorting is always a stable merge sort driven only by "less", so the fast
// paths (native keys) and the generic path (comparator region) order
// elements identically, and is_stable=false gets the stable order too.

// sortKey is a recognized comparator: compare dir on operand 0.
type sortKey struct {
	desc      bool // GT
	total     bool // TOTALORDER on floats (else FLOAT: NaN unordered, -0 == +0)
	canonical bool // JAX canonicalization: -0 -> +0, every NaN -> one NaN
	signed    bool // SIGNED compare on integers
}

// matchComparator recognizes a comparator on one key, operand 0 (types
// are the operands' element types): compare LT/GT of its two arguments
// with FLOAT/TOTALORDER/SIGNED/UNSIGNED, optionally on JAX's
// canonicalized floats — a lexicographic chain of one key.
func matchComparator(r *ir.Region, types []ir.ElemType) (sortKey, bool) {
	keys, ok := matchLexComparator(r, types)
	if !ok || len(keys) != 1 || keys[0].op != 0 {
		return sortKey{}, false
	}
	return keys[0].k, true
}

// countOps counts the ops of b feeding the return, plus the return.
func countOps(ret *ir.Op, b *ir.Block) int {
	seen := map[*ir.Op]bool{}
	var walk func(v *ir.Value)
	walk = func(v *ir.Value) {
		if v.Def == nil || seen[v.Def] || v.Def.Block != b {
			return
		}
		seen[v.Def] = true
		for _, o := range v.Def.Operands {
			walk(o)
		}
	}
	walk(ret.Operands[0])
	return len(seen) + 1
}

// keyArg matches a block argument, or JAX's canonicalization of one:
// select(x != x, NaN, select(x == 0, 0, x)).
func keyArg(v *ir.Value, b *ir.Block) (arg int, canonical, ok bool) {
	if v.Def == nil {
		if v.Block == b {
			return v.Index, false, true
		}
		return 0, false, false
	}
	sel := v.Def
	if sel.Name != "stablehlo.select" || len(sel.Operands) != 3 {
		return 0, false, false
	}
	x, ok := isSelfNE(sel.Operands[0])
	if !ok || !isConst(sel.Operands[1], func(f float64) bool { return math.IsNaN(f) }) {
		return 0, false, false
	}
	inner := sel.Operands[2].Def
	if inner == nil || inner.Name != "stablehlo.select" || len(inner.Operands) != 3 {
		return 0, false, false
	}
	eq := inner.Operands[0].Def
	if eq == nil || eq.Name != "stablehlo.compare" {
		return 0, false, false
	}
	if d, _ := eq.Attrs.Enum("comparison_direction"); d != "EQ" || eq.Operands[0] != x ||
		!isConst(eq.Operands[1], func(f float64) bool { return f == 0 }) ||
		!isConst(inner.Operands[1], func(f float64) bool { return f == 0 }) || inner.Operands[2] != x {
		return 0, false, false
	}
	if x.Def != nil || x.Block != b {
		return 0, false, false
	}
	return x.Index, true, true
}

func isSelfNE(v *ir.Value) (*ir.Value, bool) {
	c := v.Def
	if c == nil || c.Name != "stablehlo.compare" || len(c.Operands) != 2 || c.Operands[0] != c.Operands[1] {
		return nil, false
	}
	if d, _ := c.Attrs.Enum("comparison_direction"); d != "NE" {
		return nil, false
	}
	return c.Operands[0], true
}

// isConst reports a scalar float constant satisfying pred.
func isConst(v *ir.Value, pred func(float64) bool) bool {
	c := v.Def
	if c == nil || c.Name != "stablehlo.constant" {
		return false
	}
	e, ok := c.Attrs.Elements("value")
	if !ok || e.Type == nil || e.Type.NumElements() != 1 {
		return false
	}
	f, ok := floatAt(e.Data, e.Type.Elem, 0)
	return ok && pred(f)
}

// floatAt reads element i of a float buffer as float64 (exact widening).
func floatAt(b []byte, et ir.ElemType, i int) (float64, bool) {
	switch et {
	case ir.F64:
		return math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:])), true
	case ir.F32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))), true
	case ir.F16:
		return float64(floatconv.F16ToF32(binary.LittleEndian.Uint16(b[2*i:]))), true
	case ir.BF16:
		return float64(floatconv.BF16ToF32(binary.LittleEndian.Uint16(b[2*i:]))), true
	}
	return 0, false
}

// uintKey maps element i to a uint64 whose natural order is the requested one.
func uintKey(b []byte, et ir.ElemType, i int, k sortKey) uint64 {
	if et.IsFloat() {
		// IEEE totalOrder on the native bits: negative values reversed.
		w := uint(et.Bits())
		var u uint64
		switch w {
		case 64:
			u = binary.LittleEndian.Uint64(b[8*i:])
		case 32:
			u = uint64(binary.LittleEndian.Uint32(b[4*i:]))
		default:
			u = uint64(binary.LittleEndian.Uint16(b[2*i:]))
		}
		sign := uint64(1) << (w - 1)
		mask := sign | (sign - 1)
		if k.canonical {
			expMask := floatExpMask(et)
			switch {
			case u&^sign&expMask == expMask && u&^sign&^expMask != 0: // NaN: one value above +inf
				return mask
			case u&^sign == 0: // -0 sorts as +0
				u = 0
			}
		}
		if u&sign != 0 {
			return ^u & mask
		}
		return u | sign
	}
	v := uint64(lowerutil.ReadIndex(b, et, i))
	if et.IsUnsigned() && et.Bits() == 64 {
		v = binary.LittleEndian.Uint64(b[8*i:])
	}
	if k.signed {
		// readIndex sign-extends signed types; flip the sign bit for order.
		return v ^ 1<<63
	}
	if et.IsSigned() {
		// UNSIGNED compare of a signed type: reinterpret its bits.
		return v & (1<<uint(et.Bits()) - 1)
	}
	return v
}

func lowerSort(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	n := len(op.Operands)
	if n == 0 || len(op.Regions) != 1 {
		return nil, op.Errorf("expected N inputs, N results and a comparator")
	}
	in0, err := lowerutil.TensorOperand(op, 0)
	if err != nil {
		return nil, err
	}
	dim, err := lowerutil.IntAttr(op, "dimension")
	if err != nil {
		return nil, err
	}
	if dim < 0 {
		dim += int64(in0.Rank())
	}
	if in0.Rank() == 0 || dim < 0 || int(dim) >= in0.Rank() {
		return nil, op.Errorf("dimension %d out of range for %s", dim, in0)
	}
	length := int(in0.Shape[dim])
	keep := length
	nres := len(op.Results)
	operandOf := make([]int, nres) // result i's operand, or -1 for positions
	for i := range operandOf {
		operandOf[i] = i
	}
	if op.Name == PartialSortOp {
		k, err := lowerutil.IntAttr(op, "k")
		if err != nil {
			return nil, err
		}
		if k < 0 || k > int64(length) {
			return nil, op.Errorf("k = %d outside [0, %d]", k, length)
		}
		keep = int(k)
		pos, err := lowerutil.OptI64s(op, "positions")
		if err != nil {
			return nil, err
		}
		for _, p := range pos {
			if p <= 0 || p >= int64(nres) || operandOf[p] < 0 {
				return nil, op.Errorf("positions: %d is not a result after the first or is repeated", p)
			}
			operandOf[p] = -1
		}
		j := 0
		for i := range operandOf {
			if operandOf[i] >= 0 {
				operandOf[i] = j
				j++
			}
		}
		if j != n {
			return nil, op.Errorf("%d operands for %d results of which %d are positions", n, nres, len(pos))
		}
	} else if nres != n {
		return nil, op.Errorf("expected N inputs, N results and a comparator")
	}
	es := make([]int, nres)
	elems := make([]ir.ElemType, nres)
	outShape := slices.Clone(in0.Shape)
	outShape[dim] = int64(keep)
	for i := range nres {
		out, err := lowerutil.TensorResult(op, i)
		if err != nil {
			return nil, err
		}
		if !lowerutil.SameShape(out.Shape, outShape) {
			return nil, op.Errorf("result %d %s does not keep %d of %s along dimension %d", i, out, keep, in0, dim)
		}
		es[i], elems[i] = out.Elem.ByteSize(), out.Elem
		if operandOf[i] < 0 {
			if !(out.Elem == ir.S32 || out.Elem == ir.S64 || out.Elem == ir.U32 || out.Elem == ir.U64) || int64(length) > math.MaxInt32 {
				return nil, op.Errorf("positions result %d is %s; expected 32- or 64-bit integers", i, out)
			}
			continue
		}
		in, err := lowerutil.TensorOperand(op, operandOf[i])
		if err != nil {
			return nil, err
		}
		if !lowerutil.SameShape(in.Shape, in0.Shape) || in.Elem != out.Elem {
			return nil, op.Errorf("input %d %s and result %s do not agree with %s", operandOf[i], in, out, in0)
		}
	}
	inner := 1
	for _, d := range in0.Shape[dim+1:] {
		inner *= int(d)
	}
	nSlices := int(in0.NumElements()) / max(1, length)
	if length == 0 {
		nSlices = 0
	}
	s := &sorter{n: nres, es: es, operandOf: operandOf, length: length, keep: keep, inner: inner, slices: nSlices}
	et := in0.Elem
	if k, ok := matchComparator(op.Regions[0], elems); ok {
		s.key = &k
		s.et = et
	} else {
		if lex, ok := matchLexComparator(op.Regions[0], elems); ok && keysAreOperands(lex, operandOf) {
			s.lex = lex // the region stays the fallback for NaNs under FLOAT
		}
		body, err := ctx.CompileRegion(op.Regions[0])
		if err != nil {
			return nil, op.Errorf("compiling comparator: %v", err)
		}
		s.body = body
	}
	return s.step(ctx, op), nil
}

type sorter struct {
	n                     int
	es                    []int
	length, inner, slices int
	keep                  int      // leading elements of each sorted slice written out
	operandOf             []int    // result i's operand; -1: the result is the sorted positions
	lex                   []lexKey // a recognised lexicographic comparator, most significant key first
	key                   *sortKey
	et                    ir.ElemType
	body                  kernel.Callable
}

type sortScratch struct {
	sel       *topKSelector
	perm, tmp []int32
	ukeys     []uint64
	fkeys     []float64
	radix     radixScratch
	lexKeys   []uint64
	lexPerm   []int32
	posArgs   []byte // the comparator's position arguments, 16 bytes per result
	args      [][]byte
	res       [][]byte
}

func (s *sorter) step(ctx kernel.Context, op *ir.Op) kernel.Step {
	return func(ins, outs [][]byte) error {
		if s.slices == 0 || s.keep == 0 {
			return nil
		}
		if ctx != nil && s.key != nil && s.keep < s.length && s.slices < 4 && s.length >= splitSelectMin {
			// A few long slices, a short prefix (top_k): select each slice
			// in parts on the worker pool.
			sel := &topKSelector{n: s.length, k: s.keep, et: s.et, key: *s.key}
			var sc *sortScratch
			for sl := range s.slices {
				base := (sl/s.inner)*s.length*s.inner + sl%s.inner
				if best, ok := sel.rowSplit(ctx.Parallel, ins[0], base, s.inner); ok {
					s.permute(ins, outs, base, best)
					continue
				}
				if sc == nil {
					sc = &sortScratch{perm: kernel.Make[int32](s.length), tmp: kernel.Make[int32](s.length)}
				}
				if err := s.sortSlice(ins, outs, sl, sc); err != nil {
					return err
				}
			}
			return nil
		}
		var firstErr error
		errOnce := make(chan struct{}, 1)
		work := func(lo, hi int) {
			sc := &sortScratch{perm: kernel.Make[int32](s.length), tmp: kernel.Make[int32](s.length)}
			if s.key != nil && s.keep < s.length {
				sc.sel = &topKSelector{n: s.length, k: s.keep, et: s.et, key: *s.key}
			}
			if s.body != nil {
				sc.args = make([][]byte, 2*s.n)
				sc.res = [][]byte{make([]byte, 1)}
				sc.posArgs = make([]byte, 16*s.n)
			}
			for sl := lo; sl < hi; sl++ {
				if err := s.sortSlice(ins, outs, sl, sc); err != nil {
					select {
					case errOnce <- struct{}{}:
						firstErr = op.Errorf("comparator: %v", err)
					default:
					}
					return
				}
			}
		}
		if ctx == nil || s.slices < 2 || s.slices*s.length < 4096 {
			work(0, s.slices)
		} else {
			ctx.Parallel(s.slices, max(1, 4096/max(1, s.length)), work)
		}
		return firstErr
	}
}

// sortSlice sorts slice sl (outer index × inner index) of every operand.
func (s *sorter) sortSlice(ins, outs [][]byte, sl int, sc *sortScratch) error {
	base := (sl/s.inner)*s.length*s.inner + sl%s.inner
	perm := sc.perm
	if sc.sel != nil {
		if best, ok := sc.sel.row(ins[0], base, s.inner); ok {
			s.permute(ins, outs, base, best)
			return nil
		}
	}
	if s.key != nil {
		keys := grow(&sc.ukeys, s.length)
		if fillKeys(keys, ins[0], s.et, base, s.inner, *s.key) {
			sortByKey(keys, perm, keyBits(s.et), &sc.radix)
		} else {
			s.sortFloatsWithNaN(ins[0], base, sc)
		}
		s.permute(ins, outs, base, perm)
		return nil
	}
	if s.lex != nil && s.sortByKeys(ins, base, perm, sc) {
		s.permute(ins, outs, base, perm)
		return nil
	}
	pos := func(j int32) int { return base + int(j)*s.inner }
	for j := range perm {
		perm[j] = int32(j)
	}
	var callErr error
	less := func(a, b int32) bool {
		if callErr != nil {
			return false
		}
		for i := range s.n {
			e := s.es[i]
			if s.operandOf[i] < 0 {
				pa, pb := sc.posArgs[16*i:16*i+e], sc.posArgs[16*i+8:16*i+8+e]
				putPosition(pa, a)
				putPosition(pb, b)
				sc.args[2*i], sc.args[2*i+1] = pa, pb
				continue
			}
			in := ins[s.operandOf[i]]
			pa, pb := pos(a)*e, pos(b)*e
			sc.args[2*i] = in[pa : pa+e]
			sc.args[2*i+1] = in[pb : pb+e]
		}
		if err := s.body.Call(sc.args, sc.res); err != nil {
			callErr = err
			return false
		}
		return sc.res[0][0] != 0
	}
	mergeSort(perm, sc.tmp, less)
	if callErr != nil {
		return callErr
	}
	s.permute(ins, outs, base, perm)
	return nil
}

// sortFloatsWithNaN orders a slice under a FLOAT comparison that meets a
// NaN, which no key order reproduces: the merge sort on IEEE "<" (NaN
// unordered, -0 equal to +0), as the comparator region would order it.
func (s *sorter) sortFloatsWithNaN(b []byte, base int, sc *sortScratch) {
	keys := sc.fkeys[:0]
	for j := range s.length {
		f, _ := floatAt(b, s.et, base+j*s.inner)
		keys = append(keys, f)
	}
	sc.fkeys = keys
	perm := sc.perm
	for j := range perm {
		perm[j] = int32(j)
	}
	if s.key.desc {
		mergeSort(perm, sc.tmp, func(a, b int32) bool { return keys[a] > keys[b] })
	} else {
		mergeSort(perm, sc.tmp, func(a, b int32) bool { return keys[a] < keys[b] })
	}
}

// permute writes the first keep elements of every operand's slice in
// perm's order.
func (s *sorter) permute(ins, outs [][]byte, base int, perm []int32) {
	outBase := base
	if s.keep != s.length {
		outBase = (base/(s.length*s.inner))*s.keep*s.inner + base%s.inner
	}
	for i := range s.n {
		if s.operandOf[i] < 0 {
			writePositions(outs[i], s.es[i], perm[:s.keep], outBase, s.inner)
			continue
		}
		permuteInto(outs[i], ins[s.operandOf[i]], s.es[i], perm[:s.keep], outBase, base, s.inner)
	}
}

// putPosition stores position p as a little-endian integer of len(b) bytes.
func putPosition(b []byte, p int32) {
	if len(b) == 4 {
		binary.LittleEndian.PutUint32(b, uint32(p))
	} else {
		binary.LittleEndian.PutUint64(b, uint64(p))
	}
}

// writePositions stores perm's positions as es-byte integers at dBase +
// j*stride.
func writePositions(dst []byte, es int, perm []int32, dBase, stride int) {
	if es == 4 {
		d := byteview.As[int32](dst)
		for j, p := range perm {
			d[dBase+j*stride] = p
		}
		return
	}
	d := byteview.As[int64](dst)
	for j, p := range perm {
		d[dBase+j*stride] = int64(p)
	}
}

// mergeSort is a stable top-down merge sort of perm using only less.
func mergeSort(perm, tmp []int32, less func(a, b int32) bool) {
	if len(perm) <= 16 {
		for i := 1; i < len(perm); i++ {
			v := perm[i]
			j := i
			for ; j > 0 && less(v, perm[j-1]); j-- {
				perm[j] = perm[j-1]
			}
			perm[j] = v
		}
		return
	}
	mid := len(perm) / 2
	mergeSort(perm[:mid], tmp[:mid], less)
	mergeSort(perm[mid:], tmp[mid:], less)
	if !less(perm[mid], perm[mid-1]) {
		return // already in order
	}
	copy(tmp, perm)
	i, j, k := 0, mid, 0
	for i < mid && j < len(perm) {
		if less(tmp[j], tmp[i]) {
			perm[k] = tmp[j]
			j++
		} else {
			perm[k] = tmp[i]
			i++
		}
		k++
	}
	for i < mid {
		perm[k] = tmp[i]
		i++
		k++
	}
	for j < len(perm) {
		perm[k] = tmp[j]
		j++
		k++
	}
}

// floatExpMask is the exponent field of f16/bf16/f32/f64 bit patterns.
func floatExpMask(et ir.ElemType) uint64 {
	switch et {
	case ir.F64:
		return 0x7ff0000000000000
	case ir.F32:
		return 0x7f800000
	case ir.F16:
		return 0x7c00
	}
	return 0x7f80 // bf16
}

// keysAreOperands reports whether every key reads a materialized operand
// (not the positions a partial sort writes itself).
func keysAreOperands(keys []lexKey, operandOf []int) bool {
	for _, k := range keys {
		if operandOf[k.op] < 0 {
			return false
		}
	}
	return true
}

// sortCost: n·⌈log2 n⌉ comparisons of the n elements, the estimate of XLA's
// cost analysis for a comparison sort.
func sortCost(op *ir.Op) kernel.Work {
	if len(op.Operands) == 0 {
		return kernel.Work{}
	}
	n := kernel.Elements(op.Operands[0])
	if n < 2 {
		return kernel.Work{}
	}
	return kernel.Work{Flops: n * int64(bits.Len64(uint64(n-1)))}
}
