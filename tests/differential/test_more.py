"""Beyond the table: sizes large enough for gojax's parallel/blocked code
paths, the rarer dtypes (float8, int4, uint16, uint64), NaN ordering in
sorts and arg-reductions, host callbacks, odd FFT sizes and the rest of the
CPU linear algebra (eig vectors, Schur, Hessenberg, tridiagonal, sqrtm)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import jax.scipy.linalg as sla
import ml_dtypes
import numpy as np
import pytest
from jax import lax

from diffutil import BF16, assert_same, check, dname, make, rng_for, run_both, x64_for

# ---------------------------------------------------------------------------
# Large inputs: the same op families at sizes that cross parallel thresholds.
_N = 1 << 20


def _big(shape, dt=np.float32, domain="small", seed="big"):
    return make(rng_for(seed, shape, dname(dt)), shape, dt, domain)


LARGE = [
    ("elementwise", lambda x: (jnp.tanh(x) * 2 + jnp.exp(-x * x), jnp.where(x > 0, x, 0.1 * x)),
     (_big((_N,)),), "transc"),
    ("reduce_full_and_axis", lambda x: (jnp.sum(x), jnp.max(x), jnp.sum(x.reshape(1024, -1), axis=0),
                                        jnp.mean(x.reshape(1024, -1), axis=1), jnp.argmax(x)),
     (_big((_N,)),), "accum"),
    ("reduce_bf16_sum", lambda x: (jnp.sum(x), jnp.sum(x.reshape(256, -1), axis=1)),
     (_big((1 << 16,), BF16),), "accum"),
    ("matmul_256", lambda a, b: (a @ b, a.T @ b), (_big((256, 256), seed=1), _big((256, 256), seed=2)), "linalg"),
    ("matmul_batched_f64", lambda a, b: a @ b, (_big((8, 64, 96), np.float64), _big((8, 96, 32), np.float64)),
     "linalg"),
    ("matmul_int32", lambda a, b: a @ b, (_big((128, 200), np.int32, "any"), _big((200, 64), np.int32, "any")),
     "exact"),
    ("transpose_copy", lambda x: (jnp.transpose(x, (2, 0, 1)) + 0, x[:, ::-1, ::2]), (_big((64, 128, 96)),), "exact"),
    ("cumsum_sort", lambda x: (jnp.cumsum(x.reshape(64, -1), axis=1), jnp.sort(x[: 1 << 16]),
                               jnp.argsort(x[: 1 << 15], stable=True)), (_big((_N,)),), "accum"),
    ("gather_scatter", lambda x, i: (x[i], x.at[i].add(1.0), jnp.take(x, i[::-1], mode="clip")),
     (_big((_N // 4,)), (make(rng_for("gi"), (1 << 16,), np.int32, "full") % (_N // 4)).astype(np.int32)),
     "default"),
    ("conv_large", lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                                        dimension_numbers=("NHWC", "HWIO", "NHWC")),
     (_big((4, 32, 32, 16)), _big((3, 3, 16, 32), seed=3)), "linalg"),
    ("reduce_window_large", lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME"),
     (_big((4, 64, 64, 8)),), "exact"),
    ("softmax_rows", lambda x: jax.nn.softmax(x.reshape(512, -1), axis=-1), (_big((_N // 4,)),), "transc"),
    ("fft_large", lambda x: jnp.fft.fft(x.astype(jnp.complex64).reshape(64, -1)), (_big((1 << 16,)),), "linalg"),
    ("while_many_steps", lambda x: lax.fori_loop(0, 2000, lambda i, c: c * 0.999 + jnp.sin(c) * 1e-3, x),
     (_big((64,)),), "linalg"),
    ("scan_long", lambda xs: lax.scan(lambda c, x: (c * 0.9 + x, c.sum()), jnp.zeros(8), xs),
     (_big((3000, 8)),), "linalg"),
]


@pytest.mark.parametrize("name,fn,args,cls", LARGE, ids=[c[0] for c in LARGE])
def test_large(name, fn, args, cls):
    with x64_for(*[a.dtype for a in args]):
        check(fn, *args, cls=cls)


# ---------------------------------------------------------------------------
# Rarer dtypes.
F8 = [ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2, ml_dtypes.float8_e4m3b11fnuz]


@pytest.mark.parametrize("dt", F8, ids=dname)
def test_float8_convert_and_arith(dt):
    x = (make(rng_for("f8", dname(dt)), (4, 5), np.float32, "small")).astype(dt)
    y = (make(rng_for("f8b", dname(dt)), (4, 5), np.float32, "small")).astype(dt)

    def f(a, b):
        af, bf = a.astype(jnp.float32), b.astype(jnp.float32)
        return (af, (af * bf).astype(dt), jnp.maximum(a, b), a == b, (af + 1).astype(dt),
                jnp.float32(3.3).astype(dt), jnp.dot(af, bf.T))
    got, want = run_both(f, x, y)
    for i, (g, w) in enumerate(zip(got, want)):
        if np.asarray(w).dtype == np.dtype(dt):
            g, w = np.asarray(g).view(np.uint8), np.asarray(w).view(np.uint8)
        assert_same(g, w, "exact", path=f"out[{i}]")


@pytest.mark.parametrize("dt", [jnp.int4, jnp.uint4], ids=["int4", "uint4"])
def test_int4(dt):
    # Values chosen so no int4 arithmetic overflows: XLA:CPU does not wrap
    # int4 results to 4 bits (it computes -3*3 = -9), StableHLO says it wraps.
    x = np.array([[-3, 0, 2, 3], [1, -4, 2, -1]], np.int8)
    if dt == jnp.uint4:
        x = np.abs(x) % 16

    def f(v):
        a = v.astype(dt)
        return (a.astype(jnp.int8), (a + a).astype(jnp.int32), (a * 2).astype(jnp.int8),
                jnp.max(a, axis=1).astype(jnp.int8), a.T.astype(jnp.int8))
    check(f, x, cls="exact")


@pytest.mark.parametrize("dt", [np.uint16, np.uint64, np.int16], ids=dname)
def test_other_ints(dt):
    with x64_for(dt):
        a = make(rng_for("oi", dname(dt)), (3, 5), dt, "full")
        b = make(rng_for("oi2", dname(dt)), (3, 5), dt, "full")
        s = make(rng_for("oi3", dname(dt)), (3, 5), dt, "shift")
        check(lambda a, b, s: (a + b, a * b, a - b, a // jnp.where(b == 0, 1, b), a % jnp.where(b == 0, 1, b),
                               a >> s, a << s, a < b, jnp.sum(a, axis=1), a.astype(jnp.float32),
                               jnp.max(a), jnp.argmin(a, axis=0), jnp.sort(a, axis=1), lax.population_count(a),
                               lax.clz(a)), a, b, s, cls="exact")


# ---------------------------------------------------------------------------
# NaN / signed-zero ordering.
@pytest.mark.parametrize("dt", [np.float32, np.float64, BF16], ids=dname)
def test_nan_ordering(dt):
    with x64_for(dt):
        x = np.array([3.0, np.nan, -0.0, 0.0, -np.inf, 1.0, np.nan, np.inf, -2.0], dtype=dt)
        check(lambda v: (jnp.sort(v), jnp.argsort(v, stable=True), jnp.argmax(v), jnp.argmin(v),
                         jnp.max(v), jnp.min(v), jnp.nanmax(v), jnp.nanargmin(v), lax.top_k(v, 4),
                         jnp.unique(v, size=9, fill_value=0), jnp.maximum(v, v[::-1]), jnp.minimum(v, 0.0),
                         jnp.clip(v, -1, 1), jnp.sign(v), jnp.cumsum(v), lax.cummax(v)), x, cls="exact")


# ---------------------------------------------------------------------------
# Host callbacks inside jitted programs.
def test_pure_callback():
    def host(x):
        return np.sort(np.asarray(x))[::-1].copy()

    def f(x):
        y = jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x * 2)
        return y + 1

    check(f, make(rng_for("cb"), (7,), np.float32), cls="exact")


def test_io_callback_and_debug_print(capfd):
    seen = []

    def f(x):
        jax.debug.print("diffsuite-debug {v}", v=x.sum())
        jax.experimental.io_callback(lambda v: seen.append(np.asarray(v)) or None, None, x, ordered=True)
        return x * 3

    import jax.experimental  # noqa: F401 (io_callback)
    check(f, np.arange(4, dtype=np.float32), cls="exact")
    assert len(seen) == 2, seen  # once per backend
    np.testing.assert_array_equal(seen[0], seen[1])
    assert capfd.readouterr().out.count("diffsuite-debug 6") == 2


# ---------------------------------------------------------------------------
# FFT sizes: odd, prime, length one.
@pytest.mark.parametrize("n", [1, 7, 13, 30], ids=lambda n: f"n{n}")
def test_fft_sizes(n):
    x = make(rng_for("fft", n), (3, n), np.complex64)
    check(lambda v: (jnp.fft.fft(v), jnp.fft.ifft(v), jnp.fft.rfft(v.real), jnp.fft.irfft(v, n=max(2 * n - 1, 1))),
          x, cls="linalg")


# ---------------------------------------------------------------------------
# The rest of the CPU linear algebra, through invariants.
def _general(rng, n, dt):
    x = rng.standard_normal((n, n))
    if np.dtype(dt).kind == "c":
        x = x + 1j * rng.standard_normal((n, n))
    return x.astype(dt)


def _eig_inv(a):
    w, v = jnp.linalg.eig(a)
    # A v = v diag(w) holds for any normalisation; compare residual-free parts.
    return jnp.sort_complex(w), jnp.abs(a.astype(w.dtype) @ v - v * w) < 1e-3, jnp.linalg.norm(v, axis=0)


def _schur_inv(a):
    t, z = sla.schur(a)
    return z @ t @ z.T.conj(), jnp.sort(jnp.abs(jnp.diagonal(t))), jnp.abs(jnp.tril(t, -2)).max()


def _hess_inv(a):
    h, q = sla.hessenberg(a, calc_q=True)
    return q @ h @ q.T.conj(), jnp.abs(jnp.tril(h, -2)).max()


def _tridiag(a):
    d = jnp.diagonal(a) + 5
    e = jnp.diagonal(a, 1)
    dl = jnp.concatenate([jnp.zeros(1, a.dtype), e])
    du = jnp.concatenate([e, jnp.zeros(1, a.dtype)])
    return lax.linalg.tridiagonal_solve(dl, d, du, a[:, :2]), sla.eigh_tridiagonal(d, e, eigvals_only=True)


MORE_LINALG = [
    ("eig", _eig_inv, [np.float32, np.float64, np.complex64]),
    ("schur", _schur_inv, [np.float32, np.float64]),
    ("hessenberg", _hess_inv, [np.float32, np.float64, np.complex64]),
    ("tridiagonal", _tridiag, [np.float32, np.float64]),
    ("sqrtm_polar", lambda a: (sla.sqrtm(a @ a.T + 5 * jnp.eye(a.shape[0], dtype=a.dtype)),
                               sla.polar(a + 5 * jnp.eye(a.shape[0], dtype=a.dtype))[1]), [np.float32, np.float64]),
    ("svd_full_qr_complete", lambda a: (jnp.abs(jnp.linalg.svd(a[:, :3], full_matrices=True)[0] @
                                                jnp.linalg.svd(a[:, :3], full_matrices=True)[0].T),
                                        jnp.linalg.qr(a[:, :3], mode="complete")[0] @
                                        jnp.linalg.qr(a[:, :3], mode="complete")[1]), [np.float32, np.float64]),
    ("lu_rect", lambda a: sla.lu(a[:, :3]), [np.float32, np.float64]),
    ("cholesky_update_sylvester", lambda a: sla.solve_sylvester(a + 6 * jnp.eye(a.shape[0], dtype=a.dtype),
                                                                a.T + 6 * jnp.eye(a.shape[0], dtype=a.dtype), a),
     [np.float32, np.float64]),
]


@pytest.mark.parametrize("name,fn,dt", [pytest.param(n, f, d, id=f"{n}-{dname(d)}")
                                        for n, f, dts in MORE_LINALG for d in dts])
def test_more_linalg(name, fn, dt):
    with x64_for(dt):
        check(fn, _general(rng_for("ml", name, dname(dt)), 5, dt), cls="linalg")


# Larger matrices: where blocked/parallel factorizations take over.
def _spd_big(n, dt, seed):
    x = np.random.default_rng(seed).standard_normal((n, n))
    return (x @ x.T / n + np.eye(n)).astype(dt)


BIG_LINALG = [
    ("cholesky_128", lambda a: jnp.linalg.cholesky(a), 128),
    ("solve_100", lambda a: jnp.linalg.solve(a, a[:, :3]), 100),
    ("eigh_64", lambda a: (jnp.linalg.eigvalsh(a), jnp.abs(jnp.linalg.eigh(a)[1]).sum(0)), 64),
    ("svd_64x40", lambda a: (jnp.linalg.svd(a[:, :40], compute_uv=False),), 64),
    ("qr_80x40", lambda a: (lambda q, r: (q @ r, jnp.abs(jnp.diagonal(r))))(*jnp.linalg.qr(a[:, :40])), 80),
    ("inv_det_96", lambda a: (jnp.linalg.inv(a), jnp.linalg.slogdet(a)[1]), 96),
]


@pytest.mark.parametrize("name,fn,n", BIG_LINALG, ids=[b[0] for b in BIG_LINALG])
@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=dname)
def test_big_linalg(name, fn, n, dt):
    with x64_for(dt):
        check(fn, _spd_big(n, dt, n), cls="linalg")


def test_stable_argsort_many_ties_and_duplicate_scatter_add():
    keys = (make(rng_for("ties"), (20000,), np.int32, "full") % 7).astype(np.int32)
    idx = (make(rng_for("dup"), (50000,), np.int32, "full") % 100).astype(np.int32)
    check(lambda k, i: (jnp.argsort(k, stable=True), jnp.zeros(100, jnp.int32).at[i].add(i * 3 - 7),
                        jnp.sort(k), jnp.bincount(i, length=100)), keys, idx, cls="exact")
