"""The programs of gojax's soak (python -m gojax.soak).

Each kind draws its inputs from the generator it is given, runs jitted
programs on gojax and checks every result: bit for bit against NumPy where
the result is exact (integers, sorting, indexing, transfers, correctly
rounded conversions), within the error bound of the computation for sums and
products, and against the same program on XLA:CPU where NumPy has no
equivalent (random bits, loops, gradients). A wrong result raises Mismatch.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
from jax import lax

__all__ = ["KINDS", "Devices", "Mismatch"]

_U32 = 2.0**-24  # unit roundoff of float32
_BF16 = 2.0**-8  # unit roundoff of bfloat16


class Mismatch(AssertionError):
    """A result differs from its reference by more than the check allows."""


@dataclasses.dataclass(frozen=True)
class Devices:
    gojax: Any  # where the programs under test run
    cpu: Any  # XLA's own CPU backend, the reference for some kinds

    def put(self, x):
        return jax.device_put(x, self.gojax)

    def put_cpu(self, x):
        return jax.device_put(x, self.cpu)

    def check_on_gojax(self, what: str, a) -> None:
        if a.devices() != {self.gojax}:
            raise Mismatch(f"{what}: result on {a.devices()}, expected {self.gojax}")


def _pick(rng: np.random.Generator, seq):
    return seq[int(rng.integers(len(seq)))]


def check_equal(what: str, got, want) -> None:
    """Same shape, dtype and bits (NaNs compare by their bits too)."""
    got, want = np.ascontiguousarray(got), np.ascontiguousarray(want)
    if got.shape != want.shape or got.dtype != want.dtype:
        raise Mismatch(f"{what}: got {got.dtype}{list(got.shape)}, want {want.dtype}{list(want.shape)}")
    if got.tobytes() != want.tobytes():
        g = got.reshape(-1).view(np.uint8).reshape(got.size, -1) if got.size else got
        w = want.reshape(-1).view(np.uint8).reshape(want.size, -1) if want.size else want
        bad = np.flatnonzero((g != w).any(axis=1))
        i = int(bad[0])
        raise Mismatch(f"{what}: {bad.size} of {got.size} elements differ, first at flat index {i}: "
                       f"got {got.reshape(-1)[i]!r}, want {want.reshape(-1)[i]!r}")


def check_within(what: str, got, want, bound) -> None:
    """|got - want| <= bound elementwise (a NaN anywhere fails)."""
    got = np.asarray(got)
    want = np.asarray(want, np.float64)
    if got.shape != want.shape:
        raise Mismatch(f"{what}: got shape {list(got.shape)}, want {list(want.shape)}")
    err = np.abs(got.astype(np.float64) - want)
    bound = np.broadcast_to(np.asarray(bound, np.float64), err.shape)
    bad = ~(err <= bound)
    if bad.any():
        i = np.unravel_index(int(np.argmax(np.where(bad, err, -1.0))), err.shape)
        raise Mismatch(f"{what}: {int(bad.sum())} of {err.size} elements off, worst at {i}: "
                       f"got {got[i]!r}, want {want[i]!r}, bound {bound[i]:.3g}")


def _close_to(want, rtol: float):
    """A bound for two implementations of the same float computation that may
    round differently (transcendentals, evaluation order): rtol relative to
    each element plus rtol of the result's largest magnitude."""
    a = np.abs(np.asarray(want, np.float64))
    return rtol * a + rtol * (a.max() if a.size else 0.0) + 1e-30


# ---- matrix products and reductions (NumPy, error bounds) ----------------

_matmul = jax.jit(jnp.matmul)
_MATMUL_SHAPES = ((8, 16, 4), (33, 64, 17), (128, 96, 64), (1, 300, 5))


def matmul(dev: Devices, rng: np.random.Generator) -> None:
    m, k, n = _pick(rng, _MATMUL_SHAPES)
    dtype = _pick(rng, (np.float32, ml_dtypes.bfloat16, np.int32))
    if dtype is np.int32:
        a = rng.integers(-8, 9, (m, k)).astype(np.int32)
        b = rng.integers(-8, 9, (k, n)).astype(np.int32)
        check_equal("matmul int32", _matmul(dev.put(a), dev.put(b)), a @ b)
        return
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    # k products summed in float32 (gamma_k), then rounded to the output type.
    rel = 2 * (k + 2) * _U32 + (_BF16 if dtype is not np.float32 else 0.0)
    got = _matmul(dev.put(a), dev.put(b))
    dev.check_on_gojax("matmul", got)
    check_within(f"matmul {np.dtype(dtype).name} {m}x{k}x{n}", got, a64 @ b64, rel * (np.abs(a64) @ np.abs(b64)))


