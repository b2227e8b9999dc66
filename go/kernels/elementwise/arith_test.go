package elementwise

import (
	"fmt"
	"github.com/gojax/gojax/go/internal/cpufeat"
	"math"
	"math/rand"
	"testing"
)

// arithSpecials32 are the values every op is tried on, in all pairs.
var arithSpecials32 = []float32{0, float32(math.Copysign(0, -1)), 1, -1, 0.5, 3, -7.25,
	float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
	math.Float32frombits(0x7fc12345), math.Float32frombits(0xffa00001), // NaNs with payloads
	math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, 1e-40, -1e-39, 1.1754944e-38}

var arithSpecials64 = []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 3, -7.25, math.Inf(1), math.Inf(-1),
	math.NaN(), math.Float64frombits(0x7ff8000000012345), math.Float64frombits(0xfff4000000000001),
	math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, 1e-310, 2.2250738585072014e-308}

// arithInputs returns n-element operands covering every pair of specials
// plus random values (some of them subnormal).
func arithInputs[T float](specials []T, n int, rnd func() T) (a, b []T) {
	a, b = make([]T, n), make([]T, n)
	k := 0
	for _, x := range specials {
		for _, y := range specials {
			if k < n {
				a[k], b[k] = x, y
				k++
			}
		}
	}
	for ; k < n; k++ {
		a[k], b[k] = rnd(), rnd()
		if k%7 == 0 {
			b[k] = a[k] // equal operands
		}
	}
	return a, b
}

// sameBits compares results; when both operands of an arithmetic op are
// NaN the payload is the hardware's choice, so any NaN is accepted there.
func sameBits[T float](op arithOp, got, want, x, y T) bool {
	if op <= arDiv && x != x && y != y {
		return got != got
	}
	switch v := any(got).(type) {
	case float32:
		return math.Float32bits(v) == math.Float32bits(any(want).(float32))
	case float64:
		return math.Float64bits(v) == math.Float64bits(any(want).(float64))
	}
	return false
}

// goRef is the reference: Go's own operators element by element.
func goRef[T float](op arithOp, x, y T) T {
	switch op {
	case arAdd:
		return x + y
	case arSub:
		return x - y
	case arMul:
		return x * y
	case arDiv:
		return x / y
	case arMax:
		return max(x, y)
	}
	return min(x, y)
}

func TestArithVectorMatchesGo(t *testing.T) {
	defer useArith(cpufeat.Widest())
	r := rand.New(rand.NewSource(1))
	a32, b32 := arithInputs(arithSpecials32, 1000, func() float32 {
		return math.Float32frombits(r.Uint32()&0x807fffff | uint32(r.Intn(24)+115)<<23)
	})
	a64, b64 := arithInputs(arithSpecials64, 1000, func() float64 {
		return math.Float64frombits(r.Uint64()&0x800fffffffffffff | uint64(r.Intn(24)+1012)<<52)
	})
	for _, isa := range cpufeat.Sets() {
		useArith(isa)
		for op := arAdd; op <= arMin; op++ {
			for form := formVV; form <= formSV; form++ {
				// Lengths around the vector and unrolled-step sizes.
				for _, n := range []int{0, 1, 7, 8, 15, 16, 17, 31, 33, 63, 64, 65, 100, 129, 1000} {
					name := fmt.Sprintf("isa=%q/op=%d/form=%d/n=%d", isa, op, form, n)
					for si := range len(arithSpecials32) + 1 {
						d := make([]float32, n)
						b := b32[:n]
						if form != formVV {
							if si == len(arithSpecials32) {
								continue
							}
							b = arithSpecials32[si : si+1]
						} else if si > 0 {
							break
						}
						arithF32(op, form, d, a32[:n], b)
						for i := range d {
							x, y := a32[i], b[0]
							switch form {
							case formVV:
								y = b[i]
							case formSV:
								x, y = y, x
							}
							if want := goRef(op, x, y); !sameBits(op, d[i], want, x, y) {
								t.Fatalf("f32 %s: [%d] %v op %v = %v (%#x), want %v (%#x)", name, i, x, y, d[i], math.Float32bits(d[i]), want, math.Float32bits(want))
							}
						}
					}
					for si := range len(arithSpecials64) + 1 {
						d := make([]float64, n)
						b := b64[:n]
						if form != formVV {
							if si == len(arithSpecials64) {
								continue
							}
							b = arithSpecials64[si : si+1]
						} else if si > 0 {
							break
						}
						arithF64(op, form, d, a64[:n], b)
						for i := range d {
							x, y := a64[i], b[0]
							switch form {
							case formVV:
								y = b[i]
							case formSV:
								x, y = y, x
							}
							if want := goRef(op, x, y); !sameBits(op, d[i], want, x, y) {
								t.Fatalf("f64 %s: [%d] %v op %v = %v (%#x), want %v (%#x)", name, i, x, y, d[i], math.Float64bits(d[i]), want, math.Float64bits(want))
							}
						}
					}
				}
			}
		}
	}
}

