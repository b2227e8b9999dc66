package linalg

// FFT kernels for complex128. fft_kern64.go is generated from this file
// (complex128→complex64, float64→float32, 128→64 in names; see
// gen_fftkern64.go), so that complex64 transforms compute in float32
// as XLA's do. Keep the literal number one-two-eight out of this file.

import (
	"unsafe"

	"github.com/gojax/gojax/go/internal/byteview"
)

// cmul128 multiplies in the element precision (Go evaluates a complex64
// product in float64).
func cmul128(a, b complex128) complex128 {
	return complex(real(a)*real(b)-imag(a)*imag(b), real(a)*imag(b)+imag(a)*real(b))
}

// fftRun128 overwrites x (length p.n) with its unnormalized forward DFT;
// scr holds at least p.scratch elements. par, when not nil, splits long
// lines' stages over the worker pool.
func fftRun128(p *fftLine[complex128], x, scr []complex128, par parallelFn) {
	if p.n <= 1 {
		return
	}
	if p.blue != nil {
		fftBlue128(p, x, scr, 1, par)
		return
	}
	fftRunVec128(p, x, scr, 1, par)
}

// fftRunVec128 transforms vec interleaved lines at once: x[j·vec + c] is
// element j of line c. The Stockham stages do this unchanged with M' scaled
// by vec. p must not be a Bluestein plan; scr holds vec·p.n elements.
func fftRunVec128(p *fftLine[complex128], x, scr []complex128, vec int, par parallelFn) {
	fftRunTo128(p, x, x, scr, vec, par)
}

// fftRunTo128 is fftRunVec128 from src into dst through tmp; src may be dst
// (then an odd number of stages costs a copy) or tmp (then it is
// overwritten), and the stages ping-pong so that the last one writes dst.
func fftRunTo128(p *fftLine[complex128], src, dst, tmp []complex128, vec int, par parallelFn) {
	n := p.n * vec
	if len(p.stages) == 0 {
		copy(dst[:n], src[:n])
		return
	}
	// Stage i writes bufs[i%2]; the last one dst.
	bufs := [2][]complex128{dst[:n], tmp[:n]}
	if len(p.stages)%2 == 0 {
		bufs[0], bufs[1] = bufs[1], bufs[0]
	}
	in := src[:n]
	if &in[0] == &bufs[0][0] {
		copy(bufs[1], in)
		in = bufs[1]
	}
	for i := range p.stages {
		st := &p.stages[i]
		m := st.m * vec
		out := bufs[i%2]
		if par == nil || n < fftParMin {
			fftStage128(p, st, in, out, 0, st.l, 0, m, m)
		} else if st.l >= 16 {
			in := in
			par(st.l, max(1, 4096/(m*st.r)), func(lo, hi int) { fftStage128(p, st, in, out, lo, hi, 0, m, m) })
		} else {
			in := in
			par(m, max(1, 4096/(st.l*st.r)), func(lo, hi int) { fftStage128(p, st, in, out, 0, st.l, lo, hi, m) })
		}
		in = out
	}
}