_REDUCERS = {name: jax.jit(getattr(jnp, name), static_argnames="axis")
             for name in ("sum", "max", "min", "argmax")}
_REDUCE_SHAPES = ((7, 300), (64, 64), (1000, 3), (1, 1))


def reduce(dev: Devices, rng: np.random.Generator) -> None:
    shape = _pick(rng, _REDUCE_SHAPES)
    axis = _pick(rng, (0, 1, None))
    name = _pick(rng, tuple(_REDUCERS))
    what = f"{name} axis={axis} of {shape}"
    if name == "sum":
        x = rng.standard_normal(shape).astype(np.float32)
        n = x.size if axis is None else shape[axis]
        x64 = x.astype(np.float64)
        bound = 2 * (n + 1) * _U32 * np.abs(x64).sum(axis=axis)
        check_within(what, _REDUCERS[name](dev.put(x), axis=axis), x64.sum(axis=axis), bound)
        return
    # Distinct values, so argmax has one answer and max/min are exact.
    x = rng.permutation(int(np.prod(shape))).reshape(shape).astype(np.float32) - 17
    want = getattr(np, name)(x, axis=axis)
    got = np.asarray(_REDUCERS[name](dev.put(x), axis=axis))
    if name == "argmax":
        want = want.astype(got.dtype)
    check_equal(what, got, want)


# ---- sorting and indexing (NumPy, exact) ---------------------------------

_sort = jax.jit(lambda x: jnp.sort(x, axis=-1))
_argsort = jax.jit(lambda x: jnp.argsort(x, axis=-1, stable=True))


def sort(dev: Devices, rng: np.random.Generator) -> None:
    shape = _pick(rng, ((1000,), (13, 77), (4, 2, 129)))
    if rng.integers(2):
        x = rng.standard_normal(shape).astype(np.float32)
        x.reshape(-1)[rng.integers(0, x.size, 3)] = np.nan  # NaNs sort last in both
        got = np.asarray(_sort(dev.put(x)))
        want = np.sort(x, axis=-1)
        if not np.array_equal(got, want, equal_nan=True):
            check_equal(f"sort float32 {shape}", got, want)
    else:
        # Few distinct keys: the stable order of ties is part of the answer.
        x = rng.integers(-5, 6, shape).astype(np.int32)
        check_equal(f"sort int32 {shape}", _sort(dev.put(x)), np.sort(x, axis=-1))
        got = np.asarray(_argsort(dev.put(x)))
        check_equal(f"argsort int32 {shape}", got, np.argsort(x, axis=-1, kind="stable").astype(got.dtype))


_gather = jax.jit(lambda x, i: x[i])
_take_along = jax.jit(lambda x, i: jnp.take_along_axis(x, i, axis=1))
_scatter_add = jax.jit(lambda x, i, v: x.at[i].add(v))
_scatter_set = jax.jit(lambda x, i, v: x.at[i].set(v))


def gather_scatter(dev: Devices, rng: np.random.Generator) -> None:
    n = _pick(rng, (10, 100, 257))
    d = _pick(rng, (1, 8))
    m = _pick(rng, (5, 10))
    x = rng.integers(-1000, 1000, (n, d)).astype(np.int32)
    idx = rng.integers(-n, n, m).astype(np.int32)  # negative indices count from the end
    check_equal("gather x[i]", _gather(dev.put(x), dev.put(idx)), x[idx])
    cols = rng.integers(0, d, (n, 3)).astype(np.int32)
    check_equal("take_along_axis", _take_along(dev.put(x), dev.put(cols)), np.take_along_axis(x, cols, axis=1))
    v = rng.integers(-50, 50, (m, d)).astype(np.int32)
    want = x.copy()
    np.add.at(want, idx, v)  # repeated indices accumulate
    check_equal("scatter add", _scatter_add(dev.put(x), dev.put(idx), dev.put(v)), want)
    uniq = (rng.choice(n, m, replace=False) - n * rng.integers(0, 2, m)).astype(np.int32)
    want = x.copy()
    want[uniq] = v
    check_equal("scatter set", _scatter_set(dev.put(x), dev.put(uniq), dev.put(v)), want)


# ---- integer and conversion arithmetic (NumPy, exact) --------------------

_intops = jax.jit(lambda a, b: ((a + b) ^ (a * 3), a >> 2, jnp.where(a > b, a - b, b - a), a & ~b))
_INT_TYPES = (np.int8, np.uint16, np.int32, np.uint32)
_convert = {name: jax.jit(lambda x, t=t: x.astype(t)) for name, t in
            (("float16", jnp.float16), ("bfloat16", jnp.bfloat16), ("int32", jnp.int32))}
