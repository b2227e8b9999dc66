"""Alternating timing of one jitted function on several backends in one process.

Each sample is the mean latency of a batch of calls, every call waited for
(block_until_ready), so results are latencies, not pipelined throughput. The
batch size is calibrated per backend after warm-up so that a batch lasts
about `batch_s`; rounds alternate which backend goes first so that slow drifts
in machine load (this machine is shared) hit both sides alike.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np


@dataclass
class Settings:
    warmup: int = 1  # calls before timing (the first one compiles); one more sizes the batch
    min_rounds: int = 10
    max_rounds: int = 25
    budget_s: float = 30.0  # per workload, all backends together; min_rounds always run
    batch_s: float = 0.05


QUICK = Settings(warmup=1, min_rounds=2, max_rounds=3, budget_s=2.0, batch_s=0.01)


def stats(samples: list[float]) -> dict:
    a = np.asarray(samples, np.float64)
    q1, med, q3 = np.percentile(a, [25, 50, 75])
    return {"median_s": float(med), "q1_s": float(q1), "q3_s": float(q3), "iqr_s": float(q3 - q1),
            "min_s": float(a.min()), "n": int(a.size)}


def _block(out):
    import jax

    jax.block_until_ready(out)


def time_alternating(fn, args: list, devices: dict, s: Settings) -> tuple[dict, dict]:
    """Returns ({backend: stats}, {backend: output of the last call}).

    A value of `devices` is a device, or a function placing the argument list
    (for arguments with different shardings)."""
    import jax

    jf = jax.jit(fn)
    placed = {k: d(args) if callable(d) else [jax.device_put(a, d) for a in args] for k, d in devices.items()}
    batch, outs = {}, {}
    for k, a in placed.items():
        t = float("inf")
        for _ in range(max(s.warmup, 1) + 1):  # the last warm-up call sizes the batch
            t0 = time.perf_counter()
            outs[k] = jf(*a)
            _block(outs[k])
            t = time.perf_counter() - t0
        batch[k] = max(1, min(100000, math.ceil(s.batch_s / max(t, 1e-7))))
    samples = {k: [] for k in placed}
    order = list(placed)
    start = time.perf_counter()
    r = 0
    while r < s.max_rounds and (r < s.min_rounds or time.perf_counter() - start < s.budget_s):
        for k in order if r % 2 == 0 else order[::-1]:
            a, n = placed[k], batch[k]
            t0 = time.perf_counter()
            for _ in range(n):
                out = jf(*a)
                _block(out)
            samples[k].append((time.perf_counter() - t0) / n)
        r += 1
    res = {k: stats(v) | {"batch": batch[k]} for k, v in samples.items()}
    return res, outs


def max_rel_error(got, want) -> float:
    """Largest |got - want| relative to max |want| over all leaves (0 when equal)."""
    import jax

    worst = 0.0
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want)):
        g = np.asarray(g, np.float64)
        w = np.asarray(w, np.float64)
        scale = max(float(np.abs(w).max(initial=0.0)), 1e-30)
        worst = max(worst, float(np.abs(g - w).max(initial=0.0)) / scale)
    return worst


def time_compile(fn_factory, devices: dict, reps: int) -> dict:
    """Trace+lower, compile and first-call latency of fresh jits, per backend.

    Tracing/lowering is timed on its own (jit(f).lower(...)) and is the same
    work for every backend; compile is Lowered.compile() alone. first_call_s is
    a fresh jit's first call minus that call's own trace+lower time (measured by
    lowering an identical fresh function just before it).
    """
    import jax
    from jax.sharding import SingleDeviceSharding

    fn, args = fn_factory()
    out = {k: {"lower_s": [], "compile_s": [], "first_call_s": []} for k in devices}
    order = list(devices)
    for r in range(reps):
        for k in order if r % 2 == 0 else order[::-1]:
            d = devices[k]
            abstract = [jax.ShapeDtypeStruct(np.shape(a), np.asarray(a).dtype, sharding=SingleDeviceSharding(d))
                        for a in args]
            fresh = lambda *a: fn(*a)  # noqa: E731  new identity: no jit cache hit
            t0 = time.perf_counter()
            lowered = jax.jit(fresh).lower(*abstract)
            t1 = time.perf_counter()
            lowered.compile()
            t2 = time.perf_counter()
            out[k]["lower_s"].append(t1 - t0)
            out[k]["compile_s"].append(t2 - t1)
            placed = [jax.device_put(a, d) for a in args]
            _block(placed)
            fresh2 = lambda *a: fn(*a)  # noqa: E731
            t3 = time.perf_counter()
            jax.jit(fresh2).lower(*abstract)
            t4 = time.perf_counter()
            fresh3 = lambda *a: fn(*a)  # noqa: E731
            t5 = time.perf_counter()
            _block(jax.jit(fresh3)(*placed))
            t6 = time.perf_counter()
            out[k]["first_call_s"].append((t6 - t5) - (t4 - t3))
    return {k: {m: stats(v) for m, v in ms.items()} for k, ms in out.items()}
