"""One process of a multi-process jax.distributed job that test_distributed.py
starts, or (with 0 processes) the single-process run it is compared with.

    python distributed_worker.py SCENARIO PORT NPROC INDEX OUTDIR

SCENARIO: "all" (every collective in several dtypes, all-reduce-heavy
programs and a data-parallel training step; process 0 writes the results to
OUTDIR and every process reports how many training steps ran partitioned), "kill" (process 1
dies with SIGKILL while process 0 waits in a collective), "stop" (process 1
stops itself with SIGSTOP), "stranger" (the job waits for OUTDIR/go, which
the test writes after a stranger has connected to the data-plane ports,
then runs a collective and destroys its client). Lines starting with
"RESULT " are what the test reads.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
import time

import numpy as np

scenario, port, nproc, index, outdir = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax.experimental import multihost_utils  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

if nproc > 0:
    jax.distributed.initialize(coordinator_address="127.0.0.1:" + port, num_processes=nproc, process_id=index)
    platform = None
else:
    platform = os.environ.get("WORKER_PLATFORM", "gojax")
    if platform == "cpu":
        jax.config.update("jax_num_cpu_devices", int(os.environ["WORKER_CPU_DEVICES"]))

devices = jax.devices(platform) if platform else jax.devices()
mesh = Mesh(np.array(devices), ("x",))
nd = len(devices)


def put(x, spec):
    """The global array x placed with spec (each process fills its shards)."""
    return jax.make_array_from_callback(x.shape, NamedSharding(mesh, spec), lambda idx: x[idx])


def fetch(a):
    """A global array's value in every process."""
    if nproc > 0 and not a.is_fully_addressable:
        return np.asarray(multihost_utils.process_allgather(a, tiled=True))
    return np.asarray(a)


def smap(f, out):
    return jax.jit(jax.shard_map(f, mesh=mesh, in_specs=P("x"), out_specs=out, check_vma=False))


def collectives() -> dict[str, np.ndarray]:
    res = {}
    for dt in (np.float32, np.int32, jnp.bfloat16):
        name = np.dtype(dt).name
        x = put((np.arange(nd * nd * 6) % 23 - 7).astype(dt).reshape(nd * nd, 6), P("x"))
        res[f"psum_{name}"] = fetch(smap(lambda a: jax.lax.psum(a, "x"), P())(x))
        res[f"all_gather_{name}"] = fetch(smap(lambda a: jax.lax.all_gather(a, "x", tiled=True), P())(x))
        perm = [(j, (j + 1) % nd) for j in range(nd)]
        res[f"ppermute_{name}"] = fetch(smap(lambda a: jax.lax.ppermute(a, "x", perm), P("x"))(x))
        res[f"psum_scatter_{name}"] = fetch(smap(lambda a: jax.lax.psum_scatter(a, "x", tiled=True), P("x"))(x))
        res[f"all_to_all_{name}"] = fetch(smap(lambda a: jax.lax.all_to_all(a, "x", 0, 0, tiled=True), P("x"))(x))
        res[f"jit_sum_{name}"] = fetch(jax.jit(lambda a: (a * 2).sum(0), out_shardings=NamedSharding(mesh, P()))(x))
        # A reshard onto devices of other processes: JAX runs it as a program.
        res[f"device_put_replicated_{name}"] = fetch(jax.device_put(x, NamedSharding(mesh, P())))
    # pmap over each process's devices, one program over the whole job.
    g = np.arange(nd, dtype=np.float32) * 3 - 2
    local = [k for k, d in enumerate(devices) if d.process_index == jax.process_index()]
    pm = jax.pmap(lambda v: jax.lax.psum(v, "i") * v, axis_name="i", devices=devices)(g[local])
    res["pmap_psum"] = np.asarray(multihost_utils.process_allgather(pm)).reshape(-1) if nproc > 0 else np.asarray(pm)
    return res


def train_losses(steps: int = 3) -> np.ndarray:
    """A data-parallel MLP: replicated parameters, the batch split over the
    devices; the losses of a few SGD steps."""
    rng = np.random.default_rng(0)
    w1 = put(rng.standard_normal((8, 16)).astype(np.float32) * 0.3, P())
    w2 = put(rng.standard_normal((16, 1)).astype(np.float32) * 0.3, P())
    xb = put(rng.standard_normal((nd * 4, 8)).astype(np.float32), P("x"))
    yb = put(rng.standard_normal((nd * 4, 1)).astype(np.float32), P("x"))

    def loss(params, x, y):
        h = jnp.tanh(x @ params[0])
        return jnp.mean((h @ params[1] - y) ** 2)

    @jax.jit
    def step(params, x, y):
        l, g = jax.value_and_grad(loss)(params, x, y)
        return [p - 0.1 * gp for p, gp in zip(params, g)], l

    params, out = [w1, w2], []
    for _ in range(steps):
        params, l = step(params, xb, yb)
        out.append(np.asarray(l))
    return np.array(out)


