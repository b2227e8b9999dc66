package linalg

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// A double-double complex DFT oracle: naive O(n²) sums in ~106-bit
// arithmetic with float64 twiddles, so its own norm-wise error is about one
// float64 rounding of the output, far below the FFT error bounds tested.

type ddc struct{ rh, rl, ih, il float64 }

func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	e = (a - (s - bb)) + (b - bb)
	return
}

func ddAdd(h, l, bh, bl float64) (float64, float64) {
	s, e := twoSum(h, bh)
	e += l + bl
	return twoSum(s, e)
}

// ddMulF returns (h+l)·w as a double-double.
func ddMulF(h, l, w float64) (float64, float64) {
	p := h * w
	e := math.FMA(h, w, -p)
	return twoSum(p, e+l*w)
}

func (a ddc) add(b ddc) ddc {
	rh, rl := ddAdd(a.rh, a.rl, b.rh, b.rl)
	ih, il := ddAdd(a.ih, a.il, b.ih, b.il)
	return ddc{rh, rl, ih, il}
}

func (a ddc) mul(w complex128) ddc {
	// (ar + i·ai)(wr + i·wi)
	p1h, p1l := ddMulF(a.rh, a.rl, real(w))
	p2h, p2l := ddMulF(a.ih, a.il, -imag(w))
	p3h, p3l := ddMulF(a.rh, a.rl, imag(w))
	p4h, p4l := ddMulF(a.ih, a.il, real(w))
	rh, rl := ddAdd(p1h, p1l, p2h, p2l)
	ih, il := ddAdd(p3h, p3l, p4h, p4l)
	return ddc{rh, rl, ih, il}
}

func (a ddc) c() complex128 { return complex(a.rh+a.rl, a.ih+a.il) }

// ddDFTAxis applies an unnormalized DFT (sign -1 forward, +1 inverse)
// along axis a of x with shape dims, in place.
func ddDFTAxis(x []ddc, dims []int, a int, inverse bool) {
	n := dims[a]
	stride := 1
	for _, d := range dims[a+1:] {
		stride *= d
	}
	w := make([]complex128, n)
	for k := range w {
		w[k] = fftRoot(k, n)
		if inverse {
			w[k] = complex(real(w[k]), -imag(w[k]))
		}
	}
	line := make([]ddc, n)
	for blk := 0; blk < len(x)/(n*stride); blk++ {
		for off := range stride {
			base := blk*n*stride + off
			for j := range n {
				line[j] = x[base+j*stride]
			}
			for k := range n {
				var s ddc
				idx := 0
				for j := range n {
					s = s.add(line[j].mul(w[idx]))
					idx += k
					if idx >= n {
						idx -= n
					}
				}
				x[base+k*stride] = s
			}
		}
	}
}

