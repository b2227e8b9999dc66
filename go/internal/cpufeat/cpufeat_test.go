package cpufeat

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/config"
)

// The CPUID answer must agree with what the kernel reports in /proc/cpuinfo.
func TestAgreesWithProcCpuinfo(t *testing.T) {
	data, err := os.ReadFile("/proc/cpuinfo")
	if !detects || err != nil {
		require.False(t, DetectedAVX2FMA)
		require.False(t, DetectedAVX512)
		require.False(t, DetectedAVX512BF16)
		require.False(t, DetectedAVX512VNNI)
		require.False(t, DetectedF16C)
		require.False(t, DetectedAMXBF16)
		return
	}
	flags := ""
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "flags") {
			flags = " " + line + " "
			break
		}
	}
	want := strings.Contains(flags, " avx2 ") && strings.Contains(flags, " fma ")
	require.Equal(t, want, DetectedAVX2FMA)
	has := func(f string) bool { return strings.Contains(flags, " "+f+" ") }
	// /proc/cpuinfo lists only features the kernel enabled (XSAVE state
	// included), so it agrees with the CPUID and XCR0 checks.
	want512 := want && has("avx512f") && has("avx512bw") && has("avx512dq") && has("avx512vl")
	require.Equal(t, want512, DetectedAVX512)
	require.Equal(t, want512 && has("avx512_bf16"), DetectedAVX512BF16)
	require.Equal(t, want512 && has("avx512_vnni"), DetectedAVX512VNNI)
	require.Equal(t, want && has("f16c"), DetectedF16C)
	require.Equal(t, want512 && has("avx512_bf16") && has("amx_bf16") && has("amx_tile"), DetectedAMXBF16)
	t.Logf("detected AVX2FMA=%v AVX512=%v AVX512BF16=%v; in use: %s", DetectedAVX2FMA, DetectedAVX512, DetectedAVX512BF16, Describe())
}

func TestSetsFollowFlags(t *testing.T) {
	sets := Sets()
	require.Equal(t, "", sets[0])
	require.Equal(t, sets[len(sets)-1], Widest())
	require.Equal(t, AVX2FMA, len(sets) >= 2)
	require.Equal(t, AVX512, len(sets) == 3)
}

// The flags in use are what the CPU has, capped by GOJAX_VECTOR.
func TestLimitCapsDetected(t *testing.T) {
	require.Equal(t, DetectedAVX2FMA && Limit != "", AVX2FMA)
	wide := Limit == "Z" || Limit == "T"
	require.Equal(t, DetectedAVX512 && wide, AVX512)
	require.Equal(t, DetectedAVX512BF16 && wide, AVX512BF16)
	require.Equal(t, DetectedAVX512VNNI && wide, AVX512VNNI)
	require.Equal(t, DetectedF16C && Limit != "", F16C)
	// Tiles only under "auto", and only where Linux granted them (which
	// it does on every kernel that sets XCR0's tile bits).
	require.Equal(t, DetectedAMXBF16 && Limit == "T", AMXBF16)
}

// Every value package config accepts for GOJAX_VECTOR maps to a limit.
func TestLimitsCoverConfig(t *testing.T) {
	for _, s := range []string{"auto", "avx512", "avx2", "none"} {
		st := config.Defaults()
		v, ok := config.ByField("vector")
		require.True(t, ok)
		require.NoError(t, v.Parse(&st, EnvVector, s))
		_, ok = limits[st.Vector]
		require.True(t, ok, s)
	}
	require.Equal(t, limits[config.Env().Vector], Limit)
}
