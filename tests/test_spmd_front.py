"""Sharded programs whose shardings go beyond one named mesh, compared with
XLA:CPU on as many host devices in the same process: Python scalars (the
empty mesh), meshes over the same devices under other names or in other
device orders, GSPMD (mhlo.sharding) annotations, resharding device_put,
donation, and host callbacks in every partition. The device count comes
from jax_num_cpu_devices, as JAX's own tests ask for it.

Each test runs in a fresh interpreter: the device counts must be set before
JAX starts."""

from __future__ import annotations

import pytest

from gojax_testutil import check_python, run_python

# An empty GOJAX_NUM_DEVICES counts as unset, -1 is JAX's unset
# JAX_NUM_CPU_DEVICES: the tests' jax_num_cpu_devices decides.
ENV = {"GOJAX_NUM_DEVICES": "", "JAX_NUM_CPU_DEVICES": "-1", "XLA_FLAGS": ""}

PRELUDE = """
import numpy as np, jax, jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
jax.config.update("jax_num_cpu_devices", 4)
GJ, XL = jax.devices("gojax"), jax.devices("cpu")
assert len(GJ) == 4 and len(XL) == 4, (GJ, XL)

def shards(a, devs):
    # Each device's shard as (position of the device in devs, index, data).
    return sorted((devs.index(s.device), str(s.index), np.asarray(s.data).tolist()) for s in a.addressable_shards)

def both(run):
    return [run(devs) for devs in (GJ, XL)]
"""


def check(body: str, env: dict[str, str] | None = None) -> None:
    out = check_python(PRELUDE + body + "\nprint('ok')\n", env=dict(ENV, **(env or {})))
    assert out.strip().endswith("ok"), out


def test_python_scalars_and_replicated_values():
    # JAX puts Python scalars on the empty mesh beside the arrays' mesh.
    check("""
def run(devs):
    mesh = Mesh(np.array(devs), ("x",))
    x = jax.device_put(np.arange(8, dtype=np.float32), NamedSharding(mesh, P("x")))
    r = jax.device_put(np.arange(8, dtype=np.float32), NamedSharding(mesh, P()))
    def step(params, batch, lr):
        loss = lambda p: jnp.mean((batch * p["w"] + p["b"]) ** 2)
        g = jax.grad(loss)(params)
        return jax.tree.map(lambda p, g: p - lr * g, params, g), loss(params)
    params = {"w": jax.device_put(np.float32(0.5), NamedSharding(mesh, P())), "b": np.float32(0.1)}
    new, loss = jax.jit(step)(params, x, 0.1)
    y = jax.jit(lambda a: a * 2, out_shardings=NamedSharding(mesh, P("x")))(x)
    exact = (np.asarray(x * 2).tolist(), float(r[1]), shards(y, devs), np.asarray(x + 1.5).tolist())
    # XLA reduces the sharded batch per shard first: the last bits differ.
    return exact, [float(loss), float(new["w"]), float(new["b"])]
(g, gf), (x, xf) = both(run)
assert g == x, (g, x)
np.testing.assert_allclose(gf, xf, rtol=1e-6)
""")


def test_explicit_device_orders_and_resharding():
    # A mesh in another device order is a device_ids mesh; device_put moves
    # data between shardings of several meshes over the same devices.
    check("""
def run(devs):
    line = Mesh(np.array(devs), ("x",))
    rev = Mesh(np.array(devs)[::-1], ("x",))
    grid = Mesh(np.array(devs)[[2, 0, 3, 1]].reshape(2, 2), ("a", "b"))
    a = np.arange(32, dtype=np.int32).reshape(4, 8)
    out = []
    x = jax.device_put(a, NamedSharding(line, P("x")))
    for s in (NamedSharding(rev, P("x")), NamedSharding(grid, P("a", "b")), NamedSharding(grid, P(None, ("b", "a"))),
              NamedSharding(grid, P("b")), NamedSharding(rev, P()), NamedSharding(line, P(None, "x"))):
        x = jax.device_put(x, s)
        out.append(shards(x, devs))
    f = jax.jit(lambda u, v: (u * 3 + v, u.sum(0)),
                out_shardings=(NamedSharding(grid, P("b", "a")), NamedSharding(grid, P("a"))))
    u = jax.device_put(a, NamedSharding(grid, P("a", "b")))
    v = jax.device_put(a, NamedSharding(grid, P(None, "a")))
    p, q = f(u, v)
    out += [shards(p, devs), shards(q, devs), str(p.sharding.spec), str(q.sharding.spec)]
    return out
g, x = both(run)
for i, (gi, xi) in enumerate(zip(g, x)):
    assert gi == xi, (i, gi, xi)
""")


