//go:build !amd64 || purego

package linalg

// prefetchL2 is a no-op here (prefetch_amd64.go).
func prefetchL2(*float32, int) {}
