"""The broad suite: many op families, gojax vs XLA:CPU, with results checks and optional peak memory.

The parent process never runs a workload itself. Workloads run in child
processes (`--broad-child`), one child for the f32 workloads and one started
with jax_enable_x64 for the f64 ones; each child appends one JSON line per
event (start, result) to a file the parent watches. A child that crashes or
hangs (past --timeout on one workload) costs only that workload: the parent
records the error and starts a fresh child for the rest.

With --memory, each (workload, backend) also runs once in a fresh child of
its own that measures the process's peak resident set growth (see
measure_memory and docs/performance.md).
"""

from __future__ import annotations

import gc
import importlib.util
import json
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from benchmarks import report, timing
from benchmarks import broad_workloads as bw

BACKENDS = {"gojax": "gojax", "xla": "cpu"}
SLOW_RATIO = 1.5  # ratios above this are counted and drawn red
SLOW_CALL_S = 2.0  # a workload with a call this slow on either backend is timed from 2 calls per backend

SETTINGS = timing.Settings(warmup=1, min_rounds=5, max_rounds=15, budget_s=2.5, batch_s=0.02)
QUICK = timing.Settings(warmup=1, min_rounds=2, max_rounds=2, budget_s=0.5, batch_s=0.005)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# ---------------------------------------------------------------- summary


def summarize(results: list[dict]) -> dict:
    """Geometric mean of gojax/XLA ratios over the workloads timed on both backends, worst, counts."""
    timed = [r for r in results if r.get("ratio") is not None and math.isfinite(r["ratio"]) and r["ratio"] > 0]
    out = {"timed": len(timed), "workloads": len(results),
           "failed": [r["name"] for r in results if r.get("errors")],
           "mismatched": [r["name"] for r in results if r.get("check") and not r["check"]["ok"]],
           "skipped": [r["name"] for r in results if r.get("skipped")]}
    if timed:
        out["geomean_ratio"] = float(np.exp(np.mean([np.log(r["ratio"]) for r in timed])))
        worst = max(timed, key=lambda r: r["ratio"])
        best = min(timed, key=lambda r: r["ratio"])
        out["worst"] = {"name": worst["name"], "ratio": worst["ratio"]}
        out["best"] = {"name": best["name"], "ratio": best["ratio"]}
        out["above_1_5"] = sum(r["ratio"] > SLOW_RATIO for r in timed)
        out["below_1"] = sum(r["ratio"] < 1 for r in timed)
        out["top10_worst"] = [{"name": r["name"], "ratio": r["ratio"]}
                              for r in sorted(timed, key=lambda r: -r["ratio"])[:10]]
    else:
        out.update(geomean_ratio=None, worst=None, best=None, above_1_5=0, below_1=0, top10_worst=[])
    return out


# ---------------------------------------------------------------- one workload, in a child


def _np_tree(t):
    import jax

    return jax.tree.map(np.asarray, t)


def _block(x):
    import jax

    jax.block_until_ready(x)


