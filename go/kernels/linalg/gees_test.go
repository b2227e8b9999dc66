package linalg

import (
	"math"
	"math/big"
	"math/cmplx"
	"math/rand"
	"testing"

	"gonum.org/v1/gonum/lapack/gonum"
)

// lanv2 against its defining properties: the rotation is orthogonal, it
// reproduces the input, and the result is upper triangular or a
// standardized block (equal diagonal, off-diagonal entries of opposite
// sign).
func checkLanv2[F floatT](t *testing.T, r *rand.Rand, tol float64) {
	t.Helper()
	for it := 0; it < 2000; it++ {
		e := func() F {
			if r.Intn(8) == 0 {
				return 0
			}
			return F(r.NormFloat64() * math.Pow(10, float64(r.Intn(5)-2)))
		}
		a, b, c, d := e(), e(), e(), e()
		if it%5 == 0 {
			d = a // equal diagonal: the nearly-equal-eigenvalue branch
		}
		aa, bb, cc, dd, rt1r, rt1i, rt2r, rt2i, cs, sn := lanv2(a, b, c, d)
		c64, s64 := float64(cs), float64(sn)
		if math.Abs(c64*c64+s64*s64-1) > tol {
			t.Fatalf("lanv2(%v %v %v %v): cs²+sn² = %v", a, b, c, d, c64*c64+s64*s64)
		}
		// [a b; c d] = [cs −sn; sn cs]·[aa bb; cc dd]·[cs sn; −sn cs].
		m := [4]float64{float64(aa), float64(bb), float64(cc), float64(dd)}
		l := [4]float64{c64*m[0] - s64*m[2], c64*m[1] - s64*m[3], s64*m[0] + c64*m[2], s64*m[1] + c64*m[3]}
		got := [4]float64{l[0]*c64 - l[1]*s64, l[0]*s64 + l[1]*c64, l[2]*c64 - l[3]*s64, l[2]*s64 + l[3]*c64}
		want := [4]float64{float64(a), float64(b), float64(c), float64(d)}
		scale := math.Abs(want[0]) + math.Abs(want[1]) + math.Abs(want[2]) + math.Abs(want[3])
		for k := range got {
			if math.Abs(got[k]-want[k]) > tol*scale {
				t.Fatalf("lanv2(%v %v %v %v): reconstruction %v", a, b, c, d, got)
			}
		}
		if cc != 0 {
			if aa != dd || bb == 0 || math.Signbit(float64(bb)) == math.Signbit(float64(cc)) {
				t.Fatalf("lanv2(%v %v %v %v): block %v %v %v %v not standardized", a, b, c, d, aa, bb, cc, dd)
			}
			if rt1r != aa || rt2r != dd || rt1i <= 0 || rt2i != -rt1i {
				t.Fatalf("lanv2: eigenvalues %v±%v", rt1r, rt1i)
			}
		} else if rt1r != aa || rt2r != dd || rt1i != 0 || rt2i != 0 {
			t.Fatalf("lanv2: eigenvalues %v %v %v %v", rt1r, rt1i, rt2r, rt2i)
		}
	}
}

func TestLanv2Properties(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	checkLanv2[float64](t, r, 1e-14)
	checkLanv2[float32](t, r, 1e-5)
}

// In double precision lanv2 takes the same steps as gonum's Dlanv2 (but
// for a = d exactly, where gonum takes SIGN(x, +0) as −|x|).
func TestLanv2MatchesGonum(t *testing.T) {
	var impl gonum.Implementation
	r := rand.New(rand.NewSource(2))
	for it := 0; it < 2000; it++ {
		a, b, c, d := r.NormFloat64(), r.NormFloat64(), r.NormFloat64(), r.NormFloat64()
		if it%3 == 0 {
			d = a * (1 + 0x1p-40)
		}
		aa, bb, cc, dd, _, _, _, _, cs, sn := lanv2(a, b, c, d)
		ga, gb, gc, gd, _, _, _, _, gcs, gsn := impl.Dlanv2(a, b, c, d)
		got := []float64{aa, bb, cc, dd, cs, sn}
		want := []float64{ga, gb, gc, gd, gcs, gsn}
		for k := range got {
			if math.Abs(got[k]-want[k]) > 1e-14*(1+math.Abs(want[k])) {
				t.Fatalf("lanv2(%v %v %v %v) = %v, Dlanv2 %v", a, b, c, d, got, want)
			}
		}
	}
}

