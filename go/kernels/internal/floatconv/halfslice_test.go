package floatconv

import (
	"encoding/binary"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/gojax/gojax/go/internal/cpufeat"
	"github.com/gojax/gojax/go/internal/fpmode"
	"github.com/gojax/gojax/go/internal/testenv"
	"github.com/gojax/gojax/go/kernels/internal/gentest"
)

// TestGeneratedFilesAreFresh keeps half_amd64.s in step with gen_half.go.
func TestGeneratedFilesAreFresh(t *testing.T) { gentest.CheckFresh(t, ".") }

// halfOracle computes, with numpy (f16) and ml_dtypes (bf16) in the
// oracle interpreter, the f32 bits of every f16 and bf16 pattern and the
// f16 and bf16 roundings of the f32 bit patterns in narrow.
func halfOracle(t *testing.T, narrow []uint32) (f16w, bf16w []uint32, f16n, bf16n []uint16) {
	t.Helper()
	dir := t.TempDir()
	in := filepath.Join(dir, "in.bin")
	buf := make([]byte, 4*len(narrow))
	for i, b := range narrow {
		binary.LittleEndian.PutUint32(buf[4*i:], b)
	}
	if err := os.WriteFile(in, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	const script = `
import sys, warnings
import numpy as np
try:
    import ml_dtypes
except ImportError:
    sys.exit(3)
warnings.simplefilter("ignore")  # casts of NaN and overflow warn
x = np.fromfile(sys.argv[1], dtype="<u4").view(np.float32)
h = np.arange(65536, dtype=np.uint32).astype("<u2")
out = [h.view(np.float16).astype(np.float32).view("<u4"),
       h.view(ml_dtypes.bfloat16).astype(np.float32).view("<u4"),
       x.astype(np.float16).view("<u2"),
       x.astype(ml_dtypes.bfloat16).view("<u2")]
with open(sys.argv[2], "wb") as f:
    for a in out:
        f.write(a.tobytes())
`
	outPath := filepath.Join(dir, "out.bin")
	cmd := exec.Command(testenv.Python(t), "-c", script, in, outPath)
	if out, err := cmd.CombinedOutput(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 3 {
			testenv.Unavailable(t, "the oracle python has no ml_dtypes")
		}
		t.Fatalf("oracle: %v\n%s", err, out)
	}
	raw, err := os.ReadFile(outPath)
	if err != nil {
		t.Fatal(err)
	}
	if want := 2*65536*4 + 2*len(narrow)*2; len(raw) != want {
		t.Fatalf("oracle wrote %d bytes, want %d", len(raw), want)
	}
	u32 := func(b []byte) []uint32 {
		v := make([]uint32, len(b)/4)
		for i := range v {
			v[i] = binary.LittleEndian.Uint32(b[4*i:])
		}
		return v
	}
	u16 := func(b []byte) []uint16 {
		v := make([]uint16, len(b)/2)
		for i := range v {
			v[i] = binary.LittleEndian.Uint16(b[2*i:])
		}
		return v
	}
	f16w, raw = u32(raw[:65536*4]), raw[65536*4:]
	bf16w, raw = u32(raw[:65536*4]), raw[65536*4:]
	f16n, raw = u16(raw[:2*len(narrow)]), raw[2*len(narrow):]
	bf16n = u16(raw)
	return
}

// narrowInputs is the f32 bit patterns the narrowing tests round: around
// every f16 and bf16 value (the value, its f32 neighbours, the exact ties
// halfway to the next value and their neighbours), the overflow and
// subnormal thresholds, zeros, infinities, NaNs of every kind, and random
// patterns.
func narrowInputs() []uint32 {
	var v []uint32
	around := func(x float64) {
		b := math.Float32bits(float32(x)) // exact for the values used
		v = append(v, b, b+1, b-1, b|1<<31, (b+1)|1<<31, (b-1)|1<<31)
	}
	for h := range uint32(0x7C00) { // finite non-negative halves
		x, next := float64(F16ToF32(uint16(h))), float64(F16ToF32(uint16(h+1)))
		around(x)
		around((x + next) / 2)
	}
	for h := range uint32(0x7F80) { // finite non-negative bf16 values
		x, next := float64(BF16ToF32(uint16(h))), float64(BF16ToF32(uint16(h+1)))
		around(x)
		around((x + next) / 2) // exact: bf16 values are f32 values with 8 fewer bits
	}
	for _, b := range []uint32{0, 0x7F800000, 0x7F7FFFFF, 0x477FE000, 0x477FEFFF, 0x477FF000, 0x477FF001,
		0x00000001, 0x007FFFFF, 0x00800000, 0x33000000, 0x33000001, 0x32FFFFFF, 0x33800000} {
		v = append(v, b, b|1<<31)
	}
	// NaNs: quiet and signaling, with payload bits high and low.
	for _, m := range []uint32{1, 0x1FFF, 0x2000, 0x3FFFFF, 0x400000, 0x400001, 0x7FFFFF, 0x10000, 0xFFFF, 0x7FC000} {
		v = append(v, 0x7F800000|m, 0xFF800000|m)
	}
	rng := rand.New(rand.NewSource(16))
	for range 1 << 20 {
		v = append(v, rng.Uint32())
	}
	return v
}

// isNaN32 and the checks below are written from the formats' definitions,
// not from the code under test.
func isNaN32(b uint32) bool { return b&0x7FFFFFFF > 0x7F800000 }

// quietNaNOK says whether narrow is the NaN gojax narrows the f32 NaN b
// to (half.go): same sign, quiet, and the payload's top bits kept.
func quietNaNOK(b uint32, narrow uint16, expBits, manBits int) bool {
	sign := uint16(b>>31) << 15
	expAll := uint16(1<<expBits-1) << manBits
	top := uint16(b>>(23-manBits)) & (1<<manBits - 1)
	quiet := uint16(1) << (manBits - 1)
	return narrow == sign|expAll|top|quiet
}

// TestHalfSlicesOracle checks the slice conversions of every vector set
// this CPU runs against numpy and ml_dtypes: all 65536 f16 and bf16
// patterns widened (NaNs keep their payload bit for bit, as both libraries
// do), and the narrowing of narrowInputs, bit for bit where the input is
// not a NaN. NaNs narrow to the quiet NaN with the input's sign and top
// payload bits, as the x86 conversion instructions (XLA's on CPU) give
// them; numpy keeps signaling NaNs signaling and ml_dtypes drops payloads,
// so for NaN inputs the oracle only says the result is a NaN.
// It runs in the kernels' floating-point mode too (subnormals flushed
// where the CPU can), which must not change a bit.
func TestHalfSlicesOracle(t *testing.T) {
	narrow := narrowInputs()
	f16w, bf16w, f16n, bf16n := halfOracle(t, narrow)
	patterns := make([]uint16, 65536)
	for i := range patterns {
		patterns[i] = uint16(i)
	}
	xs := make([]float32, len(narrow))
	for i, b := range narrow {
		xs[i] = math.Float32frombits(b)
	}
	check := func(t *testing.T, set string) {
		bad := 0
		fail := func(format string, args ...any) {
			if bad++; bad <= 20 {
				t.Errorf("set %q: "+format, append([]any{set}, args...)...)
			}
		}
		w := make([]float32, len(patterns))
		f16sToF32(set, w, patterns)
		for i, x := range w {
			if got := math.Float32bits(x); got != f16w[i] {
				fail("f16 %#04x widened to %#08x, want %#08x", i, got, f16w[i])
			}
		}
		bf16sToF32(set, w, patterns)
		for i, x := range w {
			if got := math.Float32bits(x); got != bf16w[i] {
				fail("bf16 %#04x widened to %#08x, want %#08x", i, got, bf16w[i])
			}
		}
		n := make([]uint16, len(xs))
		f32sToF16(set, n, xs)
		for i, b := range narrow {
			if isNaN32(b) {
				if !quietNaNOK(b, n[i], 5, 10) || f16n[i]&0x7FFF <= 0x7C00 {
					fail("f32 NaN %#08x narrowed to f16 %#04x (oracle %#04x)", b, n[i], f16n[i])
				}
			} else if n[i] != f16n[i] {
				fail("f32 %#08x narrowed to f16 %#04x, want %#04x", b, n[i], f16n[i])
			}
		}
		f32sToBF16(set, n, xs)
		for i, b := range narrow {
			if isNaN32(b) {
				if !quietNaNOK(b, n[i], 8, 7) || bf16n[i]&0x7FFF <= 0x7F80 {
					fail("f32 NaN %#08x narrowed to bf16 %#04x (oracle %#04x)", b, n[i], bf16n[i])
				}
			} else if n[i] != bf16n[i] {
				fail("f32 %#08x narrowed to bf16 %#04x, want %#04x", b, n[i], bf16n[i])
			}
		}
	}
	for _, set := range cpufeat.Sets() {
		check(t, set)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	fpmode.SetFlushDenormals(true)
	defer fpmode.SetFlushDenormals(false)
	prev := fpmode.Enter()
	defer fpmode.Exit(prev)
	for _, set := range cpufeat.Sets() {
		check(t, set) // not in a subtest: that would run on another thread
	}
}

// TestHalfSlicesMatchScalar checks every length up to a few vectors, at
// every offset within a vector, against the scalar functions, so the
// vector loops and the Go tails meet where they should and write nothing
// beyond len(dst).
func TestHalfSlicesMatchScalar(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	const maxN = 70
	src16 := make([]uint16, maxN+16)
	src32 := make([]float32, maxN+16)
	for i := range src16 {
		src16[i] = uint16(rng.Uint32())
		src32[i] = math.Float32frombits(rng.Uint32())
	}
	const guard = 0xA5A5
	for _, set := range cpufeat.Sets() {
		for off := range 16 {
			for n := range maxN {
				w := make([]float32, n+1)
				w[n] = math.Float32frombits(guard)
				f16sToF32(set, w[:n], src16[off:])
				for i := range n {
					if math.Float32bits(w[i]) != math.Float32bits(F16ToF32(src16[off+i])) {
						t.Fatalf("set %q f16 n=%d off=%d i=%d", set, n, off, i)
					}
				}
				bf16sToF32(set, w[:n], src16[off:])
				for i := range n {
					if math.Float32bits(w[i]) != math.Float32bits(BF16ToF32(src16[off+i])) {
						t.Fatalf("set %q bf16 n=%d off=%d i=%d", set, n, off, i)
					}
				}
				if math.Float32bits(w[n]) != guard {
					t.Fatalf("set %q: widening n=%d wrote past the end", set, n)
				}
				h := make([]uint16, n+1)
				h[n] = guard
				f32sToF16(set, h[:n], src32[off:])
				for i := range n {
					if h[i] != F32ToF16(src32[off+i]) {
						t.Fatalf("set %q to f16 n=%d off=%d i=%d", set, n, off, i)
					}
				}
				f32sToBF16(set, h[:n], src32[off:])
				for i := range n {
					if h[i] != F32ToBF16(src32[off+i]) {
						t.Fatalf("set %q to bf16 n=%d off=%d i=%d", set, n, off, i)
					}
				}
				if h[n] != guard {
					t.Fatalf("set %q: narrowing n=%d wrote past the end", set, n)
				}
			}
		}
	}
}
