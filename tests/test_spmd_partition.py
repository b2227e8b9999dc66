"""The SPMD partitioner (go/shardy/partition): sharded programs run as one
program per device on that device's shards, compared with XLA:CPU on as
many host devices in the same process. Each case checks the values, the
output shardings and every device's shard shape, and that gojax took the
partitioned path (gojax.stats().partitioned_executions grows; programs the
partitioner refuses run on global arrays and leave it unchanged). The
memory case checks that a device's share of the peak shrinks with the
device count.

Each test runs in a fresh interpreter: the device counts must be set before
JAX starts."""

from __future__ import annotations

import pytest

from gojax_testutil import check_python


def env(n):
    return {"GOJAX_NUM_DEVICES": str(n), "XLA_FLAGS": f"--xla_force_host_platform_device_count={n}",
            "JAX_NUM_CPU_DEVICES": "-1"}


PRELUDE = """
import os
import numpy as np, jax, jax.numpy as jnp
import gojax
from jax.sharding import NamedSharding, PartitionSpec as P, Mesh
N = int(os.environ["GOJAX_NUM_DEVICES"])
GJ, XL = jax.devices("gojax")[:N], jax.devices("cpu")[:N]
assert len(GJ) == N and len(XL) == N, (GJ, XL)
RNG = np.random.default_rng(0)

def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)

def mesh(devs, shape, names):
    return Mesh(np.array(devs).reshape(shape), names)

def run(f, args, specs, shape=(N,), names=("x",), partitioned=True):
    # Runs jit(f) on both backends; compares values, shardings, shard shapes.
    outs = []
    for devs in (GJ, XL):
        m = mesh(devs, shape, names)
        put = [jax.tree.map(lambda x, s_: jax.device_put(x, NamedSharding(m, s_)), a, s) for a, s in zip(args, specs)]
        before = gojax.stats().partitioned_executions
        r = jax.jit(f)(*put)
        jax.block_until_ready(r)
        if devs is GJ:
            took = gojax.stats().partitioned_executions - before
            assert took == (1 if partitioned else 0), ("partitioned runs", took)
        outs.append((r, m))
    (g, gm), (x, xm) = outs
    gl, xl = jax.tree.leaves(g), jax.tree.leaves(x)
    for i, (a, b) in enumerate(zip(gl, xl)):
        u, v = np.asarray(a), np.asarray(b)
        assert u.shape == v.shape and u.dtype == v.dtype, (i, u.shape, v.shape)
        scale = max(float(np.max(np.abs(v))) if v.size else 0.0, 1e-30)
        err = float(np.max(np.abs(u.astype(np.float64) - v.astype(np.float64)))) if v.size else 0.0
        assert err <= 1e-5 * scale * max(1, v.ndim and v.shape[-1]), (i, err, scale)
        sa, sb = a.sharding, b.sharding
        assert NamedSharding(xm, sa.spec).is_equivalent_to(sb, a.ndim), (i, sa, sb)
        ga = sorted((GJ.index(s.device), s.data.shape) for s in a.addressable_shards)
        gb = sorted((XL.index(s.device), s.data.shape) for s in b.addressable_shards)
        assert ga == gb, (i, ga, gb)
"""


def check(body: str, n: int, extra: dict[str, str] | None = None) -> None:
    out = check_python(PRELUDE + body + "\nprint('ok')\n", env=dict(env(n), **(extra or {})))
    assert out.strip().endswith("ok"), out


@pytest.mark.parametrize("n", [4, 8])
def test_elementwise(n):
    check("""
a, b = rand(16, 8), rand(16, 8)
run(lambda u, v: jnp.tanh(u * 2 + v) - jnp.maximum(u, 0.5), [a, b], [P("x"), P("x")])
# Operands sharded differently: one is resharded to the other's layout.
run(lambda u, v: u + v, [a, b], [P("x"), P(None, "x")])
run(lambda u, v: jnp.where(u > v, u, v.astype(jnp.float32)), [a, b], [P("x"), P()])
""", n)


