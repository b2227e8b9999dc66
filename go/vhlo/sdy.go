package vhlo

import (
	"fmt"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/mlirbc"
)

// sdyAttr keeps a Shardy attribute opaque: gojax runs single-device programs
// and only needs to carry shardings along.
func (d *decoder) sdyAttr(r *mlirbc.Reader, e mlirbc.Entry) (any, error) {
	code, err := r.VarInt()
	if err != nil {
		return nil, err
	}
	rest, _ := r.Bytes(uint64(r.Len()))
	return ir.OpaqueAttr{Dialect: "sdy", Text: fmt.Sprintf("#sdy<code %d: %x>", code, rest)}, nil
}