_CONVERT_TO = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16, "int32": np.int32}


def integers(dev: Devices, rng: np.random.Generator) -> None:
    t = _pick(rng, _INT_TYPES)
    info = np.iinfo(t)
    shape = _pick(rng, ((17,), (64, 33)))
    a = rng.integers(info.min, info.max, shape, endpoint=True).astype(t)
    b = rng.integers(info.min, info.max, shape, endpoint=True).astype(t)
    got = _intops(dev.put(a), dev.put(b))
    with np.errstate(over="ignore"):
        want = ((a + b) ^ (a * t(3)), a >> t(2), np.where(a > b, a - b, b - a), a & ~b)
    for i, (g, w) in enumerate(zip(got, want)):
        check_equal(f"integer ops {np.dtype(t).name} output {i}", g, w)


def conversions(dev: Devices, rng: np.random.Generator) -> None:
    name = _pick(rng, tuple(_convert))
    # Exponents spread over float16's whole range and beyond (overflow to inf,
    # subnormals); in range for int32, whose conversion truncates.
    if name == "int32":
        x = (rng.standard_normal(500) * 1e6).astype(np.float32)
    else:
        x = (rng.standard_normal(500) * 2.0 ** rng.integers(-30, 20, 500)).astype(np.float32)
    with np.errstate(over="ignore"):  # to inf, as intended
        want = x.astype(_CONVERT_TO[name])
    check_equal(f"convert float32 to {name}", _convert[name](dev.put(x)), want)


# ---- control flow, random numbers, gradients (XLA:CPU) -------------------


@jax.jit
def _fori(x, n):
    # A contraction (derivative at most 0.75), so rounding differences
    # between the backends shrink from one iteration to the next.
    return lax.fori_loop(0, n, lambda i, v: v * 0.5 + 0.25 * jnp.sin(v) + i.astype(v.dtype), x)


@jax.jit
def _scan(x):
    return lax.scan(lambda c, v: (c * 0.875 + v, c.sum()), jnp.zeros(x.shape[1:], x.dtype), x)


def loops(dev: Devices, rng: np.random.Generator) -> None:
    shape = _pick(rng, ((16,), (5, 40)))
    x = rng.standard_normal(shape).astype(np.float32)
    n = np.int32(rng.integers(0, 30))  # traced: a while loop with a run-time trip count
    got = _fori(dev.put(x), dev.put(n))
    want = np.asarray(_fori(dev.put_cpu(x), dev.put_cpu(n)))
    check_within(f"fori_loop {shape} n={n}", got, want, _close_to(want, 1e-5))
    xs = rng.standard_normal((_pick(rng, (3, 50)), 7)).astype(np.float32)
    (gc, gys), (wc, wys) = _scan(dev.put(xs)), _scan(dev.put_cpu(xs))
    check_within("scan carry", gc, wc, _close_to(wc, 1e-5))
    check_within("scan outputs", gys, wys, _close_to(wys, 1e-5))


_bits = jax.jit(lambda s: jax.random.bits(jax.random.key(s), (64, 33), jnp.uint32))
_normal = jax.jit(lambda s: jax.random.normal(jax.random.key(s), (1000,)))
_randint = jax.jit(lambda s: jax.random.randint(jax.random.key(s), (300,), -100, 100))
_permutation = jax.jit(lambda s: jax.random.permutation(jax.random.key(s), 200))


def random(dev: Devices, rng: np.random.Generator) -> None:
    s = np.uint32(rng.integers(0, 2**32))
    for what, f in (("random.bits", _bits), ("random.randint", _randint), ("random.permutation", _permutation)):
        check_equal(what, f(dev.put(s)), f(dev.put_cpu(s)))
    want = np.asarray(_normal(dev.put_cpu(s)))
    check_within("random.normal", _normal(dev.put(s)), want, _close_to(want, 1e-5))


def _mlp_loss(params, x, y):
    w1, b1, w2 = params
    h = jnp.tanh(x @ w1 + b1)
    return jnp.mean((h @ w2 - y) ** 2)


_value_and_grad = jax.jit(jax.value_and_grad(_mlp_loss))


