package linalg

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/gojax/gojax/go/ir"
)

// fftSerialCtx runs Parallel's chunks on the calling goroutine.
type fftSerialCtx struct{ fakeCtx }

func (fftSerialCtx) Parallel(n, grain int, fn func(lo, hi int)) { fn(0, n) }

// BenchmarkFFT times single-threaded transforms of the shapes issue 16
// compared with XLA (go test -run X -bench FFT ./go/kernels/linalg); the
// cpu-ns/op metric (the thread's CPU time) is steadier than ns/op on a
// busy machine.
func BenchmarkFFT(b *testing.B) {
	type bc struct {
		typ         string
		prec        ir.ElemType // complex type of the complex side
		shape, lens []int64
	}
	for _, c := range []bc{
		{"FFT", ir.C64, []int64{1 << 20}, []int64{1 << 20}},
		{"RFFT", ir.C64, []int64{512, 512}, []int64{512, 512}},
		{"IRFFT", ir.C64, []int64{512, 257}, []int64{512, 512}},
		{"FFT", ir.C64, []int64{64, 64, 64}, []int64{64, 64, 64}},
		{"FFT", ir.C64, []int64{256, 1000}, []int64{1000}},
		{"FFT", ir.C64, []int64{16, 4097}, []int64{4097}},
		{"FFT", ir.C64, []int64{4096, 97}, []int64{97}},
		{"FFT", ir.C64, []int64{65536, 8}, []int64{8}},
		{"FFT", ir.C64, []int64{16384, 32}, []int64{32}},
		{"RFFT", ir.C64, []int64{64, 4097}, []int64{4097}},
		{"RFFT", ir.C64, []int64{256, 1000}, []int64{1000}},
		{"FFT", ir.C128, []int64{1 << 20}, []int64{1 << 20}},
		{"RFFT", ir.C128, []int64{512, 512}, []int64{512, 512}},
	} {
		b.Run(fmt.Sprintf("%s/%v/%v", c.typ, c.prec, c.shape), func(b *testing.B) {
			rT := ir.F32
			if c.prec == ir.C128 {
				rT = ir.F64
			}
			inT, outT := c.prec, c.prec
			outShape := append([]int64(nil), c.shape...)
			switch c.typ {
			case "RFFT":
				inT = rT
				outShape[len(outShape)-1] = c.lens[len(c.lens)-1]/2 + 1
			case "IRFFT":
				outT = rT
				outShape[len(outShape)-1] = c.lens[len(c.lens)-1]
			}
			it, ot := ir.Tensor(inT, c.shape...), ir.Tensor(outT, outShape...)
			step, err := lowerFFT(fftSerialCtx{}, fftOp(c.typ, it, ot, c.lens...))
			if err != nil {
				b.Fatal(err)
			}
			in := make([]byte, it.ByteSize())
			for i := range in {
				in[i] = byte(i*7 + 3)
			}
			for i := 3; i < len(in); i += 4 {
				in[i] = 0x3f // keep float32 words finite
			}
			out := make([]byte, ot.ByteSize())
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			b.ResetTimer()
			cpu := fftThreadCPU()
			for range b.N {
				if err := step([][]byte{in}, [][]byte{out}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(fftThreadCPU()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}
