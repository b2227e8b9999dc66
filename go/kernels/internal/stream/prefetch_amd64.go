//go:build amd64 && !purego

package stream

//go:noescape
func prefetchLines(p *byte, n int)

// Prefetch asks for b's cache lines ahead of their use, so a row-blocked
// kernel overlaps the next block's memory reads with the current block's
// arithmetic. It has no visible effect.
func Prefetch(b []byte) {
	if len(b) > 0 {
		prefetchLines(&b[0], len(b))
	}
}