// fftStage128 runs one Stockham stage for s in [s0,s1) and q' in [q0,q1),
// with M' = m (st.m times the number of interleaved lines).
func fftStage128(p *fftLine[complex128], st *fftStage, in, out []complex128, s0, s1, q0, q1, m int) {
	r, l := st.r, st.l
	lm := l * m
	tw := p.tw[st.tw : st.tw+(r-1)*l]
	switch r {
	case 4:
		if m == 1 {
			if fftAVX2 && p.twLast != nil {
				const v = fftVec128
				sa, sb := (s0+v-1)/v*v, s1/v*v
				if sa < sb {
					fftR4M1Go128(in, out, tw, l, s0, sa)
					fftR4M1AVX2128(unsafe.Pointer(&in[4*sa : 4*sb][0]), unsafe.Pointer(&out[sa : sb+3*l][0]), l, sb-sa, unsafe.Pointer(&p.twLast[3*sa : 3*sb][0]))
					s0 = sb
				}
			}
			fftR4M1Go128(in, out, tw, l, s0, s1)
			return
		}
		for s := s0; s < s1; s++ {
			ib, ob := 4*m*s, m*s
			x0 := in[ib+q0 : ib+q1]
			x1 := in[ib+m+q0 : ib+m+q1]
			x1 = x1[:len(x0)]
			x2 := in[ib+2*m+q0 : ib+2*m+q1]
			x2 = x2[:len(x0)]
			x3 := in[ib+3*m+q0 : ib+3*m+q1]
			x3 = x3[:len(x0)]
			y0 := out[ob+q0 : ob+q1]
			y0 = y0[:len(x0)]
			y1 := out[ob+lm+q0 : ob+lm+q1]
			y1 = y1[:len(x0)]
			y2 := out[ob+2*lm+q0 : ob+2*lm+q1]
			y2 = y2[:len(x0)]
			y3 := out[ob+3*lm+q0 : ob+3*lm+q1]
			y3 = y3[:len(x0)]
			if fftAVX2 && len(x0) >= fftVec128 {
				v := len(x0) &^ (fftVec128 - 1)
				fftR4AVX2128(unsafe.Pointer(&x0[0]), unsafe.Pointer(&x1[0]), unsafe.Pointer(&x2[0]), unsafe.Pointer(&x3[0]),
					unsafe.Pointer(&y0[0]), unsafe.Pointer(&y1[0]), unsafe.Pointer(&y2[0]), unsafe.Pointer(&y3[0]), v, unsafe.Pointer(&tw[3*s : 3*s+3][0]))
				if v == len(x0) {
					continue
				}
				x0, x1, x2, x3, y0, y1, y2, y3 = x0[v:], x1[v:], x2[v:], x3[v:], y0[v:], y1[v:], y2[v:], y3[v:]
				x1, x2, x3, y0, y1, y2, y3 = x1[:len(x0)], x2[:len(x0)], x3[:len(x0)], y0[:len(x0)], y1[:len(x0)], y2[:len(x0)], y3[:len(x0)]
			}
			if s == 0 {
				for q, a0 := range x0 {
					a1, a2, a3 := x1[q], x2[q], x3[q]
					t0, t1, t2, d := a0+a2, a0-a2, a1+a3, a1-a3
					t3 := complex(imag(d), -real(d))
					y0[q] = t0 + t2
					y1[q] = t1 + t3
					y2[q] = t0 - t2
					y3[q] = t1 - t3
				}
				continue
			}
			w1, w2, w3 := tw[3*s], tw[3*s+1], tw[3*s+2]
			for q, a0 := range x0 {
				a1, a2, a3 := cmul128(x1[q], w1), cmul128(x2[q], w2), cmul128(x3[q], w3)
				t0, t1, t2, d := a0+a2, a0-a2, a1+a3, a1-a3
				t3 := complex(imag(d), -real(d))
				y0[q] = t0 + t2
				y1[q] = t1 + t3
				y2[q] = t0 - t2
				y3[q] = t1 - t3
			}
		}
	case 2:
		if m == 1 {
			for s := s0; s < s1; s++ {
				x := in[2*s : 2*s+2]
				a0, a1 := x[0], cmul128(x[1], tw[s])
				out[s] = a0 + a1
				out[s+l] = a0 - a1
			}
			return
		}
		for s := s0; s < s1; s++ {
			ib, ob := 2*m*s, m*s
			x0 := in[ib+q0 : ib+q1]
			x1 := in[ib+m+q0 : ib+m+q1]
			x1 = x1[:len(x0)]
			y0 := out[ob+q0 : ob+q1]
			y0 = y0[:len(x0)]
			y1 := out[ob+lm+q0 : ob+lm+q1]
			y1 = y1[:len(x0)]
			if fftAVX2 && len(x0) >= fftVec128 {
				v := len(x0) &^ (fftVec128 - 1)
				xp := [2]unsafe.Pointer{unsafe.Pointer(&x0[0]), unsafe.Pointer(&x1[0])}
				yp := [2]unsafe.Pointer{unsafe.Pointer(&y0[0]), unsafe.Pointer(&y1[0])}
				fftR2AVX2128(&xp, &yp, v, unsafe.Pointer(&tw[s]))
				if v == len(x0) {
					continue
				}
				x0, x1, y0, y1 = x0[v:], x1[v:], y0[v:], y1[v:]
				x1, y0, y1 = x1[:len(x0)], y0[:len(x0)], y1[:len(x0)]
			}
			w := tw[s]
			for q, a0 := range x0 {
				a1 := cmul128(x1[q], w)
				y0[q] = a0 + a1
				y1[q] = a0 - a1
			}
		}
	case 3:
		const h = 0.86602540378443864676 // sin(π/3)
		if m == 1 {
			for s := s0; s < s1; s++ {
				x := in[3*s : 3*s+3]
				a0, a1, a2 := x[0], cmul128(x[1], tw[2*s]), cmul128(x[2], tw[2*s+1])
				t1 := a1 + a2
				t2 := a0 - complex(0.5*real(t1), 0.5*imag(t1))
				d := a1 - a2
				t3 := complex(h*imag(d), -h*real(d))
				out[s] = a0 + t1
				out[s+l] = t2 + t3
				out[s+2*l] = t2 - t3
			}
			return
		}
		for s := s0; s < s1; s++ {
			ib, ob := 3*m*s, m*s
			x0 := in[ib+q0 : ib+q1]
			x1 := in[ib+m+q0 : ib+m+q1]
			x1 = x1[:len(x0)]
			x2 := in[ib+2*m+q0 : ib+2*m+q1]
			x2 = x2[:len(x0)]
			y0 := out[ob+q0 : ob+q1]
			y0 = y0[:len(x0)]
			y1 := out[ob+lm+q0 : ob+lm+q1]
			y1 = y1[:len(x0)]
			y2 := out[ob+2*lm+q0 : ob+2*lm+q1]
			y2 = y2[:len(x0)]
			if fftAVX2 && len(x0) >= fftVec128 {
				v := len(x0) &^ (fftVec128 - 1)
				xp := [3]unsafe.Pointer{unsafe.Pointer(&x0[0]), unsafe.Pointer(&x1[0]), unsafe.Pointer(&x2[0])}
				yp := [3]unsafe.Pointer{unsafe.Pointer(&y0[0]), unsafe.Pointer(&y1[0]), unsafe.Pointer(&y2[0])}
				fftR3AVX2128(&xp, &yp, v, unsafe.Pointer(&tw[2*s : 2*s+2][0]))
				if v == len(x0) {
					continue
				}
				x0, x1, x2, y0, y1, y2 = x0[v:], x1[v:], x2[v:], y0[v:], y1[v:], y2[v:]
				x1, x2, y0, y1, y2 = x1[:len(x0)], x2[:len(x0)], y0[:len(x0)], y1[:len(x0)], y2[:len(x0)]
			}
			w1, w2 := tw[2*s], tw[2*s+1]
			for q, a0 := range x0 {
				a1, a2 := cmul128(x1[q], w1), cmul128(x2[q], w2)
				t1 := a1 + a2
				t2 := a0 - complex(0.5*real(t1), 0.5*imag(t1))
				d := a1 - a2
				t3 := complex(h*imag(d), -h*real(d)) // -i·sin(π/3)·d
				y0[q] = a0 + t1
				y1[q] = t2 + t3
				y2[q] = t2 - t3
			}
		}
	case 5:
		const (
			c1 = 0.30901699437494742410  // cos(2π/5)
			c2 = -0.80901699437494742410 // cos(4π/5)
			n1 = 0.95105651629515357212  // sin(2π/5)
			n2 = 0.58778525229247312917  // sin(4π/5)
		)
		if m == 1 {
			for s := s0; s < s1; s++ {
				x := in[5*s : 5*s+5]
				a0 := x[0]
				a1, a2, a3, a4 := cmul128(x[1], tw[4*s]), cmul128(x[2], tw[4*s+1]), cmul128(x[3], tw[4*s+2]), cmul128(x[4], tw[4*s+3])
				b1, b2, d1, d2 := a1+a4, a2+a3, a1-a4, a2-a3
				r1 := complex(real(a0)+c1*real(b1)+c2*real(b2), imag(a0)+c1*imag(b1)+c2*imag(b2))
				r2 := complex(real(a0)+c2*real(b1)+c1*real(b2), imag(a0)+c2*imag(b1)+c1*imag(b2))
				e1 := complex(n1*imag(d1)+n2*imag(d2), -(n1*real(d1) + n2*real(d2)))
				e2 := complex(n2*imag(d1)-n1*imag(d2), -(n2*real(d1) - n1*real(d2)))
				out[s] = a0 + b1 + b2
				out[s+l] = r1 + e1
				out[s+4*l] = r1 - e1
				out[s+2*l] = r2 + e2
				out[s+3*l] = r2 - e2
			}
			return
		}
		for s := s0; s < s1; s++ {
			ib, ob := 5*m*s, m*s
			x0 := in[ib+q0 : ib+q1]
			x1 := in[ib+m+q0 : ib+m+q1]
			x1 = x1[:len(x0)]
			x2 := in[ib+2*m+q0 : ib+2*m+q1]
			x2 = x2[:len(x0)]
			x3 := in[ib+3*m+q0 : ib+3*m+q1]
			x3 = x3[:len(x0)]
			x4 := in[ib+4*m+q0 : ib+4*m+q1]
			x4 = x4[:len(x0)]
			y0 := out[ob+q0 : ob+q1]
			y0 = y0[:len(x0)]
			y1 := out[ob+lm+q0 : ob+lm+q1]
			y1 = y1[:len(x0)]
			y2 := out[ob+2*lm+q0 : ob+2*lm+q1]
			y2 = y2[:len(x0)]
			y3 := out[ob+3*lm+q0 : ob+3*lm+q1]
			y3 = y3[:len(x0)]
			y4 := out[ob+4*lm+q0 : ob+4*lm+q1]
			y4 = y4[:len(x0)]
			if fftAVX2 && len(x0) >= fftVec128 {
				v := len(x0) &^ (fftVec128 - 1)
				xp := [5]unsafe.Pointer{unsafe.Pointer(&x0[0]), unsafe.Pointer(&x1[0]), unsafe.Pointer(&x2[0]), unsafe.Pointer(&x3[0]), unsafe.Pointer(&x4[0])}
				yp := [5]unsafe.Pointer{unsafe.Pointer(&y0[0]), unsafe.Pointer(&y1[0]), unsafe.Pointer(&y2[0]), unsafe.Pointer(&y3[0]), unsafe.Pointer(&y4[0])}
				fftR5AVX2128(&xp, &yp, v, unsafe.Pointer(&tw[4*s : 4*s+4][0]))
				if v == len(x0) {
					continue
				}
				x0, x1, x2, x3, x4 = x0[v:], x1[v:], x2[v:], x3[v:], x4[v:]
				y0, y1, y2, y3, y4 = y0[v:], y1[v:], y2[v:], y3[v:], y4[v:]
				x1, x2, x3, x4 = x1[:len(x0)], x2[:len(x0)], x3[:len(x0)], x4[:len(x0)]
				y0, y1, y2, y3, y4 = y0[:len(x0)], y1[:len(x0)], y2[:len(x0)], y3[:len(x0)], y4[:len(x0)]
			}
			w1, w2, w3, w4 := tw[4*s], tw[4*s+1], tw[4*s+2], tw[4*s+3]
			for q, a0 := range x0 {
				a1, a2, a3, a4 := cmul128(x1[q], w1), cmul128(x2[q], w2), cmul128(x3[q], w3), cmul128(x4[q], w4)
				b1, b2, d1, d2 := a1+a4, a2+a3, a1-a4, a2-a3
				r1 := complex(real(a0)+c1*real(b1)+c2*real(b2), imag(a0)+c1*imag(b1)+c2*imag(b2))
				r2 := complex(real(a0)+c2*real(b1)+c1*real(b2), imag(a0)+c2*imag(b1)+c1*imag(b2))
				// -i·(n1·d1 + n2·d2) and -i·(n2·d1 - n1·d2)
				e1 := complex(n1*imag(d1)+n2*imag(d2), -(n1*real(d1) + n2*real(d2)))
				e2 := complex(n2*imag(d1)-n1*imag(d2), -(n2*real(d1) - n1*real(d2)))
				y0[q] = a0 + b1 + b2
				y1[q] = r1 + e1
				y4[q] = r1 - e1
				y2[q] = r2 + e2
				y3[q] = r2 - e2
			}
		}
	default:
		var a [fftGenRadixMax]complex128
		roots := p.roots[st.roots : st.roots+r]
		for s := s0; s < s1; s++ {
			ib, ob := r*m*s, m*s
			for q := q0; q < q1; q++ {
				a[0] = in[ib+q]
				for j := 1; j < r; j++ {
					a[j] = cmul128(in[ib+j*m+q], tw[(r-1)*s+j-1])
				}
				for k := range r {
					sum := a[0]
					idx := 0
					for j := 1; j < r; j++ {
						idx += k
						if idx >= r {
							idx -= r
						}
						sum += cmul128(a[j], roots[idx])
					}
					out[ob+k*lm+q] = sum
				}
			}
		}
	}
}

