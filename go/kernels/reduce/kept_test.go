package reduce

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// keptTreeRef is the order sums along leading axes promise, one column at a
// time: rows folded vecRows at a time in order, folds combined pairwise.
func keptTreeRef(col func(i int) float32, lo, hi int) float32 {
	if hi-lo <= vecRows {
		acc := col(lo)
		for i := lo + 1; i < hi; i++ {
			acc += col(i)
		}
		return acc
	}
	mid := lo + (hi-lo)/2
	return keptTreeRef(col, lo, mid) + keptTreeRef(col, mid, hi)
}

// The strip width and the cut of each tree into per-worker parts must not
// change a bit, whatever the worker count or the Parallel split.
func TestKeptSumBitsAnyWorkers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(3, 4))
	for _, shape := range [][2]int{{4099, 9}, {4099, 70}, {1000, 70}, {65, 9000}, {300, 4096}, {33, 1500}, {2, 20000}} {
		rn, lk := shape[0], shape[1]
		vals := make([]float32, rn*lk)
		for i := range vals {
			vals[i] = float32(rng.NormFloat64() * math.Exp2(float64(rng.IntN(20)-10)))
		}
		want := make([]uint32, lk)
		for c := range lk {
			v := keptTreeRef(func(i int) float32 { return vals[i*lk+c] }, 0, rn)
			want[c] = math.Float32bits(0.5 + v)
		}
		op := reduceOp(ir.F32, []int64{int64(rn), int64(lk)}, []int64{0}, binRegion("stablehlo.add", ir.F32))
		for _, procs := range []int{1, 2, 3, 8} {
			runtime.GOMAXPROCS(procs)
			for _, ctx := range testCtxs {
				t.Run(fmt.Sprint(shape, procs, ctx.chunk), func(t *testing.T) {
					g := toF32(runOp(t, ctx, op, f32s(vals...), f32s(0.5))[0])
					for c := range lk {
						require.Equal(t, want[c], math.Float32bits(g[c]), "column %d", c)
					}
				})
			}
		}
	}
}
