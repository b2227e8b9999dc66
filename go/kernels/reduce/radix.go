package reduce

import (
	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/ir"

	"github.com/gojax/gojax/go/kernels/kernel"
)

// Sorting on recognised comparators runs on unsigned keys whose natural
// order is the comparator's: a stable LSD radix sort over those keys is
// O(n) per slice and orders equal keys by position, exactly as the stable
// merge sort driven by the comparator does. sort and top_k share the keys.

// keyBits is the width of the keys of et: its storage width (pred: 8).
func keyBits(et ir.ElemType) int {
	if et == ir.Pred {
		return 8
	}
	return et.Bits()
}

// fillKeys writes into dst the keys of elements base + j*stride of b, for
// j < len(dst), with descending order turned into ascending. It reports
// false when a FLOAT (not TOTALORDER) comparison meets a NaN: NaN is
// unordered there, so no key order reproduces it and the caller falls back
// to the comparison sort.
func fillKeys(dst []uint64, b []byte, et ir.ElemType, base, stride int, k sortKey) bool {
	w := keyBits(et)
	mask := uint64(1)<<uint(w) - 1
	if w == 64 {
		mask = ^uint64(0)
	}
	var flip uint64
	if k.desc {
		flip = mask
	}
	if et.IsFloat() {
		return fillFloatKeys(dst, b, et, base, stride, k, flip)
	}
	switch {
	case et == ir.Pred || et.IsUnsigned() || !k.signed:
		// Natural order of the stored bits (UNSIGNED compare of a signed
		// type compares its bits too).
		switch w {
		case 8:
			s := byteview.As[uint8](b)
			for j := range dst {
				dst[j] = uint64(s[base+j*stride]) ^ flip
			}
		case 16:
			s := byteview.As[uint16](b)
			for j := range dst {
				dst[j] = uint64(s[base+j*stride]) ^ flip
			}
		case 32:
			s := byteview.As[uint32](b)
			for j := range dst {
				dst[j] = uint64(s[base+j*stride]) ^ flip
			}
		default:
			s := byteview.As[uint64](b)
			for j := range dst {
				dst[j] = s[base+j*stride] ^ flip
			}
		}
	default:
		// Signed: flipping the sign bit maps two's complement order onto
		// unsigned order.
		sign := uint64(1) << uint(w-1)
		switch w {
		case 8:
			s := byteview.As[uint8](b)
			for j := range dst {
				dst[j] = (uint64(s[base+j*stride]) ^ sign) ^ flip
			}
		case 16:
			s := byteview.As[uint16](b)
			for j := range dst {
				dst[j] = (uint64(s[base+j*stride]) ^ sign) ^ flip
			}
		case 32:
			s := byteview.As[uint32](b)
			for j := range dst {
				dst[j] = (uint64(s[base+j*stride]) ^ sign) ^ flip
			}
		default:
			s := byteview.As[uint64](b)
			for j := range dst {
				dst[j] = (s[base+j*stride] ^ sign) ^ flip
			}
		}
	}
	return true
}

// fillFloatKeys maps IEEE bit patterns onto totalOrder keys: negative
// values reversed below the positive ones. JAX's canonical comparator
// first maps -0 to +0 and every NaN to one NaN above +inf; a FLOAT
// comparison treats -0 and +0 as equal (same key) and has no order for NaN.
func fillFloatKeys(dst []uint64, b []byte, et ir.ElemType, base, stride int, k sortKey, flip uint64) bool {
	switch et.Bits() {
	case 64:
		return floatKeys(dst, byteview.As[uint64](b), base, stride, 64, floatExpMask(et), k, flip)
	case 32:
		return floatKeys(dst, byteview.As[uint32](b), base, stride, 32, uint32(floatExpMask(et)), k, flip)
	default:
		return floatKeys(dst, byteview.As[uint16](b), base, stride, 16, uint16(floatExpMask(et)), k, flip)
	}
}

func floatKeys[T uint16 | uint32 | uint64](dst []uint64, s []T, base, stride int, w uint, expMask T, k sortKey, flip uint64) bool {
	sign := T(1) << (w - 1)
	mask := sign | (sign - 1)
	// key flips every bit of a negative value and only the sign of a
	// positive one (no branch: the mask comes from the sign bit).
	key := func(u T) uint64 { return uint64(u^(-(u>>(w-1))|sign)) ^ flip }
	if k.total && !k.canonical {
		for j := range dst {
			dst[j] = key(s[base+j*stride])
		}
		return true
	}
	for j := range dst {
		u := s[base+j*stride]
		// One rarely taken branch for both zeros and NaNs: mag-1 wraps
		// around for 0 and is at least expMask only for NaN.
		if mag := u &^ sign; mag-1 >= expMask {
			switch {
			case mag == 0:
				u = 0
			case !k.total:
				return false
			default: // canonical NaN: one value above +inf
				dst[j] = uint64(mask) ^ flip
				continue
			}
		}
		dst[j] = key(u)
	}
	return true
}

