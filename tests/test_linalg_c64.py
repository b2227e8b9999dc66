"""complex64 LU, solve and triangular solves on gojax (factored natively in
complex64) checked by backward error, computed in complex128 with numpy:
‖residual‖ / (n·eps32·‖A‖·‖X‖) bounded, the LAPACK-style bound XLA:CPU's
own LAPACK calls meet (checked on the same inputs as the reference).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np
import pytest

EPS32 = np.finfo(np.float32).eps


def _c64(rng, *shape):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)


def _backward(a, x, b, n):
    a, x, b = (np.asarray(v).astype(np.complex128) for v in (a, x, b))
    r = a @ x - b
    return np.linalg.norm(r) / (n * EPS32 * np.linalg.norm(a) * np.linalg.norm(x))


def _on(device, f, *args):
    out = jax.jit(f)(*jax.device_put(args, device))
    return jax.tree.map(np.asarray, out)


@pytest.mark.parametrize("n", [5, 70, 257])
def test_c64_solve_and_lu_backward_error(gojax_device, cpu_device, n):
    rng = np.random.default_rng(n)
    a, b = _c64(rng, n, n), _c64(rng, n, 3)
    for dev in (gojax_device, cpu_device):
        x = _on(dev, jnp.linalg.solve, a, b)
        assert x.dtype == np.complex64
        assert _backward(a, x, b, n) < 8, dev
        p, l, u = _on(dev, jsl.lu, a)
        assert _backward(p, l @ u.astype(np.complex128), a, n) < 8, dev


@pytest.mark.parametrize("n", [5, 70, 257])
@pytest.mark.parametrize("trans", [0, 1, 2])
@pytest.mark.parametrize("lower", [True, False])
def test_c64_solve_triangular_backward_error(gojax_device, n, trans, lower):
    rng = np.random.default_rng(n + trans)
    a = _c64(rng, n, n) + np.complex64(2 * n) * np.eye(n, dtype=np.complex64)
    b = _c64(rng, n, 4)
    x = _on(gojax_device, lambda a, b: jsl.solve_triangular(a, b, trans=trans, lower=lower), a, b)
    t = np.tril(a) if lower else np.triu(a)
    op = {0: t, 1: t.T, 2: t.conj().T}[trans]
    assert _backward(op, x, b, n) < 8
