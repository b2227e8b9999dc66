"""The table of functions under test.

An Op is one jax function with the dtypes it is tried in and its input
"variants": each variant is a tuple of argument specs (shape, dtype, domain),
dtype None meaning the case's dtype.  The primal test runs every variant
inside one jitted function (so one compile per backend covers scalars,
zero-size and ordinary shapes); the transform tests use the last variant."""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

import jax
import jax.numpy as jnp
import jax.scipy as jsp
import numpy as np
from jax import lax

from diffutil import (ALL, BF16, BOOL, COMPLEX, FLOATS, INTS, NUMERIC, SINTS, UINTS)

F = FLOATS
FC = FLOATS + COMPLEX
F32_64 = [np.float32, np.float64]
REAL = INTS + FLOATS
SOME = [np.bool_, np.int8, np.int32, np.uint32, BF16, np.float32, np.float64, np.complex64]


@dataclasses.dataclass
class Op:
    name: str
    fn: Callable
    dtypes: list
    variants: list  # list of tuples of (shape, dtype|None, domain)
    cls: str = "default"
    grad: bool = True  # differentiable w.r.t. its float arguments
    vmap: bool = True
    static: Any = None  # (fn(*args, static), static value) for the static-arg jit test

    def __str__(self):
        return self.name


def A(shape, dtype=None, domain="any"):
    return (tuple(shape), dtype, domain)


UNARY_SHAPES = lambda d="any": [(A((), None, d),), (A((0, 3), None, d),), (A((3, 5), None, d),)]
BIN_SHAPES = lambda d0="any", d1="any", t1=None: [
    (A((3, 5), None, d0), A((3, 5), t1, d1)),
    (A((3, 1), None, d0), A((1, 5), t1, d1)),
    (A((), None, d0), A((2, 3), t1, d1)),
    (A((0, 5), None, d0), A((1, 5), t1, d1)),
]


def unary(name, fn, dtypes, domain="any", cls="default", grad=True):
    return Op(name, fn, dtypes, UNARY_SHAPES(domain), cls, grad)


def binary(name, fn, dtypes, d0="any", d1="any", cls="default", grad=True, t1=None):
    return Op(name, fn, dtypes, BIN_SHAPES(d0, d1, t1), cls, grad)


sp = jsp.special

