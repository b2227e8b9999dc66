"""Soak test: mixed jitted programs on gojax from many threads, every result
checked, the process's resident memory sampled throughout.

    python -m gojax.soak --minutes 10 --threads 8 --seed 0 --rss-bound-mib 64

Each thread runs cases until the time is up. Case i of thread t draws its
program kind and inputs from a generator seeded with (seed, t, i), so a
failure names a case that `--replay t:i` runs again alone. The run fails
(exit status 1, a report saying why) if any result is wrong, any exception
escapes a case, a thread is still busy long after the end, or the resident
set grows after the warm-up by more than --rss-bound-mib. The warm-up, in
which programs compile for the first time and JAX's and gojax's caches
fill, lasts until both --warmup-fraction of the run has passed and
--warmup-calls cases have run, so that a slow machine does not end it early.
"""

from __future__ import annotations

import argparse
import dataclasses
import faulthandler
import gc
import json
import os
import sys
import threading
import time
import traceback
from collections import Counter

import numpy as np

__all__ = ["Report", "main", "run", "run_case"]

_MIB = 1 << 20
_PAGE = os.sysconf("SC_PAGE_SIZE")
# A thread still in a case this long after the end has hung (a case takes
# milliseconds; the slowest, a first compile on a loaded machine, seconds).
_HANG_S = 120.0
_MAX_FAILURES_KEPT = 10