// checkSchurForm: A = Z·T·Zᴴ, Z unitary, T upper triangular (complex) or
// quasi-triangular with standardized 2×2 blocks (real).
func checkSchurForm(t *testing.T, n int, cplx bool, a, tm, z []complex128, tol float64) {
	t.Helper()
	rec := matMul(matMul(z, n, n, tm, n), n, n, adjoint(z, n, n), n)
	if d := maxAbsDiff(rec, a); d > tol*frob(a) {
		t.Fatalf("n=%d cplx=%v: |Z·T·Zᴴ − A| = %g", n, cplx, d)
	}
	eye := make([]complex128, n*n)
	for i := 0; i < n; i++ {
		eye[i*n+i] = 1
	}
	if d := maxAbsDiff(matMul(adjoint(z, n, n), n, n, z, n), eye); d > tol*float64(n) {
		t.Fatalf("n=%d cplx=%v: |ZᴴZ − I| = %g", n, cplx, d)
	}
	for i := 1; i < n; i++ {
		for j := 0; j < i; j++ {
			v := tm[i*n+j]
			if v == 0 {
				continue
			}
			if cplx || j != i-1 || (i >= 2 && tm[(i-1)*n+i-2] != 0) {
				t.Fatalf("n=%d cplx=%v: T[%d,%d] = %v below the (block) diagonal", n, cplx, i, j, v)
			}
			p, q := tm[(i-1)*n+i-1], tm[i*n+i]
			if p != q || math.Signbit(real(tm[(i-1)*n+i])) == math.Signbit(real(v)) {
				t.Fatalf("n=%d: 2×2 block at %d not standardized", n, i-1)
			}
		}
	}
}

func TestGeesSmallSchurForm(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for _, n := range []int{1, 2, 3, 4, 7, 15, 30, 50, 80} {
		for _, cplx := range []bool{false, true} {
			for _, single := range []bool{false, true} {
				a := randMat(r, n*n, cplx)
				if single {
					for k := range a {
						a[k] = complex(float64(float32(real(a[k]))), float64(float32(imag(a[k]))))
					}
				}
				tm, z, w := append([]complex128(nil), a...), make([]complex128, n*n), make([]complex128, n)
				var info int
				tol := 1e-13
				if single {
					info, tol = geesSmall[float32](n, cplx, tm, z, w), 1e-5
				} else {
					info = geesSmall[float64](n, cplx, tm, z, w)
				}
				if info != 0 {
					t.Fatalf("n=%d cplx=%v single=%v: info %d", n, cplx, single, info)
				}
				checkSchurForm(t, n, cplx, a, tm, z, tol)
			}
		}
	}
}

// In double precision realLahqr takes DLAHQR's steps, as gonum's Dlahqr
// does. The two agree to the last bits of the reflectors' norms, and the
// Schur form's signs hang on rounding-level decisions, so the forms are
// compared where no such decision arose (small orders) and the
// eigenvalues, in order, everywhere.
func TestRealLahqrMatchesGonumDlahqr(t *testing.T) {
	var impl gonum.Implementation
	r := rand.New(rand.NewSource(4))
	for _, n := range []int{2, 3, 4, 5, 25, 60, 100} {
		for rep := 0; rep < 3; rep++ {
			h := make([]float64, n*n)
			for k := range h {
				h[k] = r.NormFloat64()
			}
			lwork := 64 * n
			work, tau := make([]float64, lwork), make([]float64, n-1)
			impl.Dgehrd(n, 0, n-1, h, n, tau, work, lwork)
			for i := 1; i < n; i++ {
				for j := 0; j < i-1; j++ {
					h[i*n+j] = 0
				}
			}
			gz := make([]float64, n*n)
			for i := 0; i < n; i++ {
				gz[i*n+i] = 1
			}
			// Column-major copies for realLahqr (gonum is row-major).
			hc, zc := make([]float64, n*n), make([]float64, n*n)
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					hc[i+j*n], zc[i+j*n] = h[i*n+j], gz[i*n+j]
				}
			}
			wr, wi := make([]float64, n), make([]float64, n)
			if info := impl.Dlahqr(true, true, n, 0, n-1, h, n, wr, wi, 0, n-1, gz, n); info != 0 {
				t.Fatalf("Dlahqr info %d", info)
			}
			if info := realLahqr(n, hc, zc); info != 0 {
				t.Fatalf("realLahqr info %d", info)
			}
			tol := 1e-12 * float64(n)
			for i := 0; i < n; i++ {
				// Eigenvalue i from the diagonal (block), as gonum reports it.
				ev := hc[i+i*n]
				if math.Abs(ev-wr[i]) > 1e-9 {
					t.Fatalf("n=%d: eigenvalue %d real part %v vs %v", n, i, ev, wr[i])
				}
				if n > 5 {
					continue
				}
				for j := 0; j < n; j++ {
					if math.Abs(hc[i+j*n]-h[i*n+j]) > tol || math.Abs(zc[i+j*n]-gz[i*n+j]) > tol {
						t.Fatalf("n=%d (%d,%d): T %v vs %v, Z %v vs %v", n, i, j, hc[i+j*n], h[i*n+j], zc[i+j*n], gz[i*n+j])
					}
				}
			}
		}
	}
}