def run_one(w: bw.BroadWorkload, devices: dict, s: timing.Settings) -> dict:
    """Compile and first call on each backend (errors recorded per backend), then alternate the survivors."""
    import jax

    r = {"name": w.name, "group": w.group, "x64": w.x64, "backends": {}, "errors": {}}
    fn, args = w.make()
    jf = jax.jit(fn)
    placed, outs, batch, first, _last_call = {}, {}, {}, {}, {}
    for k, d in devices.items():
        try:
            placed[k] = jax.device_put(args, d)
            _block(placed[k])
            t0 = time.perf_counter()
            o = jf(*placed[k])
            _block(o)
            first[k] = time.perf_counter() - t0
            t0 = time.perf_counter()
            o = jf(*placed[k])  # second call: sizes the batch
            _block(o)
            t = time.perf_counter() - t0
            _last_call[k] = t
            outs[k] = _np_tree(o)
            batch[k] = max(1, min(10000, math.ceil(s.batch_s / max(t, 1e-7))))
        except Exception as e:  # a failure is a finding: record it, keep the other backend
            msg = f"{type(e).__name__}: {e}"
            r["errors"][k] = msg[:2000]
            placed.pop(k, None)
    ok = [k for k in devices if k in batch]
    samples = {k: [] for k in ok}
    slow = any(outs_t > SLOW_CALL_S for outs_t in (_last_call.get(k, 0) for k in ok))
    if slow:  # one call takes seconds: the sizing call is a sample too, and one round follows
        for k in ok:
            samples[k].append(_last_call[k])
    start, rnd = time.perf_counter(), 0
    while rnd < (1 if slow else s.max_rounds) and (slow or rnd < s.min_rounds or
                                                  time.perf_counter() - start < s.budget_s):
        for k in ok if rnd % 2 == 0 else ok[::-1]:
            a, n = placed[k], batch[k]
            t0 = time.perf_counter()
            for _ in range(n):
                _block(jf(*a))
            samples[k].append((time.perf_counter() - t0) / n)
        rnd += 1
        if rnd >= 3 and time.perf_counter() - start > 6 * s.budget_s:  # slow workloads: 3 rounds suffice
            break
    for k in ok:
        r["backends"][k] = timing.stats(samples[k]) | {"batch": batch[k], "first_call_s": first[k]}
    if len(ok) == 2:
        r["ratio"] = r["backends"]["gojax"]["median_s"] / r["backends"]["xla"]["median_s"]
        try:
            c = w.check(outs["gojax"], outs["xla"], args)
            r["check"] = {"ok": bool(c.ok), "err": float(c.err), "note": c.note}
        except Exception as e:
            r["check"] = {"ok": False, "err": float("inf"), "note": f"check raised {type(e).__name__}: {e}"}
    if not r["errors"]:
        del r["errors"]
    return r


def _emit(f, obj):
    f.write(json.dumps(obj) + "\n")
    f.flush()
    os.fsync(f.fileno())


def child_main(names: list[str], out_path: str, quick: bool, x64: bool) -> int:
    import jax

    if x64:
        jax.config.update("jax_enable_x64", True)
    devices = {k: jax.devices(b)[0] for k, b in BACKENDS.items()}
    s = QUICK if quick else SETTINGS
    by_name = {w.name: w for w in bw.all_workloads()}
    with open(out_path, "a") as f:
        for n in names:
            _emit(f, {"event": "start", "name": n})
            try:
                res = run_one(by_name[n], devices, s)
            except Exception as e:
                res = {"name": n, "group": by_name[n].group, "errors": {"setup": f"{type(e).__name__}: {e}"[:2000]}}
            _emit(f, {"event": "result", "result": res})
            gc.collect()
    return 0


def _spawn(args: list[str], log) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "benchmarks", "--suite", "broad"] + args
    return subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)


def _crash_reason(text: str) -> str:
    """The first line that says why a child died (a Go fatal error or panic, a signal), else the output's tail."""
    for line in text.splitlines():
        if line.startswith(("fatal error:", "panic:", "SIGSEGV", "SIGBUS", "unexpected signal", "Fatal Python error")):
            return line.strip()
    return text.strip()[-800:]


