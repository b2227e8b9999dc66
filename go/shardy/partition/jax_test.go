package partition

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/compiler"
	"github.com/gojax/gojax/go/internal/testenv"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
	"github.com/gojax/gojax/go/shardy"
	"github.com/gojax/gojax/go/shardy/propagate"
	"github.com/gojax/gojax/go/vhlo"
)

// jaxPrograms exports sharded programs as JAX writes them (jax.export on
// 8 XLA:CPU devices, mesh axis x) and prints them as base64 StableHLO
// artifacts by name. Their values are checked against XLA:CPU in
// tests/test_spmd_partition.py; here every one must partition with no
// fallback op.
const jaxPrograms = `import os, json, base64
os.environ["JAX_PLATFORMS"] = "cpu"
import numpy as np, jax, jax.numpy as jnp
jax.config.update("jax_num_cpu_devices", 8)
from jax.sharding import NamedSharding, PartitionSpec as P
mesh = jax.make_mesh((8,), ("x",), devices=jax.devices("cpu")[:8])
out = {}
def ex(name, f, args, specs, out_spec=None):
    sh = tuple(jax.tree.map(lambda s: NamedSharding(mesh, s), specs, is_leaf=lambda s: isinstance(s, P)))
    kw = {} if out_spec is None else {"out_shardings": NamedSharding(mesh, out_spec)}
    avals = jax.tree.map(lambda a: jax.ShapeDtypeStruct(np.shape(a), np.asarray(a).dtype), args)
    e = jax.export.export(jax.jit(f, in_shardings=sh, **kw))(*avals)
    out[name] = base64.b64encode(e.mlir_module_serialized).decode()
f32 = lambda *s: np.zeros(s, np.float32)
i32 = lambda *s: np.zeros(s, np.int32)
key = np.zeros((2,), np.uint32)
ex("arange", lambda u: u + jnp.arange(16, dtype=jnp.float32)[:, None], [f32(16, 8)], [P("x")])
ex("pad", lambda u: jnp.pad(u, ((0, 0), (2, 1))), [f32(16, 8)], [P("x")])
ex("unit_dims", lambda u: u.reshape(1, 16, 1, 8).sum(0) * 2, [f32(16, 8)], [P(None, "x")])
ex("sort", lambda u: jnp.sort(u, axis=1), [f32(16, 8)], [P("x")])
ex("pool", lambda u: jax.lax.reduce_window(u, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID"), [f32(8, 6, 6, 3)], [P("x")])
ex("pool_grad", jax.grad(lambda u: jax.lax.reduce_window(u, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID").sum()),
   [f32(8, 6, 6, 3)], [P("x")])
ex("flip", lambda u: jnp.flip(u, 1) * 2, [f32(16, 8)], [P("x")])
ex("conv", lambda u, w: jax.lax.conv_general_dilated(u, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")),
   [f32(8, 6, 6, 3), f32(3, 3, 3, 4)], [P("x"), P()])
ex("embedding", lambda t, i: t[i] * 2, [f32(10, 4), i32(16)], [P(), P("x")])
ex("scatter_add", lambda t, i, g: t.at[i].add(g), [f32(10, 4), i32(16), f32(16, 4)], [P(), P("x"), P("x")])
ex("take_along_axis", lambda u, i: jnp.take_along_axis(u, i, axis=1), [f32(16, 8), i32(16, 3)], [P("x"), P("x")])
ex("fori_loop", lambda u: jax.lax.fori_loop(0, 4, lambda i, h: h * 0.5 + jnp.sin(h) + i, u), [f32(16, 8)], [P("x")])
def layers(u, w):
    return jax.lax.scan(lambda h, wi: (jnp.tanh(h @ wi), None), u, w)[0]
ex("scan_layers", layers, [f32(16, 8), f32(3, 8, 8)], [P("x"), P()])
def layer_sums(u, w):
    return jax.lax.scan(lambda h, wi: (jnp.tanh(h @ wi), jnp.tanh(h @ wi).sum(1)), u, w)
ex("scan_outputs", layer_sums, [f32(16, 8), f32(3, 8, 8)], [P("x"), P()])
ex("cond", lambda u: jax.lax.cond(u.sum() > 0, jnp.sin, jnp.cos, u), [f32(16, 8)], [P("x")])
ex("random_normal", lambda k: jax.random.normal(jax.random.wrap_key_data(k), (16, 8)), [key], [P()], P("x"))
ex("random_bits", lambda k: jax.random.bits(jax.random.wrap_key_data(k), (4, 64)), [key], [P()], P(None, "x"))
def classifier_step(p, x, y):
    def loss(p):
        logits = jax.nn.relu(x @ p["w1"] + p["b1"]) @ p["w2"]
        return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), y[:, None], axis=1))
    l, g = jax.value_and_grad(loss)(p)
    return jax.tree.map(lambda a, b: a - 0.1 * b, p, g), l
ex("classifier_step", classifier_step, [{"w1": f32(16, 32), "b1": f32(32), "w2": f32(32, 4)}, f32(32, 16), i32(32)],
   [{"w1": P(), "b1": P(), "w2": P()}, P("x"), P("x")])
auto = jax.sharding.Mesh(np.array(jax.devices("cpu")[:8]), ("x",))
def smap(f, out_spec):
    return jax.shard_map(f, mesh=auto, in_specs=P("x"), out_specs=out_spec, check_vma=False)
ex("shard_map_psum", smap(lambda u: jax.lax.psum(u * 2, "x"), P()), [f32(16, 8)], [P("x")])
ex("shard_map_collectives", smap(lambda u: jax.lax.ppermute(jax.lax.all_gather(u, "x", tiled=True)[:2], "x",
                                                             [(j, (j + 1) % 8) for j in range(8)]), P("x")),
   [f32(16, 8)], [P("x")])
print(json.dumps(out))
`

