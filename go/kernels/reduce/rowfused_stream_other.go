//go:build !amd64 || purego

package reduce

// StreamCopy is copy here (rowfused_stream_amd64.go).
func StreamCopy(dst, src []byte) { copy(dst, src) }

// StreamFence is a no-op here: copy's stores are ordinary.
func StreamFence() {}