@pytest.mark.parametrize("n", [4, 8])
def test_dot_patterns(n):
    check("""
a, w, c = rand(16, 32), rand(32, 24), rand(24, 32)
run(lambda u, v: u @ v, [a, w], [P("x"), P()])                 # rows of lhs (data parallel)
run(lambda u, v: u @ v, [a, w], [P(), P(None, "x")])           # columns of rhs
run(lambda u, v: u @ v, [a, w], [P(None, "x"), P("x", None)])  # contracting: local dot + all_reduce
run(lambda u, v: u @ v, [a, w], [P(None, "x"), P()])           # mismatched: rhs resharded
run(lambda u, v: u @ v.T, [a, c], [P("x"), P("x")])            # rhs free dim sharded like lhs rows
b3, w3 = rand(8, 16, 32), rand(8, 32, 8)
run(lambda u, v: jnp.einsum("bij,bjk->bik", u, v), [b3, w3], [P("x"), P("x")])  # batch
""", n)


def test_dot_two_axes():
    check("""
a, w = rand(16, 32), rand(32, 24)
run(lambda u, v: u @ v, [a, w], [P("x", "y"), P("y", None)], shape=(2, 4), names=("x", "y"))
run(lambda u, v: jnp.tanh(u @ v).sum(0), [a, w], [P("x", None), P(None, "y")], shape=(2, 4), names=("x", "y"))
""", 8)


@pytest.mark.parametrize("n", [4, 8])
def test_reductions(n):
    check("""
a = rand(16, 24)
run(lambda u: u.sum(0), [a], [P("x")])        # over the sharded dim: all_reduce
run(lambda u: u.sum(1), [a], [P("x")])        # over an unsharded dim: local
run(lambda u: u.max(), [a], [P(None, "x")])
run(lambda u: jnp.mean(u ** 2), [a], [P("x")])
i = RNG.integers(-50, 50, (16, 24)).astype(np.int32)
run(lambda u: u.sum(0), [i], [P("x")])
""", n)


@pytest.mark.parametrize("n", [4, 8])
def test_shape_ops(n):
    check("""
a, b = rand(16, 8), rand(8)
run(lambda u: u.T * 3, [a], [P("x")])
run(lambda u, v: u + v[None, :], [a, b], [P("x"), P()])
run(lambda u, v: u * v[None, :], [a, b], [P(None, "x"), P("x")])
run(lambda u: u.reshape(8, 16) + 1, [a], [P("x")])  # merge of the sharded leading dim
run(lambda u: u.reshape(4, 4, 8) * 2, [a], [P("x")])  # split
run(lambda u: u.reshape(128) * 2, [a], [P(None, "x")])  # sharded minor dim of a merge: the fallback
run(lambda u: jnp.concatenate([u[:, 4:], u[:, :4]], axis=1) * 2, [a], [P("x")])
run(lambda u: u[4:12] + 1, [a], [P("x")])
""", n)


@pytest.mark.parametrize("n", [4, 8])
def test_constraints_reshard(n):
    check("""
a = rand(16, 16)
def g(spec_in, spec_c):
    def h(u):
        return jax.lax.with_sharding_constraint(jnp.sin(u), P(*spec_c)) * 2
    return h
# with_sharding_constraint under a mesh context on each backend.
for spec_in, spec_c in [(("x",), (None, "x")), ((None, "x"), ("x",)), (("x",), ()), ((), ("x",))]:
    outs = []
    for devs in (GJ, XL):
        m = mesh(devs, (N,), ("x",))
        u = jax.device_put(a, NamedSharding(m, P(*spec_in)))
        with jax.set_mesh(m):
            before = gojax.stats().partitioned_executions
            r = jax.jit(g(spec_in, spec_c))(u)
            jax.block_until_ready(r)
            if devs is GJ:
                assert gojax.stats().partitioned_executions == before + 1
        outs.append(r)
    np.testing.assert_allclose(np.asarray(outs[0]), np.asarray(outs[1]), rtol=1e-6, atol=1e-6)
    assert outs[0].sharding.spec == outs[1].sharding.spec, (outs[0].sharding, outs[1].sharding)
    assert [s.data.shape for s in outs[0].addressable_shards] == [s.data.shape for s in outs[1].addressable_shards]
""", n)


