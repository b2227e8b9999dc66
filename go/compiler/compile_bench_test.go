package compiler

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gojax/gojax/go/internal/testenv"
	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// mlpStepScript exports one Adam training step of a 784-512-512-10 MLP
// (softmax cross-entropy, batch 128) as a portable StableHLO artifact.
const mlpStepScript = `
import sys, jax, jax.numpy as jnp
from jax import export

def init(sizes):
    k = jax.random.PRNGKey(0)
    ps = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        k, k1 = jax.random.split(k)
        ps.append((jax.random.normal(k1, (a, b), jnp.float32) * 0.01, jnp.zeros((b,), jnp.float32)))
    return ps

def loss(ps, x, y):
    h = x
    for w, b in ps[:-1]:
        h = jax.nn.relu(h @ w + b)
    w, b = ps[-1]
    logits = h @ w + b
    logp = jax.nn.log_softmax(logits)
    return -jnp.mean(jnp.sum(logp * jax.nn.one_hot(y, logits.shape[-1]), axis=-1))

def adam(p, g, m, v, t):
    m = 0.9 * m + 0.1 * g
    v = 0.999 * v + 0.001 * g * g
    mh = m / (1 - 0.9 ** t)
    vh = v / (1 - 0.999 ** t)
    return p - 1e-3 * mh / (jnp.sqrt(vh) + 1e-8), m, v

@jax.jit
def step(ps, ms, vs, t, x, y):
    l, g = jax.value_and_grad(loss)(ps, x, y)
    out = jax.tree.map(lambda p, g, m, v: adam(p, g, m, v, t), ps, g, ms, vs)
    leaf = lambda o: isinstance(o, tuple) and len(o) == 3 and not isinstance(o[0], tuple)
    ps = jax.tree.map(lambda o: o[0], out, is_leaf=leaf)
    ms = jax.tree.map(lambda o: o[1], out, is_leaf=leaf)
    vs = jax.tree.map(lambda o: o[2], out, is_leaf=leaf)
    return ps, ms, vs, l

ps = init([784, 512, 512, 10])
zs = jax.tree.map(jnp.zeros_like, ps)
x = jnp.zeros((128, 784), jnp.float32)
y = jnp.zeros((128,), jnp.int32)
exp = export.export(step)(ps, zs, zs, jnp.float32(1), x, y)
open(sys.argv[1], "wb").write(exp.mlir_module_serialized)
`

// mlpStepArtifact exports the MLP step with the oracle venv's JAX
// (testenv.Python).
func mlpStepArtifact(tb testing.TB) []byte {
	tb.Helper()
	python := testenv.Python(tb)
	dir := tb.TempDir()
	script, out := filepath.Join(dir, "export.py"), filepath.Join(dir, "mlp_step.bc")
	if err := os.WriteFile(script, []byte(mlpStepScript), 0o644); err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(python, script, out)
	cmd.Env = append(os.Environ(), "JAX_PLATFORMS=cpu")
	if msg, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("exporting the MLP step: %v\n%s", err, msg)
	}
	code, err := os.ReadFile(out)
	if err != nil {
		tb.Fatal(err)
	}
	return code
}

// BenchmarkCompileMLPStep measures Compile of a realistic training step.
func BenchmarkCompileMLPStep(b *testing.B) {
	code := mlpStepArtifact(b)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		e, err := Compile(code, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if b.N == 1 {
			b.Logf("%d bytes; %+v", len(code), e.Stats())
		}
	}
}

func TestMLPStepFusedMatchesUnfused(t *testing.T) {
	code := mlpStepArtifact(t)
	fused, err := Compile(code, Options{})
	require.NoError(t, err)
	ref, err := Compile(code, Options{NoFuse: true})
	require.NoError(t, err)
	t.Logf("kernel steps: fused %d, unfused %d", fused.Stats().KernelSteps, ref.Stats().KernelSteps)
	require.Less(t, fused.Stats().KernelSteps, ref.Stats().KernelSteps)
	args := mlpArgs(fused)
	require.Equal(t, runCopy(t, ref, args, nil), runCopy(t, fused, args, nil))
}

// mlpArgs fills every argument with small pseudo-random values (labels in
// range for int32 arguments).
func mlpArgs(e *Executable) [][]byte {
	r := rand.New(rand.NewPCG(1, 2))
	var args [][]byte
	for _, t := range e.InputTypes() {
		tt := t.(*ir.TensorType)
		n := int(tt.NumElements())
		if tt.Elem == ir.S32 {
			v := make([]int32, n)
			for i := range v {
				v[i] = int32(r.IntN(10))
			}
			args = append(args, i32s(v...))
			continue
		}
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(r.NormFloat64() * 0.1)
		}
		if n == 1 {
			v[0] = 3 // the step count
		}
		args = append(args, f32s(v...))
	}
	return args
}

// BenchmarkMLPStepRun runs the exported training step, fused and unfused.
func BenchmarkMLPStepRun(b *testing.B) {
	code := mlpStepArtifact(b)
	for _, c := range []struct {
		name string
		opts Options
	}{{"fused", Options{}}, {"unfused", Options{NoFuse: true}}} {
		b.Run(c.name, func(b *testing.B) {
			e, err := Compile(code, c.opts)
			if err != nil {
				b.Fatal(err)
			}
			args := mlpArgs(e)
			b.ResetTimer()
			cpu0 := cpuTime()
			for range b.N {
				res, err := e.Run(args, nil)
				if err != nil {
					b.Fatal(err)
				}
				freeAll(res)
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}
