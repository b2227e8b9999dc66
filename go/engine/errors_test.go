package engine

import (
	"fmt"
	"testing"

	"github.com/gojax/gojax/go/devmem"
	"github.com/stretchr/testify/require"
)

// A failed device allocation is RESOURCE_EXHAUSTED however it is wrapped,
// even where the caller would call any other failure INTERNAL.
func TestOutOfMemoryIsResourceExhausted(t *testing.T) {
	_, err := devmem.Alloc(1 << 50)
	require.Error(t, err)
	require.Equal(t, CodeResourceExhausted, CodeOf(err))
	wrapped := fmt.Errorf("output 0 of %q: %w", "main", err)
	require.Equal(t, CodeResourceExhausted, CodeOf(wrapped))
	coded := WithCode(CodeInternal, wrapped)
	require.Equal(t, CodeResourceExhausted, CodeOf(coded))
	require.Contains(t, coded.Error(), fmt.Sprint(1<<50))
	// Other errors keep the code they are given.
	require.Equal(t, CodeInternal, CodeOf(WithCode(CodeInternal, fmt.Errorf("boom"))))
	require.Equal(t, CodeUnknown, CodeOf(fmt.Errorf("boom")))
}
