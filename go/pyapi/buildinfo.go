package pyapi

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/gojax/gojax/go/internal/cpufeat"
)

// BuildInfo describes how the library was built: gojax version, Go toolchain,
// target, and the build settings recorded by the Go linker (cgo flags, tags).
func BuildInfo() string {
	var b strings.Builder
	fmt.Fprintf(&b, "gojax %s\n", version)
	fmt.Fprintf(&b, "go %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			fmt.Fprintf(&b, "%s=%s\n", s.Key, s.Value)
		}
	}
	return b.String()
}

// VectorISA names the vector instruction sets the kernels use and the
// GOJAX_VECTOR limit in force, e.g. "avx512+bf16 (GOJAX_VECTOR=avx512)".
func VectorISA() string { return cpufeat.Describe() }
