//go:build !amd64 || purego

package reduce

// Prefetch is a no-op here (rowfused_prefetch_amd64.go).
func Prefetch([]byte) {}
