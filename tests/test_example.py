"""The README's main example runs on gojax and learns."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from gojax_testutil import REPO_ROOT


def test_train_example_runs_on_gojax():
    proc = subprocess.run([sys.executable, os.path.join(REPO_ROOT, "examples", "train.py")],
                          capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "(backend gojax, platform cpu)" in proc.stdout, proc.stdout
    m = re.search(r"final loss ([0-9.]+) \(from ([0-9.]+)\)", proc.stdout)
    assert m, proc.stdout
    final, first = float(m.group(1)), float(m.group(2))
    assert final < first / 5, proc.stdout


def test_distributed_example_runs_two_processes():
    proc = subprocess.run([sys.executable, os.path.join(REPO_ROOT, "examples", "distributed_train.py"),
                           "--local", "2", "--steps", "40"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    m = re.search(r"2 processes, 2 devices \(backend gojax\): final loss ([0-9.]+) \(from ([0-9.]+)\)", proc.stdout)
    assert m, proc.stdout + proc.stderr[-3000:]
    assert float(m.group(1)) < float(m.group(2)) / 5, proc.stdout
