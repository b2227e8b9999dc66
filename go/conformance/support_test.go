package conformance

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/cmplx"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/internal/testenv"
	"github.com/gojax/gojax/go/ir"
)

// npyBytes writes a version-1 .npy stream.
func npyBytes(descr string, shape string, data []byte) []byte {
	header := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape)
	for (10+len(header)+1)%64 != 0 {
		header += " "
	}
	header += "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(header)))
	b.WriteString(header)
	b.Write(data)
	return b.Bytes()
}

func TestReadNPY(t *testing.T) {
	cases := []struct {
		name  string
		descr string
		shape string
		data  []byte
		want  *ir.TensorType
		err   string
	}{
		{"f32 matrix", "<f4", "(2, 1)", f32s(1, 2), ir.Tensor(ir.F32, 2, 1), ""},
		{"scalar i32", "<i4", "()", []byte{7, 0, 0, 0}, ir.Tensor(ir.S32), ""},
		{"vector c64", "<c8", "(1,)", f32s(1, -1), ir.Tensor(ir.C64, 1), ""},
		{"bool", "|b1", "(2,)", []byte{0, 5}, ir.Tensor(ir.Pred, 2), ""},
		{"big endian", ">f4", "(1,)", f32s(1), nil, "little endian"},
		{"object", "|O", "(1,)", []byte{0}, nil, "unsupported dtype"},
		{"short data", "<f8", "(2,)", f32s(1), nil, "needs 16 bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := ReadNPY(npyBytes(c.descr, c.shape, c.data))
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			require.True(t, a.Type.Equal(c.want), "%s vs %s", a.Type, c.want)
			if c.descr == "|b1" {
				require.Equal(t, []byte{0, 1}, a.Data)
			} else {
				require.Equal(t, c.data, a.Data)
			}
		})
	}
	_, err := ReadNPY([]byte("not numpy"))
	require.ErrorContains(t, err, "bad magic")
}

func TestReadNPZ(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, data := range map[string][]byte{
		"in0.npy":  npyBytes("<f4", "(2,)", f32s(1, 2)),
		"out0.npy": npyBytes("<i4", "(1,)", []byte{3, 0, 0, 0}),
	} {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
		require.NoError(t, err)
		w.Write(data)
	}
	require.NoError(t, zw.Close())
	arrays, err := ReadNPZ(buf.Bytes())
	require.NoError(t, err)
	require.Len(t, arrays, 2)
	require.Equal(t, "tensor<2xf32>", arrays["in0"].Type.String())
	require.Equal(t, "tensor<1xi32>", arrays["out0"].Type.String())

	// A real vector of the jax-export corpus.
	data, err := os.ReadFile(testenv.Data(t, "jax-export", "cpu_schur_lapack_gees#0.npz"))
	require.NoError(t, err)
	arrays, err = ReadNPZ(data)
	require.NoError(t, err)
	require.Equal(t, "tensor<4x4xcomplex<f64>>", arrays["in0"].Type.String())
}

