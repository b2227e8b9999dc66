"""Hypothesis-generated small programs: random expression trees of
elementwise, broadcasting, reduction, structural and matmul ops over random
shapes (zero-size included) in one dtype, jitted on gojax and on XLA's CPU.

Deterministic for CI: diffutil.hypothesis_settings sets derandomize=True and
a bounded example count (GOJAX_DIFF_EXAMPLES overrides it).  Values are kept bounded (clipped products, mean
rather than sum) so rounding differences cannot be amplified past the
"compose" tolerances."""

from __future__ import annotations


import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, strategies as st
from jax import lax

from diffutil import BF16, assert_same, dname, hypothesis_settings, make, run_both, x64_for

U_FLOAT = {
    "neg": jnp.negative, "abs": jnp.abs, "tanh": jnp.tanh, "sin": jnp.sin, "cos": jnp.cos,
    "exp_nabs": lambda x: jnp.exp(-jnp.abs(x)), "sqrt_abs": lambda x: jnp.sqrt(jnp.abs(x)),
    "sq_clip": lambda x: jnp.clip(x * x, 0, 4), "floor": jnp.floor, "sigmoid": jax.nn.sigmoid,
    "log1p_abs": lambda x: jnp.log1p(jnp.abs(x)), "relu": jax.nn.relu,
}
B_FLOAT = {
    "add": jnp.add, "sub": jnp.subtract, "mul_clip": lambda a, b: jnp.clip(a * b, -4, 4),
    "max": jnp.maximum, "min": jnp.minimum, "where_gt": lambda a, b: jnp.where(a > b, a, b * 0.5),
    "div_safe": lambda a, b: a / (1 + jnp.abs(b)), "atan2": jnp.arctan2,
}
U_INT = {"neg": jnp.negative, "abs": jnp.abs, "not": jnp.invert, "sq": jnp.square,
         "shr": lambda x: x >> 1, "popcnt": lax.population_count}
