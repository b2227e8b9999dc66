"""jax.random: threefry bit generation must be bit-exact, samplers equal
within the tolerance table.  Keys are passed as raw uint32[2] data so the
same key reaches both backends."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from diffutil import BF16, check, dname, x64_for

R = jax.random


def _key(seed):
    return np.array([0, seed], dtype=np.uint32)


RANDOM = [
    ("split_fold_in", lambda k, dt: (R.split(k, 3), R.fold_in(k, 7), R.split(R.fold_in(k, 2))[1]),
     [np.uint32], "exact"),
    ("bits", lambda k, dt: (R.bits(k, (4, 5), dt), R.bits(k, (0,), dt)), [np.uint8, np.uint32, np.uint64], "exact"),
    # Sizes past the threefry kernel's vector blocks, tails and worker split.
    ("bits_large", lambda k, dt: (R.bits(k, (1000, 37), dt), R.bits(R.fold_in(k, 1), (70001,), dt)),
     [np.uint32], "exact"),
    ("uniform", lambda k, dt: (R.uniform(k, (3, 7), dt), R.uniform(k, (), dt, -2, 5)),
     [BF16, np.float16, np.float32, np.float64], "exact"),
    ("normal", lambda k, dt: R.normal(k, (4, 6), dt), [BF16, np.float32, np.float64, np.complex64], "transc"),
    ("randint", lambda k, dt: (R.randint(k, (5, 4), -7, 40, dt), R.randint(k, (9,), 0, 3, dt)),
     [np.int8, np.int32, np.uint32, np.int64], "exact"),
    ("bernoulli", lambda k, dt: R.bernoulli(k, jnp.array([0.1, 0.5, 0.9], dt), (4, 3)), [np.float32], "exact"),
    ("permutation_choice", lambda k, dt: (R.permutation(k, 10), R.permutation(k, jnp.arange(12, dtype=dt).reshape(4, 3)),
                                          R.choice(k, 20, (5,), replace=False),
                                          R.choice(k, jnp.arange(6, dtype=dt), (3, 2), p=jnp.arange(6.) / 15)),
     [np.int32, np.float32], "exact"),
    ("categorical_gumbel", lambda k, dt: (R.categorical(k, jnp.log(jnp.arange(1, 6, dtype=dt)), shape=(7,)),
                                          R.gumbel(k, (3, 4), dt)), [np.float32, np.float64], "transc"),
    ("exponential_laplace_logistic", lambda k, dt: (R.exponential(k, (5,), dt), R.laplace(k, (5,), dt),
                                                    R.logistic(k, (5,), dt)), [np.float32, np.float64], "transc"),
    ("truncated_normal", lambda k, dt: R.truncated_normal(k, -1.5, 2.0, (4, 4), dt), [np.float32, np.float64],
     "special"),
    ("gamma_beta", lambda k, dt: (R.gamma(k, jnp.array([0.5, 1.0, 3.0], dt), (2, 3), dt),
                                  R.beta(k, 2.0, 3.0, (4,), dt)), [np.float32], "special"),
    ("poisson", lambda k, dt: R.poisson(k, jnp.array([0.5, 4.0, 30.0]), (2, 3), dt), [np.int32], "exact"),
    ("dirichlet", lambda k, dt: R.dirichlet(k, jnp.array([1.0, 2.0, 0.5], dt), (3,), dt), [np.float32], "special"),
    ("multivariate_normal", lambda k, dt: R.multivariate_normal(
        k, jnp.zeros(3, dt), jnp.array([[2.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 0.5]], dt), (4,), dt,
        method="cholesky"), [np.float32, np.float64], "linalg"),
    ("ball_orthogonal", lambda k, dt: (R.ball(k, 3, shape=(2,), dtype=dt), R.rademacher(k, (6,), jnp.int32)),
     [np.float32], "transc"),
]


@pytest.mark.parametrize("name,fn,dt,cls", [pytest.param(n, f, d, c, id=f"{n}-{dname(d)}")
                                            for n, f, dts, c in RANDOM for d in dts])
def test_random(name, fn, dt, cls):
    with x64_for(dt):
        check(lambda k: fn(k, dt), _key(42), cls=cls)


def test_random_vmap_over_keys():
    keys = np.stack([_key(i) for i in range(5)])
    check(lambda ks: (jax.vmap(lambda k: R.normal(k, (3,)))(ks), jax.vmap(lambda k: R.split(k))(ks)), keys,
          cls="transc")


def test_random_bits_vmapped_keys():
    # One key per sample: the threefry loop carries key arrays (runs of 1, 2 and 1500 elements per key).
    keys = R.split(_key(5), 1000)
    check(lambda ks: (jax.vmap(lambda k: R.bits(k, (2,)))(ks), jax.vmap(lambda k: R.bits(k, (4,)))(ks),
                      jax.vmap(lambda k: R.bits(k, (3000,)))(ks[:5]), jax.vmap(lambda k: R.uniform(k, (3,)))(ks)),
          np.asarray(keys), cls="exact")


def test_random_new_style_keys():
    def f(seed):
        k = R.key(seed)
        k1, k2 = R.split(k)
        return R.key_data(k1), R.uniform(k2, (4,)), R.key_data(R.fold_in(k, 3))
    check(f, np.uint32(7), cls="exact")


@pytest.mark.parametrize("impl", ["threefry2x32", "rbg", "unsafe_rbg"])
def test_random_impls(impl):
    def f(seed):
        k = R.key(seed, impl=impl)
        return R.key_data(R.split(k)), R.bits(k, (8,), jnp.uint32), R.normal(R.fold_in(k, 1), (3,))
    check(f, np.uint32(3), cls="transc")


def test_random_poisson_large():
    # Past the vector blocks: the rejection sampler's lgamma table gathers
    # (16-entry takes), its f32<->s32 bitcasts fused with their neighbours and
    # its arithmetic shifts run the vector paths; the counts are XLA's.
    def f(k):
        return (R.poisson(k, 3.0, (1000,), jnp.int32), R.poisson(k, jnp.linspace(0.1, 80.0, 777), (777,), jnp.int32))
    check(f, _key(11), cls="exact")
