"""Whole training steps of sharded models on several gojax devices, compared
with XLA:CPU on as many host devices in the same process: a data-parallel
MLP, a tensor-parallel (Megatron-style) MLP, a 2-D data x model mesh and a
sharded transformer block, several SGD steps each.

Losses and updated parameters must agree within float32 rounding (the two
backends sum dot products in different orders; the bound scales with the
largest magnitude involved); quantities whose math does not depend on the
order of operations (integer sums, maxima over sharded inputs) must be
bit-identical. Output shardings and shard shapes must be the same.

Each test runs in a fresh interpreter: the device counts must be set before
JAX starts."""

from __future__ import annotations

from gojax_testutil import check_python


def env(n):
    return {"GOJAX_NUM_DEVICES": str(n), "XLA_FLAGS": f"--xla_force_host_platform_device_count={n}"}


PRELUDE = """
import os
import numpy as np, jax, jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P, AxisType
N = int(os.environ["GOJAX_NUM_DEVICES"])
GJ, XL = jax.devices("gojax")[:N], jax.devices("cpu")[:N]
assert len(GJ) == N and len(XL) == N, (GJ, XL)
RNG = np.random.default_rng(0)

def rand(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float32)

def train(devs, shape, names, axis_type, step, params, specs, batches, batch_specs, steps):
    # Places params and batches on a mesh of devs, runs `steps` jitted steps;
    # returns (outputs of each step, final params, mesh).
    mesh = jax.make_mesh(shape, names, axis_types=(axis_type,) * len(names), devices=devs)
    put = lambda tree, sp: jax.tree.map(lambda a, s: jax.device_put(a, NamedSharding(mesh, s)), tree, sp)
    p = put(params, specs)
    f = jax.jit(step, donate_argnums=0)
    outs = []
    with jax.set_mesh(mesh):
        for i in range(steps):
            p, out = f(p, *put(batches[i], batch_specs))
            outs.append(out)
    jax.block_until_ready((p, outs))
    return outs, p, mesh

def compare(got, want, exact_keys=()):
    # got/want: (outs, params, mesh) of gojax and XLA:CPU.
    (go, gp, gm), (xo, xp, xm) = got, want
    for i, (a, b) in enumerate(zip(go, xo)):
        for k in b:
            u, v = np.asarray(a[k]), np.asarray(b[k])
            if k in exact_keys:
                assert np.array_equal(u, v), (i, k, u, v)
            else:
                close(u, v, (i, k))
    gl, xl = jax.tree.leaves(gp), jax.tree.leaves(xp)
    assert len(gl) == len(xl)
    for j, (a, b) in enumerate(zip(gl, xl)):
        close(np.asarray(a), np.asarray(b), ("param", j))
        same_layout(a, b, xm, ("param", j))
    for i, (a, b) in enumerate(zip(go, xo)):
        for k in b:
            same_layout(a[k], b[k], xm, (i, k))

def close(u, v, where):
    assert u.shape == v.shape and u.dtype == v.dtype, (where, u.shape, v.shape, u.dtype, v.dtype)
    # float32 sums of a few hundred terms: relative error well under 1e-4 of
    # the largest magnitude in the tensor.
    scale = max(float(np.max(np.abs(v))), 1e-30)
    err = float(np.max(np.abs(u.astype(np.float64) - v.astype(np.float64))))
    assert err <= 1e-4 * scale, (where, err, scale)

def same_layout(a, b, xmesh, where):
    # gojax's sharding carried over to the XLA mesh must be equivalent to
    # XLA's, and every device must hold a shard of the same shape.
    sa, sb = a.sharding, b.sharding
    assert isinstance(sa, NamedSharding) and isinstance(sb, NamedSharding), (where, sa, sb)
    assert NamedSharding(xmesh, sa.spec).is_equivalent_to(sb, a.ndim), (where, sa, sb)
    ga = sorted((s.device.id, s.data.shape) for s in a.addressable_shards)
    gb = sorted((s.device.id, s.data.shape) for s in b.addressable_shards)
    assert ga == gb, (where, ga, gb)

def sgd(params, grads, lr=0.05):
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)

def mlp(p, x, constrain=None):
    h = jax.nn.relu(x @ p["w1"] + p["b1"])
    if constrain is not None:
        h = jax.lax.with_sharding_constraint(h, constrain)
    return h @ p["w2"] + p["b2"]

def both(*a, **kw):
    return train(GJ, *a, **kw), train(XL, *a, **kw)
"""


