package linalg

import (
	"math"
	"math/cmplx"
	"sync"

	"gonum.org/v1/gonum/dsp/fourier"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// stablehlo.fft: FFT/IFFT/RFFT/IRFFT over the trailing len(fft_length)
// dimensions, computed in complex128 (c64 data is widened and rounded back).
// IFFT and IRFFT are normalized by 1/N as in XLA. Any length is accepted:
// gonum's mixed-radix FFTPACK for lengths whose prime factors are small,
// Bluestein's chirp-z algorithm (over a power-of-two FFT) otherwise.

func init() { kernel.Register("stablehlo.fft", lowerFFT) }

// bluesteinPrime is the largest prime factor FFTPACK's generic pass (cost
// O(n·p)) is used for; beyond it Bluestein's O(n log n) wins.
const bluesteinPrime = 64

// fft1 transforms lines of one length; it is safe for concurrent use.
type fft1 struct {
	n         int
	bluestein bool
	m         int          // Bluestein convolution length (power of two)
	chirp     []complex128 // e^{-iπ j²/n}, j < n
	chirpFFT  []complex128 // FFT of the conjugate chirp, wrapped to length m
	pool      sync.Pool    // *fftWork
}

type fftWork struct {
	f   *fourier.CmplxFFT
	buf []complex128
}

func newFFT1(n int) *fft1 {
	p := &fft1{n: n}
	if n > 1 && largestPrimeFactor(n) > bluesteinPrime {
		p.bluestein = true
		p.m = 1
		for p.m < 2*n-1 {
			p.m <<= 1
		}
		p.chirp = make([]complex128, n)
		for j := range p.chirp {
			// j² mod 2n keeps the angle argument small and exact.
			jj := (int64(j) * int64(j)) % int64(2*n)
			p.chirp[j] = cmplx.Exp(complex(0, -math.Pi*float64(jj)/float64(n)))
		}
		b := make([]complex128, p.m)
		for j := 0; j < n; j++ {
			c := cmplx.Conj(p.chirp[j])
			b[j] = c
			if j > 0 {
				b[p.m-j] = c
			}
		}
		p.chirpFFT = fourier.NewCmplxFFT(p.m).Coefficients(nil, b)
	}
	p.pool.New = func() any {
		size := p.n
		if p.bluestein {
			size = p.m
		}
		return &fftWork{f: fourier.NewCmplxFFT(max(size, 1)), buf: make([]complex128, size)}
	}
	return p
}

func largestPrimeFactor(n int) int {
	best := 1
	for f := 2; f*f <= n; f++ {
		for n%f == 0 {
			best, n = f, n/f
		}
	}
	return max(best, n)
}

// transform computes the unnormalized DFT of x in place (inverse: e^{+2πi}).
func (p *fft1) transform(x []complex128, inverse bool) {
	if p.n <= 1 {
		return
	}
	w := p.pool.Get().(*fftWork)
	defer p.pool.Put(w)
	if !p.bluestein {
		if inverse {
			w.f.Sequence(x, x)
		} else {
			w.f.Coefficients(x, x)
		}
		return
	}
	// Inverse via conjugation: ifft(x) = conj(fft(conj(x))).
	a := w.buf
	for j, v := range x {
		if inverse {
			v = cmplx.Conj(v)
		}
		a[j] = v * p.chirp[j]
	}
	clear(a[p.n:])
	w.f.Coefficients(a, a)
	for i := range a {
		a[i] *= p.chirpFFT[i]
	}
	w.f.Sequence(a, a)
	scale := 1 / float64(p.m)
	for k := range x {
		v := a[k] * p.chirp[k] * complex(scale, 0)
		if inverse {
			v = cmplx.Conj(v)
		}
		x[k] = v
	}
}

type fftPlan struct {
	typ      string
	outer    int   // product of the non-transformed leading dims
	lens     []int // fft_length
	inInner  int   // elements per outer index in the input
	outInner int
	engines  []*fft1 // per transformed axis
}

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
	p := &fftPlan{typ: typ, lens: lens, outer: int(ir.Tensor(ir.F32, lead...).NumElements()),
		inInner: int(ir.Tensor(ir.F32, inTail...).NumElements()), outInner: int(ir.Tensor(ir.F32, outTail...).NumElements())}
	p.engines = make([]*fft1, r)
	for i, l := range lens {
		p.engines[i] = newFFT1(l)
	}
	par := ctx.Parallel
	return func(ins, outs [][]byte) error {
		runFFT(p, ins[0], inElem, outs[0], outElem, par)
		return nil
	}, nil
}

