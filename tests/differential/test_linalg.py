"""jnp.linalg and jax.scipy.linalg on well-conditioned inputs.  Results
that are unique only up to signs/phases (QR, eigenvectors, SVD vectors) are
compared through invariants (reconstructions, Gram matrices, values)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import jax.scipy.linalg as sla
import numpy as np
import pytest

from diffutil import check, dname, rng_for, run_both, x64_for

L = jnp.linalg
DTYPES = [np.float32, np.float64, np.complex64, np.complex128]
REAL = [np.float32, np.float64]


def _mat(rng, shape, dt):
    x = rng.standard_normal(shape)
    if np.dtype(dt).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    n = shape[-1]
    return (x + 2 * n * np.eye(n) if shape[-2] == n else x).astype(dt)  # diagonally dominant


def _spd(rng, shape, dt):
    x = _mat(rng, shape, dt)
    return (x @ np.conj(np.swapaxes(x, -1, -2)) / shape[-1] + np.eye(shape[-1])).astype(dt)


def _qr_inv(a):
    q, r = L.qr(a)
    return q @ r, jnp.abs(jnp.diagonal(r, axis1=-2, axis2=-1)), jnp.conj(jnp.swapaxes(q, -1, -2)) @ q


def _eigh_inv(a):
    w, v = L.eigh(a)
    return w, (v * w[..., None, :]) @ jnp.conj(jnp.swapaxes(v, -1, -2)), L.eigvalsh(a)


def _svd_inv(a):
    u, s, vh = L.svd(a, full_matrices=False)
    return s, (u * s[..., None, :]) @ vh, L.svd(a, compute_uv=False), L.norm(a, 2, axis=(-2, -1))


def _lu(a):
    if a.ndim > 2:  # jax 0.11.2's jax.scipy.linalg.lu takes one matrix only
        return jax.vmap(_lu)(a)
    p, l, u = sla.lu(a)
    lu, piv = sla.lu_factor(a)
    return p, l, u, lu, piv, sla.lu_solve((lu, piv), a[..., :, :1])


def _eig_inv(a):
    w = L.eigvals(a)
    return jnp.sort_complex(w)


LINALG = [
    ("cholesky", lambda a: L.cholesky(a), "spd", DTYPES),
    ("inv", L.inv, "gen", DTYPES),
    ("solve", lambda a: (L.solve(a, a[..., :2] + 1), L.solve(a[0] if a.ndim > 2 else a, a[..., 0].reshape(-1)[:4])),
     "gen", DTYPES),
    ("det_slogdet", lambda a: (L.det(a), *L.slogdet(a)), "gen", DTYPES),
    ("qr", _qr_inv, "gen", DTYPES),
    ("qr_tall", lambda a: _qr_inv(jnp.concatenate([a, a[..., :2, :] * 2], axis=-2)), "gen", REAL),
    ("eigh", _eigh_inv, "spd", DTYPES),
    ("svd", _svd_inv, "gen", DTYPES),
    ("svd_wide", lambda a: _svd_inv(a[..., :3, :]), "gen", REAL),
    ("lstsq_pinv", lambda a: (L.lstsq(a.reshape(-1, 4)[:, :3], a.reshape(-1, 4)[:, 0])[0], L.pinv(a)), "gen", REAL),
    ("matrix_power", lambda a: (L.matrix_power(a / 8, 3), L.matrix_power(a, 0), L.matrix_power(a, -2)), "gen",
     REAL),
    ("lu", _lu, "gen", DTYPES),
    ("solve_triangular", lambda a: (sla.solve_triangular(jnp.triu(a), a[..., 1:3], lower=False),
                                    sla.solve_triangular(jnp.tril(a), a[..., :, :1], lower=True, trans=1),
                                    sla.solve_triangular(jnp.tril(a), a[..., :, :1], lower=True, unit_diagonal=True)),
     "gen", DTYPES),
    ("cho_solve", lambda a: sla.cho_solve(sla.cho_factor(a), a[..., :2]), "spd", REAL),
    ("expm", lambda a: sla.expm(a / (4 * a.shape[-1])), "gen", REAL),
    ("eigvals_nonsym", _eig_inv, "gen", [np.float32, np.float64]),
    ("cond_rank", lambda a: (L.cond(a), L.matrix_rank(a), L.norm(a, "fro", axis=(-2, -1)), L.norm(a, "nuc", axis=(-2, -1))), "gen", REAL),
]


@pytest.mark.parametrize("name,fn,kind,dt", [pytest.param(n, f, k, d, id=f"{n}-{dname(d)}")
                                             for n, f, k, dts in LINALG for d in dts])
def test_linalg(name, fn, kind, dt):
    """One matrix and a batch of two, in one program."""
    with x64_for(dt):
        rng = rng_for("linalg", name, dname(dt))
        make_a = _spd if kind == "spd" else _mat
        single, batched = make_a(rng, (4, 4), dt), make_a(rng, (2, 4, 4), dt)
        check(lambda a, b: {"single": fn(a), "batched": fn(b)}, single, batched, cls="linalg")


@pytest.mark.parametrize("name", ["inv", "det", "solve", "cholesky", "eigh"])
def test_linalg_grad(name):
    fns = {
        "inv": lambda a: jnp.sum(L.inv(a) ** 2),
        "det": L.det,
        "solve": lambda a: jnp.sum(L.solve(a, jnp.arange(4.0))),
        "cholesky": lambda a: jnp.sum(L.cholesky(a @ a.T + jnp.eye(4))),
        "eigh": lambda a: jnp.sum(L.eigvalsh(a + a.T) ** 2),
    }
    a = _mat(rng_for("linalg_grad", name), (4, 4), np.float32)
    check(jax.grad(fns[name]), a, cls="linalg")


def test_linalg_vmap():
    a = _spd(rng_for("linalg_vmap"), (3, 4, 4), np.float32)
    check(lambda a: (jax.vmap(L.inv)(a), jax.vmap(L.cholesky)(a), jax.vmap(lambda m: L.solve(m, m[0]))(a)), a,
          cls="linalg")


def _schur_eigs(t):
    """Eigenvalues read off a (quasi-)triangular Schur factor."""
    n = t.shape[0]
    if np.iscomplexobj(t):
        return np.diag(t).astype(np.complex128)
    w, i = [], 0
    while i < n:
        if i + 1 < n and t[i + 1, i] != 0:
            w += list(np.linalg.eigvals(t[i:i + 2, i:i + 2].astype(np.float64)))
            i += 2
        else:
            w.append(complex(t[i, i]))
            i += 1
    return np.array(w)


@pytest.mark.parametrize("n", [4, 15, 50, 100])
@pytest.mark.parametrize("dt", DTYPES, ids=dname)
def test_schur(n, dt):
    """jax.scipy.linalg.schur on JAX's testSchur shapes: a Schur form is
    unique only up to eigenvalue order, signs/phases of the Schur vectors and
    the form of real 2×2 blocks, and LAPACK's choices among those hang on
    rounding-level decisions, so gojax is checked for a valid form (in the
    input's precision) and XLA:CPU's eigenvalues."""
    with x64_for(dt):
        rng = rng_for("linalg", "schur", n, dname(dt))
        x = 3 * rng.standard_normal((n, n))
        if np.dtype(dt).kind == "c":
            x = x + 3j * rng.standard_normal((n, n))
        a = x.astype(dt)
        (t, z), (tc, zc) = run_both(sla.schur, a)
    assert t.dtype == z.dtype == np.dtype(dt)
    eps = np.finfo(dt).eps
    a64, t64, z64 = (m.astype(np.complex128) for m in (a, t, z))
    anorm = np.linalg.norm(a64)
    assert np.abs(z64 @ t64 @ z64.conj().T - a64).max() <= 50 * n * eps * anorm
    assert np.abs(z64.conj().T @ z64 - np.eye(n)).max() <= 50 * n * eps
    below = np.tril(t, -2) if np.dtype(dt).kind == "f" else np.tril(t, -1)
    assert not below.any()
    if np.dtype(dt).kind == "f":
        sub = np.diag(t, -1)
        assert not (sub[1:] != 0)[sub[:-1] != 0].any(), "adjacent 2×2 blocks overlap"
        for i in np.flatnonzero(sub):
            # LAPACK's standardized block: equal diagonal, off-diagonals of
            # opposite signs.
            assert t[i, i] == t[i + 1, i + 1] and np.sign(t[i, i + 1]) == -np.sign(t[i + 1, i])
    w, wc = np.sort_complex(_schur_eigs(t)), np.sort_complex(_schur_eigs(tc))
    np.testing.assert_allclose(w, wc, rtol=0, atol=1e3 * eps * anorm)


def _f32_factor_outputs(a, b):
    lu, piv, perm = jax.lax.linalg.lu(a)
    tri = jnp.tril(a) + a.shape[-1] * jnp.eye(a.shape[-1], dtype=a.dtype)
    return {"lu": lu, "piv": piv, "perm": perm, "solve": L.solve(a, b), "inv": L.inv(a),
            "chol": L.cholesky(a @ a.T / a.shape[-1] + jnp.eye(a.shape[-1], dtype=a.dtype)),
            "trsm": sla.solve_triangular(tri, b, lower=True), "trsm_t": sla.solve_triangular(tri, b, lower=True,
                                                                                         trans=1)}


@pytest.mark.parametrize("n", [64, 150, 257])
def test_f32_factorizations_blocked(n):
    """f32 LU, solve, inv, Cholesky and triangular solves at orders past the
    recursion's base, computed in single precision: LAPACK-style backward
    errors from a float64 reference, partial pivoting's rule, and XLA:CPU's
    results within the forward error those bounds allow."""
    rng = rng_for("linalg_f32_blocked", str(n))
    a = rng.standard_normal((n, n)).astype(np.float32)  # not diagonally dominant: pivoting matters
    b = rng.standard_normal((n, 3)).astype(np.float32)
    got, want = run_both(_f32_factor_outputs, a, b)
    eps = np.finfo(np.float32).eps
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    lu = got["lu"].astype(np.float64)
    lo, up = np.tril(lu, -1) + np.eye(n), np.triu(lu)
    # Each pivot is the largest magnitude of its column in the partially
    # reduced matrix, whose entries below it are L(i, k)·U(k, k).
    assert np.abs(lo).max() <= 1.0, "partial pivoting keeps |L| <= 1"
    assert np.array_equal(np.sort(got["perm"]), np.arange(n))
    pa = a64[got["perm"]]
    assert np.linalg.norm(pa - lo @ up) / (n * eps * np.linalg.norm(a64)) < 8
    x = got["solve"].astype(np.float64)
    assert np.linalg.norm(a64 @ x - b64) / (n * eps * (np.linalg.norm(a64) * np.linalg.norm(x) + np.linalg.norm(b64))) < 8
    cond = np.linalg.cond(a64)
    for k in ("solve", "inv"):
        rel = np.linalg.norm(got[k].astype(np.float64) - want[k]) / np.linalg.norm(want[k])
        assert rel < 16 * n * eps * cond, (k, rel, cond)
    inv = got["inv"].astype(np.float64)
    assert np.linalg.norm(a64 @ inv - np.eye(n)) / (n * eps * cond) < 8
    s = a64 @ a64.T / n + np.eye(n)
    c = got["chol"].astype(np.float64)
    assert np.array_equal(c, np.tril(c))
    assert np.linalg.norm(c @ c.T - s) / (n * eps * np.linalg.norm(s)) < 4
    np.testing.assert_allclose(got["chol"], want["chol"], rtol=0, atol=16 * n * eps * np.abs(want["chol"]).max())
    tri = np.tril(a64) + n * np.eye(n)
    for k, m in (("trsm", tri), ("trsm_t", tri.T)):
        y = got[k].astype(np.float64)
        assert np.linalg.norm(m @ y - b64) / (n * eps * (np.linalg.norm(m) * np.linalg.norm(y) + np.linalg.norm(b64))) < 4
        np.testing.assert_allclose(got[k], want[k], rtol=0, atol=16 * n * eps * np.abs(want[k]).max())
