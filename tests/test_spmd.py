"""SPMD programs on several gojax devices, compared with XLA:CPU on as many
host devices in the same process: shard_map bodies (sdy.manual_computation,
run once per partition with their collectives) and sharded jit.

Each test runs in a fresh interpreter: the device counts must be set before
JAX starts."""

from __future__ import annotations

import pytest

from gojax_testutil import check_python, run_python

ENV = {"GOJAX_NUM_DEVICES": "4", "XLA_FLAGS": "--xla_force_host_platform_device_count=4"}

PRELUDE = """
import numpy as np, jax, jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
GJ, XL = jax.devices("gojax")[:4], jax.devices("cpu")[:4]
assert len(GJ) == 4 and len(XL) == 4, (GJ, XL)

def both(build, *args):
    outs = []
    for devs in (GJ, XL):
        f, put = build(devs)
        outs.append(jax.tree.map(np.asarray, f(*put(args))))
    return outs

def same(a, b, exact=True):
    la, lb = jax.tree.leaves(a), jax.tree.leaves(b)
    assert len(la) == len(lb)
    for i, (u, v) in enumerate(zip(la, lb)):
        assert u.shape == v.shape and u.dtype == v.dtype, (i, u.shape, v.shape)
        if exact:
            assert np.array_equal(u, v), (i, u, v)
        else:
            np.testing.assert_allclose(u, v, rtol=1e-5, atol=1e-6)
"""


def test_shard_map_collectives_match_xla():
    out = check_python(PRELUDE + """
def build(devs):
    mesh = Mesh(np.array(devs).reshape(2, 2), ("a", "b"))
    def f(x):
        return (jax.lax.psum(x, "a") + jax.lax.axis_index("b"),
                jax.lax.all_gather(x, "b", axis=1, tiled=True),
                jax.lax.all_to_all(x, "a", 0, 1, tiled=True),
                jax.lax.psum_scatter(x, "b", scatter_dimension=1, tiled=True),
                jax.lax.pmax(x, ("a", "b")),
                jax.lax.ppermute(x, "b", [(0, 1), (1, 0)]),
                jax.lax.pmin(x.astype(jnp.int32), "a"))
    g = jax.shard_map(f, mesh=mesh, in_specs=P("a", "b"),
                      out_specs=(P("a", "b"), P("a", None), P("a", "b"), P("a", "b"), P(), P("a", "b"), P(None, "b")),
                      check_vma=False)
    return jax.jit(g), lambda args: [jax.device_put(a, NamedSharding(mesh, P("a", "b"))) for a in args]
x = np.arange(32, dtype=np.float32).reshape(4, 8) * 0.37 - 3
got, want = both(build, x)
same(got, want)
print("ok")
""", env=ENV)
    assert "ok" in out


def test_shard_map_replicated_input_psum_counts_every_partition():
    # in_specs=P(): every partition holds the whole array, so psum over an
    # axis of size 4 multiplies by 4 (inlining the body would give x).
    out = check_python(PRELUDE + """
def build(devs):
    mesh = Mesh(np.array(devs), ("i",))
    g = jax.shard_map(lambda x: jax.lax.psum(x, "i"), mesh=mesh, in_specs=P(), out_specs=P())
    return jax.jit(g), lambda args: args
x = np.linspace(-1, 1, 6, dtype=np.float32)
got, want = both(build, x)
same(got, want)
assert np.allclose(got[0] if isinstance(got, list) else got, 4 * x)
print("ok")
""", env=ENV)
    assert "ok" in out


def test_shard_map_training_step_grad_matches_xla():
    out = check_python(PRELUDE + """
def build(devs):
    mesh = Mesh(np.array(devs), ("data",))
    def loss(w, x, y):
        return jnp.mean((jnp.tanh(x @ w) - y) ** 2)
    def step(w, x, y):
        g = jax.grad(loss)(w, x, y)
        return w - 0.1 * jax.lax.pmean(g, "data")
    f = jax.jit(jax.shard_map(step, mesh=mesh, in_specs=(P(), P("data"), P("data")), out_specs=P()))
    def put(args):
        w, x, y = args
        return [jax.device_put(w, NamedSharding(mesh, P())),
                jax.device_put(x, NamedSharding(mesh, P("data"))),
                jax.device_put(y, NamedSharding(mesh, P("data")))]
    return f, put
rng = np.random.default_rng(0)
w = rng.standard_normal((8, 3)).astype(np.float32)
x = rng.standard_normal((16, 8)).astype(np.float32)
y = rng.standard_normal((16, 3)).astype(np.float32)
got, want = both(build, w, x, y)
same(got, want, exact=False)
print("ok")
""", env=ENV)
    assert "ok" in out


def test_shard_map_ring_permute_and_partition_ids():
    out = check_python(PRELUDE + """
def build(devs):
    mesh = Mesh(np.array(devs), ("r",))
    def f(x):
        i = jax.lax.axis_index("r")
        y = jax.lax.ppermute(x, "r", [(k, (k + 1) % 4) for k in range(4)])
        return y * (i + 1), jax.lax.psum(i, "r")
    g = jax.shard_map(f, mesh=mesh, in_specs=P("r"), out_specs=(P("r"), P()))
    return jax.jit(g), lambda args: args
x = np.arange(8, dtype=np.float32)
got, want = both(build, x)
same(got, want)
print("ok")
""", env=ENV)
    assert "ok" in out


def test_partially_manual_shard_map_fails_clearly():
    proc = run_python(PRELUDE + """
mesh = Mesh(np.array(GJ).reshape(2, 2), ("a", "b"))
f = jax.jit(jax.shard_map(lambda x: jax.lax.psum(x, "a"), mesh=mesh, in_specs=P("a"), out_specs=P(),
                          axis_names={"a"}, check_vma=False))
try:
    f(np.ones((4, 4), np.float32))
except Exception as e:
    print("ERR", e)
""", env=ENV)
    assert proc.returncode == 0, proc.stderr
    # The error names the op, the user's source line and the axis left automatic.
    assert "ERR" in proc.stdout and "not manual" in proc.stdout, proc.stdout
    assert "sdy.manual_computation" in proc.stdout and "<string>" in proc.stdout, proc.stdout


def test_pmap_with_collectives_matches_xla():
    out = check_python(PRELUDE + """
x = np.arange(24, dtype=np.float32).reshape(4, 6) / 7
res = []
for devs in (GJ, XL):
    f = jax.pmap(lambda v: (jax.lax.psum(v, "i") * jax.lax.axis_index("i"), jax.lax.all_gather(v, "i"),
                            jax.lax.pmean(jnp.sin(v), "i")), axis_name="i", devices=devs)
    res.append(jax.tree.map(np.asarray, f(x)))
same(res[0], res[1])
print("ok")
""", env=ENV)
    assert "ok" in out