def test_fallback_and_refused():
    check("""
a = rand(16, 8)
run(lambda u: jnp.sort(u, axis=0), [a], [P("x")])          # sort along the sharded dim: gathered, sorted, cut
run(lambda u: jnp.cumsum(u, axis=0), [a], [P("x")])        # cumulative sum along the sharded dim: computed whole
run(lambda u: u[::-1] * 2, [a], [P("x")])                  # reverse along the sharded dim: computed whole
# Host callbacks are not partitioned: global execution.
def cb(u):
    jax.debug.callback(lambda v: None, u)
    return u + 1
run(cb, [a], [P("x")], partitioned=False)
""", 8)


def test_linalg_custom_calls_run_per_batch_block():
    # LAPACK custom calls carry an sdy.sharding_rule: a batch-sharded call
    # runs on each device's block with no collective; a matrix sharded along
    # its rows is gathered first (an all-gather in the compiled text).
    check("""
from jax import lax
a = rand(8, 6, 6); spd = a @ a.transpose(0, 2, 1) + 6 * np.eye(6, dtype=np.float32)
t = rand(8, 6, 4)
for f in (lax.linalg.cholesky, lambda m: lax.linalg.eigh(m)[1] ** 2, lambda m: lax.linalg.qr(m)[1] ** 2,
          lambda m: lax.linalg.svd(m, full_matrices=False)[1], lambda m: jnp.linalg.slogdet(m)[1],
          lambda m: jax.jvp(lambda z: lax.linalg.eigh(z)[1] ** 2, (m,), (m,))[1],
          lambda m: jnp.diagonal(m, axis1=1, axis2=2) + m[:, 1, :],
          lambda m: jnp.zeros_like(m).at[:, jnp.arange(6), jnp.arange(6)].set(m[:, 0, :])):
    run(f, [spd], [P("x")], shape=(2,))
run(lambda m, b: lax.linalg.triangular_solve(m, b, left_side=True, lower=True), [spd, t], [P("x"), P("x")], shape=(2,))
m2 = mesh(GJ[:2], (2,), ("x",))
x = jax.device_put(spd, NamedSharding(m2, P("x")))
assert "all-" not in jax.jit(lax.linalg.cholesky).lower(x).compile().as_text()
y = jax.device_put(spd[0], NamedSharding(m2, P("x")))
assert "all-gather" in jax.jit(lax.linalg.cholesky).lower(y).compile().as_text()
run(lax.linalg.cholesky, [spd[0]], [P("x")], shape=(2,))
""", 2)


def test_training_steps_partitioned():
    check("""
p = {"w1": rand(32, 64) * 0.1, "w2": rand(64, 8) * 0.1}
x, y = rand(64, 32), rand(64, 8)
def step(p, x, y):
    loss = lambda p: jnp.mean((jnp.tanh(x @ p["w1"]) @ p["w2"] - y) ** 2)
    l, g = jax.value_and_grad(loss)(p)
    return jax.tree.map(lambda a, b: a - 0.05 * b, p, g), l
run(step, [p, x, y], [{"w1": P(), "w2": P()}, P("x"), P("x")])
run(step, [p, x, y], [{"w1": P(None, "x"), "w2": P("x", None)}, P(), P()])
""", 8)


def test_partitioning_off():
    # GOJAX_SPMD_PARTITION=0: the same programs run on global arrays.
    check("""
assert not gojax.config.spmd_partition
a, w = rand(16, 32), rand(32, 24)
run(lambda u, v: u @ v, [a, w], [P(None, "x"), P("x", None)], partitioned=False)
run(lambda u: u.sum(0), [a], [P("x")], partitioned=False)
""", 4, {"GOJAX_SPMD_PARTITION": "0"})