// fftOracle computes stablehlo.fft of x (complex values; real inputs have
// zero imaginary parts) over the trailing len(lens) dims of shape.
func fftOracle(typ string, shape []int, lens []int, x []complex128) []complex128 {
	r := len(lens)
	lead := 1
	for _, d := range shape[:len(shape)-r] {
		lead *= d
	}
	n := lens[r-1]
	half := n/2 + 1
	dd := func(v []complex128) []ddc {
		o := make([]ddc, len(v))
		for i, c := range v {
			o[i] = ddc{rh: real(c), ih: imag(c)}
		}
		return o
	}
	dims := append([]int{lead}, lens...)
	full := 1
	for _, l := range lens {
		full *= l
	}
	scaleAll := func(v []ddc, s float64) {
		for i := range v {
			v[i].rh, v[i].rl = ddMulF(v[i].rh, v[i].rl, s)
			v[i].ih, v[i].il = ddMulF(v[i].ih, v[i].il, s)
		}
	}
	var out []complex128
	switch typ {
	case "FFT", "IFFT", "RFFT":
		v := dd(x)
		for a := 1; a <= r; a++ {
			ddDFTAxis(v, dims, a, typ == "IFFT")
		}
		if typ == "IFFT" {
			scaleAll(v, 1/float64(full))
		}
		if typ != "RFFT" {
			for _, c := range v {
				out = append(out, c.c())
			}
			return out
		}
		for row := range len(v) / n {
			for k := range half {
				out = append(out, v[row*n+k].c())
			}
		}
		return out
	case "IRFFT":
		v := dd(x)
		hd := append(append([]int{lead}, lens[:r-1]...), half)
		for a := 1; a < r; a++ {
			ddDFTAxis(v, hd, a, true)
		}
		rows := len(v) / half
		f := make([]ddc, rows*n)
		for row := range rows {
			s := v[row*half : (row+1)*half]
			d := f[row*n : (row+1)*n]
			for k := range n {
				switch {
				case k == 0 || 2*k == n:
					d[k] = ddc{rh: s[k].rh, rl: s[k].rl}
				case k < half:
					d[k] = s[k]
				default:
					c := s[n-k]
					d[k] = ddc{c.rh, c.rl, -c.ih, -c.il}
				}
			}
		}
		ddDFTAxis(f, []int{rows, n}, 1, true)
		scaleAll(f, 1/float64(full))
		for _, c := range f {
			out = append(out, complex(c.rh+c.rl, 0))
		}
		return out
	}
	panic(typ)
}