// radixScratch is one worker's memory for sortByKey.
type radixScratch struct {
	packed, packedTmp []uint64
	keysTmp           []uint64
	permTmp           []int32
}

// smallSort is the length up to which insertion sort beats the radix
// passes' fixed cost (histograms of 256 buckets per digit).
const smallSort = 48

// sortByKey sets perm to the stable ascending order of keys (w significant
// bits each): perm[i] is the position of the i-th smallest key, equal keys
// in position order. keys is clobbered.
func sortByKey(keys []uint64, perm []int32, w int, sc *radixScratch) {
	n := len(keys)
	for j := range perm {
		perm[j] = int32(j)
	}
	if n <= smallSort {
		for i := 1; i < n; i++ {
			kv, pv := keys[i], perm[i]
			j := i
			for ; j > 0 && kv < keys[j-1]; j-- {
				keys[j], perm[j] = keys[j-1], perm[j-1]
			}
			keys[j], perm[j] = kv, pv
		}
		return
	}
	if w <= 32 {
		// Key and position in one word: every pass moves 8 bytes, and the
		// position rides along in the low half.
		p := grow(&sc.packed, n)
		t := grow(&sc.packedTmp, n)
		for j, k := range keys {
			p[j] = k<<32 | uint64(j)
		}
		p = radixPasses(p, t, 32, w)
		for j, v := range p {
			perm[j] = int32(uint32(v))
		}
		return
	}
	kt := grow(&sc.keysTmp, n)
	pt := growI32(&sc.permTmp, n)
	out := perm
	var counts [8][256]int
	for _, k := range keys {
		for d := range 8 {
			counts[d][byte(k>>(8*d))]++
		}
	}
	for d := range 8 {
		shift := uint(8 * d)
		if counts[d][byte(keys[0]>>shift)] == n {
			continue // every key has this digit: the pass would not move anything
		}
		offs := &counts[d]
		sum := 0
		for i, c := range offs {
			offs[i] = sum
			sum += c
		}
		for j, k := range keys {
			b := byte(k >> shift)
			o := offs[b]
			offs[b] = o + 1
			kt[o], pt[o] = k, perm[j]
		}
		keys, kt = kt, keys
		perm, pt = pt, perm
	}
	if &perm[0] != &out[0] {
		copy(out, perm) // the sorted order ended in scratch
	}
}

// radixPasses sorts p stably by the w key bits above bit lo, 8 bits per
// pass, skipping digits every element shares; it returns whichever of p and
// t holds the result.
func radixPasses(p, t []uint64, lo, w int) []uint64 {
	digits := (w + 7) / 8
	var counts [4][256]int
	for _, v := range p {
		k := v >> uint(lo)
		for d := range digits {
			counts[d][byte(k>>(8*d))]++
		}
	}
	n := len(p)
	for d := range digits {
		shift := uint(lo + 8*d)
		if counts[d][byte(p[0]>>shift)] == n {
			continue
		}
		offs := &counts[d]
		sum := 0
		for i, c := range offs {
			offs[i] = sum
			sum += c
		}
		for _, v := range p {
			b := byte(v >> shift)
			t[offs[b]] = v
			offs[b]++
		}
		p, t = t, p
	}
	return p
}

func grow(s *[]uint64, n int) []uint64 {
	if cap(*s) < n {
		*s = kernel.Make[uint64](n)
	}
	return (*s)[:n]
}

func growI32(s *[]int32, n int) []int32 {
	if cap(*s) < n {
		*s = kernel.Make[int32](n)
	}
	return (*s)[:n]
}

// permuteInto writes dst[dBase + j*stride] = src[sBase + perm[j]*stride]
// for elements of es bytes.
func permuteInto(dst, src []byte, es int, perm []int32, dBase, sBase, stride int) {
	switch es {
	case 1:
		permuteTyped(byteview.As[uint8](dst), byteview.As[uint8](src), perm, dBase, sBase, stride)
	case 2:
		permuteTyped(byteview.As[uint16](dst), byteview.As[uint16](src), perm, dBase, sBase, stride)
	case 4:
		permuteTyped(byteview.As[uint32](dst), byteview.As[uint32](src), perm, dBase, sBase, stride)
	case 8:
		permuteTyped(byteview.As[uint64](dst), byteview.As[uint64](src), perm, dBase, sBase, stride)
	case 16:
		permuteTyped(byteview.As[[2]uint64](dst), byteview.As[[2]uint64](src), perm, dBase, sBase, stride)
	default:
		for j, p := range perm {
			d, o := (dBase+j*stride)*es, (sBase+int(p)*stride)*es
			copy(dst[d:d+es], src[o:o+es])
		}
	}
}

func permuteTyped[T byteview.Elem](dst, src []T, perm []int32, dBase, sBase, stride int) {
	if stride == 1 {
		d := dst[dBase : dBase+len(perm)]
		s := src[sBase:]
		for j, p := range perm {
			d[j] = s[p]
		}
		return
	}
	for j, p := range perm {
		dst[dBase+j*stride] = src[sBase+int(p)*stride]
	}
}
