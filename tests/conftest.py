"""Shared fixtures: gojax and XLA CPU devices, and a subprocess runner for
checks that could crash the interpreter or need a fresh process."""

from __future__ import annotations

import faulthandler
import os
import subprocess
import sys
import textwrap

import pytest

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(TESTS_DIR)
sys.path.insert(0, TESTS_DIR)  # helper modules beside the tests

# A hung test (a stuck event, a deadlock in the runtime) must fail the run
# quickly with a traceback rather than eat CI's time: past this many seconds
# faulthandler dumps every thread's stack and exits the process with status 1.
TEST_TIMEOUT_S = float(os.environ.get("GOJAX_TEST_TIMEOUT", "300"))


_watchdog_out = None


def pytest_configure(config):
    # pytest captures fd 2 during tests; keep the real stderr for the dump.
    global _watchdog_out
    _watchdog_out = os.fdopen(os.dup(2), "w")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    faulthandler.dump_traceback_later(TEST_TIMEOUT_S, exit=True, file=_watchdog_out)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()


def run_python(code: str, env: dict[str, str] | None = None,
               timeout: float = 240) -> subprocess.CompletedProcess:
    """Runs `code` in a fresh interpreter (same venv); returns the process."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    full_env["PYTHONPATH"] = os.pathsep.join(
        p for p in (TESTS_DIR, full_env.get("PYTHONPATH", "")) if p)
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


@pytest.fixture(scope="session")
def gojax_device():
    import jax

    return jax.devices("gojax")[0]


@pytest.fixture(scope="session")
def cpu_device():
    import jax

    return jax.devices("cpu")[0]
