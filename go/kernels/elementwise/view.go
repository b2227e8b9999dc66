package elementwise

import "unsafe"

// Numeric constraints used by the typed loops. Each instantiation has its own
// GC shape (distinct underlying types), so operators compile to direct
// machine instructions rather than dictionary calls.
type (
	sint interface {
		~int8 | ~int16 | ~int32 | ~int64
	}
	uint_ interface {
		~uint8 | ~uint16 | ~uint32 | ~uint64
	}
	integer interface{ sint | uint_ }
	float   interface{ ~float32 | ~float64 }
	real_   interface{ integer | float }
	cplx    interface{ ~complex64 | ~complex128 }
	number  interface{ real_ | cplx }
)

// view reinterprets a byte buffer as a slice of T. Buffers come from the
// planner (64-byte aligned) or from constants; x86-64 and arm64 tolerate the
// rare unaligned case.
func view[T any](b []byte) []T {
	if len(b) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/int(unsafe.Sizeof(z)))
}

// bytesOf is the inverse of view.
func bytesOf[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(z)))
}
