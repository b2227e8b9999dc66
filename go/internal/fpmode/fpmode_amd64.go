package fpmode

// MXCSR bits: FTZ (bit 15) flushes subnormal results, DAZ (bit 6) reads
// subnormal inputs as zero. They govern SSE and AVX alike.
const ftzDAZ = 1<<15 | 1<<6

func withMode(csr uint32, flush bool) uint32 {
	if flush {
		return csr | ftzDAZ
	}
	return csr &^ ftzDAZ
}

//go:noescape
func getCSR() uint32

//go:noescape
func setCSR(csr uint32)