def test_meshes_with_other_axis_names_in_one_program():
    check("""
def run(devs):
    m1 = Mesh(np.array(devs), ("x",))
    m2 = Mesh(np.array(devs).reshape(2, 2), ("a", "b"))
    x = jax.device_put(np.arange(8, dtype=np.float32), NamedSharding(m1, P("x")))
    y = jax.device_put(np.arange(8, dtype=np.float32) * 10, NamedSharding(m2, P("b")))
    return np.asarray(jax.jit(lambda a, b: a + b)(x, y)).tolist()
g, x = both(run)
assert g == x, (g, x)
""")


def test_gspmd_annotations():
    # With the GSPMD partitioner JAX writes mhlo.sharding strings: iota and
    # transposed-iota tile assignments, partial replication.
    check("""
jax.config.update("jax_use_shardy_partitioner", False)
def run(devs):
    grid = Mesh(np.array(devs).reshape(2, 2), ("a", "b"))
    rev = Mesh(np.array(devs)[::-1].reshape(2, 2), ("a", "b"))
    a = np.arange(32, dtype=np.float32).reshape(4, 8)
    f = jax.jit(lambda u, v, w: (u + v, v * w, u - w),
                in_shardings=(NamedSharding(grid, P("a", "b")), NamedSharding(grid, P("b", "a")), NamedSharding(grid, P("a"))),
                out_shardings=(NamedSharding(grid, P(("b", "a"))), NamedSharding(grid, P(None, "b")), NamedSharding(grid, P())))
    text = f.lower(a, a, a).as_text()
    assert "mhlo.sharding" in text and "sdy.sharding" not in text, text
    outs = f(a, a + 1, a * 2)
    h = jax.jit(lambda u: u * 2, in_shardings=NamedSharding(rev, P("a", "b")), out_shardings=NamedSharding(rev, P("b")))
    r = h(a)
    return [shards(o, devs) for o in outs] + [str(o.sharding.spec) for o in outs] + [shards(r, devs), str(r.sharding.spec)]
g, x = both(run)
for i, (gi, xi) in enumerate(zip(g, x)):
    assert gi == xi, (i, gi, xi)
""")


def test_donated_sharded_arguments():
    check("""
def run(devs):
    mesh = Mesh(np.array(devs), ("x",))
    sx = NamedSharding(mesh, P("x"))
    put = lambda v: jax.device_put(v, sx)
    f = jax.jit(lambda a, b: (a * 3 + b, b), donate_argnums=(0,), out_shardings=(sx, sx))
    x, y = put(np.arange(8, dtype=np.float32)), put(np.ones(8, np.float32))
    out, same = f(x, y)
    res = [x.is_deleted(), y.is_deleted(), np.asarray(out).tolist()]
    # JAX leaves pairing sharded donors with results to the compiler: a
    # donor whose shard no result can reuse stays alive.
    w = jax.device_put(np.arange(16, dtype=np.float32).reshape(8, 2), sx)
    jax.jit(lambda a: a @ a.T, donate_argnums=(0,), out_shardings=sx)(w)
    res.append(w.is_deleted())
    # Shards of equal byte size pair up whatever their shapes.
    v = jax.device_put(np.arange(8, dtype=np.float32).reshape(8, 1), sx)
    jax.jit(lambda a: a.reshape(8), donate_argnums=(0,), out_shardings=sx)(v)
    res.append(v.is_deleted())
    try:
        x + 1
        res.append("no error")
    except Exception as e:
        res.append(type(e).__name__ + ": deleted" if "delete" in str(e) else str(e))
    z = put(np.arange(8, dtype=np.float32))
    try:
        jax.jit(lambda a, b: (a + b, a - b), donate_argnums=(0, 1), out_shardings=(sx, sx))(z, z)
        res.append("no error")
    except Exception as e:
        res.append(type(e).__name__)
    return res
g, x = both(run)
assert g == x, (g, x)
assert g[0] and not g[1] and not g[3] and g[4], g
""")


