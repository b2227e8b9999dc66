"""Runs JAX host callbacks for gojax's Go runtime.

The callback kernel (go/kernels/callback) calls :func:`call` with the address
of the Python callable JAX attached to the executable and a JSON description
of the operand and result buffers (addresses in gojax device memory, which is
host memory). Like jaxlib, operands are handed over as read-only NumPy copies
(a callable may keep them), and results are checked against the declared
shapes and dtypes before they are written back.
"""

from __future__ import annotations

import ctypes
import json
import traceback

import ml_dtypes
import numpy as np

__all__ = ["call"]


def _dtype(name: str) -> np.dtype:
    try:
        return np.dtype(name)
    except TypeError:
        return np.dtype(getattr(ml_dtypes, name))


def _view(slot: dict) -> np.ndarray:
    dtype = _dtype(slot["dtype"])
    shape = tuple(slot["shape"])
    if slot["bytes"] == 0:
        return np.zeros(shape, dtype)
    raw = (ctypes.c_char * slot["bytes"]).from_address(slot["ptr"])
    return np.frombuffer(raw, dtype=dtype).reshape(shape)


def call(callable_addr: int, spec_json: str) -> str | None:
    """Calls the callable; returns None, or a message describing the failure."""
    spec = json.loads(spec_json)
    fn = ctypes.cast(callable_addr, ctypes.py_object).value
    args = []
    for slot in spec["args"]:
        if not slot["dtype"]:  # a token
            args.append(None)
            continue
        a = _view(slot).copy()
        a.flags.writeable = False
        args.append(a)
    try:
        results = fn(*args)
    except BaseException as e:  # reported as the execution's error
        tb = "".join(traceback.format_exception(e))
        return f"{type(e).__name__}: {e}\n{tb}"
    results = tuple(results) if results is not None else ()
    if len(results) != len(spec["results"]):
        return (f"the callback returned {len(results)} values, "
                f"the program expects {len(spec['results'])}")
    for i, (slot, value) in enumerate(zip(spec["results"], results)):
        if not slot["dtype"]:
            continue
        out = np.asarray(value)
        want = _dtype(slot["dtype"])
        shape = tuple(slot["shape"])
        if out.shape != shape or out.dtype != want:
            return (f"result {i} of the callback has shape {out.shape} and dtype "
                    f"{out.dtype}; the program expects {shape} and {want}")
        if slot["bytes"]:
            np.copyto(_view(slot), out)
    return None
