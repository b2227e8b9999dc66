"""What this machine can do at best: peak FLOP/s derived from /proc/cpuinfo.

peak = cores x GHz x FLOPs/cycle. FLOPs/cycle comes from the vector ISA and the
micro-architecture (FMA units x lanes x 2, since an FMA is two FLOPs). The
derivation is returned as text so every report states how the number was made.
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict, dataclass, field

import numpy as np


@dataclass
class Machine:
    model: str
    vendor: str
    family: int
    cores: int
    ghz: float
    ghz_source: str
    isa: str
    flops_per_cycle: dict[str, int]  # per core, by dtype ("f32", "f64", "bf16")
    peak_gflops: dict[str, float]
    derivation: list[str] = field(default_factory=list)
    copy_gbps: float | None = None  # measured numpy copy bandwidth (a reference, not a peak)

    def to_json(self) -> dict:
        return asdict(self)


def _cpuinfo(path: str = "/proc/cpuinfo") -> dict[str, str]:
    """First processor block of /proc/cpuinfo, plus the highest 'cpu MHz' seen."""
    info: dict[str, str] = {}
    mhz = []
    try:
        with open(path) as f:
            for line in f:
                if ":" not in line:
                    continue
                k, v = (s.strip() for s in line.split(":", 1))
                if k == "cpu MHz":
                    mhz.append(float(v))
                info.setdefault(k, v)
    except OSError:
        pass
    if mhz:
        info["cpu MHz max"] = str(max(mhz))
    return info


def _fma_lanes(vendor: str, family: int, flags: set[str]) -> tuple[str, int, str]:
    """(ISA name, f32 FLOPs/cycle/core, why) for the widest FMA the core runs at full rate."""
    if "avx512f" in flags:
        if vendor == "AuthenticAMD" and family >= 0x1A:
            return ("AVX-512 (Zen 5, native 512-bit)", 64,
                    "2 FMA pipes x 16 f32 lanes x 2 FLOPs")
        if vendor == "AuthenticAMD":
            return ("AVX-512 (Zen 4, 512-bit ops on 256-bit pipes)", 32,
                    "2 FMA pipes x 8 f32 lanes x 2 FLOPs")
        return ("AVX-512", 64, "2 FMA ports x 16 f32 lanes x 2 FLOPs (assumes 2 FMA units)")
    if "avx2" in flags and "fma" in flags:
        return ("AVX2-FMA", 32, "2 FMA ports x 8 f32 lanes x 2 FLOPs")
    if "avx" in flags:
        return ("AVX", 16, "1 add + 1 mul port x 8 f32 lanes")
    return ("SSE", 8, "1 add + 1 mul port x 4 f32 lanes")


def detect(measure_bandwidth: bool = True) -> Machine:
    info = _cpuinfo()
    flags = set(info.get("flags", "").split())
    vendor = info.get("vendor_id", "?")
    family = int(info.get("cpu family", "0") or 0)
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    if os.environ.get("BENCH_CPU_GHZ"):
        ghz, src = float(os.environ["BENCH_CPU_GHZ"]), "BENCH_CPU_GHZ"
    elif "cpu MHz max" in info:
        ghz, src = float(info["cpu MHz max"]) / 1000, "/proc/cpuinfo 'cpu MHz' (max over CPUs)"
    elif "bogomips" in info:
        # Linux sets bogomips to 2 x the TSC frequency on x86; the TSC runs at the
        # nominal (base) clock, so this is a base-clock estimate, not boost.
        ghz, src = float(info["bogomips"]) / 2000, "bogomips/2 (TSC = nominal base clock; boost may be higher)"
    else:
        ghz, src = 1.0, "unknown (assumed 1 GHz)"
    isa, f32, why = _fma_lanes(vendor, family, flags)
    if "amx_bf16" in flags:
        # TDPBF16PS: a 16x16 f32 tile += 16x32 by 32x16 bf16 (16,384 products)
        # every 16 cycles per core.
        bf16, bf16_why = 1024, "bf16 1024/cycle via AMX tiles (16x16x32 products / 16 cycles)"
    elif "avx512_bf16" in flags:
        # VDPBF16PS does two bf16 products per f32 lane: twice the f32 rate.
        bf16, bf16_why = f32 * 2, "bf16 2x f32 via avx512_bf16 dot products"
    else:
        bf16, bf16_why = f32, "bf16 at the f32 rate"
    per_cycle = {"f32": f32, "f64": f32 // 2, "bf16": bf16}
    peak = {k: cores * ghz * v for k, v in per_cycle.items()}
    derivation = [
        f"CPU: {info.get('model name', '?')} ({vendor}, family {family:#x}), {cores} cores usable by this process",
        f"clock: {ghz:.3f} GHz from {src}",
        f"ISA: {isa}: {why} = {f32} f32 FLOPs/cycle/core; f64 half that ({f32 // 2}); {bf16_why}",
        "peak = cores x GHz x FLOPs/cycle: "
        + ", ".join(f"{k} {cores} x {ghz:.3f} x {per_cycle[k]} = {peak[k]:.1f} GFLOP/s" for k in ("f32", "f64", "bf16")),
    ]
    m = Machine(model=info.get("model name", "?"), vendor=vendor, family=family, cores=cores,
                ghz=ghz, ghz_source=src, isa=isa, flops_per_cycle=per_cycle,
                peak_gflops=peak, derivation=derivation)
    if measure_bandwidth:
        m.copy_gbps = copy_bandwidth()
        m.derivation.append(f"memory reference: numpy copy of 64 MiB, best of 5 = {m.copy_gbps:.1f} GB/s "
                            "(read + write bytes; measured, not a hardware peak)")
    return m


def copy_bandwidth(nbytes: int = 64 << 20, reps: int = 5) -> float:
    a = np.ones(nbytes // 4, np.float32)
    b = np.empty_like(a)
    best = float("inf")
    for _ in range(reps):
        t = time.perf_counter()
        np.copyto(b, a)
        best = min(best, time.perf_counter() - t)
    return 2 * nbytes / best / 1e9