UNARY_OPS = [
    unary("abs", jnp.abs, SINTS + UINTS + FC, cls="exact"),
    unary("negative", jnp.negative, SINTS + UINTS + FC, cls="exact"),
    unary("sign", jnp.sign, SINTS + UINTS + FC),
    unary("floor", jnp.floor, F, cls="exact"),
    unary("ceil", jnp.ceil, F, cls="exact"),
    unary("trunc", jnp.trunc, F, cls="exact"),
    unary("rint", jnp.rint, F, cls="exact"),
    unary("round", jnp.round, F, cls="exact"),
    unary("round_decimals2", lambda x: jnp.round(x, 2), F32_64),
    unary("exp", jnp.exp, FC, "small", "transc"),
    unary("exp2", jnp.exp2, F, "small", "transc"),
    unary("expm1", jnp.expm1, F, "small", "transc"),
    unary("log", jnp.log, FC, "pos", "transc"),
    unary("log1p", jnp.log1p, F, "pos", "transc"),
    unary("log2", jnp.log2, F, "pos", "transc"),
    unary("log10", jnp.log10, F, "pos", "transc"),
    unary("sqrt", jnp.sqrt, FC, "pos", "transc"),
    unary("rsqrt", lax.rsqrt, F, "pos", "transc"),
    unary("cbrt", jnp.cbrt, F, cls="transc"),
    unary("square", jnp.square, NUMERIC, cls="exact"),
    unary("reciprocal", jnp.reciprocal, FC, "nonzero"),
    unary("sin", jnp.sin, FC, "small", "transc"),
    unary("cos", jnp.cos, FC, "small", "transc"),
    unary("tan", jnp.tan, F, "unit", "transc"),
    unary("arcsin", jnp.arcsin, F, "unit", "transc"),
    unary("arccos", jnp.arccos, F, "unit", "transc"),
    unary("arctan", jnp.arctan, F, cls="transc"),
    unary("sinh", jnp.sinh, F, "small", "transc"),
    unary("cosh", jnp.cosh, F, "small", "transc"),
    unary("tanh", jnp.tanh, FC, "small", "transc"),
    unary("arcsinh", jnp.arcsinh, F, cls="transc"),
    unary("arccosh", jnp.arccosh, F, "ge1", "transc"),
    unary("arctanh", jnp.arctanh, F, "unit", "transc"),
    unary("logical_not", jnp.logical_not, BOOL + [np.int32, np.float32], grad=False),
    unary("invert", jnp.invert, BOOL + INTS, grad=False),
    unary("isnan", jnp.isnan, F, grad=False),
    unary("isfinite", jnp.isfinite, F, grad=False),
    unary("signbit", jnp.signbit, F, grad=False),
    unary("real", jnp.real, COMPLEX, cls="exact"),
    unary("imag", jnp.imag, COMPLEX, cls="exact"),
    unary("conj", jnp.conj, COMPLEX, cls="exact"),
    unary("angle", jnp.angle, COMPLEX + [np.float32], cls="transc"),
    unary("sinc", jnp.sinc, F32_64, cls="transc"),
    unary("deg2rad", jnp.deg2rad, F),
    unary("logistic", lax.logistic, F, cls="transc"),
    unary("population_count", lax.population_count, INTS, grad=False),
    unary("clz", lax.clz, INTS, grad=False),
    unary("nan_to_num", jnp.nan_to_num, F32_64, cls="exact"),
    unary("reduce_precision", lambda x: lax.reduce_precision(x, 5, 10), F32_64, cls="exact"),
    unary("erf", sp.erf, [BF16, np.float32, np.float64], cls="transc"),
    unary("erfc", sp.erfc, F32_64, cls="special"),
    unary("erfinv", sp.erfinv, F32_64, "unit", "special"),
    unary("gammaln", sp.gammaln, F32_64, "pos", "special"),
    unary("digamma", sp.digamma, F32_64, "pos", "special"),
    unary("i0e", sp.i0e, F32_64, cls="special"),
    unary("i1e", sp.i1e, F32_64, cls="special"),
    unary("ndtr", sp.ndtr, F32_64, cls="special"),
    unary("ndtri", sp.ndtri, F32_64, "prob", "special"),
    unary("log_ndtr", sp.log_ndtr, F32_64, cls="special"),
    unary("logit", sp.logit, F32_64, "prob", "transc"),
    unary("expit", sp.expit, F32_64, cls="transc"),
    unary("entr", sp.entr, F32_64, "pos", "transc"),
]

BINARY_OPS = [
    binary("add", jnp.add, ALL, cls="exact"),
    binary("subtract", jnp.subtract, NUMERIC, cls="exact"),
    binary("multiply", jnp.multiply, ALL, cls="exact"),
    binary("divide", jnp.divide, [np.int32] + FC, d1="nonzero"),
    binary("floor_divide", jnp.floor_divide, INTS + F, d1="nonzero", cls="exact", grad=False),
    binary("remainder", jnp.remainder, INTS + F, d1="nonzero", cls="exact"),
    binary("fmod", jnp.fmod, INTS + F, d1="nonzero", cls="exact"),
    binary("lax_div", lax.div, INTS, d1="nonzero", grad=False),
    binary("lax_rem", lax.rem, INTS + [np.float32], d1="nonzero", cls="exact"),
    binary("power_float", jnp.power, FC, d0="pos", d1="small", cls="transc"),
    binary("power_int", jnp.power, INTS, d1="exp", grad=False),
    binary("maximum", jnp.maximum, BOOL + REAL, cls="exact"),
    binary("minimum", jnp.minimum, BOOL + REAL, cls="exact"),
    binary("arctan2", jnp.arctan2, F, cls="transc"),
    binary("hypot", jnp.hypot, F),
    binary("logaddexp", jnp.logaddexp, F, cls="transc"),
    binary("copysign", jnp.copysign, F, cls="exact"),
    binary("nextafter", jnp.nextafter, F32_64, cls="exact", grad=False),
    binary("bitwise_and", jnp.bitwise_and, BOOL + INTS, grad=False),
    binary("bitwise_or", jnp.bitwise_or, BOOL + INTS, grad=False),
    binary("bitwise_xor", jnp.bitwise_xor, BOOL + INTS, grad=False),
    binary("left_shift", jnp.left_shift, INTS, d1="shift", grad=False),
    binary("right_shift", jnp.right_shift, INTS, d1="shift", grad=False),
    binary("shift_right_logical", lax.shift_right_logical, INTS, d1="shift", grad=False),
    binary("equal", jnp.equal, ALL, grad=False),
    binary("not_equal", jnp.not_equal, ALL, grad=False),
    binary("less", jnp.less, BOOL + REAL, grad=False),
    binary("less_equal", jnp.less_equal, REAL, grad=False),
    binary("greater", jnp.greater, REAL, grad=False),
    binary("greater_equal", jnp.greater_equal, REAL, grad=False),
    binary("logical_and", jnp.logical_and, BOOL, grad=False),
    binary("logical_or", jnp.logical_or, BOOL, grad=False),
    binary("logical_xor", jnp.logical_xor, BOOL, grad=False),
    binary("complex", lax.complex, F32_64, cls="exact"),
    binary("heaviside", jnp.heaviside, F32_64, cls="exact", grad=False),
    binary("xlogy", sp.xlogy, F32_64, d1="pos", cls="transc"),
    binary("xlog1py", sp.xlog1py, F32_64, d1="pos", cls="transc"),
    binary("gammainc", sp.gammainc, F32_64, d0="pos", d1="pos", cls="special", grad=False),
    binary("zeta", sp.zeta, F32_64, d0="ge1", d1="pos", cls="special", grad=False),
    binary("betaln", sp.betaln, F32_64, d0="pos", d1="pos", cls="special"),
]

