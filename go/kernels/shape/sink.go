package shape

import (
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// dce_sink (lax.dce_sink) marks its operand used so that the compiler keeps
// computing it: the step reads nothing and writes nothing, and its presence
// keeps the operand's producers alive (it is a side-effecting op). It also
// shows in the compiled text, as in XLA's.
func init() {
	kernel.RegisterCustomCall("dce_sink", func(_ kernel.Context, op *ir.Op) (kernel.Step, error) {
		if len(op.Results) != 0 {
			return nil, op.Errorf("dce_sink has no results, got %d", len(op.Results))
		}
		return func(_, _ [][]byte) error { return nil }, nil
	})
}
