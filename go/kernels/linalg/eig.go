package linalg

import (
	"math"

	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/gonum"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// geev (eigenvalues, left and right eigenvectors of a general matrix) and
// gees (Schur form). Real geev goes through gonum's Dgeev, complex geev
// through complexSchur; gees through gees.go (real matrices above xHSEQR's
// crossover through gonum's Dgehrd, Dorghr, Dhseqr). Results follow jaxlib's
// kernels: real geev returns (wr, wi, vl, vr, info) with the eigenvectors
// already unpacked to complex columns; a non-finite input gives info = -4.

func init() {
	registerLapack("sdcz", "geev", lowerGeev)
	registerLapack("sdcz", "gees", lowerGees)
}

func lowerGeev(ctx kernel.Context, cc *customCall) (kernel.Step, error) {
	jl, err := cc.char("compute_left", 'V', "NV")
	if err != nil {
		return nil, err
	}
	jr, err := cc.char("compute_right", 'V', "NV")
	if err != nil {
		return nil, err
	}
	if len(cc.ins) != 1 || cc.ins[0].Rank() < 2 {
		return nil, cc.errorf("want one matrix operand")
	}
	n := int(cc.ins[0].Shape[cc.ins[0].Rank()-1])
	ct := complexOf(cc.elem)
	var outs []spec
	if cc.elem.IsComplex() {
		outs = []spec{{cc.elem, []int{n}}, {ct, []int{n, n}}, {ct, []int{n, n}}, {ir.S32, nil}}
	} else {
		outs = []spec{{cc.elem, []int{n}}, {cc.elem, []int{n}}, {ct, []int{n, n}}, {ct, []int{n, n}}, {ir.S32, nil}}
	}
	batch, err := cc.expect([]spec{{cc.elem, []int{n, n}}}, outs)
	if err != nil {
		return nil, err
	}
	nb := numel(batch)
	left, right := jl == 'V', jr == 'V'
	if cc.elem.IsComplex() {
		return complexGeevStep(ctx.Parallel, cc.elem, nb, n, left, right), nil
	}
	return realGeevStep(ctx.Parallel, cc.target, cc.elem, nb, n, left, right), nil
}

func allFinite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

func realGeevStep(par parallelFn, name string, et ir.ElemType, batch, n int, left, right bool) kernel.Step {
	var impl gonum.Implementation
	jl, jr := lapack.LeftEVNone, lapack.RightEVNone
	if left {
		jl = lapack.LeftEVCompute
	}
	if right {
		jr = lapack.RightEVCompute
	}
	// Minimum workspace plus room for blocking (gonum's workspace queries
	// need real arrays, so none is made).
	lwork := max(1, 4*n) + 64*n
	ct := complexOf(et)
	return func(ins, outs [][]byte) error {
		a := f64scratch(batch * n * n)
		wr, wi := f64scratch(batch*n), f64scratch(batch*n)
		vl, vr := c128scratch(batch*n*n), c128scratch(batch*n*n)
		defer releaseAll(a, wr, wi)
		defer releaseAll(vl, vr)
		toF64(a.s, ins[0], et)
		clear(vl.s)
		clear(vr.s)
		info := make([]int32, batch)
		var fe firstErr
		forBatch(par, batch, 25*n*n*n+1, func(lo, hi int) {
			work := f64scratch(lwork)
			pl, pr := f64scratch(n*n), f64scratch(n*n)
			defer releaseAll(work, pl, pr)
			for b := lo; b < hi; b++ {
				m := a.s[b*n*n : (b+1)*n*n]
				w1, w2 := wr.s[b*n:(b+1)*n], wi.s[b*n:(b+1)*n]
				if !allFinite(m) {
					info[b] = -4
					for i := range w1 {
						w1[i], w2[i] = math.NaN(), math.NaN()
					}
					continue
				}
				fe.catch(name, func() {
					first := impl.Dgeev(jl, jr, n, m, max(n, 1), w1, w2, pl.s, max(n, 1), pr.s, max(n, 1), work.s, lwork)
					info[b] = int32(first)
					if first != 0 {
						return
					}
					if left {
						unpackEigenvectors(n, w2, pl.s, vl.s[b*n*n:(b+1)*n*n])
					}
					if right {
						unpackEigenvectors(n, w2, pr.s, vr.s[b*n*n:(b+1)*n*n])
					}
				})
			}
		})
		if fe.err != nil {
			return fe.err
		}
		fromF64(outs[0], wr.s, et)
		fromF64(outs[1], wi.s, et)
		fromC128(outs[2], vl.s, ct)
		fromC128(outs[3], vr.s, ct)
		putI32s(outs[4], info)
		return nil
	}
}

// unpackEigenvectors turns LAPACK's real packed eigenvectors (a complex
// pair λ, conj(λ) stored as columns re, im) into complex columns.
func unpackEigenvectors(n int, wi []float64, packed []float64, out []complex128) {
	for j := 0; j < n; j++ {
		if wi[j] == 0 || j == n-1 {
			for i := 0; i < n; i++ {
				out[i*n+j] = complex(packed[i*n+j], 0)
			}
			continue
		}
		for i := 0; i < n; i++ {
			re, im := packed[i*n+j], packed[i*n+j+1]
			out[i*n+j] = complex(re, im)
			out[i*n+j+1] = complex(re, -im)
		}
		j++
	}
}

func complexGeevStep(par parallelFn, et ir.ElemType, batch, n int, left, right bool) kernel.Step {
	return func(ins, outs [][]byte) error {
		a := c128scratch(batch * n * n)
		w := c128scratch(batch * n)
		vl, vr := c128scratch(batch*n*n), c128scratch(batch*n*n)
		defer releaseAll(a, w, vl, vr)
		toC128(a.s, ins[0], et)
		clear(vl.s)
		clear(vr.s)
		info := make([]int32, batch)
		forBatch(par, batch, 30*n*n*n+1, func(lo, hi int) {
			z := kernel.Make[complex128](n * n)
			for b := lo; b < hi; b++ {
				m := a.s[b*n*n : (b+1)*n*n]
				wb := w.s[b*n : (b+1)*n]
				finite := true
				for _, x := range m {
					if math.IsNaN(real(x)) || math.IsNaN(imag(x)) || math.IsInf(real(x), 0) || math.IsInf(imag(x), 0) {
						finite = false
					}
				}
				if !finite {
					info[b] = -4
					for i := range wb {
						wb[i] = complex(math.NaN(), math.NaN())
					}
					continue
				}
				if !complexSchur(n, m, z) {
					info[b] = 1
					continue
				}
				for i := 0; i < n; i++ {
					wb[i] = m[i*n+i]
				}
				if left {
					triangularEigenvectors(n, m, z, true, vl.s[b*n*n:(b+1)*n*n])
				}
				if right {
					triangularEigenvectors(n, m, z, false, vr.s[b*n*n:(b+1)*n*n])
				}
			}
		})
		fromC128(outs[0], w.s, et)
		fromC128(outs[1], vl.s, et)
		fromC128(outs[2], vr.s, et)
		putI32s(outs[3], info)
		return nil
	}
}

func lowerGees(ctx kernel.Context, cc *customCall) (kernel.Step, error) {
	mode, err := cc.char("mode", 'V', "NV")
	if err != nil {
		return nil, err
	}
	sort, err := cc.char("sort", 'N', "NS")
	if err != nil {
		return nil, err
	}
	if sort != 'N' {
		return nil, cc.errorf("sorting eigenvalues is not implemented (jaxlib rejects it too)")
	}
	if len(cc.ins) != 1 || cc.ins[0].Rank() < 2 {
		return nil, cc.errorf("want one matrix operand")
	}
	n := int(cc.ins[0].Shape[cc.ins[0].Rank()-1])
	mat := spec{cc.elem, []int{n, n}}
	var outs []spec
	if cc.elem.IsComplex() {
		outs = []spec{mat, mat, {cc.elem, []int{n}}, {ir.S32, nil}, {ir.S32, nil}}
	} else {
		outs = []spec{mat, mat, {cc.elem, []int{n}}, {cc.elem, []int{n}}, {ir.S32, nil}, {ir.S32, nil}}
	}
	batch, err := cc.expect([]spec{mat}, outs)
	if err != nil {
		return nil, err
	}
	nb := numel(batch)
	if cc.elem.IsComplex() {
		return complexGeesStep(ctx.Parallel, cc.elem, nb, n, mode == 'V'), nil
	}
	return realGeesStep(ctx.Parallel, cc.target, cc.elem, nb, n, mode == 'V'), nil
}

// hseqrNmin is xHSEQR's crossover: above this order it runs the multishift
// QR with aggressive early deflation (xLAQR0) instead of xLAHQR.
const hseqrNmin = 75

func realGeesStep(par parallelFn, name string, et ir.ElemType, batch, n int, vectors bool) kernel.Step {
	var impl gonum.Implementation
	lwork := max(1, n) + 64*n
	return func(ins, outs [][]byte) error {
		a := f64scratch(batch * n * n)
		z := f64scratch(batch * n * n)
		wr, wi := f64scratch(batch*n), f64scratch(batch*n)
		defer releaseAll(a, z, wr, wi)
		toF64(a.s, ins[0], et)
		info := make([]int32, batch)
		var fe firstErr
		if n > 0 {
			forBatch(par, batch, 25*n*n*n+1, func(lo, hi int) {
				work := f64scratch(lwork)
				tau := f64scratch(max(n-1, 1))
				defer releaseAll(work, tau)
				var cbuf []complex128
				for b := lo; b < hi; b++ {
					h, zb := a.s[b*n*n:(b+1)*n*n], z.s[b*n*n:(b+1)*n*n]
					if n <= hseqrNmin {
						// xHSEQR's xLAHQR range, in the input's precision;
						// above it gonum's Dhseqr runs xLAQR0's multishift
						// QR, in double precision.
						if cbuf == nil {
							cbuf = kernel.Make[complex128](2*n*n + n)
						}
						ca, cz, cw := cbuf[:n*n], cbuf[n*n:2*n*n], cbuf[2*n*n:]
						for k, x := range h {
							ca[k] = complex(x, 0)
						}
						info[b] = int32(geesLapack(et, n, false, ca, cz, cw))
						for k := range h {
							h[k], zb[k] = real(ca[k]), real(cz[k])
						}
						for k := range cw {
							wr.s[b*n+k], wi.s[b*n+k] = real(cw[k]), imag(cw[k])
						}
						continue
					}
					fe.catch(name, func() {
						impl.Dgehrd(n, 0, n-1, h, n, tau.s[:n-1], work.s, lwork)
						copy(zb, h)
						impl.Dorghr(n, 0, n-1, zb, n, tau.s[:n-1], work.s, lwork)
						info[b] = int32(impl.Dhseqr(lapack.EigenvaluesAndSchur, lapack.SchurOrig, n, 0, n-1, h, n,
							wr.s[b*n:(b+1)*n], wi.s[b*n:(b+1)*n], zb, n, work.s, lwork))
						for i := 1; i < n; i++ {
							for j := 0; j < i-1; j++ {
								h[i*n+j] = 0
							}
						}
					})
				}
			})
		}
		if fe.err != nil {
			return fe.err
		}
		if !vectors {
			clear(z.s)
		}
		fromF64(outs[0], a.s, et)
		fromF64(outs[1], z.s, et)
		fromF64(outs[2], wr.s, et)
		fromF64(outs[3], wi.s, et)
		clear(outs[4]) // sdim: no sorting, so no selected eigenvalues
		putI32s(outs[5], info)
		return nil
	}
}

func complexGeesStep(par parallelFn, et ir.ElemType, batch, n int, vectors bool) kernel.Step {
	return func(ins, outs [][]byte) error {
		a := c128scratch(batch * n * n)
		z := c128scratch(batch * n * n)
		w := c128scratch(batch * n)
		defer releaseAll(a, z, w)
		toC128(a.s, ins[0], et)
		info := make([]int32, batch)
		forBatch(par, batch, 30*n*n*n+1, func(lo, hi int) {
			for b := lo; b < hi; b++ {
				m, zb, wb := a.s[b*n*n:(b+1)*n*n], z.s[b*n*n:(b+1)*n*n], w.s[b*n:(b+1)*n]
				info[b] = int32(geesLapack(et, n, true, m, zb, wb))
			}
		})
		if !vectors {
			clear(z.s)
		}
		fromC128(outs[0], a.s, et)
		fromC128(outs[1], z.s, et)
		fromC128(outs[2], w.s, et)
		clear(outs[3])
		putI32s(outs[4], info)
		return nil
	}
}

// geesLapack runs the Schur code in the precision LAPACK's gees would use
// for et: single for f32/c64, double otherwise.
func geesLapack(et ir.ElemType, n int, cplx bool, a, z, w []complex128) int {
	if et == ir.F32 || et == ir.C64 {
		return geesSmall[float32](n, cplx, a, z, w)
	}
	return geesSmall[float64](n, cplx, a, z, w)
}