// TestFFTErrorBound checks every fft type in both precisions, 1-D to 3-D,
// batched, power-of-two, smooth, prime and Bluestein lengths, against the
// double-double oracle with the norm-wise bound
//
//	‖got − want‖₂ ≤ c · (1 + log2 N) · eps · ‖want‖₂,
//
// N the transform's total length and eps the unit roundoff of the
// precision (complex64 transforms must be as accurate as float32 arithmetic
// allows, complex128 ones as float64).
func TestFFTErrorBound(t *testing.T) {
	type fcase struct {
		shape, lens []int // shape of the complex (FFT/IFFT/RFFT) or real (IRFFT) side
	}
	cases := []fcase{
		{[]int{1}, []int{1}}, {[]int{2}, []int{2}}, {[]int{3, 3}, []int{3}}, {[]int{5}, []int{5}},
		{[]int{2, 7}, []int{7}}, {[]int{12}, []int{12}}, {[]int{97}, []int{97}}, {[]int{2, 1000}, []int{1000}},
		{[]int{1024}, []int{1024}}, {[]int{3, 6}, []int{6}}, {[]int{2, 64}, []int{64}}, {[]int{2, 62}, []int{62}},
		{[]int{2, 1155}, []int{1155}}, {[]int{1369}, []int{1369}}, {[]int{4, 128}, []int{128}},
		{[]int{2, 12, 10}, []int{12, 10}}, {[]int{16, 16}, []int{16, 16}}, {[]int{5, 97}, []int{5, 97}},
		{[]int{2, 37, 8}, []int{37, 8}}, {[]int{3, 5, 7}, []int{3, 5, 7}}, {[]int{2, 4, 6, 8}, []int{4, 6, 8}},
		{[]int{8, 8, 8}, []int{8, 8, 8}}, {[]int{2, 2, 3, 9}, []int{2, 3, 9}}, {[]int{1, 1, 1}, []int{1, 1, 1}},
		{[]int{3, 1, 8}, []int{1, 8}}, {[]int{2, 8, 1}, []int{8, 1}}, {[]int{4, 67}, []int{4, 67}}, {[]int{6, 67}, []int{67}}, {[]int{3, 134}, []int{134}}, {[]int{2, 3, 74}, []int{3, 74}},
	}
	if !testing.Short() {
		cases = append(cases, fcase{[]int{4097}, []int{4097}}, fcase{[]int{2, 3, 64, 64}, []int{64, 64}})
	}
	rng := rand.New(rand.NewSource(16))
	worst := map[string]float64{}
	for _, c := range cases {
		for _, typ := range []string{"FFT", "IFFT", "RFFT", "IRFFT"} {
			for _, prec := range []string{"c64", "c128"} {
				name := fmt.Sprintf("%s/%s/%v", typ, prec, c.shape)
				t.Run(name, func(t *testing.T) {
					r := len(c.lens)
					n := c.lens[r-1]
					inShape := append([]int(nil), c.shape...)
					outShape := append([]int(nil), c.shape...)
					if typ == "RFFT" {
						outShape[len(outShape)-1] = n/2 + 1
					}
					if typ == "IRFFT" {
						inShape[len(inShape)-1] = n/2 + 1
					}
					cnt := 1
					for _, d := range inShape {
						cnt *= d
					}
					x := make([]complex128, cnt)
					eps := 0x1p-53
					if prec == "c64" {
						eps = 0x1p-24
					}
					for i := range x {
						re, im := rng.NormFloat64(), rng.NormFloat64()
						if typ == "RFFT" {
							im = 0
						}
						if prec == "c64" {
							re, im = float64(float32(re)), float64(float32(im))
						}
						x[i] = complex(re, im)
					}
					cT, rT := ir.C128, ir.F64
					if prec == "c64" {
						cT, rT = ir.C64, ir.F32
					}
					inT, outT := cT, cT
					switch typ {
					case "RFFT":
						inT = rT
					case "IRFFT":
						outT = rT
					}
					var in []byte
					switch inT {
					case ir.C128:
						in = c128Bytes(x)
					case ir.C64:
						v := make([]complex64, len(x))
						for i, z := range x {
							v[i] = complex64(z)
						}
						in = c64Bytes(v)
					case ir.F64:
						v := make([]float64, len(x))
						for i, z := range x {
							v[i] = real(z)
						}
						in = f64Bytes(v)
					case ir.F32:
						v := make([]float32, len(x))
						for i, z := range x {
							v[i] = float32(real(z))
						}
						in = f32Bytes(v)
					}
					i64 := func(v []int) []int64 {
						o := make([]int64, len(v))
						for i, d := range v {
							o[i] = int64(d)
						}
						return o
					}
					op := fftOp(typ, ir.Tensor(inT, i64(inShape)...), ir.Tensor(outT, i64(outShape)...), i64(c.lens)...)
					raw := runOp(t, fakeCtx{3}, op, in)[0]
					var got []complex128
					switch outT {
					case ir.C128:
						got = bytesC128(raw)
					case ir.C64:
						for _, v := range bytesC64(raw) {
							got = append(got, complex128(v))
						}
					case ir.F64:
						for _, v := range bytesF64(raw) {
							got = append(got, complex(v, 0))
						}
					case ir.F32:
						for _, v := range bytesF32(raw) {
							got = append(got, complex(float64(v), 0))
						}
					}
					want := fftOracle(typ, c.shape, c.lens, x)
					require.Len(t, got, len(want))
					var en, wn float64
					for i := range got {
						d := got[i] - want[i]
						en += real(d)*real(d) + imag(d)*imag(d)
						wn += real(want[i])*real(want[i]) + imag(want[i])*imag(want[i])
					}
					N := 1
					for _, l := range c.lens {
						N *= l
					}
					// The 1 in 1+log2 N is the output's own rounding.
					ratio := math.Sqrt(en) / ((1 + math.Log2(float64(N))) * eps * math.Sqrt(wn))
					worst[prec] = max(worst[prec], ratio)
					if ratio > 1 {
						t.Logf("%s: %.3g", name, ratio)
					}
					require.LessOrEqual(t, ratio, 2.0, "%s: error %.3g·(1+log2 N)·eps·‖want‖", name, ratio)
				})
			}
		}
	}
	t.Logf("worst error / ((1+log2 N)·eps·‖want‖): %v", worst)
}