func TestFailuresFile(t *testing.T) {
	rs := []Result{
		{Name: "b", Status: Fail, Reason: "boom\nwith newline"},
		{Name: "a", Status: Pass},
		{Name: "c", Status: Skip, Reason: "n/a"},
		{Name: "d", Status: Fail, Reason: "bad"},
	}
	path := filepath.Join(t.TempDir(), "x_failures.txt")
	require.NoError(t, WriteFailures(path, "x", "go test -update-failures", rs))
	known, err := ReadFailures(path)
	require.NoError(t, err)
	require.Equal(t, map[string]string{"b": "boom with newline", "d": "bad"}, known)
	text, _ := os.ReadFile(path)
	require.Contains(t, string(text), "# 1 passed, 2 failed, 1 skipped of 4 cases (pass rate 25.00% = 1/4, skipped cases count as not passed; 33.33% of the 3 that ran)")
	require.Contains(t, string(text), "#   1: n/a")

	// A verdict note on a known failure survives regeneration (once).
	text = []byte(strings.Replace(string(text), "d\tbad", "d\t[verdict: gojax closer [1 ULP]] bad", 1))
	require.NoError(t, os.WriteFile(path, text, 0o644))
	for range 2 {
		require.NoError(t, WriteFailures(path, "x", "go test -update-failures", rs))
		known, err = ReadFailures(path)
		require.NoError(t, err)
		require.Equal(t, "[verdict: gojax closer [1 ULP]] bad", known["d"])
		require.Equal(t, "boom with newline", known["b"])
	}

	now := []Result{{Name: "b", Status: Pass}, {Name: "d", Status: Fail}, {Name: "e", Status: Fail, Reason: "new"}}
	regressions, fixed := Compare(now, known)
	require.Equal(t, []Result{{Name: "e", Status: Fail, Reason: "new"}}, regressions)
	require.Equal(t, []Result{{Name: "b", Status: Pass}}, fixed)

	missing, err := ReadFailures(filepath.Join(t.TempDir(), "none.txt"))
	require.NoError(t, err)
	require.Empty(t, missing)
}

func TestSummary(t *testing.T) {
	s := Summarize([]Result{{Status: Pass}, {Status: Pass}, {Status: Fail}, {Status: Skip}})
	require.Equal(t, Summary{Passed: 2, Failed: 1, Skipped: 1}, s)
	require.InDelta(t, 2.0/4, s.PassRate(), 1e-12)
	require.InDelta(t, 2.0/3, s.RunPassRate(), 1e-12)
	require.Equal(t, 0.0, Summary{Skipped: 3}.PassRate())
	require.Equal(t, 0.0, Summary{Skipped: 3}.RunPassRate())
}

// c128Array packs a row-major complex matrix batch as complex128.
func c128Array(shape []int64, vs []complex128) *Array {
	b := make([]byte, 16*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint64(b[16*i:], math.Float64bits(real(v)))
		binary.LittleEndian.PutUint64(b[16*i+8:], math.Float64bits(imag(v)))
	}
	return &Array{Type: ir.Tensor(ir.C128, shape...), Data: b}
}

func f64Array(shape []int64, vs []float64) *Array {
	b := make([]byte, 8*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
	}
	return &Array{Type: ir.Tensor(ir.F64, shape...), Data: b}
}

func i32Array(vs ...int32) *Array {
	b := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(v))
	}
	return &Array{Type: ir.Tensor(ir.S32, int64(len(vs))), Data: b}
}