// cdiv (xLADIV) and csqrtF against double-precision references, over a
// wide exponent range, in both working precisions.
func TestGeesComplexHelpers(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	rnd := func() float64 { return r.NormFloat64() * math.Pow(2, float64(r.Intn(60)-30)) }
	for it := 0; it < 5000; it++ {
		x, y := complex(rnd(), rnd()), complex(rnd(), rnd())
		if it%7 == 0 {
			y = complex(real(y), 0)
		}
		want := x / y
		q := cdiv(fromC128F[float64](x), fromC128F[float64](y))
		if d := cmplx.Abs(toC128F(q) - want); d > 4e-16*cmplx.Abs(want) {
			t.Fatalf("cdiv(%v, %v) = %v, want %v", x, y, toC128F(q), want)
		}
		xs, ys := fromC128F[float32](x), fromC128F[float32](y)
		ws := toC128F(xs) / toC128F(ys)
		if d := cmplx.Abs(toC128F(cdiv(xs, ys)) - ws); d > 3e-7*cmplx.Abs(ws) {
			t.Fatalf("cdiv[float32](%v, %v) = %v, want %v", xs, ys, toC128F(cdiv(xs, ys)), ws)
		}
		for _, v := range []complex128{x, complex(real(x), 0), complex(0, imag(x)), complex(-math.Abs(real(x)), 0)} {
			s := toC128F(csqrtF(fromC128F[float64](v)))
			if real(s) < 0 || (imag(v) != 0 && math.Signbit(imag(s)) != math.Signbit(imag(v))) {
				t.Fatalf("csqrt(%v) = %v: not the principal root", v, s)
			}
			if d := cmplx.Abs(s*s - v); d > 1e-15*cmplx.Abs(v) {
				t.Fatalf("csqrt(%v)² = %v", v, s*s)
			}
			s32 := toC128F(csqrtF(fromC128F[float32](v)))
			v32 := toC128F(fromC128F[float32](v))
			if d := cmplx.Abs(s32*s32 - v32); d > 4e-7*cmplx.Abs(v32) {
				t.Fatalf("csqrt[float32](%v)² = %v", v32, s32*s32)
			}
		}
		// |x| correctly rounded: (n − ulp/2)² ≤ re² + im² ≤ (n + ulp/2)².
		n := cabsF(fromC128F[float64](x))
		sq := func(v float64, d float64) *big.Float { // (v + d)² exactly
			b := new(big.Float).SetPrec(512).SetFloat64(v)
			b.Add(b, new(big.Float).SetFloat64(d))
			return b.Mul(b, b)
		}
		exact := sq(real(x), 0)
		exact.Add(exact, sq(imag(x), 0))
		half := (math.Nextafter(n, math.Inf(1)) - n) / 2
		if sq(n, -half).Cmp(exact) > 0 || sq(n, half).Cmp(exact) < 0 {
			t.Fatalf("|%v| = %v is not correctly rounded", x, n)
		}
	}
}
