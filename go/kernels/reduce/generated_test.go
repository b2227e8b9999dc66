package reduce

import (
	"testing"

	"github.com/gojax/gojax/go/kernels/internal/gentest"
)

// TestGeneratedFilesAreFresh keeps the generated assembly in step with
// gen_*.go.
func TestGeneratedFilesAreFresh(t *testing.T) { gentest.CheckFresh(t, ".") }
