package reduce

import (
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/gojax/gojax/go/ir"
)

// cumsumCase is the reduce_window JAX emits for cumsum along axis of shape.
func cumsumCase(shape []int64, axis int) rwCase {
	r := len(shape)
	c := rwCase{name: "cumsum", shape: shape, win: make([]int64, r), strides: make([]int64, r),
		bdil: make([]int64, r), wdil: make([]int64, r), pads: make([]int64, 2*r)}
	for d := range r {
		c.win[d], c.strides[d], c.bdil[d], c.wdil[d] = 1, 1, 1, 1
	}
	c.win[axis] = shape[axis]
	c.pads[2*axis] = shape[axis] - 1
	return c
}

type lowerCost struct {
	alloc, heap uint64 // bytes allocated by the lowering; live heap it leaves
	runAlloc    uint64 // bytes allocated by one run (output preallocated)
	lower, run  time.Duration
}

// measureCumsum lowers a 1-D f32 cumsum of n ones and runs it once.
func measureCumsum(t testing.TB, n int64) lowerCost {
	op := rwOp(cumsumCase([]int64{n}, 0), ir.F32, binRegion("stablehlo.add", ir.F32))
	in, init := make([]byte, 4*n), f32s(0)
	out := make([]byte, 4*n)
	l, _ := lookupOp(op.Name)
	var m0, m1, m2 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	t0 := time.Now()
	st, err := l(&fakeCtx{}, op)
	if err != nil {
		t.Fatal(err)
	}
	var c lowerCost
	c.lower = time.Since(t0)
	runtime.ReadMemStats(&m1)
	runtime.GC()
	runtime.ReadMemStats(&m2)
	c.alloc = m1.TotalAlloc - m0.TotalAlloc
	if m2.HeapAlloc > m0.HeapAlloc {
		c.heap = m2.HeapAlloc - m0.HeapAlloc
	}
	t0 = time.Now()
	if err := st([][]byte{in, init}, [][]byte{out}); err != nil {
		t.Fatal(err)
	}
	c.run = time.Since(t0)
	var m3 runtime.MemStats
	runtime.ReadMemStats(&m3)
	c.runAlloc = m3.TotalAlloc - m2.TotalAlloc
	runtime.KeepAlive(st)
	return c
}

// TestCumsumLoweringIsSmall: lowering a cumulative reduce_window builds no
// table proportional to the axis, so a 10^7-element cumsum compiles in a few
// KiB and runs.
func TestCumsumLoweringIsSmall(t *testing.T) {
	c := measureCumsum(t, 10_000_000)
	if c.alloc > 1<<20 || c.heap > 1<<20 || c.runAlloc > 1<<20 {
		t.Fatalf("lowering cumsum(1e7) allocated %d B, keeps %d B; running it allocated %d B", c.alloc, c.heap, c.runAlloc)
	}
}

// TestReportCumsumCost prints the lowering cost at a few sizes
// (GOJAX_REPORT_CUMSUM=n1,n2,… or the default list).
func TestReportCumsumCost(t *testing.T) {
	if os.Getenv("GOJAX_REPORT_CUMSUM") == "" {
		t.Skip("set GOJAX_REPORT_CUMSUM=1 to print lowering costs")
	}
	for _, n := range []int64{20_000, 300_000, 10_000_000} {
		if n > 20_000 && os.Getenv("GOJAX_REPORT_CUMSUM") == "small" {
			break
		}
		c := measureCumsum(t, n)
		t.Logf("cumsum n=%d: lowering %v, allocated %d B, live %d B; run %v, allocated %d B", n, c.lower, c.alloc, c.heap, c.run, c.runAlloc)
	}
}

func BenchmarkCumsumRows4096x1024(b *testing.B) {
	c := cumsumCase([]int64{4096, 1024}, 1)
	benchOp(b, rwOp(c, ir.F32, binRegion("stablehlo.add", ir.F32)), make([]byte, 4096*1024*4), f32s(0))
}

func BenchmarkCumsumCols1024x4096(b *testing.B) {
	c := cumsumCase([]int64{1024, 4096}, 0)
	benchOp(b, rwOp(c, ir.F32, binRegion("stablehlo.add", ir.F32)), make([]byte, 4096*1024*4), f32s(0))
}

// BenchmarkReverseCumsumF32 is the window walk a reverse float sum takes
// (regrouping it as a suffix scan would round differently).
func BenchmarkReverseCumsumF32(b *testing.B) {
	c := cumsumCase([]int64{4096}, 0)
	c.pads[0], c.pads[1] = 0, 4095
	benchOp(b, rwOp(c, ir.F32, binRegion("stablehlo.add", ir.F32)), make([]byte, 4096*4), f32s(0))
}
