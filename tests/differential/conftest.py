"""Differential suite setup: helper import path and known_failures.txt
handling (kfail.py): listed cases
become strict expected failures, so they must still fail, and a listed case
that passes fails the run."""

from __future__ import annotations

import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import kfail  # noqa: E402


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    try:
        entries = kfail.load_known_failures()
    except kfail.FormatError as e:
        raise pytest.UsageError(str(e)) from None
    kfail.COLLECTED.clear()
    for item in items:
        if not str(item.path).startswith(HERE + os.sep):
            continue
        lid = kfail.local_id(item)
        kfail.COLLECTED.setdefault(lid.split("::", 1)[0], []).append(lid)
        for pat, reason in entries:
            if kfail.pattern_matches(pat, lid):
                item.add_marker(pytest.mark.xfail(reason="known gojax failure: " + reason,
                                                  strict=True, run=True))
                break


@pytest.fixture(autouse=True, scope="module")
def _drop_compiled_programs():
    """Each case compiles fresh programs that are never reused; dropping
    JAX's caches per module keeps the process's memory flat."""
    yield
    import jax

    jax.clear_caches()
