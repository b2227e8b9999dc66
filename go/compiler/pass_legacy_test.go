package compiler

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// forEachIndex calls fn with every multi-index of shape, row-major.
func forEachIndex(shape []int64, fn func(idx []int64)) {
	idx := make([]int64, len(shape))
	for _, n := range shape {
		if n == 0 {
			return
		}
	}
	for {
		fn(idx)
		d := len(shape) - 1
		for ; d >= 0; d-- {
			if idx[d]++; idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
		if d < 0 {
			return
		}
	}
}

func flat(shape, idx []int64) int64 {
	var f int64
	for d, n := range shape {
		f = f*n + idx[d]
	}
	return f
}

func numel(shape []int64) int64 {
	n := int64(1)
	for _, s := range shape {
		n *= s
	}
	return n
}

// refEinsum evaluates an einsum (letters only, no "...") by summing the
// product over every assignment of the labels: the definition, not the
// rewrite's decomposition.
func refEinsum(config string, shapes [][]int64, xs [][]float32) ([]int64, []float32) {
	lhs, out, _ := strings.Cut(config, "->")
	parts := strings.Split(lhs, ",")
	size := map[byte]int64{}
	var labels []byte
	for i, p := range parts {
		for d := range p {
			if _, ok := size[p[d]]; !ok {
				labels = append(labels, p[d])
			}
			size[p[d]] = shapes[i][d]
		}
	}
	all := make([]int64, len(labels))
	for i, l := range labels {
		all[i] = size[l]
	}
	outShape := make([]int64, len(out))
	for d := range out {
		outShape[d] = size[out[d]]
	}
	res := make([]float32, numel(outShape))
	pos := func(l byte) int { return strings.IndexByte(string(labels), l) }
	forEachIndex(all, func(a []int64) {
		prod := float32(1)
		for i, p := range parts {
			idx := make([]int64, len(p))
			for d := range p {
				idx[d] = a[pos(p[d])]
			}
			prod *= xs[i][flat(shapes[i], idx)]
		}
		oi := make([]int64, len(out))
		for d := range out {
			oi[d] = a[pos(out[d])]
		}
		res[flat(outShape, oi)] += prod
	})
	return outShape, res
}

// smallInts fills n values with small integers, so float32 sums are exact
// whatever the order.
func smallInts(n int64, seed int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32((i*7+seed*3)%11 - 5)
	}
	return v
}

func TestEinsumIsRewrittenAndMatchesTheDefinition(t *testing.T) {
	for _, tc := range []struct {
		config string
		shapes [][]int64
	}{
		{"ij,jk->ik", [][]int64{{2, 3}, {3, 4}}},
		{"bij,bjk->bik", [][]int64{{2, 2, 3}, {2, 3, 2}}},
		{"ij,kj->ki", [][]int64{{2, 3}, {4, 3}}},
		{"ij,ij->", [][]int64{{2, 3}, {2, 3}}},
		{"i,j->ji", [][]int64{{3}, {2}}},
		{"ijk,jl->li", [][]int64{{2, 3, 4}, {3, 2}}},
		{"abc,cda->dba", [][]int64{{2, 3, 2}, {2, 4, 2}}},
		{"ijk->ki", [][]int64{{2, 3, 4}}},
		{"ij->ij", [][]int64{{2, 3}}},
		{"ij->", [][]int64{{2, 3}}},
	} {
		t.Run(tc.config, func(t *testing.T) {
			name := "stablehlo.einsum"
			if len(tc.shapes) == 1 {
				name = "stablehlo.unary_einsum"
			}
			var ins []ir.Type
			var args [][]byte
			var xs [][]float32
			for i, s := range tc.shapes {
				ins = append(ins, ir.Tensor(ir.F32, s...))
				xs = append(xs, smallInts(numel(s), i))
				args = append(args, f32s(xs[i]...))
			}
			outShape, want := refEinsum(tc.config, tc.shapes, xs)
			rt := ir.Tensor(ir.F32, outShape...)
			mb := newMod()
			mb.fn("main", "public", ins, []ir.Type{rt}, func(b *blkB, a []*ir.Value) []*ir.Value {
				return []*ir.Value{b.v(name, rt, ir.Attrs{"einsum_config": ir.StringAttr{Value: tc.config}}, a...)}
			})
			exe := compile(t, mb.m)
			require.NotRegexp(t, `= stablehlo\.(unary_)?einsum\[`, exe.PlanText())
			require.Equal(t, want, toF32(run(t, exe, args...)[0]))
		})
	}
}

