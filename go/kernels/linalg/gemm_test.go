package linalg

import (
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// Every micro-kernel this machine can run (plain Go, AVX2, AVX-512) is
// checked on its own against a float64 reference, and then inside the
// whole dot_general path, so the fallbacks stay tested where init picked a
// faster one.

func refMicro(kc, mr, nr int, a, b []float64, c []float64, ldc int, acc bool) []float64 {
	out := append([]float64(nil), c...)
	for i := 0; i < mr; i++ {
		for j := 0; j < nr; j++ {
			var s float64
			for p := 0; p < kc; p++ {
				s += a[p*mr+i] * b[p*nr+j]
			}
			if acc {
				s += c[i*ldc+j]
			}
			out[i*ldc+j] = s
		}
	}
	return out
}

func TestMicroKernelsAgainstReference(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	for _, kc := range []int{1, 2, 7, 64, 256} {
		for _, acc := range []bool{false, true} {
			for _, uk := range kernelsF32 {
				t.Run(fmt.Sprintf("f32/%s/kc%d/acc%v", uk.name, kc, acc), func(t *testing.T) {
					mr, nr, ldc := uk.mr, uk.nr, uk.nr+3
					a, b := randF32(r, mr*kc), randF32(r, nr*kc)
					c := randF32(r, (mr-1)*ldc+nr+2) // extra tail must stay untouched
					a64, b64, c64 := f64of(a), f64of(b), f64of(c)
					want := refMicro(kc, mr, nr, a64, b64, c64, ldc, acc)
					uk.fn(kc, a, b, c, ldc, acc)
					for i := range c {
						if i%ldc >= nr || i >= (mr-1)*ldc+nr {
							require.Equal(t, float32(c64[i]), c[i], "element %d outside the tile changed", i)
							continue
						}
						require.InDelta(t, want[i], float64(c[i]), 1e-5*math.Sqrt(float64(kc))*4, "element %d", i)
					}
				})
			}
			for _, uk := range kernelsF64 {
				t.Run(fmt.Sprintf("f64/%s/kc%d/acc%v", uk.name, kc, acc), func(t *testing.T) {
					mr, nr, ldc := uk.mr, uk.nr, uk.nr+3
					a, b := randF64(r, mr*kc), randF64(r, nr*kc)
					c := randF64(r, (mr-1)*ldc+nr+2)
					want := refMicro(kc, mr, nr, a, b, c, ldc, acc)
					c0 := append([]float64(nil), c...)
					uk.fn(kc, a, b, c, ldc, acc)
					for i := range c {
						if i%ldc >= nr || i >= (mr-1)*ldc+nr {
							require.Equal(t, c0[i], c[i], "element %d outside the tile changed", i)
							continue
						}
						require.InDelta(t, want[i], c[i], 1e-12*float64(kc), "element %d", i)
					}
				})
			}
		}
	}
}

func f64of(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// withKernels runs fn once per pair of available f32/f64 kernels (paired by
// position, the last of the shorter list repeated).
func withKernels(t *testing.T, fn func(t *testing.T)) {
	old32, old64 := ukF32, ukF64
	defer func() { ukF32, ukF64 = old32, old64 }()
	for i := range max(len(kernelsF32), len(kernelsF64)) {
		ukF32 = kernelsF32[min(i, len(kernelsF32)-1)]
		ukF64 = kernelsF64[min(i, len(kernelsF64)-1)]
		t.Run(ukF32.name+"+"+ukF64.name, fn)
	}
}

func TestDotGeneralEveryKernel(t *testing.T) {
	withKernels(t, func(t *testing.T) {
		r := rand.New(rand.NewSource(7))
		cases := append(append([]dotShapeCase(nil), dotShapeCases...),
			dotShapeCase{"edges", []int64{45, 530}, []int64{530, 77}, dotDims{lhsContract: []int64{1}, rhsContract: []int64{0}}},
			dotShapeCase{"wide", []int64{33, 70}, []int64{70, 1100}, dotDims{lhsContract: []int64{1}, rhsContract: []int64{0}}},
			dotShapeCase{"tall", []int64{700, 20}, []int64{20, 40}, dotDims{lhsContract: []int64{1}, rhsContract: []int64{0}}},
		)
		for _, tc := range cases {
			os := dotOutShape(tc.ls, tc.rs, tc.d)
			attrs := dotAttrs(tc.d.lhsBatch, tc.d.rhsBatch, tc.d.lhsContract, tc.d.rhsContract)
			nl, nr := 1, 1
			for _, x := range tc.ls {
				nl *= int(x)
			}
			for _, x := range tc.rs {
				nr *= int(x)
			}
			k := 1
			for _, x := range tc.d.lhsContract {
				k *= int(tc.ls[x])
			}
			a, b := randF64(r, nl), randF64(r, nr)
			ac, bc := make([]complex128, nl), make([]complex128, nr)
			for i := range a {
				ac[i] = complex(a[i], 0)
			}
			for i := range b {
				bc[i] = complex(b[i], 0)
			}
			want := refDot(tc.ls, tc.rs, os, tc.d, ac, bc)
			op := mkOp("stablehlo.dot_general", []*ir.TensorType{ir.Tensor(ir.F64, tc.ls...), ir.Tensor(ir.F64, tc.rs...)},
				[]*ir.TensorType{ir.Tensor(ir.F64, os...)}, attrs)
			got := bytesF64(runOp(t, fakeCtx{3}, op, f64Bytes(a), f64Bytes(b))[0])
			for i := range got {
				require.InDelta(t, real(want[i]), got[i], 1e-12*float64(k), "%s element %d", tc.name, i)
			}
			a32, b32 := make([]float32, nl), make([]float32, nr)
			for i := range a {
				a32[i] = float32(a[i])
			}
			for i := range b {
				b32[i] = float32(b[i])
			}
			op = mkOp("stablehlo.dot_general", []*ir.TensorType{ir.Tensor(ir.F32, tc.ls...), ir.Tensor(ir.F32, tc.rs...)},
				[]*ir.TensorType{ir.Tensor(ir.F32, os...)}, attrs)
			got32 := bytesF32(runOp(t, fakeCtx{3}, op, f32Bytes(a32), f32Bytes(b32))[0])
			for i := range got32 {
				require.InDelta(t, real(want[i]), float64(got32[i]), 1e-5*math.Sqrt(float64(k))*4, "%s element %d", tc.name, i)
			}
		}
	})
}

// Results must be bit-identical whatever the worker count (and so whatever
// the tiling), for every kernel.
func TestDotGeneralEveryKernelDeterministic(t *testing.T) {
	withKernels(t, func(t *testing.T) {
		r := rand.New(rand.NewSource(2))
		// 300 rows end in a 6-row edge panel, 256 in a 4-row one (the
		// edge kernel's), wherever the tiling puts the row splits.
		for _, m := range []int64{300, 256} {
			testDeterministic(t, r, m)
		}
	})
}

func testDeterministic(t *testing.T, r *rand.Rand, m int64) {
	ls, rs := []int64{2, m, 600}, []int64{2, 600, 530}
	d := dotDims{[]int64{0}, []int64{0}, []int64{2}, []int64{1}}
	a, b := randF32(r, int(2*m*600)), randF32(r, 2*600*530)
	for _, et := range []ir.ElemType{ir.F32, ir.F64} {
		x, y := f32Bytes(a), f32Bytes(b)
		if et == ir.F64 {
			x, y = f64Bytes(f64of(a)), f64Bytes(f64of(b))
		}
		op := mkOp("stablehlo.dot_general", []*ir.TensorType{ir.Tensor(et, ls...), ir.Tensor(et, rs...)},
			[]*ir.TensorType{ir.Tensor(et, dotOutShape(ls, rs, d)...)}, dotAttrs(d.lhsBatch, d.rhsBatch, d.lhsContract, d.rhsContract))
		// GOMAXPROCS changes the tiling as well as the worker count.
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
		ref := runOp(t, fakeCtx{1}, op, x, y)[0]
		for _, w := range []int{2, 3, 8} {
			runtime.GOMAXPROCS(w)
			got := runOp(t, fakeCtx{w}, op, x, y)[0]
			require.Equal(t, ref, got, "%s m=%d workers=%d", et, m, w)
		}
	}
}

// bf16 operands are widened while packing; widening is exact, so the
// result must be bit-identical to the f32 product of the widened values,
// for bf16×bf16 and mixed bf16×f32, and a bf16 result its rounding.
func TestDotGeneralBF16MatchesF32(t *testing.T) {
	oldBF := ukBF16
	ukBF16 = nil // the widening path; the pair kernels are tested below
	defer func() { ukBF16 = oldBF }()
	withKernels(t, func(t *testing.T) {
		r := rand.New(rand.NewSource(9))
		for _, tc := range append(append([]dotShapeCase(nil), dotShapeCases...),
			dotShapeCase{"edges", []int64{45, 530}, []int64{530, 77}, dotDims{lhsContract: []int64{1}, rhsContract: []int64{0}}}) {
			os := dotOutShape(tc.ls, tc.rs, tc.d)
			attrs := dotAttrs(tc.d.lhsBatch, tc.d.rhsBatch, tc.d.lhsContract, tc.d.rhsContract)
			nl, nr := 1, 1
			for _, x := range tc.ls {
				nl *= int(x)
			}
			for _, x := range tc.rs {
				nr *= int(x)
			}
			ah, bh := make([]byte, 2*nl), make([]byte, 2*nr)
			fromF32(ah, randF32(r, nl), ir.BF16)
			fromF32(bh, randF32(r, nr), ir.BF16)
			af, bf := make([]float32, nl), make([]float32, nr)
			toF32(af, ah, ir.BF16)
			toF32(bf, bh, ir.BF16)
			run := func(le, re, oe ir.ElemType, x, y []byte) []byte {
				op := mkOp("stablehlo.dot_general", []*ir.TensorType{ir.Tensor(le, tc.ls...), ir.Tensor(re, tc.rs...)},
					[]*ir.TensorType{ir.Tensor(oe, os...)}, attrs)
				return runOp(t, fakeCtx{3}, op, x, y)[0]
			}
			want := run(ir.F32, ir.F32, ir.F32, f32Bytes(af), f32Bytes(bf))
			require.Equal(t, want, run(ir.BF16, ir.BF16, ir.F32, ah, bh), "%s bf16×bf16", tc.name)
			require.Equal(t, want, run(ir.BF16, ir.F32, ir.F32, ah, f32Bytes(bf)), "%s bf16×f32", tc.name)
			require.Equal(t, want, run(ir.F32, ir.BF16, ir.F32, f32Bytes(af), bh), "%s f32×bf16", tc.name)
			wantH := make([]byte, len(want)/2)
			fromF32(wantH, bytesF32(want), ir.BF16)
			require.Equal(t, wantH, run(ir.BF16, ir.BF16, ir.BF16, ah, bh), "%s bf16 result", tc.name)
		}
	})
}

// The bf16 dot-product kernels add each k pair's products high element
// first and flush subnormals, so they are compared with a tolerance, not
// bit for bit; results must still not depend on the worker count.
func TestBF16PairKernels(t *testing.T) {
	if len(kernelsBF16) == 0 {
		t.Skip("no bf16 dot-product kernel on this machine")
	}
	for i := range kernelsBF16 {
		t.Run(kernelsBF16[i].name, func(t *testing.T) { testBF16PairKernel(t, &kernelsBF16[i]) })
	}
}

// A tile kernel's panels (packAPairsRows, padded packBPairs) through the
// whole GEMM, on every machine: kern32x32TileRef computes what the AMX
// kernel's tile instructions compute, from the same packed panels.
func TestTilePairPanels(t *testing.T) {
	uk := microKernel[float32]{name: "tile-ref-32x32", mr: 32, nr: 32, fn: kern32x32TileRef, pairs: true, tilePairs: true}
	testBF16PairKernel(t, &uk)
}

// kern32x32TileRef is the AMX kernel's arithmetic in Go: per 16-pair
// step, C[i][j] += Σ_q A-row pair q · B-column pair q (high products
// first, as the tiles add them).
func kern32x32TileRef(kp int, a, b, c []float32, ldc int, acc bool) {
	if kp%tileStep != 0 {
		panic("tile kernel given a k not padded to whole steps")
	}
	au, bu := asU32(a), asU32(b)
	for i := 0; i < 32; i++ {
		for j := 0; j < 32; j++ {
			var s float32
			if acc {
				s = c[i*ldc+j]
			}
			for q := 0; q < kp; q++ {
				av := au[(q/tileStep)*tileStep*32+i*tileStep+q%tileStep]
				bv := bu[q*32+j]
				s += widenBF16(uint16(av>>16)) * widenBF16(uint16(bv>>16))
				s += widenBF16(uint16(av)) * widenBF16(uint16(bv))
			}
			c[i*ldc+j] = s
		}
	}
}

func testBF16PairKernel(t *testing.T, uk *microKernel[float32]) {
	oldBF := ukBF16
	defer func() { ukBF16 = oldBF }()
	ukBF16 = uk
	r := rand.New(rand.NewSource(13))
	cases := append(append([]dotShapeCase(nil), dotShapeCases...),
		dotShapeCase{"edges-oddk", []int64{45, 531}, []int64{531, 77}, dotDims{lhsContract: []int64{1}, rhsContract: []int64{0}}},
		dotShapeCase{"k1", []int64{20, 1}, []int64{1, 40}, dotDims{lhsContract: []int64{1}, rhsContract: []int64{0}}},
		dotShapeCase{"k3", []int64{20, 3}, []int64{3, 40}, dotDims{lhsContract: []int64{1}, rhsContract: []int64{0}}},
		dotShapeCase{"deep", []int64{30, 1100}, []int64{1100, 50}, dotDims{lhsContract: []int64{1}, rhsContract: []int64{0}}})
	for _, tc := range cases {
		os := dotOutShape(tc.ls, tc.rs, tc.d)
		attrs := dotAttrs(tc.d.lhsBatch, tc.d.rhsBatch, tc.d.lhsContract, tc.d.rhsContract)
		nl, nr := 1, 1
		for _, x := range tc.ls {
			nl *= int(x)
		}
		for _, x := range tc.rs {
			nr *= int(x)
		}
		k := 1
		for _, x := range tc.d.lhsContract {
			k *= int(tc.ls[x])
		}
		ah, bh := make([]byte, 2*nl), make([]byte, 2*nr)
		fromF32(ah, randF32(r, nl), ir.BF16)
		fromF32(bh, randF32(r, nr), ir.BF16)
		af, bf := make([]float32, nl), make([]float32, nr)
		toF32(af, ah, ir.BF16)
		toF32(bf, bh, ir.BF16)
		ac, bc := make([]complex128, nl), make([]complex128, nr)
		for i := range af {
			ac[i] = complex(float64(af[i]), 0)
		}
		for i := range bf {
			bc[i] = complex(float64(bf[i]), 0)
		}
		want := refDot(tc.ls, tc.rs, os, tc.d, ac, bc)
		op := mkOp("stablehlo.dot_general", []*ir.TensorType{ir.Tensor(ir.BF16, tc.ls...), ir.Tensor(ir.BF16, tc.rs...)},
			[]*ir.TensorType{ir.Tensor(ir.F32, os...)}, attrs)
		ref := runOp(t, fakeCtx{1}, op, ah, bh)[0]
		got := bytesF32(ref)
		for i := range got {
			require.InDelta(t, real(want[i]), float64(got[i]), 1e-5*math.Sqrt(float64(k))*4, "%s element %d", tc.name, i)
		}
		func() {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
			require.Equal(t, ref, runOp(t, fakeCtx{3}, op, ah, bh)[0], "%s: workers changed the result", tc.name)
		}()
	}
}

// The AVX-512 transposing pack must give the Go loop's panel exactly.
func TestPackA14TransMatchesGo(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for _, k := range []int{1, 15, 16, 17, 40, 512} {
		a := randF32(r, 20*600)
		rows := make([]int, 14)
		for i := range rows {
			rows[i] = r.Intn(20) * 590
		}
		for _, ld := range []bool{false, true} {
			want, got := make([]float32, 14*k), make([]float32, 14*k)
			run := func(dst []float32) {
				if ld {
					packA14ld(dst, a, 590, k)
				} else {
					packA14(dst, a, rows, 5, k)
				}
			}
			old := packTransOK
			packTransOK = false
			run(want)
			packTransOK = old
			run(got)
			require.Equal(t, want, got, "k=%d ld=%v", k, ld)
		}
	}
}

func TestPackAPairs14TransMatchesGo(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	a := make([]uint16, 20*600)
	for i := range a {
		a[i] = uint16(r.Intn(1 << 16))
	}
	for _, k := range []int{2, 31, 32, 33, 64, 100, 512} {
		rows := make([]int, 14)
		for i := range rows {
			rows[i] = r.Intn(20) * 590
		}
		kp := (k + 1) / 2
		want, got := make([]uint32, 14*kp), make([]uint32, 14*kp)
		old := packTransOK
		packTransOK = false
		packAPairs14(want, a, rows, 6, k)
		packTransOK = old
		packAPairs14(got, a, rows, 6, k)
		require.Equal(t, want, got, "k=%d", k)
	}
}

// The vector micro-kernels (AVX2 4×16, AVX-512 14×32 and their f64 forms)
// each fuse every product into a sequential sum over k, so a dot gives the
// same bits whichever of them the CPU picks: an AMD or Intel machine with
// or without AVX-512 computes what this one does. Only the plain-Go kernel,
// which rounds each product, may differ (within a dot's error bound).
func TestDotGeneralVectorKernelsAgree(t *testing.T) {
	if len(kernelsF32) < 3 {
		t.Skip("needs both AVX2 and AVX-512 kernels (GOJAX_VECTOR or this CPU leaves fewer)")
	}
	old32, old64 := ukF32, ukF64
	defer func() { ukF32, ukF64 = old32, old64 }()
	r := rand.New(rand.NewSource(11))
	cases := append(append([]dotShapeCase(nil), dotShapeCases...),
		dotShapeCase{"edges", []int64{45, 530}, []int64{530, 77}, dotDims{lhsContract: []int64{1}, rhsContract: []int64{0}}},
		dotShapeCase{"deep", []int64{30, 2100}, []int64{2100, 50}, dotDims{lhsContract: []int64{1}, rhsContract: []int64{0}}})
	for _, tc := range cases {
		nl, nr := 1, 1
		for _, x := range tc.ls {
			nl *= int(x)
		}
		for _, x := range tc.rs {
			nr *= int(x)
		}
		a, b := randF32(r, nl), randF32(r, nr)
		attrs := dotAttrs(tc.d.lhsBatch, tc.d.rhsBatch, tc.d.lhsContract, tc.d.rhsContract)
		for _, et := range []ir.ElemType{ir.F32, ir.F64} {
			x, y := f32Bytes(a), f32Bytes(b)
			if et == ir.F64 {
				x, y = f64Bytes(f64of(a)), f64Bytes(f64of(b))
			}
			op := mkOp("stablehlo.dot_general", []*ir.TensorType{ir.Tensor(et, tc.ls...), ir.Tensor(et, tc.rs...)},
				[]*ir.TensorType{ir.Tensor(et, dotOutShape(tc.ls, tc.rs, tc.d)...)}, attrs)
			var ref []byte
			for i := 1; i < len(kernelsF32); i++ {
				ukF32, ukF64 = kernelsF32[i], kernelsF64[i]
				got := runOp(t, fakeCtx{3}, op, x, y)[0]
				if ref == nil {
					ref = got
					continue
				}
				require.Equal(t, ref, got, "%s %s: %s differs from %s", tc.name, et, ukF32.name, kernelsF32[1].name)
			}
		}
	}
}