def test_host_callbacks_in_every_partition():
    # debug.print / pure_callback / io_callback in sharded jit, shard_map and
    # pmap run where XLA:CPU runs them, with the values it passes; ordered
    # io_callbacks keep call order.
    proc = run_python(PRELUDE + """
from jax.experimental import io_callback
import sys
def run(devs):
    print("BACKEND", devs[0].client.platform, flush=True)
    mesh = Mesh(np.array(devs), ("x",))
    x = jax.device_put(np.arange(8, dtype=np.float32), NamedSharding(mesh, P("x")))
    jax.jit(lambda a: jax.debug.print("jit {}", a.sum()))(x)
    sm = jax.jit(jax.shard_map(lambda a: (jax.debug.print("part {}", a), a * 2)[1], mesh=mesh, in_specs=P("x"), out_specs=P("x")))
    y = sm(x)
    pm = jax.pmap(lambda a: (jax.debug.print("pmap {}", a), a + 1)[1], devices=devs)
    z = pm(np.arange(4, dtype=np.float32))
    cb = jax.jit(lambda a: jax.pure_callback(lambda v: np.asarray(v) * 10, jax.ShapeDtypeStruct(a.shape, a.dtype), a))
    w = cb(x)
    io = jax.jit(lambda a: io_callback(lambda v: print("io", np.asarray(v).sum(), flush=True) or np.float32(1),
                                       jax.ShapeDtypeStruct((), np.float32), a, ordered=True))
    for k in range(3):
        io(x * k)
    jax.effects_barrier()
    sys.stdout.flush()
    return [np.asarray(v).tolist() for v in (y, z, w)]
g, x = both(run)
assert g == x, (g, x)
print("ok")
""", env=ENV)
    assert proc.returncode == 0, proc.stderr[-3000:]
    parts = proc.stdout.split("BACKEND")
    assert len(parts) == 3, proc.stdout
    got, want = parts[1].splitlines()[1:], parts[2].splitlines()[1:]
    want = [l for l in want if l != "ok"]
    # Partitions run concurrently: the order among them is free, the lines
    # are not; io_callback lines keep their order.
    assert sorted(got) == sorted(want), (got, want)
    assert [l for l in got if l.startswith("io")] == ["io 0.0", "io 28.0", "io 56.0"], got
    assert sum(l.startswith("part") for l in got) == 4 and sum(l.startswith("pmap") for l in got) == 4, got


def test_partitioned_debug_callbacks_run_once_per_shard():
    # jax.debug.print(partitioned=True) is called once per partition with
    # that partition's block (XLA's partitioner keeps its operand sharded):
    # an argument's shards, a constraint's, a computed value's as propagation
    # gives it, a replicated value whole.
    proc = run_python(PRELUDE + """
from jax._src.debugging import debug_print
import sys
def run(devs):
    print("BACKEND", devs[0].client.platform, flush=True)
    mesh = Mesh(np.array(devs).reshape(1, 2, 2), ("x", "y", "z"))
    a = jax.device_put(np.arange(24).reshape(2, 3, 4), NamedSharding(mesh, P("x", None, "z")))
    def f(v):
        debug_print("arg {}", v, partitioned=True)
        w = jax.lax.with_sharding_constraint(v * 2, NamedSharding(mesh, P(None, None, ("y", "z"))))
        debug_print("constraint {}", w, partitioned=True)
        debug_print("computed {}", jnp.sin(v).sum(axis=1), partitioned=True)
        debug_print("replicated {}", jnp.int32(7), partitioned=True)
        return w
    out = jax.jit(f)(a)
    jax.effects_barrier()
    sys.stdout.flush()
    return np.asarray(out).tolist()
g, x = both(run)
assert g == x
print("ok")
""", env=ENV)
    assert proc.returncode == 0, proc.stderr[-3000:]
    parts = proc.stdout.split("BACKEND")
    assert len(parts) == 3, proc.stdout
    got, want = parts[1].splitlines()[1:], parts[2].splitlines()[1:]
    want = [l for l in want if l != "ok"]
    assert sorted(got) == sorted(want), (got, want)
    starts = [l.split(" ")[0] for l in got if not l.startswith(" ")]
    assert all(starts.count(k) == 4 for k in ("arg", "constraint", "computed", "replicated")), got


