package compiler

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
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

// mlpStepArtifact exports the MLP step with the shared venv's JAX
// (../venv from the repository root), or skips.
func mlpStepArtifact(tb testing.TB) []byte {
	tb.Helper()
	root, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(root)
		if parent == root {
			tb.Skip("repository root not found")
		}
		root = parent
	}
	python := filepath.Join(root, "..", "venv", "bin", "python")
	if _, err := os.Stat(python); err != nil {
		tb.Skipf("no JAX venv at %s", python)
	}
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
