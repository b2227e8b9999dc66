"""SPMD programs on several gojax devices, compared with XLA:CPU on as many
host devices in the same process: shard_map bodies (sdy.manual_computation,
run once per partition with their collectives) and sharded jit.

Each test runs in a fresh interpreter: the device counts must be set before
JAX starts."""

from __future__ import annotations

import pytest

from gojax_testutil import check_python, run_python


def env(n):
    return {"GOJAX_NUM_DEVICES": str(n), "XLA_FLAGS": f"--xla_force_host_platform_device_count={n}"}


ENV, ENV8 = env(4), env(8)

PRELUDE = """
import os
import numpy as np, jax, jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
N = int(os.environ["GOJAX_NUM_DEVICES"])
GJ, XL = jax.devices("gojax")[:N], jax.devices("cpu")[:N]
assert len(GJ) == N and len(XL) == N, (GJ, XL)

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


def test_async_collectives_match_their_synchronous_forms():
    # jax._src.lax.parallel's <op>_start(...).done() lower to custom calls
    # "<op>-start"/"<op>-done" that the compiler turns into the collective.
    out = check_python(PRELUDE + """
from jax._src.lax import parallel
def build(devs, asynchronous):
    mesh = Mesh(np.array(devs).reshape(2, 2), ("a", "b"))
    def f(x):
        if not asynchronous:
            return (jax.lax.psum(x, "a"), jax.lax.all_gather(x, "b", axis=1, tiled=True),
                    jax.lax.psum_scatter(x, "b", scatter_dimension=1, tiled=True),
                    jax.lax.all_to_all(x, "a", 0, 1, tiled=True), jax.lax.ppermute(x, "b", [(0, 1), (1, 0)]))
        return (parallel.psum_start(x, "a").done(),
                parallel.all_gather_start(x, "b", axis=1, tiled=True).done(),
                parallel.psum_scatter_start(x, "b", scatter_dimension=1, tiled=True).done(),
                parallel.all_to_all_start(x, "a", split_axis=0, concat_axis=1, tiled=True).done(),
                parallel.ppermute_start(x, "b", [(0, 1), (1, 0)]).done())
    g = jax.shard_map(f, mesh=mesh, in_specs=P("a", "b"), out_specs=(P("a", "b"),) * 5)
    return jax.jit(g), lambda args: [jax.device_put(a, NamedSharding(mesh, P("a", "b"))) for a in args]
for dtype in (np.float32, np.int32):
    x = (np.arange(64).reshape(4, 16) * 3 - 70).astype(dtype)
    got = both(lambda devs: build(devs, True), x)
    want = both(lambda devs: build(devs, False), x)
    same(got[0], got[1])
    same(got[0], want[1])
    same(want[0], want[1])
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


# Meshes for the free-axis tests: (shape, names, manual axes).
PARTIAL = {4: [((2, 2), ("a", "b"), {"a"}), ((2, 2), ("a", "b"), {"b"})],
           8: [((2, 4), ("a", "b"), {"a"}), ((2, 2, 2), ("a", "b", "c"), {"a", "c"}),
               ((2, 2, 2), ("a", "b", "c"), {"b"})]}


@pytest.mark.parametrize("n", [4, 8])
def test_partially_manual_shard_map_matches_xla(n):
    # axis_names= leaves the other axes to the partitioner: inside the body
    # they stay global (gojax runs the global program); collectives and axis
    # indices group over the manual axes only, and a result not split along
    # a manual axis is one replica's.
    out = check_python(PRELUDE + f"""
for shape, names, manual in {PARTIAL[n]!r}:
    man = tuple(a for a in names if a in manual)
    free = tuple(a for a in names if a not in manual)
    def build(devs):
        mesh = Mesh(np.array(devs).reshape(shape), names)
        def f(x):
            i = jax.lax.axis_index(man)
            k = jax.lax.axis_size(man)
            return (jax.lax.psum(x, man) + i,
                    jax.lax.all_gather(x, man[-1], axis=0, tiled=True),
                    jax.lax.ppermute(x * (i + 1), man, [(j, (j + 1) % k) for j in range(k)]),
                    jax.lax.pmax(x, man[0]),
                    jnp.tanh(x) @ x.T)
        g = jax.shard_map(f, mesh=mesh, in_specs=P(man), out_specs=(P(), P(), P(man), P(), P(man)),
                          axis_names=set(man), check_vma=False)
        put = lambda args: [jax.device_put(a, NamedSharding(mesh, P(man, free))) for a in args]
        return jax.jit(g), put
    x = np.arange(16 * 8, dtype=np.float32).reshape(16, 8) / 11 - 2
    got, want = both(build, x)
    same(got, want, exact=False)
print("ok")
""", env=env(n))
    assert "ok" in out


