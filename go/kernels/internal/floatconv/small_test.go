package floatconv

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
)

var inf32 = float32(math.Inf(1))

func TestSmallFloatCodecs(t *testing.T) {
	// Round trip of every code through float64 and back, per format.
	for et, f := range formats {
		for c := range uint32(1) << f.NBits() {
			v := f.Decode(c)
			back := f.Encode(v)
			switch {
			case math.IsNaN(v) && f.kind == kindFNUZ:
				require.Equal(t, uint32(1)<<(f.NBits()-1), back, "%s %#x", et, c)
			case math.IsNaN(v):
				require.True(t, math.IsNaN(f.Decode(back)), "%s %#x", et, c)
			default:
				require.Equal(t, c, back, "%s %#x -> %v", et, c, v)
			}
		}
	}
	// Hand-checked roundings.
	e4 := formats[ir.F8E4M3FN]
	require.Equal(t, uint32(0x7E), e4.Encode(448))    // max
	require.Equal(t, uint32(0x7E), e4.Encode(463.99)) // rounds down to max
	require.Equal(t, uint32(0x7E), e4.Encode(464))    // tie between 448 and 480: even mantissa
	require.Equal(t, uint32(0x7F), e4.Encode(480))    // beyond max: NaN (no Inf)
	require.Equal(t, uint32(0x01), e4.Encode(0x1p-9)) // smallest subnormal
	require.Equal(t, uint32(0x00), e4.Encode(0x1p-10))
	require.Equal(t, uint32(0x01), e4.Encode(0x1.0000001p-10))
	e5 := formats[ir.F8E5M2]
	require.Equal(t, uint32(0x7C), e5.Encode(61440)) // halfway above max 57344: Inf
	require.Equal(t, uint32(0x7B), e5.Encode(61439))
	require.Equal(t, uint32(0x80), formats[ir.F8E5M2FNUZ].Encode(math.Inf(-1)))
	require.Equal(t, uint32(0x00), formats[ir.F8E5M2FNUZ].Encode(math.Copysign(0, -1)))
	require.Equal(t, uint32(0x7), formats[ir.F4E2M1FN].Encode(1e9))
	require.Equal(t, uint32(0xF), formats[ir.F4E2M1FN].Encode(math.Inf(-1)))
	m := formats[ir.F8E8M0FNU]
	require.Equal(t, uint32(127), m.Encode(1))
	require.Equal(t, uint32(128), m.Encode(1.5))
	require.Equal(t, uint32(127), m.Encode(1.49))
	require.Equal(t, uint32(0xFF), m.Encode(0))
	require.Equal(t, uint32(0), m.Encode(1e-45))
	require.Equal(t, uint32(0), m.Encode(0x1p-127))
	require.Equal(t, uint32(1), m.Encode(0x1.000002p-127))
	require.Equal(t, uint32(0), m.Encode32(0x1p-127))
	require.Equal(t, uint32(1), m.Encode32(0x1.7ffffcp-127))
	require.Equal(t, uint32(129), m.Encode32(3))
	// Integer fast path against the float64 encoder on a sweep of f32 values.
	for et, f := range formats {
		for b := uint32(0); b < 1<<32-1<<16; b += 1<<16 - 3 {
			x := math.Float32frombits(b)
			require.Equal(t, f.Encode(float64(x)), f.Encode32(x), "%s %#x", et, b)
		}
		for c := range uint32(1) << f.NBits() { // every code and the midpoints around it
			v := float32(f.Decode(c))
			mid := float32((f.Decode(c) + f.Decode(c+1)) / 2) // exact tie between neighbours
			for _, x := range []float32{v, math.Nextafter32(v, inf32), math.Nextafter32(v, -inf32), v * 1.0625, v * 0.96875, mid, math.Nextafter32(mid, inf32), math.Nextafter32(mid, -inf32)} {
				require.Equal(t, f.Encode(float64(x)), f.Encode32(x), "%s %v", et, x)
			}
		}
	}
	// f16 fast path against the generic encoder on many f32 values.
	h := formats[ir.F16]
	for b := uint32(0); b < 1<<32-1<<20; b += 1<<20 - 7 {
		x := math.Float32frombits(b)
		if x != x {
			continue
		}
		require.Equal(t, uint16(h.Encode(float64(x))), F32ToF16(x), "%#x", b)
		bb := formats[ir.BF16]
		require.Equal(t, uint16(bb.Encode(float64(x))), F32ToBF16(x), "%#x", b)
	}
}
