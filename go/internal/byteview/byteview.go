// Package byteview reinterprets byte buffers as slices of fixed-size
// elements, and back, without copying: the view and the buffer share
// memory, so a write through one is seen through the other. It is the one
// place the kernels do this, so that every kernel treats the edges alike:
//
//   - Empty: an empty buffer (nil or length 0) gives a nil slice, and an
//     empty slice gives a nil buffer.
//   - Length: a buffer must hold a whole number of elements; As panics on
//     one that does not, since that means the caller picked the wrong
//     element type or the wrong byte range. Silently dropping the tail
//     would hide such a bug.
//   - Alignment: none is required. Elem admits only types without pointers,
//     which Go allows at any address (its pointer checks skip them), and
//     amd64 and arm64 load and store them at any address. gojax's buffers
//     are 64-byte aligned anyway (devmem and the planner's arena); only
//     constants and sub-ranges of a buffer can start elsewhere.
//
// Elements are in the machine's byte order, little-endian on every target
// gojax builds for, the order of its buffers.
package byteview

import "unsafe"

// Elem is the element types a buffer can be viewed as: fixed-size and free
// of pointers. [2]uint64 stands for any 16-byte element moved as a whole.
type Elem interface {
	~int8 | ~int16 | ~int32 | ~int64 |
		~uint8 | ~uint16 | ~uint32 | ~uint64 |
		~float32 | ~float64 | ~complex64 | ~complex128 |
		~[2]uint64
}

// As views b as a slice of len(b)/size elements of T. It panics when
// len(b) is not a multiple of T's size. The view's capacity is its length,
// so appending to it copies rather than writing past b.
func As[T Elem](b []byte) []T {
	var z T
	sz := int(unsafe.Sizeof(z))
	if len(b)%sz != 0 {
		panic("byteview: buffer length is not a whole number of elements")
	}
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/sz)
}

// Bytes views s as its len(s)*size bytes; As of the result gives s back.
func Bytes[T Elem](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(z)))
}
