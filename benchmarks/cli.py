"""python -m benchmarks [--suite default|broad|distributed|spmd] [--quick] [--only NAME[,NAME]] [--json PATH] [--png PATH] [--export DIR]

Runs each workload on gojax and XLA:CPU alternately in one process and prints
medians, IQR, gojax/XLA time ratios against the targets, and rates against
this machine's peak. f64 workloads run in a child process with jax_enable_x64.
`--suite broad` runs the broad suite instead (benchmarks/broad.py): ~150 workloads,
one or more per op family, with result checks and optional peak memory (--memory).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from benchmarks import machine, report, timing, workloads

BACKENDS = {"gojax": "gojax", "xla": "cpu"}  # our name -> jax backend name


def _parse(argv):
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[1])
    p.add_argument("--suite", choices=("default", "broad", "distributed", "spmd"), default="default",
                   help="default: the seven-group run; broad: one or more workloads per op family; "
                   "distributed: all-reduce and a training step on jobs of 2 and 4 local processes; "
                   "spmd: sharded training steps on 2/4/8 devices of one process and peak memory per device")
    p.add_argument("--quick", action="store_true", help="few reps: a smoke run, not a measurement")
    p.add_argument("--only", default="", help="comma-separated workload names or groups "
                   "(matmul, elementwise, reduction, conv, model, dispatch, compile)")
    p.add_argument("--json", default=None, help="where to write the JSON results "
                   "(default build/benchmarks/results.json; broad: build/benchmarks/broad.json)")
    p.add_argument("--png", default=None, help="where to write the chart "
                   "(default build/benchmarks/results.png; broad: build/benchmarks/broad.png)")
    p.add_argument("--md", default="", help="also write the results as a Markdown table (for docs/performance.md)")
    p.add_argument("--export", metavar="DIR", help="write each selected workload as DIR/NAME.bc (jax.export "
                   "portable artifact) + DIR/NAME.json (input dtypes/shapes) for go/cmd/gojax-prof, then exit")
    p.add_argument("--list", action="store_true", help="list workload names and exit")
    p.add_argument("--memory", action="store_true", help="broad: also measure peak RSS growth per workload and "
                   "backend, each in a fresh child process (slower)")
    p.add_argument("--memory-jobs", type=int, default=2, help="broad --memory: children at a time")
    p.add_argument("--blas-threads", type=int, default=0, help="broad: set OPENBLAS_NUM_THREADS (and OMP_, MKL_) "
                   "for the runs; XLA:CPU's linalg calls LAPACK through scipy's OpenBLAS, whose threads spin and "
                   "collapse on a loaded machine (0: leave the environment as it is)")
    p.add_argument("--timeout", type=float, default=120, help="broad: seconds one workload may take before its "
                   "child process is killed and the workload recorded as failed")
    p.add_argument("--x64-child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--broad-child", default="", help=argparse.SUPPRESS)
    p.add_argument("--mem-child", default="", help=argparse.SUPPRESS)
    p.add_argument("--mem-backend", default="gojax", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.suite == "default":
        a.json = "build/benchmarks/results.json" if a.json is None else a.json
        a.png = "build/benchmarks/results.png" if a.png is None else a.png
    return a


def _selected(only: str, names_groups: list[tuple[str, str]]) -> set[str]:
    if not only:
        return {n for n, _ in names_groups}
    want = {w.strip() for w in only.split(",") if w.strip()}
    known = {n for n, _ in names_groups} | {g for _, g in names_groups}
    bad = want - known
    if bad:
        raise SystemExit(f"unknown workload/group {sorted(bad)}; known: {sorted(known)}")
    return {n for n, g in names_groups if n in want or g in want}


def _devices():
    import jax

    return {k: jax.devices(b)[0] for k, b in BACKENDS.items()}


def run_workload(w: workloads.Workload, devices, s: timing.Settings, m: machine.Machine) -> dict:
    fn, args = w.make()
    res, outs = timing.time_alternating(fn, args, devices, s)
    r = {"name": w.name, "group": w.group, "kind": "run", "backends": res,
         "ratio": res["gojax"]["median_s"] / res["xla"]["median_s"]}
    if w.target:
        r["target"] = {"text": w.target.text, "max_time_ratio": w.target.max_time_ratio}
        r["met"] = r["ratio"] <= w.target.max_time_ratio
    if w.flops:
        r["gflops"] = {k: w.flops / v["median_s"] / 1e9 for k, v in res.items()}
        r["peak_share"] = {k: g / m.peak_gflops[w.dtype] for k, g in r["gflops"].items()}
        r["peak_gflops"] = m.peak_gflops[w.dtype]
    elif w.bytes:
        r["gbps"] = {k: w.bytes / v["median_s"] / 1e9 for k, v in res.items()}
        if m.copy_gbps:
            r["peak_share"] = {k: g / m.copy_gbps for k, g in r["gbps"].items()}
    r["rel_err"] = timing.max_rel_error(outs["gojax"], outs["xla"])
    r["err_flag"] = r["rel_err"] > w.tol
    return r


def run_compile(name: str, factory, devices, reps: int) -> dict:
    res = timing.time_compile(factory, devices, reps)
    r = {"name": name, "group": "compile", "kind": "compile",
         "backends": {k: v["compile_s"] for k, v in res.items()}, "detail": res}
    r["ratio"] = r["backends"]["gojax"]["median_s"] / r["backends"]["xla"]["median_s"]
    t = workloads.COMPILE
    r["target"] = {"text": t.text, "max_time_ratio": t.max_time_ratio}
    r["met"] = r["ratio"] <= t.max_time_ratio
    return r


def _export(dirname: str, ws: list[workloads.Workload], compile_names: list[str]) -> int:
    import jax
    import numpy as np

    os.makedirs(dirname, exist_ok=True)
    todo = [(w.name, w.make, w.x64) for w in ws] + [(n, workloads.COMPILE_WORKLOADS[n], False) for n in compile_names]
    for name, make, x64 in todo:
        fn, args = make()
        jax.config.update("jax_enable_x64", x64)  # else f64 inputs would be exported as f32
        exp = jax.export.export(jax.jit(fn), platforms=["cpu"])(*args)
        with open(os.path.join(dirname, name + ".bc"), "wb") as f:
            f.write(exp.mlir_module_serialized)
        side = {"name": name, "inputs": [{"dtype": str(np.asarray(a).dtype), "shape": list(np.shape(a))}
                                         for a in args]}
        with open(os.path.join(dirname, name + ".json"), "w") as f:
            json.dump(side, f, indent=1)
        print(f"exported {name}: {len(exp.mlir_module_serialized)} bytes, {len(args)} inputs")
    return 0


def _run_x64_child(names: list[str], quick: bool) -> list[dict]:
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "x64.json")
        cmd = [sys.executable, "-m", "benchmarks", "--x64-child", "--only", ",".join(names), "--json", out,
               "--png", ""] + (["--quick"] if quick else [])
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # so -m benchmarks resolves
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=root)
        if p.returncode != 0 or not os.path.exists(out):
            return [{"name": n, "error": f"x64 child failed (rc {p.returncode}): {p.stderr.strip()[-300:]}"}
                    for n in names]
        with open(out) as f:
            return json.load(f)["results"]


def _gojax_build() -> dict:
    """Which gojax library was measured (it is rebuilt often: results must say which)."""
    try:
        import hashlib

        import gojax

        path = gojax.library_path()
        with open(path, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()[:16]
        return {"version": gojax.version(), "library": path, "sha256_16": digest,
                "mtime_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(os.path.getmtime(path))),
                "worker_threads": gojax.worker_threads()}
    except Exception as e:  # the numbers are still worth having; say why the build is unknown
        return {"error": f"{type(e).__name__}: {e}"}


def main(argv=None) -> int:
    a = _parse(sys.argv[1:] if argv is None else argv)
    if a.suite == "distributed":
        from benchmarks import distributed

        return distributed.run(a.quick, a.json or "build/benchmarks/distributed.json",
                               a.png or "build/benchmarks/distributed.png")
    if a.suite == "spmd":
        from benchmarks import spmd

        return spmd.run(a.quick, a.json or "build/benchmarks/spmd.json")
    if a.suite == "broad":
        from benchmarks import broad

        return broad.main(a)
    if a.x64_child:
        import jax

        jax.config.update("jax_enable_x64", True)
    all_ws = workloads.all_workloads()
    comp = list(workloads.COMPILE_WORKLOADS)
    if a.list:
        for w in all_ws:
            print(f"{w.group:12s} {w.name}")
        for n in comp:
            print(f"{'compile':12s} {n}")
        return 0
    sel = _selected(a.only, [(w.name, w.group) for w in all_ws] + [(n, "compile") for n in comp])
    ws = [w for w in all_ws if w.name in sel]
    comp = [n for n in comp if n in sel]
    if a.export:
        return _export(a.export, ws, comp)

    s = timing.QUICK if a.quick else timing.Settings()
    m = machine.detect(measure_bandwidth=not a.x64_child)
    devices = _devices()
    if not a.x64_child:
        print("\n".join(m.derivation))
        print(f"gojax: {_gojax_build()}")
        print(f"settings: {s}; ratios are gojax time / XLA time: lower is better, < 1 means gojax is faster")
    results = []
    x64 = [w.name for w in ws if w.x64 and not a.x64_child]
    for w in ws:
        if w.x64 and not a.x64_child:
            continue
        t0 = time.perf_counter()
        try:
            results.append(run_workload(w, devices, s, m))
        except Exception as e:  # keep going: one failing workload must not hide the others
            results.append({"name": w.name, "group": w.group, "error": f"{type(e).__name__}: {e}"})
        if not a.x64_child:
            print(f"  done {w.name} in {time.perf_counter() - t0:.1f}s", flush=True)
    if x64:
        t0 = time.perf_counter()
        results += _run_x64_child(x64, a.quick)
        print(f"  done {','.join(x64)} (x64 child) in {time.perf_counter() - t0:.1f}s", flush=True)
    for n in comp:
        t0 = time.perf_counter()
        try:
            results.append(run_compile(n, workloads.COMPILE_WORKLOADS[n], devices, 1 if a.quick else 3))
        except Exception as e:
            results.append({"name": n, "group": "compile", "error": f"{type(e).__name__}: {e}"})
        print(f"  done {n} in {time.perf_counter() - t0:.1f}s", flush=True)
    order = {w.name: i for i, w in enumerate(all_ws)}
    results.sort(key=lambda r: order.get(r["name"], len(order)))

    import jax

    doc = {"machine": m.to_json(), "settings": s.__dict__, "quick": a.quick,
           "jax_version": jax.__version__, "gojax": _gojax_build(), "time_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "ratio": "gojax median time / XLA:CPU median time (lower is better; < 1: gojax faster)",
           "results": results}
    if a.json:
        report.write_json(a.json, doc)
    if a.x64_child:
        return 0
    print()
    print(report.text_table(results))
    if a.md:
        with open(a.md, "w") as f:
            f.write(report.markdown_doc(doc))
    png = a.png and report.write_png(a.png, results, f"gojax vs XLA:CPU on {m.model}, {m.cores} cores")
    print(f"\nwrote {a.json or '(no json)'} {a.png if png else '(no png)'}")
    bad = [r["name"] for r in results if "error" in r or r.get("err_flag")]
    if bad:
        print(f"workloads with errors or wrong results: {bad}")
    return 1 if bad else 0  # a failed or wrong workload makes the run fail, loudly
