package reduce

import "github.com/gojax/gojax/go/ir"

// RowFunc reduces rows consecutive runs of n elements of src (rows*n
// elements) into dst (rows elements), starting each from the one element
// init.
type RowFunc func(dst, src, init []byte, rows int)

// RowReduce returns the reduction of contiguous rows of n elements with
// body (a reduce region over element type et) as stablehlo.reduce computes
// each output of a reduction over trailing dimensions: the same leaves,
// segments and combining tree, so the row-fusion kernel (go/kernels/fused),
// which runs the reduction row block by row block with its neighbours, gets
// the unfused plan's bits. ok is false when that reduce has no fast path (its general path
// is not offered here).
func RowReduce(body *ir.Region, et ir.ElemType, n int) (RowFunc, bool) {
	if n < 1 {
		return nil, false
	}
	kind := binaryBody(body, et)
	if kind == opNone {
		return nil, false
	}
	rk, ok := newTyped(et, kind).(rowKernels)
	if !ok {
		return nil, false
	}
	return rk.rowFunc(n), true
}

// rowKernels is implemented by every typed[A].
type rowKernels interface{ rowFunc(n int) RowFunc }

func (t *typed[A]) rowFunc(n int) RowFunc {
	// One reduced dim of n elements: leafSeg and tree then walk a row just
	// as runInnerReduced walks each output's row.
	r := &fastReducer[A]{lay: newLayout([]int64{int64(n)}, []bool{true}), f: t.f, st: t.st}
	return func(dst, src, init []byte, rows int) {
		sc := r.getScratch()
		// The init value as readInit reads it, without its escaping array.
		var ini A
		if r.st.view != nil {
			ini = r.st.view(init)[0]
		} else {
			r.st.load(sc.conv[:1], init, 0)
			ini = sc.conv[0]
		}
		r.rowsAt(src, dst, ini, 0, rows, n, sc)
		r.pool.Put(sc)
	}
}
