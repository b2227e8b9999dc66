"""One process of a multi-process jax.distributed job that test_distributed.py
starts, or (with 0 processes) the single-process run it is compared with.

    python distributed_worker.py SCENARIO PORT NPROC INDEX OUTDIR

SCENARIO: "all" (every collective in several dtypes, all-reduce-heavy
programs and a data-parallel training step; process 0 writes the results to
OUTDIR and every process reports how many training steps ran partitioned), "kill" (process 1
dies with SIGKILL while process 0 waits in a collective), "stop" (process 1
stops itself with SIGSTOP), "stranger" (the job waits for OUTDIR/go, which
the test writes after a stranger has connected to the data-plane ports,
then runs a collective and destroys its client), "transfer" (jax.device_put
between devices of different processes, which JAX runs as PJRT cross-host
transfers, in every dtype, checked against the values each process computes
itself), "transfer_lost" / "transfer_silent" (process 0 waits for an array
from process 1, which exits, or lives on, without sending it). Lines starting with
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


TRANSFER_DTYPES = (np.float32, np.float16, jnp.bfloat16, np.int8, np.uint8, np.int16, np.int32, np.uint32,
                   np.bool_, np.complex64)


def sample(dt, shape, seed: int) -> np.ndarray:
    """Values of dtype dt that every process computes alike."""
    v = (np.arange(int(np.prod(shape))) * 7 + seed * 13) % 29 - 11
    if np.dtype(dt) == np.bool_:
        return (v % 3 == 0).reshape(shape)
    if np.dtype(dt).kind == "c":
        return (v + 1j * (v % 5)).astype(dt).reshape(shape)
    if np.dtype(dt).kind == "u":
        v = v + 11
    return v.astype(dt).reshape(shape)


def owned(p: int) -> list:
    return [d for d in devices if d.process_index == p]


def check_shards(a, v, what: str):
    """Each of this process's shards of a equals the same slice of v."""
    for sh in a.addressable_shards:
        got, want = np.asarray(sh.data), v[sh.index]
        if got.dtype != want.dtype or got.tobytes() != want.tobytes():
            raise AssertionError(f"{what}: shard {sh.index} on {sh.device} is {got!r}, want {want!r}")


def transfers() -> int:
    """device_put between processes; returns how many arrays were checked."""
    from jax.sharding import SingleDeviceSharding
    src, dst = owned(0)[0], owned(1)[-1]
    # Two meshes over the devices of different processes, the second in
    # reverse device order: the same sharding, other processes' devices.
    half = len(devices) // 2
    mesh_a = Mesh(np.array(devices[:half]), ("x",))
    mesh_b = Mesh(np.array(devices[half:][::-1]), ("x",))
    checked = 0
    for seed, dt in enumerate(TRANSFER_DTYPES):
        name = np.dtype(dt).name
        v = sample(dt, (3, 5), seed)
        x = jax.make_array_from_callback(v.shape, SingleDeviceSharding(src), lambda idx: v[idx], dtype=v.dtype)
        y = jax.device_put(x, SingleDeviceSharding(dst))
        check_shards(y, v, f"{name} process 0 -> 1")
        z = jax.device_put(y, SingleDeviceSharding(src))
        check_shards(z, v, f"{name} process 1 -> 0")
        w = sample(dt, (half * 4, half * 3), seed + 1)
        for spec in (P("x"), P(), P(None, "x")):
            a = jax.make_array_from_callback(w.shape, NamedSharding(mesh_a, spec), lambda idx: w[idx], dtype=w.dtype)
            b = jax.device_put(a, NamedSharding(mesh_b, spec))
            check_shards(b, w, f"{name} reshard {spec} onto {mesh_b.devices.tolist()}")
            c = jax.device_put(b, NamedSharding(mesh_a, spec))
            check_shards(c, w, f"{name} reshard {spec} back")
            checked += 2
        checked += 2
    return checked


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


def finish(code: int = 0, together: bool = False):
    """Exit with code. together (every process gets here): first pass
    jax.distributed's shutdown barrier, so that process 0, which hosts the
    coordination service, outlives the others' clients (a client that loses
    the service aborts its process). Otherwise (a peer was killed or left
    early, and would never reach the barrier) exit at once."""
    sys.stdout.flush()
    sys.stderr.flush()
    if together:
        jax.distributed.shutdown()
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
    finish(together=nproc > 0)

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
    finish(together=True)

if scenario == "transfer":
    n = transfers()
    print(f"RESULT ok {n}", flush=True)
    finish(together=True)

if scenario in ("transfer_lost", "transfer_silent"):
    from jax.sharding import SingleDeviceSharding
    psum_once()
    v = sample(np.float32, (4, 4), 0)
    x = jax.make_array_from_callback(v.shape, SingleDeviceSharding(owned(1)[0]), lambda idx: v[idx], dtype=v.dtype)
    if index == 1:
        if scenario == "transfer_lost":
            finish()  # exits without sending
        time.sleep(120)  # lives on without sending; the test kills it
        finish(3)
    start = time.monotonic()
    try:
        y = jax.device_put(x, SingleDeviceSharding(owned(0)[0]))
        if index == 0:
            np.asarray(y)
        print("RESULT no error", flush=True)
    except Exception as e:  # noqa: BLE001 - the test reads the message
        msg = str(e).replace("\n", " ")
        print(f"RESULT error after {time.monotonic() - start:.1f}s: {type(e).__name__}: {msg}", flush=True)
    finish()

raise SystemExit(f"unknown scenario {scenario}")
