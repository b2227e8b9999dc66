package vhlo

import (
	"os"
	"testing"
)

// FuzzRead feeds arbitrary bytes to Read (entry functions only) and to the
// all-functions lenient reader. Neither may panic. Seeds are the shared
// conformance artifacts.
func FuzzRead(f *testing.F) {
	for _, pat := range []string{"jax-export/*.bc", "stablehlo/vhlo/*.mlir.bc"} {
		for _, path := range glob(f, pat, 1) {
			data, err := os.ReadFile(path)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	// Keep splat expansion small so the fuzzer explores instead of allocating.
	old := MaxSplatBytes
	MaxSplatBytes = 1 << 16
	f.Cleanup(func() { MaxSplatBytes = old })
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = Read(data)
		_, _, _ = read(data, readOptions{allFuncs: true, lenient: true})
	})
}
