package stream

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPrefetchAnyLength(t *testing.T) {
	b := make([]byte, 5000)
	for _, n := range []int{0, 1, 63, 64, 65, 4096, 5000} {
		Prefetch(b[len(b)-n:]) // no visible effect, no fault at the end
	}
	Prefetch(nil)
}

func TestStreamCopyIsCopy(t *testing.T) {
	src := make([]byte, 1000)
	for i := range src {
		src[i] = byte(i*7 + 1)
	}
	for _, off := range []int{0, 1, 13, 64} {
		for _, n := range []int{0, 5, 63, 64, 65, 200, 900} {
			dst := make([]byte, 1000)
			StreamCopy(dst[off:off+n], src[3:])
			require.Equal(t, src[3:3+n], dst[off:off+n], "off %d n %d", off, n)
			require.Equal(t, make([]byte, off), dst[:off])
			require.Equal(t, make([]byte, 1000-off-n), dst[off+n:])
		}
	}
}