def test_data_parallel_mlp_training():
    out = check_python(PRELUDE + """
D, H, O, B, STEPS = 16, 32, 4, 8 * N, 3
params = {"w1": rand(D, H, scale=0.3), "b1": rand(H, scale=0.1), "w2": rand(H, O, scale=0.3), "b2": rand(O, scale=0.1)}
specs = jax.tree.map(lambda _: P(), params)
batches = [(rand(B, D), RNG.integers(0, O, B).astype(np.int32)) for _ in range(STEPS)]

def step(p, x, y):
    def loss_fn(p):
        logits = mlp(p, x)
        return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), y[:, None], axis=1))
    loss, g = jax.value_and_grad(loss_fn)(p)
    # Integer sums and maxima over the sharded batch do not depend on the
    # order of the cross-shard reduction.
    return sgd(p, g), {"loss": loss, "label_sum": jnp.sum(y), "x_max": jnp.max(jnp.abs(x))}

got, want = both((N,), ("data",), AxisType.Auto, step, params, specs, batches, (P("data"), P("data")), STEPS)
compare(got, want, exact_keys=("label_sum", "x_max"))
assert got[0][-1]["loss"] < got[0][0]["loss"]
print("ok")
""", env=env(4))
    assert "ok" in out


def test_tensor_parallel_megatron_mlp_training():
    out = check_python(PRELUDE + """
D, H, B, STEPS = 16, 8 * N, 12, 3
params = {"w1": rand(D, H, scale=0.3), "b1": rand(H, scale=0.1), "w2": rand(H, D, scale=0.3), "b2": rand(D, scale=0.1)}
# Column-parallel first layer, row-parallel second: the hidden activations
# stay sharded over 'model' and the second matmul ends in an all-reduce.
specs = {"w1": P(None, "model"), "b1": P("model"), "w2": P("model", None), "b2": P()}
batches = [(rand(B, D), rand(B, D)) for _ in range(STEPS)]

def step(p, x, t):
    def loss_fn(p):
        return jnp.mean((mlp(p, x, constrain=P(None, "model")) - t) ** 2)
    loss, g = jax.value_and_grad(loss_fn)(p)
    return sgd(p, g), {"loss": loss, "y": mlp(p, x, constrain=P(None, "model"))}

got, want = both((N,), ("model",), AxisType.Auto, step, params, specs, batches, (P(), P()), STEPS)
compare(got, want)
w1 = got[1]["w1"]
assert w1.sharding.spec == P(None, "model") and w1.addressable_shards[0].data.shape == (D, H // N)
print("ok")
""", env=env(4))
    assert "ok" in out


def test_two_d_mesh_data_and_model_training():
    out = check_python(PRELUDE + """
D, H, B, STEPS = 16, 32, 16, 3
params = {"w1": rand(D, H, scale=0.3), "b1": rand(H, scale=0.1), "w2": rand(H, D, scale=0.3), "b2": rand(D, scale=0.1)}
specs = {"w1": P(None, "model"), "b1": P("model"), "w2": P("model", None), "b2": P()}
batches = [(rand(B, D), rand(B, D)) for _ in range(STEPS)]

def step(p, x, t):
    def loss_fn(p):
        return jnp.mean((mlp(p, x, constrain=P("data", "model")) - t) ** 2)
    loss, g = jax.value_and_grad(loss_fn)(p)
    return sgd(p, g), {"loss": loss, "x_max": jnp.max(x)}

got, want = both((4, 2), ("data", "model"), AxisType.Auto, step, params, specs, batches, (P("data"), P("data")), STEPS)
compare(got, want, exact_keys=("x_max",))
print("ok")
""", env=env(8))
    assert "ok" in out


