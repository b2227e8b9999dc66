package linalg

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
)

// i8Values fills n elements of an s8 or u8 operand by pattern: random over
// the whole range, or the extremes everywhere (the largest sums and the
// offset corrections at their limits).
func i8Values(r *rand.Rand, t ir.ElemType, n int, pattern string) ([]byte, []complex128) {
	lo, hi := -128, 127
	if t == ir.U8 {
		lo, hi = 0, 255
	}
	raw, ref := make([]byte, n), make([]complex128, n)
	for i := range raw {
		var v int
		switch pattern {
		case "random":
			v = lo + r.Intn(hi-lo+1)
		case "min":
			v = lo
		case "max":
			v = hi
		case "alternate":
			v = []int{lo, hi}[i%2]
		}
		raw[i], ref[i] = byte(v), complex(float64(v), 0)
	}
	return raw, ref
}

// Every 8-bit GEMM micro-kernel (plain Go, AVX2, VNNI: whatever this CPU
// runs) gives the exact wrapped sums of the int64 reference, for s8 and u8
// operands in both positions, transposed and batched layouts, edge tiles and
// k not a multiple of the k group, into 32-, 16- and 64-bit results.
func TestI8GEMMExactEveryKernel(t *testing.T) {
	defer func(uk i8Kernel) { ukI8 = uk }(ukI8)
	cases := append([]dotShapeCase{
		{"k1", []int64{17, 1}, []int64{1, 33}, dotDims{lhsContract: []int64{1}, rhsContract: []int64{0}}},
		{"odd", []int64{29, 515}, []int64{515, 67}, dotDims{lhsContract: []int64{1}, rhsContract: []int64{0}}},
	}, dotShapeCases...)
	r := rand.New(rand.NewSource(16))
	types := [][3]ir.ElemType{
		{ir.S8, ir.S8, ir.S32}, {ir.U8, ir.S8, ir.S32}, {ir.S8, ir.U8, ir.U32},
		{ir.U8, ir.U8, ir.S64}, {ir.S8, ir.S8, ir.S16}, {ir.S8, ir.S8, ir.S8},
	}
	for _, tc := range cases {
		os := dotOutShape(tc.ls, tc.rs, tc.d)
		attrs := dotAttrs(tc.d.lhsBatch, tc.d.rhsBatch, tc.d.lhsContract, tc.d.rhsContract)
		nl, nr := ir.Tensor(ir.S8, tc.ls...).NumElements(), ir.Tensor(ir.S8, tc.rs...).NumElements()
		for ti, ty := range types {
			for _, pat := range []string{"random", "min", "max", "alternate"} {
				if pat != "random" && ti > 3 {
					continue
				}
				a, ac := i8Values(r, ty[0], int(nl), pat)
				b, bc := i8Values(r, ty[1], int(nr), pat)
				want := refDot(tc.ls, tc.rs, os, tc.d, ac, bc)
				op := mkOp("stablehlo.dot_general", []*ir.TensorType{ir.Tensor(ty[0], tc.ls...), ir.Tensor(ty[1], tc.rs...)},
					[]*ir.TensorType{ir.Tensor(ty[2], os...)}, attrs)
				for _, uk := range kernelsI8 {
					t.Run(fmt.Sprintf("%s/%sx%s-%s/%s/%s", tc.name, ty[0], ty[1], ty[2], pat, uk.name), func(t *testing.T) {
						ukI8 = uk
						out := runOp(t, fakeCtx{3}, op, a, b)[0]
						bits := ty[2].Bits()
						for i := range want {
							w := int64(real(want[i]))
							if bits < 64 {
								// Wrap to the result width, as the int64 loop's result is.
								w = w << (64 - bits) >> (64 - bits)
							}
							got := loadInt(ty[2], out, i)
							if ty[2] == ir.U32 {
								got = int64(int32(got))
							}
							require.Equal(t, w, got, "element %d", i)
						}
					})
				}
			}
		}
	}
}

// 64-bit results whose sums could leave int32 keep the exact float64 path.
func TestUseI8GEMM(t *testing.T) {
	require.True(t, useI8GEMM(ir.S8, ir.S8, ir.S32, 1<<20))
	require.True(t, useI8GEMM(ir.U8, ir.S8, ir.S64, maxI8K))
	require.False(t, useI8GEMM(ir.U8, ir.U8, ir.S64, maxI8K+1))
	require.False(t, useI8GEMM(ir.S16, ir.S8, ir.S32, 8))
	require.False(t, useI8GEMM(ir.S8, ir.S8, ir.Pred, 8))
	require.False(t, useI8GEMM(ir.S8, ir.S8, ir.S32, 0))
}

// BenchmarkI8GEMM512 times a 512³ s8·s8 → s32 product with each micro-kernel.
func BenchmarkI8GEMM512(b *testing.B) {
	defer func(uk i8Kernel) { ukI8 = uk }(ukI8)
	r := rand.New(rand.NewSource(1))
	d := dotDims{lhsContract: []int64{1}, rhsContract: []int64{0}}
	x, _ := i8Values(r, ir.S8, 512*512, "random")
	y, _ := i8Values(r, ir.S8, 512*512, "random")
	op := mkOp("stablehlo.dot_general", []*ir.TensorType{ir.Tensor(ir.S8, 512, 512), ir.Tensor(ir.S8, 512, 512)},
		[]*ir.TensorType{ir.Tensor(ir.S32, 512, 512)}, dotAttrs(d.lhsBatch, d.rhsBatch, d.lhsContract, d.rhsContract))
	for _, uk := range kernelsI8 {
		b.Run(uk.name, func(b *testing.B) {
			ukI8 = uk
			benchStep(b, op, [][]byte{x, y}, 2*512*512*512)
		})
	}
}