@pytest.mark.parametrize("n", [4, 8])
def test_nested_shard_map_matches_xla(n):
    # A shard_map over "b" inside one over "a": the inner body sees blocks
    # cut along both, its collectives and axis index name devices of the
    # whole mesh, and its results join back into the outer partition.
    out = check_python(PRELUDE + """
def build(devs):
    mesh = Mesh(np.array(devs).reshape(2, N // 2), ("a", "b"))
    def inner(v):
        j = jax.lax.axis_index("b")
        return jax.lax.psum(v, "b") * (j + 1), jax.lax.all_gather(v, "b", axis=1, tiled=True)
    def outer(x):
        y, z = jax.shard_map(inner, in_specs=P(None, "b"), out_specs=(P(None, "b"), P()),
                             axis_names={"b"}, check_vma=False)(x)
        return jax.lax.psum(y, "a") + jax.lax.axis_index("a"), z
    g = jax.shard_map(outer, mesh=mesh, in_specs=P("a"), out_specs=(P(), P("a")), axis_names={"a"}, check_vma=False)
    return jax.jit(g), lambda args: args
x = np.arange(8 * 16, dtype=np.float32).reshape(8, 16) * 0.5 - 7
got, want = both(build, x)
same(got, want)
print("ok")
""", env=env(n))
    assert "ok" in out


def test_shard_map_in_scan_cond_and_called_function_matches_xla():
    out = check_python(PRELUDE + """
def build(devs):
    mesh = Mesh(np.array(devs).reshape(2, 4), ("a", "b"))
    sm = jax.shard_map(lambda v: jax.lax.pmean(v, "a") * 0.5 + jax.lax.axis_index("b"), mesh=mesh,
                       in_specs=P("a", "b"), out_specs=P("a", "b"))
    called = jax.jit(lambda v: sm(v) - 1)  # a func.call to a function holding the manual computation
    def f(x):
        def body(c, _):
            c = jax.lax.cond(c.sum() > 0, called, lambda v: sm(-v), c)
            return c, c.sum()
        return jax.lax.scan(body, x, None, length=3)
    return jax.jit(f), lambda args: args
x = np.arange(64, dtype=np.float32).reshape(8, 8) / 9 - 3
got, want = both(build, x)
same(got, want, exact=False)
print("ok")
""", env=ENV8)
    assert "ok" in out


def test_shard_map_collectives_in_every_dtype_match_xla():
    out = check_python(PRELUDE + """
def build_for(dt):
    def build(devs):
        mesh = Mesh(np.array(devs).reshape(2, 4), ("a", "b"))
        def f(v):
            r = [jax.lax.all_gather(v, "b"), jax.lax.all_gather(v, ("a", "b"), axis=1, tiled=True),
                 jax.lax.all_to_all(v, "b", 0, 1, tiled=True),
                 jax.lax.ppermute(v, ("a", "b"), [(i, (i + 3) % 8) for i in range(8)])]
            if dt != np.bool_:
                r += [jax.lax.psum(v, "a"), jax.lax.psum_scatter(v, "b", scatter_dimension=0, tiled=True)]
            if dt != np.complex64:
                r += [jax.lax.pmax(v, "b"), jax.lax.pmin(v, ("a", "b"))]
            return r
        g = jax.shard_map(f, mesh=mesh, in_specs=P("a", "b"), out_specs=P("a", "b"), check_vma=False)
        return jax.jit(g), lambda args: args
    return build
for dt in [np.bool_, np.int8, np.int32, np.uint32, np.float16, jnp.bfloat16, np.float32, np.complex64]:
    x = np.arange(64).reshape(8, 8) % 7 - 3
    x = (x > 0) if dt == np.bool_ else x.astype(dt)
    if dt == np.complex64:
        x = x + 1j * x[::-1]
    got, want = both(build_for(dt), x)
    same(got, want)
print("ok")
""", env=ENV8)
    assert "ok" in out


