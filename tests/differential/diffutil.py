"""Shared machinery of the differential suite: the tolerance table, input
generation and the run-on-both-backends-and-compare helper.

Every case jits one function, runs it on a gojax device and on XLA's own CPU
device in the same process, and compares the results leaf by leaf: same dtype,
same shape, values equal within the tolerance of the dtype (TOLERANCES)."""

from __future__ import annotations

import contextlib
import zlib

import os

import jax
import ml_dtypes
import numpy as np
from hypothesis import HealthCheck, settings

# ---------------------------------------------------------------------------
# Dtypes under test.
BOOL = [np.bool_]
SINTS = [np.int8, np.int16, np.int32, np.int64]
UINTS = [np.uint8, np.uint32]
INTS = SINTS + UINTS
BF16 = ml_dtypes.bfloat16
FLOATS = [BF16, np.float16, np.float32, np.float64]
COMPLEX = [np.complex64, np.complex128]
INEXACT = FLOATS + COMPLEX
NUMERIC = INTS + INEXACT
ALL = BOOL + NUMERIC

# ---------------------------------------------------------------------------
# THE tolerance table.  (rtol, atol) per result dtype and per accuracy class
# of the op.  Integers and bools are always compared exactly.
#   "exact"  : ops whose result is exactly determined by IEEE rounding of one
#              operation (add, mul, compare, abs, floor, reshapes, gathers...).
#              Kept at a few ulps instead of 0 because XLA may fuse or
#              reassociate (e.g. x*y+z as FMA, bf16 ops via f32).
#   "default": short chains of exact ops, sums/means/dots (rounding order
#              of reductions is unspecified).
#   "transc" : transcendental functions (exp, log, sin, tanh, pow, erf ...):
#              XLA uses its own polynomial approximations, a few ulps off
#              the correctly rounded value.
#   "special": special functions built from series/rational approximations
#              and iterative algorithms (lgamma, digamma, erfinv, igamma,
#              bessel), random samplers built on them.
#   "linalg" : factorizations / solves; errors scale with the condition
#              number, and inputs are generated well conditioned.
#   "accum"  : long accumulations (cumsum/sum over 10^4..10^6 elements): the
#              summation order is unspecified (XLA's CPU cumsum is a window
#              sum per output, a running sum is just as valid), so the error
#              is bounded relative to the largest magnitude of the result:
#              atol = rtol * max|result|.
#   "compose": hypothesis-generated chains of up to ~7 ops (test_compositions):
#              per-op differences compound, and XLA may keep bf16/f16
#              intermediates in f32 (excess precision) where gojax rounds.
#   "dot"    : sums of products (matmul, einsum, dot, conv, sum, cumsum,
#              window sums): no fixed tolerance, as XLA's own result varies
#              with the CPU (blocking, FMA use, summation order); instead the
#              error bound of the computation, from the inputs (dot_bounds).
_F32 = {"exact": (1e-6, 1e-7), "default": (1e-5, 1e-6), "transc": (2e-5, 1e-6),
        "special": (1e-4, 1e-5), "linalg": (1e-4, 1e-4), "compose": (1e-4, 1e-5), "accum": (5e-5, 0)}
_F64 = {"exact": (1e-14, 1e-15), "default": (1e-12, 1e-13), "transc": (1e-12, 1e-13),
        "special": (1e-9, 1e-10), "linalg": (1e-9, 1e-9), "compose": (1e-10, 1e-11), "accum": (1e-12, 0)}
_F16 = {"exact": (1e-3, 1e-4), "default": (2e-3, 1e-3), "transc": (3e-3, 1e-3),
        "special": (1e-2, 1e-2), "linalg": (1e-2, 1e-2), "compose": (3e-2, 3e-2), "accum": (1e-2, 0)}
_BF16 = {"exact": (8e-3, 1e-3), "default": (2e-2, 1e-2), "transc": (2e-2, 1e-2),
         "special": (5e-2, 5e-2), "linalg": (5e-2, 5e-2), "compose": (1.5e-1, 1.5e-1), "accum": (5e-2, 0)}
