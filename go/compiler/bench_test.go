package compiler

import (
	"testing"

	"github.com/gojax/gojax/go/ir"
)

// BenchmarkLoopIteration measures executor overhead per while iteration
// (compare + two scalar adds: three kernel steps and the carry hand-off).
func BenchmarkLoopIteration(b *testing.B) {
	if _, ok := lookupAll("stablehlo.add", "stablehlo.compare"); !ok {
		b.Skip("real kernels not registered")
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