TERNARY_OPS = [
    Op("where", jnp.where, SOME,
       [(A((3, 5), np.bool_), A((3, 5)), A((3, 5))), (A((3, 1), np.bool_), A(()), A((1, 5))),
        (A((0, 2), np.bool_), A((0, 2)), A((0, 2)))], "exact"),
    Op("clip", jnp.clip, REAL,
       [(A((3, 5)), A(()), A(())), (A((2, 3)), A((2, 1)), A((1, 3)))], "exact"),
    Op("clamp", lambda lo, x, hi: lax.clamp(lo, x, hi), REAL,
       [(A((3, 5)), A((3, 5)), A((3, 5)))], "exact"),
    Op("select_n", lambda p, a, b, c: lax.select_n(p, a, b, c), SOME,
       [(A((4, 3), np.int32, "exp"), A((4, 3)), A((4, 3)), A((4, 3)))], "exact",
       grad=False),
    Op("fma_like", lambda a, b, c: a * b + c, FC,
       [(A((3, 5)), A((3, 5)), A((3, 5)))], "default"),
]

# Reductions: each fn reduces one array in several ways inside one program.
R = lambda: [(A((3, 4, 5)),), (A((0, 4)),)]
RP = lambda: [(A((3, 4, 5), None, "pos"),), (A((0, 4), None, "pos"),)]


def _red(f, **kw):
    def g(x):
        if x.size == 0:
            return (f(x, axis=0, **kw),)
        return f(x), f(x, axis=0, **kw), f(x, axis=(0, 2), keepdims=True, **kw), f(x, axis=-1, **kw)
    return g


