"""Shared fixtures (gojax and XLA CPU devices) and the hung-test watchdog."""

from __future__ import annotations

import faulthandler
import os
import sys

import pytest

_TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
if _TESTS_DIR not in sys.path:
    sys.path.insert(0, _TESTS_DIR)  # gojax_testutil, pjrt_ctypes

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


@pytest.fixture(scope="session")
def gojax_device():
    import jax

    return jax.devices("gojax")[0]


@pytest.fixture(scope="session")
def cpu_device():
    import jax

    return jax.devices("cpu")[0]
