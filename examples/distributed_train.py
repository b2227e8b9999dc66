"""Data-parallel training over several gojax processes with jax.distributed.

On one machine, N local processes (the script starts them itself):

    python examples/distributed_train.py --local 2

On several machines, one process per machine, each told the coordinator's
address (a machine every process can reach), the process count and its index:

    python examples/distributed_train.py --coordinator 10.0.0.1:7700 --num-processes 2 --process-id 0
    python examples/distributed_train.py --coordinator 10.0.0.1:7700 --num-processes 2 --process-id 1

Environment (see docs/runtime.md, "Several processes"): GOJAX_NUM_DEVICES
(devices per process), GOJAX_DATAPLANE_HOST / GOJAX_DATAPLANE_PORT (where the
other processes reach this one; open that port and the coordinator's between
the machines), GOJAX_COLLECTIVE_TIMEOUT (seconds a process waits on another
before failing).
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys


def train(coordinator: str, num_processes: int, process_id: int, steps: int) -> None:
    import numpy as np
    import jax
    import jax.numpy as jnp
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    jax.distributed.initialize(coordinator_address=coordinator, num_processes=num_processes, process_id=process_id)
    mesh = Mesh(np.array(jax.devices()), ("batch",))
    n = len(jax.devices())
    rng = np.random.default_rng(0)  # the same data in every process
    true_w = rng.standard_normal((16, 1)).astype(np.float32)
    x = rng.standard_normal((n * 64, 16)).astype(np.float32)
    y = np.tanh(x @ true_w)

    def put(a, spec):
        # Each process fills the shards of its own devices.
        return jax.make_array_from_callback(a.shape, NamedSharding(mesh, spec), lambda idx: a[idx])

    params = {"w1": put(rng.standard_normal((16, 32)).astype(np.float32) * 0.3, P()),
              "w2": put(rng.standard_normal((32, 1)).astype(np.float32) * 0.3, P())}
    xb, yb = put(x, P("batch")), put(y, P("batch"))

    def loss_fn(p, x, y):
        return jnp.mean((jnp.tanh(x @ p["w1"]) @ p["w2"] - y) ** 2)

    @jax.jit
    def step(p, x, y):
        loss, g = jax.value_and_grad(loss_fn)(p, x, y)
        return jax.tree.map(lambda a, b: a - 0.2 * b, p, g), loss

    first = None
    for i in range(steps):
        params, loss = step(params, xb, yb)
        loss = float(loss)  # replicated: every process can read it
        first = loss if first is None else first
        if process_id == 0 and i % 20 == 0:
            print(f"step {i:3d} loss {loss:.5f}", flush=True)
    backend = "gojax" if "gojax" in jax.devices()[0].client.platform_version else jax.default_backend()
    if process_id == 0:
        print(f"{num_processes} processes, {n} devices (backend {backend}): "
              f"final loss {loss:.5f} (from {first:.5f})", flush=True)
    jax.distributed.shutdown()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--local", type=int, metavar="N", help="start N processes on this machine")
    ap.add_argument("--coordinator", help="host:port of the coordinator (process 0 listens there)")
    ap.add_argument("--num-processes", type=int)
    ap.add_argument("--process-id", type=int)
    ap.add_argument("--steps", type=int, default=100)
    a = ap.parse_args()
    if a.local:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        env = dict(os.environ)
        env.setdefault("GOJAX_DATAPLANE_HOST", "127.0.0.1")
        procs = [subprocess.Popen([sys.executable, __file__, "--coordinator", f"127.0.0.1:{port}",
                                   "--num-processes", str(a.local), "--process-id", str(i), "--steps", str(a.steps)],
                                  env=env) for i in range(a.local)]
        codes = [p.wait(timeout=600) for p in procs]
        sys.exit(max(abs(c) for c in codes))
    if a.coordinator is None or a.num_processes is None or a.process_id is None:
        ap.error("give --local N, or --coordinator, --num-processes and --process-id")
    train(a.coordinator, a.num_processes, a.process_id, a.steps)


if __name__ == "__main__":
    main()
