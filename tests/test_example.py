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
