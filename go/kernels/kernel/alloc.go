package kernel

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/gojax/gojax/go/devmem"
)

// Go's runtime ends the process when the system refuses it memory, so a
// Go-heap allocation whose size a program decides (kernel scratch, a
// converted operand, a compile-time table) is made with Make instead of
// make: Make first checks the size against the memory limit and what the
// host can give (devmem.CheckHostBytes) and, when there is no room, panics
// with an *AllocError. The compiler recovers it around every step and every
// Lower and reports it as that op's RESOURCE_EXHAUSTED error; a parallel
// chunk's panic reaches the step through the worker pool. A panic is used so
// that the many scratch sites deep inside kernels need no error plumbing;
// the price is that Make must not be called while holding a lock or halfway
// through updating shared state.

// AllocError is the panic value of a Make that found no room.
type AllocError struct {
	Bytes int64
	Err   error // a *devmem.OutOfMemoryError
}

func (e *AllocError) Error() string {
	return fmt.Sprintf("scratch memory of %d bytes: %v", e.Bytes, e.Err)
}

func (e *AllocError) Unwrap() error { return e.Err }

// Make returns make([]T, n) once the memory limit and the host have room
// for it; else it panics with an *AllocError (see above).
func Make[T any, N ~int | ~int64](n N) []T {
	var zero T
	size := int64(unsafe.Sizeof(zero))
	bytes := int64(n) * size
	if n < 0 || (size > 0 && int64(n) > (1<<62)/size) || int64(n) > int64(^uint(0)>>1) {
		bytes = 1 << 62
		panic(&AllocError{Bytes: bytes, Err: &devmem.OutOfMemoryError{Bytes: int(min(bytes, int64(^uint(0)>>1)))}})
	}
	if err := devmem.CheckHostBytes(bytes); err != nil {
		panic(&AllocError{Bytes: bytes, Err: err})
	}
	return make([]T, n)
}

// Need panics like Make when bytes more would not fit: for a table made
// of many small allocations whose total a program decides.
func Need(bytes int64) {
	if err := devmem.CheckHostBytes(bytes); err != nil {
		panic(&AllocError{Bytes: bytes, Err: err})
	}
}

// Recovered returns the *AllocError inside r, a value recover returned (a
// worker pool passes it on wrapped in an error), and false for anything
// else, which the caller should panic with again.
func Recovered(r any) (error, bool) {
	err, ok := r.(error)
	if !ok {
		return nil, false
	}
	var ae *AllocError
	if errors.As(err, &ae) {
		return ae, true
	}
	return nil, false
}

// Guard runs fn, returning Make's out-of-memory panic as an error; any
// other panic goes on.
func Guard[R any](fn func() (R, error)) (res R, err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := Recovered(r)
			if !ok {
				panic(r)
			}
			err = e
		}
	}()
	return fn()
}
