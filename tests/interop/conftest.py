"""Fixtures for the zero-copy interop tests (helpers live in interop_util)."""

from __future__ import annotations

import os
import sys

import pytest

_DIR = os.path.dirname(os.path.abspath(__file__))
if _DIR not in sys.path:
    sys.path.insert(0, _DIR)  # interop_util


@pytest.fixture
def x64():
    import jax

    old = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        jax.config.update("jax_enable_x64", old)


@pytest.fixture(scope="session")
def interop():
    from gojax import interop

    return interop
