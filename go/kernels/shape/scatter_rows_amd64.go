//go:build amd64 && !purego

package shape

import (
	"github.com/gojax/gojax/go/internal/cpufeat"
	"github.com/gojax/gojax/go/ir"
)

//go:noescape
func addRowsF32Z(dst, src *byte, doff, soff *int64, n, full, tail int)

//go:noescape
func addRowsF64Z(dst, src *byte, doff, soff *int64, n, full, tail int)

// vectorAddRows is whether addRowsFor returns the vector loops; tests
// turn it off to run the row calls.
var vectorAddRows = cpufeat.Widest() == "Z"

// addRowsFor returns the block row add of f32 or f64 rows of rowLen
// elements, or the zero addRows where no vector set runs it.
func addRowsFor(et ir.ElemType, rowLen int) addRows {
	lanes := 16
	switch {
	case !vectorAddRows || rowLen < 1:
		return addRows{}
	case et == ir.F64:
		lanes = 8
	case et != ir.F32:
		return addRows{}
	}
	return addRows{et: et, full: rowLen / lanes, tail: 1<<(rowLen%lanes) - 1}
}

// run adds the row at element soff[j] of src into the row at element
// doff[j] of dst for every j, in order; the offsets are the plan's, each
// row inside its buffer.
func (a addRows) run(dst, src []byte, doff, soff []int64) {
	if len(doff) == 0 {
		return
	}
	_ = soff[len(doff)-1]
	if a.et == ir.F64 {
		addRowsF64Z(&dst[0], &src[0], &doff[0], &soff[0], len(doff), a.full, a.tail)
		return
	}
	addRowsF32Z(&dst[0], &src[0], &doff[0], &soff[0], len(doff), a.full, a.tail)
}
