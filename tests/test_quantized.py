"""Quantized StableHLO programs (!quant.uniform element types) through
jaxlib's PJRT client on gojax.

JAX has no public lowering that emits quantized types, and jaxlib's Python
MLIR context has no quant dialect, so the programs are written as StableHLO
text and serialized with StableHLO's own string entry point, then compiled
and run through the same client JAX uses. The oracle is the spec's formulas
(quantize = clamp(round_half_even(x / scale + zero_point)), dequantize =
(q - zero_point) * scale) written with jax.numpy and run on XLA:CPU.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax._src.lib import xla_client


def _run_on_gojax(device, text, *args):
    from jaxlib.mlir._mlir_libs import _stablehlo

    art = _stablehlo.serialize_portable_artifact_str(text, _stablehlo.get_current_version())
    exe = device.client.compile_and_load(art, [device], xla_client.CompileOptions())
    outs = exe.execute_sharded([jax.device_put(a, device) for a in args])
    return [np.asarray(o[0]) for o in outs.disassemble_into_single_device_arrays()]


def _quantize(x, scale, zp, lo=-128, hi=127):
    # scale and zero point broadcast along the quantized dimension.
    s = jnp.asarray(scale, jnp.float32)
    return jnp.clip(jnp.round(x / s + jnp.asarray(zp, jnp.float32)), lo, hi)


def _dequantize(q, scale, zp):
    return (q - jnp.asarray(zp, jnp.float32)) * jnp.asarray(scale, jnp.float32)


def test_quantized_add_and_per_axis_weights(gojax_device, cpu_device):
    # add of two per-tensor scales (dequantize-op-quantize, as the spec
    # says), and per-axis quantized weights moved by a transpose (the stored
    # integers move with their quantized dimension) and dequantized.
    # Adds and multiplies are correctly rounded everywhere: exact equality.
    qa = "!quant.uniform<i8:f32, 0.05:-3>"
    qb = "!quant.uniform<i8:f32, 0.025:4>"
    qs = "!quant.uniform<i8:f32, 0.1:1>"
    qw0 = "!quant.uniform<i8:f32:0, {0.02:0,0.03:-5,0.05:7}>"
    qw1 = "!quant.uniform<i8:f32:1, {0.02:0,0.03:-5,0.05:7}>"
    qm = "!quant.uniform<i8:f32, 0.2:-2>"
    t = lambda q: f"tensor<16x3x{q}>"
    text = f"""
func.func @main(%a: tensor<16x3xf32>, %b: tensor<16x3xf32>, %w: tensor<3x16xf32>) -> tensor<16x3xf32> {{
  %qa = stablehlo.uniform_quantize %a : (tensor<16x3xf32>) -> {t(qa)}
  %qb = stablehlo.uniform_quantize %b : (tensor<16x3xf32>) -> {t(qb)}
  %s = stablehlo.add %qa, %qb : ({t(qa)}, {t(qb)}) -> {t(qs)}
  %ds = stablehlo.uniform_dequantize %s : ({t(qs)}) -> tensor<16x3xf32>
  %qw = stablehlo.uniform_quantize %w : (tensor<3x16xf32>) -> tensor<3x16x{qw0}>
  %qwt = stablehlo.transpose %qw, dims = [1, 0] : (tensor<3x16x{qw0}>) -> {t(qw1)}
  %dw = stablehlo.uniform_dequantize %qwt : ({t(qw1)}) -> tensor<16x3xf32>
  %m = stablehlo.multiply %ds, %dw : tensor<16x3xf32>
  %qm = stablehlo.uniform_quantize %m : (tensor<16x3xf32>) -> {t(qm)}
  %r = stablehlo.uniform_dequantize %qm : ({t(qm)}) -> tensor<16x3xf32>
  return %r : tensor<16x3xf32>
}}
"""
    rng = np.random.default_rng(0)
    a, b = (rng.uniform(-4, 4, (16, 3)).astype(np.float32) for _ in range(2))
    w = rng.uniform(-4, 4, (3, 16)).astype(np.float32)
    # A half-way case: 0.0125 / 0.025 + 4 = 4.5 exactly in f32 (0.025f is
    # twice 0.0125f), which rounds half to even, to 4 (away from zero: 5).
    b[0, 0] = np.float32(0.0125)

    ws, wz = np.array([0.02, 0.03, 0.05]), np.array([0, -5, 7])

    def oracle(a, b, w):
        sa = _dequantize(_quantize(a, 0.05, -3), 0.05, -3)
        sb = _dequantize(_quantize(b, 0.025, 4), 0.025, 4)
        s = _dequantize(_quantize(sa + sb, 0.1, 1), 0.1, 1)
        dw = _dequantize(_quantize(w, ws[:, None], wz[:, None]), ws[:, None], wz[:, None]).T
        return _dequantize(_quantize(s * dw, 0.2, -2), 0.2, -2)

    want = np.asarray(jax.jit(oracle)(*jax.device_put((a, b, w), cpu_device)))
    (got,) = _run_on_gojax(gojax_device, text, a, b, w)
    np.testing.assert_array_equal(got, want)


def test_quantized_dot_general_per_axis_weights(gojax_device, cpu_device):
    # A quantized matmul with per-output-channel weight scales and an i32
    # result, as quantized layers are written. (Returned dequantized: jaxlib
    # itself aborts on a quantized @main result, in ifrt's
    # GetDTypesAndShapes, before the plugin is asked anything.) The f32 sums may be added in
    # another order than XLA's, which can move a result across a rounding
    # boundary: at most one step of the result scale.
    qx = "!quant.uniform<i8:f32, 0.03:-10>"
    qw = "!quant.uniform<i8:f32:1, {0.01,0.02,0.04,0.015}>"
    qy = "!quant.uniform<i32:f32, 0.0003>"
    text = f"""
