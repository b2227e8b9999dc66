"""Multi-process benchmark (python -m benchmarks --suite distributed): all-reduce
latency and bandwidth from 1 KiB to 64 MiB per device, and a data-parallel
training step, on jobs of 2 and 4 local processes (one device each), gojax
against XLA:CPU with its gloo collectives on the same loopback. Every process
of a job runs the same loop; process 0 times it and writes the medians.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time

SIZES = [1 << k for k in range(10, 27, 2)]  # bytes per device: 1 KiB .. 64 MiB
CHILD_TIMEOUT = 900


def _reps(nbytes: int, quick: bool) -> int:
    if quick:
        return 3
    return 30 if nbytes <= 1 << 16 else 10 if nbytes <= 1 << 22 else 4


def child(backend: str, port: int, nproc: int, index: int, out: str, quick: bool) -> None:
    import numpy as np
    import jax
    import jax.numpy as jnp
    from jax.experimental import multihost_utils
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    if backend == "xla":
        jax.config.update("jax_platforms", "cpu")
        jax.config.update("jax_cpu_collectives_implementation", "gloo")
    jax.distributed.initialize(coordinator_address=f"127.0.0.1:{port}", num_processes=nproc, process_id=index)
    mesh = Mesh(np.array(jax.devices()), ("x",))
    nd = len(jax.devices())

    def put(a, spec):
        return jax.make_array_from_callback(a.shape, NamedSharding(mesh, spec), lambda idx: a[idx])

    def timed(fn, args, reps):
        jax.block_until_ready(fn(*args))  # compile and warm up
        multihost_utils.sync_global_devices("start")
        ts = []
        for _ in range(reps):
            t = time.perf_counter()
            jax.block_until_ready(fn(*args))
            ts.append(time.perf_counter() - t)
        return float(np.median(ts))

    res = {"allreduce": {}, "step": None}
    psum = jax.jit(jax.shard_map(lambda a: jax.lax.psum(a, "x"), mesh=mesh, in_specs=P("x"), out_specs=P("x")))
    for nbytes in SIZES:
        n = nbytes // 4
        x = put(np.ones((nd * n,), np.float32), P("x"))
        res["allreduce"][str(nbytes)] = timed(psum, (x,), _reps(nbytes, quick))

    rng = np.random.default_rng(0)
    params = [put(rng.standard_normal((256, 512)).astype(np.float32) * 0.05, P()),
              put(rng.standard_normal((512, 10)).astype(np.float32) * 0.05, P())]
    xb = put(rng.standard_normal((nd * 64, 256)).astype(np.float32), P("x"))
    yb = put(rng.standard_normal((nd * 64, 10)).astype(np.float32), P("x"))

    def loss(p, x, y):
        return jnp.mean((jnp.tanh(x @ p[0]) @ p[1] - y) ** 2)

    @jax.jit
    def step(p, x, y):
        l, g = jax.value_and_grad(loss)(p, x, y)
        return [a - 0.1 * b for a, b in zip(p, g)], l

    res["step"] = timed(step, (params, xb, yb), 3 if quick else 10)
    if index == 0:
        with open(out, "w") as f:
            json.dump(res, f)
    multihost_utils.sync_global_devices("end")
    sys.stdout.flush()
    os._exit(0)


def _job(backend: str, nproc: int, quick: bool) -> dict:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "res.json")
        env = dict(os.environ, GOJAX_NUM_DEVICES="1", GOJAX_DATAPLANE_HOST="127.0.0.1")
        procs = [subprocess.Popen([sys.executable, "-m", "benchmarks.distributed", "--child", backend, str(port),
                                   str(nproc), str(i), out] + (["--quick"] if quick else []), env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                 for i in range(nproc)]
        errs = []
        for p in procs:
            try:
                _, e = p.communicate(timeout=CHILD_TIMEOUT)
            except subprocess.TimeoutExpired:
                for q in procs:
                    q.kill()
                raise SystemExit(f"{backend} job of {nproc} processes timed out")
            errs.append(e)
        if not os.path.exists(out):
            raise SystemExit(f"{backend} job of {nproc} processes failed:\n" + errs[0][-3000:])
        with open(out) as f:
            return json.load(f)


def run(quick: bool, json_path: str, png_path: str) -> int:
    results = {}
    for nproc in (2, 4):
        results[nproc] = {b: _job(b, nproc, quick) for b in ("gojax", "xla")}
    print(f"{'procs':>5} {'bytes/device':>12} {'gojax ms':>10} {'xla ms':>10} {'ratio':>7} {'gojax GB/s':>10}")
    rows = []
    for nproc, r in results.items():
        for nbytes in SIZES:
            g, x = r["gojax"]["allreduce"][str(nbytes)], r["xla"]["allreduce"][str(nbytes)]
            # Bus bandwidth as usually quoted for all-reduce: 2(n-1)/n x bytes / time.
            bw = 2 * (nproc - 1) / nproc * nbytes / g / 1e9
            rows.append({"procs": nproc, "bytes": nbytes, "gojax_s": g, "xla_s": x, "ratio": g / x})
            print(f"{nproc:>5} {nbytes:>12} {g * 1e3:>10.3f} {x * 1e3:>10.3f} {g / x:>7.2f} {bw:>10.3f}")
        g, x = r["gojax"]["step"], r["xla"]["step"]
        rows.append({"procs": nproc, "bytes": "step", "gojax_s": g, "xla_s": x, "ratio": g / x})
        print(f"{nproc:>5} {'train step':>12} {g * 1e3:>10.3f} {x * 1e3:>10.3f} {g / x:>7.2f}")
    os.makedirs(os.path.dirname(json_path) or ".", exist_ok=True)
    with open(json_path, "w") as f:
        json.dump(rows, f, indent=1)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"PNG not written ({png_path}): matplotlib is not installed")
        return 0
    fig, ax = plt.subplots(figsize=(7, 4))
    for nproc in (2, 4):
        pts = [r for r in rows if r["procs"] == nproc and r["bytes"] != "step"]
        ax.plot([r["bytes"] for r in pts], [r["ratio"] for r in pts], marker="o", label=f"{nproc} processes")
    ax.axhline(1.0, color="gray", lw=0.8)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("bytes per device")
    ax.set_ylabel("gojax time / XLA:CPU (gloo) time")
    ax.set_title("all-reduce over local processes (lower is better)")
    ax.legend()
    fig.tight_layout()
    os.makedirs(os.path.dirname(png_path) or ".", exist_ok=True)
    fig.savefig(png_path, dpi=110)
    print(f"wrote {json_path} and {png_path}")
    return 0


if __name__ == "__main__":
    a = sys.argv[1:]
    if a and a[0] == "--child":
        child(a[1], int(a[2]), int(a[3]), int(a[4]), a[5], "--quick" in a)
    else:
        sys.exit(run("--quick" in a, "build/benchmarks/distributed.json", "build/benchmarks/distributed.png"))