// fftR4M1Go128 is the radix-4 stage with M' = 1 for s in [s0,s1).
func fftR4M1Go128(in, out, tw []complex128, l, s0, s1 int) {
	for s := s0; s < s1; s++ {
		x := in[4*s : 4*s+4]
		a0, a1, a2, a3 := x[0], cmul128(x[1], tw[3*s]), cmul128(x[2], tw[3*s+1]), cmul128(x[3], tw[3*s+2])
		t0, t1, t2, d := a0+a2, a0-a2, a1+a3, a1-a3
		t3 := complex(imag(d), -real(d))
		out[s] = t0 + t2
		out[s+l] = t1 + t3
		out[s+2*l] = t0 - t2
		out[s+3*l] = t1 - t3
	}
}

// fftBlue128 is Bluestein's algorithm on vec interleaved lines (as
// fftRunVec128): the DFT as a circular convolution with a chirp, done with
// two FFTs of length m. scr holds fftVecScratch(p, vec) elements.
func fftBlue128(p *fftLine[complex128], x, scr []complex128, vec int, par parallelFn) {
	b := p.blue
	a, sub := scr[:b.m*vec], scr[b.m*vec:2*b.m*vec]
	for j, w := range b.chirp {
		xs, as := x[j*vec:(j+1)*vec], a[j*vec:(j+1)*vec]
		for c, v := range xs {
			as[c] = cmul128(v, w)
		}
	}
	clear(a[p.n*vec:])
	fftRunVec128(b.sub, a, sub, vec, par)
	// Inverse transform as conj(fft(conj(·))); chirpFFT carries the 1/m.
	for i, w := range b.chirpFFT {
		as := a[i*vec : (i+1)*vec]
		for c, v := range as {
			v = cmul128(v, w)
			as[c] = complex(real(v), -imag(v))
		}
	}
	fftRunVec128(b.sub, a, sub, vec, par)
	for k, w := range b.chirp {
		xs, as := x[k*vec:(k+1)*vec], a[k*vec:(k+1)*vec]
		for c, v := range as {
			xs[c] = cmul128(complex(real(v), -imag(v)), w)
		}
	}
}

