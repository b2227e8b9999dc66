package fpmode

import (
	"math"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

//go:noinline
func half(x float32) float32 { return x * 0.5 }

//go:noinline
func add(x, y float64) float64 { return x + y }

func TestEnterFlushesAndExitRestores(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("FTZ/DAZ is set on amd64 only")
	}
	tiny := math.Float32frombits(0x00800000) // smallest normal
	before := Current()
	require.NotZero(t, half(tiny), "subnormals survive outside a run")

	SetFlushDenormals(true)
	prev := Enter()
	require.True(t, Flushing())
	flushed := half(tiny)
	sub := math.Float64frombits(1) // smallest subnormal: read as zero (DAZ)
	daz := add(sub, sub)
	Exit(prev)

	require.Zero(t, flushed, "FTZ: a subnormal result becomes zero")
	require.Zero(t, daz, "DAZ: subnormal inputs read as zero")
	require.Equal(t, before&^0x3f, Current()&^0x3f, "the caller's mode is restored (status flags aside)")
	require.NotZero(t, half(tiny))

	SetFlushDenormals(false)
	prev = Enter()
	require.False(t, Flushing())
	require.NotZero(t, half(tiny))
	Exit(prev)
	SetFlushDenormals(true)
}
