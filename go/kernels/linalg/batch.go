package linalg

import (
	"sync"
	"unsafe"

	"github.com/gojax/gojax/go/ir"
)

// Helpers for the batched dense factorizations: operands are converted to
// float64 or complex128 (f32/bf16/f16/c64 data is widened and the results
// rounded back; lu32.go keeps f32 LU, Cholesky and triangular solves in
// float32), each matrix of the batch is processed independently.

var (
	poolGenF64  sync.Pool
	poolGenC128 sync.Pool
)

// sitePool keeps one call site's large scratch apart from the shared pools,
// whose many GEMM-sized buffers would otherwise be handed to it (and a new
// buffer of its size allocated and faulted in on every call).
type sitePool struct{ r, c sync.Pool }

// siteScratch is scratchT from the site's own pool.
func siteScratch[T scalar](sp *sitePool, n int) *buf[T] {
	if isCplx[T]() {
		return getBuf[T](&sp.c, n)
	}
	return getBuf[T](&sp.r, n)
}

func scratchT[T scalar](n int) *buf[T] {
	if isCplx[T]() {
		return getBuf[T](&poolGenC128, n)
	}
	return getBuf[T](&poolGenF64, n)
}

// loadT converts a buffer of element type t into dst.
func loadT[T scalar](dst []T, src []byte, t ir.ElemType) {
	if isCplx[T]() {
		toC128(*(*[]complex128)(unsafe.Pointer(&dst)), src, t)
		return
	}
	toF64(*(*[]float64)(unsafe.Pointer(&dst)), src, t)
}

// storeT converts src into a buffer of element type t.
func storeT[T scalar](dst []byte, src []T, t ir.ElemType) {
	if isCplx[T]() {
		fromC128(dst, *(*[]complex128)(unsafe.Pointer(&src)), t)
		return
	}
	fromF64(dst, *(*[]float64)(unsafe.Pointer(&src)), t)
}

// computeScalarFor says whether element type t is handled as complex128
// (true) or float64 (false); ok is false for types the factorizations do not
// support.
func computeScalarFor(t ir.ElemType) (cplx, ok bool) {
	switch {
	case t.IsComplex():
		return true, true
	case isFloatLike(t):
		return false, narrowConvertible(t)
	}
	return false, false
}

// batchDims splits [..., r, c] into the batch count and the matrix dims.
func batchDims(t *ir.TensorType) (batch, rows, cols int, ok bool) {
	if t.Rank() < 2 {
		return 0, 0, 0, false
	}
	r := t.Rank()
	batch = int(ir.Tensor(ir.F32, t.Shape[:r-2]...).NumElements())
	return batch, int(t.Shape[r-2]), int(t.Shape[r-1]), true
}

// forBatch runs fn over [0, n) batch items, in parallel when the work is big
// enough (cost is a per-item operation count estimate).
func forBatch(par parallelFn, n int, cost int, fn func(lo, hi int)) {
	if n <= 1 || n*cost < 1<<15 {
		fn(0, n)
		return
	}
	grain := max(1, (1<<15)/max(cost, 1))
	par(n, grain, fn)
}

func sameBatch(a, b *ir.TensorType, dropA, dropB int) bool {
	if a.Rank()-dropA != b.Rank()-dropB || a.Rank() < dropA {
		return false
	}
	for i := 0; i < a.Rank()-dropA; i++ {
		if a.Shape[i] != b.Shape[i] {
			return false
		}
	}
	return true
}