// TestArithMaxMinSemantics pins the StableHLO/XLA answers the loops must give.
func TestArithMaxMinSemantics(t *testing.T) {
	defer useArith(cpufeat.Widest())
	negZero := float32(math.Copysign(0, -1))
	nan := float32(math.NaN())
	for _, isa := range cpufeat.Sets() {
		useArith(isa)
		n := 37
		a, b := make([]float32, n), make([]float32, n)
		dmax, dmin := make([]float32, n), make([]float32, n)
		for i := range a {
			switch i % 4 {
			case 0:
				a[i], b[i] = negZero, 0
			case 1:
				a[i], b[i] = 0, negZero
			case 2:
				a[i], b[i] = nan, 1
			case 3:
				a[i], b[i] = -1, nan
			}
		}
		arithF32(arMax, formVV, dmax, a, b)
		arithF32(arMin, formVV, dmin, a, b)
		for i := range a {
			switch i % 4 {
			case 0, 1:
				if math.Signbit(float64(dmax[i])) || dmax[i] != 0 {
					t.Errorf("isa %q: max(%v, %v) = %v, want +0", isa, a[i], b[i], dmax[i])
				}
				if !math.Signbit(float64(dmin[i])) || dmin[i] != 0 {
					t.Errorf("isa %q: min(%v, %v) = %v, want -0", isa, a[i], b[i], dmin[i])
				}
			default:
				if dmax[i] == dmax[i] || dmin[i] == dmin[i] {
					t.Errorf("isa %q: max/min(%v, %v) = %v/%v, want NaN", isa, a[i], b[i], dmax[i], dmin[i])
				}
			}
		}
	}
}

// MaxAcc/MinAcc accumulate in place (dst is an operand too) with the
// built-in max/min's bits, every length (tails too) on every loop set.
func TestMaxMinAccMatchBuiltin(t *testing.T) {
	defer useArith(cpufeat.Widest())
	r := rand.New(rand.NewSource(5))
	for _, isa := range cpufeat.Sets() {
		useArith(isa)
		for _, n := range []int{0, 1, 7, 16, 33, 100} {
			d32, s32 := make([]float32, n), make([]float32, n)
			d64, s64 := make([]float64, n), make([]float64, n)
			for i := range d32 {
				d32[i], s32[i] = arithSpecials32[r.Intn(len(arithSpecials32))], arithSpecials32[r.Intn(len(arithSpecials32))]
				d64[i], s64[i] = arithSpecials64[r.Intn(len(arithSpecials64))], arithSpecials64[r.Intn(len(arithSpecials64))]
			}
			for _, isMax := range []bool{true, false} {
				g32, g64 := append([]float32(nil), d32...), append([]float64(nil), d64...)
				if isMax {
					MaxAcc(g32, s32)
					MaxAcc(g64, s64)
				} else {
					MinAcc(g32, s32)
					MinAcc(g64, s64)
				}
				for i := range g32 {
					w32, w64 := max(d32[i], s32[i]), max(d64[i], s64[i])
					if !isMax {
						w32, w64 = min(d32[i], s32[i]), min(d64[i], s64[i])
					}
					// Which NaN survives two NaNs is the hardware's choice.
					if w32 == w32 && math.Float32bits(w32) != math.Float32bits(g32[i]) || w32 != w32 && g32[i] == g32[i] {
						t.Errorf("isa %q n %d max=%v: f32 (%v, %v) -> %v, want %v", isa, n, isMax, d32[i], s32[i], g32[i], w32)
					}
					if w64 == w64 && math.Float64bits(w64) != math.Float64bits(g64[i]) || w64 != w64 && g64[i] == g64[i] {
						t.Errorf("isa %q n %d max=%v: f64 (%v, %v) -> %v, want %v", isa, n, isMax, d64[i], s64[i], g64[i], w64)
					}
				}
			}
		}
	}
}

// BenchmarkArith times each loop set on a fusion block (1024, in L1) and
// on 1M elements (memory).
func BenchmarkArith(b *testing.B) {
	defer useArith(cpufeat.Widest())
	for _, n := range []int{1024, 1 << 20} {
		a, c, d := make([]float32, n), make([]float32, n), make([]float32, n)
		for i := range a {
			a[i], c[i] = float32(i%1000)*0.01-3, float32(i%777)*0.02+0.5
		}
		for _, op := range []arithOp{arAdd, arMul, arDiv, arMax} {
			for _, form := range []int{formVV, formVS} {
				for _, isa := range cpufeat.Sets() {
					b.Run(fmt.Sprintf("n=%d/op=%d/form=%d/isa=%q", n, op, form, isa), func(b *testing.B) {
						useArith(isa)
						b.SetBytes(int64(4 * n))
						for range b.N {
							arithF32(op, form, d, a, c)
						}
					})
				}
			}
		}
	}
}
