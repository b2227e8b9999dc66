"""Memory kinds: every gojax device has the device, pinned_host and
unpinned_host memories XLA:CPU gives its devices. Each test does the same
with a gojax device and an XLA:CPU device in this process and compares what
JAX sees (kinds, shardings, values)."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.experimental.compute_on import compute_on
from jax.sharding import SingleDeviceSharding

from gojax_testutil import check_python

KINDS = ["device", "pinned_host", "unpinned_host"]


def both(gojax_device, cpu_device, fn):
    """fn(device) on both backends, with every array turned into NumPy."""
    return [jax.tree.map(lambda v: np.asarray(v) if isinstance(v, jax.Array) else v, fn(d))
            for d in (gojax_device, cpu_device)]


def same(got, want):
    lg, lw = jax.tree.leaves(got), jax.tree.leaves(want)
    assert len(lg) == len(lw), (got, want)
    for g, w in zip(lg, lw):
        if isinstance(w, np.ndarray):
            assert g.dtype == w.dtype and g.shape == w.shape, (g, w)
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)
        else:
            assert g == w, (got, want)


def test_memories_listed_as_xla(gojax_device, cpu_device):
    def describe(d):
        return ([(m.kind, str(m), repr(m), m.platform, m.process_index,
                  [x.id for x in m.addressable_by_devices()]) for m in d.addressable_memories()],
                d.default_memory().kind, str(d.default_memory()))
    got, want = both(gojax_device, cpu_device, describe)
    assert [m[0] for m in got[0]] == KINDS
    assert got == want


def test_unknown_memory_kind_rejected_as_xla(gojax_device, cpu_device):
    for d in (gojax_device, cpu_device):
        with pytest.raises(ValueError, match="Could not find memory addressable by device"):
            jax.device_put(np.ones(3), SingleDeviceSharding(d, memory_kind="hbm"))


@pytest.mark.parametrize("kind", KINDS)
def test_device_put_round_trips(gojax_device, cpu_device, kind):
    x = np.arange(12, dtype=np.float32).reshape(3, 4) - 5.5

    def run(d):
        s = SingleDeviceSharding(d, memory_kind=kind)
        from_np = jax.device_put(x, s)
        from_scalar = jax.device_put(np.int32(7), s)
        from_py = jax.device_put(2.5, s)
        dev = jax.device_put(x, d)
        moved = jax.device_put(dev, s)
        back = jax.device_put(moved, SingleDeviceSharding(d, memory_kind="device"))
        others = [jax.device_put(moved, SingleDeviceSharding(d, memory_kind=k)) for k in KINDS]
        arrays = [from_np, from_scalar, from_py, moved, back, *others]
        return ([a.sharding.memory_kind for a in arrays],
                [a.addressable_shards[0].data.sharding.memory_kind for a in arrays],
                arrays)

    got, want = both(gojax_device, cpu_device, run)
    assert got[0][:4] == [kind] * 4
    same(got, want)


def test_jit_out_shardings_in_memory_kinds(gojax_device, cpu_device):
    x = np.linspace(-2, 2, 24, dtype=np.float32).reshape(4, 6)

    def run(d):
        outs = tuple(SingleDeviceSharding(d, memory_kind=k) for k in KINDS)
        f = jax.jit(lambda a: (a * 2, jnp.sin(a).sum(0), a.T @ a), out_shardings=outs)
        arg = jax.device_put(x, d)
        kinds = f.lower(arg).compile().runtime_executable().get_output_memory_kinds()
        r = f(arg)
        # Host-resident results are valid arguments of the next program.
        again = jax.jit(lambda a, b, c: a.sum() + b.sum() + c.sum())(*r)
        return kinds, [o.sharding.memory_kind for o in r], r, again

    got, want = both(gojax_device, cpu_device, run)
    assert got[0] == [KINDS]
    same(got, want)


@pytest.mark.parametrize("kind", ["pinned_host", "unpinned_host"])
def test_jit_host_arguments(gojax_device, cpu_device, kind):
    x = np.arange(8, dtype=np.float32)

    def run(d):
        a = jax.device_put(x, SingleDeviceSharding(d, memory_kind=kind))
        outs = []
        for fn in (lambda v: v + 1, lambda v: v, lambda v: (v * 2, v)):
            r = jax.jit(fn)(a)
            outs.append(([o.sharding.memory_kind for o in jax.tree.leaves(r)], r))
        return outs

    got, want = both(gojax_device, cpu_device, run)
    same(got, want)


def test_device_put_inside_jit(gojax_device, cpu_device):
    # Lowers to annotate_device_placement custom calls and a pinned_host result.
    x = np.arange(6, dtype=np.float32)

    def run(d):
        host = SingleDeviceSharding(d, memory_kind="pinned_host")
        f = jax.jit(lambda a: (jax.device_put(a * 3, host), jax.device_put(a, host) + 1,
                               jax.device_put(a - 1, jax.memory.Space.Host)))
        r = f(jax.device_put(x, d))
        back = jax.jit(lambda a: jax.device_put(a, jax.memory.Space.Device) * 2)(r[2])
        return [o.sharding.memory_kind for o in (*r, back)], r, back

    got, want = both(gojax_device, cpu_device, run)
    assert got[0][0] == got[0][2] == "pinned_host"
    same(got, want)


def test_compute_on_device_host(gojax_device, cpu_device):
    x = np.arange(8, dtype=np.float32)

    @compute_on(compute_type="device_host", out_memory_spaces=jax.memory.Space.Device)
    @jax.jit
    def g(a):
        return a * 3

    def run(d):
        f = jax.jit(lambda a: g(a) + 1)
        h = jax.jit(lambda a: g(a) * 2, out_shardings=SingleDeviceSharding(d, memory_kind="pinned_host"))
        arg = jax.device_put(x, d)
        two = jax.jit(two_spaces)(arg, arg)
        eager = on_host(arg)
        return (f(arg), h(arg), two, eager,
                [a.sharding.memory_kind for a in (h(arg), *two, eager)])

    @compute_on(compute_type="device_host",
                out_memory_spaces=(jax.memory.Space.Host, jax.memory.Space.Device))
    def two_spaces(a, b):
        return a * 2, b - 1

    @compute_on(compute_type="device_host", out_memory_spaces=jax.memory.Space.Host)
    def on_host(a):
        return a / 4

    got, want = both(gojax_device, cpu_device, run)
    assert "_xla_compute_type" in jax.jit(lambda a: g(a) + 1).lower(x).as_text()
    assert got[4] == ["pinned_host", "pinned_host", "device", "pinned_host"]
    same(got, want)


POLICIES = {
    "dots": lambda: jax.checkpoint_policies.offload_dot_with_no_batch_dims("device", "pinned_host"),
    "names": lambda: jax.checkpoint_policies.save_and_offload_only_these_names(
        names_which_can_be_saved=[], names_which_can_be_offloaded=["a", "b"],
        offload_src="device", offload_dst="pinned_host"),
}


@pytest.mark.parametrize("policy", sorted(POLICIES))
def test_remat_offload_grads(gojax_device, cpu_device, policy):
    from jax.ad_checkpoint import checkpoint_name

    @functools.partial(jax.checkpoint, policy=POLICIES[policy]())
    def f(w, x):
        h = checkpoint_name(jnp.sin(jnp.einsum("ij,jk->ik", x, w)), "a")
        h = checkpoint_name(jnp.sin(jnp.einsum("ij,jk->ik", h, w)), "b")
        return jnp.sum(h * h)

    w = np.linspace(-1, 1, 16, dtype=np.float32).reshape(4, 4)
    x = np.linspace(0, 2, 12, dtype=np.float32).reshape(3, 4)

    def run(d):
        args = [jax.device_put(a, d) for a in (w, x)]
        grads = jax.jit(jax.grad(f, argnums=(0, 1)))(*args)
        # Forward and backward as separate programs: the residuals cross
        # between them in pinned_host memory.
        y, vjp = jax.jit(lambda *a: jax.vjp(f, *a))(*args)
        residual_kinds = sorted(l.sharding.memory_kind for l in jax.tree.leaves(vjp))
        split = jax.jit(lambda v, ct: v(ct))(vjp, jnp.float32(1))
        return grads, y, residual_kinds, split

    got, want = both(gojax_device, cpu_device, run)
    assert "pinned_host" in got[2]
    same(got, want)
    same(got[0], got[3])


def test_memory_kinds_on_several_devices():
    out = check_python("""
