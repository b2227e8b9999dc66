package reduce

import (
	"github.com/gojax/gojax/go/ir"
)

// JAX sorts on several keys (jnp.lexsort, lax.sort with num_keys > 1,
// complex values) with a lexicographic comparator:
//
//	less(k1..kn) = lt(k1) or (eq(k1) and less(k2..kn)),   less(kn) = lt(kn)
//
// each key optionally canonicalized as for one key. A stable radix sort by
// the last key, then the one before, …, then the first orders the elements
// exactly as the stable merge sort driven by that comparator.

// lexKey is one key of a lexicographic comparator: operand op compared
// with k.
type lexKey struct {
	op int
	k  sortKey
	et ir.ElemType
}

// matchLexComparator recognizes a lexicographic comparator over operands
// of the given element types; the keys come most significant first.
func matchLexComparator(r *ir.Region, types []ir.ElemType) ([]lexKey, bool) {
	if len(r.Blocks) != 1 {
		return nil, false
	}
	b := r.Blocks[0]
	if len(b.Args) != 2*len(types) {
		return nil, false
	}
	ret := b.Terminator()
	if ret == nil || (ret.Name != "stablehlo.return" && ret.Name != "func.return") || len(ret.Operands) != 1 {
		return nil, false
	}
	keys, ok := lexChain(ret.Operands[0], b, types)
	if !ok || len(b.Ops) != countOps(ret, b) {
		return nil, false
	}
	seen := map[int]bool{}
	for _, k := range keys {
		if seen[k.op] {
			return nil, false // a key compared twice: not a plain chain
		}
		seen[k.op] = true
	}
	return keys, true
}

// lexChain matches lt(k) or or(lt(k), and(eq(k), rest)), the and's and
// the or's operands in either order.
func lexChain(v *ir.Value, b *ir.Block, types []ir.ElemType) ([]lexKey, bool) {
	if key, eq, ok := keyCompare(v, b, types); ok {
		return []lexKey{key}, !eq
	}
	or := v.Def
	if or == nil || or.Block != b || or.Name != "stablehlo.or" || len(or.Operands) != 2 {
		return nil, false
	}
	for _, lt := range []int{0, 1} {
		first, eq, ok := keyCompare(or.Operands[lt], b, types)
		and := or.Operands[1-lt].Def
		if !ok || eq || and == nil || and.Block != b || and.Name != "stablehlo.and" || len(and.Operands) != 2 {
			continue
		}
		for _, e := range []int{0, 1} {
			same, isEq, ok := keyCompare(and.Operands[e], b, types)
			if !ok || !isEq || same.op != first.op || same.k.canonical != first.k.canonical {
				continue
			}
			if rest, ok := lexChain(and.Operands[1-e], b, types); ok {
				return append([]lexKey{first}, rest...), true
			}
		}
	}
	return nil, false
}

// keyCompare matches compare(x, y) on the arguments of one operand (x, y
// its two block arguments, possibly canonicalized alike): LT or GT give the
// key's order, EQ reports eq. Equality is accepted only where it is
// equality of keys: integers, and floats under TOTALORDER.
func keyCompare(v *ir.Value, b *ir.Block, types []ir.ElemType) (lexKey, bool, bool) {
	var key lexKey
	cmp := v.Def
	if cmp == nil || cmp.Block != b || cmp.Name != "stablehlo.compare" || len(cmp.Operands) != 2 {
		return key, false, false
	}
	dir, _ := cmp.Attrs.Enum("comparison_direction")
	ct, _ := cmp.Attrs.Enum("compare_type")
	la, lc, ok1 := keyArg(cmp.Operands[0], b)
	ra, rc, ok2 := keyArg(cmp.Operands[1], b)
	if !ok1 || !ok2 || lc != rc || la/2 != ra/2 || la == ra {
		return key, false, false
	}
	op := la / 2
	if op >= len(types) {
		return key, false, false
	}
	et := types[op]
	key.op, key.et = op, et
	k := sortKey{canonical: lc}
	eq := dir == "EQ"
	switch dir {
	case "EQ":
	case "LT":
		k.desc = la > ra
	case "GT":
		k.desc = la < ra
	default:
		return key, false, false
	}
	switch {
	case et.IsFloat() && !et.IsSmallFloat():
		switch ct {
		case "TOTALORDER":
			k.total = true
		case "FLOAT", "NOTYPE", "":
			if eq {
				return key, false, false // -0 == +0 and NaN != NaN: not key equality
			}
		default:
			return key, false, false
		}
	case et.IsInteger() || et == ir.Pred:
		if lc {
			return key, false, false
		}
		switch ct {
		case "SIGNED":
			if et.IsUnsigned() {
				return key, false, false
			}
			k.signed = true
		case "UNSIGNED":
		case "NOTYPE", "":
			k.signed = et.IsSigned()
		default:
			return key, false, false
		}
	default:
		return key, false, false
	}
	key.k = k
	return key, eq, true
}

// sortByKeys sets perm to the stable order of a slice under lexicographic
// keys: radix passes by the least significant key first. It reports false
// where a FLOAT key meets a NaN (see fillKeys).
func (s *sorter) sortByKeys(ins [][]byte, base int, perm []int32, sc *sortScratch) bool {
	n := s.length
	for j := range perm {
		perm[j] = int32(j)
	}
	raw := grow(&sc.ukeys, n)
	keys := grow(&sc.lexKeys, n)
	order := growI32(&sc.tmp, n)
	for i := len(s.lex) - 1; i >= 0; i-- {
		lk := s.lex[i]
		if !fillKeys(raw, ins[s.operandOf[lk.op]], lk.et, base, s.inner, lk.k) {
			return false
		}
		for j, p := range perm {
			keys[j] = raw[p]
		}
		sortByKey(keys, order, keyBits(lk.et), &sc.radix)
		next := growI32(&sc.lexPerm, n)
		for j, o := range order {
			next[j] = perm[o]
		}
		copy(perm, next)
	}
	return true
}
