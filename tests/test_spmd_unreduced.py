"""Unreduced shardings (P(..., unreduced={'x'})) at the boundary of sharded
programs on gojax, compared with XLA:CPU on as many host devices: the
reported sharding, the value the shards sum to, and unreduced arguments fed
back into programs.

XLA:CPU's devices hold the partial values its partitioned program computes;
so do gojax's for programs its partitioner runs per device (the last test
compares the shards themselves). A program gojax runs in its global form
puts the value at coordinate 0 of the unreduced axes and zeros elsewhere:
the other tests compare what both agree on, the sharding and the sum of the
shards along the unreduced axes. Each test runs in a fresh interpreter: the device counts
must be set before JAX starts."""

from __future__ import annotations

from gojax_testutil import check_python


def env(n):
    return {"GOJAX_NUM_DEVICES": str(n), "XLA_FLAGS": f"--xla_force_host_platform_device_count={n}"}


PRELUDE = """
import os
import numpy as np, jax, jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P, AxisType
from jax._src.lib import xla_client as xc
N = int(os.environ["GOJAX_NUM_DEVICES"])
GJ, XL = jax.devices("gojax")[:N], jax.devices("cpu")[:N]
assert len(GJ) == N and len(XL) == N, (GJ, XL)

def mesh_on(devs, shape, names):
    return jax.make_mesh(shape, names, axis_types=(AxisType.Explicit,) * len(names), devices=devs)

def hlo_out(f, *args):
    c = f.lower(*args).compile()
    return [xc.HloSharding.from_proto(o) for o in c._executable.xla_extension_executable().get_output_shardings()]

def shard_sum(arr, mesh, axes):
    # Sum of the shards of the devices that differ only along axes: the value
    # of each block of an array unreduced along them.
    out = {}
    for s in arr.addressable_shards:
        pos = np.argwhere(mesh.devices == s.device)[0]
        key = tuple(int(c) for n, c in zip(mesh.axis_names, pos) if n not in axes)
        out[key] = out.get(key, 0) + np.asarray(s.data)
    return out
"""


def test_unreduced_matmul_result_matches_xla():
    out = check_python(PRELUDE + """
a = np.arange(48, dtype=np.float32).reshape(6, 8) / 7
b = np.arange(32, dtype=np.float32).reshape(8, 4) / 5
for shape, names, spec in [((2, 2), ("x", "y"), P(None, None, unreduced={"x"})),
                           ((2, 2), ("x", "y"), P("y", None, unreduced={"x"})),
                           ((2, 2, 2), ("x", "y", "z"), P(None, "y", unreduced={"x", "z"})),
                           ((4, 2), ("x", "y"), P(None, None, unreduced={"x", "y"}))]:
    got = []
    for devs in (GJ, XL):
        mesh = mesh_on(devs, shape, names)
        k = tuple(sorted(spec.unreduced))
        aa = jax.device_put(a, NamedSharding(mesh, P(None, k)))
        bb = jax.device_put(b, NamedSharding(mesh, P(k, None)))
        f = jax.jit(lambda x, y: jnp.einsum("ij,jk->ik", x, y, out_sharding=NamedSharding(mesh, spec)))
        o = f(aa, bb)
        full = jax.jit(lambda v: jax.sharding.reshard(v, NamedSharding(mesh, P())))(o)
        got.append((o, hlo_out(f, aa, bb), np.asarray(full), shard_sum(o, mesh, spec.unreduced)))
    (og, hg, fg, sg), (ox, hx, fx, sx) = got
    assert og.sharding.spec == ox.sharding.spec == spec, (og.sharding, ox.sharding)
    assert hg == hx, (spec, hg, hx)
    np.testing.assert_allclose(fg, fx, rtol=1e-5)
    np.testing.assert_allclose(fg, a @ b, rtol=1e-5)
    assert sg.keys() == sx.keys()
    for key in sg:
        np.testing.assert_allclose(sg[key], sx[key], rtol=1e-5)
print("ok")
""", env=env(8))
    assert "ok" in out


def test_unreduced_arguments_sum_their_shards():
    # An unreduced argument is the sum of its shards along the unreduced
    # axes: XLA:CPU's partials fed to gojax's programs would not tell
    # coordinate 0 apart, so the programs take gojax's own and XLA's results
    # alike.
    out = check_python(PRELUDE + """
x = np.arange(8, dtype=np.int32)
res = []
for devs in (GJ, XL):
    mesh = mesh_on(devs, (4,), ("x",))
    arr = jax.device_put(x, NamedSharding(mesh, P("x")))
    @jax.jit
    @jax.shard_map(in_specs=P("x"), out_specs=P(unreduced={"x"}), mesh=mesh)
    def part(v):
        return jax.lax.pcast(jnp.tile(v, 2), "x", to="unreduced")
    @jax.jit
    @jax.shard_map(in_specs=P(unreduced={"x"}), out_specs=P(), mesh=mesh)
    def total(v):
        return jax.lax.psum(v, "x")
    u = part(arr)
    assert u.sharding.spec == P(None, unreduced={"x"}), u.sharding
    summed = np.asarray(total(u))
    full = np.asarray(jax.jit(lambda v: jax.sharding.reshard(v, NamedSharding(mesh, P())))(u))
    res.append((summed, full))
(sg, fg), (sx, fx) = res
expect = np.tile(x.reshape(4, 2), 2).sum(0)
assert np.array_equal(sg, sx) and np.array_equal(sg, expect), (sg, sx, expect)
assert np.array_equal(fg, fx) and np.array_equal(fg, expect), (fg, fx)
print("ok")
""", env=env(4))
    assert "ok" in out


