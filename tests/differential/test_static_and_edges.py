"""jax.jit with static arguments that shape the program (shapes, axes,
counts), dtype conversion matrix, bitcasts, and IEEE special values
(inf, nan, -0, tiny, huge) through the unary/binary float ops."""

from __future__ import annotations

import bisect
import math
from fractions import Fraction

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
from jax import lax

from diffutil import (ALL, BF16, assert_same, check, dname, edge_values, gojax_device, make, rng_for, run_both,
                      x64_for)
from optable import BINARY_OPS, UNARY_OPS

X = make(rng_for("static"), (4, 6), np.float32)

STATIC = [
    ("reshape", lambda x, s: x.reshape(s), [(3, 8), (2, 2, 6), (-1,)]),
    ("sum_axis", lambda x, a: jnp.sum(x, axis=a), [0, 1, (0, 1), None]),
    ("pad_width", lambda x, p: jnp.pad(x, p), [1, ((0, 2), (3, 0))]),
    ("roll_shift", lambda x, s: jnp.roll(x, s, axis=1), [0, 1, -7]),
    ("top_k", lambda x, k: lax.top_k(x, k), [1, 6]),
    ("one_hot", lambda x, n: jax.nn.one_hot(jnp.argmax(x, 1), n), [3, 7]),
    ("fori_trip", lambda x, n: lax.fori_loop(0, n, lambda i, c: c * 0.5 + i, x), [0, 1, 5]),
    ("astype", lambda x, t: (x * 10).astype(t), ["int8", "uint32", "bfloat16", "float16", "bool"]),
    ("slice", lambda x, s: x[s[0]:s[1], ::s[2]], [(0, 4, 1), (1, 3, 2), (3, 1, 1)]),
]


@pytest.mark.parametrize("name,fn,values", STATIC, ids=[s[0] for s in STATIC])
def test_static_args(name, fn, values):
    f = jax.jit(fn, static_argnums=1)
    for v in values:
        got, want = run_both(f, X, v, static_argnums=(1,), jit=False)
        assert_same(got, want, "default", path=f"{name}({v!r})")


# Conversions: every dtype of the suite to every other one, from values that
# are in range for all of them (the result of out-of-range float->int is
# implementation-defined in StableHLO).
@pytest.mark.parametrize("src", ALL, ids=dname)
def test_convert_matrix(src):
    with x64_for(*ALL):
        rng = rng_for("convert", dname(src))
        x = make(rng, (17,), src, "any")
        if np.dtype(src).kind == "c":
            x = (np.abs(x.real) * 5.3 % 100 + 1j * x.imag).astype(src)
        elif np.dtype(src).kind == "f" or src is BF16:
            x = (np.abs(np.asarray(x, np.float64)) * 5.3 % 100).astype(src)  # in uint8 range, with fractions
        elif np.dtype(src).kind == "i":
            x = np.abs(x)
        targets = [t for t in ALL if not (np.dtype(src).kind == "c" and np.dtype(t).kind != "c")]
        check(lambda v: [v.astype(t) for t in targets] + [jnp.real(v).astype(t) for t in ALL
                                                           if np.dtype(src).kind == "c"], x, cls="exact")


BITCASTS = [(np.float32, np.int32), (np.float32, np.uint32), (np.float64, np.int64), (np.float16, np.int16),
            (BF16, np.uint16), (np.int8, np.uint8), (np.float32, np.uint8), (np.uint8, np.float32),
            (np.float64, np.float32), (np.complex64, np.float32)]


@pytest.mark.parametrize("src,dst", BITCASTS, ids=[f"{dname(a)}-{dname(b)}" for a, b in BITCASTS])
def test_bitcast(src, dst):
    with x64_for(src, dst):
        shape = (3, 4) if np.dtype(src).itemsize >= np.dtype(dst).itemsize else (3, 4, 4)
        x = make(rng_for("bitcast", dname(src), dname(dst)), shape, src)
        if np.dtype(src).kind == "c":
            check(lambda v: lax.bitcast_convert_type(jnp.real(v), dst), x, cls="exact")
        else:
            check(lambda v: lax.bitcast_convert_type(v, dst), x, cls="exact")


_EDGE_UNARY = [op for op in UNARY_OPS if np.dtype(np.float32) in [np.dtype(d) for d in op.dtypes]]


