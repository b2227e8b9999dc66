"""The broad suite (`python -m benchmarks --suite broad`): one or more workloads per op family.

Each workload is a jittable function, its inputs (numpy arrays, made with a
fixed seed) and a check that compares gojax's output with XLA's. Checks are
op-specific: plain closeness for deterministic ops, invariants (ordering,
reconstruction residuals) where implementations may legitimately differ
(argsort ties, eigenvector signs, LU pivots), and moments for samplers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np


@dataclass
class Check:
    ok: bool
    err: float  # the measured discrepancy (meaning depends on the check)
    note: str = ""


@dataclass(frozen=True)
class BroadWorkload:
    name: str
    group: str
    make: Callable[[], tuple[Callable, list]]
    # check(got, want, args) -> Check; got/want are numpy pytrees (lists/tuples of arrays)
    check: Callable = None  # type: ignore[assignment]
    x64: bool = False
    needs: tuple[str, ...] = field(default_factory=tuple)  # Python packages; skipped (with reason) if missing


# ---------------------------------------------------------------- checks


def _leaves(t):
    # Any pytree (flax/equinox modules and optax states too), in JAX's order.
    import jax

    return [np.asarray(x) for x in jax.tree.leaves(t)]


def _f64(a):
    a = np.asarray(a)
    if a.dtype.kind == "c":
        return a.astype(np.complex128)
    return a.astype(np.float64)


def rel_err(got, want) -> float:
    """max |got - want| / max |want| over all leaves (NaNs in matching places are equal)."""
    worst = 0.0
    for g, w in zip(_leaves(got), _leaves(want)):
        if g.shape != w.shape:
            return float("inf")
        g, w = _f64(g), _f64(w)
        both_nan = np.isnan(g) & np.isnan(w)
        d = np.where(both_nan, 0, np.abs(g - w))
        if np.isnan(d).any():
            return float("inf")
        scale = max(float(np.abs(np.where(both_nan, 0, w)).max(initial=0.0)), 1e-30)
        worst = max(worst, float(d.max(initial=0.0)) / scale)
    return worst


def close(tol: float):
    def check(got, want, args):
        e = rel_err(got, want)
        return Check(e <= tol, e, f"max rel err (tol {tol:g})")

    return check


def _shapes_match(got, want):
    gl, wl = _leaves(got), _leaves(want)
    if len(gl) != len(wl):
        return f"{len(gl)} outputs vs {len(wl)}"
    for g, w in zip(gl, wl):
        if g.shape != w.shape or g.dtype != w.dtype:
            return f"{g.dtype}{list(g.shape)} vs {w.dtype}{list(w.shape)}"
    return ""


def moments(tol: float = 0.05):
    """Samplers: same shapes/dtypes, and mean and std within tol (in units of XLA's std)."""

    def check(got, want, args):
        bad = _shapes_match(got, want)
        if bad:
            return Check(False, float("inf"), "shape/dtype " + bad)
        worst = 0.0
        for g, w in zip(_leaves(got), _leaves(want)):
            g, w = _f64(g).ravel(), _f64(w).ravel()
            if not np.isfinite(g).all():
                return Check(False, float("inf"), "non-finite samples")
            s = max(float(w.std()), 1e-12)
            worst = max(worst, abs(g.mean() - w.mean()) / s, abs(g.std() - w.std()) / s)
        exact = all(np.array_equal(g, w) for g, w in zip(_leaves(got), _leaves(want)))
        return Check(worst <= tol, worst, "mean/std diff in XLA std units" + (" (bit-identical)" if exact else ""))

    return check


def _is_permutation(p, n):
    p = np.asarray(p).ravel()
    return p.size == n and np.array_equal(np.sort(p), np.arange(n))


def check_permutation(got, want, args):
    (g,), (w,) = _leaves(got), _leaves(want)
    ok = _is_permutation(g, w.size)
    return Check(ok, 0.0 if ok else 1.0, "is a permutation" + (" (bit-identical)" if np.array_equal(g, w) else ""))


def check_choice_unique(got, want, args):
    (g,), (w,) = _leaves(got), _leaves(want)
    ok = g.shape == w.shape and np.unique(g).size == g.size
    return Check(ok, 0.0 if ok else 1.0, "distinct draws without replacement")


def check_argsort(axis=-1):
    """Indices that sort x (ties may be broken either way): x[idx] must equal sorted x."""

    def check(got, want, args):
        x = np.asarray(args[0])
        (g,), (w,) = _leaves(got), _leaves(want)
        if g.shape != w.shape:
            return Check(False, float("inf"), "shape")
        ok = np.array_equal(np.take_along_axis(x, g.astype(np.int64), axis), np.sort(x, axis=axis))
        same = float(np.mean(g == w))
        return Check(ok, 1 - same, f"x[idx] sorted; fraction of indices differing from XLA: {1 - same:.2g}")

    return check


def check_topk(got, want, args):
    """Values close to XLA's; indices point at those values (ties may pick other indices)."""
    x = np.asarray(args[0])
    (gv, gi), (wv, wi) = got, want
    e = rel_err(gv, wv)
    ok = e <= 1e-6 and np.array_equal(np.take_along_axis(x, np.asarray(gi).astype(np.int64), -1), np.asarray(gv))
    return Check(ok, e, "values vs XLA; x[idx] == values")


def check_recall(min_recall: float):
    def check(got, want, args):
        (gv, _), (wv, _) = got, want
        gv, wv = np.asarray(gv), np.asarray(wv)
        if gv.shape != wv.shape:
            return Check(False, float("inf"), "shape")
        rec = np.mean([np.isin(g, w).mean() for g, w in zip(gv.reshape(-1, gv.shape[-1]), wv.reshape(-1, wv.shape[-1]))])
        return Check(rec >= min_recall, 1 - rec, f"1 - recall of XLA's top values (need >= {min_recall})")

    return check


def _residual_check(resid, tol, note):
    """Checks gojax's output on its own through resid(outputs, args) (relative), and shapes vs XLA."""

    def check(got, want, args):
        bad = _shapes_match(got, want)
        if bad:
            return Check(False, float("inf"), "shape/dtype " + bad)
        r = float(resid([_f64(a) for a in _leaves(got)], [_f64(a) for a in args]))
        rw = float(resid([_f64(a) for a in _leaves(want)], [_f64(a) for a in args]))
        ok = np.isfinite(r) and r <= max(tol, 10 * rw)
        return Check(ok, r, f"{note}; XLA's {rw:.1e} (tol max({tol:g}, 10x XLA))")

    return check


def _nrm(a):
    return np.linalg.norm(a) + 1e-300


def _qr_resid(o, a):
    q, r = o
    return max(_nrm(q @ r - a[0]) / _nrm(a[0]), _nrm(q.conj().T @ q - np.eye(q.shape[1])) / np.sqrt(q.shape[1]))


def _lu_resid(o, a):
    lu, piv, perm = o
    n = lu.shape[0]
    L = np.tril(lu, -1) + np.eye(n)
    U = np.triu(lu)
    return _nrm((L @ U) - a[0][perm.astype(np.int64).real.astype(np.int64)]) / _nrm(a[0])


def _eigh_resid(o, a):
    w, v = o
    return _nrm(a[0] @ v - v * w) / _nrm(a[0])


def _svd_resid(o, a):
    u, s, vt = o
    return _nrm((u * s) @ vt - a[0]) / _nrm(a[0])


def _svd_batched_resid(o, a):
    u, s, vt = o
    return _nrm((u * s[..., None, :]) @ vt - a[0]) / _nrm(a[0])


def _eig_resid(o, a):
    w, v = o
    return _nrm(a[0] @ v - v * w) / _nrm(a[0])


def check_eigh(tol):
    res = _residual_check(_eigh_resid, tol, "|A v - v w| / |A|")

    def check(got, want, args):
        c = res(got, want, args)
        e = rel_err(got[0], want[0])  # eigenvalues are unique up to rounding
        return Check(c.ok and e <= tol * 10, max(c.err, e), c.note + f"; eigenvalues rel err {e:.1e}")

    return check


def check_svd(tol):
    res = _residual_check(_svd_resid, tol, "|U S Vt - A| / |A|")

    def check(got, want, args):
        c = res(got, want, args)
        e = rel_err(got[1], want[1])
        return Check(c.ok and e <= tol * 10, max(c.err, e), c.note + f"; singular values rel err {e:.1e}")

    return check


# ---------------------------------------------------------------- helpers


def _rng(seed=0):
    return np.random.default_rng(seed)


def _normal(*shape, dtype=np.float32, seed=0):
    return _rng(seed).standard_normal(shape).astype(dtype)


def W(name, group, make, check=None, **kw):
    return BroadWorkload(name, group, make, check or close(1e-4), **kw)


def _key():
    return np.array([0, 42], np.uint32)  # a raw (legacy) threefry key


# ---------------------------------------------------------------- sort / top-k


def _sort_group():
    import jax
    import jax.numpy as jnp

    M = 1 << 20
    out = [
        W("sort_f32_1M", "sort", lambda: (jnp.sort, [_normal(M)]), close(0)),
        W("argsort_f32_1M", "sort", lambda: (jnp.argsort, [_normal(M)]), check_argsort()),
        W("sort_f32_256x4096", "sort", lambda: (lambda x: jnp.sort(x, axis=-1), [_normal(256, 4096)]), close(0)),
        W("argsort_f32_256x4096", "sort", lambda: (lambda x: jnp.argsort(x, axis=-1), [_normal(256, 4096)]),
          check_argsort()),
        W("sort_int32_1M", "sort", lambda: (jnp.sort, [_rng().integers(-2**31, 2**31 - 1, M, dtype=np.int32)]),
          close(0)),
        W("sort_key_value_1M", "sort",
          lambda: (lambda k, v: jax.lax.sort((k, v), num_keys=1), [_normal(M), _normal(M, seed=1)]),
          check=lambda g, w, a: close(0)(g[0], w[0], a)),
        W("top_k_1M_k100", "sort", lambda: (lambda x: jax.lax.top_k(x, 100), [_normal(M)]), check_topk),
        W("top_k_256x4096_k16", "sort", lambda: (lambda x: jax.lax.top_k(x, 16), [_normal(256, 4096)]), check_topk),
        W("approx_max_k_1M_k100", "sort", lambda: (lambda x: jax.lax.approx_max_k(x, 100), [_normal(M)]),
          check_recall(0.9)),
        W("approx_max_k_256x4096_k16", "sort",
          lambda: (lambda x: jax.lax.approx_max_k(x, 16), [_normal(256, 4096)]), check_recall(0.9)),
    ]
    return out


# ---------------------------------------------------------------- cumulative ops


def _cumulative_group():
    import jax
    import jax.numpy as jnp

    M = 1 << 20
    near1 = lambda *s: (1 + 0.001 * _normal(*s)).astype(np.float32)  # noqa: E731  cumprod stays finite
    return [
        W("cumsum_f32_1M", "cumulative", lambda: (jnp.cumsum, [_normal(M)]), close(1e-3)),
        W("cumsum_f32_1024x1024_axis1", "cumulative", lambda: (lambda x: jnp.cumsum(x, axis=1), [_normal(1024, 1024)]),
          close(1e-4)),
        W("cumsum_reverse_f32_1M", "cumulative", lambda: (lambda x: jax.lax.cumsum(x, reverse=True), [_normal(M)]),
          close(1e-3)),
        W("cumprod_f32_1M", "cumulative", lambda: (jnp.cumprod, [near1(M)]), close(1e-2)),
        W("cumprod_f32_1024x1024_axis1", "cumulative",
          lambda: (lambda x: jnp.cumprod(x, axis=1), [near1(1024, 1024)]), close(1e-4)),
        W("cummax_f32_1M", "cumulative", lambda: (jax.lax.cummax, [_normal(M)]), close(0)),
        W("cummax_f32_1024x1024_axis1", "cumulative",
          lambda: (lambda x: jax.lax.cummax(x, axis=1), [_normal(1024, 1024)]), close(0)),
        W("cumlogsumexp_f32_1024x1024_axis1", "cumulative",
          lambda: (lambda x: jax.lax.cumlogsumexp(x, axis=1), [_normal(1024, 1024)]), close(1e-4)),
    ]


# ---------------------------------------------------------------- control flow


def _control_group():
    import jax
    import jax.numpy as jnp

    def small():
        return [_normal(16), _normal(16, seed=1) * 0.5, _normal(16, seed=2)]

    def scan_small(c, a, b):
        return jax.lax.scan(lambda c, _: (jnp.tanh(c * a + b), None), c, None, length=1000)[0]

    def fori_small(c, a, b):
        return jax.lax.fori_loop(0, 1000, lambda i, c: jnp.tanh(c * a + b), c)

    def while_small(c, a, b):
        def body(s):
            i, c = s
            return i + 1, jnp.tanh(c * a + b)

        return jax.lax.while_loop(lambda s: s[0] < 1000, body, (jnp.int32(0), c))[1]

    def big():
        return [_normal(256, 256), (_normal(256, 256, seed=1) / 16).astype(np.float32)]

    def scan_mm(c, w):
        return jax.lax.scan(lambda c, _: (jnp.tanh(c @ w), None), c, None, length=50)[0]

    def fori_mm(c, w):
        return jax.lax.fori_loop(0, 50, lambda i, c: jnp.tanh(c @ w), c)

    def scan_grad(c, a, b):
        return jax.grad(lambda a: jnp.sum(jax.lax.scan(lambda c, _: (jnp.tanh(c * a + b), None), c, None,
                                                       length=200)[0]))(a)

    def scan_xs(xs, w):  # an RNN over a sequence: per-step input slices and stacked outputs
        def step(h, x):
            h = jnp.tanh(h @ w + x)
            return h, h

        return jax.lax.scan(step, jnp.zeros((32, 128), xs.dtype), xs)[1]

    return [
        W("scan_small_1000", "control", lambda: (scan_small, small()), close(1e-4)),
        W("fori_loop_small_1000", "control", lambda: (fori_small, small()), close(1e-4)),
        W("while_loop_small_1000", "control", lambda: (while_small, small()), close(1e-4)),
        W("scan_matmul256_50", "control", lambda: (scan_mm, big()), close(1e-3)),
        W("fori_loop_matmul256_50", "control", lambda: (fori_mm, big()), close(1e-3)),
        W("scan_small_grad_200", "control", lambda: (scan_grad, small()), close(1e-3)),
        W("scan_rnn_seq256_b32_h128", "control",
          lambda: (scan_xs, [_normal(256, 32, 128), (_normal(128, 128, seed=1) / 12).astype(np.float32)]),
          close(1e-3)),
    ]


# ---------------------------------------------------------------- gather / scatter


def _gather_group():
    import jax
    import jax.numpy as jnp

    M = 1 << 20

    def idx(n, hi, seed=3):
        return _rng(seed).integers(0, hi, n, dtype=np.int32)

    def emb_grad(table, ids, w):
        return jax.value_and_grad(lambda t: jnp.sum(jnp.tanh(t[ids]) * w))(table)

    return [
        W("take_1M", "gather", lambda: (lambda x, i: x[i], [_normal(M), idx(M, M)]), close(0)),
        W("gather_rows_100kx64_16k", "gather",
          lambda: (lambda t, i: jnp.take(t, i, axis=0), [_normal(100_000, 64), idx(16384, 100_000)]), close(0)),
        W("take_along_axis_256x4096", "gather",
          lambda: (lambda x, i: jnp.take_along_axis(x, i, axis=1),
                   [_normal(256, 4096), _rng(3).integers(0, 4096, (256, 4096), dtype=np.int32)]), close(0)),
        W("scatter_add_1M_into_64k", "gather",
          lambda: (lambda v, i: jnp.zeros(65536, v.dtype).at[i].add(v), [_normal(M), idx(M, 65536)]), close(1e-4)),
        W("scatter_add_rows_16k_into_10kx64", "gather",
          lambda: (lambda t, u, i: t.at[i].add(u), [_normal(10_000, 64), _normal(16384, 64, seed=1),
                                                     idx(16384, 10_000)]), close(1e-4)),
        W("scatter_set_1M_into_1M", "gather",
          lambda: (lambda x, v, i: x.at[i].set(v), [_normal(M), _normal(M, seed=1),
                                                    _rng(3).permutation(M).astype(np.int32)]), close(0)),
        W("segment_sum_1M_1000", "gather",
          lambda: (lambda d, s: jax.ops.segment_sum(d, s, num_segments=1000),
                   [_normal(M), np.sort(idx(M, 1000))]), close(1e-4)),
        W("segment_max_1M_1000", "gather",
          lambda: (lambda d, s: jax.ops.segment_max(d, s, num_segments=1000),
                   [_normal(M), idx(M, 1000)]), close(0)),
        W("embedding_50kx128_lookup_grad", "gather",
          lambda: (emb_grad, [_normal(50_000, 128) * 0.1, _rng(3).integers(0, 50_000, (8, 512), dtype=np.int32),
                              _normal(8, 512, 128, seed=1)]), close(1e-4)),
        W("bincount_1M_1000", "histogram",
          lambda: (lambda x: jnp.bincount(x, length=1000), [idx(M, 1000)]), close(0)),
        W("histogram_1M_100bins", "histogram",
          lambda: (lambda x: jnp.histogram(x, bins=100, range=(-4.0, 4.0))[0], [_normal(M)]),
          close(1e-3)),  # a value within rounding of a bin edge may land in either bin
        W("searchsorted_1M_in_4k", "histogram",
          lambda: (lambda s, x: jnp.searchsorted(s, x), [np.sort(_normal(4096, seed=1)), _normal(M)]), close(0)),
    ]


# ---------------------------------------------------------------- random


def _random_group():
    import jax
    import jax.numpy as jnp

    M = 1 << 20
    K = 100_000
    R = jax.random

    def rw(name, f, check=None):
        return W(f"random_{name}", "random", lambda: (f, [_key()]), check or moments())

    return [
        rw("uniform_1M", lambda k: R.uniform(k, (M,))),
        rw("normal_1M", lambda k: R.normal(k, (M,))),
        rw("bernoulli_1M", lambda k: R.bernoulli(k, 0.3, (M,))),
        rw("randint_1M", lambda k: R.randint(k, (M,), 0, 1000)),
        rw("categorical_1024x1000", lambda k: R.categorical(k, jnp.sin(jnp.arange(1000.0)) * 3, shape=(1024, 64))),
        rw("permutation_1M", lambda k: R.permutation(k, M), check_permutation),
        rw("choice_noreplace_1M_1000", lambda k: R.choice(k, M, (1000,), replace=False), check_choice_unique),
        rw("choice_p_1000_100k", lambda k: R.choice(k, 1000, (K,), p=jnp.linspace(0.0, 1.0, 1000) / 500.0)),
        rw("gamma_100k", lambda k: R.gamma(k, 2.5, (K,))),
        rw("beta_100k", lambda k: R.beta(k, 2.0, 5.0, (K,))),
        rw("truncated_normal_1M", lambda k: R.truncated_normal(k, -1.0, 2.0, (M,))),
        rw("exponential_1M", lambda k: R.exponential(k, (M,))),
        rw("poisson_100k", lambda k: R.poisson(k, 3.0, (K,))),
        rw("dirichlet_10k_x8", lambda k: R.dirichlet(k, jnp.arange(1.0, 9.0), (10_000,))),
        rw("split_fold_in_1k", lambda k: jax.vmap(lambda kk: R.fold_in(kk, 7))(R.split(k, 1024)),
           close(0)),
    ]


# ---------------------------------------------------------------- fft


def _cplx(*shape, seed=0, dtype=np.complex64):
    r = _rng(seed)
    return (r.standard_normal(shape) + 1j * r.standard_normal(shape)).astype(dtype)


def _fft_group():
    import jax.numpy as jnp

    M = 1 << 20
    f = jnp.fft
    return [
        W("fft_c64_1M", "fft", lambda: (f.fft, [_cplx(M)]), close(1e-4)),
        W("ifft_c64_1M", "fft", lambda: (f.ifft, [_cplx(M)]), close(1e-4)),
        W("rfft_f32_1M", "fft", lambda: (f.rfft, [_normal(M)]), close(1e-4)),
        W("irfft_c64_1M", "fft", lambda: (lambda x: f.irfft(x, n=M), [_cplx(M // 2 + 1)]), close(1e-4)),
        W("fft2_c64_512x512", "fft", lambda: (f.fft2, [_cplx(512, 512)]), close(1e-4)),
        W("rfft2_f32_512x512", "fft", lambda: (f.rfft2, [_normal(512, 512)]), close(1e-4)),
        W("irfft2_c64_512x512", "fft", lambda: (lambda x: f.irfft2(x, s=(512, 512)), [_cplx(512, 257)]), close(1e-4)),
        W("fftn_c64_64x64x64", "fft", lambda: (f.fftn, [_cplx(64, 64, 64)]), close(1e-4)),
        W("fft_batched_c64_1024x1024_axis1", "fft", lambda: (f.fft, [_cplx(1024, 1024)]), close(1e-4)),
        W("fft_c128_1M", "fft", lambda: (f.fft, [_cplx(M, dtype=np.complex128)]), close(1e-10), x64=True),
        W("rfftn_f64_64x64x64", "fft", lambda: (f.rfftn, [_normal(64, 64, 64, dtype=np.float64)]), close(1e-10),
          x64=True),
    ]


# ---------------------------------------------------------------- linalg


_DT = {"f32": np.float32, "f64": np.float64, "c64": np.complex64, "c128": np.complex128}
_TOL = {"f32": 1e-3, "f64": 1e-9, "c64": 1e-3, "c128": 1e-9}


def _mat(n, dt, seed=0):
    """A well-conditioned general matrix (eigenvalues in the disc |z - 2| <= ~1)."""
    if dt in ("c64", "c128"):
        a = _cplx(n, n, seed=seed, dtype=np.complex128) / np.sqrt(2 * n)
    else:
        a = _rng(seed).standard_normal((n, n)) / np.sqrt(n)
    return (a + 2 * np.eye(n)).astype(_DT[dt])


def _spd(n, dt, seed=0):
    if dt in ("c64", "c128"):
        a = _cplx(n, n, seed=seed, dtype=np.complex128)
    else:
        a = _rng(seed).standard_normal((n, n))
    return (a @ a.conj().T / n + np.eye(n)).astype(_DT[dt])


def _rhs(n, dt, k=16, seed=1):
    if dt in ("c64", "c128"):
        return _cplx(n, k, seed=seed, dtype=_DT[dt])
    return _rng(seed).standard_normal((n, k)).astype(_DT[dt])


def _linalg_group():
    import jax
    import jax.numpy as jnp
    import jax.scipy.linalg as jsl

    L = jnp.linalg
    out = []

    def add(op, dt, n, make, check, **kw):
        out.append(W(f"{op}_{dt}_{n}", "linalg", make, check, x64=dt in ("f64", "c128"), **kw))

    def lu_fn(a):
        lu, piv, perm = jax.lax.linalg.lu(a)
        return lu, piv, perm

    plan = {  # op -> [(dtype, n)]
        "cholesky": [("f32", 64), ("f32", 256), ("f32", 1024), ("f64", 256), ("f64", 1024), ("c64", 256)],
        "solve": [("f32", 64), ("f32", 256), ("f32", 1024), ("f64", 256), ("f64", 1024), ("c64", 256)],
        "lu": [("f32", 256), ("f32", 1024), ("f64", 256), ("c64", 256)],
        "qr": [("f32", 64), ("f32", 256), ("f32", 1024), ("f64", 256), ("c64", 256)],
        "eigh": [("f32", 64), ("f32", 256), ("f64", 256), ("c64", 64)],
        "eig": [("f32", 64), ("f64", 64)],
        "svd": [("f32", 64), ("f32", 256), ("f64", 256), ("c64", 64), ("c64", 256)],
        "svdvals": [("f32", 256)],  # compute_uv=False
        "svd_batched": [("f32", 16)],  # 64 matrices of n×n
        "inv": [("f32", 256), ("f32", 1024), ("f64", 256)],
        "det": [("f32", 64), ("f64", 64)],
        "slogdet": [("f32", 1024), ("f64", 256)],
        "solve_triangular": [("f32", 256), ("f32", 1024), ("f64", 1024)],
        "expm": [("f32", 64), ("f32", 256), ("f64", 64)],
    }
    for op, cases in plan.items():
        for dt, n in cases:
            tol = _TOL[dt] * (10 if n >= 1024 else 1)
            if op == "cholesky":
                add(op, dt, n, lambda n=n, dt=dt: (L.cholesky, [_spd(n, dt)]), close(tol))
            elif op == "solve":
                add(op, dt, n, lambda n=n, dt=dt: (L.solve, [_mat(n, dt), _rhs(n, dt)]), close(tol))
            elif op == "lu":
                add(op, dt, n, lambda n=n, dt=dt: (lu_fn, [_mat(n, dt)]), _residual_check(_lu_resid, tol, "|LU - PA|/|A|"))
            elif op == "qr":
                add(op, dt, n, lambda n=n, dt=dt: (L.qr, [_mat(n, dt)]),
                    _residual_check(_qr_resid, tol, "max(|QR - A|/|A|, |Q*Q - I|/sqrt n)"))
            elif op == "eigh":
                add(op, dt, n, lambda n=n, dt=dt: (L.eigh, [_spd(n, dt)]), check_eigh(tol))
            elif op == "eig":
                add(op, dt, n, lambda n=n, dt=dt: (L.eig, [_mat(n, dt)]),
                    _residual_check(_eig_resid, tol, "|A v - v w| / |A|"))
            elif op == "svd":
                add(op, dt, n, lambda n=n, dt=dt: (lambda a: L.svd(a, full_matrices=False), [_mat(n, dt)]),
                    check_svd(tol))
            elif op == "svdvals":
                add(op, dt, n, lambda n=n, dt=dt: (lambda a: L.svd(a, compute_uv=False), [_mat(n, dt)]), close(tol))
            elif op == "svd_batched":
                add(op, dt, n, lambda n=n, dt=dt: (lambda a: L.svd(a, full_matrices=False),
                                                    [np.stack([_mat(n, dt, seed=i) for i in range(64)])]),
                    _residual_check(_svd_batched_resid, tol, "max |U S Vt - A| / |A|"))
            elif op == "inv":
                add(op, dt, n, lambda n=n, dt=dt: (L.inv, [_mat(n, dt)]), close(tol))
            elif op == "det":
                add(op, dt, n, lambda n=n, dt=dt: (L.det, [(_mat(n, dt) / 2).astype(_DT[dt])]), close(tol))
            elif op == "slogdet":
                add(op, dt, n, lambda n=n, dt=dt: (lambda a: tuple(L.slogdet(a)), [_mat(n, dt)]), close(tol))
            elif op == "solve_triangular":
                add(op, dt, n, lambda n=n, dt=dt: (lambda a, b: jsl.solve_triangular(a, b, lower=True),
                                                    [np.tril(_mat(n, dt)), _rhs(n, dt)]), close(tol))
            elif op == "expm":
                add(op, dt, n, lambda n=n, dt=dt: (jsl.expm, [((_mat(n, dt) - 2 * np.eye(n)) * 0.5).astype(_DT[dt])]),
                    close(tol * 10))
    return out


# ---------------------------------------------------------------- nn building blocks


def _nn_group():
    import jax
    import jax.numpy as jnp

    def attn(q, k, v):
        s = jnp.einsum("bhqd,bhkd->bhqk", q, k) / np.sqrt(q.shape[-1])
        return jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(s, axis=-1), v)

    def attn_fwd_bwd(q, k, v, ct):
        o, vjp = jax.vjp(attn, q, k, v)
        return (o,) + vjp(ct)

    def qkv():
        return [_normal(8, 8, 512, 64, seed=i) for i in range(3)]

    def sdpa(q, k, v):  # jax.nn's fused-attention entry point, (B, T, N, H) layout
        return jax.nn.dot_product_attention(q, k, v, is_causal=True, implementation="xla")

    def ln_gelu(x, g, b):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return jax.nn.gelu((x - mu) * jax.lax.rsqrt(var + 1e-5) * g + b)

    def rms(x, g):
        return x * jax.lax.rsqrt((x * x).mean(-1, keepdims=True) + 1e-6) * g

    def xent(logits, labels):
        return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), labels[:, None], axis=1))

    return [
        W("bmm_512x64x64x64", "nn", lambda: (lambda a, b: a @ b, [_normal(512, 64, 64), _normal(512, 64, 64, seed=1)]),
          close(1e-4)),
        W("attention_fwd_b8h8s512d64", "nn", lambda: (attn, qkv()), close(1e-4)),
        W("attention_fwd_bwd_b8h8s512d64", "nn", lambda: (attn_fwd_bwd, qkv() + [_normal(8, 8, 512, 64, seed=3)]),
          close(1e-3)),
        W("dot_product_attention_causal_b8s512h8d64", "nn",
          lambda: (sdpa, [_normal(8, 512, 8, 64, seed=i) for i in range(3)]), close(1e-4)),
        W("layernorm_gelu_4096x1024", "nn",
          lambda: (ln_gelu, [_normal(4096, 1024), _normal(1024, seed=1), _normal(1024, seed=2)]), close(1e-4)),
        W("rmsnorm_4096x1024", "nn", lambda: (rms, [_normal(4096, 1024), _normal(1024, seed=1)]), close(1e-4)),
        W("softmax_8x8x512x512", "nn", lambda: (lambda x: jax.nn.softmax(x, axis=-1), [_normal(8, 8, 512, 512)]),
          close(1e-4)),
        W("logsumexp_4096x1024", "nn", lambda: (lambda x: jax.nn.logsumexp(x, axis=-1), [_normal(4096, 1024)]),
          close(1e-5)),
        W("xent_loss_grad_1024x32k", "nn",
          lambda: (jax.value_and_grad(xent), [_normal(1024, 32768), _rng(3).integers(0, 32768, 1024, dtype=np.int32)]),
          close(1e-4)),
        W("argmax_4096x4096_axis1", "nn", lambda: (lambda x: jnp.argmax(x, axis=1), [_normal(4096, 4096)]), close(0)),
        W("transpose_4096x4096", "nn", lambda: (lambda x: x.T + 0, [_normal(4096, 4096)]), close(0)),
        W("concat_pad_slice_4x1024x1024", "nn",
          lambda: (lambda a, b: jnp.pad(jnp.concatenate([a, b], axis=1), ((0, 0), (1, 1), (2, 2)))[:, ::2, 1:-1],
                   [_normal(4, 1024, 1024), _normal(4, 1024, 1024, seed=1)]), close(0)),
    ]


# ---------------------------------------------------------------- convolution and pooling


def _conv(x, w, stride=1, padding="SAME", groups=1):
    import jax

    return jax.lax.conv_general_dilated(x, w, (stride, stride), padding, dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                        feature_group_count=groups)


def _conv_group():
    import jax

    def cw(k, cin, cout, seed=1):
        return (_normal(k, k, cin, cout, seed=seed) / np.sqrt(k * k * cin)).astype(np.float32)

    def conv_bwd(x, w, ct):
        _, vjp = jax.vjp(lambda x, w: _conv(x, w), x, w)
        return vjp(ct)

    def first_layer_grad(x, w, ct):  # a first layer's input needs no gradient
        return jax.grad(lambda w: (_conv(x, w) * ct).sum())(w)

    def maxpool(x):
        return jax.lax.reduce_window(x, -np.inf, jax.lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME")

    def avgpool(x):
        return jax.lax.reduce_window(x, 0.0, jax.lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4

    def conv1d(x, w):
        return jax.lax.conv_general_dilated(x, w, (1,), "SAME", dimension_numbers=("NWC", "WIO", "NWC"))

    def convT(x, w):
        return jax.lax.conv_transpose(x, w, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))

    return [
        W("conv_1to32_28x28_b64", "conv", lambda: (_conv, [_normal(64, 28, 28, 1), cw(3, 1, 32)]), close(1e-4)),
        W("conv_1to32_28x28_b64_wgrad", "conv",
          lambda: (first_layer_grad, [_normal(64, 28, 28, 1), cw(3, 1, 32), _normal(64, 28, 28, 32, seed=2)]),
          close(1e-4)),
        W("conv_3to64_224x224_7x7s2_b4", "conv",
          lambda: (lambda x, w: _conv(x, w, 2), [_normal(4, 224, 224, 3), cw(7, 3, 64)]), close(1e-4)),
        W("conv_3to64_224x224_3x3_b2", "conv", lambda: (_conv, [_normal(2, 224, 224, 3), cw(3, 3, 64)]), close(1e-4)),
        W("conv_32to32_28x28_b64_bwd", "conv",
          lambda: (conv_bwd, [_normal(64, 28, 28, 32), cw(3, 32, 32), _normal(64, 28, 28, 32, seed=2)]), close(1e-4)),
        W("depthwise_conv_3x3_56x56x128_b8", "conv",
          lambda: (lambda x, w: _conv(x, w, groups=128), [_normal(8, 56, 56, 128), cw(3, 1, 128)]), close(1e-4)),
        W("conv1d_k5_4096x64_b16", "conv",
          lambda: (conv1d, [_normal(16, 4096, 64), (_normal(5, 64, 64, seed=1) / 18).astype(np.float32)]),
          close(1e-4)),
        W("conv_transpose_2x_16x16x64to32_b32", "conv",
          lambda: (convT, [_normal(32, 16, 16, 64), cw(3, 64, 32)]), close(1e-4)),
        W("maxpool_3x3s2_56x56x64_b32", "conv", lambda: (maxpool, [_normal(32, 56, 56, 64)]), close(0)),
        W("avgpool_2x2_56x56x64_b32", "conv", lambda: (avgpool, [_normal(32, 56, 56, 64)]), close(1e-6)),
        W("maxpool_grad_3x3s2_56x56x64_b32", "conv",
          lambda: (jax.grad(lambda x: (maxpool(x) ** 2).sum()), [_normal(32, 56, 56, 64)]), close(1e-5)),
    ]


# ---------------------------------------------------------------- dtypes


def _dtype_group():
    import jax
    import jax.numpy as jnp

    M = 1 << 24
    ri = lambda *s, lo=-1000, hi=1000, seed=0: _rng(seed).integers(lo, hi, s, dtype=np.int32)  # noqa: E731

    def ew(x, y):
        return jnp.tanh(x * 2 + 1) * y

    def mm(dt, acc=None):
        def make():
            a = _normal(1024, 1024).astype(dt)
            b = _normal(1024, 1024, seed=1).astype(dt)
            return (lambda a, b: jnp.matmul(a, b, preferred_element_type=acc)), [a, b]

        return make

    def i8mm():
        a = _rng(0).integers(-128, 128, (512, 512), dtype=np.int8)
        b = _rng(1).integers(-128, 128, (512, 512), dtype=np.int8)
        return (lambda a, b: jnp.matmul(a, b, preferred_element_type=jnp.int32)), [a, b]

    return [
        W("int32_add_mul_16M", "dtype", lambda: (lambda a, b: a * b + (a ^ b), [ri(M), ri(M, seed=1)]), close(0)),
        W("int32_div_rem_16M", "dtype",
          lambda: (lambda a, b: (a // b, a % b), [ri(M), ri(M, lo=1, hi=100, seed=1)]), close(0)),
        W("int32_sum_4096x4096", "dtype", lambda: (lambda a: a.sum(axis=1), [ri(4096, 4096)]), close(0)),
        W("int32_max_axis0_4096x4096", "dtype", lambda: (lambda a: a.max(axis=0), [ri(4096, 4096)]), close(0)),
        W("uint32_shift_xor_16M", "dtype",
          lambda: (lambda a: (a << 13) ^ (a >> 7) ^ (a * np.uint32(2654435761)),
                   [_rng(0).integers(0, 2**32, M, dtype=np.uint32)]), close(0)),
        W("int8_matmul_512_to_int32", "dtype", i8mm, close(0)),
        W("bf16_elementwise_16M", "dtype",
          lambda: (ew, [_normal(M).astype(jnp.bfloat16), _normal(M, seed=1).astype(jnp.bfloat16)]), close(1e-2)),
        W("f16_elementwise_16M", "dtype",
          lambda: (ew, [_normal(M).astype(np.float16), _normal(M, seed=1).astype(np.float16)]), close(2e-3)),
        W("bf16_matmul_1024_f32acc", "dtype", mm(jnp.bfloat16, jnp.float32), close(1e-3)),
        W("f16_matmul_1024", "dtype", mm(np.float16), close(1e-2)),
        W("convert_f32_bf16_f32_16M", "dtype",
          lambda: (lambda x: x.astype(jnp.bfloat16).astype(jnp.float32), [_normal(M)]), close(0)),
        W("convert_f32_int32_16M", "dtype", lambda: (lambda x: (x * 1000).astype(jnp.int32), [_normal(M)]), close(0)),
        W("convert_f32_f16_16M", "dtype", lambda: (lambda x: x.astype(jnp.float16), [_normal(M)]), close(0)),
        W("where_compare_16M", "dtype",
          lambda: (lambda x, y: jnp.where(x > y, x, jnp.abs(y)), [_normal(M), _normal(M, seed=1)]), close(0)),
        W("f64_elementwise_4M", "dtype",
          lambda: (ew, [_normal(1 << 22, dtype=np.float64), _normal(1 << 22, seed=1, dtype=np.float64)]),
          close(1e-12), x64=True),
        W("int64_cumsum_1M", "dtype",
          lambda: (jnp.cumsum, [_rng(0).integers(-2**40, 2**40, 1 << 20, dtype=np.int64)]), close(0), x64=True),
    ]


# ---------------------------------------------------------------- training steps


def _adamw(params, grads, m, v, t, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8, wd=1e-4):
    import jax
    import jax.numpy as jnp

    m = jax.tree.map(lambda m, g: b1 * m + (1 - b1) * g, m, grads)
    v = jax.tree.map(lambda v, g: b2 * v + (1 - b2) * g * g, v, grads)
    c1, c2 = 1 - b1 ** t, 1 - b2 ** t
    params = jax.tree.map(lambda p, m, v: p - lr * (m / c1 / (jnp.sqrt(v / c2) + eps) + wd * p), params, m, v)
    return params, m, v


def _mlp_params(sizes, seed=0):
    r = _rng(seed)
    ps = []
    for i, o in zip(sizes[:-1], sizes[1:]):
        ps.append({"w": (r.standard_normal((i, o)) / np.sqrt(i)).astype(np.float32), "b": np.zeros(o, np.float32)})
    return ps


def _mnist_batch(b=128, seed=5):
    r = _rng(seed)
    return r.standard_normal((b, 28, 28, 1)).astype(np.float32), r.integers(0, 10, b).astype(np.int32)


def _train_group():
    import jax
    import jax.numpy as jnp

    def xent(logits, y):
        return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), y[:, None], axis=1))

    def mlp_adamw():
        ps = _mlp_params((784, 512, 512, 10))
        m = jax.tree.map(np.zeros_like, ps)
        x, y = _mnist_batch()

        def loss(ps, x, y):
            h = x.reshape(x.shape[0], -1)
            for p in ps[:-1]:
                h = jax.nn.relu(h @ p["w"] + p["b"])
            return xent(h @ ps[-1]["w"] + ps[-1]["b"], y)

        def step(ps, m, v, x, y):
            l, g = jax.value_and_grad(loss)(ps, x, y)
            return (l,) + _adamw(ps, g, m, v, 1.0)

        return step, [ps, m, m, x, y]

    def cnn_bn_adamw():
        r = _rng(0)
        ps = {"c1": (r.standard_normal((3, 3, 1, 32)) / 3).astype(np.float32),
              "g1": np.ones(32, np.float32), "b1": np.zeros(32, np.float32),
              "c2": (r.standard_normal((3, 3, 32, 64)) / 17).astype(np.float32),
              "g2": np.ones(64, np.float32), "b2": np.zeros(64, np.float32),
              "w": (r.standard_normal((7 * 7 * 64, 10)) / 56).astype(np.float32), "b": np.zeros(10, np.float32)}
        stats = {"m1": np.zeros(32, np.float32), "v1": np.ones(32, np.float32),
                 "m2": np.zeros(64, np.float32), "v2": np.ones(64, np.float32)}
        m = jax.tree.map(np.zeros_like, ps)
        x, y = _mnist_batch()

        def bn(h, g, b):
            mu, var = h.mean((0, 1, 2)), h.var((0, 1, 2))
            return (h - mu) * jax.lax.rsqrt(var + 1e-5) * g + b, mu, var

        def pool(h):
            return jax.lax.reduce_window(h, -np.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")

        def loss(ps, x, y):
            h, mu1, v1 = bn(_conv(x, ps["c1"]), ps["g1"], ps["b1"])
            h = pool(jax.nn.relu(h))
            h, mu2, v2 = bn(_conv(h, ps["c2"]), ps["g2"], ps["b2"])
            h = pool(jax.nn.relu(h))
            return xent(h.reshape(h.shape[0], -1) @ ps["w"] + ps["b"], y), (mu1, v1, mu2, v2)

        def step(ps, stats, m, v, x, y):
            (l, (mu1, v1, mu2, v2)), g = jax.value_and_grad(loss, has_aux=True)(ps, x, y)
            new = {"m1": 0.9 * stats["m1"] + 0.1 * mu1, "v1": 0.9 * stats["v1"] + 0.1 * v1,
                   "m2": 0.9 * stats["m2"] + 0.1 * mu2, "v2": 0.9 * stats["v2"] + 0.1 * v2}
            return (l, new) + _adamw(ps, g, m, v, 1.0)

        return step, [ps, stats, m, m, x, y]

    def flax_cnn():
        import flax.linen as nn
        import optax

        class CNN(nn.Module):
            @nn.compact
            def __call__(self, x, train=True):
                for c in (32, 64):
                    # No conv bias before BatchNorm (which removes it): its
                    # gradient is 0 up to rounding, and adam would turn that
                    # noise into O(learning rate) updates no check can compare.
                    x = nn.Conv(c, (3, 3), use_bias=False)(x)
                    x = nn.BatchNorm(use_running_average=not train, momentum=0.9)(x)
                    x = nn.max_pool(nn.relu(x), (2, 2), (2, 2))
                return nn.Dense(10)(x.reshape(x.shape[0], -1))

        model = CNN()
        x, y = _mnist_batch()
        var = model.init(jax.random.PRNGKey(0), x[:1])
        tx = optax.adamw(1e-3)
        opt = tx.init(var["params"])

        def step(params, bstats, opt, x, y):
            def loss(p):
                logits, upd = model.apply({"params": p, "batch_stats": bstats}, x, mutable=["batch_stats"])
                return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean(), upd

            (l, upd), g = jax.value_and_grad(loss, has_aux=True)(params)
            u, opt = tx.update(g, opt, params)
            return l, optax.apply_updates(params, u), upd["batch_stats"], opt

        host = lambda t: jax.tree.map(np.asarray, t)  # noqa: E731
        return step, [host(var["params"]), host(var["batch_stats"]), host(opt), x, y]

    def optax_mlp():
        import optax

        ps = _mlp_params((784, 512, 512, 10))
        x, y = _mnist_batch()
        tx = optax.adam(1e-3)
        opt = jax.tree.map(np.asarray, tx.init(ps))

        def step(ps, opt, x, y):
            def loss(ps):
                h = x.reshape(x.shape[0], -1)
                for p in ps[:-1]:
                    h = jax.nn.relu(h @ p["w"] + p["b"])
                return optax.softmax_cross_entropy_with_integer_labels(h @ ps[-1]["w"] + ps[-1]["b"], y).mean()

            l, g = jax.value_and_grad(loss)(ps)
            u, opt = tx.update(g, opt, ps)
            return l, optax.apply_updates(ps, u), opt

        return step, [ps, opt, x, y]

    def equinox_mlp():
        import equinox as eqx

        model = eqx.nn.MLP(784, 10, 512, 2, key=jax.random.PRNGKey(0))
        params, static = eqx.partition(model, eqx.is_array)
        params = jax.tree.map(np.asarray, params)
        x, y = _mnist_batch()

        def step(params, x, y):
            def loss(p):
                m = eqx.combine(p, static)
                logits = jax.vmap(m)(x.reshape(x.shape[0], -1))
                return xent(logits, y)

            l, g = jax.value_and_grad(loss)(params)
            return l, jax.tree.map(lambda p, d: p - 0.01 * d, params, g)

        return step, [params, x, y]

    return [
        W("mlp_adamw_step_784_512_512_10", "train", mlp_adamw, close(1e-3)),
        W("cnn_bn_adamw_step_mnist_b128", "train", cnn_bn_adamw, close(1e-3)),
        W("flax_cnn_bn_optax_adamw_step", "train", flax_cnn, close(1e-3), needs=("flax", "optax")),
        W("optax_mlp_adam_step", "train", optax_mlp, close(1e-3), needs=("optax",)),
        W("equinox_mlp_sgd_step", "train", equinox_mlp, close(1e-3), needs=("equinox",)),
    ]


def all_workloads() -> list[BroadWorkload]:
    out = []
    for g in (_sort_group, _cumulative_group, _control_group, _gather_group, _random_group, _fft_group,
              _linalg_group, _nn_group, _conv_group, _dtype_group, _train_group):
        out += g()
    names = [w.name for w in out]
    assert len(names) == len(set(names)), "duplicate workload names"
    return out