REDUCTION_OPS = [
    Op("sum", _red(jnp.sum), BOOL + NUMERIC, R(), "dot"),
    Op("prod", _red(jnp.prod), NUMERIC, [(A((3, 4, 5), None, "small"),), (A((0, 4)),)]),
    Op("max", _red(jnp.max, initial=-3), REAL, R(), "exact"),
    Op("min", _red(jnp.min, initial=3), REAL, R(), "exact"),
    Op("mean", _red(jnp.mean), [np.int32] + FC, R()),
    Op("var", _red(jnp.var), F + [np.complex64], [(A((3, 4, 5)),)]),
    Op("std_ddof1", _red(jnp.std, ddof=1), F32_64, [(A((3, 4, 5)),)]),
    Op("argmax", lambda x: (jnp.argmax(x), jnp.argmax(x, axis=1), jnp.argmax(x, axis=-1, keepdims=True)),
       BOOL + REAL, [(A((3, 4, 5)),)], grad=False),
    Op("argmin", lambda x: (jnp.argmin(x), jnp.argmin(x, axis=0)), REAL, [(A((3, 4, 5)),)], grad=False),
    Op("all", _red(jnp.all), BOOL + [np.float32], R(), grad=False),
    Op("any", _red(jnp.any), BOOL + [np.int32], R(), grad=False),
    Op("cumsum", lambda x: (jnp.cumsum(x, axis=0), jnp.cumsum(x, axis=-1), jnp.cumsum(x, axis=1)),
       [np.bool_, np.int8, np.int32, np.uint32, BF16, np.float32, np.float64, np.complex64], R(), "dot"),
    Op("cumprod", lambda x: (jnp.cumprod(x, axis=1),), [np.int32, np.float32, np.float64],
       [(A((3, 4, 5), None, "small"),)]),
    Op("cummax_cummin", lambda x: (lax.cummax(x, axis=1), lax.cummin(x, axis=x.ndim - 1, reverse=True)),
       [np.int8, np.uint32, np.float32, np.float64], R(), "exact"),
    Op("cumlogsumexp", lambda x: (lax.cumlogsumexp(x, axis=1),), F32_64, [(A((3, 4, 5)),)], "transc"),
    Op("logsumexp", lambda x: (sp.logsumexp(x), sp.logsumexp(x, axis=1), sp.logsumexp(x, axis=(0, 2))),
       F, [(A((3, 4, 5)),)], "transc"),
    Op("count_nonzero", lambda x: (jnp.count_nonzero(x), jnp.count_nonzero(x, axis=1)),
       [np.bool_, np.int32, np.float32], R(), grad=False),
    Op("ptp", lambda x: (jnp.ptp(x), jnp.ptp(x, axis=1)), REAL, [(A((3, 4, 5)),)]),
    Op("median", lambda x: (jnp.median(x), jnp.median(x, axis=1)), F32_64, [(A((3, 4, 5)),)]),
    Op("nansum_nanmax", lambda x: (lambda y: (jnp.nansum(y, axis=0), jnp.nanmax(y, axis=1), jnp.nanmean(y)))(
        jnp.where(x > 1.0, jnp.nan, x)), F32_64, [(A((3, 4, 5)),)]),
    Op("norm", lambda x: (jnp.linalg.norm(x), jnp.linalg.norm(x, axis=1), jnp.linalg.norm(x, ord=1, axis=(0, 1)),
                          jnp.linalg.norm(x, ord=jnp.inf, axis=-1)), F32_64 + [np.complex64], [(A((3, 4, 5)),)]),
    Op("average_weighted", lambda x, w: (jnp.average(x, axis=1, weights=w),), F32_64,
       [(A((3, 4, 5)), A((4,), None, "pos"))]),
]

# Shape manipulation, indexing, gathers and scatters.
I32 = np.int32


def _idx_basic(x):
    return x[1], x[:, ::2], x[::-1, 1:3], x[..., -1], x[None, :, None], x[1:1], x[-2:, ::-2, 1]


def _idx_adv(x, i):
    return x[i], x[:, i], x[i, i], x[jnp.array([0, 2])[:, None], i[None, :]], x[np.array([True, False, True, True])]


