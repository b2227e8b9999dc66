package config

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseBool(t *testing.T) {
	for s, want := range map[string]bool{
		"1": true, "true": true, "TRUE": true, "True": true, "yes": true, "YES": true, "on": true, "On": true, " on ": true, "\ttrue\n": true,
		"0": false, "false": false, "FALSE": false, "no": false, "No": false, "off": false, "OFF": false, " 0 ": false,
	} {
		got, err := ParseBool("GOJAX_X", s)
		require.NoError(t, err, "%q", s)
		require.Equal(t, want, got, "%q", s)
	}
	for _, s := range []string{"", " ", "2", "-1", "y", "n", "t", "f", "enable", "onn", "true1", "o n", "ja"} {
		_, err := ParseBool("GOJAX_X", s)
		require.ErrorContains(t, err, "GOJAX_X=", "%q", s)
		require.ErrorContains(t, err, "1/0, true/false, yes/no or on/off", "%q", s)
	}
}

func TestParseInt(t *testing.T) {
	for s, want := range map[string]int64{"0": 0, "7": 7, " 2": 2, "2 ": 2, "+3": 3, "10": 10, "007": 7} {
		got, err := ParseInt("GOJAX_N", s, 0, 10)
		require.NoError(t, err, "%q", s)
		require.Equal(t, want, got, "%q", s)
	}
	for _, s := range []string{"", "abc", "1e3", "1.5", "0x10", "11", "-1", "9223372036854775808", "99999999999999999999", "1 2", "5us"} {
		_, err := ParseInt("GOJAX_N", s, 0, 10)
		require.ErrorContains(t, err, "GOJAX_N=", "%q", s)
		require.ErrorContains(t, err, "a whole number from 0 to 10", "%q", s)
	}
	got, err := ParseInt("GOJAX_N", "-9223372036854775808", math.MinInt64, math.MaxInt64)
	require.NoError(t, err)
	require.Equal(t, int64(math.MinInt64), got)
}

func TestParseSize(t *testing.T) {
	for s, want := range map[string]int64{
		"0": 0, "12345678": 12345678, " 64 ": 64, "1KiB": 1 << 10, "1kib": 1 << 10, "2 MiB": 2 << 20, "3GIB": 3 << 30, "1TiB": 1 << 40,
		"0GiB": 0, "9223372036854775807": math.MaxInt64, "8388607TiB": 8388607 << 40,
	} {
		got, err := ParseSize("GOJAX_S", s, 0, math.MaxInt64)
		require.NoError(t, err, "%q", s)
		require.Equal(t, want, got, "%q", s)
	}
	for _, s := range []string{
		"", "abc", "1e3", "1.5GiB", "-1", "+1", "0x10", "KiB", "1K", "1MB", "1 G", "1PiB", "1KiBKiB",
		"9223372036854775808", "8388608TiB", "99999999999999999999",
	} {
		_, err := ParseSize("GOJAX_S", s, 0, math.MaxInt64)
		require.ErrorContains(t, err, "GOJAX_S=", "%q", s)
		require.ErrorContains(t, err, "KiB, MiB, GiB or TiB", "%q", s)
	}
	_, err := ParseSize("GOJAX_S", "2KiB", 0, 1024)
	require.ErrorContains(t, err, "from 0 to 1024 bytes")
}

func TestParseEnum(t *testing.T) {
	for s, want := range map[string]string{"auto": "auto", "AVX2": "avx2", " none ": "none", "Avx512": "avx512"} {
		got, err := ParseEnum("GOJAX_E", s, "auto", "avx512", "avx2", "none")
		require.NoError(t, err, "%q", s)
		require.Equal(t, want, got)
	}
	for _, s := range []string{"", "avx", "sse", "0", "avx-512", "z", "auto,none"} {
		_, err := ParseEnum("GOJAX_E", s, "auto", "avx512", "avx2", "none")
		require.ErrorContains(t, err, "GOJAX_E=", "%q", s)
		require.ErrorContains(t, err, "auto, avx512, avx2 or none", "%q", s)
	}
}

func TestParsePath(t *testing.T) {
	abs, err := ParsePath("GOJAX_P", "/tmp/d")
	require.NoError(t, err)
	require.Equal(t, "/tmp/d", abs)
	wd, err := os.Getwd()
	require.NoError(t, err)
	rel, err := ParsePath("GOJAX_P", "sub dir")
	require.NoError(t, err)
	require.Equal(t, filepath.Join(wd, "sub dir"), rel)
	for _, s := range []string{"", "a\x00b"} {
		_, err := ParsePath("GOJAX_P", s)
		require.ErrorContains(t, err, "GOJAX_P=", "%q", s)
	}
}

