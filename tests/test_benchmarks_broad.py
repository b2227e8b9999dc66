"""The broad benchmark suite runs end to end and summarizes correctly (no timing assertions)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if REPO not in sys.path:
    sys.path.insert(0, REPO)

from benchmarks import broad, broad_workloads as bw  # noqa: E402


def _res(name, ratio, **kw):
    return {"name": name, "group": "g", "ratio": ratio, "check": {"ok": True, "err": 0.0, "note": ""}} | kw


def test_summary_geomean_worst_counts():
    rs = [_res("a", 2.0), _res("b", 0.5), _res("c", 4.0), _res("d", 1.6),
          {"name": "e", "group": "g", "errors": {"gojax": "boom"}, "backends": {"xla": {"median_s": 1.0}}},
          {"name": "f", "group": "g", "skipped": "flax not installed"},
          _res("h", 1.0, check={"ok": False, "err": 1.0, "note": "x"})]
    s = broad.summarize(rs)
    assert s["geomean_ratio"] == pytest.approx((2.0 * 0.5 * 4.0 * 1.6 * 1.0) ** (1 / 5))
    assert s["worst"] == {"name": "c", "ratio": 4.0} and s["best"]["name"] == "b"
    assert s["above_1_5"] == 3 and s["below_1"] == 1 and s["timed"] == 5
    assert s["failed"] == ["e"] and s["skipped"] == ["f"] and s["mismatched"] == ["h"]
    assert [t["name"] for t in s["top10_worst"]] == ["c", "a", "d", "h", "b"]
    text = broad.summary_text(s)
    assert "worst: c 4" in text and "failed (1): ['e']" in text


def test_summary_with_nothing_timed():
    s = broad.summarize([{"name": "e", "group": "g", "errors": {"process": "died"}}])
    assert s["geomean_ratio"] is None and s["failed"] == ["e"]
    assert "failed (1)" in broad.summary_text(s)
    assert broad.text_table([{"name": "e", "group": "g", "errors": {"process": "died"}}], True).count("ERROR") == 1


def test_checks():
    x = np.array([3.0, 1.0, 2.0, 1.0], np.float32)
    chk = bw.check_argsort()
    assert chk([np.array([1, 3, 2, 0])], [np.array([3, 1, 2, 0])], [x]).ok  # tie broken the other way
    assert not chk([np.array([0, 1, 2, 3])], [np.array([1, 3, 2, 0])], [x]).ok
    r = np.random.default_rng(0)
    a, b = r.standard_normal(10000), r.standard_normal(10000)
    assert bw.moments()([a], [b], []).ok
    assert not bw.moments()([a + 1], [b], []).ok
    assert not bw.moments()([a.astype(np.float32)], [b], []).ok  # dtype differs
    assert bw.check_permutation([np.array([2, 0, 1])], [np.array([0, 1, 2])], []).ok
    assert not bw.check_permutation([np.array([2, 2, 1])], [np.array([0, 1, 2])], []).ok
    m = r.standard_normal((8, 8))
    q, rr = np.linalg.qr(m)
    qr = bw._residual_check(bw._qr_resid, 1e-9, "qr")
    assert qr([q, rr], [q, rr], [m]).ok
    assert not qr([q, rr + 1], [q, rr], [m]).ok
    assert bw.close(1e-3)([np.array([1.0, np.nan])], [np.array([1.0005, np.nan])], []).ok
    assert math.isinf(bw.rel_err([np.zeros(3)], [np.zeros(4)]))


def test_workload_list_is_broad():
    ws = bw.all_workloads()
    assert len(ws) >= 50
    groups = {w.group for w in ws}
    assert {"sort", "cumulative", "control", "gather", "random", "fft", "linalg", "nn", "conv", "dtype",
            "train"} <= groups


def test_quick_broad_run(tmp_path):
    js, png, md = tmp_path / "b.json", tmp_path / "b.png", tmp_path / "b.md"
    models = ("equinox_mlp_sgd_step", "optax_mlp_adam_step", "flax_cnn_bn_optax_adamw_step")
    names = ",".join(("scan_small_1000", "random_uniform_1M") + models)
    p = subprocess.run([sys.executable, "-m", "benchmarks", "--suite", "broad", "--quick", "--only", names,
                        "--json", str(js), "--png", str(png), "--md", str(md)], cwd=REPO, capture_output=True,
                       text=True, timeout=400)
    assert p.returncode == 0, p.stdout + p.stderr
    doc = json.loads(js.read_text())
    assert {"suite", "machine", "gojax", "jax_version", "summary", "results", "settings", "command"} <= set(doc)
    assert {"geomean_ratio", "worst", "above_1_5", "failed", "mismatched", "top10_worst"} <= set(doc["summary"])
    by = {r["name"]: r for r in doc["results"]}
    assert set(by) == set(names.split(","))
    for n in ("scan_small_1000", "random_uniform_1M"):
        r = by[n]
        assert set(r["backends"]) == {"gojax", "xla"} and r["check"]["ok"]
        assert r["ratio"] == pytest.approx(r["backends"]["gojax"]["median_s"] / r["backends"]["xla"]["median_s"])
    # Training steps of real flax/optax/equinox models (CI installs them):
    # gojax's results must pass the workload's check against XLA:CPU.
    import importlib.util

    for n in models:
        needs = [m for m in ("flax", "optax", "equinox") if m in n]
        if all(importlib.util.find_spec(m) for m in needs):
            assert by[n]["check"]["ok"], by[n]
        else:
            assert "not installed" in by[n]["skipped"], by[n]
    assert "geometric mean" in p.stdout and "| scan_small_1000 |" in md.read_text()
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        pass
    else:
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_broad_export_writes_artifacts(tmp_path):
    # The artifacts go/cmd/gojax-prof reads: the serialized module and its input signature.
    p = subprocess.run([sys.executable, "-m", "benchmarks", "--suite", "broad", "--export", str(tmp_path),
                        "--only", "random_uniform_1M"], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert (tmp_path / "random_uniform_1M.bc").read_bytes()[:4] == b"ML\xefR"  # MLIR bytecode
    side = json.loads((tmp_path / "random_uniform_1M.json").read_text())
    assert side["inputs"] == [{"dtype": "uint32", "shape": [2]}]
    assert "geometric mean" not in p.stdout  # exported, not run


def test_memory_child_reports_peak():
    p = subprocess.run([sys.executable, "-m", "benchmarks", "--suite", "broad", "--mem-child", "random_uniform_1M",
                        "--mem-backend", "xla"], cwd=REPO, capture_output=True, text=True, timeout=200)
    line = [ln for ln in p.stdout.splitlines() if ln.startswith("MEMORY_RESULT ")]
    assert line, p.stdout + p.stderr
    m = json.loads(line[0].split(" ", 1)[1])
    if "error" not in m:  # clear_refs may be unavailable in some sandboxes; then the error says so
        assert m["peak_mib"] >= 0 and m["run_mib"] >= 0
    else:
        assert "clear_refs" in m["error"]