SHAPE_OPS = [
    Op("reshape", lambda x: (x.reshape(6, 10), x.reshape(-1), x.reshape(2, 30, 1), x.reshape(())) if x.size == 1
       else (x.reshape(6, 10), x.reshape(-1), x.reshape(2, 30, 1)), SOME, [(A((3, 4, 5)),)], "exact"),
    Op("transpose", lambda x: (x.T, jnp.transpose(x, (1, 0, 2)), jnp.swapaxes(x, 0, 2), jnp.moveaxis(x, 0, -1)),
       SOME, [(A((3, 4, 5)),), (A((0, 2, 3)),)], "exact"),
    Op("broadcast_to", lambda x: (jnp.broadcast_to(x, (2, 3, 4)), jnp.broadcast_to(x[:1], (0, 4))),
       SOME, [(A((3, 1)),)], "exact"),
    Op("concatenate", lambda a, b: (jnp.concatenate([a, b], axis=0), jnp.concatenate([a, b, a], axis=1),
                                    jnp.concatenate([a[:0], b], axis=0)),
       SOME, [(A((3, 4)), A((3, 4)))], "exact"),
    Op("stack", lambda a, b: (jnp.stack([a, b]), jnp.stack([a, b], axis=-1), jnp.hstack([a, b]), jnp.vstack([a, b])),
       SOME, [(A((3, 4)), A((3, 4)))], "exact"),
    Op("split", lambda x: (*jnp.split(x, 3, axis=1), *jnp.array_split(x, 2, axis=0)), SOME, [(A((5, 6)),)], "exact"),
    Op("squeeze_expand", lambda x: (jnp.squeeze(x), jnp.expand_dims(x, (0, 3)), jnp.squeeze(x, axis=1)),
       SOME, [(A((3, 1, 5)),)], "exact"),
    Op("flip_rot", lambda x: (jnp.flip(x), jnp.flip(x, 1), jnp.rot90(x), lax.rev(x, (0,))),
       SOME, [(A((3, 4)),), (A((0, 4)),)], "exact"),
    Op("roll", lambda x: (jnp.roll(x, 2), jnp.roll(x, -1, axis=1), jnp.roll(x, (1, 3), axis=(0, 1))),
       SOME, [(A((3, 4)),)], "exact"),
    Op("tile_repeat", lambda x: (jnp.tile(x, (2, 3)), jnp.repeat(x, 2, axis=0),
                                 jnp.repeat(x, jnp.array([1, 0, 3]), axis=0, total_repeat_length=4)),
       SOME, [(A((3, 4)),)], "exact"),
    Op("pad", lambda x: (jnp.pad(x, ((1, 2), (0, 3))), jnp.pad(x, 2, mode="edge"), jnp.pad(x, 2, mode="reflect"),
                         jnp.pad(x, ((1, 1), (2, 0)), mode="wrap"), jnp.pad(x, 1, constant_values=7),
                         lax.pad(x, jnp.zeros((), x.dtype), ((1, -1, 1), (-1, 2, 2)))),
       SOME, [(A((3, 4)),)], "exact"),
    Op("index_basic", _idx_basic, SOME, [(A((4, 5, 3)),)], "exact"),
    Op("index_advanced", _idx_adv, SOME, [(A((4, 5, 3)), A((3,), I32, "exp"))], "exact"),
    Op("index_mixed", lambda x, i: (x[:, i, 1:], x[i, :, i], x[-1, i], x[i - 2], x[:, :, i[0]],
                                    x.at[i - 4].get(mode="clip"), x[..., ::-1][i[:2]]),
       SOME, [(A((4, 5, 3)), A((3,), I32, "exp"))], "exact"),
    Op("scatter_windows", lambda x, i, u: (x.at[:, i].set(u[:, :3]),
                                           x.at[i, 1:3].add(u[:3, :2]), x.at[i - 6].set(u[:3, :1]),
                                           x.at[-1].multiply(2), x.at[i[0], i[1]].min(u[0, 0])),
       [np.int32, BF16, np.float32, np.float64], [(A((4, 5)), A((3,), I32, "exp"), A((4, 5)))]),
    Op("dynamic_slice", lambda x, i: (lax.dynamic_slice(x, (i, i - i + 1), (2, 3)),
                                      lax.dynamic_slice_in_dim(x, i * 2, 2, axis=1),
                                      lax.dynamic_index_in_dim(x, -i, keepdims=False)),
       SOME, [(A((4, 5)), A((), I32, "exp"))], "exact"),
    Op("dynamic_update_slice", lambda x, u, i: (lax.dynamic_update_slice(x, u, (i, i + 1)),
                                                lax.dynamic_update_slice(x, u, (i + 10, i - 3))),
       SOME, [(A((4, 5)), A((2, 3)), A((), I32, "exp"))], "exact"),
    Op("scatter", lambda x, i, u: (x.at[i].set(u), x.at[i].add(u), x.at[i].min(u),
                                   x.at[i].max(u), x.at[i + 5].set(u, mode="drop"),
                                   x.at[i].get(mode="fill", fill_value=3)),
       [np.int8, np.int32, np.uint32, BF16, np.float32, np.float64],
       [(A((6, 3)), A((4,), I32, "exp"), A((4, 3)))]),
    Op("scatter_mul", lambda x, i, u: (x.at[i].multiply(u), x.at[i, 1:].multiply(u[:, 1:], mode="clip")),
       [np.int32, np.float32, np.float64], [(A((6, 3)), A((4,), I32, "exp"), A((4, 3)))], grad=False),
    Op("take", lambda x, i: (jnp.take(x, i, axis=0, mode="clip"), jnp.take(x, i - 2, axis=1, mode="fill"),
                             jnp.take(x, i, axis=1, mode="wrap"),
                             jnp.take_along_axis(x, jnp.argsort(x, axis=1), axis=1)),
       [np.int32, np.uint8, BF16, np.float32, np.float64, np.complex64],
       [(A((4, 5)), A((6,), I32, "exp"))], "exact"),
    Op("sort", lambda x: (jnp.sort(x), jnp.sort(x, axis=0), jnp.argsort(x, axis=-1, stable=True),
                          jnp.sort(x, descending=True)),
       BOOL + REAL, [(A((5, 7)),), (A((0, 3)),)], "exact"),
    Op("sort_multi", lambda k, v: lax.sort((k, v), num_keys=1), [np.int32, np.float32],
       [(A((4, 6), np.int8, "exp"), A((4, 6)))], "exact", grad=False),
    Op("sort_complex_lexsort", lambda x, k: (jnp.sort(x), jnp.argsort(x, stable=True), jnp.lexsort((jnp.real(x), k)),
                                             lax.sort((k, jnp.imag(x)), num_keys=2)),
       [np.int8, np.int32], [(A((9,), np.complex64, "small"), A((9,), None, "exp"))], "exact", grad=False),
    Op("top_k", lambda x: lax.top_k(x, 3), [np.int32, BF16, np.float32, np.float64], [(A((4, 9)),)],
       "exact"),
    Op("searchsorted", lambda a, v: (jnp.searchsorted(jnp.sort(a), v), jnp.searchsorted(jnp.sort(a), v, side="right")),
       [np.int32, np.float32], [(A((9,)), A((4, 3)))], grad=False),
    Op("tri_diag", lambda x: (jnp.triu(x), jnp.tril(x, -1), jnp.diag(x), jnp.diagonal(x, 1), jnp.trace(x),
                              jnp.diag(x[0]), jnp.fill_diagonal(x, jnp.zeros((), x.dtype), inplace=False)),
       SOME, [(A((4, 4)),)], "exact"),
    Op("unique_nonzero", lambda x: (jnp.unique(x, size=6, fill_value=0), jnp.nonzero(x, size=5),
                                    jnp.bincount(jnp.abs(x).astype(jnp.int32), length=6)),
       [np.int32, np.int8], [(A((12,), None, "exp"),)], grad=False),
    Op("outer_kron", lambda a, b: (jnp.outer(a, b), jnp.kron(a.reshape(2, 2), b.reshape(1, 3))),
       NUMERIC, [(A((4,)), A((3,)))], "exact"),
    Op("iota_like", lambda x: (jnp.arange(7, dtype=x.dtype) + x[0], jnp.eye(3, 4, 1, dtype=x.dtype) * x[1],
                               jnp.linspace(x[0], x[1], 5), lax.broadcasted_iota(jnp.int32, (2, 3), 1)),
       [np.int32, np.float32, np.float64], [(A((2,)),)]),
    Op("meshgrid", lambda a, b: jnp.meshgrid(a, b), SOME, [(A((3,)), A((4,)))], "exact"),
]

