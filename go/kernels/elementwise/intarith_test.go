package elementwise

import (
	"math/rand"
	"testing"

	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/internal/cpufeat"
	"github.com/gojax/gojax/go/ir"
)

// refInt32 is the per-element reference of the 32-bit integer vector ops,
// written from the StableHLO rules (shift counts read as unsigned).
func refInt32(name string, x, y uint32) uint32 {
	switch name {
	case "add":
		return x + y
	case "subtract":
		return x - y
	case "multiply":
		return x * y
	case "and":
		return x & y
	case "or":
		return x | y
	case "xor":
		return x ^ y
	case "shift_left":
		if y >= 32 {
			return 0
		}
		return x << y
	case "shift_right_arithmetic":
		return uint32(int32(x) >> min(y, 31))
	}
	if y >= 32 {
		return 0
	}
	return x >> y
}

// TestInt32VectorLoops checks every vector set against the reference, for
// both array operands and each scalar form, over lengths that leave tails,
// with shift counts around and past the width (negative s32 counts included).
func TestInt32VectorLoops(t *testing.T) {
	defer useIntArith(cpufeat.Widest())
	rng := rand.New(rand.NewSource(1))
	counts := []uint32{0, 1, 5, 13, 31, 32, 33, 0x80000000, 0xFFFFFFFF, 64}
	for _, isa := range cpufeat.Sets() {
		useIntArith(isa)
		for name := range intOpByName {
			for _, et := range []ir.ElemType{ir.U32, ir.S32} {
				k := binaryKern(name, et)
				for _, n := range []int{1, 7, 8, 15, 16, 17, 63, 64, 65, 200} {
					a, b, d := make([]uint32, n), make([]uint32, n), make([]uint32, n)
					for i := range a {
						a[i] = rng.Uint32()
						b[i] = rng.Uint32()
						if i%2 == 0 {
							b[i] = counts[rng.Intn(len(counts))]
						}
					}
					k(byteview.Bytes(d), byteview.Bytes(a), byteview.Bytes(b), nil)
					for i := range d {
						if w := refInt32(name, a[i], b[i]); d[i] != w {
							t.Fatalf("isa %q %s %s n=%d [%d]: %#x op %#x = %#x, want %#x", isa, name, et, n, i, a[i], b[i], d[i], w)
						}
					}
					for _, first := range []bool{false, true} {
						f, ok := binaryScalarLoop(name, et, first)
						if !ok {
							t.Fatalf("%s %s: no scalar loop", name, et)
						}
						for _, s := range counts {
							f(byteview.Bytes(d), byteview.Bytes(a), byteview.Bytes([]uint32{s}))
							for i := range d {
								x, y := a[i], s
								if first {
									x, y = s, a[i]
								}
								if w := refInt32(name, x, y); d[i] != w {
									t.Fatalf("isa %q %s %s first=%v n=%d [%d]: %#x op %#x = %#x, want %#x", isa, name, et, first, n, i, x, y, d[i], w)
								}
							}
						}
					}
				}
			}
		}
	}
}