func.func @main(%x: tensor<8x32xf32>, %w: tensor<32x4xf32>) -> tensor<8x4xf32> {{
  %qx = stablehlo.uniform_quantize %x : (tensor<8x32xf32>) -> tensor<8x32x{qx}>
  %qw = stablehlo.uniform_quantize %w : (tensor<32x4xf32>) -> tensor<32x4x{qw}>
  %y = stablehlo.dot_general %qx, %qw, contracting_dims = [1] x [0] : (tensor<8x32x{qx}>, tensor<32x4x{qw}>) -> tensor<8x4x{qy}>
  %r = stablehlo.uniform_dequantize %y : (tensor<8x4x{qy}>) -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}}
"""
    rng = np.random.default_rng(1)
    x = rng.uniform(-2, 2, (8, 32)).astype(np.float32)
    w = rng.uniform(-1, 1, (32, 4)).astype(np.float32)
    ws = np.array([0.01, 0.02, 0.04, 0.015])

    def oracle(x, w):
        dx = _dequantize(_quantize(x, 0.03, -10), 0.03, -10)
        dw = _dequantize(_quantize(w, ws, 0), ws, 0)
        y = jnp.dot(dx, dw, precision=jax.lax.Precision.HIGHEST)
        q = _quantize(y, 0.0003, 0, -(2**31), 2**31 - 1)
        return _dequantize(q, 0.0003, 0)

    want = np.asarray(jax.jit(oracle)(*jax.device_put((x, w), cpu_device)))
    (got,) = _run_on_gojax(gojax_device, text, x, w)
    np.testing.assert_allclose(got, want, rtol=0, atol=np.float32(0.0003) * 1.001)
    assert (got == want).mean() > 0.9  # off by a step only at a rounding boundary


def test_quantized_reduce(gojax_device):
    # The reduce runs on stored integers; its body is a quantized add. The
    # inputs are halves whose partial sums stay within the i8 range at scale
    # 0.5, so every order of summation gives the exact sum.
    q = "!quant.uniform<i8:f32, 0.5>"
    text = f"""
func.func @main(%x: tensor<16xf32>) -> tensor<f32> {{
  %qx = stablehlo.uniform_quantize %x : (tensor<16xf32>) -> tensor<16x{q}>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %qz = stablehlo.uniform_quantize %z : (tensor<f32>) -> tensor<{q}>
  %r = stablehlo.reduce(%qx init: %qz) applies stablehlo.add across dimensions = [0] : (tensor<16x{q}>, tensor<{q}>) -> tensor<{q}>
  %d = stablehlo.uniform_dequantize %r : (tensor<{q}>) -> tensor<f32>
  return %d : tensor<f32>
}}
"""
    x = (np.random.default_rng(2).integers(-4, 5, 16) / 2).astype(np.float32)
    (got,) = _run_on_gojax(gojax_device, text, x)
    assert got == x.sum()


def test_quantized_select_and_scatter_is_an_error_naming_the_op(gojax_device):
    q = "!quant.uniform<i8:f32, 0.5>"
    text = f"""
func.func @main(%x: tensor<4xf32>, %s: tensor<2xf32>) -> tensor<4xf32> {{
  %qx = stablehlo.uniform_quantize %x : (tensor<4xf32>) -> tensor<4x{q}>
  %qs = stablehlo.uniform_quantize %s : (tensor<2xf32>) -> tensor<2x{q}>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %qz = stablehlo.uniform_quantize %z : (tensor<f32>) -> tensor<{q}>
  %r = "stablehlo.select_and_scatter"(%qx, %qs, %qz) ({{
    ^bb0(%a: tensor<{q}>, %b: tensor<{q}>):
      %c = stablehlo.compare GE, %a, %b : (tensor<{q}>, tensor<{q}>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
  }}, {{
    ^bb0(%a: tensor<{q}>, %b: tensor<{q}>):
      %c = stablehlo.add %a, %b : tensor<{q}>
      stablehlo.return %c : tensor<{q}>
  }}) {{window_dimensions = array<i64: 2>, window_strides = array<i64: 2>}} : (tensor<4x{q}>, tensor<2x{q}>, tensor<{q}>) -> tensor<4x{q}>
  %d = stablehlo.uniform_dequantize %r : (tensor<4x{q}>) -> tensor<4xf32>
  return %d : tensor<4xf32>
}}
"""
    with pytest.raises(Exception, match=r"stablehlo\.select_and_scatter.*quantized"):
        _run_on_gojax(gojax_device, text, np.zeros(4, np.float32), np.ones(2, np.float32))


def test_quantized_constant_holds_stored_integers(gojax_device):
    q = "!quant.uniform<i8:f32, 0.25:2>"
    text = f"""
func.func @main() -> tensor<3xf32> {{
  %c = stablehlo.constant() {{value = dense<[6, -2, 2]> : tensor<3xi8>}} : () -> tensor<3x{q}>
  %r = stablehlo.uniform_dequantize %c : (tensor<3x{q}>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}}
"""
    (got,) = _run_on_gojax(gojax_device, text)
    np.testing.assert_array_equal(got, np.float32([1, -1, 0]))  # (q - 2) * 0.25
