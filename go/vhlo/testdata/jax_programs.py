"""Exports JAX programs as StableHLO portable artifacts for the vhlo tests.

Usage: python jax_programs.py OUTDIR

For each program it writes OUTDIR/<name>.bc (jax.export's
mlir_module_serialized) and OUTDIR/<name>.json: the module as jaxlib itself
deserializes the artifact (ops in pre-order with result types and attributes,
constants as raw little-endian bytes), which the Go test compares with what
vhlo.Read produces.
"""
import json
import os
import sys

import numpy as np

import jax
import jax.numpy as jnp
from jax import lax
from jax._src.interpreters import mlir as jmlir
from jax._src.lib import _jax
from jax._src.lib.mlir import ir

jax.config.update("jax_enable_x64", True)

f32 = np.float32


def train_step(params, opt, xb, yb):
    """An MLP training step with Adam: a realistic ~25 KB artifact."""

    def loss(p):
        h = xb
        for w, b in p[:-1]:
            h = jax.nn.gelu(h @ w + b)
        w, b = p[-1]
        logits = h @ w + b
        logp = jax.nn.log_softmax(logits)
        return -jnp.mean(jnp.sum(logp * yb, axis=-1)) + 1e-4 * sum(jnp.sum(w * w) for w, _ in p)

    l, g = jax.value_and_grad(loss)(params)
    m, v, t = opt
    t = t + 1
    m = jax.tree.map(lambda m, g: 0.9 * m + 0.1 * g, m, g)
    v = jax.tree.map(lambda v, g: 0.999 * v + 0.001 * g * g, v, g)
    mh = jax.tree.map(lambda m: m / (1 - 0.9 ** t), m)
    vh = jax.tree.map(lambda v: v / (1 - 0.999 ** t), v)
    params = jax.tree.map(lambda p, m, v: p - 1e-3 * m / (jnp.sqrt(v) + 1e-8), params, mh, vh)
    return l, params, (m, v, t)


def train_step_args():
    sizes = [(32, 64)] + [(64, 64)] * 12 + [(64, 10)]
    params = [(jnp.full(s, 0.01, f32), jnp.zeros((s[1],), f32)) for s in sizes]
    zeros = jax.tree.map(jnp.zeros_like, params)
    return params, (zeros, zeros, jnp.int32(0)), jnp.ones((16, 32), f32), jnp.ones((16, 10), f32) / 10


def deep(n, x):
    """Recurses n Python frames deep before tracing an op (long locations)."""
    return jnp.sin(x) if n == 0 else deep(n - 1, x)


