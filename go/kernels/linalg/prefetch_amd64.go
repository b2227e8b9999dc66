//go:build amd64 && !purego

package linalg

// prefetchL2 asks for the n 64-byte lines from p into L2 (no visible
// effect).
//
//go:noescape
func prefetchL2(p *float32, n int)
