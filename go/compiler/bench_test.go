package compiler

import (
	"encoding/binary"
	"math"
	"syscall"
	"testing"
	"time"

	"github.com/gojax/gojax/go/ir"
)

// BenchmarkLoopIteration measures executor overhead per while iteration
// (compare + two scalar adds: three kernel steps and the carry hand-off).
func BenchmarkLoopIteration(b *testing.B) {
	if n, ok := lookupAll("stablehlo.add", "stablehlo.compare"); !ok {
		b.Fatalf("no kernel registered for %s", n)
	}
	mb := newMod()
	mb.fn("main", "public", []ir.Type{i32t()}, []ir.Type{i32t()}, func(bb *blkB, a []*ir.Value) []*ir.Value {
		r := bb.while([]*ir.Value{bb.i32c(0), bb.i32c(0)},
			func(rb *blkB, c []*ir.Value) *ir.Value { return rb.cmp("LT", c[0], a[0]) },
			func(rb *blkB, c []*ir.Value) []*ir.Value {
				return []*ir.Value{rb.hlo("add", c[0], rb.i32c(1)), rb.hlo("add", c[1], c[0])}
			})
		return []*ir.Value{r[1]}
	})
	e, err := CompileModule(mb.m, Options{})
	if err != nil {
		b.Fatal(err)
	}
	const iters = 10000
	args := [][]byte{i32s(iters)}
	b.ResetTimer()
	for range b.N {
		res, err := e.Run(args, nil)
		if err != nil {
			b.Fatal(err)
		}
		freeAll(res)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/iters, "ns/iter")
}

// BenchmarkSmallRun measures the fixed cost of one Run of a one-step program.
func BenchmarkSmallRun(b *testing.B) {
	mb := newMod()
	mb.fn("main", "public", []ir.Type{f32t(4), f32t(4)}, []ir.Type{f32t(4)}, func(bb *blkB, a []*ir.Value) []*ir.Value {
		return []*ir.Value{bb.add(a[0], a[1])}
	})
	e, err := CompileModule(mb.m, Options{})
	if err != nil {
		b.Fatal(err)
	}
	args := [][]byte{f32s(1, 2, 3, 4), f32s(1, 2, 3, 4)}
	b.ReportAllocs()
	for range b.N {
		res, err := e.Run(args, nil)
		if err != nil {
			b.Fatal(err)
		}
		freeAll(res)
	}
}

// chainModule is tanh(x*2+1)*y on f32[n]; the constants are broadcast
// scalars, as JAX emits them.
func chainModule(n int64, withTanh bool) *ir.Module {
	mb := newMod()
	mb.fn("main", "public", []ir.Type{f32t(n), f32t(n)}, []ir.Type{f32t(n)}, func(b *blkB, a []*ir.Value) []*ir.Value {
		bc := func(v float32) *ir.Value {
			return b.v("stablehlo.broadcast_in_dim", f32t(n), ir.Attrs{"broadcast_dimensions": ir.DenseI64Attr{}}, b.f32c(nil, v))
		}
		x := b.hlo("add", b.hlo("multiply", a[0], bc(2)), bc(1))
		if withTanh {
			x = b.v("stablehlo.tanh", x.Type, nil, x)
		}
		return []*ir.Value{b.hlo("multiply", x, a[1])}
	})
	return mb.m
}

// BenchmarkElementwiseChain compares the fused and unfused plans of
// tanh(x*2+1)*y (compute bound) and (x*2+1)*y (memory bound) on 16M f32
// elements.
func BenchmarkElementwiseChain(b *testing.B) {
	const n = 16 << 20
	for _, c := range []struct {
		name string
		tanh bool
		opts Options
	}{
		{"tanh/fused", true, Options{}}, {"tanh/unfused", true, Options{NoFuse: true}},
		{"affine/fused", false, Options{}}, {"affine/unfused", false, Options{NoFuse: true}},
	} {
		b.Run(c.name, func(b *testing.B) {
			e, err := CompileModule(chainModule(n, c.tanh), c.opts)
			if err != nil {
				b.Fatal(err)
			}
			x, y := make([]byte, 4*n), make([]byte, 4*n)
			for i := range n {
				binary.LittleEndian.PutUint32(x[4*i:], math.Float32bits(float32(i%1000)/500-1))
				binary.LittleEndian.PutUint32(y[4*i:], math.Float32bits(float32(i%7)))
			}
			args := [][]byte{x, y}
			// The plan alone, into a reused output: Run's fresh 64 MiB
			// output (page faults on first touch) would hide the loops.
			outs := [][]byte{make([]byte, 4*n)}
			b.SetBytes(3 * 4 * n)
			b.ResetTimer()
			cpu0 := cpuTime()
			for range b.N {
				if err := e.plan.exec(args, outs, nil, 0, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/elem")
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}

// BenchmarkScalarAddOne measures the per-Run cost of x+1 on an f32 scalar:
// Run (result, output allocation from devmem, frame, one kernel step),
// RunInto with a reused result, and the plan alone (no devmem).
func BenchmarkScalarAddOne(b *testing.B) {
	mb := newMod()
	mb.fn("main", "public", []ir.Type{f32t()}, []ir.Type{f32t()}, func(bb *blkB, a []*ir.Value) []*ir.Value {
		return []*ir.Value{bb.hlo("add", a[0], bb.f32c(nil, 1))}
	})
	e, err := CompileModule(mb.m, Options{})
	if err != nil {
		b.Fatal(err)
	}
	args := [][]byte{f32s(41)}
	b.Run("Run", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			res, err := e.Run(args, nil)
			if err != nil {
				b.Fatal(err)
			}
			freeAll(res)
		}
	})
	b.Run("RunInto", func(b *testing.B) {
		b.ReportAllocs()
		var res RunResult
		for range b.N {
			if err := e.RunInto(args, nil, &res); err != nil {
				b.Fatal(err)
			}
			freeAll(&res)
		}
	})
	b.Run("plan", func(b *testing.B) {
		b.ReportAllocs()
		outs := [][]byte{make([]byte, 4)}
		for range b.N {
			if err := e.plan.exec(args, outs, nil, 0, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSmallChainPlan is the plan cost of tanh(x*2+1)*y on f32[8]:
// one fused step against four kernel steps.
func BenchmarkSmallChainPlan(b *testing.B) {
	for _, c := range []struct {
		name string
		opts Options
	}{{"fused", Options{}}, {"unfused", Options{NoFuse: true}}} {
		b.Run(c.name, func(b *testing.B) {
			e, err := CompileModule(chainModule(8, true), c.opts)
			if err != nil {
				b.Fatal(err)
			}
			args := [][]byte{make([]byte, 32), make([]byte, 32)}
			outs := [][]byte{make([]byte, 32)}
			b.ReportAllocs()
			for range b.N {
				if err := e.plan.exec(args, outs, nil, 0, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFusedStepAllocs runs a parallel fused step (affine chain on 1M
// f32) through RunInto: no Go allocation per run.
func BenchmarkFusedStepAllocs(b *testing.B) {
	const n = 1 << 20
	e, err := CompileModule(chainModule(n, false), Options{})
	if err != nil {
		b.Fatal(err)
	}
	args := [][]byte{make([]byte, 4*n), make([]byte, 4*n)}
	var res RunResult
	b.ReportAllocs()
	for range b.N {
		if err := e.RunInto(args, nil, &res); err != nil {
			b.Fatal(err)
		}
		freeAll(&res)
	}
}

// cpuTime is the process's user+system CPU time: on a shared machine it
// varies less than wall time (workers waiting for a core do not count).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