def programs():
    x = jnp.arange(12, dtype=f32).reshape(3, 4)
    y = jnp.arange(20, dtype=f32).reshape(4, 5)
    v = jnp.arange(8, dtype=f32)
    i32 = jnp.arange(8, dtype=jnp.int32)
    key = jax.random.key(0)

    def body(i, c):
        return c * 2 + i

    yield "elementwise", lambda a: jnp.tanh(a) * jnp.exp(a) - jnp.sqrt(jnp.abs(a)) / (1 + a ** 2), (x,)
    yield "unary_math", lambda a: (jnp.log1p(a) + jnp.expm1(a) + jax.nn.sigmoid(a) + lax.rsqrt(a + 1) + jnp.cbrt(a)
                                   + jnp.tan(a) + jnp.sin(a) * jnp.cos(a) + jnp.floor(a) + jnp.ceil(a) + jnp.round(a)
                                   + jnp.sign(a)), (x,)
    yield "matmul", lambda a, b: a @ b, (x, y)
    yield "einsum_batched", lambda a, b: jnp.einsum("bij,bjk->bik", a, b), (jnp.ones((2, 3, 4), f32), jnp.ones((2, 4, 5), f32))
    yield "reductions", lambda a: (jnp.sum(a, axis=0), jnp.max(a, axis=1), jnp.argmax(a, axis=1), jnp.prod(a), jnp.mean(a)), (x,)
    yield "cumsum", lambda a: jnp.cumsum(a, axis=1), (x,)
    yield "sort", lambda a: (jnp.sort(a), jnp.argsort(a)), (v[::-1],)
    yield "gather", lambda a, idx: a[idx], (v, jnp.array([3, 1, 4], jnp.int32))
    yield "scatter_add", lambda a, idx: a.at[idx].add(1.0), (v, jnp.array([3, 1, 4], jnp.int32))
    yield "dynamic_slice", lambda a, i: lax.dynamic_slice(a, (i, i * 0), (2, 2)), (x, jnp.int32(1))
    yield "dynamic_update_slice", lambda a, u, i: lax.dynamic_update_slice(a, u, (i, i + 0)), (x, jnp.ones((2, 2), f32), jnp.int32(1))
    yield "fori_loop", lambda a: lax.fori_loop(0, 5, body, a), (v,)
    yield "cond", lambda p, a: lax.cond(p, lambda t: t + 1, lambda t: t * 2, a), (jnp.bool_(True), v)
    yield "switch", lambda i, a: lax.switch(i, [jnp.sin, jnp.cos, jnp.tanh], a), (jnp.int32(2), v)
    yield "random", lambda k: jax.random.normal(k, (3, 2)), (key,)
    yield "random_bits", lambda k: jax.random.bits(k, (4,), jnp.uint32), (key,)
    yield "conv2d", lambda a, w: lax.conv_general_dilated(a, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")), (
        jnp.ones((1, 6, 6, 3), f32), jnp.ones((3, 3, 3, 4), f32))
    yield "conv_grouped_dilated", lambda a, w: lax.conv_general_dilated(a, w, (2, 1), [(1, 1), (0, 2)], lhs_dilation=(1, 2), rhs_dilation=(2, 1),
                                                                        feature_group_count=2), (jnp.ones((2, 4, 7, 9), f32), jnp.ones((6, 2, 3, 2), f32))
    yield "max_pool", lambda a: lax.reduce_window(a, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID"), (jnp.ones((1, 4, 4, 2), f32),)
    yield "avg_pool_grad", jax.grad(lambda a: jnp.sum(lax.reduce_window(a, 0.0, lax.add, (2, 2), (1, 1), "SAME") ** 2)), (jnp.ones((4, 4), f32),)
    yield "select_and_scatter", jax.grad(lambda a: jnp.sum(lax.reduce_window(a, -jnp.inf, lax.max, (2, 2), (2, 2), "VALID"))), (x,)
    yield "shape_ops", lambda a: (a.T, a.reshape(4, 3), jnp.concatenate([a, a], axis=0), jnp.pad(a, ((1, 0), (2, 1))),
                                  jnp.flip(a, 0), a[1:3, ::2], jnp.broadcast_to(a[0], (2, 4)), jnp.expand_dims(a, 0)), (x,)
    yield "pad_interior", lambda a: lax.pad(a, f32(0), [(1, 2, 1), (0, -1, 2)]), (x,)
    yield "select_clamp", lambda a: (jnp.where(a > 3, a, -a), jnp.clip(a, 1, 5)), (x,)
    yield "iota_convert", lambda a: (lax.iota(jnp.int32, 5), a.astype(jnp.int8), a.astype(jnp.bfloat16), a.astype(jnp.float16),
                                     a.astype(jnp.uint32), a.astype(jnp.complex64), a.astype(jnp.bool_), a.astype(jnp.float64)), (x,)
    yield "integer_ops", lambda a, b: (a // b, a % b, a << 2, a >> 1, lax.shift_right_logical(a, jnp.int32(1)), a & b, a | b, a ^ b, ~a,
                                       lax.population_count(a), lax.clz(a), jnp.maximum(a, b), jnp.minimum(a, b), a ** 2), (i32 + 1, i32 + 3)
    yield "unsigned", lambda a: (a * 3 + 1, a >> 1, a.astype(jnp.uint8)), (jnp.arange(8, dtype=jnp.uint32),)
    yield "bitcast", lambda a: (lax.bitcast_convert_type(a, jnp.int32), lax.bitcast_convert_type(a, jnp.uint8)), (v,)
    yield "complex", lambda a: (jnp.real(a * a), jnp.imag(a), jnp.conj(a), jnp.abs(a), a * 1j), (v.astype(jnp.complex64),)
    yield "complex128", lambda a: a @ a.conj().T, (jnp.ones((2, 2), jnp.complex128),)
    yield "compare_types", lambda a, b, c: (a < 2, b == 3, c >= 0.5, jnp.isfinite(c), jnp.isnan(c)), (i32, jnp.arange(8, dtype=jnp.uint32), v)
    yield "special_chlo", lambda a: (jax.scipy.special.erf(a), jnp.arcsinh(a), jnp.cosh(a), lax.lgamma(a + 1),
                                     jnp.arctan2(a, a + 1), jnp.nextafter(a, a + 1)), (v,)
    yield "top_k", lambda a: lax.top_k(a, 3), (v,)
    yield "checkpoint", jax.grad(jax.checkpoint(lambda a: jnp.sum(jnp.sin(a) ** 2))), (v,)
    yield "rbg", lambda k: lax.rng_bit_generator(k, (2, 3), algorithm=lax.RandomAlgorithm.RNG_THREE_FRY), (jnp.zeros((2,), jnp.uint64),)
    yield "reduce_precision", lambda a: lax.reduce_precision(a, 5, 10), (v,)
    yield "fft", lambda a: (jnp.fft.fft(a), jnp.fft.rfft(a.real)), (v.astype(jnp.complex64),)
    yield "linalg", lambda a: (jnp.linalg.cholesky(a @ a.T + 4 * jnp.eye(3)), jnp.linalg.qr(a)[0],
                               jax.scipy.linalg.solve_triangular(a @ a.T + jnp.eye(3), a, lower=True)), (jnp.arange(9, dtype=f32).reshape(3, 3) / 10,)
    yield "closure_constants", lambda a: (a + np.arange(8, dtype=f32), a * np.array([True, False] * 4), a + np.full((8,), 2.5, f32),
                                          jnp.array([[1, 2], [3, 4]], jnp.int16).sum() + a,
                                          np.arange(4, dtype=np.int8) * np.array(3, np.int8),
                                          np.array([1.5, -2.25], jnp.bfloat16), np.array([0.5, 65504], np.float16),
                                          np.array([1 + 2j, 3 - 4j], np.complex64), np.array([7, 9], np.uint64),
                                          np.array([True, False, True], np.bool_), np.array([2.0, 3.0], np.float64)), (v,)
    yield "vmap_mlp", jax.vmap(lambda w1, b1, xx: jax.nn.relu(xx @ w1 + b1), in_axes=(None, None, 0)), (jnp.ones((4, 6), f32), jnp.ones((6,), f32), jnp.ones((5, 4), f32))
    yield "grad_mlp", jax.grad(lambda w, xx, t: jnp.mean((jax.nn.softmax(xx @ w) - t) ** 2)), (jnp.ones((4, 3), f32), jnp.ones((5, 4), f32), jnp.ones((5, 3), f32))
    yield "donate_and_tuple_out", jax.jit(lambda a, b: (a + b, {"s": a - b}), donate_argnums=0), (v, v)
    yield "scan", lambda a: lax.scan(lambda c, t: (c + t, c * t), 0.0, a), (v,)
    yield "while_tuple", lambda a: lax.while_loop(lambda s: s[0] < 10, lambda s: (s[0] + 1, s[1] * 1.5), (0, a)), (v,)
    yield "argmin_int64", lambda a: jnp.argmin(a.astype(jnp.int64), axis=0), (x,)
    yield "optimization_barrier", lambda a, b: lax.optimization_barrier((a * 2, b)), (v, i32)
    yield "train_step", train_step, train_step_args()
    yield "deep_traceback", lambda a: deep(300, a), (v,)
    yield "nested_jit", lambda a: jax.jit(lambda t: jnp.sin(t) * 2)(a) + jax.jit(lambda t: t @ t.T)(a.reshape(2, 4)).sum(), (v,)


def attr_json(attr):
    """Describes one attribute: constants as raw little-endian bytes when numpy
    can hold them, everything else as MLIR text."""
    if isinstance(attr, (ir.DenseIntElementsAttr, ir.DenseFPElementsAttr)):
        try:
            arr = np.ascontiguousarray(np.asarray(attr))
        except Exception:  # bf16, f8, i4…: numpy cannot view them
            return {"text": str(attr)}
        if arr.dtype.byteorder == ">":
            arr = arr.byteswap().view(arr.dtype.newbyteorder("<"))
        if arr.dtype == np.bool_:
            arr = arr.astype(np.uint8)
        return {"dense": arr.tobytes().hex(), "text": str(attr)}
    return {"text": str(attr)}


def named_attrs(op):
    """(name, attribute) pairs of an op, whatever the bindings iterate."""
    out = []
    for i in range(len(op.attributes)):
        item = op.attributes[i]
        out.append((item.name, item.attr))
    return out


def describe(op):
    out = []

    def walk(o, depth):
        for region in o.regions:
            for block in region.blocks:
                for sub in block.operations:
                    sub = sub.operation
                    # The bindings abort the process when asked for a complex
                    # dense attribute: describe such constants by their text.
                    complex_const = sub.name == "stablehlo.constant" and "complex" in str(sub.results[0].type)
                    attrs = None if complex_const else named_attrs(sub)
                    entry = {"name": sub.name, "depth": depth, "results": [str(r.type) for r in sub.results],
                             "loc": str(sub.location)}
                    if attrs is None:
                        entry["optext"] = str(sub)
                    else:
                        entry["attrs"] = {k: attr_json(v) for k, v in attrs}
                    out.append(entry)
                    walk(sub, depth + 1)

    walk(op, 0)
    return out


# Older StableHLO targets a client may ask for (bytecode v0, v4, v6 and
# older op versions), plus the default target without mixed serialization.
TARGETS = ["0.9.0", "0.14.0", "0.20.0", "1.0.0", "1.5.0", "1.10.0"]
DEFAULT_TARGET = "1.13.0"


def emit(ctx, outdir, name, data):
    with open(os.path.join(outdir, name + ".bc"), "wb") as f:
        f.write(data)
    with ctx:
        module = _jax.mlir.deserialize_portable_artifact(data)
        funcs = []
        for fop in module.body.operations:
            fop = fop.operation
            entry = {"op": fop.name, "name": str(fop.attributes["sym_name"]).strip('"') if "sym_name" in fop.attributes else "",
                     "ops": describe(fop)}
            for key in ("arg_attrs", "res_attrs"):
                if key in fop.attributes:
                    entry[key] = [str(d) for d in ir.ArrayAttr(fop.attributes[key])]
            funcs.append(entry)
        desc = {"module_attrs": {k: str(v) for k, v in named_attrs(module.operation) or []}, "funcs": funcs}
    with open(os.path.join(outdir, name + ".json"), "w") as f:
        json.dump(desc, f)


# A constant held in a dialect resource (dense_resource), which JAX itself
# does not emit but mixed serialization allows; the blob is 1, 2, 3, 4 (f32).
DENSE_RESOURCE_MODULE = """
module @m {
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.constant dense_resource<blob1> : tensor<4xf32>
    %1 = stablehlo.add %arg0, %0 : tensor<4xf32>
    return %1 : tensor<4xf32>
  }
}
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000000803F000000400000404000008040"
    }
  }
#-}
"""


def main():
    outdir = sys.argv[1]
    only = sys.argv[2] if len(sys.argv) > 2 else None  # one program, no variants
    os.makedirs(outdir, exist_ok=True)
    ctx = jmlir.make_ir_context()
    count = 0
    for name, fn, args in programs():
        if only and name != only:
            continue
        jitted = fn if hasattr(fn, "trace") else jax.jit(fn)  # already jitted: keep its options (donation)
        exported = jax.export.export(jitted)(*args)
        emit(ctx, outdir, name, exported.mlir_module_serialized)
        count += 1
        if only:
            break
        text = exported.mlir_module()
        variants = [(t, True) for t in TARGETS] + [(DEFAULT_TARGET, False)]
        for target, mixed in variants:
            with ctx:
                module = ir.Module.parse(text)
                try:
                    data = _jax.mlir.serialize_portable_artifact(module, target, mixed)
                except Exception:
                    continue  # the program uses ops this target predates
            emit(ctx, outdir, "%s@%s%s" % (name, target, "" if mixed else "-nomixed"), data)
            count += 1
    if not only:
        for target in [DEFAULT_TARGET] + TARGETS[3:]:
            with ctx:
                data = _jax.mlir.serialize_portable_artifact(ir.Module.parse(DENSE_RESOURCE_MODULE), target, True)
            emit(ctx, outdir, "dense_resource@" + target, data)
            count += 1
    print(count, "artifacts")


if __name__ == "__main__":
    main()
