package pyapi

import (
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/capi"
	"github.com/gojax/gojax/go/devmem"
	"github.com/gojax/gojax/go/ir"
	gjruntime "github.com/gojax/gojax/go/runtime"
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
	require.Equal(t, before.LiveAllocations+1, during.LiveAllocations)
	devmem.Free(b)
	after := ReadStats()
	require.Equal(t, before.BytesInUse, after.BytesInUse)
	require.Equal(t, before.LiveAllocations, after.LiveAllocations)
}

func TestResetPeakMemory(t *testing.T) {
	b, err := devmem.Alloc(4 << 20)
	require.NoError(t, err)
	devmem.Free(b)
	high := ReadStats()
	require.GreaterOrEqual(t, high.PeakBytes, high.BytesInUse+4<<20)
	ResetPeakMemory()
	now := ReadStats()
	require.Equal(t, now.BytesInUse, now.PeakBytes)
	b, err = devmem.Alloc(1 << 20)
	require.NoError(t, err)
	defer devmem.Free(b)
	require.Equal(t, now.BytesInUse+1<<20, ReadStats().PeakBytes)
}

func TestReadStatsFollowsRuntime(t *testing.T) {
	c, err := gjruntime.NewClient(gjruntime.Options{NumDevices: 1})
	require.NoError(t, err)
	before := ReadStats()
	b, err := gjruntime.NewUninitializedBuffer(c.Devices()[0].DefaultMemory(), ir.F32, []int64{8})
	require.NoError(t, err)
	_, err = gjruntime.Compile(c, []byte("not a program"), nil, "")
	require.Error(t, err)
	during := ReadStats()
	require.Equal(t, before.LiveBuffers+1, during.LiveBuffers)
	require.Equal(t, before.BuffersCreated+1, during.BuffersCreated)
	require.Equal(t, before.FailedCompiles+1, during.FailedCompiles)
	require.Equal(t, before.Compiles, during.Compiles)
	r := gjruntime.ReadStats()
	require.Equal(t, r.Executions, during.Executions)
	require.Equal(t, r.CompileTime.Seconds(), during.CompileSeconds)
	b.Delete()
	require.Equal(t, before.LiveBuffers, ReadStats().LiveBuffers)
}

func TestDumpDirAndNumDevices(t *testing.T) {
	prev := DumpDir()
	defer func() { require.NoError(t, SetDumpDir(prev)) }()
	dir := t.TempDir()
	require.NoError(t, SetDumpDir(dir))
	require.Equal(t, dir, DumpDir())
	require.Equal(t, dir, os.Getenv("GOJAX_DUMP_DIR"))
	require.NoError(t, SetDumpDir(""))
	require.Empty(t, DumpDir())
	_, set := os.LookupEnv("GOJAX_DUMP_DIR")
	require.False(t, set)

	tests := []struct {
		env     string
		want    int
		wantErr bool
	}{
		{"", 1, false},
		{"4", 4, false},
		{"four", 0, true},
	}
	for _, tc := range tests {
		t.Run("GOJAX_NUM_DEVICES="+tc.env, func(t *testing.T) {
			t.Setenv("GOJAX_NUM_DEVICES", tc.env)
			n, err := DefaultNumDevices()
			if tc.wantErr {
				require.ErrorContains(t, err, "not an integer")
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, n)
		})
	}
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