# Matmul family.
MATMUL_DTYPES = [np.int8, np.int32, np.uint8, BF16, np.float16, np.float32, np.float64, np.complex64, np.complex128]
MATMUL_OPS = [
    Op("matmul", lambda a, b: a @ b, MATMUL_DTYPES,
       [(A((3, 4), None, "small"), A((4, 5), None, "small")),
        (A((2, 3, 4), None, "small"), A((2, 4, 5), None, "small")),
        (A((1, 3, 4), None, "small"), A((2, 4, 2), None, "small")),
        (A((4,), None, "small"), A((4, 3), None, "small")),
        (A((4,), None, "small"), A((4,), None, "small")),
        (A((3, 0), None, "small"), A((0, 2), None, "small")),
        (A((0, 3), None, "small"), A((3, 2), None, "small"))], "dot"),
    Op("einsum", lambda a, b: (jnp.einsum("ij,jk->ik", a, b), jnp.einsum("ij,ij->", a, b.T),
                               jnp.einsum("ii->i", a @ b), jnp.einsum("ij->j", a), jnp.einsum("i,j->ij", a[0], b[0]),
                               jnp.einsum("ij,kj->ikj", a, b.T)),
       [np.int32, BF16, np.float32, np.float64, np.complex64], [(A((3, 4), None, "small"), A((4, 3), None, "small"))],
       "dot"),
    Op("einsum_batch_middle", lambda a, b, c: (jnp.einsum("ibj,jbk->bik", a, b), jnp.einsum("ibj,jbk,k->ib", a, b, c),
                                               jnp.einsum("ibj->jb", a)),
       [np.int32, np.float32, np.float64, np.complex64],
       [(A((3, 2, 4), None, "small"), A((4, 2, 5), None, "small"), A((5,), None, "small"))], "dot"),
    Op("attention_einsum", lambda q, k: jnp.einsum("bhqd,bhkd->bhqk", q, k),
       [BF16, np.float32, np.float64], [(A((2, 3, 4, 8)), A((2, 3, 5, 8)))], "dot"),
    Op("tensordot_vdot", lambda a, b: (jnp.tensordot(a, b.T, axes=2), jnp.tensordot(a, b, axes=([0], [1])),
                                       jnp.vdot(a, b.reshape(a.shape)), jnp.inner(a, a)),
       [np.int32, np.float32, np.float64, np.complex64], [(A((3, 4), None, "small"), A((4, 3), None, "small"))],
       "dot"),
    Op("dot_general_pref", lambda a, b: lax.dot_general(
        a, b, (((2,), (1,)), ((0,), (0,))), preferred_element_type=jnp.float32),
       [BF16, np.float16, np.float32], [(A((2, 3, 4)), A((2, 4, 5)))], "dot"),
    Op("dot_int8_to_int32", lambda a, b: lax.dot(a, b, preferred_element_type=jnp.int32), [np.int8, np.uint8],
       [(A((3, 8), None, "full"), A((8, 2), None, "full"))], grad=False),
]

