package elementwise

import (
	"math/big"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestIdivPow2 checks division by a run of one power of two (the shift
// path) that later changes divisor (the hardware-divide rest), for every
// integer width and signedness, against math/big's truncated quotient.
func TestIdivPow2(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	testIdivPow2[int8](t, rng, 8, true)
	testIdivPow2[int16](t, rng, 16, true)
	testIdivPow2[int32](t, rng, 32, true)
	testIdivPow2[int64](t, rng, 64, true)
	testIdivPow2[uint8](t, rng, 8, false)
	testIdivPow2[uint16](t, rng, 16, false)
	testIdivPow2[uint32](t, rng, 32, false)
	testIdivPow2[uint64](t, rng, 64, false)
}

func testIdivPow2[T integer](t *testing.T, rng *rand.Rand, w int, signed bool) {
	t.Helper()
	val := func(x T) *big.Int {
		if signed {
			return big.NewInt(int64(x))
		}
		return new(big.Int).SetUint64(uint64(x))
	}
	top := w - 1
	if !signed {
		top = w
	}
	for k := 0; k < top; k++ {
		c := T(1) << k
		const n = 300
		a, b, d := make([]T, n), make([]T, n), make([]T, n)
		for i := range a {
			a[i] = T(rng.Uint64())
			b[i] = c
		}
		// Extremes, then from element 200 on other divisors (3, -4, 0).
		a[0], a[1], a[2], a[3] = 0, ^T(0), T(1)<<(w-1), ^(T(1) << (w - 1))
		b[200], b[201], b[202] = 3, ^T(3), 0
		idiv(d, a, b)
		for i := range d {
			if b[i] == 0 {
				require.Equal(t, ^T(0), d[i])
				continue
			}
			q := new(big.Int).Quo(val(a[i]), val(b[i]))
			if signed && a[i] == T(1)<<(w-1) && b[i] == ^T(0) {
				q = val(a[i]) // INT_MIN / -1 wraps
			}
			require.Equal(t, q.String(), val(d[i]).String(), "w=%d signed=%v %v / %v", w, signed, a[i], b[i])
		}
	}
}