def run_in_children(ws: list[bw.BroadWorkload], quick: bool, timeout_s: float, on_result) -> list[dict]:
    """Runs ws in children (f32 and x64 apart), restarting after a crash or hang; calls on_result per result."""
    results = []
    for x64 in (False, True):
        todo = [w for w in ws if w.x64 == x64]
        while todo:
            with tempfile.TemporaryDirectory() as d:
                path, logp = os.path.join(d, "events.jsonl"), os.path.join(d, "child.log")
                with open(logp, "w") as log:
                    p = _spawn(["--broad-child", ",".join(w.name for w in todo), "--json", path]
                               + (["--quick"] if quick else []) + (["--x64-child"] if x64 else []), log)
                done, current, since, pos = set(), None, time.time(), 0
                while True:
                    rc = p.poll()
                    if os.path.exists(path):
                        with open(path) as f:
                            f.seek(pos)
                            for line in f:
                                if not line.endswith("\n"):
                                    break
                                pos += len(line)
                                ev = json.loads(line)
                                if ev["event"] == "start":
                                    current, since = ev["name"], time.time()
                                else:
                                    results.append(ev["result"])
                                    done.add(ev["result"]["name"])
                                    on_result(ev["result"])
                                    current = None
                    if rc is not None:
                        break
                    if current and time.time() - since > timeout_s:
                        p.kill()
                        p.wait()
                        rc = f"killed after {timeout_s:.0f} s on one workload"
                        break
                    time.sleep(0.2)
                with open(logp) as f:
                    text = f.read()
                tail = _crash_reason(text)
            rest = [w for w in todo if w.name not in done]
            if rest:
                bad = rest[0] if current is None else next(w for w in rest if w.name == current)
                why = (f"child process {'timed out' if isinstance(rc, str) else 'died'} ({rc}) during this workload"
                       if current else f"child exited (rc {rc}) before starting it")
                r = {"name": bad.name, "group": bad.group, "x64": bad.x64,
                     "errors": {"process": f"{why}; output tail: {tail.strip()[-800:]}"}}
                results.append(r)
                on_result(r)
                rest = [w for w in rest if w.name != bad.name]
            todo = rest
    return results


# ---------------------------------------------------------------- memory


