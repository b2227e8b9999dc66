//go:build !amd64 || purego

package reduce

// useThreefry keeps the Go loop: no vector loop on this architecture.
func useThreefry(string) {}