// fftVecAny128 transforms vec interleaved lines of any plan, overwriting
// x and scr, and returns the result: x or the start of scr.
func fftVecAny128(p *fftLine[complex128], x, scr []complex128, vec int) []complex128 {
	if p.blue != nil {
		fftBlue128(p, x, scr, vec, nil)
		return x
	}
	if len(p.stages)%2 == 0 {
		fftRunTo128(p, x, x, scr, vec, nil)
		return x
	}
	fftRunTo128(p, x, scr, x, vec, nil)
	return scr[:len(x)]
}

// fftRPost128 turns z, the DFT of an even-length real line x read as
// len(z) complex pairs (x[2k] + i·x[2k+1]), into the line's first
// len(z)+1 DFT bins X, using rtw[k] = e^{-2πi k/n}. With the even part
// Fe = (z[k] + conj z[h-k])/2 and odd part Fo = (z[k] - conj z[h-k])/(2i),
// X[k] = Fe + w^k·Fo and X[h-k] = conj(Fe - w^k·Fo).
func fftRPost128(rtw, z, X []complex128) {
	h := len(z)
	z0 := z[0]
	X[0] = complex(real(z0)+imag(z0), 0)
	X[h] = complex(real(z0)-imag(z0), 0)
	X = X[:h+1]
	rtw = rtw[:h]
	for k := 1; 2*k <= h; k++ {
		a, b := z[k], z[h-k]
		er, ei := 0.5*(real(a)+real(b)), 0.5*(imag(a)-imag(b))
		or, oi := 0.5*(imag(a)+imag(b)), -0.5*(real(a)-real(b))
		o := cmul128(complex(or, oi), rtw[k])
		X[k] = complex(er+real(o), ei+imag(o))
		X[h-k] = complex(er-real(o), imag(o)-ei)
	}
}