@pytest.mark.parametrize("dt", [np.float32, np.float64, BF16, np.float16], ids=dname)
def test_unary_special_values(dt):
    """All float unary ops on inf/nan/-0/tiny/huge at once; results must
    agree exactly in class (nan, inf, sign of zero) and within the
    transcendental tolerance otherwise."""
    ops = [op for op in _EDGE_UNARY if np.dtype(dt) in [np.dtype(d) for d in op.dtypes]]
    with x64_for(dt):
        x = edge_values(dt)
        got, want = run_both(lambda v: {op.name: op.fn(v) for op in ops}, x)
        bad = []
        for name in want:
            g, w = np.asarray(got[name]).astype(np.float64), np.asarray(want[name]).astype(np.float64)
            same_class = (np.isnan(g) == np.isnan(w)) & (np.isinf(g) == np.isinf(w)) & \
                         ((np.signbit(g) == np.signbit(w)) | np.isnan(w))
            try:
                assert same_class.all(), f"class mismatch at {x[~same_class]}: got {g[~same_class]} want {w[~same_class]}"
                assert_same(got[name], want[name], "special", path=name)
            except AssertionError as e:
                bad.append(f"{name}: {str(e).strip().splitlines()[0:6]}")
        assert not bad, "\n".join(bad)


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=dname)
def test_binary_special_values(dt):
    ops = [op for op in BINARY_OPS if np.dtype(dt) in [np.dtype(d) for d in op.dtypes]
           and op.name not in ("zeta", "gammainc", "betaln")]
    with x64_for(dt):
        e = edge_values(dt)
        a, b = np.meshgrid(e, e)
        got, want = run_both(lambda u, v: {op.name: op.fn(u, v) for op in ops}, a, b)
        bad = []
        for name in want:
            try:
                assert_same(got[name], want[name], "transc", path=name)
            except AssertionError as e2:
                bad.append(f"{name}: {str(e2).strip().splitlines()[0:8]}")
        assert not bad, "\n".join(bad)


def test_integer_division_edge_semantics():
    """XLA semantics: x/0 == -1 (unsigned: all ones), x%0 == x,
    INT_MIN / -1 == INT_MIN, INT_MIN % -1 == 0."""
    a = np.array([7, -7, 0, -128, -128, 5], np.int8)
    b = np.array([0, 0, 0, -1, 1, -2], np.int8)
    check(lambda x, y: (lax.div(x, y), lax.rem(x, y), lax.div(x.astype(jnp.uint8), y.astype(jnp.uint8)),
                        lax.rem(x.astype(jnp.uint8), y.astype(jnp.uint8))), a, b, cls="exact")


def test_shift_out_of_range_semantics():
    x = np.array([1, -1, 123, -128, 64], np.int8)
    s = np.array([0, 7, 8, 9, 100], np.int8)
    check(lambda x, s: (lax.shift_left(x, s), lax.shift_right_arithmetic(x, s), lax.shift_right_logical(x, s)),
          x, s, cls="exact")


def _int_edges(dt):
    info = np.iinfo(dt)
    vals = [info.min, info.min + 1, -1, 0, 1, 2, 7, info.max - 1, info.max]
    return np.array([v for v in vals if info.min <= v <= info.max], dtype=dt)


@pytest.mark.parametrize("dt", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32], ids=dname)
def test_integer_edge_values(dt):
    """Integer table ops on every pair of extreme values (wrapping, INT_MIN)."""
    uops = [op for op in UNARY_OPS if np.dtype(dt) in [np.dtype(d) for d in op.dtypes]]
    bops = [op for op in BINARY_OPS if np.dtype(dt) in [np.dtype(d) for d in op.dtypes]
            and op.name not in ("power_int", "left_shift", "right_shift", "shift_right_logical")]
    with x64_for(dt):
        e = _int_edges(dt)
        a, b = np.meshgrid(e, e)
        nz = np.where(b == 0, np.ones_like(b), b)

        def f(u, v, w):
            out = {op.name: op.fn(u) for op in uops}
            for op in bops:
                divides = op.name in ("divide", "floor_divide", "remainder", "fmod", "lax_div", "lax_rem")
                out["b_" + op.name] = op.fn(u, w if divides else v)
            return out

        got, want = run_both(f, a, b, nz)
        bad = []
        for name in want:
            try:
                assert_same(got[name], want[name], "exact", path=name)
            except AssertionError as err:
                bad.append(f"{name}: {str(err).strip().splitlines()[:8]}")
        assert not bad, "\n".join(bad)


