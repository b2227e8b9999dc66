package kernel

import (
	"testing"

	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// Registered kernels win over the fallback; the fallback answers the rest.
func TestLookupCustomCallFallback(t *testing.T) {
	var asked []string
	own := func(Context, *ir.Op) (Step, error) { return nil, nil }
	RegisterCustomCall("kernel_test_own", own)
	SetCustomCallFallback(func(target string) (Lower, bool) {
		asked = append(asked, target)
		return own, target == "kernel_test_dynamic"
	})
	_, ok := LookupCustomCall("kernel_test_own")
	require.True(t, ok)
	_, ok = LookupCustomCall("kernel_test_dynamic")
	require.True(t, ok)
	_, ok = LookupCustomCall("kernel_test_missing")
	require.False(t, ok)
	require.Equal(t, []string{"kernel_test_dynamic", "kernel_test_missing"}, asked)
	require.NotContains(t, CustomCalls(), "kernel_test_dynamic")
	require.Panics(t, func() { SetCustomCallFallback(func(string) (Lower, bool) { return nil, false }) })
}