// fftCPre128 inverts fftRPost128 up to the final inverse DFT: from the
// n/2+1 bins X of a real line it fills Zc (length h = n/2) so that
// conj(fft(Zc))/h is the line read as complex pairs: with
// Fe = (X[k] + conj X[h-k])/2 and Fo = (X[k] - conj X[h-k])/2 · conj(w^k),
// Zc[k] = conj(Fe + i·Fo) and Zc[h-k] = Fe - i·Fo. The imaginary parts of
// the DC and Nyquist bins are ignored, as by XLA and numpy.
func fftCPre128(rtw, X, Zc []complex128) {
	h := len(Zc)
	a, b := real(X[0]), real(X[h])
	Zc[0] = complex(0.5*(a+b), -0.5*(a-b))
	X = X[:h+1]
	rtw = rtw[:h]
	for k := 1; 2*k <= h; k++ {
		a, b := X[k], X[h-k]
		fr, fi := 0.5*(real(a)+real(b)), 0.5*(imag(a)-imag(b))
		w := rtw[k]
		o := cmul128(complex(0.5*(real(a)-real(b)), 0.5*(imag(a)+imag(b))), complex(real(w), -imag(w)))
		// i·Fo = (-imag o, real o).
		Zc[k] = complex(fr-imag(o), -(fi + real(o)))
		Zc[h-k] = complex(fr+imag(o), fi-real(o))
	}
}