@pytest.mark.parametrize("dt", [np.complex64, np.complex128], ids=dname)
def test_complex_branch_cuts_and_specials(dt):
    """Complex functions on their branch cuts (signed zero imaginary parts)
    and at infinities/NaN."""
    re = np.array([-2.0, -1.0, -0.5, 0.0, -0.0, 0.5, 1.0, 2.0, np.inf, -np.inf, np.nan])
    im = np.array([0.0, -0.0, 1.0, -1.0, np.inf])
    x = np.empty((len(re), len(im)), dt)  # set parts separately: inf * 1j would make NaN real parts
    x.real, x.imag = re[:, None], im[None, :]
    x = x.reshape(-1)
    fns = {"log": jnp.log, "sqrt": jnp.sqrt, "exp": jnp.exp, "sin": jnp.sin, "tanh": jnp.tanh,
           "arcsin": jnp.arcsin, "arccos": jnp.arccos, "arctan": jnp.arctan, "arcsinh": jnp.arcsinh,
           "arccosh": jnp.arccosh, "arctanh": jnp.arctanh, "abs": jnp.abs, "sign": jnp.sign,
           "reciprocal": jnp.reciprocal, "square": jnp.square, "log1p": jnp.log1p, "expm1": jnp.expm1,
           "power_half": lambda v: v ** 0.5,
           # constant exponents XLA rewrites into multiplies / a divide
           "power_one": lambda v: v ** 1.0, "power_two": lambda v: v ** 2.0,
           "power_three": lambda v: v ** 3.0, "power_neg_one": lambda v: v ** -1.0,
           "div_by": lambda v: (1 + 2j) / v}
    with x64_for(dt):
        got, want = run_both(lambda v: {k: f(v) for k, f in fns.items()}, x)
        # abs is hypot(re, im), which C99 (Annex G) defines as +inf when a
        # part is infinite, even when the other is NaN; numpy follows it.
        # jaxlib 0.11.2's XLA:CPU returns NaN for nan+infj (0.12's +inf).
        want["abs"] = np.abs(x)
        bad = []
        for name in want:
            g, w = np.asarray(got[name]), np.asarray(want[name])
            parts = [(g.real, w.real), (g.imag, w.imag)] if w.dtype.kind == "c" else [(g, w)]
            for gp, wp in parts:
                cls_ok = (np.isnan(gp) == np.isnan(wp)) & (np.isinf(gp) == np.isinf(wp))
                finite = np.isfinite(wp) & np.isfinite(gp)
                close = np.isclose(gp, wp, rtol=1e-4, atol=1e-6)
                wrong = ~cls_ok | (finite & ~close)
                if wrong.any():
                    bad.append(f"{name}: at {x[wrong.reshape(-1)][:4]} got {gp[wrong][:4]} want {wp[wrong][:4]}")
        assert not bad, "\n".join(bad)


@pytest.mark.parametrize("dt", [np.complex64, np.complex128], ids=dname)
def test_complex_power_specials_with_runtime_exponent(dt):
    """lax.pow on every pair of special complex values, the exponent a
    runtime argument (a constant exponent lets XLA rewrite pow(x, 2) as x*x)."""
    parts = np.array([0.0, -0.0, 1.0, -2.0, 0.5, np.inf, -np.inf, np.nan])
    vals = np.empty((len(parts), len(parts)), dt)
    vals.real, vals.imag = parts[:, None], parts[None, :]
    vals = vals.reshape(-1)
    x, y = (a.reshape(-1) for a in np.meshgrid(vals, vals))
    with x64_for(dt):
        got, want = run_both(lambda u, v: jax.lax.pow(u, v), x, y)
    g, w = np.asarray(got), np.asarray(want)
    bad = []
    for gp, wp in [(g.real, w.real), (g.imag, w.imag)]:
        cls_ok = (np.isnan(gp) == np.isnan(wp)) & (np.isinf(gp) == np.isinf(wp))
        finite = np.isfinite(wp) & np.isfinite(gp)
        # Each part is compared relative to |w|: a part that is ~0 from
        # cancellation (cos(pi/2)) carries the rounding error of the whole.
        with np.errstate(invalid="ignore"):
            close = np.abs(gp - wp) <= 1e-5 * np.abs(w) + 1e-6
        wrong = ~cls_ok | (finite & ~close) | (np.isinf(wp) & (gp != wp))
        if wrong.any():
            bad.append(f"at x={x[wrong][:4]} y={y[wrong][:4]}: got {gp[wrong][:4]} want {wp[wrong][:4]}")
    assert not bad, "\n".join(bad)


