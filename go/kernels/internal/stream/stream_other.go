//go:build !amd64 || purego

package stream

// StreamCopy is copy here (stream_amd64.go).
func StreamCopy(dst, src []byte) { copy(dst, src) }

// StreamFence is a no-op here: copy's stores are ordinary.
func StreamFence() {}
