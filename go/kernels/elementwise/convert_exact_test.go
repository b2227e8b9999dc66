package elementwise

import (
	"encoding/binary"
	"math"
	"math/big"
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/floatconv/floatref"
)

// readCode reads element i of a narrow-float buffer as its code.
func readCode(t ir.ElemType, b []byte, i int) uint32 {
	if t.ByteSize() == 2 {
		return uint32(binary.LittleEndian.Uint16(b[2*i:]))
	}
	return uint32(b[i])
}

// TestConvertNarrowExact runs the convert kernel from f64, c128 (real part),
// f32 and c64 to every narrow float type and compares each result with
// exact rational rounding of the source value.
func TestConvertNarrowExact(t *testing.T) {
	for _, s := range floatref.Specs {
		xs := s.Cases()
		n := len(xs)
		for _, from := range []ir.ElemType{ir.F64, ir.C128, ir.F32, ir.C64} {
			conv, ok := ConvertLoop(from, s.T)
			if !ok {
				t.Fatalf("no convert %s -> %s", from, s.T)
			}
			src := make([]byte, n*from.ByteSize())
			want := make([]uint32, n)
			for i, x := range xs {
				switch from {
				case ir.F64:
					binary.LittleEndian.PutUint64(src[8*i:], math.Float64bits(x))
				case ir.C128:
					binary.LittleEndian.PutUint64(src[16*i:], math.Float64bits(x))
					binary.LittleEndian.PutUint64(src[16*i+8:], math.Float64bits(7))
				case ir.F32, ir.C64:
					binary.LittleEndian.PutUint32(src[from.ByteSize()*i:], math.Float32bits(float32(x)))
					x = float64(float32(x))
				}
				want[i] = s.Round(x)
			}
			dst := make([]byte, n*s.T.ByteSize())
			conv(dst, src)
			bad := 0
			for i := range xs {
				if got := readCode(s.T, dst, i); !s.Is(got, want[i]) && bad < 5 {
					bad++
					t.Errorf("%s -> %s of %v: got %#x, want %#x", from, s.T, xs[i], got, want[i])
				}
			}
		}
	}
}

// TestConvertIntToNarrowExact converts 64- and 32-bit integers near ties of
// each narrow type (where rounding to f64 or f32 first would round twice).
func TestConvertIntToNarrowExact(t *testing.T) {
	var vals []*big.Int
	for sh := 0; sh <= 62; sh++ {
		p := new(big.Int).Lsh(big.NewInt(1), uint(sh))
		for _, m := range []int64{1, 3, 5, 7, 9, 15, 17, 33, 65, 129, 257, 2049, 2051, 4097} {
			v := new(big.Int).Mul(p, big.NewInt(m))
			if v.BitLen() > 63 {
				continue
			}
			for _, d := range []int64{0, 1, -1} {
				w := new(big.Int).Add(v, big.NewInt(d))
				vals = append(vals, w, new(big.Int).Neg(w))
			}
		}
	}
	for _, s := range floatref.Specs {
		for _, from := range []ir.ElemType{ir.S64, ir.U64, ir.S32, ir.U32, ir.S16} {
			conv, ok := ConvertLoop(from, s.T)
			if !ok {
				t.Fatalf("no convert %s -> %s", from, s.T)
			}
			var in []*big.Int
			for _, v := range vals {
				if from.IsUnsigned() && v.Sign() < 0 || v.BitLen() >= from.Bits() {
					continue
				}
				in = append(in, v)
			}
			es := from.ByteSize()
			src := make([]byte, len(in)*es)
			for i, v := range in {
				u := uint64(v.Int64())
				for j := range es {
					src[i*es+j] = byte(u >> (8 * j))
				}
			}
			dst := make([]byte, len(in)*s.T.ByteSize())
			conv(dst, src)
			bad := 0
			for i, v := range in {
				want := s.RoundInt(v)
				if got := readCode(s.T, dst, i); got != want && bad < 5 {
					bad++
					t.Errorf("%s -> %s of %v: got %#x, want %#x", from, s.T, v, got, want)
				}
			}
		}
	}
}