func TestEinsumEllipsis(t *testing.T) {
	// "...ij,...jk->...ik" is the batched matmul "xyij,xyjk->xyik".
	a, b := []int64{2, 2, 2, 3}, []int64{2, 2, 3, 2}
	xa, xb := smallInts(numel(a), 0), smallInts(numel(b), 1)
	outShape, want := refEinsum("xyij,xyjk->xyik", [][]int64{a, b}, [][]float32{xa, xb})
	rt := ir.Tensor(ir.F32, outShape...)
	mb := newMod()
	mb.fn("main", "public", []ir.Type{ir.Tensor(ir.F32, a...), ir.Tensor(ir.F32, b...)}, []ir.Type{rt}, func(bb *blkB, x []*ir.Value) []*ir.Value {
		return []*ir.Value{bb.v("stablehlo.einsum", rt, ir.Attrs{"einsum_config": ir.StringAttr{Value: "...ij,...jk->...ik"}}, x...)}
	})
	require.Equal(t, want, toF32(run(t, compile(t, mb.m), f32s(xa...), f32s(xb...))[0]))
}

func TestEinsumRejectsWhatItCannotRewrite(t *testing.T) {
	for config, want := range map[string]string{
		"ii->i":    "diagonal",
		"ij,jk":    "no \"->\"",
		"ij,jk->z": "in no operand",
		"i1,jk->i": "not a label",
	} {
		mb := newMod()
		rt := ir.Tensor(ir.F32, 2)
		mb.fn("main", "public", []ir.Type{ir.Tensor(ir.F32, 2, 2)}, []ir.Type{rt}, func(b *blkB, a []*ir.Value) []*ir.Value {
			if strings.Contains(config, ",") {
				return []*ir.Value{b.v("stablehlo.einsum", rt, ir.Attrs{"einsum_config": ir.StringAttr{Value: config}}, a[0], a[0])}
			}
			return []*ir.Value{b.v("stablehlo.unary_einsum", rt, ir.Attrs{"einsum_config": ir.StringAttr{Value: config}}, a[0])}
		})
		_, err := CompileModule(mb.m, Options{})
		require.ErrorContains(t, err, want, config)
	}
}

func TestTorchIndexSelectIsRewrittenAndMatchesTheDefinition(t *testing.T) {
	for _, tc := range []struct {
		operand, index []int64
		dim, batch     int64
	}{
		{[]int64{4, 3}, []int64{5}, 0, 0},
		{[]int64{2, 4, 3}, []int64{2, 2}, 1, 0},
		{[]int64{2, 4, 3}, []int64{}, 1, 0},
		{[]int64{2, 4, 3}, []int64{2, 5}, 1, 1},
		{[]int64{2, 3, 4, 2}, []int64{2, 3}, 2, 1},
		{[]int64{2, 3, 4}, []int64{2, 3, 2}, 2, 2},
	} {
		t.Run(fmt.Sprintf("%v_%v_dim%d_batch%d", tc.operand, tc.index, tc.dim, tc.batch), func(t *testing.T) {
			x := smallInts(numel(tc.operand), 2)
			for i := range x {
				x[i] = float32(i) // distinct, so a wrong pick shows
			}
			idx := make([]int32, numel(tc.index))
			for i := range idx {
				idx[i] = int32((i*5 + 1) % int(tc.operand[tc.dim]))
			}
			outShape := append(append(append([]int64{}, tc.operand[:tc.dim]...), tc.index[tc.batch:]...), tc.operand[tc.dim+1:]...)
			want := make([]float32, numel(outShape))
			ri := int64(len(tc.index)) - tc.batch
			forEachIndex(outShape, func(o []int64) {
				// o = [b.., before.., i.., after..]
				ii := append(append([]int64{}, o[:tc.batch]...), o[tc.dim:tc.dim+ri]...)
				src := append(append(append([]int64{}, o[:tc.dim]...), int64(idx[flat(tc.index, ii)])), o[tc.dim+ri:]...)
				want[flat(outShape, o)] = x[flat(tc.operand, src)]
			})
			rt := ir.Tensor(ir.F32, outShape...)
			mb := newMod()
			mb.fn("main", "public", []ir.Type{ir.Tensor(ir.F32, tc.operand...), ir.Tensor(ir.S32, tc.index...)}, []ir.Type{rt},
				func(b *blkB, a []*ir.Value) []*ir.Value {
					return []*ir.Value{b.v("stablehlo.torch_index_select", rt,
						ir.Attrs{"dim": ir.IntAttr{Value: tc.dim}, "batch_dims": ir.IntAttr{Value: tc.batch}}, a...)}
				})
			exe := compile(t, mb.m)
			require.Contains(t, exe.PlanText(), "= stablehlo.gather[")
			require.Equal(t, want, toF32(run(t, exe, f32s(x...), i32s(idx...))[0]))
		})
	}
}
