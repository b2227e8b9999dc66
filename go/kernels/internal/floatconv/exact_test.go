package floatconv

import (
	"math"
	"math/big"
	"runtime"
	"testing"

	"github.com/gojax/gojax/go/internal/fpmode"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/floatconv/floatref"
)

// from64 and from32 are floatconv's narrowing of t from each source width.
func from64(t ir.ElemType, x float64) uint32 {
	switch t {
	case ir.F16:
		return uint32(F64ToF16(x))
	case ir.BF16:
		return uint32(F64ToBF16(x))
	}
	f, _ := Of(t)
	return f.Encode(x)
}

func from32(t ir.ElemType, x float32) uint32 {
	switch t {
	case ir.F16:
		return uint32(F32ToF16(x))
	case ir.BF16:
		return uint32(F32ToBF16(x))
	}
	f, _ := Of(t)
	return f.Encode32(x)
}

type narrowCase struct {
	s            floatref.Spec
	x            float64
	x32          float32
	want, want32 uint32
}

// TestNarrowingExact compares every narrowing, from f64 and from f32, with
// exact rational rounding at ties, near ties, subnormals and overflow.
// It runs twice: as is, and in the kernels' floating-point mode (subnormal
// inputs read as zero, where the CPU supports it), which must not change
// any result. The reference values are computed before, in the default mode.
func TestNarrowingExact(t *testing.T) {
	var cases []narrowCase
	for _, s := range floatref.Specs {
		for _, x := range s.Cases() {
			x32 := float32(x)
			cases = append(cases, narrowCase{s, x, x32, s.Round(x), s.Round(float64(x32))})
		}
	}
	narrowingExact(t, cases)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	fpmode.SetFlushDenormals(true)
	prev := fpmode.Enter()
	defer fpmode.Exit(prev)
	narrowingExact(t, cases) // not in a subtest: that would run on another thread
}

func narrowingExact(t *testing.T, cases []narrowCase) {
	bad := 0
	for _, c := range cases {
		s, x := c.s, c.x
		f, _ := Of(s.T)
		if got := from64(s.T, x); !s.Is(got, c.want) && bad < 20 {
			bad++
			t.Errorf("%s from f64 %v (%#x): got %#x, want %#x", s.T, x, math.Float64bits(x), got, c.want)
		}
		if got := f.Encode(x); !s.Is(got, c.want) && bad < 20 {
			bad++
			t.Errorf("%s Encode %v: got %#x, want %#x", s.T, x, got, c.want)
		}
		if got := from32(s.T, c.x32); !s.Is(got, c.want32) && bad < 20 {
			bad++
			t.Errorf("%s from f32 %v (%#x): got %#x, want %#x", s.T, c.x32, math.Float32bits(c.x32), got, c.want32)
		}
	}
}

// TestDoubleRoundingCases pins inputs where rounding through f32 first
// gives a different (wrong) result.
func TestDoubleRoundingCases(t *testing.T) {
	for _, c := range []struct {
		t    ir.ElemType
		x    float64
		want uint32
	}{
		{ir.F16, 1 + 0x1p-11 + 0x1p-40, 0x3C01}, // just above the tie 1+2^-11: up
		{ir.F16, 6.10649586e-05, 0x0401},        // the value from the Intel report
		{ir.BF16, 1 + 0x1p-8 + 0x1p-40, 0x3F81},
		{ir.BF16, -(1 + 0x1p-8 + 0x1p-40), 0xBF81},
		{ir.F8E4M3FN, 1 + 0x1p-4 + 0x1p-40, 0x39},
		{ir.F8E5M2, 1 + 0x1p-3 + 0x1p-40, 0x3D},
	} {
		s := spec(t, c.t)
		require := s.Round(c.x)
		if require != c.want {
			t.Fatalf("reference %s(%v) = %#x, test expects %#x", c.t, c.x, require, c.want)
		}
		if got := from64(c.t, c.x); got != c.want {
			t.Errorf("%s(%v): got %#x, want %#x", c.t, c.x, got, c.want)
		}
	}
}

func spec(t *testing.T, et ir.ElemType) floatref.Spec {
	for _, s := range floatref.Specs {
		if s.T == et {
			return s
		}
	}
	t.Fatalf("no spec for %s", et)
	return floatref.Spec{}
}

// TestWideningExact decodes every code of every format (all 2^16 for f16
// and bf16) and checks the f32/f64 value is exactly the code's value, and
// that narrowing it again gives the code back.
func TestWideningExact(t *testing.T) {
	for _, s := range floatref.Specs {
		f, _ := Of(s.T)
		n := uint32(1) << s.Bits()
		bad := 0
		for c := range n {
			var got float64
			switch s.T {
			case ir.F16:
				got = float64(F16ToF32(uint16(c)))
			case ir.BF16:
				got = float64(BF16ToF32(uint16(c)))
			default:
				got = float64(float32(f.Decode(c))) // the f32 tables hold these
			}
			if d := f.Decode(c); !(d == got || d != d && got != got) || math.Signbit(d) != math.Signbit(got) {
				t.Errorf("%s %#x: Decode %v, f32 path %v", s.T, c, d, got)
			}
			r, neg, cl := s.Decode(c)
			ok := true
			switch cl {
			case floatref.NaN:
				ok = got != got
			case floatref.Inf:
				ok = math.IsInf(got, 0) && math.Signbit(got) == neg
			default:
				ok = !math.IsInf(got, 0) && got == got && math.Signbit(got) == neg &&
					new(big.Rat).SetFloat64(math.Abs(got)).Cmp(r) == 0
			}
			if !ok && bad < 10 {
				bad++
				t.Errorf("%s %#x: widened to %v, want %v (neg %v, class %v)", s.T, c, got, r, neg, cl)
			}
			if cl == floatref.NaN {
				continue
			}
			if back := from64(s.T, got); back != s.Round(got) || back != c && !(s.Kind == floatref.FNUZ && got == 0) {
				t.Errorf("%s %#x: round trip gives %#x", s.T, c, back)
			}
			if back := from32(s.T, float32(got)); back != from64(s.T, got) {
				t.Errorf("%s %#x: f32 round trip gives %#x", s.T, c, back)
			}
		}
	}
}