import numpy as np, jax
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
res = []
for devs in (jax.devices("gojax")[:4], jax.devices("cpu")[:4]):
    assert len(devs) == 4
    mesh = Mesh(np.array(devs).reshape(2, 2), ("a", "b"))
    out = [[repr(m) for m in d.addressable_memories()] for d in devs]
    x = np.arange(32, dtype=np.float32).reshape(4, 8)
    sharded = NamedSharding(mesh, P("a", "b"))
    for k in ["pinned_host", "unpinned_host"]:
        s = sharded.with_memory_kind(k)
        y = jax.device_put(x, s)
        z = jax.device_put(y, sharded)
        w = jax.device_put(z, s)
        out.append((y.sharding.memory_kind, z.sharding.memory_kind,
                    [sh.data.sharding.memory_kind for sh in w.addressable_shards], np.asarray(w).tolist()))
    # Eager moves to a memory space run a program returning its argument.
    for space in (jax.memory.Space.Host, jax.memory.Space.Device):
        h = jax.device_put(jax.device_put(x, sharded), space)
        out.append((str(h.sharding.spec), h.sharding.memory_kind, np.asarray(h).tolist()))
    f = jax.jit(lambda a: (a * 2, a.sum(0)),
                out_shardings=(sharded.with_memory_kind("pinned_host"), NamedSharding(mesh, P())))
    r = f(jax.device_put(x, sharded))
    out.append(([o.sharding.memory_kind for o in r], [np.asarray(o).tolist() for o in r]))
    sm = jax.jit(jax.shard_map(lambda a: jax.lax.psum(a, "a"), mesh=mesh, in_specs=P("a", "b"), out_specs=P(None, "b")),
                 out_shardings=NamedSharding(mesh, P(None, "b"), memory_kind="pinned_host"))
    q = sm(jax.device_put(x, sharded))
    out.append((q.sharding.memory_kind, np.asarray(q).tolist()))
    # Donation within one memory kind deletes the argument, as on XLA:CPU.
    for k in ["device", "pinned_host"]:
        s = NamedSharding(mesh, P(), memory_kind=k)
        a = jax.device_put(x, s)
        r = jax.jit(lambda v: v * 3, out_shardings=s, donate_argnums=0)(a)
        out.append((k, a.is_deleted(), r.sharding.memory_kind, np.asarray(r).tolist()))
    res.append(out)
assert res[0] == res[1], res
assert res[0][0] == ["CPU_DEVICE_0", "PINNED_HOST_1", "UNPINNED_HOST_2"], res[0][0]
print("ok")
""", env={"GOJAX_NUM_DEVICES": "4", "XLA_FLAGS": "--xla_force_host_platform_device_count=4"})
    assert "ok" in out
