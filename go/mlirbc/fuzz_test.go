package mlirbc

import (
	"os"
	"testing"
)

// FuzzParse feeds arbitrary bytes through the whole generic reader: tables,
// the IR (eagerly and lazily) and every property blob. It must never panic.
// Seeds are the shared conformance artifacts.
func FuzzParse(f *testing.F) {
	for _, path := range corpusFiles(f) {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("ML\xefR\x0dStableHLO_v1.0.0\x00"))
	// Small hand-built files of every format version mutate more usefully.
	for v := uint64(0); v <= MaxVersion; v++ {
		b := &builder{version: v}
		f.Add(b.file(b.testIR(v >= VersionLazyLoading)))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, lazy := range []bool{false, true} {
			file, err := Parse(data)
			if err != nil {
				return
			}
			ops, err := file.TopLevel(lazy)
			if err != nil {
				continue
			}
			if lazy && len(ops) > 0 {
				_ = ops[0].LoadDeep() // what go/vhlo does with function bodies
			}
			_ = LoadAll(ops)
		}
	})
}
