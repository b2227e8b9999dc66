package capitest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/profile"
	"github.com/gojax/gojax/go/xplane"
)

// TestProfilerExtensionLifeCycle drives the profiler extension as jaxlib's
// plugin tracer does: out-of-order calls are FAILED_PRECONDITION errors that
// the tracer can read, and a stopped session collects an XSpace.
func TestProfilerExtensionLifeCycle(t *testing.T) {
	api := Load()
	p, size := api.ProfilerAPI()
	require.NotNil(t, p, "the extension chain holds a profiler extension")
	require.Equal(t, 80, size, "PLUGIN_Profiler_Api_STRUCT_SIZE the tracer checks")

	s, e := p.Create()
	require.Nil(t, e)
	_, e = p.Collect(s)
	require.NotNil(t, e, "collect without start")
	require.Equal(t, codeFailedPrecondition, e.Code)
	require.False(t, e.GetCodeFailed)
	require.Contains(t, e.Msg, "PLUGIN_Profiler_CollectData")
	require.Nil(t, p.Start(s))
	e = p.Start(s)
	require.NotNil(t, e, "double start")
	require.Equal(t, codeFailedPrecondition, e.Code)
	require.Contains(t, e.Msg, "already started")
	require.Nil(t, p.Stop(s))

	data, e := p.Collect(s)
	require.Nil(t, e)
	again, e := p.CollectInto(s)
	require.Nil(t, e)
	require.Equal(t, data, again)
	sp, err := xplane.Parse(data)
	require.NoError(t, err)
	require.Len(t, sp.Planes, 1)
	require.Equal(t, profile.PlaneName, sp.Planes[0].Name)
	require.Nil(t, p.Destroy(s))

	// A failed create leaves the tracer a NULL session: calls on it are
	// errors, destroying it is harmless.
	null := Session{}
	require.NotNil(t, p.Start(null))
	_, e = p.Collect(null)
	require.NotNil(t, e)
	require.Nil(t, p.Destroy(null))

	// A session destroyed while recording stops recording.
	s, e = p.Create()
	require.Nil(t, e)
	require.Nil(t, p.Start(s))
	require.Nil(t, p.Destroy(s))
}
