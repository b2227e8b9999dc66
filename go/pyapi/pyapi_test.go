package pyapi

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/capi"
	"github.com/gojax/gojax/go/compiler"
	"github.com/gojax/gojax/go/config"
	"github.com/gojax/gojax/go/devmem"
	"github.com/gojax/gojax/go/engine"
	"github.com/gojax/gojax/go/ir"
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
	c, err := engine.NewClient(engine.Options{NumDevices: 1})
	require.NoError(t, err)
	before := ReadStats()
	b, err := engine.NewUninitializedBuffer(c.Devices()[0].DefaultMemory(), ir.F32, []int64{8})
	require.NoError(t, err)
	_, err = engine.Compile(c, []byte("not a program"), nil, compiler.Options{})
	require.Error(t, err)
	during := ReadStats()
	require.Equal(t, before.LiveBuffers+1, during.LiveBuffers)
	require.Equal(t, before.BuffersCreated+1, during.BuffersCreated)
	require.Equal(t, before.FailedCompiles+1, during.FailedCompiles)
	require.Equal(t, before.Compiles, during.Compiles)
	r := engine.ReadStats()
	require.Equal(t, r.Executions, during.Executions)
	require.Equal(t, r.CompileTime.Seconds(), during.CompileSeconds)
	b.Delete()
	require.Equal(t, before.LiveBuffers, ReadStats().LiveBuffers)
}

func TestDumpDirAndNumDevices(t *testing.T) {
	prev := DumpDir()
	defer SetDumpDir(prev)
	dir := t.TempDir()
	SetDumpDir(dir)
	require.Equal(t, dir, DumpDir())
	_, set := os.LookupEnv("GOJAX_DUMP_DIR")
	require.False(t, set, "configuring never touches the environment")
	SetDumpDir("")
	require.Empty(t, DumpDir())
	require.Equal(t, config.Env().NumDevices, DefaultNumDevices())
}

// SetConfig takes the spellings of the environment variables, through the
// same parsers, and names the field in its errors.
func TestSetConfig(t *testing.T) {
	defer func() {
		for _, f := range []string{"async_dispatch", "inline_bytes", "buffer_cache_bytes", "dump_dir", "debug_nans", "flush_denormals", "spin_us"} {
			require.NoError(t, SetConfig(f, ""))
		}
	}()
	require.NoError(t, SetConfig("debug_nans", " YES "))
	require.True(t, DebugNans())
	require.NoError(t, SetConfig("debug_nans", "off"))
	require.False(t, DebugNans())
	require.NoError(t, SetConfig("flush_denormals", "false"))
	require.False(t, FlushDenormals())
	require.NoError(t, SetConfig("flush_denormals", ""))
	require.True(t, FlushDenormals(), "empty restores the default")
	require.NoError(t, SetConfig("async_dispatch", "on"))
	require.True(t, AsyncDispatch())
	require.NoError(t, SetConfig("spin_us", "7"))
	require.Equal(t, int64(7), SpinMicros())
	require.NoError(t, SetConfig("inline_bytes", "1KiB"))
	require.Equal(t, int64(1024), InlineBytes())
	require.NoError(t, SetConfig("buffer_cache_bytes", "2MiB"))
	require.Equal(t, int64(2<<20), BufferCacheBytes())
	require.NoError(t, SetConfig("dump_dir", "rel"))
	wd, err := os.Getwd()
	require.NoError(t, err)
	require.Equal(t, filepath.Join(wd, "rel"), DumpDir())

	for field, bad := range map[string]string{
		"debug_nans": "maybe", "flush_denormals": "2", "async_dispatch": "y", "spin_us": "1e3",
		"inline_bytes": "-1", "buffer_cache_bytes": "1GB",
	} {
		err := SetConfig(field, bad)
		require.ErrorContains(t, err, "gojax.config."+field+"=", field)
		require.ErrorContains(t, err, "accepted values are", field)
	}
	require.Equal(t, int64(7), SpinMicros(), "a rejected value changes nothing")
	require.ErrorContains(t, SetConfig("num_devices", "2"), "read-only")
	require.ErrorContains(t, SetConfig("vector", "none"), "read-only")
	require.ErrorContains(t, SetConfig("collective_timeout", "5"), "read-only")
	require.ErrorContains(t, SetConfig("dataplane_port", "5"), "read-only")
	require.ErrorContains(t, SetConfig("nope", "1"), "no setting")
	require.Empty(t, ConfigError())
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