TOLERANCES = {
    np.dtype(BF16): _BF16,
    np.dtype(np.float16): _F16,
    np.dtype(np.float32): _F32,
    np.dtype(np.float64): _F64,
    np.dtype(np.complex64): _F32,
    np.dtype(np.complex128): _F64,
}


def tolerance(dtype, cls: str) -> tuple[float, float]:
    return TOLERANCES[np.dtype(dtype)][cls]


# Ops whose results are compared against an error bound computed from the
# inputs rather than a tolerance of the table.
BOUND_CLASSES = ("dot",)


def unit_roundoff(dtype) -> float:
    """u = eps/2 of a float dtype (of the parts, for complex)."""
    dt = np.dtype(dtype)
    if dt.kind == "c":
        dt = np.dtype(np.float32 if dt == np.complex64 else np.float64)
    return float(ml_dtypes.finfo(dt).eps) / 2


def dot_bounds(fn, *args):
    """Per-element allowed |gojax - XLA| for fn(*args), a sum of products of
    its float arguments (dot, einsum, conv, sum, window sums/max; no
    subtraction or division): a pytree like fn's result, float64.

    Any order of evaluation puts an engine within gamma_n * sum|terms| of the
    exact value (gamma_n = n*u/(1-n*u), u of the result type), so gojax and
    XLA may differ by twice that. fn on |args| in float64 gives sum|terms|
    per element (every op is monotone in its operands' magnitudes), fn on
    ones the number of terms; each float argument adds a product rounding.
    Complex products round both parts (a factor sqrt 2). Plus the smallest
    normal for underflow. Computed on XLA's CPU."""
    leaves, tree = jax.tree.flatten(list(args))
    leaves = [np.asarray(a) for a in leaves]
    inexact = [a.dtype.kind in "fc" or a.dtype == np.dtype(BF16) for a in leaves]
    mags = [np.abs(a).astype(np.float64) if f else a for a, f in zip(leaves, inexact)]
    ones = [np.ones(a.shape, np.float64) if f else a for a, f in zip(leaves, inexact)]
    with jax.enable_x64(True):
        f = jax.jit(lambda xs: fn(*jax.tree.unflatten(tree, xs)))
        c = cpu_device()
        mag = jax.tree.map(np.asarray, f(_put(mags, c)))
        cnt = jax.tree.map(np.asarray, f(_put(ones, c)))
    out_types = jax.eval_shape(fn, *args)
    products = sum(inexact)

    def bound(t, m, k):
        dt = np.dtype(t.dtype)
        if not (dt.kind in "fc" or dt == np.dtype(BF16)):
            return None  # compared exactly
        u = unit_roundoff(dt)
        nu = (np.abs(np.asarray(k, np.complex128)) + products) * u
        m = np.abs(np.asarray(m, np.complex128))
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            gamma = np.where(nu < 1, nu / (1 - nu), np.inf)
            b = np.where(gamma < 1, 2 * gamma * m / (1 - gamma), np.inf)
        if dt.kind == "c":
            b = b * np.sqrt(2)
        part = np.float32 if dt == np.complex64 else (np.float64 if dt.kind == "c" else dt)
        return np.where(np.isnan(b), np.inf, b) + float(ml_dtypes.finfo(part).tiny)

    return jax.tree.map(bound, out_types, mag, cnt)


# ---------------------------------------------------------------------------
# Hypothesis settings of the suite, applied per test (no global profile, so
# other test directories are unaffected): deterministic (derandomize, no
# example database) and bounded.
def hypothesis_settings(default_examples: int):
    return settings(
        derandomize=True, database=None, deadline=None,
        max_examples=int(os.environ.get("GOJAX_DIFF_EXAMPLES", default_examples)),
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])


# ---------------------------------------------------------------------------
# Devices.
@contextlib.contextmanager
def _nothing():
    yield


def gojax_device():
    return jax.devices("gojax")[0]


