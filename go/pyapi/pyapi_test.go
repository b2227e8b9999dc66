package pyapi

import (
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/capi"
	"github.com/gojax/gojax/go/devmem"
)

func TestVersionAndBuildInfo(t *testing.T) {
	require.NotEmpty(t, Version())
	info := BuildInfo()
	require.True(t, strings.HasPrefix(info, "gojax "+Version()+"\n"), info)
	require.Contains(t, info, runtime.Version())
	require.Contains(t, info, runtime.GOOS+"/"+runtime.GOARCH)
}

func TestAPIPointerIsCapis(t *testing.T) {
	require.Equal(t, capi.APIPointer(), APIPointer())
	require.NotZero(t, APIPointer())
}

func TestReadStatsFollowsDevmem(t *testing.T) {
	before := ReadStats()
	b, err := devmem.Alloc(1 << 20)
	require.NoError(t, err)
	during := ReadStats()
	require.GreaterOrEqual(t, during.BytesInUse, before.BytesInUse+1<<20)
	require.GreaterOrEqual(t, during.PeakBytes, during.BytesInUse)
	require.Equal(t, before.NumAllocs+1, during.NumAllocs)
	require.Equal(t, before.LiveBuffers+1, during.LiveBuffers)
	devmem.Free(b)
	after := ReadStats()
	require.Equal(t, before.BytesInUse, after.BytesInUse)
	require.Equal(t, before.LiveBuffers, after.LiveBuffers)
}

func TestSetWorkerThreads(t *testing.T) {
	defer func() { require.NoError(t, SetWorkerThreads(0)) }()
	tests := []struct {
		name    string
		n       int
		want    int // 0: Go's default
		wantErr bool
	}{
		{name: "one", n: 1, want: 1},
		{name: "three", n: 3, want: 3},
		{name: "default", n: 0},
		{name: "negative means default", n: -4},
		{name: "too many", n: 1 << 20, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prev := WorkerThreads()
			err := SetWorkerThreads(tc.n)
			if tc.wantErr {
				require.Error(t, err)
				require.Equal(t, prev, WorkerThreads())
				return
			}
			require.NoError(t, err)
			if tc.want == 0 {
				require.GreaterOrEqual(t, WorkerThreads(), 1)
				return
			}
			require.Equal(t, tc.want, WorkerThreads())
		})
	}
}