B_INT = {"add": jnp.add, "sub": jnp.subtract, "mul": jnp.multiply, "max": jnp.maximum, "min": jnp.minimum,
         "and": jnp.bitwise_and, "or": jnp.bitwise_or, "xor": jnp.bitwise_xor,
         "where_lt": lambda a, b: jnp.where(a < b, a, b), "floordiv_safe": lambda a, b: a // (jnp.abs(b) % 5 + 1)}
U_BOOL = {"not": jnp.logical_not}
B_BOOL = {"and": jnp.logical_and, "or": jnp.logical_or, "xor": jnp.logical_xor, "eq": jnp.equal,
          "gt": jnp.greater}


def _reduce(kind, name, axis, x):
    if x.ndim == 0:
        return x
    axis = axis % x.ndim
    if kind == "bool":
        return {"any": jnp.any, "all": jnp.all}["any" if name in ("sum", "mean") else "all"](x, axis, keepdims=True)
    if name == "sum":
        return jnp.sum(x, axis, keepdims=True, dtype=x.dtype) if kind == "int" else jnp.mean(x, axis, keepdims=True)
    if name == "max":
        return jnp.max(x, axis, keepdims=True, initial=-5 if kind == "float" or jnp.issubdtype(x.dtype, jnp.signedinteger) else 0)
    return jnp.min(x, axis, keepdims=True, initial=5)


def _struct(name, axis, x):
    if x.ndim == 0:
        return x
    axis = axis % x.ndim
    if name == "rev":
        return lax.rev(x, (axis,))
    if name == "roll":
        return jnp.roll(x, 1, axis)
    if name == "sort":
        return jnp.sort(x, axis=axis)
    if name == "cumsum":
        return jnp.cumsum(x, axis, dtype=x.dtype) if x.dtype != jnp.bool_ else jnp.cumsum(x, axis) > 1
    if name == "pad_slice":
        return lax.slice_in_dim(jnp.pad(x, [(1, 1) if i == axis else (0, 0) for i in range(x.ndim)]), 1,
                                x.shape[axis] + 1, axis=axis)
    raise ValueError(name)


def _matmul(kind, a, b):
    a, b = jnp.broadcast_arrays(a, b)
    if a.ndim < 2:
        return a * b if kind != "bool" else a & b
    if kind == "bool":
        return (a.astype(jnp.int32) @ jnp.swapaxes(b, -1, -2).astype(jnp.int32) @ b.astype(jnp.int32)) > 0
    p = (a @ jnp.swapaxes(b, -1, -2)) @ b
    return p / (1 + a.shape[-1] * a.shape[-2]) if kind == "float" else p


def evaluate(tree, kind, xs):
    tag = tree[0]
    if tag == "leaf":
        return xs[tree[1]]
    ops = {"float": (U_FLOAT, B_FLOAT), "int": (U_INT, B_INT), "bool": (U_BOOL, B_BOOL)}[kind]
    if tag == "u":
        return ops[0][tree[1]](evaluate(tree[2], kind, xs))
    if tag == "b":
        return ops[1][tree[1]](evaluate(tree[2], kind, xs), evaluate(tree[3], kind, xs))
    if tag == "r":
        return _reduce(kind, tree[1], tree[2], evaluate(tree[3], kind, xs))
    if tag == "s":
        return _struct(tree[1], tree[2], evaluate(tree[3], kind, xs))
    if tag == "m":
        return _matmul(kind, evaluate(tree[1], kind, xs), evaluate(tree[2], kind, xs))
    raise ValueError(tag)


def trees(kind):
    un, bi = {"float": (U_FLOAT, B_FLOAT), "int": (U_INT, B_INT), "bool": (U_BOOL, B_BOOL)}[kind]
    leaf = st.tuples(st.just("leaf"), st.integers(0, 2))
    axis = st.integers(0, 3)
    return st.recursive(leaf, lambda kids: st.one_of(
        st.tuples(st.just("u"), st.sampled_from(sorted(un)), kids),
        st.tuples(st.just("b"), st.sampled_from(sorted(bi)), kids, kids),
        st.tuples(st.just("r"), st.sampled_from(["sum", "max", "min"]), axis, kids),
        st.tuples(st.just("s"), st.sampled_from(["rev", "roll", "sort", "cumsum", "pad_slice"]), axis, kids),
        st.tuples(st.just("m"), kids, kids),
    ), max_leaves=7)


# A base shape (sizes 0..4, rank 0..3) and, per input, which dims broadcast.
# Rank 1..3 mostly; scalars and zero-size dims now and then.
shapes = st.one_of(st.lists(st.sampled_from([3, 2, 4, 1, 5, 0]), min_size=1, max_size=3).map(tuple),
                   st.just(()))

DTYPES = [("float", np.float32), ("float", np.float64), ("float", BF16), ("float", np.float16),
          ("int", np.int32), ("int", np.int8), ("int", np.uint32), ("bool", np.bool_)]


@pytest.mark.parametrize("kind,dt", [pytest.param(k, d, id=dname(d)) for k, d in DTYPES])
@hypothesis_settings(40)
@given(data=st.data())
def test_random_composition(kind, dt, data):
    tree = data.draw(trees(kind), label="tree")
    base = data.draw(shapes, label="shape")
    masks = [data.draw(st.lists(st.booleans(), min_size=len(base), max_size=len(base)), label=f"bcast{i}")
             for i in range(2)]
    seed = data.draw(st.integers(0, 2**31 - 1), label="seed")
    rng = np.random.default_rng(seed)
    in_shapes = [base, tuple(1 if m else s for s, m in zip(base, masks[0])),
                 tuple(1 if m else s for s, m in zip(base, masks[1]))[len(base) // 2:]]
    with x64_for(dt):
        xs = [make(rng, s, dt, "small" if kind != "int" else "any") for s in in_shapes]
        got, want = run_both(lambda *a: evaluate(tree, kind, a), *xs)
        assert_same(got, want, "compose", path=f"tree={tree} shapes={in_shapes}")


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=dname)
@hypothesis_settings(20)
@given(data=st.data())
def test_random_composition_grad(dt, data):
    """Reverse-mode gradients of random float trees (sum of the output with
    respect to all three inputs)."""
    tree = data.draw(trees("float"), label="tree")
    base = data.draw(shapes, label="shape")
    seed = data.draw(st.integers(0, 2**31 - 1), label="seed")
    rng = np.random.default_rng(seed)
    in_shapes = [base, base[1:], ()]
    with x64_for(dt):
        xs = [make(rng, s, dt, "small") for s in in_shapes]
        loss = lambda *a: jnp.sum(evaluate(tree, "float", a) * jnp.arange(1, 2, dtype=dt))
        got, want = run_both(jax.grad(loss, argnums=(0, 1, 2)), *xs)
        assert_same(got, want, "compose", path=f"grad tree={tree} shapes={in_shapes}")
