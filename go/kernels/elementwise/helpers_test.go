package elementwise

import (
	"math"
	"testing"

	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
	"github.com/stretchr/testify/require"
)

// fakeCtx runs Parallel chunks sequentially but really splits the range, so
// the chunked path is exercised; regions compile through compile when set.
type fakeCtx struct {
	compile func(r *ir.Region) (kernel.Callable, error)
	chunks  int
}

func (c *fakeCtx) CompileRegion(r *ir.Region) (kernel.Callable, error) {
	if c.compile == nil {
		return nil, errNoRegions
	}
	return c.compile(r)
}

func (c *fakeCtx) Parallel(n, grain int, fn func(lo, hi int)) {
	for lo := 0; lo < n; lo += grain {
		c.chunks++
		fn(lo, min(lo+grain, n))
	}
}

type testErr string

func (e testErr) Error() string { return string(e) }

const errNoRegions = testErr("fake context compiles no regions")

// arg is one operand: its type and its bytes.
type arg struct {
	t    *ir.TensorType
	data []byte
}

func enc[T byteview.Elem](vals ...T) []byte {
	out := make([]byte, 0)
	out = append(out, byteview.Bytes(vals)...)
	return out
}

func dec[T byteview.Elem](b []byte) []T { return append([]T(nil), byteview.As[T](b)...) }

// vec builds a rank-1 operand of element type e.
func vec[T byteview.Elem](e ir.ElemType, vals ...T) arg {
	return arg{ir.Tensor(e, int64(len(vals))), enc(vals...)}
}

func scalarArg[T byteview.Elem](e ir.ElemType, v T) arg { return arg{ir.Tensor(e), enc(v)} }

// runOp lowers op name with the given operands and result type through the
// registry and runs it once.
func runOp(t *testing.T, name string, attrs ir.Attrs, out *ir.TensorType, args ...arg) []byte {
	t.Helper()
	b, err := tryOp(name, attrs, out, args...)
	require.NoError(t, err)
	return b
}

func tryOp(name string, attrs ir.Attrs, out *ir.TensorType, args ...arg) ([]byte, error) {
	step, err := lowerOp(&fakeCtx{}, name, attrs, out, args...)
	if err != nil {
		return nil, err
	}
	ins := make([][]byte, len(args))
	for i, a := range args {
		ins[i] = a.data
	}
	res := make([]byte, out.ByteSize())
	for i := range res {
		res[i] = 0xA5 // garbage: kernels must write every byte
	}
	if err := step(ins, [][]byte{res}); err != nil {
		return nil, err
	}
	return res, nil
}

func lowerOp(ctx kernel.Context, name string, attrs ir.Attrs, out *ir.TensorType, args ...arg) (kernel.Step, error) {
	l, ok := kernel.Lookup("stablehlo." + name)
	if !ok {
		return nil, testErr("no lowering for " + name)
	}
	vals := make([]*ir.Value, len(args))
	for i, a := range args {
		vals[i] = &ir.Value{Type: a.t}
	}
	op := ir.NewOp("stablehlo."+name, vals, []ir.Type{out}, attrs)
	return l(ctx, op)
}

// sameFloat compares floats bit-for-bit except that any NaN matches any NaN.
func sameF64(a, b float64) bool {
	if math.IsNaN(a) && math.IsNaN(b) {
		return true
	}
	return math.Float64bits(a) == math.Float64bits(b)
}

func sameF32(a, b float32) bool {
	if a != a && b != b {
		return true
	}
	return math.Float32bits(a) == math.Float32bits(b)
}

var (
	nan32  = float32(math.NaN())
	inf32  = float32(math.Inf(1))
	nan64  = math.NaN()
	inf64  = math.Inf(1)
	negz32 = float32(math.Copysign(0, -1))
	negz64 = math.Copysign(0, -1)
)

// opNames lists the names of some registered op classes.
func opNames(lists ...[]opClass) []string {
	var out []string
	for _, l := range lists {
		for _, o := range l {
			out = append(out, o.name)
		}
	}
	return out
}
