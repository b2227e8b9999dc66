package linalg

import (
	"math"
	"slices"
	"unsafe"

	"github.com/gojax/gojax/go/kernels/kernel"
)

// FFT plans: the factorization of one transform length into Stockham
// (self-sorting, no bit reversal) stages and their twiddle tables, computed
// once per op at lowering time. The kernels that run a plan are in
// fft_kern128.go (complex128) and its complex64 copy fft_kern64.go.
//
// Stage t of a plan with radix r takes the array Y[q + M·s] holding, for
// each of the M = n/L decimated subsequences x[q + M·a] (a < L), its
// length-L DFT at frequency s, to the same layout for L' = r·L and
// M' = M/r:
//
//	Y'[q' + M'·(s + L·k)] = Σ_j w_r^{jk} · (w_{L'}^{sj} · Y[q' + M'·(j + r·s)])
//
// for q' < M', s < L, k < r. Starting from Y = x (L = 1) the last stage
// leaves the DFT in natural order. The innermost loop runs over q', which
// is contiguous in both arrays.

// fftGenRadixMax is the largest prime factor computed by a generic O(p²)
// butterfly; lengths with a larger prime factor use Bluestein's chirp-z
// algorithm over a 2^a·3^b·5^c-length plan.
const fftGenRadixMax = 31

// fftParMin is the line length from which one line's stages are split
// over the worker pool.
const fftParMin = 1 << 15

type cfloat interface{ complex64 | complex128 }

type fftStage struct {
	r, l, m int // radix, L (length already transformed), M' = n/(L·r)
	tw      int // offset of the (r-1)·L twiddles w_{rL}^{sj} in fftLine.tw
	roots   int // offset of w_r^k, k < r, in fftLine.roots (generic radices)
}

// fftLine is the plan for forward DFTs of one length. It is read-only once
// built and safe for concurrent use.
type fftLine[T cfloat] struct {
	n       int
	stages  []fftStage
	tw      []T
	roots   []T
	twLast  []T // the last stage's twiddles in vector order (radix 4 only)
	blue    *fftBluestein[T]
	scratch int // work elements a transform needs besides its line
}

type fftBluestein[T cfloat] struct {
	m        int         // 2^a·3^b·5^c convolution length ≥ 2n-1
	sub      *fftLine[T] // plan of length m
	chirp    []T         // e^{-iπ j²/n}, j < n
	chirpFFT []T         // DFT of the conjugate chirp wrapped to length m, times 1/m
}

// fftRoot is e^{-2πi k/n}, computed in float64 from the exactly reduced
// fraction k/n (so complex64 tables are correctly rounded in practice).
func fftRoot(k, n int) complex128 {
	k %= n
	if k < 0 {
		k += n
	}
	// Use the angle nearest zero: |θ| ≤ π keeps its rounding error small.
	if 2*k > n {
		k -= n
	}
	s, c := math.Sincos(-2 * math.Pi * float64(k) / float64(n))
	return complex(c, s)
}

// fftVecScratch is the scratch a transform of vec interleaved lines needs.
func fftVecScratch[T cfloat](p *fftLine[T], vec int) int {
	if p.blue != nil {
		return 2 * p.blue.m * vec
	}
	return p.n * vec
}

// fftFactor lists n's radices in stage order: odd primes first, then a 2,
// then 4s, so that the last stages (short inner loops) are radix 4.
func fftFactor(n int) []int {
	var f, tail []int
	for n%4 == 0 {
		tail = append(tail, 4)
		n /= 4
	}
	if n%2 == 0 {
		tail = append(tail, 2)
		n /= 2
	}
	for p := 3; p*p <= n; p += 2 {
		for n%p == 0 {
			f = append(f, p)
			n /= p
		}
	}
	if n > 1 {
		f = append(f, n)
	}
	slices.Reverse(tail)
	return append(f, tail...)
}