NARROW = [np.float16, BF16] + [getattr(ml_dtypes, n) for n in (
    "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e4m3b11fnuz", "float8_e3m4",
    "float8_e4m3", "float8_e8m0fnu", "float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn")]


def _narrow_grid():
    """Values at rounding boundaries of every narrow type: ties, values just
    off a tie (which rounding through f32 first would round the wrong way),
    overflow, subnormals, the smallest subnormal's half."""
    base = []
    for narrow in NARROW:
        fi = ml_dtypes.finfo(narrow)
        grid = [1.0, 1.5, 3.0, 100.0, float(fi.max), float(fi.tiny), float(fi.smallest_subnormal)]
        grid = np.array(grid)
        half = grid * float(fi.eps) / 2
        for d in (0.0, 1e-9, -1e-9, 2 ** -30, -(2 ** -30)):
            base.extend((grid + half * (1 + d)).tolist())
            base.extend((grid + half * 3 * (1 + d)).tolist())
            base.extend((-grid - half * (1 + d)).tolist())
        sub = float(fi.smallest_subnormal)
        base.extend([float(fi.max) * 1.01, float(fi.max) + float(fi.max) * float(fi.eps) / 2, 1e300,
                     sub / 2, sub / 2 * (1 + 2 ** -40), sub / 2 * (1 - 2 ** -40)])
    base.extend([0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, 1e-300])
    return np.array(base, np.float64)


def _codes(dt):
    """Exact values of the finite non-negative codes of dt, ascending, as
    (Fraction, code) pairs; codes come from ml_dtypes (the format's
    definition), the values are exact in float64."""
    n = 8 * np.dtype(dt).itemsize
    codes = np.arange(2 ** n, dtype={8: np.uint8, 16: np.uint16}[n])
    with np.errstate(invalid="ignore"):
        vals = codes.view(dt).astype(np.float64)
    out = {}
    for c, v in zip(codes.tolist(), vals.tolist()):
        if np.isfinite(v) and v >= 0 and not (v == 0 and np.signbit(v)):
            out.setdefault(Fraction(v), c)  # +0 before any -0 pattern
    return sorted(out.items())


def _round_exact(x, dt, table):
    """x rounded once to dt, to nearest, ties to even (f8E8M0FNU: ties up),
    by exact rational arithmetic; returns the value (a float, exactly
    representable in f32) or +-inf for overflow."""
    a = Fraction(abs(x))
    vals = [v for v, _ in table]
    i = bisect.bisect_left(vals, a)
    e8m0 = dt == ml_dtypes.float8_e8m0fnu
    if e8m0 and a < Fraction(2) ** -126:
        # ml_dtypes: up to 2^-127 gives 2^-127, anything larger 2^-126.
        return float(vals[0] if a <= vals[0] else vals[1])
    if i < len(vals) and vals[i] == a:
        v = vals[i]
    else:
        if i == len(vals):  # beyond max: the tie is with the next (unrepresentable) value
            lo, clo = table[-1]
            hi, chi = 2 * lo - table[-2][0] if not e8m0 else 2 * lo, clo + 1
        else:
            (lo, clo), (hi, chi) = table[i - 1], table[i]
        mid = (lo + hi) / 2
        if a < mid or (a == mid and not e8m0 and clo % 2 == 0):
            v = lo
        else:
            v = hi
        if i == len(vals) and v == hi:
            return math.copysign(math.inf, x)
    return math.copysign(float(v), x)


def _reference(x, dt, table):
    out = []
    for v in x.tolist():
        if math.isfinite(v) and v != 0 and not (v < 0 and dt == ml_dtypes.float8_e8m0fnu):
            v = _round_exact(v, dt, table)
        # v is now exactly representable (or +-inf, +-0, NaN, which ml_dtypes
        # maps by the type's own special-value rules): no rounding left.
        out.append(np.array([v], np.float32).astype(dt))
    return np.concatenate(out)


