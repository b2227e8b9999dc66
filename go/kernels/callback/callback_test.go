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
	step, err := lower(c, callbackOp(1, f32, f32), false)
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
	step, err := lower(c, callbackOp(0, f32, f32), false)
	require.NoError(t, err)
	err = step([][]byte{make([]byte, 8)}, [][]byte{make([]byte, 8)})
	require.ErrorContains(t, err, "C API is not available")
}

func TestLowerErrors(t *testing.T) {
	f32 := ir.Tensor(ir.F32, 2)
	_, err := lower(plainCtx{}, callbackOp(0, f32, f32), false)
	require.ErrorContains(t, err, "cannot run in this context")

	op := callbackOp(0, f32, f32)
	delete(op.Attrs, "mhlo.backend_config")
	_, err = lower(&ctx{}, op, false)
	require.ErrorContains(t, err, "no callback index")

	_, err = lower(&ctx{}, callbackOp(0, ir.Tensor(ir.S1, 2), f32), false)
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

// A partition's block of an operand is cut out in row-major order, with its
// own shape; whole operands and tokens pass through.
func TestCutTakesEachPartitionsBlock(t *testing.T) {
	ins := []slot{
		{Dtype: "int32", Shape: []int64{2, 3, 4}, Bytes: 96},
		{Dtype: "float32", Shape: []int64{2}, Bytes: 8},
		{Shape: []int64{}},
	}
	global := make([]byte, 96)
	for i := range 24 {
		global[4*i] = byte(i)
	}
	whole := []byte{1, 2, 3, 4, 5, 6, 7, 8}
	blocks := []kernel.Block{{Offset: []int64{0, 0, 2}, Shape: []int64{2, 3, 2}}, {}, {}}
	args, bufs, err := cut(ins, [][]byte{global, whole, nil}, blocks)
	require.NoError(t, err)
	require.Equal(t, []int64{2, 3, 2}, args[0].Shape)
	require.Equal(t, 48, args[0].Bytes)
	var got []byte
	for i := range 12 {
		got = append(got, bufs[0][4*i])
	}
	require.Equal(t, []byte{2, 3, 6, 7, 10, 11, 14, 15, 18, 19, 22, 23}, got)
	require.Equal(t, whole, bufs[1])
	require.Equal(t, ins[1], args[1])
	require.Equal(t, ins[2], args[2])

	_, _, err = cut(ins, [][]byte{global, whole, nil}, []kernel.Block{{Offset: []int64{0, 0, 3}, Shape: []int64{2, 3, 2}}, {}, {}})
	require.ErrorContains(t, err, "outside")
	_, _, err = cut(ins, [][]byte{global, whole, nil}, blocks[:2])
	require.ErrorContains(t, err, "2 operand blocks for 3 operands")
}
