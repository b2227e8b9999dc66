package cpufeat

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The CPUID answer must agree with what the kernel reports in /proc/cpuinfo.
func TestAgreesWithProcCpuinfo(t *testing.T) {
	data, err := os.ReadFile("/proc/cpuinfo")
	if !detects || err != nil {
		require.False(t, AVX2FMA)
		require.False(t, AVX512)
		require.False(t, AVX512BF16)
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
	require.Equal(t, want, AVX2FMA)
	has := func(f string) bool { return strings.Contains(flags, " "+f+" ") }
	// /proc/cpuinfo lists only features the kernel enabled (XSAVE state
	// included), so it agrees with the CPUID and XCR0 checks.
	want512 := want && has("avx512f") && has("avx512bw") && has("avx512dq") && has("avx512vl")
	require.Equal(t, want512, AVX512)
	require.Equal(t, want512 && has("avx512_bf16"), AVX512BF16)
	t.Logf("AVX2FMA=%v AVX512=%v AVX512BF16=%v", AVX2FMA, AVX512, AVX512BF16)
}

func TestSetsFollowFlags(t *testing.T) {
	sets := Sets()
	require.Equal(t, "", sets[0])
	require.Equal(t, sets[len(sets)-1], Widest())
	require.Equal(t, AVX2FMA, len(sets) >= 2)
	require.Equal(t, AVX512, len(sets) == 3)
}