// fromJAX reads an exported program and the shardings of its arguments
// and results, as the runtime does.
func fromJAX(t *testing.T, code []byte, partitions int) Input {
	m, err := vhlo.Read(code)
	require.NoError(t, err)
	meshes, err := shardy.Meshes(m)
	require.NoError(t, err)
	f := m.Main()
	in := Input{Module: m, Meshes: meshes, Args: make([]*shardy.Sharding, len(f.Type.Inputs)), Outs: make([]*shardy.Sharding, len(f.Type.Results))}
	read := func(attrs []ir.Attrs, i int, ty ir.Type) *shardy.Sharding {
		if i >= len(attrs) {
			return nil
		}
		a, ok := attrs[i]["sdy.sharding"].(ir.OpaqueAttr)
		if !ok {
			return nil
		}
		s, _, err := shardy.ParseSharding(a.Text, meshes, ty.(*ir.TensorType).Rank())
		require.NoError(t, err)
		if s == nil || s.Mesh.Empty() {
			return nil
		}
		in.Mesh = s.Mesh
		return s
	}
	for i, ty := range f.Type.Inputs {
		in.Args[i] = read(f.ArgAttrs, i, ty)
	}
	for i, ty := range f.Type.Results {
		in.Outs[i] = read(f.ResAttrs, i, ty)
	}
	// Unannotated results take the propagated shardings, as the runtime
	// gives them.
	in.Mesh, err = propagate.Fill(m, meshes, in.Mesh, partitions, in.Outs)
	require.NoError(t, err)
	require.NotNil(t, in.Mesh)
	return in
}

func TestJAXProgramsWithoutFallback(t *testing.T) {
	cmd := exec.Command(testenv.Python(t), "-c", jaxPrograms)
	cmd.Env = append(os.Environ(), "JAX_PLATFORMS=cpu")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "exporting the programs: %s", stderr.String())
	var progs map[string]string
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &progs))
	names := make([]string, 0, len(progs))
	for name := range progs {
		names = append(names, name)
	}
	sort.Strings(names)
	require.NotEmpty(t, names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			code, err := base64.StdEncoding.DecodeString(progs[name])
			require.NoError(t, err)
			in := fromJAX(t, code, 8)
			pr, err := Build(in)
			require.NoError(t, err)
			require.Empty(t, pr.FallbackOps)
			if strings.HasPrefix(name, "shard_map") {
				// One manual computation over the whole mesh: its body is
				// each partition's program.
				for _, part := range pr.Parts {
					for _, op := range part.Main().Entry().Ops {
						require.NotEqual(t, "sdy.manual_computation", op.Name)
					}
				}
			}
			if strings.HasPrefix(name, "random") {
				// Partitionable threefry: a pure map of the counters.
				require.Zero(t, pr.Collectives)
			}
			n := in.Mesh.Size()
			for q := 0; q < n; q++ {
				_, err := compiler.CompileModule(pr.Parts[q], compiler.Options{Partition: &kernel.Partition{Self: q, Count: n, Meet: kernel.NewRendezvous(n)}})
				require.NoError(t, err, "partition %d", q)
			}
			t.Logf("%d local ops, %d collectives", pr.Local, pr.Collectives)
		})
	}
}