def cpu_device():
    return jax.devices("cpu")[0]


def is_64bit(dt) -> bool:
    dt = np.dtype(dt)
    return dt.itemsize == 8 or dt == np.complex128


def x64_for(*dtypes):
    """A context enabling 64-bit types when any of dtypes needs them."""
    if any(is_64bit(d) for d in dtypes if d is not None):
        return jax.enable_x64(True)
    return _nothing()


def dname(dt) -> str:
    return np.dtype(dt).name


# ---------------------------------------------------------------------------
# Inputs.
def rng_for(*key) -> np.random.Generator:
    """A generator seeded from a stable hash of the case's identity."""
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def _int_bounds(dt, domain):
    info = np.iinfo(dt)
    if domain == "full":
        return info.min, info.max
    if domain == "shift":
        return 0, info.bits + 2
    if domain == "exp":  # small non-negative exponents
        return 0, 4
    lo, hi = max(info.min, -20), min(info.max, 20)
    if domain == "pos":
        lo = 1
    return lo, hi


def make(rng, shape, dt, domain="any"):
    """Random array of dtype dt; `domain` keeps values inside an op's domain:
    any, pos (>0), nonzero, unit (|x|<1), ge1 (>=1), small (|x|<3), full
    (whole integer range), shift (0..bits+2), exp (0..4), prob (0..1)."""
    dt = np.dtype(dt)
    shape = tuple(shape)
    if dt == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(dt, np.integer):
        lo, hi = _int_bounds(dt, domain)
        big = np.uint64 if hi > np.iinfo(np.int64).max else np.int64
        x = rng.integers(lo, hi, size=shape, endpoint=True, dtype=big)
        if domain == "nonzero":
            x = np.where(x == 0, 1, x)
        return x.astype(dt)
    if np.issubdtype(dt, np.complexfloating):
        real = np.float32 if dt == np.complex64 else np.float64
        return (make(rng, shape, real, domain) + 1j * make(rng, shape, real, domain)).astype(dt)
    x = rng.standard_normal(shape) * 2
    if domain == "pos":
        x = np.abs(x) + 0.1
    elif domain == "nonzero":
        x = np.where(np.abs(x) < 0.1, 0.5, x)
    elif domain == "unit":
        x = np.tanh(x) * 0.95
    elif domain == "ge1":
        x = np.abs(x) + 1.05
    elif domain == "small":
        x = np.clip(x, -3, 3)
    elif domain == "prob":
        x = rng.uniform(0.02, 0.98, shape)
    return x.astype(dt)


# Special values appended to float inputs by the edge-value tests.
def edge_values(dt):
    dt = np.dtype(dt)
    fi = ml_dtypes.finfo(dt) if dt == np.dtype(BF16) else np.finfo(dt)
    vals = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, 3.0, -7.25, 100.0, -100.0,
            np.inf, -np.inf, np.nan, float(fi.max), float(-fi.max), float(fi.tiny),
            float(fi.eps), 1e-3, 30.0, -30.0, 88.0]
    with np.errstate(over="ignore"):
        return np.array(vals, dtype=np.float64).astype(dt)


# ---------------------------------------------------------------------------
# Running and comparing.
def _put(tree, device):
    return jax.tree.map(lambda a: jax.device_put(a, device), tree)


def run_both(fn, *args, static_argnums=(), jit=True):
    """Jits fn, runs it on XLA's CPU device and on gojax; returns (got, want)
    as pytrees of numpy arrays.  Checks every gojax result lives on gojax."""
    g, c = gojax_device(), cpu_device()
    f = jax.jit(fn, static_argnums=static_argnums) if jit else fn
    dyn = [a for i, a in enumerate(args) if i not in static_argnums]
    dyn_c, dyn_g = _put(dyn, c), _put(dyn, g)

    def call(dyn_vals):
        it = iter(dyn_vals)
        full = [a if i in static_argnums else next(it) for i, a in enumerate(args)]
        return f(*full)

    want = call(dyn_c)
    got = call(dyn_g)
    for leaf in jax.tree.leaves(got):
        if isinstance(leaf, jax.Array):
            assert leaf.devices() == {g}, f"result on {leaf.devices()}, not on gojax"
    return jax.tree.map(np.asarray, got), jax.tree.map(np.asarray, want)