def grad(dev: Devices, rng: np.random.Generator) -> None:
    batch, hidden = _pick(rng, ((16, 32), (5, 64)))
    params = (rng.standard_normal((8, hidden)).astype(np.float32) * 0.3,
              rng.standard_normal(hidden).astype(np.float32) * 0.1,
              rng.standard_normal((hidden, 4)).astype(np.float32) * 0.3)
    x = rng.standard_normal((batch, 8)).astype(np.float32)
    y = rng.standard_normal((batch, 4)).astype(np.float32)
    gv, gg = _value_and_grad(dev.put(params), dev.put(x), dev.put(y))
    wv, wg = _value_and_grad(dev.put_cpu(params), dev.put_cpu(x), dev.put_cpu(y))
    check_within("loss", gv, wv, _close_to(wv, 1e-4))
    for i, (g, w) in enumerate(zip(gg, wg)):
        check_within(f"gradient {i} (batch {batch}, hidden {hidden})", g, w, _close_to(w, 1e-4))


# ---- compilation, donation, callbacks, transfers (NumPy, exact) ----------

_affine = jax.jit(lambda x, k: x * k - 1)


def recompile(dev: Devices, rng: np.random.Generator) -> None:
    # A fresh function each call: traced, lowered and compiled by gojax anew
    # (and freed with it); then a shared one over 32 shapes, which fills its
    # cache during the warm-up and hits it afterwards. The fresh function's
    # shapes come from a small set too: JAX keeps per-shape entries in caches
    # of thousands, which would otherwise grow through the whole run.
    k = int(rng.integers(-9, 10))
    x = rng.integers(-1000, 1000, 97 * int(rng.integers(1, 17))).astype(np.int32)
    fresh = jax.jit(lambda v: jnp.cumsum(v * k) + v.sum())
    check_equal("fresh jit", fresh(dev.put(x)), np.cumsum(x * k, dtype=np.int32) + x.sum(dtype=np.int32))
    y = rng.integers(-1000, 1000, int(rng.integers(1, 33))).astype(np.int32)
    check_equal("cached jit", _affine(dev.put(y), dev.put(np.int32(k))), y * np.int32(k) - 1)


_donating = jax.jit(lambda x, y: x * 3 + y, donate_argnums=0)


def donate(dev: Devices, rng: np.random.Generator) -> None:
    shape = _pick(rng, ((100,), (32, 32)))
    x = rng.integers(-1000, 1000, shape).astype(np.int32)
    y = rng.integers(-1000, 1000, shape).astype(np.int32)
    got = _donating(dev.put(x), dev.put(y))
    check_equal("donated x*3+y", got, x * 3 + y)
    # The result's buffer may be the donated one: use it again.
    check_equal("reuse of a donated result", _donating(got, dev.put(y)), (x * 3 + y) * 3 + y)


def _host_cumsum(x):
    return np.cumsum(x, axis=-1, dtype=x.dtype)


_with_callback = jax.jit(lambda x: jax.pure_callback(
    _host_cumsum, jax.ShapeDtypeStruct(x.shape, x.dtype), x + 1) * 2)


def callback(dev: Devices, rng: np.random.Generator) -> None:
    x = rng.integers(-100, 100, _pick(rng, ((50,), (6, 9)))).astype(np.int32)
    check_equal("pure_callback", _with_callback(dev.put(x)), _host_cumsum(x + 1) * 2)


_TRANSFER_TYPES = (np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32,
                   np.float16, ml_dtypes.bfloat16, np.float32, np.complex64)


def transfer(dev: Devices, rng: np.random.Generator) -> None:
    t = np.dtype(_pick(rng, _TRANSFER_TYPES))
    shape = _pick(rng, ((), (1,), (3, 5), (257,), (64, 64)))
    n = int(np.prod(shape))
    if t == np.bool_:
        x = rng.integers(0, 2, shape).astype(np.bool_)
    else:
        # Random bits: every pattern (NaN payloads, subnormals) must survive.
        x = rng.integers(0, 256, n * t.itemsize, dtype=np.uint8).view(t).reshape(shape)
    what = f"transfer {t.name}{list(shape)}"
    on_gojax = dev.put(x)
    dev.check_on_gojax(what, on_gojax)
    check_equal(what + " host to gojax", np.asarray(on_gojax), x)
    on_cpu = jax.device_put(on_gojax, dev.cpu)
    check_equal(what + " gojax to XLA:CPU", np.asarray(on_cpu), x)
    back = dev.put(on_cpu)
    dev.check_on_gojax(what, back)
    check_equal(what + " XLA:CPU to gojax", np.asarray(back), x)


KINDS: dict[str, Callable[[Devices, np.random.Generator], None]] = {
    f.__name__: f for f in (matmul, reduce, sort, gather_scatter, integers, conversions,
                            loops, random, grad, recompile, donate, callback, transfer)
}
