//go:build !amd64

package fpmode

// Other architectures keep IEEE subnormals (gojax's CPU kernels target
// x86-64; elsewhere results may differ from XLA:CPU's for subnormals).
const ftzDAZ = 0

func withMode(csr uint32, flush bool) uint32 { return csr }
func getCSR() uint32                         { return 0 }
func setCSR(uint32)                          {}
