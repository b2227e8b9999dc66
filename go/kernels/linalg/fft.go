package linalg

//go:generate go run gen_fftkern64.go

import (
	"math/bits"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// stablehlo.fft: FFT/IFFT/RFFT/IRFFT over the trailing len(fft_length)
// dimensions, computed in the operand's precision (complex64 in float32
// arithmetic, as XLA's DUCC does). IFFT and IRFFT are normalized by 1/N as
// in XLA.
//
//   - Lines are transformed by iterative Stockham stages of radix 3, 5,
//     small odd primes, 2 and 4 with twiddles computed once per op in
//     float64 (fft_plan.go); lengths with a prime factor above
//     fftGenRadixMax use Bluestein's chirp-z algorithm over a
//     2^a·3^b·5^c-length plan.
//   - The stage loops (fft_kern128.go, and fft_kern64.go generated from it)
//     have AVX2 versions for radix 2, 3, 4 and 5 (fft_amd64.s) doing the
//     same float operations, so results do not depend on the vector unit.
//   - Real transforms of even length n use a complex transform of length
//     n/2 and a pre- or post-processing pass; inverse lines are forward
//     transforms read backwards, all 1/n factors folded into one pass.
//   - Strided (non-trailing) axes, and rows of Bluestein lengths, are
//     transformed a block of lines at a time, interleaved so that every
//     stage's inner loop runs across the block.
//   - Rows and blocks are split over the worker pool; a single long line
//     splits each stage instead.

func init() { kernel.RegisterOp("stablehlo.fft", lowerFFT, kernel.Traits{Cost: fftCost}) }

// fftCost is XLA's estimate: four multiply-adds (a complex multiply) per
// element per factor log2(n) of each transformed length n.
func fftCost(op *ir.Op) kernel.Work {
	lengths, _, _ := i64List(op, "fft_length")
	if len(op.Operands) != 1 {
		return kernel.Work{}
	}
	logs := int64(1)
	for _, n := range lengths {
		if n < 1 {
			return kernel.Work{}
		}
		logs *= int64(bits.Len64(uint64(n)) - 1)
	}
	return kernel.Work{Flops: 2 * 4 * logs * kernel.Elements(op.Operands[0])}
}

// Columns gathered per strided-axis block: one or two cache lines per row.
const (
	fftColBlock128 = 8
	fftColBlock64  = 16
)

// Contiguous lines up to fftShortLine long are transformed in interleaved
// blocks, like strided ones (their own stages are too short to vectorize).
const fftShortLine = 32

// fftBlockElems caps the work memory (in elements) of a block of lines
// transformed together.
const fftBlockElems = 1 << 18

// Elements per AVX2 register.
const (
	fftVec128 = 2
	fftVec64  = 4
)

func lowerFFT(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	if len(op.Operands) != 1 || len(op.Results) != 1 {
		return nil, op.Errorf("want 1 operand and 1 result")
	}
	it, ot := op.Operands[0].Tensor(), op.Results[0].Tensor()
	if it == nil || ot == nil {
		return nil, op.Errorf("operand and result must be tensors")
	}
	typ, err := enumAttr(op, "fft_type", "")
	if err != nil {
		return nil, err
	}
	lens64, ok, err := i64List(op, "fft_length")
	if err != nil {
		return nil, err
	}
	if !ok || len(lens64) < 1 || len(lens64) > 3 || len(lens64) > it.Rank() {
		return nil, op.Errorf("fft_length %v: want 1 to 3 lengths, at most the operand rank %d", lens64, it.Rank())
	}
	r := len(lens64)
	lens := make([]int, r)
	for i, l := range lens64 {
		if l < 0 {
			return nil, op.Errorf("negative fft_length %v", lens64)
		}
		lens[i] = int(l)
	}
	lead := it.Shape[:it.Rank()-r]
	inTail := it.Shape[it.Rank()-r:]
	if ot.Rank() != it.Rank() {
		return nil, op.Errorf("result rank %d differs from operand rank %d", ot.Rank(), it.Rank())
	}
	outTail := append([]int64(nil), lens64...)
	wantIn := append([]int64(nil), lens64...)
	var inElem, outElem ir.ElemType
	switch typ {
	case "FFT", "IFFT":
		if !it.Elem.IsComplex() {
			return nil, op.Errorf("%s needs a complex operand, have %s", typ, it)
		}
		inElem, outElem = it.Elem, it.Elem
	case "RFFT":
		switch it.Elem {
		case ir.F32:
			outElem = ir.C64
		case ir.F64:
			outElem = ir.C128
		default:
			return nil, op.Errorf("RFFT needs an f32 or f64 operand, have %s", it)
		}
		inElem = it.Elem
		outTail[r-1] = lens64[r-1]/2 + 1
	case "IRFFT":
		switch it.Elem {
		case ir.C64:
			outElem = ir.F32
		case ir.C128:
			outElem = ir.F64
		default:
			return nil, op.Errorf("IRFFT needs a complex operand, have %s", it)
		}
		inElem = it.Elem
		wantIn[r-1] = lens64[r-1]/2 + 1
	default:
		return nil, op.Errorf("unknown fft_type %q", typ)
	}
	for i := range wantIn {
		if inTail[i] != wantIn[i] {
			return nil, op.Errorf("%s of %s: trailing dims must be %v for fft_length %v", typ, it, wantIn, lens64)
		}
	}
	wantOut := ir.Tensor(outElem, append(append([]int64(nil), lead...), outTail...)...)
	if !wantOut.Equal(ot) {
		return nil, op.Errorf("result type %s, want %s", ot, wantOut)
	}
	outer := int(ir.Tensor(ir.F32, lead...).NumElements())
	par := ctx.Parallel
	if outElem == ir.C64 || inElem == ir.C64 {
		e := newFFTExec[complex64](typ, outer, lens)
		return func(ins, outs [][]byte) error {
			fftExec64(e, ins[0], outs[0], par)
			return nil
		}, nil
	}
	e := newFFTExec[complex128](typ, outer, lens)
	return func(ins, outs [][]byte) error {
		fftExec128(e, ins[0], outs[0], par)
		return nil
	}, nil
}
