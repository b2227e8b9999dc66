package reduce

import (
	"fmt"
	"math"
	"math/rand"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
)

// randomElems fills n elements of et from a small pool, so that equal keys
// are common, with the special values of floats (±0, ±inf, NaNs of both
// signs) and the extremes of integers mixed in.
func randomElems(rng *rand.Rand, et ir.ElemType, n int, nans bool) []byte {
	es := et.ByteSize()
	b := make([]byte, n*es)
	for i := range n {
		var s scalar
		s.t = et
		switch {
		case et.IsFloat():
			pool := []float64{0, math.Copysign(0, -1), 1, -1, 2.5, -2.5, 1e-3, -7, math.Inf(1), math.Inf(-1), 3, 65000}
			s.f = pool[rng.Intn(len(pool))]
			if rng.Intn(4) == 0 {
				s.f = float64(rng.Intn(2000)-1000) / 8
			}
			if nans && rng.Intn(12) == 0 {
				s.f = math.NaN()
				if rng.Intn(2) == 0 {
					s.f = math.Copysign(math.NaN(), -1)
				}
			}
		case et == ir.Pred:
			s.i = int64(rng.Intn(2))
		default:
			bits := et.Bits()
			switch rng.Intn(6) {
			case 0: // all ones: the largest unsigned, -1 signed
				s.i = -1
			case 1: // the most negative signed value
				s.i = int64(-1) << uint(bits-1)
			default:
				s.i = int64(rng.Intn(64) - 32)
			}
		}
		encode(b[i*es:], s)
	}
	return b
}

// typedComparator builds dir(arg0, arg1) under ct on et, over n operands;
// canonical applies JAX's -0/NaN canonicalization to both keys, with the
// constants defined outside the comparator (as the compiler hoists them).
func typedComparator(et ir.ElemType, dir, ct string, canonical bool, extra ...ir.ElemType) *ir.Region {
	types := []ir.Type{scalarT(et), scalarT(et)}
	for _, e := range extra {
		types = append(types, scalarT(e), scalarT(e))
	}
	rb := regionBuilder{ir.NewBlock(types...)}
	a, b := rb.b.Args[0], rb.b.Args[1]
	if canonical {
		outer := ir.NewBlock()
		konst := func(f float64) *ir.Value {
			d := make([]byte, et.ByteSize())
			encode(d, scalar{f: f, t: et})
			return outer.Append(ir.NewOp("stablehlo.constant", nil, []ir.Type{scalarT(et)},
				ir.Attrs{"value": &ir.ElementsAttr{Type: scalarT(et), Data: d}})).Result()
		}
		zero, nan := konst(0), konst(math.NaN())
		canon := func(x *ir.Value) *ir.Value {
			v := rb.sel(rb.cmp("EQ", "FLOAT", x, zero), zero, x)
			return rb.sel(rb.cmp("NE", "FLOAT", x, x), nan, v)
		}
		a, b = canon(a), canon(b)
	}
	return rb.ret(rb.cmp(dir, ct, a, b))
}

// withUnusedOp makes the comparator unrecognisable without changing what
// it computes, so the sort runs it op by op.
func withUnusedOp(r *ir.Region) *ir.Region {
	b := r.Blocks[0]
	extra := ir.NewOp("stablehlo.constant", nil, []ir.Type{scalarT(ir.F32)},
		ir.Attrs{"value": &ir.ElementsAttr{Type: scalarT(ir.F32), Data: f32s(1)}})
	extra.Block = b
	b.Ops = append([]*ir.Op{extra}, b.Ops...)
	return r
}

// TestSortKeysMatchComparator checks the radix path against the comparator
// run op by op (stable merge sort), bit for bit, with a position operand
// that exposes the order of equal keys: every key type, both directions,
// both float comparison types, JAX's canonical form, lengths around the
// insertion-sort cutoff, and sorting along a strided dimension.
func TestSortKeysMatchComparator(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	type cfg struct {
		et        ir.ElemType
		ct        string
		canonical bool
	}
	var cfgs []cfg
	for _, et := range []ir.ElemType{ir.F32, ir.F64, ir.BF16, ir.F16} {
		cfgs = append(cfgs, cfg{et, "TOTALORDER", false}, cfg{et, "TOTALORDER", true}, cfg{et, "FLOAT", false})
	}
	cfgs = append(cfgs, cfg{ir.S8, "SIGNED", false}, cfg{ir.S32, "SIGNED", false}, cfg{ir.S64, "SIGNED", false},
		cfg{ir.U8, "UNSIGNED", false}, cfg{ir.U32, "UNSIGNED", false}, cfg{ir.U64, "UNSIGNED", false},
		cfg{ir.Pred, "UNSIGNED", false})
	for _, c := range cfgs {
		for _, dir := range []string{"LT", "GT"} {
			for _, shape := range [][]int64{{1}, {2, 2}, {3, 47}, {2, 48}, {2, 49}, {300}, {3000}, {200, 3}} {
				dim := int64(len(shape) - 1)
				if shape[len(shape)-1] == 3 {
					dim = 0
				}
				nans := rng.Intn(2) == 0 // FLOAT with NaNs falls back; without, it takes the radix path
				n := 1
				for _, d := range shape {
					n *= int(d)
				}
				vals := randomElems(rng, c.et, n, nans)
				pos := make([]int32, n)
				for i := range pos {
					pos[i] = int32(i)
				}
				name := fmt.Sprintf("%s/%s/%s/canon=%v/%v/nans=%v", c.et, c.ct, dir, c.canonical, shape, nans)
				t.Run(name, func(t *testing.T) {
					ts := []*ir.TensorType{ir.Tensor(c.et, shape...), ir.Tensor(ir.S32, shape...)}
					fast := sortOp(dim, typedComparator(c.et, dir, c.ct, c.canonical, ir.S32), ts...)
					slow := sortOp(dim, withUnusedOp(typedComparator(c.et, dir, c.ct, c.canonical, ir.S32)), ts...)
					fastCtx, slowCtx := &fakeCtx{chunk: 1}, &fakeCtx{chunk: 1 << 20}
					got := runOp(t, fastCtx, fast, vals, i32s(pos...))
					want := runOp(t, slowCtx, slow, vals, i32s(pos...))
					require.Zero(t, fastCtx.calls, "the comparator was not recognised")
					require.Equal(t, toI32(want[1]), toI32(got[1]))
					require.Equal(t, want[0], got[0])
				})
			}
		}
	}
}

