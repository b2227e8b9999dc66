package elementwise

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/cmplx"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gojax/gojax/go/internal/testenv"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/floatconv"
	"github.com/stretchr/testify/require"
)

// The differential test runs testdata/oracle.py, which computes expected
// results with XLA's CPU backend (jax.lax) and ml_dtypes, and checks every
// case against the kernels. Python is required: the test fails without it.
// Results are cached by script hash under the OS temp dir.

type oracleBuf struct {
	Type  string  `json:"type"`
	Shape []int64 `json:"shape"`
	File  string  `json:"file"`
}

type oracleCase struct {
	Op    string         `json:"op"`
	Attrs map[string]any `json:"attrs"`
	Tol   string         `json:"tol"`
	Ins   []oracleBuf    `json:"ins"`
	Out   oracleBuf      `json:"out"`
}

func oracleDir(t *testing.T) string {
	t.Helper()
	script, err := os.ReadFile("testdata/oracle.py")
	require.NoError(t, err)
	sum := sha256.Sum256(script)
	dir := filepath.Join(os.TempDir(), "gojax-elementwise-oracle-"+hex.EncodeToString(sum[:8]))
	if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err == nil {
		return dir
	}
	py := testenv.Python(t) // numpy, ml_dtypes and jax
	tmp, err := os.MkdirTemp(os.TempDir(), "gojax-oracle-tmp-")
	require.NoError(t, err)
	cmd := exec.Command(py, "testdata/oracle.py", tmp)
	out, err := cmd.CombinedOutput()
	require.NoErrorf(t, err, "oracle.py failed:\n%s", out)
	if err := os.Rename(tmp, dir); err != nil {
		// Another test process may have produced the same cache meanwhile.
		_ = os.RemoveAll(tmp)
		_, statErr := os.Stat(filepath.Join(dir, "manifest.json"))
		require.NoErrorf(t, statErr, "caching oracle output: %v", err)
	}
	return dir
}

func TestOracle(t *testing.T) {
	dir := oracleDir(t)
	raw, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	require.NoError(t, err)
	var cases []oracleCase
	require.NoError(t, json.Unmarshal(raw, &cases))
	require.Greater(t, len(cases), 1000)
	load := func(b oracleBuf) arg {
		et, ok := ir.ParseElemType(b.Type)
		require.Truef(t, ok, "type %s", b.Type)
		data, err := os.ReadFile(filepath.Join(dir, b.File))
		require.NoError(t, err)
		return arg{ir.Tensor(et, b.Shape...), data}
	}
	failed := 0
	for i, c := range cases {
		ins := make([]arg, len(c.Ins))
		var sig string
		for j, b := range c.Ins {
			ins[j] = load(b)
			sig += b.Type + ","
		}
		want := load(c.Out)
		name := fmt.Sprintf("%d/%s(%s)->%s", i, c.Op, sig, c.Out.Type)
		attrs := ir.Attrs{}
		for k, v := range c.Attrs {
			switch v := v.(type) {
			case string:
				attrs[k] = ir.EnumAttr{Kind: k, Value: v}
			case float64:
				attrs[k] = ir.IntAttr{Value: int64(v), Type: ir.S32}
			}
		}
		got, err := tryOp(c.Op, attrs, want.t, ins...)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			failed++
			continue
		}
		if msg := compareResult(want.t.Elem, c.Tol, got, want.data, ins); msg != "" {
			t.Errorf("%s %v: %s", name, c.Attrs, msg)
			failed++
		}
		if failed > 40 {
			t.Fatal("too many failures")
		}
	}
	t.Logf("%d oracle cases", len(cases))
}

// elemF64 decodes element i of a float-like type.
func elemF64(t ir.ElemType, b []byte, i int) float64 {
	var out [1]float64
	toF64(t)(out[:], b[i*t.ByteSize():(i+1)*t.ByteSize()])
	return out[0]
}

func minNormal(t ir.ElemType) float64 {
	switch t {
	case ir.F32, ir.BF16, ir.C64:
		return 0x1p-126
	case ir.F64, ir.C128:
		return 0x1p-1022
	}
	return 0
}

