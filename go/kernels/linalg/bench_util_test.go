//go:build unix

package linalg

import (
	"fmt"
	"math/rand"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

func lookupForBench(op *ir.Op) (kernel.Lower, bool) { return kernel.Lookup(op.Name) }

// benchCtx uses one worker per CPU, as the compiler's pool would.
func benchCtx() kernel.Context { return fakeCtx{runtime.GOMAXPROCS(0)} }

// processCPU is the CPU time used by the process so far. On a shared machine
// wall-clock rates mostly measure the neighbours; GFLOP per CPU-second does
// not.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchStep lowers op and runs it on ins b.N times, reporting wall-clock
// GFLOP/s and GFLOP per CPU-second for flops per run.
func benchStep(b *testing.B, op *ir.Op, ins [][]byte, flops float64) {
	l, _ := lookupForBench(op)
	step, err := l(benchCtx(), op)
	if err != nil {
		b.Fatal(err)
	}
	out := [][]byte{make([]byte, op.Results[0].Tensor().ByteSize())}
	b.ResetTimer()
	cpu0 := processCPU()
	for i := 0; i < b.N; i++ {
		if err := step(ins, out); err != nil {
			b.Fatal(err)
		}
	}
	cpu := processCPU() - cpu0
	flops *= float64(b.N)
	b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	b.ReportMetric(flops/cpu.Seconds()/1e9, "GFLOP/cpu-s")
}

// BenchmarkDotGeneral reports wall-clock GFLOP/s and GFLOP per CPU-second
// (per core) for square matmuls.
func BenchmarkDotGeneral(b *testing.B) {
	cases := []struct {
		et ir.ElemType
		n  int64
	}{{ir.F32, 256}, {ir.F32, 1024}, {ir.F32, 2048}, {ir.F64, 256}, {ir.F64, 1024}, {ir.BF16, 256}, {ir.BF16, 1024}}
	for _, tc := range cases {
		et, n := tc.et, tc.n
		b.Run(fmt.Sprintf("%s/%d", et, n), func(b *testing.B) {
			r := rand.New(rand.NewSource(1))
			op := mkOp("stablehlo.dot_general", []*ir.TensorType{ir.Tensor(et, n, n), ir.Tensor(et, n, n)},
				[]*ir.TensorType{ir.Tensor(et, n, n)}, dotAttrs(nil, nil, []int64{1}, []int64{0}))
			var x, y []byte
			switch et {
			case ir.F32:
				x, y = f32Bytes(randF32(r, int(n*n))), f32Bytes(randF32(r, int(n*n)))
			case ir.F64:
				x, y = f64Bytes(randF64(r, int(n*n))), f64Bytes(randF64(r, int(n*n)))
			default:
				x, y = make([]byte, 2*n*n), make([]byte, 2*n*n)
				fromF32(x, randF32(r, int(n*n)), et)
				fromF32(y, randF32(r, int(n*n)), et)
			}
			benchStep(b, op, [][]byte{x, y}, 2*float64(n*n*n))
		})
	}
}

// BenchmarkConvolution: a ResNet-style 3×3 convolution, NHWC/HWIO, f32.
func BenchmarkConvolution(b *testing.B) {
	c := convCase{lhsShape: []int64{8, 32, 32, 64}, rhsShape: []int64{3, 3, 64, 64},
		inB: 0, inF: 3, inSp: []int64{1, 2}, kSp: []int64{0, 1}, kI: 2, kO: 3, outB: 0, outF: 3, outSp: []int64{1, 2},
		pad: []int64{1, 1, 1, 1}}
	r := rand.New(rand.NewSource(1))
	op := mkOp("stablehlo.convolution", []*ir.TensorType{ir.Tensor(ir.F32, c.lhsShape...), ir.Tensor(ir.F32, c.rhsShape...)},
		[]*ir.TensorType{ir.Tensor(ir.F32, c.outShape()...)}, c.attrs())
	x, y := f32Bytes(randF32(r, 8*32*32*64)), f32Bytes(randF32(r, 3*3*64*64))
	benchStep(b, op, [][]byte{x, y}, 2*float64(8*32*32)*64*9*64)
}

// BenchmarkConvolutionNHWC: the benchmark suite's conv2d (batch 32,
// 32×32×64 → 64, 3×3, SAME) forward and the two convolutions of its
// gradient as JAX emits them (dx: dy with the flipped kernel; dw: x and dy
// with batch and feature swapped, HWIO result).
func BenchmarkConvolutionNHWC(b *testing.B) {
	const nb, hw, ci, co = 32, 32, 64, 64
	fwd := convCase{lhsShape: []int64{nb, hw, hw, ci}, rhsShape: []int64{3, 3, ci, co},
		inB: 0, inF: 3, inSp: []int64{1, 2}, kSp: []int64{0, 1}, kI: 2, kO: 3, outB: 0, outF: 3, outSp: []int64{1, 2},
		pad: []int64{1, 1, 1, 1}}
	cases := []struct {
		name string
		c    convCase
		noPF bool // the pack's input prefetching off (convPrefetch)
	}{
		{"fwd", fwd, false},
		{"fwd-nopf", fwd, true},
		{"dx", convCase{lhsShape: []int64{nb, hw, hw, co}, rhsShape: []int64{3, 3, ci, co},
			inB: 0, inF: 3, inSp: []int64{1, 2}, kSp: []int64{0, 1}, kI: 3, kO: 2, outB: 0, outF: 3, outSp: []int64{1, 2},
			pad: []int64{1, 1, 1, 1}, rev: []bool{true, true}}, false},
		{"dw", convCase{lhsShape: []int64{nb, hw, hw, ci}, rhsShape: []int64{nb, hw, hw, co},
			inB: 3, inF: 0, inSp: []int64{1, 2}, kI: 0, kO: 3, kSp: []int64{1, 2}, outB: 2, outF: 3, outSp: []int64{0, 1},
			pad: []int64{1, 1, 1, 1}}, false},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			defer func(old bool) { convPrefetch = old }(convPrefetch)
			convPrefetch = !tc.noPF
			c := tc.c
			r := rand.New(rand.NewSource(1))
			nl, nr := 1, 1
			for _, x := range c.lhsShape {
				nl *= int(x)
			}
			for _, x := range c.rhsShape {
				nr *= int(x)
			}
			op := mkOp("stablehlo.convolution", []*ir.TensorType{ir.Tensor(ir.F32, c.lhsShape...), ir.Tensor(ir.F32, c.rhsShape...)},
				[]*ir.TensorType{ir.Tensor(ir.F32, c.outShape()...)}, c.attrs())
			x, y := f32Bytes(randF32(r, nl)), f32Bytes(randF32(r, nr))
			b.ReportAllocs()
			benchStep(b, op, [][]byte{x, y}, 2*float64(nb*hw*hw)*ci*9*co)
		})
	}
}