func lookupIn(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestLoad(t *testing.T) {
	st, err := Load(lookupIn(nil))
	require.NoError(t, err)
	require.Equal(t, Defaults(), st)

	st, err = Load(lookupIn(map[string]string{
		"GOJAX_NUM_DEVICES": " 2", "GOJAX_ASYNC_DISPATCH": "yes", "GOJAX_INLINE_BYTES": "1MiB",
		"GOJAX_BUFFER_CACHE_BYTES": "0", "GOJAX_MEMORY_LIMIT": "8 GiB", "GOJAX_DUMP_DIR": "/tmp/dumps", "GOJAX_CRASH_OUTPUT": "/tmp/crash.txt", "GOJAX_DEBUG_NANS": "off",
		"GOJAX_FLUSH_DENORMALS": "false", "GOJAX_SPIN_US": "0", "GOJAX_VECTOR": "AVX2",
		"GOJAX_COLLECTIVE_TIMEOUT": "20", "GOJAX_DATAPLANE_HOST": " 10.0.0.7", "GOJAX_DATAPLANE_PORT": "7777", "GOJAX_SPMD_PARTITION": "no",
	}))
	require.NoError(t, err)
	require.Equal(t, Settings{
		NumDevices: 2, NumDevicesSet: true, AsyncDispatch: true, InlineBytes: 1 << 20, BufferCacheBytes: 0, MemoryLimit: 8 << 30, DumpDir: "/tmp/dumps", CrashOutput: "/tmp/crash.txt",
		DebugNans: false, FlushDenormals: false, SpinMicros: 0, Vector: "avx2",
		CollectiveTimeout: 20, DataplaneHost: "10.0.0.7", DataplanePort: 7777, SPMDPartition: false,
	}, st)

	// Empty values are the defaults.
	empty := map[string]string{}
	for _, v := range Vars {
		empty[v.Env] = ""
	}
	st, err = Load(lookupIn(empty))
	require.NoError(t, err)
	require.Equal(t, Defaults(), st)
}

// GOJAX_NUM_DEVICES, when set, overrides JAX's jax_num_cpu_devices, which
// overrides the default.
func TestDevicesFor(t *testing.T) {
	unset, err := Load(lookupIn(map[string]string{"GOJAX_NUM_DEVICES": ""}))
	require.NoError(t, err)
	require.Equal(t, 8, unset.DevicesFor(8))
	require.Equal(t, 1, unset.DevicesFor(-1))
	require.Equal(t, 1, unset.DevicesFor(0))
	set, err := Load(lookupIn(map[string]string{"GOJAX_NUM_DEVICES": "3"}))
	require.NoError(t, err)
	require.Equal(t, 3, set.DevicesFor(8))
	require.Equal(t, 3, set.DevicesFor(-1))
	one, err := Load(lookupIn(map[string]string{"GOJAX_NUM_DEVICES": "1"}))
	require.NoError(t, err)
	require.Equal(t, 1, one.DevicesFor(8), "an explicit 1 is an override too")
}

// Every variable rejects junk with an error naming it and what it accepts,
// keeps its default, and the other variables still load.
func TestLoadRejects(t *testing.T) {
	bad := map[string][]string{
		"GOJAX_NUM_DEVICES":        {"0", "-1", "abc", "1.5", "1025", "2x"},
		"GOJAX_ASYNC_DISPATCH":     {"2", "enable", "y"},
		"GOJAX_INLINE_BYTES":       {"abc", "1e3", "-5", "9223372036854775808", "1MB"},
		"GOJAX_BUFFER_CACHE_BYTES": {"-1", "1G", "lots"},
		"GOJAX_MEMORY_LIMIT":       {"0", "1023KiB", "-1", "off", "8G"},
		"GOJAX_DUMP_DIR":           {"a\x00b"},
		"GOJAX_CRASH_OUTPUT":       {"a\x00b"},
		"GOJAX_DEBUG_NANS":         {"nope", "2", "-1"},
		"GOJAX_FLUSH_DENORMALS":    {"ftz", "2"},
		"GOJAX_SPIN_US":            {"abc", "1e3", "-1", "1000001", "99999999999999999999"},
		"GOJAX_VECTOR":             {"avx", "sse", "0"},
		"GOJAX_COLLECTIVE_TIMEOUT": {"0", "-5", "1m", "86401"},
		"GOJAX_SPMD_PARTITION":     {"partly", "2"},
		"GOJAX_DATAPLANE_HOST":     {"host name", "a/b", "-x", "h;rm"},
		"GOJAX_DATAPLANE_PORT":     {"-1", "65536", "http"},
	}
	require.Len(t, bad, len(Vars), "every variable has rejection cases")
	for env, values := range bad {
		for _, s := range values {
			st, err := Load(lookupIn(map[string]string{env: s, "GOJAX_SPIN_US": "7", "GOJAX_VECTOR": "none"}))
			if env == "GOJAX_SPIN_US" || env == "GOJAX_VECTOR" {
				st, err = Load(lookupIn(map[string]string{env: s, "GOJAX_NUM_DEVICES": "3"}))
				require.Equal(t, 3, st.NumDevices)
			} else {
				require.Equal(t, int64(7), st.SpinMicros)
				require.Equal(t, "none", st.Vector)
			}
			require.ErrorContains(t, err, env+"=", "%s=%q", env, s)
			require.ErrorContains(t, err, "accepted values are", "%s=%q", env, s)
			probe := st
			varByEnv(t, env).reset(&probe)
			require.Equal(t, probe, st, "%s=%q keeps the default", env, s)
		}
	}
	_, err := Load(lookupIn(map[string]string{"GOJAX_SPIN_US": "x", "GOJAX_DEBUG_NANS": "x"}))
	require.ErrorContains(t, err, "GOJAX_SPIN_US")
	require.ErrorContains(t, err, "GOJAX_DEBUG_NANS")
}

func varByEnv(t *testing.T, env string) *Var {
	for _, v := range Vars {
		if v.Env == env {
			return v
		}
	}
	t.Fatalf("no variable %s", env)
	return nil
}

func TestVarParseKeepsValueOnError(t *testing.T) {
	v, ok := ByField("spin_us")
	require.True(t, ok)
	st := Defaults()
	require.NoError(t, v.Parse(&st, "gojax.config.spin_us", "5"))
	require.Equal(t, int64(5), st.SpinMicros)
	require.ErrorContains(t, v.Parse(&st, "gojax.config.spin_us", "5ms"), `gojax.config.spin_us="5ms"`)
	require.Equal(t, int64(5), st.SpinMicros)
	require.NoError(t, v.Parse(&st, "gojax.config.spin_us", ""))
	require.Equal(t, Defaults().SpinMicros, st.SpinMicros)
	_, ok = ByField("no_such")
	require.False(t, ok)
}

// docs/runtime.md's table lists every variable with its kind, default and
// gojax.config field, and nothing else reads the environment.
func TestDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/runtime.md")
	require.NoError(t, err)
	for _, v := range Vars {
		row := regexp.MustCompile("(?m)^\\| `" + v.Env + "` \\| " + v.Kind + " \\| " + regexp.QuoteMeta(v.Default) + " \\| .*`" + v.Field + "`")
		if !row.Match(doc) {
			t.Errorf("docs/runtime.md has no table row for %s (kind %s, default %s, field %s)", v.Env, v.Kind, v.Default, v.Field)
		}
	}
	for _, m := range regexp.MustCompile("(?m)^\\| `(GOJAX_[A-Z_]+)` \\|").FindAllStringSubmatch(string(doc), -1) {
		varByEnv(t, m[1])
	}
}

// No package but this one reads GOJAX_* settings from the environment.
func TestNoOtherReader(t *testing.T) {
	reader := regexp.MustCompile(`os\.(Getenv|LookupEnv|Setenv|Unsetenv)\(`)
	allowed := map[string]bool{
		"config/config.go":            true,
		"internal/testenv/testenv.go": true, // test harness: GOJAX_PYTHON, CI
		"conformance/corpus.go":       true, // test corpus cache
		"conformance/worker.go":       true, // test worker processes
	}
	root := ".."
	err := filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if allowed[filepath.ToSlash(rel)] || strings.HasPrefix(filepath.ToSlash(rel), "cmd/") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if m := reader.Find(data); m != nil {
			t.Errorf("%s reads the environment (%s); read settings through package config", rel, m)
		}
		return nil
	})
	require.NoError(t, err)
}