def test_memory_shrinks_with_devices():
    # u * 2 + v on 8 MiB arrays: with one device the call allocates the
    # result (8 MiB); partitioned over 8, each device allocates its eighth,
    # where global execution would also assemble both arguments and the
    # whole result (3 arrays, then the shards).
    check("""
a = np.ones((2048, 1024), np.float32)
f = jax.jit(lambda u, v: u * 2 + v)
per_device = {}
for n in (1, N):
    m = mesh(GJ[:n], (n,), ("x",))
    s = NamedSharding(m, P("x"))
    u, v = jax.device_put(a, s), jax.device_put(a, s)
    jax.block_until_ready((u, v, f(u, v)))  # compiled, warm
    gojax.reset_peak_memory()
    before = gojax.stats().bytes_in_use
    r = f(u, v)
    jax.block_until_ready(r)
    per_device[n] = (gojax.stats().peak_bytes - before) / n
    assert r.addressable_shards[0].data.shape == (2048 // n, 1024)
    del u, v, r
assert per_device[N] < 0.3 * per_device[1], per_device
""", 8)


def test_compiled_program_is_per_device():
    # memory_analysis() and as_text() describe one device's program, as
    # XLA:CPU's do for its partitioned HLO: the data-parallel step on 4
    # devices takes (16, 32) and (16, 8) blocks of x and y.
    check("""
p = {"w1": rand(32, 64) * 0.1, "w2": rand(64, 8) * 0.1}
x, y = rand(64, 32), rand(64, 8)
def step(p, x, y):
    loss = lambda p: jnp.mean((jnp.tanh(x @ p["w1"]) @ p["w2"] - y) ** 2)
    l, g = jax.value_and_grad(loss)(p)
    return jax.tree.map(lambda a, b: a - 0.05 * b, p, g), l
stats = {}
for devs in (GJ, XL):
    m = mesh(devs, (N,), ("x",))
    rep, row = NamedSharding(m, P()), NamedSharding(m, P("x"))
    c = jax.jit(step, in_shardings=({"w1": rep, "w2": rep}, row, row)).lower(p, x, y).compile()
    stats[devs is GJ] = c.memory_analysis()
    if devs is GJ:
        text = c.as_text()
        assert "f32[16,32]" in text and "f32[16,8]" in text, text[:2000]
        assert "f32[64,32]" not in text, text[:2000]
        assert "all_reduce" in text or "all-reduce" in text, text[:2000]
g, x_ = stats[True], stats[False]
local = 4 * (32 * 64 + 64 * 8 + 16 * 32 + 16 * 8)
assert g.argument_size_in_bytes == x_.argument_size_in_bytes == local, (g, x_)
# XLA's result is a tuple, whose table of 3 pointers it counts too.
assert g.output_size_in_bytes == x_.output_size_in_bytes - 3 * 8, (g, x_)
# Temporaries: gojax's plan scratch against XLA's buffer assignment, the
# same order of magnitude (within a factor of 8 either way).
assert x_.temp_size_in_bytes / 8 <= g.temp_size_in_bytes <= 8 * x_.temp_size_in_bytes, (g, x_)
""", 4)


