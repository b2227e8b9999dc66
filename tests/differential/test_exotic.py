"""Less common lowerings: sharding annotations and collectives on a
one-device mesh, pmap, optimization barriers, composites, approximate top-k,
platform_dependent, rng_uniform, and the rarer LAPACK-backed primitives
(QR with pivoting, householder_product, tridiagonal reduction, SVD via QR,
cholesky_update, Schur with vectors)."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

from diffutil import assert_same, check, cpu_device, gojax_device, make, rng_for, run_both

X = make(rng_for("exotic"), (4, 6), np.float32)


def _geqrf(a):
    from jax._src.lax.linalg import geqrf  # not re-exported; the primitive behind QR
    return geqrf(a)


def _mesh_run(fn, *args, cls="default"):
    """Runs fn (which takes a mesh) on a one-device mesh of each backend."""
    outs = []
    for dev in (cpu_device(), gojax_device()):
        mesh = Mesh(np.array([dev]), ("x",))
        put = [jax.device_put(a, NamedSharding(mesh, P())) for a in args]
        outs.append(jax.tree.map(np.asarray, jax.jit(fn(mesh))(*put)))
    assert_same(outs[1], outs[0], cls)


def test_sharding_constraint():
    _mesh_run(lambda mesh: lambda x: lax.with_sharding_constraint(
        jnp.sin(x) * 2, NamedSharding(mesh, P("x", None))) + 1, X, cls="transc")


def test_shard_map_collectives():
    def build(mesh):
        @functools.partial(jax.shard_map, mesh=mesh, in_specs=P("x"), out_specs=P("x"))
        def body(x):
            i = lax.axis_index("x")
            return (lax.psum(x, "x") + lax.pmax(x, "x") + i, lax.all_gather(x, "x", tiled=True),
                    lax.ppermute(x, "x", [(0, 0)]), lax.pmean(x * 2, "x"))
        return body
    _mesh_run(build, X)


def test_pmap_single_device():
    outs = []
    for dev in (cpu_device(), gojax_device()):
        f = jax.pmap(lambda x: (lax.psum(x, "i"), x * lax.axis_index("i") + 1), axis_name="i", devices=[dev])
        outs.append(jax.tree.map(np.asarray, f(X[None])))
    assert_same(outs[1], outs[0])


def test_optimization_barrier_and_remat_policy():
    def f(x):
        a, b = lax.optimization_barrier((jnp.sin(x), x * 2))
        g = jax.checkpoint(lambda v: jnp.tanh(v @ v.T) @ v, policy=jax.checkpoint_policies.dots_saveable)
        return a + b, jax.grad(lambda v: g(v).sum())(x)
    check(f, X, cls="special")


def test_composite():
    def f(x):
        comp = lax.composite(lambda v, *, k: jnp.tanh(v) * k, name="my.tanh_scale")
        return comp(x, k=3.0)
    check(f, X, cls="transc")


def test_approx_top_k():
    x = make(rng_for("approx"), (3, 50), np.float32)
    check(lambda v: (lax.approx_max_k(v, 5), lax.approx_min_k(v, 4, recall_target=0.95)), x, cls="exact")


def test_platform_dependent():
    check(lambda x: lax.platform_dependent(x, cpu=lambda v: v * 2, default=lambda v: v * 3), X, cls="exact")


def test_stop_gradient_and_named_scope():
    def loss(x):
        with jax.named_scope("outer"):
            return jnp.sum(jnp.sin(x) * lax.stop_gradient(jnp.cos(x)))
    check(jax.grad(loss), X, cls="transc")


def test_rng_uniform_shape():
    # stablehlo.rng: values are implementation-defined; compare shape/dtype
    # and bounds only.
    got, want = run_both(lambda a: lax.rng_uniform(a, a + 1.0, (5, 3)), np.float32(2.0))
    assert got.shape == want.shape == (5, 3) and got.dtype == want.dtype
    assert ((got >= 2.0) & (got < 3.0)).all(), got


LAPACK = [
    ("qr_pivoting", lambda a: (lambda q, r, p: (q @ r, jnp.abs(jnp.diagonal(r)), p))(
        *jax.scipy.linalg.qr(a, pivoting=True))),
    ("householder_product", lambda a: jnp.abs(lax.linalg.householder_product(*_geqrf(a)))),
    ("tridiagonal_reduction", lambda a: (lambda r: (jnp.abs(r[1]), jnp.abs(r[2])))(
        lax.linalg.tridiagonal(a @ a.T, lower=True))),
    ("svd_qr_algorithm", lambda a: lax.linalg.svd(a, full_matrices=False, compute_uv=False,
                                                  algorithm=lax.linalg.SvdAlgorithm.QR)),
    ("cholesky_update", lambda a: lax.linalg.cholesky_update(
        jnp.linalg.cholesky(a @ a.T + 4 * jnp.eye(a.shape[0])).T, a[:, 0])),
    ("schur_vectors", lambda a: (lambda t, z: (z @ t @ z.T, jnp.abs(jnp.diagonal(t))))(
        *lax.linalg.schur(a, compute_schur_vectors=True))),
    ("eigh_lower_upper", lambda a: (lax.linalg.eigh(a @ a.T, lower=False)[1] ** 2,
                                    lax.linalg.eigh(a + a.T, lower=True)[1] ** 2)),
]


@pytest.mark.parametrize("name,fn", LAPACK, ids=[n for n, _ in LAPACK])
def test_lapack_primitives(name, fn):
    a = make(rng_for("lapack", name), (5, 5), np.float32) + 3 * np.eye(5, dtype=np.float32)
    check(fn, a, cls="linalg")
