package linalg

import (
	"sync"

	"github.com/gojax/gojax/go/kernels/kernel"
)

// Steps must not allocate per element; scratch buffers (packed panels,
// converted operands) come from pools so that repeated runs reuse them.

type buf[T any] struct {
	s    []T
	pool *sync.Pool
}

func getBuf[T any](p *sync.Pool, n int) *buf[T] {
	b, _ := p.Get().(*buf[T])
	if b == nil {
		b = &buf[T]{pool: p}
	}
	if cap(b.s) < n {
		b.s = kernel.Make[T](n)
	}
	b.s = b.s[:n]
	return b
}

// release returns the buffer to its pool; the caller must not use it after.
func (b *buf[T]) release() { b.pool.Put(b) }

var (
	poolF32  sync.Pool
	poolF64  sync.Pool
	poolI64  sync.Pool
	poolC64  sync.Pool
	poolC128 sync.Pool
)

func f32scratch(n int) *buf[float32]     { return getBuf[float32](&poolF32, n) }
func f64scratch(n int) *buf[float64]     { return getBuf[float64](&poolF64, n) }
func i64scratch(n int) *buf[int64]       { return getBuf[int64](&poolI64, n) }
func c64scratch(n int) *buf[complex64]   { return getBuf[complex64](&poolC64, n) }
func c128scratch(n int) *buf[complex128] { return getBuf[complex128](&poolC128, n) }
