//go:build amd64 && !purego

package cpufeat

// detects says whether this build asks the CPU (the purego tag and other
// architectures never do: every flag is false).
const detects = true