# Convolutions, windows, FFT, signal.
CONV_DTYPES = [BF16, np.float16, np.float32, np.float64]


def _conv(x, w):
    dn = ("NHWC", "HWIO", "NHWC")
    return (
        lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=dn),
        lax.conv_general_dilated(x, w, (2, 1), "VALID", dimension_numbers=dn),
        lax.conv_general_dilated(x, w, (1, 1), ((1, 0), (2, 1)), rhs_dilation=(2, 1), dimension_numbers=dn),
        lax.conv_general_dilated(x, w, (1, 1), ((1, 1), (0, 2)), lhs_dilation=(2, 2), dimension_numbers=dn),
        lax.conv_general_dilated(x, jnp.concatenate([w[:, :, :1], w[:, :, :1]], axis=3)[:, :, :, :4],
                                 (1, 1), "VALID", dimension_numbers=dn, feature_group_count=2),
    )


def _conv_nchw(x, w):
    return lax.conv(jnp.transpose(x, (0, 3, 1, 2)), jnp.transpose(w, (3, 2, 0, 1)), (1, 2), "SAME")


def _windows(x):
    return (lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID"),
            lax.reduce_window(x, 0.0, lax.add, (1, 3, 3, 1), (1, 1, 1, 1), "SAME"),
            lax.reduce_window(x, jnp.inf, lax.min, (1, 2, 3, 1), (1, 1, 2, 1), ((0, 0), (1, 1), (0, 2), (0, 0))),
            lax.reduce_window(x, 0.0, lax.add, (1, 2, 2, 1), (1, 1, 1, 1), "VALID", window_dilation=(1, 2, 1, 1)),
            lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 2, 1), (1, 2, 1, 1), ((0, 0), (2, 1), (1, 1), (0, 0)),
                              base_dilation=(1, 2, 1, 1)))


