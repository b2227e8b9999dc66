"""SPMD benchmark (python -m benchmarks --suite spmd): sharded training steps
on 2, 4 and 8 devices of one process, gojax against XLA:CPU with as many host
devices in the same process, timed alternately (benchmarks/timing.py); and the
memory a program whose arguments and results are sharded N ways needs, and
the memory per device of the training steps, for N = 1, 2, 4, 8.

Memory: gojax's counters (gojax.stats(), device.memory_stats()) are those of
the one memory pool all its devices share, so the peak is measured for the
whole process and divided by N for a per-device figure. XLA:CPU's devices
report no memory_stats(); for both backends the table also gives what the
compiled program declares per device (compiled.memory_analysis(): argument,
output and temporary bytes).

The training steps use a fixed global problem (strong scaling): more devices
means smaller shards of the same work.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

COUNTS = (2, 4, 8)
MEM_COUNTS = (1, 2, 4, 8)
MAX_DEVICES = 8
MEM_ROWS, MEM_COLS = 8192, 1024  # f32: 32 MiB per argument and per result


def _steps():
    """(name, build) pairs; build(mesh) returns (step, args, in_shardings)."""
    import numpy as np
    import jax
    import jax.numpy as jnp
    from jax.sharding import NamedSharding, PartitionSpec as P

    rng = np.random.default_rng(0)

    def rand(*shape, scale=1.0):
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    def sgd(p, g):
        return jax.tree.map(lambda a, b: a - 0.05 * b, p, g)

    def data_parallel(mesh):
        # MLP 256-512-10, global batch 512 over 'x'; parameters replicated.
        p = {"w1": rand(256, 512, scale=0.05), "w2": rand(512, 10, scale=0.05)}
        x, y = rand(512, 256), rand(512, 10)

        def step(p, x, y):
            loss = lambda p: jnp.mean((jnp.tanh(x @ p["w1"]) @ p["w2"] - y) ** 2)  # noqa: E731
            l, g = jax.value_and_grad(loss)(p)
            return sgd(p, g), l

        rep, row = NamedSharding(mesh, P()), NamedSharding(mesh, P("x"))
        return step, [p, x, y], [{"w1": rep, "w2": rep}, row, row]

    def tensor_parallel(mesh):
        # Megatron MLP 512-2048-512, batch 128 replicated: w1 column-parallel,
        # w2 row-parallel over 'x'; the hidden activations stay sharded.
        p = {"w1": rand(512, 2048, scale=0.03), "w2": rand(2048, 512, scale=0.03)}
        x, t = rand(128, 512), rand(128, 512)
        hid = NamedSharding(mesh, P(None, "x"))
        am = mesh.abstract_mesh  # the same for both backends' meshes: one step serves both

        def step(p, x, t):
            def loss(p):
                with jax.sharding.use_abstract_mesh(am):
                    h = jax.lax.with_sharding_constraint(jax.nn.relu(x @ p["w1"]), P(None, "x"))
                return jnp.mean((h @ p["w2"] - t) ** 2)
            l, g = jax.value_and_grad(loss)(p)
            return sgd(p, g), l

        rep = NamedSharding(mesh, P())
        return step, [p, x, t], [{"w1": hid, "w2": NamedSharding(mesh, P("x", None))}, rep, rep]

    return [("train_data_parallel", data_parallel), ("train_tensor_parallel", tensor_parallel)]


def _timings(quick: bool) -> list[dict]:
    import jax
    from jax.sharding import Mesh

    from benchmarks import timing

    s = timing.QUICK if quick else timing.Settings(min_rounds=7, max_rounds=15, budget_s=10.0)
    rows = []
    for name, build in _steps():
        for n in COUNTS:
            meshes = {"gojax": Mesh(jax.devices("gojax")[:n], ("x",)), "xla": Mesh(jax.devices("cpu")[:n], ("x",))}
            step, args, _ = build(meshes["xla"])
            puts = {}
            for k, mesh in meshes.items():
                shardings = build(mesh)[2]
                puts[k] = lambda a, sh=shardings: [jax.device_put(v, s_) for v, s_ in zip(a, sh)]
            res, outs = timing.time_alternating(step, args, puts, s)
            err = timing.max_rel_error(outs["gojax"], outs["xla"])
            g, x = res["gojax"]["median_s"], res["xla"]["median_s"]
            rows.append({"name": name, "devices": n, "gojax_s": g, "xla_s": x, "ratio": g / x, "rel_err": err,
                         "gojax_iqr_s": res["gojax"]["iqr_s"], "xla_iqr_s": res["xla"]["iqr_s"]})
            print(f"  {name:24s} {n} devices: gojax {g * 1e3:8.3f} ms  xla {x * 1e3:8.3f} ms  "
                  f"ratio {g / x:6.2f}  rel err {err:.1e}", flush=True)
    return rows


def _declared(compiled) -> int | None:
    m = compiled.memory_analysis()
    if m is None:
        return None
    return int(m.argument_size_in_bytes + m.output_size_in_bytes + m.temp_size_in_bytes)


def _memory() -> list[dict]:
    import numpy as np
    import jax
    import gojax
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    import jax.numpy as jnp

    shape = (MEM_ROWS, MEM_COLS)
    f = jax.jit(lambda u, v: u * 2 + v)
    rows = []
    for n in MEM_COUNTS:
        row = {"devices": n, "array_bytes": MEM_ROWS * MEM_COLS * np.dtype(np.float32).itemsize}
        for k, devs in (("gojax", jax.devices("gojax")[:n]), ("xla", jax.devices("cpu")[:n])):
            sh = NamedSharding(Mesh(devs, ("x",)), P("x"))
            # Made by a program, so each backend allocates them: device_put
            # of a NumPy array may alias the host memory instead (zero-copy
            # when its address happens to be 64-byte aligned), which the
            # backend's byte count then leaves out.
            u = jax.jit(lambda: jnp.ones(shape, jnp.float32), out_shardings=sh)()
            v = jax.jit(lambda: jnp.full(shape, 3, jnp.float32), out_shardings=sh)()
            jax.block_until_ready((u, v))
            row[f"{k}_declared_per_device"] = _declared(f.lower(u, v).compile())
            if k == "gojax":
                gojax.reset_peak_memory()
                before = gojax.stats().bytes_in_use
            r = f(u, v)
            jax.block_until_ready(r)
            assert r.addressable_shards[0].data.shape == (MEM_ROWS // n, MEM_COLS)
            if k == "gojax":
                st = gojax.stats()
                row["gojax_args_bytes"] = before
                row["gojax_peak_bytes"] = st.peak_bytes
                row["gojax_peak_per_device"] = st.peak_bytes // n
            else:
                ms = devs[0].memory_stats()
                row["xla_peak_per_device"] = None if ms is None else ms.get("peak_bytes_in_use")
            del u, v, r
        rows.append(row)
        mib = lambda b: "n/a" if b is None else f"{b / 2**20:7.1f}"  # noqa: E731
        print(f"  {n} devices: gojax arguments {mib(row['gojax_args_bytes'])} MiB, "
              f"peak {mib(row['gojax_peak_bytes'])} MiB in all, "
              f"{mib(row['gojax_peak_per_device'])} MiB per device; declared per device: "
              f"gojax {mib(row['gojax_declared_per_device'])} MiB, xla {mib(row['xla_declared_per_device'])} MiB; "
              f"xla memory_stats peak {mib(row['xla_peak_per_device'])}", flush=True)
    return rows


def _step_memory() -> list[dict]:
    """Peak bytes per device of one training step (the models of _steps) on
    1, 2, 4 and 8 devices. gojax: the process-wide peak while the step runs
    (arguments, temporaries and results of all devices) divided by N;
    XLA:CPU: what the compiled program declares per device (arguments,
    results and temporaries), its devices keeping no memory_stats()."""
    import gc

    import jax
    import gojax
    from jax.sharding import Mesh

    rows = []
    for name, build in _steps():
        for n in MEM_COUNTS:
            row = {"name": name, "devices": n}
            for k in ("gojax", "xla"):
                mesh = Mesh(jax.devices(k if k == "gojax" else "cpu")[:n], ("x",))
                step, args, shardings = build(mesh)
                put = [jax.device_put(a, s_) for a, s_ in zip(args, shardings)]
                f = jax.jit(step)
                jax.block_until_ready(f(*put))  # compiled and warm; its results are dropped
                row[f"{k}_declared_per_device"] = _declared(f.lower(*put).compile())
                if k == "gojax":
                    gc.collect()  # earlier rows' arrays are gone before the peak restarts
                    before = gojax.stats().partitioned_executions
                    gojax.reset_peak_memory()
                    jax.block_until_ready(f(*put))
                    st = gojax.stats()
                    row["gojax_peak_per_device"] = st.peak_bytes // n
                    row["gojax_partitioned"] = st.partitioned_executions > before
                del put
            rows.append(row)
            mib = lambda b: "n/a" if b is None else f"{b / 2**20:7.2f}"  # noqa: E731
            print(f"  {name:24s} {n} devices: gojax peak {mib(row['gojax_peak_per_device'])} MiB per device"
                  f"{' (partitioned)' if row['gojax_partitioned'] else ''}; declared per device: "
                  f"gojax {mib(row['gojax_declared_per_device'])} MiB, xla {mib(row['xla_declared_per_device'])} MiB",
                  flush=True)
    return rows


def child(quick: bool, out: str) -> None:
    import jax

    print(f"gojax vs XLA:CPU, fixed global problems on 2/4/8 devices; ratio = gojax time / XLA time", flush=True)
    doc = {"jax_version": jax.__version__, "timings": _timings(quick), "memory": _memory(),
           "step_memory": _step_memory()}
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)


def run(quick: bool, json_path: str) -> int:
    # The device counts of both backends are fixed when JAX starts: one child
    # with 8 of each, meshes over the first N.
    os.makedirs(os.path.dirname(json_path) or ".", exist_ok=True)
    env = dict(os.environ, GOJAX_NUM_DEVICES=str(MAX_DEVICES),
               XLA_FLAGS=(os.environ.get("XLA_FLAGS", "") +
                          f" --xla_force_host_platform_device_count={MAX_DEVICES}").strip())
    p = subprocess.run([sys.executable, "-m", "benchmarks.spmd", "--child", json_path] + (["--quick"] if quick else []),
                       env=env)
    if p.returncode != 0:
        return p.returncode
    with open(json_path) as f:
        doc = json.load(f)
    print(f"\n{'workload':24s} {'devices':>7} {'gojax ms':>9} {'xla ms':>9} {'ratio':>6}")
    for r in doc["timings"]:
        print(f"{r['name']:24s} {r['devices']:>7} {r['gojax_s'] * 1e3:>9.3f} {r['xla_s'] * 1e3:>9.3f} {r['ratio']:>6.2f}")
    print(f"\n{'step memory per device (MiB)':30s} {'devices':>7} {'gojax peak':>10} {'xla declared':>12}")
    for r in doc["step_memory"]:
        g, x = r["gojax_peak_per_device"], r["xla_declared_per_device"]
        print(f"{r['name']:30s} {r['devices']:>7} {g / 2**20:>10.2f} {'n/a' if x is None else f'{x / 2**20:12.2f}':>12}")
    print(f"wrote {json_path}")
    return 0


if __name__ == "__main__":
    a = sys.argv[1:]
    if a and a[0] == "--child":
        child("--quick" in a, a[1])
    else:
        sys.exit(run("--quick" in a, "build/benchmarks/spmd.json"))
