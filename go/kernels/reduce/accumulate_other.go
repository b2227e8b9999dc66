//go:build !amd64 || purego

package reduce

// useAccumulate keeps the Go loops: there are no vector kernels here.
func useAccumulate(string) {}
