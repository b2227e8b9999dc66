package reduce

import (
	"math"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/lowerutil"
	"github.com/gojax/gojax/go/kernels/kernel"
)

func init() {
	kernel.Register("stablehlo.batch_norm_inference", lowerBatchNorm)
	kernel.Register("stablehlo.batch_norm_training", lowerBatchNorm)
	kernel.Register("stablehlo.batch_norm_grad", lowerBatchNorm)
}

// bnLayout views the operand as [outer, F, inner] around feature_index.
type bnLayout struct {
	outer, f, inner int
	et              ir.ElemType
	eps             float64
}

// at returns the element index of (o, c, i).
func (l *bnLayout) at(o, c, i int) int { return (o*l.f+c)*l.inner + i }

// lowerBatchNorm implements the three batch_norm ops per the StableHLO spec,
// computing in float64 and rounding results to the element type. Statistics
// are biased (divide by N); each feature is reduced sequentially in row-major
// order, features in parallel, so results do not depend on the split.
func lowerBatchNorm(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	x, err := lowerutil.TensorOperand(op, 0)
	if err != nil {
		return nil, err
	}
	if !(x.Elem == ir.F32 || x.Elem == ir.F64 || x.Elem == ir.F16 || x.Elem == ir.BF16) {
		return nil, op.Errorf("element type %s is not supported (f16, bf16, f32, f64)", x.Elem)
	}
	fi, err := lowerutil.IntAttr(op, "feature_index")
	if err != nil {
		return nil, err
	}
	if fi < 0 || int(fi) >= x.Rank() {
		return nil, op.Errorf("feature_index %d out of range for %s", fi, x)
	}
	eps, ok := op.Attrs.Float("epsilon")
	if !ok {
		return nil, op.Errorf("missing float attribute epsilon")
	}
	// epsilon is an f32 attribute in StableHLO whatever the operand type.
	l := &bnLayout{f: int(x.Shape[fi]), outer: 1, inner: 1, et: x.Elem, eps: float64(float32(eps))}
	for _, d := range x.Shape[:fi] {
		l.outer *= int(d)
	}
	for _, d := range x.Shape[fi+1:] {
		l.inner *= int(d)
	}
	arity := map[string][2]int{ // operands, results
		"stablehlo.batch_norm_inference": {5, 1},
		"stablehlo.batch_norm_training":  {3, 3},
		"stablehlo.batch_norm_grad":      {5, 3},
	}[op.Name]
	wantOps, wantRes := arity[0], arity[1]
	if len(op.Operands) != wantOps || len(op.Results) != wantRes {
		return nil, op.Errorf("expected %d operands and %d results", wantOps, wantRes)
	}
	feat := ir.Tensor(x.Elem, x.Shape[fi])
	for i := 1; i < len(op.Operands); i++ {
		t, err := lowerutil.TensorOperand(op, i)
		if err != nil {
			return nil, err
		}
		want := feat
		if op.Name == "stablehlo.batch_norm_grad" && i == 4 {
			want = x
		}
		if !t.Equal(want) {
			return nil, op.Errorf("operand %d is %s, want %s", i, t, want)
		}
	}
	for i := range op.Results {
		t, err := lowerutil.TensorResult(op, i)
		if err != nil {
			return nil, err
		}
		want := feat
		if i == 0 {
			want = x
		}
		if !t.Equal(want) {
			return nil, op.Errorf("result %d is %s, want %s", i, t, want)
		}
	}
	n := float64(l.outer * l.inner)
	perFeature := func(fn func(c int)) {
		work := func(lo, hi int) {
			for c := lo; c < hi; c++ {
				fn(c)
			}
		}
		if ctx == nil || l.f < 2 || l.f*l.outer*l.inner < parallelMin {
			work(0, l.f)
		} else {
			ctx.Parallel(l.f, max(1, parallelMin/max(1, l.outer*l.inner)), work)
		}
	}
	get := func(b []byte, i int) float64 { v, _ := floatAt(b, l.et, i); return v }
	put := func(b []byte, i int, v float64) { writeFloat(b, i, l.et, v) }
	// stats returns the mean and biased variance of feature c.
	stats := func(xb []byte, c int) (mean, variance float64) {
		sum := 0.0
		for o := range l.outer {
			for i := range l.inner {
				sum += get(xb, l.at(o, c, i))
			}
		}
		mean = sum / n
		ss := 0.0
		for o := range l.outer {
			for i := range l.inner {
				d := get(xb, l.at(o, c, i)) - mean
				ss += d * d
			}
		}
		return mean, ss / n
	}
	normalize := func(xb, out []byte, c int, scale, offset, mean, variance float64) {
		inv := 1 / math.Sqrt(variance+l.eps)
		for o := range l.outer {
			for i := range l.inner {
				k := l.at(o, c, i)
				put(out, k, scale*(get(xb, k)-mean)*inv+offset)
			}
		}
	}
	switch op.Name {
	case "stablehlo.batch_norm_inference":
		return func(ins, outs [][]byte) error {
			perFeature(func(c int) {
				normalize(ins[0], outs[0], c, get(ins[1], c), get(ins[2], c), get(ins[3], c), get(ins[4], c))
			})
			return nil
		}, nil
	case "stablehlo.batch_norm_training":
		return func(ins, outs [][]byte) error {
			if n == 0 {
				for c := range l.f {
					put(outs[1], c, math.NaN())
					put(outs[2], c, math.NaN())
				}
				return nil
			}
			perFeature(func(c int) {
				mean, variance := stats(ins[0], c)
				// The normalization uses the statistics as rounded to the element type.
				put(outs[1], c, mean)
				put(outs[2], c, variance)
				normalize(ins[0], outs[0], c, get(ins[1], c), get(ins[2], c), get(outs[1], c), get(outs[2], c))
			})
			return nil
		}, nil
	}
	// batch_norm_grad(operand, scale, mean, variance, grad_output).
	return func(ins, outs [][]byte) error {
		xb, gb := ins[0], ins[4]
		perFeature(func(c int) {
			mean, variance, scale := get(ins[2], c), get(ins[3], c), get(ins[1], c)
			inv := 1 / math.Sqrt(variance+l.eps)
			sumG, sumGX := 0.0, 0.0
			for o := range l.outer {
				for i := range l.inner {
					k := l.at(o, c, i)
					g := get(gb, k)
					sumG += g
					sumGX += g * (get(xb, k) - mean) * inv
				}
			}
			put(outs[1], c, sumGX)
			put(outs[2], c, sumG)
			if n == 0 {
				return
			}
			meanG, meanGX := sumG/n, sumGX/n
			for o := range l.outer {
				for i := range l.inner {
					k := l.at(o, c, i)
					xn := (get(xb, k) - mean) * inv
					put(outs[0], k, scale*inv*(get(gb, k)-meanG-xn*meanGX))
				}
			}
		})
		return nil
	}, nil
}
