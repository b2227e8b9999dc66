"""The benchmark command runs end to end (no timing assertions: see docs/performance.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if REPO not in sys.path:
    sys.path.insert(0, REPO)

from benchmarks import cli, machine, report  # noqa: E402


def test_quick_dispatch_runs(tmp_path):
    js, png, md = tmp_path / "r.json", tmp_path / "r.png", tmp_path / "r.md"
    p = subprocess.run([sys.executable, "-m", "benchmarks", "--quick", "--only", "dispatch",
                        "--json", str(js), "--png", str(png), "--md", str(md)], cwd=REPO, capture_output=True,
                       text=True, timeout=240)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "peak = cores x GHz x FLOPs/cycle" in p.stdout
    doc = json.loads(js.read_text())
    (r,) = doc["results"]
    assert r["name"] == "dispatch" and set(r["backends"]) == {"gojax", "xla"}
    assert r["ratio"] == pytest.approx(r["backends"]["gojax"]["median_s"] / r["backends"]["xla"]["median_s"])
    assert r["rel_err"] == 0.0 and r["target"]["max_time_ratio"] == 1.2
    assert "| dispatch |" in md.read_text() and "cores x GHz x FLOPs/cycle" in md.read_text()
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert "matplotlib is not installed" in p.stdout
    else:
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("only,want", [
    ("dispatch", {"dispatch"}),
    ("conv", {"conv2d_fwd", "conv2d_bwd"}),
    ("compile,matmul_f32_256", {"compile_mlp_step", "compile_transformer", "matmul_f32_256"}),
])
def test_selection(only, want):
    names = [("dispatch", "dispatch"), ("conv2d_fwd", "conv"), ("conv2d_bwd", "conv"),
             ("compile_mlp_step", "compile"), ("compile_transformer", "compile"), ("matmul_f32_256", "matmul")]
    assert cli._selected(only, names) == want


def test_selection_rejects_unknown():
    with pytest.raises(SystemExit, match="unknown workload"):
        cli._selected("nope", [("dispatch", "dispatch")])


@pytest.mark.parametrize("vendor,family,flags,isa,f32", [
    ("AuthenticAMD", 0x1A, {"avx512f", "avx2", "fma"}, "Zen 5", 64),
    ("AuthenticAMD", 0x19, {"avx512f", "avx2", "fma"}, "Zen 4", 32),
    ("GenuineIntel", 6, {"avx512f", "avx2", "fma"}, "AVX-512", 64),
    ("GenuineIntel", 6, {"avx2", "fma"}, "AVX2-FMA", 32),
    ("GenuineIntel", 6, {"sse2"}, "SSE", 8),
])
def test_flops_per_cycle(vendor, family, flags, isa, f32):
    got_isa, got, why = machine._fma_lanes(vendor, family, flags)
    assert isa in got_isa and got == f32
    assert "lanes" in why


def test_cpuinfo_parse(tmp_path):
    f = tmp_path / "cpuinfo"
    f.write_text("processor\t: 0\nmodel name\t: Test CPU\ncpu MHz\t\t: 2000.0\n\n"
                 "processor\t: 1\nmodel name\t: Test CPU\ncpu MHz\t\t: 3000.5\n")
    info = machine._cpuinfo(str(f))
    assert info["model name"] == "Test CPU" and info["cpu MHz max"] == "3000.5"


def test_table_marks_targets():
    st = {"median_s": 2e-3, "iqr_s": 1e-4}
    rs = [{"name": "w", "backends": {"gojax": st, "xla": st | {"median_s": 1e-3}}, "ratio": 2.0,
           "target": {"text": "t", "max_time_ratio": 1.25}, "met": False, "gbps": {"gojax": 1.0, "xla": 2.0},
           "rel_err": 0.5, "err_flag": True},
          {"name": "bad", "error": "boom"}]
    text = report.text_table(rs)
    assert "NO" in text and "2 ms [100 us]" in text and "5.0e-01 !" in text and "ERROR: boom" in text
    assert report.markdown_table(rs).count("\n") == 3


def test_quick_spmd_suite_runs(tmp_path):
    js = tmp_path / "spmd.json"
    p = subprocess.run([sys.executable, "-m", "benchmarks", "--suite", "spmd", "--quick", "--json", str(js)],
                       cwd=REPO, capture_output=True, text=True, timeout=240)
    assert p.returncode == 0, p.stdout + p.stderr
    doc = json.loads(js.read_text())
    got = {(r["name"], r["devices"]) for r in doc["timings"]}
    assert got == {(n, d) for n in ("train_data_parallel", "train_tensor_parallel") for d in (2, 4, 8)}
    assert all(r["rel_err"] < 1e-5 and r["ratio"] > 0 for r in doc["timings"])
    mem = doc["memory"]
    assert [m["devices"] for m in mem] == [1, 2, 4, 8]
    for m in mem:
        # The arguments are the two N-way sharded arrays; the program reads
        # them and writes a result as large, so the peak covers all three.
        assert m["gojax_args_bytes"] >= 2 * m["array_bytes"]
        assert m["gojax_peak_bytes"] >= 3 * m["array_bytes"]
        assert m["xla_declared_per_device"] == 3 * m["array_bytes"] // m["devices"]
    # The training steps run partitioned on several devices; the
    # tensor-parallel step's memory per device shrinks with N.
    steps = {(r["name"], r["devices"]): r for r in doc["step_memory"]}
    assert set(steps) == {(n, d) for n in ("train_data_parallel", "train_tensor_parallel") for d in (1, 2, 4, 8)}
    assert all(r["gojax_partitioned"] for (_, d), r in steps.items() if d > 1)
    tp = [steps["train_tensor_parallel", d]["gojax_peak_per_device"] for d in (1, 8)]
    assert tp[1] < 0.5 * tp[0], tp