@pytest.mark.parametrize("n", [4, 8])
def test_generated_windowed_indexed(n):
    # Rules that keep the sharded (batch) dimensions local: iota offsets,
    # pad, pooling, sort, casts, embedding lookups, take_along_axis,
    # scatter-add into a replicated table, a data-parallel convolution.
    check("""
a = rand(16, 12)
run(lambda u: u + jnp.arange(16, dtype=jnp.float32)[:, None], [a], [P("x")])
run(lambda u: u * jax.lax.broadcasted_iota(jnp.int32, (16, 12), 0).astype(jnp.float32), [a], [P("x")])
run(lambda u: jnp.pad(u, ((0, 0), (2, 1))) * 2, [a], [P("x")])
run(lambda u: jnp.pad(u, ((1, 1), (0, 0))) * 2, [a], [P("x")])   # padded sharded dim: computed whole
run(lambda u: jnp.sort(u, axis=1), [a], [P("x")])
run(lambda u: jnp.argsort(u, axis=1), [a], [P("x")])
run(lambda u: jnp.clip(u, -0.5, 0.5).astype(jnp.bfloat16).astype(jnp.float32), [a], [P("x")])
run(lambda u: jax.lax.bitcast_convert_type(u, jnp.int32) & 0xff, [a], [P("x")])
img = rand(8, 6, 6, 3)
pool = lambda u: jax.lax.reduce_window(u, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
run(pool, [img], [P("x")])
k = rand(3, 3, 3, 4)
conv = lambda u, w: jax.lax.conv_general_dilated(u, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
run(conv, [img, k], [P("x"), P()])
run(jax.grad(lambda u: pool(u).sum()), [img], [P("x")])          # select_and_scatter
run(lambda u: jnp.flip(u, 1) * 2, [a], [P("x")])
table = rand(10, 4)
ids = RNG.integers(0, 10, (16,)).astype(np.int32)
run(lambda t, i: t[i] * 2, [table, ids], [P(), P("x")])
run(lambda t, i: t.at[i].add(1.0), [table, ids], [P(), P("x")])
run(lambda t, i, g: t.at[i].add(g), [table, ids, rand(16, 4)], [P(), P("x"), P("x")])
idx = RNG.integers(0, 12, (16, 3)).astype(np.int32)
run(lambda u, i: jnp.take_along_axis(u, i, axis=1), [a, idx], [P("x"), P("x")])
""", n)


@pytest.mark.parametrize("n", [4, 8])
def test_control_flow_partitioned(n):
    # Loops and branches whose carries keep their sharding run per device
    # (scan over layers, fori_loop, cond, switch).
    check("""
a, ws = rand(16, 8), rand(3, 8, 8) * 0.3
def layers(u, w):
    def step(h, wi):
        h = jnp.tanh(h @ wi)
        return h, h.sum(1)
    return jax.lax.scan(step, u, w)
run(layers, [a, ws], [P("x"), P()])
run(lambda u: jax.lax.fori_loop(0, 4, lambda i, h: h * 0.5 + jnp.sin(h) + i, u), [a], [P("x")])
run(lambda u: jax.lax.fori_loop(0, 3, lambda i, h: h - h.mean(), u), [a], [P("x")])
run(lambda u: jax.lax.cond(u.sum() > 0, jnp.sin, jnp.cos, u), [a], [P("x")])
run(lambda u, k: jax.lax.switch(k, [jnp.sin, jnp.cos, jnp.tanh], u), [a, np.int32(2)], [P("x"), P()])
run(lambda u: jax.lax.while_loop(lambda c: c[1].max() < 10, lambda c: (c[0] + 1, c[1] * 2), (0, u + 1)), [np.abs(a)], [P("x")])
""", n)


@pytest.mark.parametrize("n", [4, 8])
def test_random_partitioned(n):
    # jax.random with partitionable threefry: each device computes its own
    # block of bits from the replicated key (iota counters plus offsets).
    check('''
assert jax.config.jax_threefry_partitionable
res = []
for devs in (GJ, XL):
    m = mesh(devs, (N,), ("x",))
    key = jax.device_put(jax.random.key(7), NamedSharding(m, P()))
    before = gojax.stats().partitioned_executions
    outs = []
    for spec, shape in [(P("x"), (16, 8)), (P(None, "x"), (4, 16)), (P("x"), (64,))]:
        f = jax.jit(lambda k: (jax.random.normal(k, shape), jax.random.bits(k, shape), jax.random.uniform(k, shape)),
                    out_shardings=NamedSharding(m, spec))
        r = f(key)
        jax.block_until_ready(r)
        outs.append(r)
    if devs is GJ:
        assert gojax.stats().partitioned_executions - before == 3, gojax.stats().partitioned_executions - before
    res.append(outs)
for g, x in zip(*res):
    for a, b in zip(g, x):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=2e-6, atol=2e-6)
        assert a.sharding.spec == b.sharding.spec, (a.sharding, b.sharding)
        assert [s.data.shape for s in a.addressable_shards] == [s.data.shape for s in b.addressable_shards]
''', n)
