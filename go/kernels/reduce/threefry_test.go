package reduce

import (
	"encoding/binary"
	"math/rand"
	"testing"

	"github.com/gojax/gojax/go/internal/cpufeat"
	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

func u32s(v ...uint32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

func toU32(b []byte) []uint32 {
	v := make([]uint32, len(b)/4)
	for i := range v {
		v[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return v
}

func threefryOp(n int64, rot []int64, iters, counter int64) *ir.Op {
	vt, st := ir.Tensor(ir.U32, n), ir.Tensor(ir.U32)
	return mkOp(ThreefryRoundsOp, []ir.Type{vt, vt, st, st, st}, []ir.Type{vt, vt},
		ir.Attrs{"rotations": i64a(rot...), "iterations": ir.IntAttr{Value: iters}, "counter": ir.IntAttr{Value: counter}})
}

// JAX's loop with its rotation counts, five iterations and the key
// injection set up as jax.random does before the loop is the Threefry-2x32
// block function: checked against rng.go's, written from the paper.
func TestThreefryRoundsIsThreefry2x32(t *testing.T) {
	defer useThreefry(cpufeat.Widest())
	r := rand.New(rand.NewSource(1))
	for _, isa := range cpufeat.Sets() {
		useThreefry(isa)
		for _, n := range []int{1, 31, 32, 33, 100, 1000, 40000} {
			k0, k1 := r.Uint32(), r.Uint32()
			k2 := k0 ^ k1 ^ 0x1BD11BDA
			x, y := make([]uint32, n), make([]uint32, n)
			for i := range x {
				x[i], y[i] = r.Uint32(), r.Uint32()
			}
			a, b := make([]uint32, n), make([]uint32, n)
			for i := range x {
				a[i], b[i] = x[i]+k0, y[i]+k1
			}
			op := threefryOp(int64(n), []int64{13, 15, 26, 6, 17, 29, 16, 24}, 5, 0)
			outs := runOp(t, &fakeCtx{}, op, u32s(a...), u32s(b...), u32s(k1), u32s(k2), u32s(k0))
			g0, g1 := toU32(outs[0]), toU32(outs[1])
			for i := range x {
				w0, w1 := threeFry2x32(x[i], y[i], k0, k1)
				require.Equal(t, [2]uint32{w0, w1}, [2]uint32{g0[i], g1[i]}, "isa %q n %d element %d", isa, n, i)
			}
		}
	}
}

// Other counts (0 and 32 included, which the vector rotate takes mod 32
// and StableHLO's shifts define; over 32 only the Go loop runs), iteration
// numbers and counters: every vector set gives the Go loop's bits, and the
// Go loop follows the ops' definition written out with shifts.
func TestThreefryRoundsVectorMatchesGo(t *testing.T) {
	defer useThreefry(cpufeat.Widest())
	r := rand.New(rand.NewSource(2))
	shl := func(v, c uint32) uint32 {
		if c >= 32 {
			return 0
		}
		return v << c
	}
	shr := func(v, c uint32) uint32 {
		if c >= 32 {
			return 0
		}
		return v >> c
	}
	for trial := range 40 {
		rot := make([]int64, 8)
		for i := range rot {
			rot[i] = int64(r.Intn(33))
			if trial%5 == 4 && i == 3 {
				rot[i] = 40 + int64(r.Intn(100))
			}
		}
		iters, counter := int64(r.Intn(20)), int64(r.Intn(1<<31))-1<<30
		n := 1 + r.Intn(3000)
		a, b := make([]uint32, n), make([]uint32, n)
		for i := range a {
			a[i], b[i] = r.Uint32(), r.Uint32()
		}
		ks := [3]uint32{r.Uint32(), r.Uint32(), r.Uint32()}
		w0, w1 := append([]uint32(nil), a...), append([]uint32(nil), b...)
		k := ks
		rs := [2][]int64{rot[:4], rot[4:]}
		j := int32(counter)
		for range iters {
			for i := range w0 {
				for _, c := range rs[0] {
					w0[i] += w1[i]
					w1[i] = (shl(w1[i], uint32(c)) | shr(w1[i], 32-uint32(c))) ^ w0[i]
				}
				w0[i] += k[0]
				w1[i] += k[1] + uint32(j+1)
			}
			k = [3]uint32{k[1], k[2], k[0]}
			rs[0], rs[1] = rs[1], rs[0]
			j++
		}
		for _, isa := range cpufeat.Sets() {
			useThreefry(isa)
			op := threefryOp(int64(n), rot, iters, counter)
			outs := runOp(t, &fakeCtx{}, op, u32s(a...), u32s(b...), u32s(ks[0]), u32s(ks[1]), u32s(ks[2]))
			require.Equal(t, w0, toU32(outs[0]), "trial %d isa %q rot %v iters %d", trial, isa, rot, iters)
			require.Equal(t, w1, toU32(outs[1]), "trial %d isa %q", trial, isa)
		}
	}
}

func BenchmarkThreefryRounds1M(b *testing.B) {
	defer useThreefry(cpufeat.Widest())
	const n = 1 << 20
	x := make([]byte, 4*n)
	op := threefryOp(n, []int64{13, 15, 26, 6, 17, 29, 16, 24}, 5, 0)
	l, _ := lookupOp(ThreefryRoundsOp)
	for _, isa := range cpufeat.Sets() {
		useThreefry(isa)
		st, err := l(nil, op)
		require.NoError(b, err)
		outs := [][]byte{make([]byte, 4*n), make([]byte, 4*n)}
		b.Run("isa="+isa, func(b *testing.B) {
			for range b.N {
				_ = st([][]byte{x, x, u32s(1), u32s(2), u32s(3)}, outs)
			}
		})
	}
}

// Keys that vary by element (vmapped jax.random: x is [rows, inner] and
// each key [rows, 1] covers a row): every vector set gives the
// definition's bits, for runs of one, two, three and many elements.
func TestThreefryRoundsLaneKeys(t *testing.T) {
	defer useThreefry(cpufeat.Widest())
	r := rand.New(rand.NewSource(3))
	for trial, inner := range []int64{1, 2, 3, 40, 2, 1} {
		rows := int64(1 + r.Intn(3000))
		n := rows * inner
		rot := []int64{13, 15, 26, 6, 17, 29, 16, 24}
		if trial >= 4 {
			for i := range rot {
				rot[i] = int64(r.Intn(33))
			}
		}
		iters, counter := int64(1+r.Intn(8)), int64(r.Intn(100))
		a, b := make([]uint32, n), make([]uint32, n)
		for i := range a {
			a[i], b[i] = r.Uint32(), r.Uint32()
		}
		var ks [3][]uint32
		for k := range ks {
			ks[k] = make([]uint32, rows)
			for i := range ks[k] {
				ks[k][i] = r.Uint32()
			}
		}
		w0, w1 := make([]uint32, n), make([]uint32, n)
		for i := range a {
			x, y := a[i], b[i]
			row := int64(i) / inner
			for it := range iters {
				s := rot[(it%2)*4 : (it%2)*4+4]
				for _, c := range s {
					x += y
					y = (y<<uint32(c) | y>>(32-uint32(c))) ^ x
				}
				x += ks[it%3][row]
				y += ks[(it+1)%3][row] + uint32(int32(counter)+int32(it)+1)
			}
			w0[i], w1[i] = x, y
		}
		vt, kt := ir.Tensor(ir.U32, rows, inner), ir.Tensor(ir.U32, rows, 1)
		op := mkOp(ThreefryRoundsOp, []ir.Type{vt, vt, kt, kt, kt}, []ir.Type{vt, vt},
			ir.Attrs{"rotations": i64a(rot...), "iterations": ir.IntAttr{Value: iters}, "counter": ir.IntAttr{Value: counter}})
		for _, isa := range cpufeat.Sets() {
			useThreefry(isa)
			outs := runOp(t, &fakeCtx{}, op, u32s(a...), u32s(b...), u32s(ks[0]...), u32s(ks[1]...), u32s(ks[2]...))
			require.Equal(t, w0, toU32(outs[0]), "inner %d isa %q", inner, isa)
			require.Equal(t, w1, toU32(outs[1]), "inner %d isa %q", inner, isa)
		}
	}
	// A key shape that is not x's with trailing 1s is refused.
	vt := ir.Tensor(ir.U32, 4, 6)
	bad := mkOp(ThreefryRoundsOp, []ir.Type{vt, vt, ir.Tensor(ir.U32, 1, 6), ir.Tensor(ir.U32, 1, 6), ir.Tensor(ir.U32, 1, 6)},
		[]ir.Type{vt, vt}, ir.Attrs{"rotations": i64a(1, 2, 3, 4, 5, 6, 7, 8), "iterations": ir.IntAttr{Value: 5}, "counter": ir.IntAttr{Value: 0}})
	require.Error(t, lowerErr(&fakeCtx{}, bad))
}