// fftRows128 runs fn over rows, splitting rows over the pool, or, for one
// long row, handing the pool down for its stages.
func fftRows128(rows, n int, par parallelFn, fn func(lo, hi int, inner parallelFn)) {
	if rows == 1 {
		fn(0, 1, par)
		return
	}
	par(rows, max(1, 8192/max(n, 1)), func(lo, hi int) { fn(lo, hi, nil) })
}

// fftAxis128 transforms every line along axis a of src (shape dims, any
// number of leading copies) into dst, which may be src; inverse transforms
// use IDFT(x)[k] = DFT(x)[(n-k) mod n] and are scaled by sc (the caller
// folds the 1/n of several axes into one pass).
func fftAxis128(p *fftLine[complex128], src, dst []complex128, dims []int, a int, inv bool, sc float64, par parallelFn) {
	n := dims[a]
	if n <= 1 {
		if sc == 1 {
			copy(dst, src)
			return
		}
		for i, v := range src {
			dst[i] = complex(real(v)*sc, imag(v)*sc)
		}
		return
	}
	stride := 1
	for _, d := range dims[a+1:] {
		stride *= d
	}
	if stride == 1 && ((p.blue == nil && n > fftShortLine) || len(dst) == n) {
		fftRows128(len(dst)/n, n, par, func(lo, hi int, inner parallelFn) {
			b := c128scratch(p.scratch)
			defer b.release()
			for i := lo; i < hi; i++ {
				x := dst[i*n : (i+1)*n]
				if p.blue == nil {
					fftRunTo128(p, src[i*n:(i+1)*n], x, b.s, 1, inner)
				} else {
					copy(x, src[i*n:(i+1)*n])
					fftRun128(p, x, b.s, inner)
				}
				if inv {
					x[0] = complex(real(x[0])*sc, imag(x[0])*sc)
					for j, k := 1, n-1; j <= k; j, k = j+1, k-1 {
						u, v := x[j], x[k]
						x[j] = complex(real(v)*sc, imag(v)*sc)
						x[k] = complex(real(u)*sc, imag(u)*sc)
					}
				}
			}
		})
		return
	}
	// Blocks of fftColBlock128 lines are transformed together, interleaved
	// (element j of line c at g[j·nc + c]): strided lines are neighbouring
	// columns, copied row by row; contiguous Bluestein and short lines are
	// transposed in, which puts all their stages in vector form.
	// Long lines take fewer at a time: a block's work memory stays under
	// fftBlockElems elements unless it is a single line.
	cb := max(1, min(fftColBlock128, fftBlockElems/(n+fftVecScratch(p, 1))))
	rowsT := stride == 1
	if rowsT {
		stride = len(dst) / n
	}
	blocks := (stride + cb - 1) / cb
	tasks := len(dst) / (n * stride) * blocks
	par(tasks, max(1, 4096/(cb*n)), func(lo, hi int) {
		b := c128scratch(cb*n + fftVecScratch(p, cb))
		defer b.release()
		g, scr := b.s[:cb*n], b.s[cb*n:]
		for t := lo; t < hi; t++ {
			c0 := t % blocks * cb
			nc := min(cb, stride-c0)
			if rowsT {
				for c := range nc {
					for j, v := range src[(c0+c)*n : (c0+c+1)*n] {
						g[j*nc+c] = v
					}
				}
				g := fftVecAny128(p, g, scr, nc)
				for c := range nc {
					x := dst[(c0+c)*n : (c0+c+1)*n]
					if !inv {
						for j := range x {
							x[j] = g[j*nc+c]
						}
						continue
					}
					x[0] = complex(real(g[c])*sc, imag(g[c])*sc)
					for j := 1; j < n; j++ {
						v := g[(n-j)*nc+c]
						x[j] = complex(real(v)*sc, imag(v)*sc)
					}
				}
				continue
			}
			base := t/blocks*n*stride + c0
			for j := range n {
				copy(g[j*nc:(j+1)*nc], src[base+j*stride:base+j*stride+nc])
			}
			g := fftVecAny128(p, g, scr, nc)
			for j := range n {
				row := dst[base+j*stride : base+j*stride+nc]
				k := j
				if inv && j > 0 {
					k = n - j
				}
				gr := g[k*nc : (k+1)*nc]
				if sc == 1 {
					copy(row, gr)
					continue
				}
				gr = gr[:len(row)]
				for c, v := range gr {
					row[c] = complex(real(v)*sc, imag(v)*sc)
				}
			}
		}
	})
}