def test_float_narrowing_rounding():
    """Every narrowing float conversion, from f64 and f32, is rounded once and
    correctly: gojax's bits must equal the correctly rounded value (exact
    rational arithmetic, cross-checked against NumPy and ml_dtypes where
    those round once), whatever XLA:CPU does on a given CPU."""
    x64 = _narrow_grid()
    with np.errstate(over="ignore"):
        x32 = x64.astype(np.float32)
    g = gojax_device()
    with jax.enable_x64(True):
        f = jax.jit(lambda a, b: ([a.astype(t) for t in NARROW], [b.astype(t) for t in NARROW]))
        got64, got32 = f(jax.device_put(x64, g), jax.device_put(x32, g))
    for t, g64, g32 in zip(NARROW, got64, got32):
        table = _codes(t)
        for src, x, got in (("f64", x64, g64), ("f32", x32, g32)):
            want = _reference(x.astype(np.float64), t, table)
            if src == "f32" or t is np.float16:
                # NumPy (f16) and ml_dtypes (from f32) round once: the exact
                # reference must agree with them.
                with np.errstate(over="ignore", invalid="ignore"):
                    lib = x.astype(t)
                ok = (lib.view(np.uint8) == want.view(np.uint8)).reshape(len(x), -1).all(1) | np.isnan(x)
                assert ok.all(), f"reference disagrees with numpy/ml_dtypes for {src}->{np.dtype(t).name} at {x[~ok][:4]}"
            got = np.asarray(got)
            bits = {1: np.uint8, 2: np.uint16}[np.dtype(t).itemsize]
            gv, wv = got.view(bits), want.view(bits)
            both_nan = np.isnan(got.astype(np.float32)) & np.isnan(want.astype(np.float32))
            wrong = (gv != wv) & ~both_nan
            assert not wrong.any(), (f"{src}->{np.dtype(t).name}: inputs {x[wrong][:6]} got {got[wrong][:6]} "
                                     f"want {want[wrong][:6]}")
            # NaNs keep their sign where the type has one.
            signed_nan = both_nan & (np.signbit(got.astype(np.float32)) != np.signbit(want.astype(np.float32)))
            assert not (signed_nan & ~np.isin(np.dtype(t).name, ["float8_e4m3fnuz", "float8_e5m2fnuz",
                                                                 "float8_e4m3b11fnuz", "float8_e8m0fnu"])).any()


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=dname)
def test_denormals(dt):
    """Arithmetic producing and consuming subnormals.  XLA:CPU runs with
    flush-to-zero and denormals-are-zero set, so e.g. 1e-39f + 1e-39f == 0."""
    with x64_for(dt):
        tiny = float(np.finfo(dt).tiny)
        x = np.array([tiny / 3, -tiny / 7, tiny * 2, tiny / 2 ** 20, 1.0], dt)
        got, want = run_both(lambda v: (v + v, v * 0.5, v * 3, v / 4, jnp.sqrt(jnp.abs(v)),
                                        (v * 2 ** 30).astype(jnp.float32)), x)
        _same_bits(x, got, want)


def _same_bits(x, got, want):
    # Bit-exact: any tolerance's atol would swallow subnormal values.
    for i, (g, w) in enumerate(zip(got, want)):
        bits = {4: np.uint32, 8: np.uint64}[w.dtype.itemsize]
        wrong = g.view(bits) != w.view(bits)
        assert not wrong.any(), f"out[{i}]: inputs {x[wrong]} got {g[wrong]} want {w[wrong]}"


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=dname)
def test_multiply_add_contraction(dt):
    """XLA:CPU contracts a*b+c into one fused multiply-add: the product is
    neither rounded nor flushed on its own, so (2*tiny) - (2*tiny)*0.25 is
    1.5*tiny, not 2*tiny."""
    with x64_for(dt):
        tiny = float(np.finfo(dt).tiny)
        x = np.array([tiny * 2, tiny * 3, 1.0], dt)
        got, want = run_both(lambda v: (v - v * 0.25, v * 0.3 + v), x)
        _same_bits(x, got, want)