def test_sharded_transformer_block_training():
    out = check_python(PRELUDE + """
B, T, D, NH, DH, F, STEPS = 4, 8, 16, 4, 4, 32, 2
s = 0.25
params = {"wq": rand(D, NH, DH, scale=s), "wk": rand(D, NH, DH, scale=s), "wv": rand(D, NH, DH, scale=s),
          "wo": rand(NH, DH, D, scale=s), "g1": 1 + rand(D, scale=0.1), "g2": 1 + rand(D, scale=0.1),
          "w1": rand(D, F, scale=s), "b1": rand(F, scale=0.1), "w2": rand(F, D, scale=s), "b2": rand(D, scale=0.1)}
# Heads and the MLP hidden dimension over 'model', the batch over 'data'.
specs = {"wq": P(None, "model", None), "wk": P(None, "model", None), "wv": P(None, "model", None),
         "wo": P("model", None, None), "g1": P(), "g2": P(),
         "w1": P(None, "model"), "b1": P("model"), "w2": P("model", None), "b2": P()}
batches = [(rand(B, T, D), rand(B, T, D)) for _ in range(STEPS)]
causal = np.tril(np.ones((T, T), bool))

def norm(x, g):
    m = jnp.mean(x, -1, keepdims=True)
    v = jnp.mean((x - m) ** 2, -1, keepdims=True)
    return (x - m) * jax.lax.rsqrt(v + 1e-5) * g

def block(p, x):
    h = norm(x, p["g1"])
    q, k, v = (jnp.einsum("btd,dhe->bthe", h, p[w]) for w in ("wq", "wk", "wv"))
    q = jax.lax.with_sharding_constraint(q, P("data", None, "model", None))
    a = jnp.einsum("bqhe,bkhe->bhqk", q, k) / np.sqrt(DH)
    a = jax.nn.softmax(jnp.where(causal, a, -1e9), axis=-1)
    o = jnp.einsum("bhqk,bkhe->bqhe", a, v)
    x = x + jnp.einsum("bthe,hed->btd", o, p["wo"])
    h = jax.nn.gelu(norm(x, p["g2"]) @ p["w1"] + p["b1"])
    h = jax.lax.with_sharding_constraint(h, P("data", None, "model"))
    return x + h @ p["w2"] + p["b2"]

def step(p, x, t):
    def loss_fn(p):
        return jnp.mean((block(p, x) - t) ** 2)
    loss, g = jax.value_and_grad(loss_fn)(p)
    return sgd(p, g, lr=0.1), {"loss": loss, "out": block(p, x)}

got, want = both((2, 2), ("data", "model"), AxisType.Auto, step, params, specs, batches,
                 (P("data"), P("data")), STEPS)
compare(got, want)
print("ok")
""", env=env(4))
    assert "ok" in out


def test_data_parallel_mlp_explicit_axes():
    # Explicit axes (JAX 0.12's default for make_mesh): shardings are part of
    # the types and the step runs under jax.set_mesh.
    out = check_python(PRELUDE + """
D, H, O, B, STEPS = 16, 32, 4, 4 * N, 3
params = {"w1": rand(D, H, scale=0.3), "b1": rand(H, scale=0.1), "w2": rand(H, O, scale=0.3), "b2": rand(O, scale=0.1)}
specs = jax.tree.map(lambda _: P(), params)
batches = [(rand(B, D), rand(B, O)) for _ in range(STEPS)]

def step(p, x, t):
    loss, g = jax.value_and_grad(lambda p: jnp.mean((mlp(p, x) - t) ** 2))(p)
    return sgd(p, g), {"loss": loss, "pred": mlp(p, x)}

got, want = both((N,), ("data",), AxisType.Explicit, step, params, specs, batches, (P("data"), P("data")), STEPS)
compare(got, want)
assert got[0][0]["pred"].sharding.spec == P("data", None)
print("ok")
""", env=env(4))
    assert "ok" in out
