"""Helpers shared by gojax's tests (a module name no other conftest uses)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(TESTS_DIR)


def run_python(code: str, env: dict[str, str] | None = None,
               timeout: float = 240) -> subprocess.CompletedProcess:
    """Runs `code` in a fresh interpreter (same venv); returns the process."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    # A PYTHONPATH in env adds to the caller's (which may be where gojax
    # and jax are installed), it does not replace it.
    full_env["PYTHONPATH"] = os.pathsep.join(
        p for p in (TESTS_DIR, (env or {}).get("PYTHONPATH", ""), os.environ.get("PYTHONPATH", "")) if p)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=TESTS_DIR,
                          env=full_env, capture_output=True, text=True, timeout=timeout)


def check_python(code: str, env: dict[str, str] | None = None,
                 timeout: float = 240) -> str:
    """run_python that requires exit status 0 and returns stdout."""
    proc = run_python(code, env, timeout)
    assert proc.returncode == 0, (
        f"subprocess exited with {proc.returncode}\n--- stdout\n{proc.stdout}\n"
        f"--- stderr\n{proc.stderr}")
    return proc.stdout


def machine_bytes() -> int:
    """This machine's RAM plus swap (/proc/meminfo): no process here can
    hold more, whatever the cgroup or overcommit settings."""
    fields = {}
    with open("/proc/meminfo") as f:
        for line in f:
            name, _, rest = line.partition(":")
            if rest.split():
                fields[name] = int(rest.split()[0]) * 1024
    return fields["MemTotal"] + fields.get("SwapTotal", 0)


def float32s_past_machine() -> tuple[int, int]:
    """(n, side): a power-of-two count of float32 elements whose bytes exceed
    machine_bytes(), and a power-of-two side with side * side >= n."""
    n = 1 << (machine_bytes() // 4).bit_length()
    return n, 1 << (n.bit_length() + 1) // 2
