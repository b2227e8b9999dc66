"""The soak (python -m gojax.soak) in CI size: 36 seconds of mixed programs
from 8 threads, every result checked, RSS flat after the warm-up. The
10-minute run is in docs/testing.md."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

from gojax import _soak_programs, soak


def test_soak_ci_sized(tmp_path):
    path = os.path.join(tmp_path, "soak.json")
    # 36 s, the first 40 % of it (and at least 3000 cases) warm-up; the
    # hang check waits 120 s more.
    cmd = [sys.executable, "-m", "gojax.soak", "--minutes", "0.6", "--threads", "8", "--seed", "17",
           "--warmup-fraction", "0.4", "--warmup-calls", "3000", "--json", path]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, f"soak failed (exit {proc.returncode})\n{proc.stdout}\n{proc.stderr[-4000:]}"
    with open(path) as f:
        report = json.load(f)
    assert report["problems"] == [], proc.stdout
    assert set(report["per_kind"]) == set(_soak_programs.KINDS), proc.stdout  # every kind ran
    assert report["rss_growth_mib"] <= report["rss_bound_mib"], proc.stdout
    assert report["live_buffers"]["end"] == 0, proc.stdout  # nothing left behind
    print(proc.stdout)


def test_soak_reports_a_wrong_result(monkeypatch):
    def wrong(dev, rng):
        _soak_programs.check_equal("planted", np.arange(3), np.arange(3)[::-1])

    monkeypatch.setattr(_soak_programs, "KINDS", {"wrong": wrong})
    report = soak.run(minutes=0.005, threads=2, warmup_fraction=0, warmup_calls=0)
    assert report.num_failures > 0 and report.calls == 0
    assert "planted: 2 of 3 elements differ" in report.failures[0], report.failures[0]
    assert any("failed" in p for p in report.problems), report.problems


def test_checks_reject_what_they_must():
    with pytest.raises(_soak_programs.Mismatch, match="1 of 2 elements off"):
        _soak_programs.check_within("nan", np.array([1.0, np.nan]), np.array([1.0, 2.0]), 1.0)
    with pytest.raises(_soak_programs.Mismatch, match="int32"):
        _soak_programs.check_equal("dtype", np.zeros(2, np.int32), np.zeros(2, np.int64))
    _soak_programs.check_within("ok", np.array([1.0, 2.5]), np.array([1.0, 2.0]), 0.5)


def test_soak_reports_rss_growth(monkeypatch):
    leaked = []

    def leak(dev, rng):  # 1 MiB that stays resident, 50 per second, 100 at most
        if len(leaked) < 100:
            leaked.append(b"x" * (1 << 20))
        time.sleep(0.02)

    monkeypatch.setattr(_soak_programs, "KINDS", {"leak": leak})
    report = soak.run(minutes=0.05, threads=1, rss_bound_mib=16, warmup_fraction=0.2, warmup_calls=0)
    assert report.num_failures == 0 and report.calls > 0
    assert report.rss_growth_mib > 16, report.text()
    assert any("RSS grew" in p for p in report.problems), report.problems
