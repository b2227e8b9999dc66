"""Convolution shapes that take gojax's special paths (depthwise stencil,
base-dilated phases, few-input-feature packing), forward and through
jax.grad, checked against XLA:CPU in the same process.

Tolerance: both results are sums of K products each rounded in the
compute type, so each is within about K*eps of the exact value relative to
the sum of the products' magnitudes; that magnitude is the same program
run on |inputs| (on XLA:CPU), so the bound holds whatever the summation
order.
"""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
lax = jax.lax

DN = ("NHWC", "HWIO", "NHWC")


def _conv(stride=1, groups=1, padding="SAME"):
    def f(x, w):
        return lax.conv_general_dilated(x, w, (stride, stride), padding, dimension_numbers=DN,
                                        feature_group_count=groups)

    return f


def _conv_t(stride):
    def f(x, w):
        return lax.conv_transpose(x, w, (stride, stride), "SAME", dimension_numbers=DN)

    return f


CASES = {
    # name: (conv, x shape, w shape)
    "depthwise": (_conv(groups=16), (2, 9, 10, 16), (3, 3, 1, 16)),
    "depthwise-stride2": (_conv(stride=2, groups=16), (2, 9, 10, 16), (3, 3, 1, 16)),
    "depthwise-mult2": (_conv(groups=8, padding="VALID"), (2, 7, 8, 8), (3, 3, 1, 16)),
    "first-layer-7x7s2": (_conv(stride=2), (2, 30, 29, 3), (7, 7, 3, 8)),
    "one-input-feature": (_conv(), (3, 12, 14, 1), (3, 3, 1, 8)),
    "transpose-2x": (_conv_t(2), (2, 6, 5, 8), (3, 3, 8, 6)),
    "transpose-3x": (_conv_t(3), (1, 4, 5, 4), (4, 4, 4, 5)),
}

DTYPES = {"float32": np.float32, "bfloat16": jnp.bfloat16, "float16": np.float16}


def _terms(w_shape, x_shape, out_shape):
    """Products per output element of the forward conv, weight gradient and
    input gradient (upper bounds)."""
    kh, kw, cin, cout = w_shape
    n, ho, wo = out_shape[0], out_shape[1], out_shape[2]
    return kh * kw * cin, n * ho * wo, kh * kw * cout


def _run(f, device, *args):
    return jax.jit(f)(*[jax.device_put(a, device) for a in args])


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("case", list(CASES))
def test_conv_and_grad_match_xla(case, dtype, gojax_device, cpu_device):
    conv, xs, ws = CASES[case]
    dt = DTYPES[dtype]
    rng = np.random.default_rng(sum(map(ord, case)))
    x = rng.standard_normal(xs).astype(np.float32).astype(dt)
    w = rng.standard_normal(ws).astype(np.float32).astype(dt)
    out_shape = jax.eval_shape(conv, x, w).shape
    ct = rng.standard_normal(out_shape).astype(np.float32).astype(dt)

    def fwd_and_grads(x, w, ct):
        y, vjp = jax.vjp(conv, x, w)
        dx, dw = vjp(ct)
        # jax.grad of a scalar loss gives the same cotangents; take it too
        # so the differentiated program is the one users write.
        gx, gw = jax.grad(lambda x, w: (conv(x, w).astype(jnp.float32) * ct.astype(jnp.float32)).sum(),
                          argnums=(0, 1))(x, w)
        return y, dx, dw, gx, gw

    got = _run(fwd_and_grads, gojax_device, x, w, ct)
    want = _run(fwd_and_grads, cpu_device, x, w, ct)
    mag = _run(fwd_and_grads, cpu_device, *(np.abs(np.asarray(a, np.float32)) for a in (x, w, ct)))
    k_fwd, k_dw, k_dx = _terms(ws, xs, out_shape)
    eps = float(jnp.finfo(dt).eps)
    names = ("forward", "vjp dx", "vjp dw", "grad dx", "grad dw")
    for name, g, r, m, k in zip(names, got, want, mag, (k_fwd, k_dx, k_dw, k_dx, k_dw)):
        g, r, m = (np.asarray(a, np.float64) for a in (g, r, m))
        assert g.shape == r.shape, (name, g.shape, r.shape)
        # Each result is within (k+1)*eps*m of the exact sum (one more eps
        # for the final rounding to dtype); the grad of the f32 loss is
        # accumulated in f32 whatever dtype is.
        tol = 2 * (k + 1) * eps * m + 1e-30
        bad = np.abs(g - r) > tol
        assert not bad.any(), (case, dtype, name, np.argwhere(bad)[:5], g[bad][:5], r[bad][:5])
