//go:build goexperiment.simd && amd64

package linalg

import "simd/archsimd"

// AVX2+FMA micro-kernels, used when the binary is built with
// GOEXPERIMENT=simd and the CPU has both features: 4×16 for f32 (eight
// 8-lane accumulators) and 4×8 for f64 (eight 4-lane accumulators), leaving
// registers for two B vectors and a broadcast A element. Products are fused
// (FMA), so results differ from the plain-Go kernels in the last bit; they
// are still independent of the thread count.

func init() {
	if archsimd.X86.AVX2() && archsimd.X86.FMA() {
		ukF32 = microKernel[float32]{mr: 4, nr: 16, fn: kern4x16F32AVX2}
		ukF64 = microKernel[float64]{mr: 4, nr: 8, fn: kern4x8F64AVX2}
	}
}

func kern4x16F32AVX2(kc int, a, b, c []float32, ldc int, acc bool) {
	var c00, c01, c10, c11, c20, c21, c30, c31 archsimd.Float32x8
	a = a[:4*kc]
	b = b[:16*kc]
	for p := 0; p < kc; p++ {
		bp := b[16*p : 16*p+16 : 16*p+16]
		b0 := archsimd.LoadFloat32x8((*[8]float32)(bp[0:8]))
		b1 := archsimd.LoadFloat32x8((*[8]float32)(bp[8:16]))
		ap := a[4*p : 4*p+4 : 4*p+4]
		a0 := archsimd.BroadcastFloat32x8(ap[0])
		c00 = a0.MulAdd(b0, c00)
		c01 = a0.MulAdd(b1, c01)
		a1 := archsimd.BroadcastFloat32x8(ap[1])
		c10 = a1.MulAdd(b0, c10)
		c11 = a1.MulAdd(b1, c11)
		a2 := archsimd.BroadcastFloat32x8(ap[2])
		c20 = a2.MulAdd(b0, c20)
		c21 = a2.MulAdd(b1, c21)
		a3 := archsimd.BroadcastFloat32x8(ap[3])
		c30 = a3.MulAdd(b0, c30)
		c31 = a3.MulAdd(b1, c31)
	}
	store := func(row []float32, lo, hi archsimd.Float32x8) {
		p0, p1 := (*[8]float32)(row[0:8]), (*[8]float32)(row[8:16])
		if acc {
			lo = lo.Add(archsimd.LoadFloat32x8(p0))
			hi = hi.Add(archsimd.LoadFloat32x8(p1))
		}
		lo.Store(p0)
		hi.Store(p1)
	}
	store(c[0:16], c00, c01)
	store(c[ldc:ldc+16], c10, c11)
	store(c[2*ldc:2*ldc+16], c20, c21)
	store(c[3*ldc:3*ldc+16], c30, c31)
}

func kern4x8F64AVX2(kc int, a, b, c []float64, ldc int, acc bool) {
	var c00, c01, c10, c11, c20, c21, c30, c31 archsimd.Float64x4
	a = a[:4*kc]
	b = b[:8*kc]
	for p := 0; p < kc; p++ {
		bp := b[8*p : 8*p+8 : 8*p+8]
		b0 := archsimd.LoadFloat64x4((*[4]float64)(bp[0:4]))
		b1 := archsimd.LoadFloat64x4((*[4]float64)(bp[4:8]))
		ap := a[4*p : 4*p+4 : 4*p+4]
		a0 := archsimd.BroadcastFloat64x4(ap[0])
		c00 = a0.MulAdd(b0, c00)
		c01 = a0.MulAdd(b1, c01)
		a1 := archsimd.BroadcastFloat64x4(ap[1])
		c10 = a1.MulAdd(b0, c10)
		c11 = a1.MulAdd(b1, c11)
		a2 := archsimd.BroadcastFloat64x4(ap[2])
		c20 = a2.MulAdd(b0, c20)
		c21 = a2.MulAdd(b1, c21)
		a3 := archsimd.BroadcastFloat64x4(ap[3])
		c30 = a3.MulAdd(b0, c30)
		c31 = a3.MulAdd(b1, c31)
	}
	store := func(row []float64, lo, hi archsimd.Float64x4) {
		p0, p1 := (*[4]float64)(row[0:4]), (*[4]float64)(row[4:8])
		if acc {
			lo = lo.Add(archsimd.LoadFloat64x4(p0))
			hi = hi.Add(archsimd.LoadFloat64x4(p1))
		}
		lo.Store(p0)
		hi.Store(p1)
	}
	store(c[0:8], c00, c01)
	store(c[ldc:ldc+8], c10, c11)
	store(c[2*ldc:2*ldc+8], c20, c21)
	store(c[3*ldc:3*ldc+8], c30, c31)
}
