package elementwise

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/ir"
)

// TestBitwiseWords checks and, or and xor (eight bytes at a time, then a
// byte tail) on lengths around a word, for predicates and integer types,
// against the per-element operators.
func TestBitwiseWords(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for _, n := range []int{1, 7, 8, 9, 29, 1000} {
		testBitwise[uint8](t, rng, ir.Pred, n)
		testBitwise[int8](t, rng, ir.S8, n)
		testBitwise[uint16](t, rng, ir.U16, n)
		testBitwise[int64](t, rng, ir.S64, n)
	}
}

func testBitwise[T int8 | uint8 | uint16 | int64](t *testing.T, rng *rand.Rand, e ir.ElemType, n int) {
	t.Helper()
	a, b := make([]T, n), make([]T, n)
	for i := range a {
		a[i], b[i] = T(rng.Uint64()), T(rng.Uint64())
		if e == ir.Pred {
			a[i], b[i] = a[i]&1, b[i]&1
		}
	}
	names := []string{"and", "or", "xor"}
	if e == ir.Pred {
		names = append(names, "multiply", "minimum", "add", "maximum")
	}
	for _, name := range names {
		want := make([]T, n)
		for i := range want {
			switch name {
			case "and", "multiply", "minimum":
				want[i] = a[i] & b[i]
			case "or", "add", "maximum":
				want[i] = a[i] | b[i]
			case "xor":
				want[i] = a[i] ^ b[i]
			}
		}
		got := runOp(t, name, nil, ir.Tensor(e, int64(n)), vec(e, a...), vec(e, b...))
		require.Equal(t, want, byteview.As[T](got), "%s %v n=%d", name, e, n)
	}
}
