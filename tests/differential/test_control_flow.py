"""Control flow: while_loop, fori_loop, scan, cond, switch, nested jits,
custom_jvp/custom_vjp, remat, lax.map, associative_scan; primal, grad and
vmap (which turns cond/switch predicates into selects and loops into batched
loops)."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

from diffutil import check, make, rng_for


def _x(shape=(4, 3), dt=np.float32, seed="cf", domain="small"):
    return make(rng_for(seed, shape), shape, dt, domain)


def while_collatz(n):
    def cond(c):
        return c[0] != 1

    def body(c):
        v, steps = c
        return jnp.where(v % 2 == 0, v // 2, 3 * v + 1), steps + 1

    return lax.while_loop(cond, body, (n, jnp.zeros_like(n)))


def while_newton_sqrt(x):
    def cond(c):
        i, y = c
        return (i < 50) & jnp.any(jnp.abs(y * y - x) > 1e-5)

    def body(c):
        i, y = c
        return i + 1, 0.5 * (y + x / y)

    return lax.while_loop(cond, body, (0, jnp.ones_like(x)))


def fori_poly(x):
    return lax.fori_loop(0, 5, lambda i, acc: acc * x + i.astype(x.dtype), jnp.zeros_like(x))


def fori_dynamic(x, n):
    return lax.fori_loop(0, n, lambda i, acc: acc + jnp.sin(acc) * i, x)


def scan_cumulative(xs):
    def step(c, x):
        c = 0.9 * c + jnp.tanh(x)
        return c, (c * 2, jnp.sum(c))
    return lax.scan(step, jnp.zeros(xs.shape[1:], xs.dtype), xs)


def scan_reverse_unroll(xs):
    return lax.scan(lambda c, x: (c + x, c * x), xs[0], xs, reverse=True, unroll=2)


def scan_no_xs(x):
    return lax.scan(lambda c, _: (c @ c.T / 4 + 0.1, c[0]), x[:3, :3], None, length=4)


def cond_branches(p, x):
    return lax.cond(p > 0, lambda v: jnp.sin(v) * 2, lambda v: jnp.cos(v) - v, x)


def switch_branches(i, x):
    return lax.switch(i, [lambda v: v + 1, lambda v: v * v, lambda v: jnp.exp(-v), lambda v: v[::-1]], x)


@jax.jit
def _inner(x, w):
    return jnp.tanh(x @ w)


@functools.partial(jax.jit, static_argnums=2)
def _inner_static(x, w, n):
    for _ in range(n):
        x = _inner(x, w)
    return x


def nested_jits(x, w):
    return _inner_static(x, w, 3) + jax.jit(lambda y: _inner(y, w).sum(0))(x)


@jax.custom_jvp
def safe_log1pexp(x):
    return jnp.log1p(jnp.exp(-jnp.abs(x))) + jnp.maximum(x, 0)


@safe_log1pexp.defjvp
def _safe_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return safe_log1pexp(x), jax.nn.sigmoid(x) * t


@jax.custom_vjp
def clip_grad(x):
    return x * 3


def _clip_fwd(x):
    return clip_grad(x), x


def _clip_bwd(x, g):
    return (jnp.clip(g * x, -0.5, 0.5),)


clip_grad.defvjp(_clip_fwd, _clip_bwd)


def custom_fns(x):
    return safe_log1pexp(x), clip_grad(x)


def remat_chain(x):
    f = jax.checkpoint(lambda v: jnp.sin(jnp.cos(v) * v))
    return f(f(x))


def lax_map(x):
    return lax.map(lambda r: jnp.cumsum(r) * r.max(), x)


def assoc_scan(x):
    return lax.associative_scan(jnp.add, x, axis=0), lax.associative_scan(jnp.maximum, x, axis=1, reverse=True)


def nested_loops(x):
    def outer(i, acc):
        inner = lax.while_loop(lambda c: c[0] < i, lambda c: (c[0] + 1, c[1] * 0.5 + acc), (0, acc))
        return lax.cond(i % 2 == 0, lambda a: a + inner[1], lambda a: a - 0.1 * inner[1], acc)
    return lax.fori_loop(0, 4, outer, x)


I32 = lambda v: np.asarray(v, np.int32)

PROGRAMS = [
    ("while_collatz", while_collatz, (I32(27),), False, "exact"),
    ("while_newton_sqrt", while_newton_sqrt, (_x(domain="pos"),), "fwd", "default"),
    ("fori_static", fori_poly, (_x(),), True, "default"),
    ("fori_dynamic", fori_dynamic, (_x(), I32(4)), True, "transc"),
    ("scan", scan_cumulative, (_x((5, 3)),), True, "transc"),
    ("scan_reverse_unroll", scan_reverse_unroll, (_x((6, 2)),), True, "default"),
    ("scan_no_xs", scan_no_xs, (_x((4, 4)),), True, "default"),
    ("cond_true", cond_branches, (np.float32(1.0), _x()), True, "transc"),
    ("cond_false", cond_branches, (np.float32(-1.0), _x()), True, "transc"),
    ("switch_0", switch_branches, (I32(0), _x()), True, "transc"),
    ("switch_2", switch_branches, (I32(2), _x()), True, "transc"),
    ("switch_clamped", switch_branches, (I32(9), _x()), True, "transc"),
    # Three chained tanh layers and their gradient: gojax's and XLA's float32
    # tanh are different few-ulp approximations, and the chain compounds them.
    ("nested_jits", nested_jits, (_x((4, 3)), _x((3, 3), seed="w")), True, "compose"),
    ("custom_jvp_vjp", custom_fns, (_x(),), True, "transc"),
    ("remat", remat_chain, (_x(),), True, "transc"),
    ("lax_map", lax_map, (_x(),), True, "default"),
    ("associative_scan", assoc_scan, (_x((5, 4)),), True, "default"),
    ("nested_loops", nested_loops, (_x(),), "fwd", "default"),
]


def _loss(fn, nargs, argnum):
    def loss(*a):
        out = fn(*a)
        return sum(jnp.sum(l * (i + 1)) for i, l in enumerate(jax.tree.leaves(out))
                   if jnp.issubdtype(l.dtype, jnp.floating))
    return loss


@pytest.mark.parametrize("name,fn,args,diff,cls", PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_primal(name, fn, args, diff, cls):
    check(fn, *args, cls=cls)


GRADS = [p for p in PROGRAMS if p[3]]


@pytest.mark.parametrize("name,fn,args,diff,cls", GRADS, ids=[p[0] for p in GRADS])
def test_grad(name, fn, args, diff, cls):
    argnum = len(args) - 1 if name.startswith(("cond", "switch")) else 0
    if name == "fori_dynamic":  # reverse-mode needs a static trip count
        check(jax.jacfwd(lambda x: fn(x, 4)), args[0], cls="transc")
        return
    if diff == "fwd":  # while loops with data-dependent trip counts: forward mode only
        check(jax.jacfwd(_loss(fn, len(args), argnum), argnums=argnum), *args, cls="transc")
        return
    # Gradients use "transc" tolerances, or the program's own when looser.
    check(jax.grad(_loss(fn, len(args), argnum), argnums=argnum), *args,
          cls="compose" if cls == "compose" else "transc")


@pytest.mark.parametrize("name,fn,args,diff,cls", PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_vmap(name, fn, args, diff, cls):
    # Batch every argument over three perturbed copies: predicates and trip
    # counts differ across the batch where they are arguments.
    def perturb(a, k):
        a = np.asarray(a)
        if a.dtype.kind in "iu":
            return (a + k) if a.ndim else np.asarray(min(int(a) + k, 3) if a.ndim == 0 else a + k, a.dtype)
        return (a * (1 + 0.1 * k) - (0.6 * k if a.ndim == 0 else 0)).astype(a.dtype)
    batched = [np.stack([perturb(a, k) for k in range(3)]) for a in args]
    if name == "while_collatz":  # different trip counts per batch element
        batched = [I32([27, 7, 1, 97, 6])]
    check(jax.vmap(fn), *batched, cls=cls)


def test_cond_on_device_predicate_and_grad_of_custom_jvp_in_loop():
    def f(x):
        def body(i, c):
            return lax.cond(jnp.sum(c) > 0, lambda v: safe_log1pexp(v) * 0.9, lambda v: v * v, c)
        return jnp.sum(lax.fori_loop(0, 3, body, x))
    check(jax.grad(f), _x(), cls="transc")


def test_mixed_dtype_carries():
    """Loop/cond carries mixing bool, int8, uint32, bf16, f16 and complex."""
    import ml_dtypes

    def f(x, flags, counts, h, c):
        def body(i, carry):
            x, flags, counts, h, c = carry
            flags = flags ^ (x > 0)
            counts = counts + flags.astype(jnp.uint32) * jnp.uint32(3)
            h = (h * jnp.asarray(1.5, h.dtype) + i.astype(h.dtype)).astype(h.dtype)
            c = c * (1 + 0.1j) + x.astype(c.dtype)
            x = lax.cond(i % 2 == 0, lambda v: -v, lambda v: v.astype(jnp.int8) // 2, x)
            return x, flags, counts, h, c

        xs, ys = lax.scan(lambda carry, v: ((carry[0] + v, carry[1]), carry[0] * v), (x, x), x)
        return lax.fori_loop(0, 5, body, (x, flags, counts, h, c)), xs, ys

    x = np.array([3, -4, 0, 7], np.int8)
    check(f, x, np.array([True, False, True, False]), np.arange(4, dtype=np.uint32),
          np.array([0.5, 1.0, -2.0, 3.0], ml_dtypes.bfloat16), np.array([1 + 1j, 0, -1j, 2], np.complex64),
          cls="default")


def test_x64_loops():
    """Under enable_x64 loop counters and indices become int64."""
    with jax.enable_x64(True):
        x = make(rng_for("x64loop"), (5,), np.float64)

        def f(x, n):
            y = lax.fori_loop(0, n, lambda i, c: c * 0.5 + jnp.sin(c) + i, x)
            z, _ = lax.scan(lambda c, v: (c + v * c.sum(), None), x, jnp.stack([x, x[::-1]]))
            w = lax.while_loop(lambda c: c[0] < 40, lambda c: (c[0] * 3, c[1] + 1), (jnp.int64(1), jnp.int64(0)))
            return y, z, w, x[jnp.argsort(x)], lax.dynamic_slice(x, (n,), (2,))

        check(f, x, np.int64(3), cls="transc")


def test_switch_negative_index_clamps():
    check(lambda i, x: switch_branches(i, x), I32(-3), _x(), cls="transc")


def test_counted_small_loops():
    """Counted loops (s32 counter < constant, counter + constant) whose
    bodies are small fusions: gojax keeps the counter in a Go integer and
    runs the body's fusion serially; the counts, the values read from the
    counter before and after its add, and the carried arrays are XLA's."""
    x = _x((16,), seed="counted")

    def f(x):
        def body(s):
            i, before, after, c = s
            j = i + 3
            return j, before + i, after * 2 + j, jnp.tanh(c * 1.5 + 0.25 + i.astype(c.dtype) * 1e-3)

        w = lax.while_loop(lambda s: s[0] < 100, body, (jnp.int32(-7), jnp.int32(0), jnp.int32(1), x))
        fori = lax.fori_loop(0, 1000, lambda i, c: jnp.tanh(c * x + 0.5), x)
        scan = lax.scan(lambda c, _: (jnp.tanh(c * x - 0.5), None), x, None, length=999)[0]
        empty = lax.fori_loop(5, 5, lambda i, c: c + 1.0, x)
        return w, fori, scan, empty

    check(f, x, cls="transc")
