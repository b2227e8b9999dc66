"""Helpers for the zero-copy interop tests: aligned host buffers, the dtype
table and a wait helper for releases that happen asynchronously (a module name
no other test directory uses)."""

from __future__ import annotations

import gc
import time

import ml_dtypes
import numpy as np

# Every dtype gojax stores, with how Arrow can carry it.
ALL_DTYPES = [
    np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32,
    np.int64, np.uint64, np.float16, ml_dtypes.bfloat16, np.float32, np.float64,
    np.complex64, np.complex128,
]
ARROW_ZERO_COPY_DTYPES = [
    np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
    np.uint64, np.float16, np.float32, np.float64,
]


def dtype_id(dt) -> str:
    return np.dtype(dt).name


def aligned_empty(shape, dtype, align: int = 64, offset: int = 0) -> np.ndarray:
    """An uninitialized C-contiguous array whose data sits `offset` bytes past an
    `align`-byte boundary (offset 0: aligned, as gojax zero-copy needs)."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    raw = np.empty(nbytes + align + offset, np.uint8)
    start = (-raw.ctypes.data) % align + offset
    out = raw[start:start + nbytes].view(dtype).reshape(shape)
    assert out.ctypes.data % align == offset % align
    return out


def sample(shape, dtype, align: int = 64, offset: int = 0) -> np.ndarray:
    """Distinct, exactly representable values of `dtype` in an aligned buffer."""
    out = aligned_empty(shape, dtype, align, offset)
    n = out.size
    vals = np.arange(n) % 100
    if np.dtype(dtype) == np.bool_:
        out[...] = (vals % 3 == 0).reshape(shape)
    elif np.dtype(dtype).kind == "c":
        out[...] = (vals + 1j * (vals % 7)).reshape(shape)
    else:
        out[...] = vals.reshape(shape).astype(dtype)
    return out


def wait_until(pred, timeout: float = 10.0) -> bool:
    """Polls pred (with gc.collect) until it holds: PJRT releases host buffers
    and external references from its own callbacks, not synchronously."""
    deadline = time.monotonic() + timeout
    while True:
        gc.collect()
        if pred():
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)


