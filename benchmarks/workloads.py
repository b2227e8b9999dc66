"""The benchmark workloads: each is a jittable function plus inputs and a work count.

FLOPs are counted analytically (2 per multiply-add) where the formula is plain;
bytes are the minimum traffic (inputs read once, outputs written once).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np


@dataclass(frozen=True)
class Target:
    """A goal stated as a bound on gojax time / XLA time (lower is better)."""

    text: str  # as the goal was phrased
    max_time_ratio: float


MATMUL = Target("throughput >= 0.8x XLA", 1 / 0.8)
ELEMENTWISE = Target("throughput >= 1.0x XLA", 1.0)
REDUCTION = Target("throughput >= 1.0x XLA", 1.0)
MLP = Target("step time <= 1.25x XLA", 1.25)
TRANSFORMER = Target("time <= 1.5x XLA", 1.5)
DISPATCH = Target("latency <= 1.2x XLA", 1.2)
COMPILE = Target(">= 10x faster than XLA", 0.1)


@dataclass(frozen=True)
class Workload:
    name: str
    group: str
    # make() -> (function, inputs); inputs are numpy arrays (bf16 via ml_dtypes).
    make: Callable[[], tuple[Callable, list]]
    flops: float | None = None
    bytes: float | None = None
    dtype: str = "f32"  # which peak applies
    target: Target | None = None
    x64: bool = False  # needs jax_enable_x64 (run in a subprocess)
    tol: float = 2e-2  # max relative error of gojax vs XLA before a result is flagged


def _rng():
    return np.random.default_rng(0)


def _matmul(n: int, dtype: str):
    def make():
        import jax.numpy as jnp

        dt = {"f32": np.float32, "f64": np.float64, "bf16": jnp.bfloat16}[dtype]
        r = _rng()
        a = r.standard_normal((n, n), np.float32).astype(dt)
        b = r.standard_normal((n, n), np.float32).astype(dt)
        return (lambda x, y: x @ y), [a, b]

    return make


def _elementwise(n: int):
    def make():
        import jax.numpy as jnp

        r = _rng()
        x = r.standard_normal(n, np.float32)
        y = r.standard_normal(n, np.float32)
        return (lambda x, y: jnp.tanh(x * 2 + 1) * y), [x, y]

    return make


def _sum(axis: int):
    def make():
        x = _rng().standard_normal((4096, 4096), np.float32)
        return (lambda x: x.sum(axis=axis)), [x]

    return make


def _softmax():
    import jax

    x = _rng().standard_normal((4096, 1024), np.float32)
    return (lambda x: jax.nn.softmax(x, axis=-1)), [x]


_CONV = dict(n=32, h=32, w=32, cin=64, cout=64, k=3)


def _conv(x, w):
    import jax

    return jax.lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))


def _conv_inputs():
    c, r = _CONV, _rng()
    x = r.standard_normal((c["n"], c["h"], c["w"], c["cin"]), np.float32)
    w = r.standard_normal((c["k"], c["k"], c["cin"], c["cout"]), np.float32) * 0.05
    return x, w.astype(np.float32)


def _conv_fwd():
    return _conv, list(_conv_inputs())


def _conv_bwd():
    import jax

    x, w = _conv_inputs()
    ct = _rng().standard_normal(x.shape[:3] + (_CONV["cout"],), np.float32)

    def bwd(x, w, ct):
        _, vjp = jax.vjp(_conv, x, w)
        return vjp(ct)  # (dx, dw)

    return bwd, [x, w, ct]


def _conv_flops():
    c = _CONV
    return 2.0 * c["n"] * c["h"] * c["w"] * c["cout"] * c["cin"] * c["k"] ** 2


MLP_SIZES = (784, 1024, 1024, 10)
MLP_BATCH = 256


def mlp_step_fn():
    """(step, inputs): one SGD step of a 784-1024-1024-10 ReLU MLP with softmax cross-entropy."""
    import jax
    import jax.numpy as jnp

    r = _rng()
    params = []
    for i, o in zip(MLP_SIZES[:-1], MLP_SIZES[1:]):
        params += [(r.standard_normal((i, o), np.float32) / np.sqrt(i)).astype(np.float32), np.zeros(o, np.float32)]
    x = r.standard_normal((MLP_BATCH, MLP_SIZES[0]), np.float32)
    y = np.eye(MLP_SIZES[-1], dtype=np.float32)[r.integers(0, MLP_SIZES[-1], MLP_BATCH)]

    def loss(params, x, y):
        h = x
        for k in range(0, len(params) - 2, 2):
            h = jax.nn.relu(h @ params[k] + params[k + 1])
        logits = h @ params[-2] + params[-1]
        return -jnp.mean(jnp.sum(y * jax.nn.log_softmax(logits), axis=-1))

    def step(*args):
        params, x, y = list(args[:-2]), args[-2], args[-1]
        g = jax.grad(loss)(params, x, y)
        return [p - 0.01 * d for p, d in zip(params, g)]

    return step, params + [x, y]


def _mlp_flops():
    fwd = 2.0 * MLP_BATCH * sum(i * o for i, o in zip(MLP_SIZES[:-1], MLP_SIZES[1:]))
    return 3 * fwd  # forward + two matmuls per layer in backward (first layer's dx is dead, ignored)


TF = dict(batch=8, seq=128, width=256, heads=4, mlp=4)


def transformer_fn():
    """(fwd+bwd, inputs): a pre-LayerNorm transformer block; returns loss and parameter grads."""
    import jax
    import jax.numpy as jnp

    b, s, w, nh, m = TF["batch"], TF["seq"], TF["width"], TF["heads"], TF["mlp"]
    r = _rng()

    def mat(i, o):
        return (r.standard_normal((i, o), np.float32) / np.sqrt(i)).astype(np.float32)

    params = [np.ones(w, np.float32), np.zeros(w, np.float32), mat(w, 3 * w), mat(w, w),
              np.ones(w, np.float32), np.zeros(w, np.float32), mat(w, m * w), np.zeros(m * w, np.float32),
              mat(m * w, w), np.zeros(w, np.float32)]
    x = r.standard_normal((b, s, w), np.float32)

    def ln(h, g, c):
        mu = h.mean(-1, keepdims=True)
        var = ((h - mu) ** 2).mean(-1, keepdims=True)
        return (h - mu) * jax.lax.rsqrt(var + 1e-5) * g + c

    def block(p, x):
        g1, c1, wqkv, wo, g2, c2, w1, b1, w2, b2 = p
        h = ln(x, g1, c1) @ wqkv
        q, k, v = (t.reshape(b, s, nh, w // nh) for t in jnp.split(h, 3, axis=-1))
        att = jax.nn.softmax(jnp.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(w // nh), axis=-1)
        x = x + jnp.einsum("bhqk,bkhd->bqhd", att, v).reshape(b, s, w) @ wo
        return x + jax.nn.gelu(ln(x, g2, c2) @ w1 + b1) @ w2 + b2

    def fwd_bwd(*args):
        p, x = list(args[:-1]), args[-1]
        return jax.value_and_grad(lambda p: jnp.mean(block(p, x) ** 2))(p)

    return fwd_bwd, params + [x]


def _transformer_flops():
    b, s, w, m = TF["batch"], TF["seq"], TF["width"], TF["mlp"]
    tok = b * s
    fwd = 2.0 * tok * (w * 3 * w + w * w + 2 * w * m * w) + 2 * 2.0 * b * s * s * w
    return 3 * fwd  # backward ~ 2x forward


def _dispatch():
    return (lambda x: x + 1), [np.float32(1.0)]


def all_workloads() -> list[Workload]:
    mm = [Workload(f"matmul_f32_{n}", "matmul", _matmul(n, "f32"), flops=2.0 * n**3,
                   target=MATMUL if n == 1024 else None) for n in (256, 1024, 2048)]
    mm += [Workload("matmul_bf16_1024", "matmul", _matmul(1024, "bf16"), flops=2.0 * 1024**3, dtype="bf16", tol=5e-2),
           Workload("matmul_f64_1024", "matmul", _matmul(1024, "f64"), flops=2.0 * 1024**3, dtype="f64", x64=True)]
    ew = [Workload(f"elementwise_{label}", "elementwise", _elementwise(n), bytes=3 * 4.0 * n, target=ELEMENTWISE)
          for label, n in (("1M", 1 << 20), ("16M", 1 << 24))]
    red = [Workload(f"sum_axis{a}_4096", "reduction", _sum(a), bytes=4.0 * 4096 * 4096 + 4 * 4096, target=REDUCTION)
           for a in (0, 1)]
    red.append(Workload("softmax_4096x1024", "reduction", _softmax, bytes=2 * 4.0 * 4096 * 1024, target=REDUCTION))
    conv = [Workload("conv2d_fwd", "conv", _conv_fwd, flops=_conv_flops()),
            Workload("conv2d_bwd", "conv", _conv_bwd, flops=2 * _conv_flops())]
    models = [Workload("mlp_step", "model", mlp_step_fn, flops=_mlp_flops(), target=MLP),
              Workload("transformer_fwd_bwd", "model", transformer_fn, flops=_transformer_flops(), target=TRANSFORMER)]
    disp = [Workload("dispatch", "dispatch", _dispatch, target=DISPATCH, tol=0)]
    return mm + ew + red + conv + models + disp


STACK = dict(seq=32, width=64)


def stack_fn(layers: int):
    """A factory of (grad step, inputs) for an L-layer attention + MLP stack
    (s=32, d=64): its program grows with L, which is what a compile-time
    scaling benchmark needs (small tensors, many ops)."""

    def make():
        import jax
        import jax.numpy as jnp

        s, d = STACK["seq"], STACK["width"]
        r = _rng()

        def mat(i, o):
            return (r.standard_normal((i, o), np.float32) / np.sqrt(i)).astype(np.float32)

        params = [mat(d, d) for _ in range(6 * layers)]  # wq wk wv wo w1 w2 per layer
        x = r.standard_normal((s, d), np.float32)

        def loss(p, x):
            h = x
            for i in range(layers):
                wq, wk, wv, wo, w1, w2 = p[6 * i:6 * i + 6]
                att = jax.nn.softmax((h @ wq) @ (h @ wk).T / np.sqrt(d), axis=-1)
                h = h + (att @ (h @ wv)) @ wo
                h = h + jax.nn.gelu(h @ w1) @ w2
            return jnp.mean(h * h)

        def step(*args):
            return jax.grad(loss)(list(args[:-1]), args[-1])

        return step, params + [x]

    return make


def chain_fn(ops: int):
    """A factory of a straight-line program of about `ops` ops on a small
    vector (4 per link: sin, multiply, reverse, add of a constant), for
    compile time against program size. Each value has one reader: a value
    read twice in every link (say sin(x) + x[::-1]) makes XLA:CPU's first
    call take minutes at 1,600 ops."""

    def make():
        import jax.numpy as jnp

        def f(x):
            for i in range(ops // 4):
                x = (jnp.sin(x) * np.float32(1 + i % 7))[::-1] + np.float32(0.5)
            return x

        return f, [np.linspace(0, 1, 64, dtype=np.float32)]

    return make


# Compile-latency workloads (g): the two model programs of e), and programs
# that grow with a size parameter (compile time must grow linearly).
COMPILE_WORKLOADS = {
    "compile_mlp_step": mlp_step_fn,
    "compile_transformer": transformer_fn,
    "compile_stack_L12": stack_fn(12),
    "compile_stack_L48": stack_fn(48),
    "compile_stack_L96": stack_fn(96),
    "compile_chain_10k": chain_fn(10_000),
}
