package linalg

import (
	"math"
	"math/cmplx"
	"math/rand"
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

func fftOp(typ string, in, out *ir.TensorType, lens ...int64) *ir.Op {
	return mkOp("stablehlo.fft", []*ir.TensorType{in}, []*ir.TensorType{out}, ir.Attrs{
		"fft_type":   ir.EnumAttr{Kind: "fft_type", Value: typ},
		"fft_length": ir.DenseI64Attr{Values: lens},
	})
}

func TestFFTHandChecked(t *testing.T) {
	// DFT of [1, 2, 3, 4]: [10, -2+2i, -2, -2-2i].
	op := fftOp("FFT", ir.Tensor(ir.C128, 4), ir.Tensor(ir.C128, 4), 4)
	out := bytesC128(runOp(t, fakeCtx{1}, op, c128Bytes([]complex128{1, 2, 3, 4}))[0])
	want := []complex128{10, -2 + 2i, -2, -2 - 2i}
	for i := range want {
		require.InDelta(t, 0, cmplx.Abs(out[i]-want[i]), 1e-12)
	}
	// RFFT of [1, 2, 3, 4] keeps 3 bins; IRFFT inverts it.
	op = fftOp("RFFT", ir.Tensor(ir.F64, 4), ir.Tensor(ir.C128, 3), 4)
	spec := runOp(t, fakeCtx{1}, op, f64Bytes([]float64{1, 2, 3, 4}))[0]
	for i, v := range bytesC128(spec) {
		require.InDelta(t, 0, cmplx.Abs(v-want[i]), 1e-12)
	}
	op = fftOp("IRFFT", ir.Tensor(ir.C128, 3), ir.Tensor(ir.F64, 4), 4)
	back := bytesF64(runOp(t, fakeCtx{1}, op, spec)[0])
	for i, v := range []float64{1, 2, 3, 4} {
		require.InDelta(t, v, back[i], 1e-12)
	}
}

const fftPyScript = `
import json, sys
import numpy as np
cases = json.load(sys.stdin)
res = []
for c in cases:
    x = np.array(c["re"]) + 1j * np.array(c["im"])
    x = x.reshape(c["shape"])
    lens = c["lens"]
    axes = list(range(len(c["shape"]) - len(lens), len(c["shape"])))
    t = c["type"]
    if t == "FFT":
        y = np.fft.fftn(x, axes=axes)
    elif t == "IFFT":
        y = np.fft.ifftn(x, axes=axes)
    elif t == "RFFT":
        y = np.fft.rfftn(x.real, s=lens, axes=axes)
    else:
        y = np.fft.irfftn(x, s=lens, axes=axes)
    y = np.asarray(y, np.complex128).reshape(-1)
    res.append({"re": y.real.tolist(), "im": y.imag.tolist()})
json.dump(res, sys.stdout)
`

func TestFFTMatchesNumpy(t *testing.T) {
	type fcase struct {
		typ   string
		shape []int64
		lens  []int64
	}
	cases := []fcase{
		{"FFT", []int64{3, 8}, []int64{8}},
		{"FFT", []int64{12}, []int64{12}},
		{"FFT", []int64{2, 7}, []int64{7}},
		{"FFT", []int64{97}, []int64{97}},      // prime > bluesteinPrime: Bluestein
		{"FFT", []int64{2, 134}, []int64{134}}, // 2·67: Bluestein
		{"FFT", []int64{2, 6, 5}, []int64{6, 5}},
		{"FFT", []int64{2, 3, 4, 5}, []int64{3, 4, 5}},
		{"IFFT", []int64{4, 10}, []int64{10}},
		{"IFFT", []int64{71}, []int64{71}},
		{"IFFT", []int64{3, 4, 6}, []int64{3, 4, 6}},
		{"RFFT", []int64{3, 8}, []int64{8}},
		{"RFFT", []int64{9}, []int64{9}},
		{"RFFT", []int64{2, 6, 5}, []int64{6, 5}},
		{"RFFT", []int64{2, 3, 4, 6}, []int64{3, 4, 6}},
		{"RFFT", []int64{101}, []int64{101}},
		{"IRFFT", []int64{3, 5}, []int64{8}},
		{"IRFFT", []int64{5}, []int64{9}},
		{"IRFFT", []int64{2, 6, 3}, []int64{6, 5}},
		{"IRFFT", []int64{2, 3, 4, 4}, []int64{3, 4, 6}},
		{"IRFFT", []int64{2, 3, 4, 4}, []int64{3, 4, 7}},
		{"IRFFT", []int64{52}, []int64{103}},
	}
	r := rand.New(rand.NewSource(9))
	var pyIn []map[string]any
	var inputs [][]complex128
	for _, c := range cases {
		n := 1
		for _, x := range c.shape {
			n *= int(x)
		}
		x := make([]complex128, n)
		re, im := make([]float64, n), make([]float64, n)
		for i := range x {
			re[i] = r.NormFloat64()
			if c.typ != "RFFT" {
				im[i] = r.NormFloat64()
			}
			x[i] = complex(re[i], im[i])
		}
		inputs = append(inputs, x)
		pyIn = append(pyIn, map[string]any{"type": c.typ, "shape": c.shape, "lens": c.lens, "re": re, "im": im})
	}
	var want []struct{ Re, Im []float64 }
	pyRef(t, fftPyScript, pyIn, &want)
	for i, c := range cases {
		outShape := append([]int64(nil), c.shape...)
		r := len(c.lens)
		switch c.typ {
		case "RFFT":
			outShape[len(outShape)-1] = c.lens[r-1]/2 + 1
		case "IRFFT":
			outShape[len(outShape)-1] = c.lens[r-1]
		}
		for _, prec := range []string{"64", "128"} {
			t.Run(c.typ+"/"+prec, func(t *testing.T) {
				cT, rT := ir.C128, ir.F64
				tol := 1e-10
				if prec == "64" {
					cT, rT, tol = ir.C64, ir.F32, 2e-4
				}
				inT, outT := cT, cT
				var in []byte
				switch c.typ {
				case "RFFT":
					inT = rT
				case "IRFFT":
					outT = rT
				}
				if inT == ir.F64 {
					re := make([]float64, len(inputs[i]))
					for j, v := range inputs[i] {
						re[j] = real(v)
					}
					in = f64Bytes(re)
				} else if inT == ir.F32 {
					re := make([]float32, len(inputs[i]))
					for j, v := range inputs[i] {
						re[j] = float32(real(v))
					}
					in = f32Bytes(re)
				} else if inT == ir.C128 {
					in = c128Bytes(inputs[i])
				} else {
					v := make([]complex64, len(inputs[i]))
					for j, x := range inputs[i] {
						v[j] = complex64(x)
					}
					in = c64Bytes(v)
				}
				op := fftOp(c.typ, ir.Tensor(inT, c.shape...), ir.Tensor(outT, outShape...), c.lens...)
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
				require.Len(t, got, len(want[i].Re))
				for j := range got {
					w := complex(want[i].Re[j], want[i].Im[j])
					require.InDelta(t, 0, cmplx.Abs(got[j]-w), tol*(1+math.Sqrt(float64(len(got)))), "%v element %d: got %v want %v", c, j, got[j], w)
				}
			})
		}
	}
}

func TestFFTErrors(t *testing.T) {
	_, err := lowerOp(t, fakeCtx{1}, fftOp("FFT", ir.Tensor(ir.F32, 4), ir.Tensor(ir.C64, 4), 4))
	require.ErrorContains(t, err, "complex operand")
	_, err = lowerOp(t, fakeCtx{1}, fftOp("RFFT", ir.Tensor(ir.F32, 4), ir.Tensor(ir.C64, 4), 4))
	require.ErrorContains(t, err, "result type")
	_, err = lowerOp(t, fakeCtx{1}, fftOp("IRFFT", ir.Tensor(ir.C64, 4), ir.Tensor(ir.F32, 4), 4))
	require.ErrorContains(t, err, "trailing dims")
	_, err = lowerOp(t, fakeCtx{1}, fftOp("XFFT", ir.Tensor(ir.C64, 4), ir.Tensor(ir.C64, 4), 4))
	require.ErrorContains(t, err, "fft_type")
}

// TestFFTParallelStagesMatch splits one long line's stages over workers
// (ranges of s or q' that need not be vector-aligned): the result must not
// depend on the split.
func TestFFTParallelStagesMatch(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for _, n := range []int{1 << 15, 1 << 16, 3 * 5 << 12, 40000, 33331} {
		p64, p128 := newFFTLine[complex64](n), newFFTLine[complex128](n)
		x64 := make([]complex64, n)
		x128 := make([]complex128, n)
		for i := range x64 {
			x128[i] = complex(rng.NormFloat64(), rng.NormFloat64())
			x64[i] = complex64(x128[i])
		}
		run := func(par parallelFn) ([]complex64, []complex128) {
			a, b := append([]complex64(nil), x64...), append([]complex128(nil), x128...)
			fftRun64(p64, a, make([]complex64, p64.scratch), par)
			fftRun128(p128, b, make([]complex128, p128.scratch), par)
			return a, b
		}
		a0, b0 := run(nil)
		for _, w := range []int{2, 3, 7} {
			a1, b1 := run(fakeCtx{w}.Parallel)
			require.Equal(t, a0, a1, "complex64 n=%d workers=%d", n, w)
			require.Equal(t, b0, b1, "complex128 n=%d workers=%d", n, w)
		}
	}
}