// BenchmarkDotMLP: the GEMMs of the benchmark suite's MLP training step
// (784→1024→1024→10, batch 256) as JAX emits them: forward x·W, backward
// dy·Wᵀ (transposed B) and the weight gradients dyᵀ·x (transposed A).
func BenchmarkDotMLP(b *testing.B) {
	cases := []struct {
		name   string
		ls, rs []int64
		lc, rc int64
	}{
		{"fwd1_256x784x1024", []int64{256, 784}, []int64{784, 1024}, 1, 0},
		{"fwd2_256x1024x1024", []int64{256, 1024}, []int64{1024, 1024}, 1, 0},
		{"dx_256x1024xT1024", []int64{256, 1024}, []int64{1024, 1024}, 1, 1},
		{"dw_T1024x256x1024", []int64{256, 1024}, []int64{256, 1024}, 0, 0},
		{"dw_T1024x256x784", []int64{256, 1024}, []int64{256, 784}, 0, 0},
		{"fwd3_256x1024x10", []int64{256, 1024}, []int64{1024, 10}, 1, 0},
		{"dx3_256x10xT1024", []int64{256, 10}, []int64{1024, 10}, 1, 1},
		{"dw3_T10x256x1024", []int64{256, 10}, []int64{256, 1024}, 0, 0},
		{"f32_256", []int64{256, 256}, []int64{256, 256}, 1, 0},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			r := rand.New(rand.NewSource(1))
			d := dotDims{lhsContract: []int64{tc.lc}, rhsContract: []int64{tc.rc}}
			os := dotOutShape(tc.ls, tc.rs, d)
			op := mkOp("stablehlo.dot_general", []*ir.TensorType{ir.Tensor(ir.F32, tc.ls...), ir.Tensor(ir.F32, tc.rs...)},
				[]*ir.TensorType{ir.Tensor(ir.F32, os...)}, dotAttrs(nil, nil, d.lhsContract, d.rhsContract))
			x := f32Bytes(randF32(r, int(tc.ls[0]*tc.ls[1])))
			y := f32Bytes(randF32(r, int(tc.rs[0]*tc.rs[1])))
			benchStep(b, op, [][]byte{x, y}, 2*float64(os[0]*os[1]*tc.ls[tc.lc]))
		})
	}
}
