package linalg

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// fftKern64Source derives the complex64 kernels from the complex128 ones.
func fftKern64Source(src string) string {
	src = strings.NewReplacer("complex128", "complex64", "float64", "float32", "128", "64").Replace(src)
	return "// Code generated from fft_kern128.go by fftKern64Source (fft_gen_test.go); DO NOT EDIT.\n\n" + src
}

// TestFFTKern64Generated checks fft_kern64.go is up to date; run with
// GOJAX_FFT_REGEN=1 to rewrite it.
func TestFFTKern64Generated(t *testing.T) {
	src, err := os.ReadFile("fft_kern128.go")
	require.NoError(t, err)
	want := fftKern64Source(string(src))
	if os.Getenv("GOJAX_FFT_REGEN") != "" {
		require.NoError(t, os.WriteFile("fft_kern64.go", []byte(want), 0o644))
	}
	have, err := os.ReadFile("fft_kern64.go")
	require.NoError(t, err)
	require.Equal(t, want, string(have), "fft_kern64.go is stale: run GOJAX_FFT_REGEN=1 go test -run TestFFTKern64Generated")
}
