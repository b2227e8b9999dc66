package reduce

import "github.com/gojax/gojax/go/ir"

// foldChunk is how many elements fold widens at a time for element types
// stored in another form (f16, bf16, sub-byte integers).
const foldChunk = 1024

// Fold returns a loop computing dst[i] = body(dst[i], src[i]) over whole
// buffers of element type et, where body is a region recognized as one
// binary op (as reductions recognize theirs), or nil when there is no typed
// loop for the pair. Each element gets the bits the region would give it:
// the op is applied once per element and rounded to the storage type.
func Fold(body *ir.Region, et ir.ElemType) func(dst, src []byte) {
	kind := binaryBody(body, et)
	if kind == opNone || et.ByteSize() == 0 {
		return nil
	}
	t := newTyped(et, kind)
	if t == nil {
		return nil
	}
	return t.fold(et.ByteSize())
}

func (t *typed[A]) fold(es int) func(dst, src []byte) {
	st, acc := t.st, t.f.acc
	if st.plain {
		return func(dst, src []byte) { acc(st.view(dst), st.view(src)) }
	}
	return func(dst, src []byte) {
		var a, b [foldChunk]A
		elems := len(dst) / es
		for lo := 0; lo < elems; lo += foldChunk {
			k := min(foldChunk, elems-lo)
			st.load(a[:k], dst, lo)
			st.load(b[:k], src, lo)
			acc(a[:k], b[:k])
			for i, v := range a[:k] {
				st.store(dst, lo+i, v)
			}
		}
	}
}
