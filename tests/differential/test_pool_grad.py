"""Max and min pooling gradients (select_and_scatter) against XLA:CPU: NHWC
layouts with a channel block (gojax's vector path) and without, disjoint and
overlapping windows, padding, odd sizes, ties (integer-valued activations:
the first extremum of a window wins) and f32/f64."""

from __future__ import annotations

import jax
import numpy as np
import pytest
from jax import lax

from diffutil import check, dname, rng_for, x64_for

CASES = [
    # shape, window, strides, padding, overlapping
    ((3, 8, 8, 5), (1, 2, 2, 1), (1, 2, 2, 1), "VALID", False),
    ((2, 9, 7, 16), (1, 2, 2, 1), (1, 2, 2, 1), "SAME", False),
    ((2, 7, 9, 6), (1, 3, 3, 1), (1, 2, 2, 1), "SAME", True),
    ((2, 11, 5, 4), (1, 2, 3, 1), (1, 3, 4, 1), "VALID", False),
    ((1, 6, 6, 3, 4), (1, 2, 2, 1, 1), (1, 1, 2, 1, 1), "SAME", True),
    ((16, 28, 28, 32), (1, 2, 2, 1), (1, 2, 2, 1), "VALID", False),  # parallel
    ((2, 3, 9, 9), (1, 1, 2, 2), (1, 1, 2, 2), "VALID", False),  # NCHW: no channel block
]


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=dname)
@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("shape,win,strides,padding,overlap", CASES, ids=[str(c[0]) for c in CASES])
def test_pool_grad(shape, win, strides, padding, overlap, op, dt):
    rng = rng_for("pool_grad", shape, win, op, dname(dt))
    x = rng.integers(-3, 4, size=shape).astype(dt)  # many ties
    init, red = (-np.inf, lax.max) if op == "max" else (np.inf, lax.min)

    def pool(v):
        return lax.reduce_window(v, np.array(init, dt), red, win, strides, padding)

    out_shape = jax.eval_shape(pool, jax.ShapeDtypeStruct(shape, dt)).shape
    ct = rng.standard_normal(out_shape).astype(dt)

    def grad(v, c):
        return jax.vjp(pool, v)[1](c)[0]

    with x64_for(dt):
        # Disjoint windows: each element gets at most one cotangent, exactly.
        # Overlapping ones add several, a sum whose order may differ.
        check(grad, x, ct, cls="default" if overlap else "exact")
