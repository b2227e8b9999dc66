// Package capi is gojax's C boundary: the PJRT C API 0.114 function table.
// Every slot is a C-callable function: the error functions are plain C
// (capi.c), the rest are exported Go functions named gojax_<slot> that check
// their arguments, recover panics into PJRT errors and call go/engine.
package capi

/*
#cgo CFLAGS: -O2 -Wall
#cgo LDFLAGS: -lpthread
#include "gojax_capi.h"
*/
import "C"

import (
	"fmt"
	"runtime/cgo"
	"unsafe"

	"github.com/gojax/gojax/go/engine"
)

//go:generate go run ./internal/gen -out pjrt_c_api.h -slots pjrt_slots.h

// APIPointer returns the address of the static PJRT_Api table (what
// GetPjrtApi returns), for the Python side to wrap in a "pjrt_c_api" capsule.
func APIPointer() uintptr { return uintptr(unsafe.Pointer(C.gojax_api())) }

// GetPjrtApi is the symbol JAX looks up after dlopen.
//
//export GetPjrtApi
func GetPjrtApi() *C.PJRT_Api { return C.gojax_api() }

type pjrtErr = *C.PJRT_Error

// newErr builds a C error; C copies the message.
func newErr(code engine.Code, msg string) pjrtErr {
	if code == engine.CodeOK {
		code = engine.CodeUnknown
	}
	return C.gojax_new_error(C.int(code), (*C.char)(unsafe.Pointer(unsafe.StringData(msg))), C.size_t(len(msg)))
}

func errf(code engine.Code, fn, format string, args ...any) pjrtErr {
	return newErr(code, fn+": "+fmt.Sprintf(format, args...))
}

// fromErr converts a Go error, prefixing the PJRT function name.
func fromErr(fn string, err error) pjrtErr {
	if err == nil {
		return nil
	}
	return newErr(engine.CodeOf(err), fn+": "+err.Error())
}

// eventErr converts an event's error (no function prefix: it belongs to the
// operation that failed).
func eventErr(err error) pjrtErr {
	if err == nil {
		return nil
	}
	return newErr(engine.CodeOf(err), err.Error())
}

func unimplemented(fn string) pjrtErr {
	return newErr(engine.CodeUnimplemented, fn+" is not implemented by gojax")
}

// guard turns a panic in an entry point into an INTERNAL error.
func guard(fn string, ret *pjrtErr) {
	if r := recover(); r != nil {
		*ret = errf(engine.CodeInternal, fn, "internal error: %v", r)
	}
}

// checkArgs rejects NULL args and a caller struct shorter than need bytes.
func checkArgs(fn string, args unsafe.Pointer, need C.size_t) pjrtErr {
	if args == nil {
		return errf(engine.CodeInvalidArgument, fn, "args is NULL")
	}
	if got := *(*C.size_t)(args); got < need {
		return errf(engine.CodeInvalidArgument, fn, "args->struct_size is %d, gojax needs at least %d (framework older than the fields this call uses)", got, need)
	}
	return nil
}

// has reports whether the caller's struct (of size structSize) covers a field
// ending at end, for fields added after the ones a call requires.
func has(structSize C.size_t, off, size uintptr) bool { return uintptr(structSize) >= off+size }

func newHandle(v any) C.uintptr_t { return C.uintptr_t(cgo.NewHandle(v)) }

// value resolves a handle; a stale or forged handle becomes an error.
func value[T any](fn, what string, h C.uintptr_t) (v T, e pjrtErr) {
	defer func() {
		if r := recover(); r != nil {
			e = errf(engine.CodeInvalidArgument, fn, "invalid or destroyed %s handle", what)
		}
	}()
	if h == 0 {
		return v, errf(engine.CodeInvalidArgument, fn, "invalid or destroyed %s handle", what)
	}
	x, ok := cgo.Handle(h).Value().(T)
	if !ok {
		return v, errf(engine.CodeInvalidArgument, fn, "handle is not a %s", what)
	}
	return x, nil
}

func deleteHandle(h C.uintptr_t) {
	if h != 0 {
		cgo.Handle(h).Delete()
	}
}

// cAlloc returns zeroed C memory for n values of T.
func cAlloc[T any](n int) *T {
	var z T
	size := unsafe.Sizeof(z) * uintptr(max(n, 1))
	p := C.calloc(1, C.size_t(size))
	if p == nil {
		panic("out of C memory")
	}
	return (*T)(p)
}

func cSlice[T any](p *T, n int) []T { return unsafe.Slice(p, n) }

func cFree[T any](p *T) {
	if p != nil {
		C.free(unsafe.Pointer(p))
	}
}

// cstr is a NUL-terminated C copy of s with its length.
type cstr struct {
	p *C.char
	n C.size_t
}

func newCstr(s string) cstr { return cstr{C.CString(s), C.size_t(len(s))} }
func (s cstr) free()        { cFree(s.p) }

// goString copies a C (pointer, size) string.
func goString(p *C.char, n C.size_t) string {
	if p == nil || n == 0 {
		return ""
	}
	return C.GoStringN(p, C.int(n))
}

// goBytes views C bytes without copying.
func goBytes(p unsafe.Pointer, n C.size_t) []byte {
	if p == nil || n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(p), int(n))
}

func goInt64s(p *C.int64_t, n C.size_t) []int64 {
	if p == nil || n == 0 {
		return nil
	}
	return append([]int64(nil), unsafe.Slice((*int64)(unsafe.Pointer(p)), int(n))...)
}
