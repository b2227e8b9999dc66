"""In-process collectives (python -m benchmarks.collectives [--devices 2,4,8]
[--sizes 10,16,20,24] [--ops psum,...]): shard_map over a 1-D mesh of N gojax devices against
XLA:CPU with N host devices in the same process, for psum, all_gather,
psum_scatter, all_to_all and ppermute of 2**k bytes per device. Each device
count runs in a fresh interpreter (the counts are fixed when JAX starts).
Prints one line per case: medians of alternating gojax/XLA calls and the
ratio gojax/XLA.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

OPS = ["psum", "all_gather", "psum_scatter", "all_to_all", "ppermute"]


def child(n: int, sizes: list[int], ops: list[str]) -> None:
    import numpy as np
    import jax
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    lax = jax.lax
    bodies = {
        "psum": lambda a: lax.psum(a, "x"),
        "all_gather": lambda a: lax.all_gather(a, "x", tiled=True),
        "psum_scatter": lambda a: lax.psum_scatter(a, "x", tiled=True),
        "all_to_all": lambda a: lax.all_to_all(a, "x", 0, 0, tiled=True),
        "ppermute": lambda a: lax.ppermute(a, "x", [(i, (i + 1) % n) for i in range(n)]),
    }
    backends = {"gojax": jax.devices("gojax")[:n], "xla": jax.devices("cpu")[:n]}
    for k in sizes:
        per = (1 << k) // 4  # f32 elements per device
        for name in ops:
            fns, args = {}, {}
            for b, devs in backends.items():
                mesh = Mesh(np.array(devs), ("x",))
                out = P() if name == "all_gather" else P("x")
                fns[b] = jax.jit(jax.shard_map(bodies[name], mesh=mesh, in_specs=P("x"), out_specs=out,
                                               check_vma=False))
                x = np.arange(n * per, dtype=np.float32) % 97
                args[b] = jax.device_put(x, NamedSharding(mesh, P("x")))
                jax.block_until_ready(fns[b](args[b]))  # compile, warm up
            reps = 15 if k <= 16 else 7 if k <= 22 else 3
            ts = {b: [] for b in backends}
            for r in range(reps):
                order = list(backends) if r % 2 == 0 else list(backends)[::-1]
                for b in order:
                    t = time.perf_counter()
                    jax.block_until_ready(fns[b](args[b]))
                    ts[b].append(time.perf_counter() - t)
            med = {b: float(np.median(v)) for b, v in ts.items()}
            print(json.dumps({"devices": n, "op": name, "bytes": 1 << k, **med,
                              "ratio": med["gojax"] / med["xla"], "load1": os.getloadavg()[0]}), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--devices", default="2,4,8")
    ap.add_argument("--sizes", default="10,16,20,24,26", help="log2 of the bytes per device")
    ap.add_argument("--ops", default=",".join(OPS))
    ap.add_argument("--child", type=int, default=0)
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    if a.child:
        child(a.child, sizes, a.ops.split(","))
        return
    for n in (int(d) for d in a.devices.split(",")):
        env = dict(os.environ, GOJAX_NUM_DEVICES=str(n),
                   XLA_FLAGS=f"--xla_force_host_platform_device_count={n}")
        subprocess.run([sys.executable, "-m", "benchmarks.collectives", "--child", str(n), "--sizes", a.sizes, "--ops", a.ops],
                       env=env, check=True)


if __name__ == "__main__":
    main()
