"""Train a small MLP on a synthetic regression task with a jitted update step.

With gojax installed, JAX picks gojax as its default backend; this prints the
device the training ran on. Run: python examples/train.py
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np


def init_params(key, sizes):
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        key, sub = jax.random.split(key)
        w = jax.random.normal(sub, (fan_in, fan_out), jnp.float32) * jnp.sqrt(2.0 / fan_in)
        params.append((w, jnp.zeros((fan_out,), jnp.float32)))
    return params


def predict(params, x):
    for w, b in params[:-1]:
        x = jax.nn.relu(x @ w + b)
    w, b = params[-1]
    return x @ w + b


def loss_fn(params, x, y):
    return jnp.mean((predict(params, x) - y) ** 2)


@jax.jit
def update(params, x, y, lr):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    params = jax.tree.map(lambda p, g: p - lr * g, params, grads)
    return params, loss


def backend_name(device) -> str:
    for name in ("gojax", "cpu"):
        try:
            if device in jax.devices(name):
                return name
        except RuntimeError:
            continue
    return device.platform


def main(steps: int = 300) -> float:
    rng = np.random.default_rng(0)
    x = rng.uniform(-2, 2, (256, 3)).astype(np.float32)
    y = (np.sin(x[:, :1]) + 0.5 * x[:, 1:2] * x[:, 2:3]).astype(np.float32)
    x, y = jnp.asarray(x), jnp.asarray(y)
    params = init_params(jax.random.key(0), [3, 32, 32, 1])

    device = next(iter(x.devices()))
    print(f"training on {device} (backend {backend_name(device)}, platform {device.platform})")
    first = None
    for step in range(steps):
        params, loss = update(params, x, y, 0.05)
        if first is None:
            first = float(loss)
        if step % 50 == 0 or step == steps - 1:
            print(f"step {step:4d}  loss {float(loss):.5f}")
    final = float(loss_fn(params, x, y))
    print(f"final loss {final:.5f} (from {first:.5f})")
    return final


if __name__ == "__main__":
    main()
