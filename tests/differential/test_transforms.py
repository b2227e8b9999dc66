"""Every op of the table under transformations, on one dtype per op
(float32 where the op takes it): jax.grad (float ops), jax.vmap, and jax.jit
with a static argument, all inside one jitted program compared between gojax
and XLA's CPU."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from diffutil import BOUND_CLASSES, assert_same, dname, dot_bounds, make, rng_for, run_both, x64_for
from optable import ALL_TABLES, primary_dtype

_pick_dtype = primary_dtype


def _main_variant(op):
    """The variant with the most elements (the transforms' input)."""
    return max(op.variants, key=lambda v: sum(int(np.prod(s)) for s, _, _ in v))


CASES = [pytest.param(op, _pick_dtype(op), id=f"{kind}-{op.name}-{dname(_pick_dtype(op))}")
         for kind, table in ALL_TABLES.items() for op in table]

# Gradients chain several ops (and saturating approximations such as XLA's
# tanh, which returns exactly 1 past |x|~9), so they get the next class up.
_LOOSER = {"exact": "default", "default": "transc", "transc": "special", "special": "special",
           "linalg": "linalg", "dot": "transc"}


def _inexact(x):
    return jnp.issubdtype(x.dtype, jnp.inexact)


def _loss(fn):
    def loss(*a):
        leaves = [l for l in jax.tree.leaves(fn(*a)) if _inexact(l)]
        return sum(jnp.sum(jnp.real(l).astype(jnp.float32) * (i + 1)) for i, l in enumerate(leaves))
    return loss


@pytest.mark.parametrize("op,dt", CASES)
def test_transforms(op, dt):
    with x64_for(dt):
        variant = _main_variant(op)
        rng = rng_for("transforms", op.name, dname(dt))
        args = [make(rng, s, dt if t is None else t, d) for s, t, d in variant]
        # Three different samples stacked on a new leading axis for vmap.
        batched = [np.stack([make(rng, s, dt if t is None else t, d) for _ in range(3)])
                   for s, t, d in variant]
        float_idx = tuple(i for i, a in enumerate(args) if a.dtype.kind in "fc" or a.dtype.name == "bfloat16")
        out_shapes = jax.eval_shape(op.fn, *args)
        has_float_out = any(jnp.issubdtype(l.dtype, jnp.inexact) for l in jax.tree.leaves(out_shapes))
        do_grad = op.grad and bool(float_idx) and has_float_out

        def primal(args, batched, axis):
            res = {"vmap": jax.vmap(op.fn)(*batched)}
            # Static axis: reverse every non-scalar result along it.
            res["static"] = jax.tree.map(
                lambda l: jnp.flip(l, axis=axis % l.ndim) if l.ndim else l, op.fn(*args))
            return res

        def program(args, batched, axis):
            res = primal(args, batched, axis)
            if do_grad:
                res["grad"] = jax.grad(_loss(op.fn), argnums=float_idx)(*args)
            return res

        got, want = run_both(program, args, batched, 1, static_argnums=(2,))
        bounds = {}
        if op.cls in BOUND_CLASSES:
            bounds = dot_bounds(lambda a, b: primal(a, b, 1), args, batched)
        for key in want:
            assert_same(got[key], want[key], _LOOSER[op.cls] if key == "grad" else op.cls, path=key,
                        bounds=bounds.get(key))