def test_shard_map_large_reductions_match_xla():
    # From 256 KiB an all_reduce splits its elements over the group (each
    # partition reduces a share, then copies its peers'); groups along one
    # axis of a 2x2 mesh, odd lengths, and psum_scatter along a dimension
    # that is not the first. Integer-valued data keeps float sums exact.
    out = check_python(PRELUDE + """
def build(devs):
    mesh = Mesh(np.array(devs).reshape(2, 2), ("a", "b"))
    def f(v):
        return (jax.lax.psum(v, "a"), jax.lax.pmax(v, ("a", "b")), jax.lax.pmin(v, "b"),
                jax.lax.psum_scatter(v, "b", scatter_dimension=1, tiled=True))
    g = jax.shard_map(f, mesh=mesh, in_specs=P("a", "b"), out_specs=P("a", "b"), check_vma=False)
    return jax.jit(g), lambda args: args
for dt in [np.int32, np.float32, jnp.bfloat16, np.float16, np.int8]:
    x = (np.arange(2 * 1001 * 2 * 170) * 7919 % 61 - 30).reshape(2 * 1001, 2 * 170).astype(dt)
    got, want = both(build, x)
    same(got, want)
print("ok")
""", env=ENV)
    assert "ok" in out


def test_shard_map_scalar_and_empty_operands_match_xla():
    # gojax runs the four outputs as one program. XLA:CPU computes each output
    # in a program of its own: jaxlib 0.11.2's XLA:CPU crashes (SIGSEGV while
    # compiling) on the empty-operand output and the psum in one program, and
    # an output's value does not depend on what else the program returns.
    out = check_python(PRELUDE + """
ARGS = (np.arange(8, dtype=np.float32), np.zeros((4, 0), np.float32))
SPECS = (P("i"), P("i"), P(), P())
def f(x, e):
    return x * 2, e * 3, jnp.zeros((0, 3)) + x.sum(), jax.lax.psum(x.sum(), "i")
def run(devs, picks):
    mesh = Mesh(np.array(devs), ("i",))
    g = jax.shard_map(lambda x, e: tuple(f(x, e)[k] for k in picks), mesh=mesh, in_specs=(P("i"), P("i")),
                      out_specs=tuple(SPECS[k] for k in picks), check_vma=False)
    return list(jax.tree.map(np.asarray, jax.jit(g)(*ARGS)))
got = run(GJ, range(4))
want = [run(XL, [k])[0] for k in range(4)]
same(got, want)
print("ok")
""", env=ENV)
    assert "ok" in out


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


def test_shard_map_unreduced_boundaries_match_xla():
    # Gradients through all_gather(to="reduced") pass an unreduced cotangent
    # into the backward manual computation; psum_scatter/psum of unreduced
    # results sum the partitions' values.
    out = check_python(PRELUDE + """
from jax.sharding import AxisType
res = []
for devs in (GJ, XL):
    mesh = jax.make_mesh((8,), ("x",), axis_types=(AxisType.Explicit,), devices=devs)
    with jax.set_mesh(mesh):
        arr = jax.device_put(np.arange(8, dtype=np.float32) % 5, P("x"))
        @jax.jit
        @jax.shard_map(out_specs=P(reduced={"x"}))
        def f(x):
            y = jax.lax.all_gather(x, axis_name="x", axis=0, tiled=True, to="reduced")
            return jnp.max(y, axis=0)
        w = jax.device_put(np.arange(16, dtype=np.float32).reshape(8, 2) / 3, P("x"))
        def loss(w):
            g = jax.shard_map(lambda v: jax.lax.all_gather(v, "x", axis=0, tiled=True, to="reduced"),
                              out_specs=P(reduced={"x"}))(w)
            return g.sum()
        res.append(jax.tree.map(np.asarray, (jax.jit(jax.grad(f))(arr), jax.jit(jax.grad(loss))(w))))
same(res[0], res[1], exact=False)
print("ok")
""", env=ENV8)
    assert "ok" in out