// runFFT moves the data through a complex128 work array shaped
// outer × (transformed dims), transforming one axis at a time.
func runFFT(p *fftPlan, in []byte, inElem ir.ElemType, out []byte, outElem ir.ElemType, par parallelFn) {
	r := len(p.lens)
	full := 1
	for _, l := range p.lens {
		full *= l
	}
	if p.outer == 0 || full == 0 {
		clear(out)
		return
	}
	n := p.lens[r-1]
	half := n/2 + 1
	work := c128scratch(p.outer * full)
	defer work.release()
	w := work.s
	switch p.typ {
	case "FFT", "IFFT":
		toC128(w, in, inElem)
		for a := 0; a < r; a++ {
			p.axisPass(w, p.lens, a, p.typ == "IFFT", par)
		}
		fromC128(out, w, outElem)
	case "RFFT":
		// Real input as complex; transforms along the leading axes commute
		// with keeping only the first half of the last axis.
		toC128(w, in, inElem)
		for a := 0; a < r; a++ {
			p.axisPass(w, p.lens, a, false, par)
		}
		rows := p.outer * full / n
		o := c128scratch(rows * half)
		for row := 0; row < rows; row++ {
			copy(o.s[row*half:(row+1)*half], w[row*n:row*n+half])
		}
		fromC128(out, o.s, outElem)
		o.release()
	case "IRFFT":
		// As irfftn: inverse complex FFTs over the leading axes of the half
		// spectrum, then a complex-to-real inverse along the last axis.
		hdims := append(append([]int(nil), p.lens[:r-1]...), half)
		src := c128scratch(p.outer * p.inInner)
		defer src.release()
		toC128(src.s, in, inElem)
		for a := 0; a < r-1; a++ {
			p.axisPass(src.s, hdims, a, true, par)
		}
		// Rebuild the full Hermitian last axis, X[n-k] = conj(X[k]); the
		// imaginary parts of the DC and (even n) Nyquist bins cannot
		// contribute to a real result and are dropped.
		rows := p.outer * full / n
		for row := 0; row < rows; row++ {
			s := src.s[row*half : (row+1)*half]
			d := w[row*n : (row+1)*n]
			for k := 0; k < n; k++ {
				switch {
				case k == 0 || 2*k == n:
					d[k] = complex(real(s[k]), 0)
				case k < half:
					d[k] = s[k]
				default:
					d[k] = cmplx.Conj(s[n-k])
				}
			}
		}
		p.axisPass(w, p.lens, r-1, true, par)
		re := f64scratch(len(w))
		for i, v := range w {
			re.s[i] = real(v)
		}
		fromF64(out, re.s, outElem)
		re.release()
	}
}

// axisPass transforms every line along axis a of w (shape outer × dims),
// scaling by 1/n for inverse transforms.
func (p *fftPlan) axisPass(w []complex128, dims []int, a int, inverse bool, par parallelFn) {
	n := dims[a]
	if n <= 1 {
		return
	}
	stride := 1
	for b := a + 1; b < len(dims); b++ {
		stride *= dims[b]
	}
	lines := len(w) / n
	eng := p.engines[a]
	scale := complex(1/float64(n), 0)
	do := func(lo, hi int) {
		lb := c128scratch(n)
		defer lb.release()
		line := lb.s
		for li := lo; li < hi; li++ {
			blk, off := li/stride, li%stride
			base := blk*n*stride + off
			for j := 0; j < n; j++ {
				line[j] = w[base+j*stride]
			}
			eng.transform(line, inverse)
			for j := 0; j < n; j++ {
				v := line[j]
				if inverse {
					v *= scale
				}
				w[base+j*stride] = v
			}
		}
	}
	grain := max(1, 4096/n)
	if lines <= grain {
		do(0, lines)
	} else {
		par(lines, grain, do)
	}
}
