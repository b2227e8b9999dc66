//go:build !amd64 || purego

package stream

// Prefetch is a no-op here (prefetch_amd64.go).
func Prefetch([]byte) {}