def test_ordered_io_callback_inside_shard_map():
    # An ordered effect threads a token through the manual computation; the
    # serializer leaves Shardy's ops outside VHLO, so the token reaches them
    # as a StableHLO-dialect type through casts.
    check("""
from jax.experimental import io_callback
seen = []
def run(devs):
    mesh = Mesh(np.array(devs), ("i",), axis_types=(jax.sharding.AxisType.Auto,))
    def body(x, y):
        io_callback(lambda v: seen.append(np.asarray(v).sum()), (), x, ordered=True)
        return x + y[..., None]
    f = jax.jit(jax.shard_map(body, mesh=mesh, in_specs=(P(None, "i"), P(None)), out_specs=P(None, "i")))
    x = jax.device_put(np.arange(32, dtype=np.float32).reshape(2, 16), NamedSharding(mesh, P(None, "i")))
    out = f(x, jnp.ones(2))
    jax.effects_barrier()
    return np.asarray(out).tolist(), sorted(seen[-4:])
g, x = both(run)
assert g == x, (g, x)
assert len(seen) == 8, seen
""")


def test_inspect_array_sharding():
    # The callback runs at compile time with the sharding of an argument or
    # of a sharding constraint, as XLA's partitioner hands it over.
    check("""
def run(devs):
    mesh = Mesh(np.array(devs).reshape(2, 2), ("a", "b"))
    seen = []
    def f(x):
        jax.debug.inspect_array_sharding(x, callback=lambda s: seen.append(("arg", str(s.spec))))
        y = jax.lax.with_sharding_constraint(x * 2, NamedSharding(mesh, P(None, ("b", "a"))))
        jax.debug.inspect_array_sharding(y, callback=lambda s: seen.append(("constraint", str(s.spec))))
        return y + 1
    g = jax.jit(f, in_shardings=NamedSharding(mesh, P("b", "a")))
    out = g(np.arange(32, dtype=np.float32).reshape(4, 8))
    return sorted(seen), np.asarray(out).tolist()
g, x = both(run)
assert g == x, (g, x)
assert len(g[0]) == 2, g
""")


@pytest.mark.parametrize("how", ["config", "env"])
def test_jax_num_cpu_devices_sets_gojax_device_count(how):
    code = "import jax\n"
    env = dict(ENV)
    if how == "config":
        code += "jax.config.update('jax_num_cpu_devices', 3)\n"
    else:
        env["JAX_NUM_CPU_DEVICES"] = "3"
    code += "print(len(jax.devices('gojax')), len(jax.devices('cpu')))\n"
    assert check_python(code, env=env).split() == ["3", "3"]


def test_gojax_num_devices_overrides_jax_num_cpu_devices():
    out = check_python("""
import jax
jax.config.update('jax_num_cpu_devices', 4)
print(len(jax.devices('gojax')), len(jax.devices('cpu')))
""", env=dict(ENV, GOJAX_NUM_DEVICES="2"))
    assert out.split() == ["2", "4"]


def test_compiled_text_of_sharded_programs():
    # compile().as_text() is gojax's optimized program as HLO; Shardy
    # annotations are dropped, since jaxlib's converter refuses them. A
    # shard_map over the whole mesh runs per device: the text is device 0's
    # program, the body with its all-reduce, as XLA shows its partitioned HLO.
    check("""
mesh = Mesh(np.array(GJ), ("x",))
x = jax.device_put(np.arange(8, dtype=np.float32), NamedSharding(mesh, P("x")))
plain = jax.jit(lambda a: a * 2).lower(x).compile().as_text()
assert "multiply(" in plain and "ENTRY" in plain, plain
f = jax.jit(jax.shard_map(lambda a: jax.lax.psum(a, "x"), mesh=mesh, in_specs=P("x"), out_specs=P()))
assert "sdy.manual_computation" in f.lower(x).as_text()
text = f.lower(x).compile().as_text()
assert "manual_computation" not in text and "f32[2]{0} all-reduce(" in text, text
g = jax.jit(lambda a: jax.lax.with_sharding_constraint(a * 2, NamedSharding(mesh, P())) + 1)
assert "sdy.sharding_constraint" in g.lower(x).as_text()
# The program runs partitioned, and the text is one device's program (as
# XLA shows its partitioned HLO): the multiply on the device's block, the
# constraint's all_gather, the add on the whole array.
text = g.lower(x).compile().as_text()
assert "f32[2]{0} multiply(" in text and "f32[8]{0} all-gather(" in text, text
assert "f32[8]{0} add(" in text, text
np.testing.assert_array_equal(np.asarray(g(x)), np.arange(8) * 2 + 1)
# Collectives print as HLO's own: a sum over the sharded axis is a local
# reduce and an all-reduce over the devices.
text = jax.jit(lambda a: a.sum()).lower(x).compile().as_text()
assert "f32[] all-reduce(" in text and "f32[2]{0} parameter(0)" in text, text
""")