def _status_kb(field: str) -> int | None:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def _reset_hwm() -> bool:
    """Resets VmHWM (the peak RSS) to the current RSS (Linux >= 4.0, writing '5' to clear_refs)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def measure_memory(w: bw.BroadWorkload, backend: str) -> dict:
    """Peak RSS growth of this process while `backend` compiles and runs w (run in a fresh child).

    base = RSS once JAX, both backends and the host (numpy) inputs exist;
    peak_mib = max RSS from there through device_put, compile and 3 calls, minus base;
    run_mib = max RSS during the 3 calls minus RSS just before them (compile done, inputs placed).
    """
    import jax

    if w.x64:
        jax.config.update("jax_enable_x64", True)
    devs = {k: jax.devices(b)[0] for k, b in BACKENDS.items()}
    fn, args = w.make()
    gc.collect()
    if not _reset_hwm():
        return {"error": "cannot reset VmHWM (/proc/self/clear_refs not writable)"}
    base = _status_kb("VmRSS")
    d = devs[backend]
    placed = jax.device_put(args, d)
    _block(placed)
    compiled = jax.jit(fn).lower(*placed).compile()
    hwm_compile = _status_kb("VmHWM")
    _reset_hwm()
    before_run = _status_kb("VmRSS")
    for _ in range(3):
        _block(compiled(*placed))
    hwm_run = _status_kb("VmHWM")
    out = {"peak_mib": (max(hwm_compile, hwm_run) - base) / 1024, "run_mib": (hwm_run - before_run) / 1024,
           "base_mib": base / 1024}
    try:
        ms = d.memory_stats()
    except Exception:
        ms = None
    if ms and ms.get("peak_bytes_in_use", 0) > 0:
        out["device_peak_bytes_in_use_mib"] = ms["peak_bytes_in_use"] / 2**20
    return out


def mem_child_main(name: str, backend: str) -> int:
    w = {w.name: w for w in bw.all_workloads()}[name]
    try:
        res = measure_memory(w, backend)
    except Exception as e:
        res = {"error": f"{type(e).__name__}: {e}"[:500]}
    print("MEMORY_RESULT " + json.dumps(res), flush=True)
    return 0


def run_memory(ws: list[bw.BroadWorkload], jobs: int, timeout_s: float) -> dict:
    """{name: {backend: result}}; up to `jobs` children at once (memory is per process, so this is safe)."""
    tasks = [(w.name, k) for w in ws for k in BACKENDS]
    out: dict = {w.name: {} for w in ws}
    running: list = []
    while tasks or running:
        while tasks and len(running) < jobs:
            n, k = tasks.pop(0)
            p = subprocess.Popen([sys.executable, "-m", "benchmarks", "--suite", "broad", "--mem-child", n,
                                  "--mem-backend", k], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 text=True)
            running.append((n, k, p, time.time()))
        time.sleep(0.1)
        for item in list(running):
            n, k, p, t0 = item
            if p.poll() is None and time.time() - t0 < timeout_s:
                continue
            timed_out = p.poll() is None
            if timed_out:
                p.kill()
            text = p.communicate()[0]
            running.remove(item)
            line = [ln for ln in text.splitlines() if ln.startswith("MEMORY_RESULT ")]
            if line:
                out[n][k] = json.loads(line[-1][len("MEMORY_RESULT "):])
            else:
                why = f"timed out after {timeout_s:.0f} s" if timed_out else _crash_reason(text)[-300:]
                out[n][k] = {"error": f"memory child failed (rc {p.returncode}): {why}"}
    return out


# ---------------------------------------------------------------- report


def _fmt_mib(m: dict | None) -> str:
    if not m:
        return "-"
    if "error" in m:
        return "err"
    return f"{m['peak_mib']:.0f}"


def _row(r: dict, with_mem: bool) -> list[str]:
    b = r.get("backends", {})
    cell = {k: (report.fmt_s(b[k]["median_s"]) if k in b else
                ("FAILED" if k in r.get("errors", {}) else "-")) for k in BACKENDS}
    ratio = f"{r['ratio']:.3g}" if r.get("ratio") is not None else "-"
    if r.get("skipped"):
        chk = "skipped: " + r["skipped"]
    elif r.get("errors"):
        chk = "ERROR " + "; ".join(f"{k}: {v.splitlines()[0][:90]}" for k, v in r["errors"].items())
    elif r.get("check"):
        c = r["check"]
        chk = ("ok" if c["ok"] else "MISMATCH") + f" ({c['err']:.1e})"
    else:
        chk = "-"
    row = [r["name"], cell["gojax"], cell["xla"], ratio, chk]
    if with_mem:
        mem = r.get("memory", {})
        row += [_fmt_mib(mem.get("gojax")), _fmt_mib(mem.get("xla"))]
    return row


def header(with_mem: bool) -> list[str]:
    h = ["workload", "gojax median", "XLA median", "gojax/XLA", "check (err)"]
    return h + ["gojax peak MiB", "XLA peak MiB"] if with_mem else h


def text_table(results: list[dict], with_mem: bool) -> str:
    rs = [header(with_mem)] + [_row(r, with_mem) for r in results]
    w = [max(len(r[i]) for r in rs) for i in range(len(rs[0]))]
    lines = ["  ".join(c.ljust(w[i]) for i, c in enumerate(r)).rstrip() for r in rs]
    lines.insert(1, "  ".join("-" * x for x in w))
    return "\n".join(lines)


def summary_text(s: dict) -> str:
    lines = []
    if s.get("geomean_ratio") is not None:
        lines.append(f"geometric mean of gojax/XLA time ratios over {s['timed']} workloads: {s['geomean_ratio']:.3g}")
        lines.append(f"worst: {s['worst']['name']} {s['worst']['ratio']:.3g}; best: {s['best']['name']} "
                     f"{s['best']['ratio']:.3g}; above {SLOW_RATIO}: {s['above_1_5']}; below 1 (gojax faster): "
                     f"{s['below_1']}")
        lines.append("ten worst: " + ", ".join(f"{t['name']} {t['ratio']:.3g}" for t in s["top10_worst"]))
    lines.append(f"failed ({len(s['failed'])}): {s['failed']}")
    lines.append(f"result mismatches ({len(s['mismatched'])}): {s['mismatched']}")
    if s["skipped"]:
        lines.append(f"skipped ({len(s['skipped'])}): {s['skipped']}")
    return "\n".join(lines)


def markdown_doc(doc: dict) -> str:
    with_mem = doc.get("memory", False)
    h = header(with_mem)
    lines = [f"Run {doc['time_utc']}, jax {doc['jax_version']}, quick={doc['quick']}, "
             f"gojax library {doc['gojax'].get('sha256_16', '?')} built {doc['gojax'].get('mtime_utc', '?')}, "
             f"CPU {doc['machine']['model']} ({doc['machine']['cores']} cores).", "",
             "```", summary_text(doc["summary"]), "```", "",
             "| " + " | ".join(h) + " |", "|" + "---|" * len(h)]
    for r in doc["results"]:
        lines.append("| " + " | ".join(c.replace("|", "/") for c in _row(r, with_mem)) + " |")
    errs = [r for r in doc["results"] if r.get("errors")]
    if errs:
        lines += ["", "Errors:", ""]
        for r in errs:
            for k, v in r["errors"].items():
                lines.append(f"- `{r['name']}` on {k}: {v.splitlines()[0][:300]}")
    return "\n".join(lines) + "\n"


def write_png(path: str, results: list[dict], title: str) -> bool:
    try:
        import matplotlib
    except ImportError:
        print(f"PNG not written ({path}): matplotlib is not installed")
        return False
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rs = [r for r in results if r.get("ratio") is not None]
    if not rs:
        return False
    fig, ax = plt.subplots(figsize=(9, 0.22 * len(rs) + 1.6))
    ys = list(range(len(rs)))
    colors = ["tab:red" if r["ratio"] > SLOW_RATIO else ("tab:green" if r["ratio"] < 1 else "tab:gray") for r in rs]
    ax.barh(ys, [r["ratio"] for r in rs], color=colors)
    for y, r in zip(ys, rs):
        bad = r.get("check") and not r["check"]["ok"]
        ax.text(r["ratio"], y, f" {r['ratio']:.3g}x" + (" MISMATCH" if bad else ""), va="center", fontsize=6)
    ax.axvline(1.0, color="tab:blue", ls="--", lw=1)
    ax.axvline(SLOW_RATIO, color="tab:red", ls=":", lw=1)
    ax.set_xscale("log")
    ax.set_yticks(ys, [r["name"] for r in rs], fontsize=6)
    ax.set_ylim(len(rs) - 0.5, -0.5)
    ax.set_xlabel("gojax time / XLA:CPU time (log scale; lower is better; dashed 1.0, dotted 1.5)")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


# ---------------------------------------------------------------- entry point


def _select(only: str, ws: list[bw.BroadWorkload]) -> list[bw.BroadWorkload]:
    if not only:
        return ws
    want = {x.strip() for x in only.split(",") if x.strip()}
    known = {w.name for w in ws} | {w.group for w in ws}
    bad = want - known
    if bad:
        raise SystemExit(f"unknown broad workload/group {sorted(bad)}; see --suite broad --list")
    return [w for w in ws if w.name in want or w.group in want]


def main(a) -> int:
    if a.mem_child:
        return mem_child_main(a.mem_child, a.mem_backend)
    all_ws = bw.all_workloads()
    if a.broad_child:
        return child_main(a.broad_child.split(","), a.json, a.quick, a.x64_child)
    if a.list:
        for w in all_ws:
            print(f"{w.group:12s} {w.name}" + ("  (x64)" if w.x64 else "") +
                  (f"  (needs {', '.join(w.needs)})" if w.needs else ""))
        print(f"{len(all_ws)} workloads")
        return 0
    ws = _select(a.only, all_ws)
    from benchmarks import cli, machine

    if a.export:  # artifacts for go/cmd/gojax-prof, as the default suite writes them
        return cli._export(a.export, ws, [])

    m = machine.detect(measure_bandwidth=False)
    print(m.derivation[0])
    print(f"gojax: {cli._gojax_build()}")
    s = QUICK if a.quick else SETTINGS
    if a.blas_threads:  # children inherit it; XLA:CPU's LAPACK calls go through scipy's OpenBLAS
        for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[v] = str(a.blas_threads)
    print(f"broad suite: {len(ws)} workloads; settings {s}; BLAS threads "
          f"{os.environ.get('OPENBLAS_NUM_THREADS', 'default')}; ratio = gojax time / XLA time (lower is better)")
    results, skipped = [], []
    runnable = []
    for w in ws:
        miss = [p for p in w.needs if importlib.util.find_spec(p) is None]
        if miss:
            why = f"{', '.join(miss)} not installed"
            print(f"  skip {w.name}: {why}")
            skipped.append({"name": w.name, "group": w.group, "skipped": why})
        else:
            runnable.append(w)
    t_start = time.perf_counter()

    def on_result(r):
        if r.get("errors"):
            for k, v in r["errors"].items():
                print(f"  FAILED {r['name']} on {k}: {v.splitlines()[0][:300] if v else v}", flush=True)
        if r.get("ratio") is not None:
            c = r.get("check", {})
            flag = "" if c.get("ok") else f"  <<< MISMATCH: {c.get('note')} err {c.get('err')}"
            print(f"  {r['name']:45s} gojax {report.fmt_s(r['backends']['gojax']['median_s']):>9s}  "
                  f"xla {report.fmt_s(r['backends']['xla']['median_s']):>9s}  ratio {r['ratio']:7.3g}{flag}",
                  flush=True)

    results = run_in_children(runnable, a.quick, a.timeout, on_result) + skipped
    t_run = time.perf_counter() - t_start
    json_path = a.json if a.json is not None else "build/benchmarks/broad.json"
    png_path = a.png if a.png is not None else "build/benchmarks/broad.png"

    def document(results, with_memory):
        import jax

        order = {w.name: i for i, w in enumerate(all_ws)}
        results.sort(key=lambda r: order.get(r["name"], len(order)))
        return {"suite": "broad", "machine": m.to_json(), "settings": s.__dict__, "quick": a.quick,
                "memory": with_memory, "jax_version": jax.__version__, "gojax": cli._gojax_build(),
                "time_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "run_s": t_run,
                "command": "python -m benchmarks " + " ".join(sys.argv[1:]),
                "blas_threads": os.environ.get("OPENBLAS_NUM_THREADS", "default"),
                "ratio": "gojax median time / XLA:CPU median time (lower is better; < 1: gojax faster)",
                "summary": summarize(results), "results": results}

    if a.memory and json_path:  # the timings are kept even if the (long) memory phase is interrupted
        report.write_json(json_path, document(results, False))
    if a.memory:
        t0 = time.perf_counter()
        print(f"measuring peak memory ({a.memory_jobs} children at a time)...", flush=True)
        mem = run_memory(runnable, a.memory_jobs, a.timeout)
        for r in results:
            if r["name"] in mem:
                r["memory"] = mem[r["name"]]
        print(f"  memory done in {time.perf_counter() - t0:.0f} s")
    doc = document(results, bool(a.memory))
    summ = doc["summary"]
    if json_path:
        report.write_json(json_path, doc)
    print()
    print(text_table(results, bool(a.memory)))
    print()
    print(summary_text(summ))
    if a.md:
        with open(a.md, "w") as f:
            f.write(markdown_doc(doc))
    png = png_path and write_png(png_path, results, f"broad suite: gojax vs XLA:CPU on {m.model}, {m.cores} cores; "
                                 f"geomean {summ['geomean_ratio'] or float('nan'):.3g}")
    print(f"\nwrote {json_path or '(no json)'} {png_path if png else '(no png)'} in {t_run:.0f} s of runs")
    return 1 if summ["failed"] or summ["mismatched"] else 0