func TestPropertyChecks(t *testing.T) {
	// Triangular solve: A X = B with A lower triangular.
	a := []complex128{2, 0, 1, 4}
	x := []complex128{1, 2, 3, 4}
	b := []complex128{2, 4, 13, 18}
	ins := []*Array{c128Array([]int64{2, 2}, a), c128Array([]int64{2, 2}, b)}
	require.NoError(t, checkTriangularSolve(ins, []*Array{c128Array([]int64{2, 2}, x)}, nil, 1e-12, 0))
	require.ErrorContains(t, checkTriangularSolve(ins, []*Array{c128Array([]int64{2, 2}, []complex128{1, 2, 3, 5})}, nil, 1e-12, 0), "not close")

	// SVD of diag(3, 2) with a rotation: A = U diag(s) V^H.
	c, s := complex(math.Cos(0.3), 0), complex(math.Sin(0.3), 0)
	u := []complex128{c, -s, s, c}
	vh := []complex128{1, 0, 0, 1}
	in := c128Array([]int64{1, 2, 2}, []complex128{3 * c, -2 * s, 3 * s, 2 * c})
	good := []*Array{c128Array([]int64{1, 2, 2}, u), f64Array([]int64{1, 2}, []float64{3, 2}), c128Array([]int64{1, 2, 2}, vh)}
	require.NoError(t, checkSVD([]*Array{in}, good, nil, 0, 0))
	bad := []*Array{good[0], f64Array([]int64{1, 2}, []float64{3, 2.001}), good[2]}
	require.ErrorContains(t, checkSVD([]*Array{in}, bad, nil, 0, 0), "reconstruction")

	// LU of arange(9).reshape(3, 3) computed by partial pivoting here.
	lu, piv := luArange(3)
	require.NoError(t, checkLU(nil, []*Array{c128Array([]int64{3, 3}, lu), i32Array(piv...)}, nil, 1e-12, 1e-12))
	lu[4] += 0.5
	require.ErrorContains(t, checkLU(nil, []*Array{c128Array([]int64{3, 3}, lu), i32Array(piv...)}, nil, 1e-12, 1e-12), "not close")

	// Eigenvalues as a set, and a residual check that rejects garbage vectors.
	require.NoError(t, sameSet("w", []complex128{2, 1}, []complex128{1, 2}, 1e-9, 0))
	require.Error(t, sameSet("w", []complex128{2, 2}, []complex128{1, 2}, 1e-9, 0))
	w := c128Array([]int64{2}, []complex128{0, 0})
	vecs := c128Array([]int64{2, 2}, []complex128{1, 0, 0, 1})
	require.ErrorContains(t, checkEig(nil, []*Array{w, vecs, vecs}, []*Array{w, vecs, vecs}, 1e-9, 1e-9), "residual")

	// Top-k: values must be the input at the indices.
	inK := &Array{Type: ir.Tensor(ir.F32, 1, 3), Data: f32s(5, 9, 7)}
	goodK := []*Array{{Type: ir.Tensor(ir.F32, 1, 2), Data: f32s(9, 7)}, {Type: ir.Tensor(ir.S32, 1, 2), Data: i32Array(1, 2).Data}}
	wantK := []*Array{{Type: ir.Tensor(ir.F32, 1, 2), Data: f32s(7, 9)}, goodK[1]}
	require.NoError(t, checkTopK([]*Array{inK}, goodK, wantK, 1e-7, 0))
	badK := []*Array{goodK[0], {Type: ir.Tensor(ir.S32, 1, 2), Data: i32Array(0, 2).Data}}
	require.ErrorContains(t, checkTopK([]*Array{inK}, badK, wantK, 1e-7, 0), "but input[0]")
}

// luArange factors arange(n*n).reshape(n, n) with partial pivoting (LAPACK
// getrf convention: packed L\U and 0-based row swaps).
func luArange(n int) ([]complex128, []int32) {
	a := make([]complex128, n*n)
	for i := range a {
		a[i] = complex(float64(i), 0)
	}
	piv := make([]int32, n)
	for k := 0; k < n; k++ {
		p := k
		for i := k + 1; i < n; i++ {
			if cmplx.Abs(a[i*n+k]) > cmplx.Abs(a[p*n+k]) {
				p = i
			}
		}
		piv[k] = int32(p)
		for j := 0; j < n; j++ {
			a[k*n+j], a[p*n+j] = a[p*n+j], a[k*n+j]
		}
		if a[k*n+k] == 0 {
			continue
		}
		for i := k + 1; i < n; i++ {
			a[i*n+k] /= a[k*n+k]
			for j := k + 1; j < n; j++ {
				a[i*n+j] -= a[i*n+k] * a[k*n+j]
			}
		}
	}
	return a, piv
}

func init() {
	extraJobKinds["test-crash"] = func(j Job) Result {
		go func() { panic("deliberate crash in a goroutine") }()
		time.Sleep(10 * time.Second)
		return Result{Name: j.Name, Status: Pass}
	}
	extraJobKinds["test-hang"] = func(j Job) Result {
		select {}
	}
	extraJobKinds["test-ok"] = func(j Job) Result { return Result{Name: j.Name, Status: Pass, Reason: "ok"} }
}