// ulpKey maps a float64 onto a monotone integer scale in units of the
// type's precision, so distances count ulps of t.
func ulpDist(t ir.ElemType, a, b float64) float64 {
	if a == b {
		return 0
	}
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return math.Inf(1)
	}
	mbits := map[ir.ElemType]int{ir.F32: 23, ir.F64: 52, ir.BF16: 7, ir.F16: 10}[t]
	f, small := floatconv.Of(t)
	if small {
		mbits = f.MantBits()
	}
	e := math.Max(math.Abs(a), math.Abs(b))
	_, exp := math.Frexp(e)
	ulp := math.Ldexp(1, exp-1-mbits)
	if small {
		ulp = math.Max(ulp, f.Quantum())
	}
	if t == ir.F16 {
		ulp = math.Max(ulp, 0x1p-24)
	}
	return math.Abs(a-b) / ulp
}

func compareResult(t ir.ElemType, tol string, got, want []byte, ins []arg) string {
	if len(got) != len(want) {
		return fmt.Sprintf("got %d bytes, want %d", len(got), len(want))
	}
	if tol == "bits" || !(t.IsFloat() || t.IsComplex()) {
		for i := range got {
			if got[i] != want[i] {
				es := t.ByteSize()
				e := i / es
				return fmt.Sprintf("element %d: got % x, want % x (inputs %s)", e, got[e*es:(e+1)*es], want[e*es:(e+1)*es], describeInputs(ins, e))
			}
		}
		return ""
	}
	n := len(got) / t.ByteSize()
	if t.IsComplex() {
		pt := partType(t)
		for i := range n {
			gz := complex(elemF64(pt, got, 2*i), elemF64(pt, got, 2*i+1))
			wz := complex(elemF64(pt, want, 2*i), elemF64(pt, want, 2*i+1))
			if !closeComplex(pt, tol, gz, wz) {
				return fmt.Sprintf("element %d: got %v, want %v (inputs %s)", i, gz, wz, describeInputs(ins, i))
			}
		}
		return ""
	}
	for i := range n {
		g, w := elemF64(t, got, i), elemF64(t, want, i)
		if !closeFloat(t, tol, g, w) {
			es := t.ByteSize()
			return fmt.Sprintf("element %d: got %v (% x), want %v (% x) (inputs %s)", i, g, got[i*es:(i+1)*es], w, want[i*es:(i+1)*es], describeInputs(ins, i))
		}
	}
	return ""
}

func closeFloat(t ir.ElemType, tol string, g, w float64) bool {
	if math.IsNaN(g) || math.IsNaN(w) {
		return math.IsNaN(g) && math.IsNaN(w)
	}
	if strings.HasSuffix(tol, ",zsign") {
		tol = strings.TrimSuffix(tol, ",zsign")
		if g == 0 && w == 0 {
			return true
		}
	}
	if tol != "exact" {
		// XLA's CPU backend flushes subnormal f32/f64/bf16 results to zero.
		if mn := minNormal(t); math.Abs(g) < mn && math.Abs(w) < mn {
			return true
		}
	}
	if math.Float64bits(g) == math.Float64bits(w) {
		return true
	}
	var n float64
	if _, err := fmt.Sscanf(tol, "ulp:%g", &n); err == nil {
		return ulpDist(t, g, w) <= n
	}
	if _, err := fmt.Sscanf(tol, "rel:%g", &n); err == nil {
		return math.Abs(g-w) <= n*math.Abs(w)
	}
	return false
}

func closeComplex(pt ir.ElemType, tol string, g, w complex128) bool {
	if cmplx.IsNaN(g) || cmplx.IsNaN(w) {
		return closeFloat(pt, "exact", real(g), real(w)) && closeFloat(pt, "exact", imag(g), imag(w)) ||
			cmplx.IsNaN(g) && cmplx.IsNaN(w)
	}
	if g == w {
		return true
	}
	var r float64
	if _, err := fmt.Sscanf(tol, "rel:%g", &r); err == nil {
		return cmplx.Abs(g-w) <= r*math.Max(cmplx.Abs(w), 1e-30)
	}
	return closeFloat(pt, tol, real(g), real(w)) && closeFloat(pt, tol, imag(g), imag(w))
}

func describeInputs(ins []arg, i int) string {
	s := ""
	for _, a := range ins {
		es := a.t.Elem.ByteSize()
		if a.t.Rank() == 0 {
			i2 := 0
			s += fmt.Sprintf("[% x] ", a.data[i2*es:(i2+1)*es])
			continue
		}
		if (i+1)*es <= len(a.data) {
			v := a.data[i*es : (i+1)*es]
			if a.t.Elem.IsFloat() {
				s += fmt.Sprintf("%v(% x) ", elemF64(a.t.Elem, a.data, i), v)
			} else {
				s += fmt.Sprintf("[% x] ", v)
			}
		}
	}
	return s
}
