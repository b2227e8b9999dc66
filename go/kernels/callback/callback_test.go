package callback

import (
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
	"github.com/stretchr/testify/require"
)

type ctx struct{ table kernel.HostCallbacks }

func (c *ctx) CompileRegion(*ir.Region) (kernel.Callable, error) { return nil, nil }
func (c *ctx) Parallel(n, grain int, fn func(lo, hi int))        { fn(0, n) }
func (c *ctx) HostCallbacks() *kernel.HostCallbacks              { return &c.table }

type plainCtx struct{}

func (plainCtx) CompileRegion(*ir.Region) (kernel.Callable, error) { return nil, nil }
func (plainCtx) Parallel(n, grain int, fn func(lo, hi int))        { fn(0, n) }

func callbackOp(index int64, in, out ir.Type) *ir.Op {
	arg := &ir.Value{Type: in}
	cfg := ir.DictAttr{Entries: ir.Attrs{"index": ir.IntAttr{Value: index, Type: ir.U64}}}
	op := ir.NewOp("stablehlo.custom_call", []*ir.Value{arg}, []ir.Type{out},
		ir.Attrs{"call_target_name": ir.StringAttr{Value: Target}, "mhlo.backend_config": cfg})
	op.Loc = &ir.Location{File: "model.py", Line: 3, Col: 4}
	return op
}

func TestLowerRecordsUseAndNeedsTheCallable(t *testing.T) {
	c := &ctx{}
	f32 := ir.Tensor(ir.F32, 2)
	step, err := lower(c, callbackOp(1, f32, f32))
	require.NoError(t, err)
	require.True(t, c.table.Used())
	err = step([][]byte{make([]byte, 8)}, [][]byte{make([]byte, 8)})
	require.ErrorContains(t, err, "host callback 1 was not provided")
	require.ErrorContains(t, err, "model.py:3:4")
}

func TestStepWithoutPythonFailsCleanly(t *testing.T) {
	// A Go test binary has no interpreter: the call must fail, not crash.
	c := &ctx{}
	c.table.Set([]uintptr{0x1000})
	f32 := ir.Tensor(ir.F32, 2)
	step, err := lower(c, callbackOp(0, f32, f32))
	require.NoError(t, err)
	err = step([][]byte{make([]byte, 8)}, [][]byte{make([]byte, 8)})
	require.ErrorContains(t, err, "C API is not available")
}

func TestLowerErrors(t *testing.T) {
	f32 := ir.Tensor(ir.F32, 2)
	_, err := lower(plainCtx{}, callbackOp(0, f32, f32))
	require.ErrorContains(t, err, "cannot run in this context")

	op := callbackOp(0, f32, f32)
	delete(op.Attrs, "mhlo.backend_config")
	_, err = lower(&ctx{}, op)
	require.ErrorContains(t, err, "no callback index")

	_, err = lower(&ctx{}, callbackOp(0, ir.Tensor(ir.S1, 2), f32))
	require.ErrorContains(t, err, "do not support")
}

func TestEveryOtherElementTypeHasADtype(t *testing.T) {
	for _, e := range ir.ElemTypes() {
		if e == ir.S1 || e == ir.U1 { // sub-byte 1-bit ints: jaxlib refuses them too
			continue
		}
		_, ok := dtypeNames[e]
		require.True(t, ok, "no dtype for %s", e)
	}
}
