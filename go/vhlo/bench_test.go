package vhlo

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gojax/gojax/go/internal/testenv"
	"github.com/gojax/gojax/go/verify"
)

// BenchmarkReadConformance decodes the 1.20.0 conformance artifact (about
// 22 KB, 800+ ops in 220 functions), every function.
func BenchmarkReadConformance(b *testing.B) {
	data, err := os.ReadFile(testenv.Data(b, "stablehlo", "vhlo", "stablehlo_legalize_to_vhlo.1_20_0.mlir.bc"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := read(data, readOptions{allFuncs: true, lenient: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadJAXExport runs Read on the largest jax.export artifact.
func BenchmarkReadJAXExport(b *testing.B) {
	data, err := os.ReadFile(testenv.Data(b, "jax-export", "cpu_lu_lapack_getrf#0.bc"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(data); err != nil {
			b.Fatal(err)
		}
	}
}

// trainStepArtifact is a real JAX artifact of about 25 KB: an MLP training
// step with Adam (testdata/jax_programs.py, program train_step), exported at
// benchmark start with the venv's jax.
func trainStepArtifact(b *testing.B) []byte {
	python := testenv.Python(b)
	dir := b.TempDir()
	if out, err := exec.Command(python, "testdata/jax_programs.py", dir, "train_step").CombinedOutput(); err != nil {
		b.Fatalf("jax_programs.py: %v\n%s", err, out)
	}
	data, err := os.ReadFile(filepath.Join(dir, "train_step.bc"))
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("artifact: %d bytes", len(data))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	return data
}

// BenchmarkReadTrainStep decodes the train-step artifact (what
// PJRT_Client_Compile does before verifying).
func BenchmarkReadTrainStep(b *testing.B) {
	data := trainStepArtifact(b)
	for b.Loop() {
		if _, err := Read(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadVerifyTrainStep is the whole frontend: decode, then verify.
func BenchmarkReadVerifyTrainStep(b *testing.B) {
	data := trainStepArtifact(b)
	for b.Loop() {
		m, err := Read(data)
		if err != nil {
			b.Fatal(err)
		}
		if err := verify.Module(m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifyTrainStep verifies an already decoded module.
func BenchmarkVerifyTrainStep(b *testing.B) {
	data := trainStepArtifact(b)
	m, err := Read(data)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := verify.Module(m); err != nil {
			b.Fatal(err)
		}
	}
}