// TestWorkerPool: crashes and hangs cost one case, and the pool recovers.
func TestWorkerPool(t *testing.T) {
	pool, err := NewPool(2 * time.Second)
	require.NoError(t, err)
	defer pool.Close()
	r := pool.Run(Job{Kind: "test-ok", Name: "a"})
	require.Equal(t, Result{Name: "a", Status: Pass, Reason: "ok"}, r)
	r = pool.Run(Job{Kind: "test-crash", Name: "b"})
	require.Equal(t, Fail, r.Status)
	require.Contains(t, r.Reason, "worker crashed")
	require.Contains(t, r.Reason, "deliberate crash")
	r = pool.Run(Job{Kind: "test-ok", Name: "c"})
	require.Equal(t, Pass, r.Status)
	r = pool.Run(Job{Kind: "test-hang", Name: "d"})
	require.Equal(t, Result{Name: "d", Status: Fail, Reason: "timeout after 2s"}, r)
	r = pool.Run(Job{Kind: "nope", Name: "e"})
	require.Equal(t, Fail, r.Status)
	require.Contains(t, r.Reason, "unknown job kind")
}

// TestSerializeTranslation runs serialize.py's own tests (check-op rewriting,
// entry selection) and roundtrip.py's (error bounds of accumulating
// programs) when python is available.
func TestSerializeTranslation(t *testing.T) {
	py := testenv.Python(t)
	cmd := exec.Command(py, "-m", "unittest", "-q", "serialize_test", "roundtrip_test")
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
}

// TestJAXExportDetectsWrongOutputs reruns a real vector with a corrupted
// expected output: the runner must notice.
func TestJAXExportDetectsWrongOutputs(t *testing.T) {
	src := testenv.Data(t, "jax-export")
	const name = "cpu_cholesky_lapack_potrf#3"
	entries, err := LoadExportIndex(src)
	require.NoError(t, err)
	var entry *ExportEntry
	for i := range entries {
		if entries[i].Name == name {
			entry = &entries[i]
		}
	}
	require.NotNil(t, entry)
	code, err := os.ReadFile(filepath.Join(src, name+".bc"))
	require.NoError(t, err)
	npz, err := os.ReadFile(filepath.Join(src, name+".npz"))
	require.NoError(t, err)
	arrays, err := ReadNPZ(npz)
	require.NoError(t, err)

	write := func(corrupt bool) string {
		dir := t.TempDir()
		index, err := os.ReadFile(filepath.Join(src, "index.json"))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "index.json"), index, 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name+".bc"), code, 0o644))
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for key, a := range arrays {
			data := append([]byte(nil), a.Data...)
			if corrupt && key == "out0" {
				v := math.Float64frombits(binary.LittleEndian.Uint64(data))
				binary.LittleEndian.PutUint64(data, math.Float64bits(v*1.001+1))
			}
			descr := map[ir.ElemType]string{ir.F32: "<f4", ir.F64: "<f8", ir.C64: "<c8", ir.C128: "<c16", ir.S32: "<i4"}[a.Type.Elem]
			shape := "("
			for _, d := range a.Type.Shape {
				shape += fmt.Sprintf("%d, ", d)
			}
			w, err := zw.CreateHeader(&zip.FileHeader{Name: key + ".npy", Method: zip.Store})
			require.NoError(t, err)
			w.Write(npyBytes(descr, shape+")", data))
		}
		require.NoError(t, zw.Close())
		require.NoError(t, os.WriteFile(filepath.Join(dir, name+".npz"), buf.Bytes(), 0o644))
		return dir
	}
	skip, err := runJAXExport(write(false), name, "")
	require.Empty(t, skip)
	require.NoError(t, err, "the uncorrupted vector must pass")
	_, err = runJAXExport(write(true), name, "")
	require.ErrorContains(t, err, "output 0: 1 of")
}