def allreduce_heavy() -> dict[str, np.ndarray]:
    """Programs whose work is mostly all-reduces: a sharded contraction the
    partitioner completes with an all-reduce of 256 KiB, and a loop of
    psums in shard_map. Small integers keep every sum exact, so XLA:CPU
    must agree to the bit whatever its summation order."""
    a = put((np.arange(nd * 16 * 256) % 7 - 3).astype(np.float32).reshape(nd * 16, 256), P("x"))
    gram = jax.jit(lambda v: v.T @ v, out_shardings=NamedSharding(mesh, P()))(a)

    def body(v):
        return jax.lax.fori_loop(0, 4, lambda i, w: jax.lax.psum(w, "x") * 0.5, v)

    b = put((np.arange(nd * 64 * 1024) % 11 - 5).astype(np.float32).reshape(nd * 64, 1024), P("x"))
    loop = smap(body, P("x"))(b)
    return {"allreduce_gram": fetch(gram), "allreduce_loop": fetch(loop)}


def partitioned_runs() -> int:
    """gojax's count of SPMD runs that ran per device (0 on XLA:CPU)."""
    if platform == "cpu":
        return 0
    import gojax

    return gojax.stats().partitioned_executions


def psum_once():
    """A psum over the job's devices: with WORKER_COLLECTIVE=jit the sum of a
    sharded array in jit (the partitioner adds the all-reduce), else a psum
    in shard_map."""
    x = put(np.ones((nd, 4), np.float32), P("x"))
    if os.environ.get("WORKER_COLLECTIVE") == "jit":
        return fetch(jax.jit(lambda a: a.sum(0, keepdims=True), out_shardings=NamedSharding(mesh, P()))(x))
    return fetch(smap(lambda a: jax.lax.psum(a, "x"), P())(x))


def listening_ports() -> set[int]:
    ports = set()
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = open(name).read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            f = line.split()
            if f[3] == "0A":  # LISTEN
                ports.add(int(f[1].rsplit(":", 1)[1], 16))
    return ports


def finish(code: int = 0):
    sys.stdout.flush()
    sys.stderr.flush()
    # Skip jax.distributed's shutdown barrier: a killed peer never reaches it.
    os._exit(code)


if scenario == "all":
    res = collectives()
    res.update(allreduce_heavy())
    before = partitioned_runs()
    res["losses"] = train_losses()
    print(f"RESULT partitioned_train {partitioned_runs() - before}", flush=True)
    if index == 0:
        np.savez(os.path.join(outdir, f"result-{nproc}-{platform or 'job'}.npz"), **res)
    print("RESULT ok", flush=True)
    if nproc > 0:
        multihost_utils.sync_global_devices("end")
    finish()

if scenario in ("kill", "stop"):
    psum_once()
    if index == 1:
        time.sleep(1.0)  # let process 0 enter the collective first
        os.kill(os.getpid(), signal.SIGKILL if scenario == "kill" else signal.SIGSTOP)
        time.sleep(60)
        finish(3)
    start = time.monotonic()
    try:
        psum_once()
        print("RESULT no error", flush=True)
    except Exception as e:  # noqa: BLE001 - the test reads the message
        msg = str(e).replace("\n", " ")
        print(f"RESULT error after {time.monotonic() - start:.1f}s: {type(e).__name__}: {msg}", flush=True)
    finish()

if scenario == "stranger":
    psum_once()
    print("RESULT ready", flush=True)
    deadline = time.monotonic() + 60
    while not os.path.exists(os.path.join(outdir, "go")):
        if time.monotonic() > deadline:
            print("RESULT no go", flush=True)
            finish(2)
        time.sleep(0.05)
    out = psum_once()
    print(f"RESULT psum {out.ravel()[0]}", flush=True)
    multihost_utils.sync_global_devices("before shutdown")
    my_port = int(os.environ["GOJAX_DATAPLANE_PORT"])
    before = my_port in listening_ports()
    # Drop everything that keeps the client alive (arrays, devices,
    # compiled functions), then the backend itself.
    del out, mesh, devices
    jax.clear_caches()
    import jax.extend.backend
    jax.extend.backend.clear_backends()
    gc.collect()
    deadline = time.monotonic() + 20
    while my_port in listening_ports() and time.monotonic() < deadline:
        gc.collect()
        time.sleep(0.1)
    print(f"RESULT listening before={before} after={my_port in listening_ports()}", flush=True)
    finish()

raise SystemExit(f"unknown scenario {scenario}")