// fftSmooth is the least 2^a·3^b·5^c ≥ n, preferring a power of two
// unless the smooth length is at least 1/8 shorter.
func fftSmooth(n int) int {
	p2 := 1
	for p2 < n {
		p2 <<= 1
	}
	best := p2
	for f5 := 1; f5 < p2; f5 *= 5 {
		for f35 := f5; f35 < p2; f35 *= 3 {
			m := f35
			for m < n {
				m <<= 1
			}
			best = min(best, m)
		}
	}
	if best*8 > p2*7 {
		return p2
	}
	return best
}

func newFFTLine[T cfloat](n int) *fftLine[T] {
	p := &fftLine[T]{n: n}
	if n <= 1 {
		return p
	}
	f := fftFactor(n)
	if slices.Max(f) > fftGenRadixMax {
		b := &fftBluestein[T]{m: fftSmooth(2*n - 1)}
		b.sub = newFFTLine[T](b.m)
		b.chirp = kernel.Make[T](n)
		w := kernel.Make[complex128](b.m)
		for j := range n {
			// j² mod 2n keeps the angle exact.
			jj := int((int64(j) * int64(j)) % int64(2*n))
			c := fftRoot(jj, 2*n)
			b.chirp[j] = T(c)
			cc := complex(real(c), -imag(c))
			w[j] = cc
			if j > 0 {
				w[b.m-j] = cc
			}
		}
		// The chirp's DFT in float64 whatever T is.
		fftRun128(newFFTLine[complex128](b.m), w, kernel.Make[complex128](b.m), nil)
		b.chirpFFT = kernel.Make[T](b.m)
		for i, v := range w {
			b.chirpFFT[i] = T(v / complex(float64(b.m), 0))
		}
		p.blue = b
		p.scratch = b.m + b.sub.scratch
		return p
	}
	l := 1
	for _, r := range f {
		st := fftStage{r: r, l: l, m: n / (l * r), tw: len(p.tw), roots: len(p.roots)}
		for s := range l {
			for j := 1; j < r; j++ {
				p.tw = append(p.tw, T(fftRoot(s*j, l*r)))
			}
		}
		if r > 5 {
			for k := range r {
				p.roots = append(p.roots, T(fftRoot(k, r)))
			}
		}
		p.stages = append(p.stages, st)
		l *= r
	}
	if last := p.stages[len(p.stages)-1]; last.r == 4 {
		// The M' = 1 radix-4 stage's twiddles regrouped for the vector
		// kernel: for each v consecutive s, w1, w2 and w3 as v-vectors.
		var z T
		v := 16 / int(unsafe.Sizeof(z)) * 2 // elements per 32-byte register
		// A partial last group is left to the Go loop.
		p.twLast = kernel.Make[T](3 * last.l)
		for s := range last.l / v * v {
			g, i := s/v, s%v
			for j := 1; j < 4; j++ {
				p.twLast[g*3*v+(j-1)*v+i] = p.tw[last.tw+3*s+j-1]
			}
		}
	}
	p.scratch = n
	return p
}

// fftExec is everything one stablehlo.fft op needs at run time.
type fftExec[T cfloat] struct {
	typ   string
	outer int
	lens  []int
	lines []*fftLine[T] // per transformed axis
	rline *fftLine[T]   // length n/2 for even-length real transforms
	rtw   []T           // e^{-2πi k/n}, k < n/2, for real transforms
}

func newFFTExec[T cfloat](typ string, outer int, lens []int) *fftExec[T] {
	e := &fftExec[T]{typ: typ, outer: outer, lens: lens}
	r := len(lens)
	n := lens[r-1]
	e.lines = make([]*fftLine[T], r)
	for i, l := range lens {
		if i == r-1 && (typ == "RFFT" || typ == "IRFFT") && n%2 == 0 {
			continue
		}
		e.lines[i] = newFFTLine[T](l)
	}
	if (typ == "RFFT" || typ == "IRFFT") && n%2 == 0 {
		e.rline = newFFTLine[T](n / 2)
		e.rtw = kernel.Make[T](n / 2)
		for k := range e.rtw {
			e.rtw[k] = T(fftRoot(k, n))
		}
	}
	return e
}
