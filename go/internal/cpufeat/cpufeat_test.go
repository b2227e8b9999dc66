package cpufeat

import (
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The CPUID answer must agree with what the kernel reports in /proc/cpuinfo.
func TestAgreesWithProcCpuinfo(t *testing.T) {
	data, err := os.ReadFile("/proc/cpuinfo")
	if runtime.GOARCH != "amd64" || err != nil {
		require.False(t, AVX2FMA)
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
}
