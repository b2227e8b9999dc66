package kernel

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/devmem"
)

func withLimit(t *testing.T, n int64) {
	prev := devmem.Limit()
	t.Cleanup(func() { devmem.SetLimit(prev) })
	devmem.SetLimit(n)
}

// Make allocates what fits the memory limit and panics with an *AllocError
// (an *devmem.OutOfMemoryError inside) for what does not.
func TestMakeChecksTheLimit(t *testing.T) {
	withLimit(t, devmem.ReadStats().BytesInUse+4<<20)
	require.Len(t, Make[float64](1<<16), 1<<16)
	var got any
	func() {
		defer func() { got = recover() }()
		Make[float64](1 << 20) // 8 MiB
	}()
	err, ok := Recovered(got)
	require.True(t, ok, "panic value %v", got)
	var ae *AllocError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, int64(8<<20), ae.Bytes)
	var oom *devmem.OutOfMemoryError
	require.ErrorAs(t, err, &oom)
	require.ErrorContains(t, err, "scratch memory of 8388608 bytes")
}

// Sizes no int64 can hold, or negative ones, fail instead of wrapping.
func TestMakeRefusesImpossibleSizes(t *testing.T) {
	for _, n := range []int64{-1, 1 << 62} {
		_, err := Guard(func() ([]uint64, error) { return Make[uint64](n), nil })
		var oom *devmem.OutOfMemoryError
		require.ErrorAs(t, err, &oom, "n=%d", n)
	}
}

// Recovered finds the error through wrapping (a worker pool wraps chunk
// panics) and refuses other panic values, which Guard passes on.
func TestRecoveredAndGuard(t *testing.T) {
	ae := &AllocError{Bytes: 1, Err: &devmem.OutOfMemoryError{Bytes: 1}}
	_, ok := Recovered(fmt.Errorf("chunk: %w", ae))
	require.True(t, ok)
	_, ok = Recovered("kernel bug")
	require.False(t, ok)
	_, ok = Recovered(errors.New("index out of range"))
	require.False(t, ok)
	require.PanicsWithValue(t, "kernel bug", func() {
		_, _ = Guard(func() (int, error) { panic("kernel bug") })
	})
	withLimit(t, devmem.ReadStats().BytesInUse+1<<20)
	_, err := Guard(func() (int, error) { Need(2 << 20); return 0, nil })
	require.ErrorAs(t, err, &ae)
}
