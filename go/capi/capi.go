// Package capi is gojax's C boundary: the PJRT C API 0.114 function table.
package capi

// APIPointer returns the address of the static PJRT_Api table (what
// GetPjrtApi returns), for the Python side to wrap in a "pjrt_c_api" capsule.
func APIPointer() uintptr { return 0 }