// TestTopKMatchesStableSort checks top_k (selection and full-sort paths)
// against a stable sort by IEEE totalOrder, largest first.
func TestTopKMatchesStableSort(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	for _, et := range []ir.ElemType{ir.F32, ir.F64, ir.BF16, ir.S32, ir.U8, ir.S64} {
		for _, nk := range [][2]int{{1, 1}, {5, 0}, {5, 5}, {40, 3}, {100, 1}, {100, 24}, {100, 25}, {5000, 100}, {3000, 7}, {70001, 100}, {70001, 3}} {
			n, k := nk[0], nk[1]
			rows := 3
			vals := randomElems(rng, et, rows*n, true)
			t.Run(fmt.Sprintf("%s/n=%d/k=%d", et, n, k), func(t *testing.T) {
				op := mkOp("chlo.top_k", []ir.Type{ir.Tensor(et, int64(rows), int64(n))},
					[]ir.Type{ir.Tensor(et, int64(rows), int64(k)), ir.Tensor(ir.S32, int64(rows), int64(k))},
					ir.Attrs{"k": ir.IntAttr{Value: int64(k)}})
				got := runOp(t, &fakeCtx{chunk: 1}, op, vals)
				es := et.ByteSize()
				for r := range rows {
					idx := make([]int, n)
					for i := range idx {
						idx[i] = i
					}
					val := func(i int) scalar { return decode(vals[(r*n+i)*es:], et) }
					sort.SliceStable(idx, func(a, b int) bool {
						x, y := val(idx[a]), val(idx[b])
						if et.IsFloat() {
							return totalKey(x.f) > totalKey(y.f)
						}
						if et.IsUnsigned() {
							return uint64(x.i) > uint64(y.i)
						}
						return x.i > y.i
					})
					gotIdx := toI32(got[1])[r*k : (r+1)*k]
					for j := range k {
						require.Equal(t, int32(idx[j]), gotIdx[j], "row %d rank %d", r, j)
						require.Equal(t, vals[(r*n+idx[j])*es:(r*n+idx[j]+1)*es], got[0][(r*k+j)*es:(r*k+j+1)*es])
					}
				}
			})
		}
	}
}

// TestPartialSortPositions checks gojax.partial_sort, with the iota
// operand left out ("positions"), against the prefix of the full sort of
// (x, iota): recognised and op-by-op comparators, along the last and a
// strided dimension, k from 0 to the whole length.
func TestPartialSortPositions(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	for _, shape := range [][]int64{{2, 300}, {300, 3}, {1, 40}, {2, 70000}} {
		dim := int64(1)
		if shape[1] == 3 {
			dim = 0
		}
		length := shape[dim]
		n := int(shape[0] * shape[1])
		vals := randomElems(rng, ir.F32, n, true)
		iota := make([]int32, n)
		for i := range iota {
			if dim == 1 {
				iota[i] = int32(i % int(shape[1]))
			} else {
				iota[i] = int32(i / int(shape[1]))
			}
		}
		full := sortOp(dim, typedComparator(ir.F32, "GT", "TOTALORDER", false, ir.S32), ir.Tensor(ir.F32, shape...), ir.Tensor(ir.S32, shape...))
		want := runOp(t, &fakeCtx{chunk: 1}, full, vals, i32s(iota...))
		for _, k := range []int64{0, 1, 5, 100, length / 2, length} {
			if k > length {
				continue
			}
			for _, generic := range []bool{false, true} {
				if generic && length > 1000 {
					continue // op by op, a long slice only costs time
				}
				t.Run(fmt.Sprintf("%v/k=%d/generic=%v", shape, k, generic), func(t *testing.T) {
					outShape := append([]int64(nil), shape...)
					outShape[dim] = k
					r := typedComparator(ir.F32, "GT", "TOTALORDER", false, ir.S32)
					if generic {
						r = withUnusedOp(r)
					}
					op := mkOp(PartialSortOp, []ir.Type{ir.Tensor(ir.F32, shape...)},
						[]ir.Type{ir.Tensor(ir.F32, outShape...), ir.Tensor(ir.S32, outShape...)},
						ir.Attrs{"dimension": ir.IntAttr{Value: dim}, "k": ir.IntAttr{Value: k},
							"positions": ir.DenseI64Attr{Values: []int64{1}}}, r)
					ctx := &fakeCtx{chunk: 1}
					got := runOp(t, ctx, op, vals)
					require.Equal(t, generic && k > 0, ctx.calls > 0)
					wv, wi := toF32(want[0]), toI32(want[1])
					gv, gi := toF32(got[0]), toI32(got[1])
					for o := range int(shape[0] * shape[1] / length) {
						for j := range int(k) {
							var src, dst int
							if dim == 1 {
								src, dst = o*int(length)+j, o*int(k)+j
							} else {
								src, dst = j*int(shape[1])+o, j*int(shape[1])+o
							}
							require.Equal(t, wi[src], gi[dst])
							require.Equal(t, math.Float32bits(wv[src]), math.Float32bits(gv[dst]))
						}
					}
				})
			}
		}
	}
}