// fftExec128 runs a complex128 (or float64 real) stablehlo.fft.
func fftExec128(e *fftExec[complex128], in, out []byte, par parallelFn) {
	r := len(e.lens)
	n := e.lens[r-1]
	full := 1
	for _, l := range e.lens {
		full *= l
	}
	if e.outer == 0 || full == 0 {
		clear(out)
		return
	}
	rows := e.outer * full / n
	half := n/2 + 1
	hdims := append(append([]int(nil), e.lens[:r-1]...), half)
	switch e.typ {
	case "FFT", "IFFT":
		o := byteview.As[complex128](out)
		src := byteview.As[complex128](in)
		inv := e.typ == "IFFT"
		for a := r - 1; a >= 0; a-- {
			sc := float64(1)
			if inv && a == 0 {
				sc = 1 / float64(full)
			}
			fftAxis128(e.lines[a], src, o, e.lens, a, inv, sc, par)
			src = o
		}
	case "RFFT":
		o := byteview.As[complex128](out)
		if p := e.lines[r-1]; n%2 == 1 && rows > 1 {
			// Two real rows per complex line, x_a + i·x_b, transformed in
			// batches by fftAxis128, then X_a[k] = (Z[k] + conj Z[n-k])/2
			// and X_b[k] = (Z[k] - conj Z[n-k])/(2i).
			x := byteview.As[float64](in)
			pairs := (rows + 1) / 2
			b := c128scratch(pairs * n)
			defer b.release()
			for q := range pairs {
				z := b.s[q*n : (q+1)*n]
				xa := x[2*q*n : (2*q+1)*n]
				if 2*q+1 < rows {
					xb := x[(2*q+1)*n : (2*q+2)*n]
					xb = xb[:len(xa)]
					for j, v := range xa {
						z[j] = complex(v, xb[j])
					}
				} else {
					for j, v := range xa {
						z[j] = complex(v, 0)
					}
				}
			}
			fftAxis128(p, b.s, b.s, e.lens[r-1:], 0, false, 1, par)
			for q := range pairs {
				z := b.s[q*n : (q+1)*n]
				oa := o[2*q*half : (2*q+1)*half]
				var ob []complex128
				if 2*q+1 < rows {
					ob = o[(2*q+1)*half : (2*q+2)*half]
				}
				for k := range half {
					u, v := z[k], z[(n-k)%n]
					oa[k] = complex(0.5*(real(u)+real(v)), 0.5*(imag(u)-imag(v)))
					if ob != nil {
						ob[k] = complex(0.5*(imag(u)+imag(v)), -0.5*(real(u)-real(v)))
					}
				}
			}
		} else if n%2 == 1 {
			x := byteview.As[float64](in)
			fftRows128(rows, n, par, func(lo, hi int, inner parallelFn) {
				b := c128scratch(n + p.scratch)
				defer b.release()
				z := b.s[:n]
				for i := lo; i < hi; i++ {
					for j, v := range x[i*n : (i+1)*n] {
						z[j] = complex(v, 0)
					}
					fftRun128(p, z, b.s[n:], inner)
					copy(o[i*half:(i+1)*half], z)
				}
			})
		} else {
			h := n / 2
			xc := byteview.As[complex128](in)
			fftRows128(rows, n, par, func(lo, hi int, inner parallelFn) {
				b := c128scratch(h + e.rline.scratch)
				defer b.release()
				z := b.s[:h]
				for i := lo; i < hi; i++ {
					if e.rline.blue == nil {
						fftRunTo128(e.rline, xc[i*h:(i+1)*h], z, b.s[h:], 1, inner)
					} else {
						copy(z, xc[i*h:(i+1)*h])
						fftRun128(e.rline, z, b.s[h:], inner)
					}
					fftRPost128(e.rtw, z, o[i*half:(i+1)*half])
				}
			})
		}
		for a := r - 2; a >= 0; a-- {
			fftAxis128(e.lines[a], o, o, hdims, a, false, 1, par)
		}
	case "IRFFT":
		src := byteview.As[complex128](in)
		if r > 1 {
			b := c128scratch(len(src))
			defer b.release()
			for a := r - 2; a >= 0; a-- {
				fftAxis128(e.lines[a], src, b.s, hdims, a, true, 1, par)
				src = b.s
			}
		}
		if p := e.lines[r-1]; n%2 == 1 && rows > 1 {
			// Two rows per complex line: Z = X_a + i·X_b over the Hermitian
			// extensions, whose inverse DFT is x_a + i·x_b; the inverse is
			// read backwards from a forward transform.
			o := byteview.As[float64](out)
			sc := 1 / float64(full)
			pairs := (rows + 1) / 2
			b := c128scratch(pairs * n)
			defer b.release()
			for q := range pairs {
				z := b.s[q*n : (q+1)*n]
				xa := src[2*q*half : (2*q+1)*half]
				xb := xa // a lone last row pairs with zero
				hasB := 2*q+1 < rows
				if hasB {
					xb = src[(2*q+1)*half : (2*q+2)*half]
				}
				xb = xb[:len(xa)]
				for k, va := range xa {
					vb := xb[k]
					if !hasB {
						vb = 0
					}
					if k == 0 {
						va, vb = complex(real(va), 0), complex(real(vb), 0)
					}
					// Z[k] = va + i·vb, Z[n-k] = conj(va) + i·conj(vb).
					z[k] = complex(real(va)-imag(vb), imag(va)+real(vb))
					if k > 0 {
						z[n-k] = complex(real(va)+imag(vb), real(vb)-imag(va))
					}
				}
			}
			fftAxis128(p, b.s, b.s, e.lens[r-1:], 0, false, 1, par)
			for q := range pairs {
				z := b.s[q*n : (q+1)*n]
				oa := o[2*q*n : (2*q+1)*n]
				for j := range oa {
					v := z[(n-j)%n]
					oa[j] = real(v) * sc
					if 2*q+1 < rows {
						o[(2*q+1)*n+j] = imag(v) * sc
					}
				}
			}
		} else if n%2 == 1 {
			o := byteview.As[float64](out)
			p := e.lines[r-1]
			sc := 1 / float64(full)
			fftRows128(rows, n, par, func(lo, hi int, inner parallelFn) {
				b := c128scratch(n + p.scratch)
				defer b.release()
				z := b.s[:n]
				for i := lo; i < hi; i++ {
					X := src[i*half : (i+1)*half]
					// conj of the Hermitian extension; ifft = conj(fft(conj)).
					z[0] = complex(real(X[0]), 0)
					for k := 1; k < half; k++ {
						v := X[k]
						z[k] = complex(real(v), -imag(v))
						z[n-k] = v
					}
					fftRun128(p, z, b.s[n:], inner)
					for j, v := range z {
						o[i*n+j] = real(v) * sc
					}
				}
			})
		} else {
			h := n / 2
			oc := byteview.As[complex128](out)
			sc := 1 / float64(full/2) // 1/h and the leading axes' 1/n
			fftRows128(rows, n, par, func(lo, hi int, inner parallelFn) {
				b := c128scratch(h + e.rline.scratch)
				defer b.release()
				z := b.s[:h]
				for i := lo; i < hi; i++ {
					fftCPre128(e.rtw, src[i*half:(i+1)*half], z)
					fftRun128(e.rline, z, b.s[h:], inner)
					for k, v := range z {
						oc[i*h+k] = complex(real(v)*sc, -imag(v)*sc)
					}
				}
			})
		}
	}
}