def _assert_within(g, w, bound, where):
    """|g - w| <= bound per element (per part for complex); NaN matches NaN,
    infinities must be equal."""
    g, w = np.asarray(g), np.asarray(w)
    if g.dtype == np.dtype(BF16) or g.dtype == np.float16:
        g, w = g.astype(np.float32), w.astype(np.float32)
    parts = [(g.real, w.real), (g.imag, w.imag)] if g.dtype.kind == "c" else [(g, w)]
    bound = np.broadcast_to(np.asarray(bound, np.float64), w.shape)
    for gp, wp in parts:
        gp, wp = gp.astype(np.float64), wp.astype(np.float64)
        same = (gp == wp) | (np.isnan(gp) & np.isnan(wp))
        finite = np.isfinite(gp) & np.isfinite(wp)
        diff = np.abs(gp - wp, where=finite, out=np.full(gp.shape, np.inf))
        bad = ~same & ~(finite & (diff <= bound))
        if bad.any():
            i = np.unravel_index(np.argmax(bad), bad.shape)
            raise AssertionError(
                f"{where}: {int(bad.sum())} of {bad.size} elements beyond the error bound; first at "
                f"{tuple(int(x) for x in i)}: got {gp[i]!r}, want {wp[i]!r}, |diff| {diff[i]:.3g} > bound {bound[i]:.3g}")


def assert_same(got, want, cls="default", path="out", bounds=None):
    """Compares two pytrees of arrays per the tolerance table; for the
    BOUND_CLASSES, floats per `bounds` (a pytree from dot_bounds)."""
    gl, gt = jax.tree.flatten(got)
    wl, wt = jax.tree.flatten(want)
    assert gt == wt, f"{path}: tree structure {gt} != {wt}"
    bl = [None] * len(wl)
    if bounds is not None:
        bl = jax.tree.leaves(bounds, is_leaf=lambda x: x is None)
        assert len(bl) == len(wl), f"{path}: {len(bl)} bounds for {len(wl)} results"
    for i, (g, w) in enumerate(zip(gl, wl)):
        where = f"{path}[{i}]" if len(gl) > 1 else path
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype, f"{where}: dtype {g.dtype} != {w.dtype}"
        assert g.shape == w.shape, f"{where}: shape {g.shape} != {w.shape}"
        dt = w.dtype
        if dt in TOLERANCES and cls in BOUND_CLASSES:
            assert bl[i] is not None, f"{where}: class {cls!r} compares against error bounds: pass bounds="
            _assert_within(g, w, bl[i], where)
            continue
        if dt in TOLERANCES:
            rtol, atol = tolerance(dt, cls)
            if dt == np.dtype(BF16) or dt == np.float16:
                g, w = g.astype(np.float32), w.astype(np.float32)
            if cls == "accum" and w.size:
                finite = np.abs(w[np.isfinite(w)])
                atol = rtol * float(finite.max()) if finite.size else 0.0
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True, err_msg=where)
            continue
        if dt == np.bool_ or np.issubdtype(dt, np.integer) or dt.kind in "biu":
            np.testing.assert_array_equal(g, w, err_msg=where)
            continue
        raise AssertionError(f"{where}: no comparison rule for dtype {dt}")


def check(fn, *args, cls="default", static_argnums=()):
    """run_both + assert_same; the usual one-liner of a case."""
    got, want = run_both(fn, *args, static_argnums=static_argnums)
    bounds = None
    if cls in BOUND_CLASSES:
        assert not static_argnums, "dot_bounds takes array arguments only"
        bounds = dot_bounds(fn, *args)
    assert_same(got, want, cls, bounds=bounds)
    return got