def test_unreduced_grad_through_reduced_matches_xla():
    # jax.grad of a program whose forward pass all-gathers to a reduced value
    # gets an unreduced cotangent, summed at the end.
    out = check_python(PRELUDE + """
a = np.arange(8, dtype=np.float32).reshape(2, 4)
b = np.arange(24, dtype=np.float32).reshape(4, 6)
res = []
for devs in (GJ, XL):
    mesh = mesh_on(devs, (2,), ("x",))
    with jax.set_mesh(mesh):
        aa, bb = jax.device_put(a, P(None, "x")), jax.device_put(b, P("x", None))
        @jax.shard_map(in_specs=P(unreduced={"x"}), out_specs=P())
        def ar(v):
            return jax.lax.psum(v, "x")
        @jax.jit
        def f(x, y):
            return ar(jnp.einsum("ab,bc->ac", x, y, out_sharding=P(unreduced={"x"}))).sum()
        o = f(aa, bb)
        g1, g2 = jax.jit(jax.grad(f, argnums=(0, 1)))(aa, bb)
        assert g1.sharding.spec == P(None, "x") and g2.sharding.spec == P("x", None), (g1.sharding, g2.sharding)
        res.append([np.asarray(v) for v in (o, g1, g2)])
for u, v in zip(*res):
    np.testing.assert_allclose(u, v, rtol=1e-6)
np.testing.assert_allclose(res[0][0], (a @ b).sum(), rtol=1e-6)
print("ok")
""", env=env(2))
    assert "ok" in out


def test_unreduced_max_min_results_and_arguments():
    # XLA:CPU of this jaxlib aborts on max/min unreduced results, so numpy
    # is the oracle: resharding to replicated gives the reduction.
    out = check_python(PRELUDE + """
from jax._src.named_sharding import UnreducedKind
x = (np.arange(24, dtype=np.float32).reshape(4, 6) * 7) % 11 - 5
mesh = mesh_on(GJ, (2, 2), ("x", "y"))
with jax.set_mesh(mesh):
    arr = jax.device_put(x, P("x", "y"))
    for kind, lax_op, np_op in [(UnreducedKind.max, jax.lax.reduce_max, np.max),
                                (UnreducedKind.min, jax.lax.reduce_min, np.min)]:
        spec = P("y", unreduced={"x"}, unreduced_kind=kind)
        f = jax.jit(lambda v: lax_op(v, axes=(0,), out_sharding=spec))
        o = f(arr)
        assert o.sharding == NamedSharding(mesh, spec), o.sharding
        h = hlo_out(f, arr)[0]
        assert "unreduced" in str(h), h
        full = np.asarray(jax.jit(lambda v: jax.sharding.reshard(v, P()))(o))
        assert np.array_equal(full, np_op(x, axis=0)), (kind, full)
print("ok")
""", env=env(4))
    assert "ok" in out


def test_partitioned_unreduced_results_are_xla_partials():
    # A program the partitioner runs per device leaves a dot's or a sum's
    # partial values uncombined along the result's unreduced axes: each
    # device's shard is XLA:CPU's partial, bit for bit (integer-valued
    # inputs); a sharded or replicated value made unreduced holds its block
    # padded with zeros, or the value at coordinate 0 and zeros elsewhere.
    # Fed back, the partials sum once per block (devices that hold copies
    # along a replicated axis count once).
    check_python(PRELUDE + """
import gojax
from jax.sharding import UnreducedKind
a = np.arange(64, dtype=np.float32).reshape(8, 8) % 7
cases = [
    ((2, 2), ("x", "y"), lambda m: (jax.jit(lambda x, y: jnp.einsum("ab,bc->ac", x, y, out_sharding=P(None, None, unreduced={"x"}))),
                                    [(a, P(None, "x")), (a.T, P("x", None))])),
    ((2, 2), ("x", "y"), lambda m: (jax.jit(lambda x: jax.lax.reduce_sum(x, axes=(0,), out_sharding=P("y", unreduced={"x"}))),
                                    [(a, P("x", "y"))])),
    ((2, 2), ("x", "y"), lambda m: (jax.jit(lambda x: x * 2, out_shardings=NamedSharding(m, P(None, unreduced={"x"}))),
                                    [(a, P("x"))])),
    ((2, 2), ("x", "y"), lambda m: (jax.jit(lambda x: x + 1, out_shardings=NamedSharding(m, P(None, unreduced={"x"}))),
                                    [(a, P())])),
    # max partials over both axes, then combined along y only
    ((2, 2), ("x", "y"), lambda m: (jax.jit(lambda x: jax.reshard(
        jax.lax.reduce_max(x, axes=[0, 1], out_sharding=P(unreduced={"x", "y"}, unreduced_kind=UnreducedKind.max)),
        P(unreduced={"x"}, unreduced_kind=UnreducedKind.max))), [(np.arange(8, dtype=np.int32).reshape(4, 2), P("x", "y"))])),
]
for ci, (shape, names, make) in enumerate(cases):
    shards, sums = [], []
    for devs in (GJ, XL):
        mesh = mesh_on(devs, shape, names)
        with jax.set_mesh(mesh):
            f, args = make(mesh)
            before = gojax.stats().partitioned_executions
            out = jax.block_until_ready(f(*[jax.device_put(v, s) for v, s in args]))
            if devs is GJ:
                assert gojax.stats().partitioned_executions == before + 1, (ci, gojax.stats().partitioned_executions, before)
            shards.append(sorted((d.id % N, np.asarray(s.data).tolist()) for s in out.addressable_shards for d in [s.device]))
            sums.append(np.asarray(jax.sharding.reshard(out, P())).tolist())
    assert shards[0] == shards[1], (shape, shards)
    assert sums[0] == sums[1], (shape, sums)
print("ok")
""", env=env(4))