SIGNAL_OPS = [
    Op("conv_nhwc", _conv, CONV_DTYPES, [(A((2, 7, 6, 2), None, "small"), A((3, 2, 2, 4), None, "small"))], "dot"),
    Op("conv_nchw", _conv_nchw, [np.float32, np.float64], [(A((1, 5, 6, 3)), A((3, 3, 3, 2)))], "dot"),
    Op("reduce_window", _windows, [BF16, np.float32, np.float64], [(A((2, 6, 7, 3)),)], "dot"),
    Op("np_convolve", lambda a, b: (jnp.convolve(a, b), jnp.convolve(a, b, mode="same"),
                                    jnp.correlate(a, b, mode="valid")),
       [np.int32, np.float32, np.float64, np.complex64], [(A((9,), None, "small"), A((4,), None, "small"))], "dot"),
    Op("signal_convolve2d", lambda a, b: (jsp.signal.convolve2d(a, b), jsp.signal.correlate2d(a, b, mode="same"),
                                          jsp.signal.convolve(a, b, mode="valid")),
       [np.float32, np.float64], [(A((6, 7)), A((3, 2)))], "dot"),
    Op("fft", lambda x: (jnp.fft.fft(x), jnp.fft.ifft(x, axis=0), jnp.fft.fft2(x), jnp.fft.fftn(x, s=(4, 8))),
       COMPLEX, [(A((4, 6)),)], "linalg"),
    Op("rfft", lambda x: (jnp.fft.rfft(x), jnp.fft.irfft(jnp.fft.rfft(x)), jnp.fft.rfft2(x), jnp.fft.hfft(x[0])),
       F32_64, [(A((4, 6)),)], "linalg"),
]

# jax.nn.
NN_DTYPES = [BF16, np.float16, np.float32, np.float64]
NN_OPS = [
    unary("relu", jax.nn.relu, NN_DTYPES, cls="exact"),
    unary("relu6", jax.nn.relu6, NN_DTYPES, cls="exact"),
    unary("sigmoid", jax.nn.sigmoid, NN_DTYPES, cls="transc"),
    unary("log_sigmoid", jax.nn.log_sigmoid, NN_DTYPES, cls="transc"),
    unary("softplus", jax.nn.softplus, NN_DTYPES, cls="transc"),
    unary("silu", jax.nn.silu, NN_DTYPES, cls="transc"),
    unary("gelu_tanh", lambda x: jax.nn.gelu(x, approximate=True), NN_DTYPES, cls="transc"),
    unary("gelu_erf", lambda x: jax.nn.gelu(x, approximate=False), NN_DTYPES, cls="transc"),
    unary("elu", jax.nn.elu, NN_DTYPES, cls="transc"),
    unary("celu", jax.nn.celu, NN_DTYPES, cls="transc"),
    unary("selu", jax.nn.selu, NN_DTYPES, cls="transc"),
    unary("leaky_relu", jax.nn.leaky_relu, NN_DTYPES),
    unary("hard_tanh", jax.nn.hard_tanh, NN_DTYPES, cls="exact"),
    unary("mish", jax.nn.mish, NN_DTYPES, cls="transc"),
    Op("softmax", lambda x: (jax.nn.softmax(x), jax.nn.softmax(x, axis=0), jax.nn.log_softmax(x),
                             jax.nn.logsumexp(x, axis=-1)), NN_DTYPES, [(A((3, 7)),), (A((0, 4)),)], "transc"),
    Op("glu_standardize", lambda x: (jax.nn.glu(x), jax.nn.standardize(x, axis=-1)), NN_DTYPES,
       [(A((3, 8)),)], "transc"),
    Op("one_hot", lambda i: (jax.nn.one_hot(i, 5), jax.nn.one_hot(i, 4, dtype=jnp.int32, axis=0)),
       [np.int32, np.int8, np.uint8], [(A((3, 4), None, "exp"),)], grad=False),
    Op("dot_product_attention", lambda q, k, v: jax.nn.dot_product_attention(q, k, v, is_causal=True),
       [BF16, np.float32], [(A((2, 5, 2, 4)), A((2, 5, 2, 4)), A((2, 5, 2, 4)))], "transc"),
]

_PREFERRED = [np.float32, np.complex64, np.float64, np.int32, np.int8, np.uint8, np.bool_]


def primary_dtype(op):
    """The dtype an op is tested most thoroughly in (float32 where it can)."""
    names = [np.dtype(d) for d in op.dtypes]
    for p in _PREFERRED:
        if np.dtype(p) in names:
            return op.dtypes[names.index(np.dtype(p))]
    return op.dtypes[0]


ALL_TABLES = {
    "unary": UNARY_OPS, "binary": BINARY_OPS, "ternary": TERNARY_OPS, "reduction": REDUCTION_OPS,
    "shape": SHAPE_OPS, "matmul": MATMUL_OPS, "signal": SIGNAL_OPS, "nn": NN_OPS,
}