def rss_bytes() -> int:
    """The resident set of this process (Linux)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * _PAGE


@dataclasses.dataclass
class Report:
    seconds: float
    threads: int
    seed: int
    calls: int = 0
    per_kind: dict[str, int] = dataclasses.field(default_factory=dict)
    failures: list[str] = dataclasses.field(default_factory=list)  # first few, with their case
    num_failures: int = 0
    hung_threads: int = 0
    rss_mib: dict[str, float] = dataclasses.field(default_factory=dict)  # start, warm, max, end
    rss_samples_mib: list[float] = dataclasses.field(default_factory=list)
    rss_bound_mib: float = 0.0
    warm_after_s: float | None = None  # when the warm-up ended; None: it never did
    warm_after_calls: int = 0
    live_buffers: dict[str, int] = dataclasses.field(default_factory=dict)  # gojax's, at warm and end

    @property
    def rss_growth_mib(self) -> float:
        return self.rss_mib["max"] - self.rss_mib["warm"]

    @property
    def problems(self) -> list[str]:
        out = []
        if self.num_failures:
            out.append(f"{self.num_failures} case(s) failed")
        if self.hung_threads:
            out.append(f"{self.hung_threads} thread(s) hung")
        if self.rss_growth_mib > self.rss_bound_mib:
            out.append(f"RSS grew {self.rss_growth_mib:.1f} MiB after the warm-up, "
                       f"more than the bound of {self.rss_bound_mib:g} MiB")
        if self.calls == 0:
            out.append("no case ran")
        elif self.warm_after_s is None:
            out.append("the warm-up did not end before the run did: run longer or lower --warmup-calls")
        return out

    def text(self) -> str:
        lines = [f"gojax soak: {self.seconds:.0f} s, {self.threads} threads, seed {self.seed}",
                 f"calls: {self.calls} ({', '.join(f'{k} {v}' for k, v in sorted(self.per_kind.items()))})",
                 f"warm-up: {self.warm_after_calls} calls, {self.warm_after_s or self.seconds:.0f} s",
                 "RSS MiB: " + ", ".join(f"{k} {v:.1f}" for k, v in self.rss_mib.items())
                 + f"; growth after warm-up {self.rss_growth_mib:.1f} (bound {self.rss_bound_mib:g})",
                 f"gojax live buffers: {self.live_buffers}"]
        lines += [f"FAILED: {f}" for f in self.failures]
        problems = self.problems
        lines.append("result: " + ("FAIL: " + "; ".join(problems) if problems else "ok"))
        return "\n".join(lines)

    def to_json(self) -> dict:
        d = dataclasses.asdict(self)
        d["rss_growth_mib"] = self.rss_growth_mib
        d["problems"] = self.problems
        return d


def _devices():
    import jax

    from ._soak_programs import Devices

    return Devices(gojax=jax.devices("gojax")[0], cpu=jax.devices("cpu")[0])


def run_case(devices, seed: int, thread: int, index: int) -> str:
    """Runs case `index` of `thread`; returns its kind. Raises on a failure."""
    from ._soak_programs import KINDS

    rng = np.random.default_rng([seed, thread, index])
    kind = list(KINDS)[int(rng.integers(len(KINDS)))]
    KINDS[kind](devices, rng)
    return kind


class _Sampler(threading.Thread):
    def __init__(self, period_s: float) -> None:
        super().__init__(name="soak-rss", daemon=True)
        self.period_s = period_s
        self.samples: list[tuple[float, int]] = []
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(self.period_s):
            self.samples.append((time.monotonic(), rss_bytes()))


def run(minutes: float, threads: int = 8, seed: int = 0, rss_bound_mib: float = 64.0,
        warmup_fraction: float = 0.25, warmup_calls: int = 5000, sample_s: float = 0.5) -> Report:
    import gojax

    devices = _devices()
    seconds = minutes * 60
    report = Report(seconds=seconds, threads=threads, seed=seed, rss_bound_mib=rss_bound_mib)
    counts: Counter[str] = Counter()
    lock = threading.Lock()
    start = time.monotonic()
    warm_at, end_at = start + warmup_fraction * seconds, start + seconds
    report.rss_mib["start"] = rss_bytes() / _MIB

    def worker(t: int) -> None:
        i = 0
        while time.monotonic() < end_at:
            try:
                kind = run_case(devices, seed, t, i)
                with lock:
                    counts[kind] += 1
            except Exception as e:  # every escaping exception is a failure to report
                with lock:
                    report.num_failures += 1
                    if len(report.failures) < _MAX_FAILURES_KEPT:
                        report.failures.append(f"case {t}:{i}: {type(e).__name__}: {e}\n"
                                               + "".join(traceback.format_tb(e.__traceback__)[-3:]))
            i += 1

    sampler = _Sampler(sample_s)
    sampler.start()
    workers = [threading.Thread(target=worker, args=(t,), name=f"soak-{t}", daemon=True) for t in range(threads)]
    for w in workers:
        w.start()
    time.sleep(max(0.0, warm_at - time.monotonic()))
    while time.monotonic() < end_at:
        with lock:
            done = sum(counts.values())
        if done >= warmup_calls:
            warm_at = time.monotonic()
            report.warm_after_s, report.warm_after_calls = warm_at - start, done
            break
        time.sleep(0.1)
    else:
        warm_at = end_at
    report.rss_mib["warm"] = rss_bytes() / _MIB
    report.live_buffers["warm"] = gojax.stats().live_buffers
    for w in workers:
        w.join(max(0.0, end_at + _HANG_S - time.monotonic()))
    sampler.done.set()
    sampler.join()
    hung = [w for w in workers if w.is_alive()]
    if hung:
        report.hung_threads = len(hung)
        faulthandler.dump_traceback(all_threads=True)  # where they are stuck, on stderr
    gc.collect()
    after_warm = [r for t, r in sampler.samples if t >= warm_at]
    report.rss_mib["max"] = max(after_warm + [int(report.rss_mib["warm"] * _MIB)]) / _MIB
    report.rss_mib["end"] = rss_bytes() / _MIB
    report.rss_samples_mib = [round(r / _MIB, 1) for _, r in sampler.samples]
    report.live_buffers["end"] = gojax.stats().live_buffers
    report.calls = sum(counts.values())
    report.per_kind = dict(counts)
    return report


def _parse(argv):
    p = argparse.ArgumentParser(prog="python -m gojax.soak", description=__doc__.split("\n\n")[0])
    p.add_argument("--minutes", type=float, default=10.0, help="length of the run (default 10)")
    p.add_argument("--threads", type=int, default=8, help="threads running cases (default 8)")
    p.add_argument("--seed", type=int, default=0, help="seed of every case's generator (default 0)")
    p.add_argument("--rss-bound-mib", type=float, default=64.0,
                   help="largest allowed growth of the resident set after the warm-up (default 64)")
    p.add_argument("--warmup-fraction", type=float, default=0.25,
                   help="least share of the run before the RSS reference is taken (default 0.25)")
    p.add_argument("--warmup-calls", type=int, default=5000,
                   help="least number of cases before the RSS reference is taken (default 5000)")
    p.add_argument("--json", metavar="PATH", help="also write the report as JSON")
    p.add_argument("--replay", metavar="T:I", help="run case I of thread T alone and exit")
    args = p.parse_args(argv)
    if args.minutes <= 0 or args.threads < 1 or not 0 <= args.warmup_fraction < 1:
        p.error("--minutes must be > 0, --threads >= 1, 0 <= --warmup-fraction < 1")
    return args


def main(argv=None) -> int:
    args = _parse(argv)
    if args.replay:
        t, i = (int(v) for v in args.replay.split(":"))
        print(f"case {t}:{i} ({run_case(_devices(), args.seed, t, i)}): ok")
        return 0
    report = run(args.minutes, args.threads, args.seed, args.rss_bound_mib, args.warmup_fraction,
                 args.warmup_calls)
    print(report.text(), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report.to_json(), f, indent=1)
    return 1 if report.problems else 0


if __name__ == "__main__":
    sys.exit(main())
