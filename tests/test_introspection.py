"""What JAX's compiled objects report about a gojax program: cost analysis
(checked against XLA:CPU's in the same process) and compile options
(checked as XLA checks them)."""

from __future__ import annotations

import re

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
lax = jax.lax


def _compiled(f, device, *args, **compile_kwargs):
    args = [jax.device_put(a, device) for a in args]
    return jax.jit(f).lower(*args).compile(**compile_kwargs)


def _costs(f, gojax_device, cpu_device, *args):
    g = _compiled(f, gojax_device, *args).cost_analysis()
    x = _compiled(f, cpu_device, *args).cost_analysis()
    assert isinstance(g, dict), g
    return g, x


def _conv(lhs, rhs):
    return lax.conv_general_dilated(lhs, rhs, window_strides=(2, 1), padding=((1, 2), (1, 1)),
                                    rhs_dilation=(1, 2), dimension_numbers=("NCHW", "OIHW", "NCHW"))


def test_cost_analysis_keys(gojax_device):
    c = _compiled(lambda a: a + 4, gojax_device, np.float32(1)).cost_analysis()
    for key in ("flops", "transcendentals", "bytes accessed", "bytes accessed0{}", "bytes accessedout{}",
                "utilization0{}"):
        assert isinstance(c[key], float), (key, c)
    assert c["flops"] == 1
    # Reads two 4-byte scalars, writes one.
    assert c["bytes accessed"] == 12
    assert c["bytes accessedout{}"] == 4


def test_cost_analysis_of_identity_is_not_none(gojax_device):
    # JAX's api_test checks that every compiled program has one.
    assert _compiled(lambda a: a, gojax_device, np.float32(1)).cost_analysis() is not None


def test_matmul_flops_match_xla(gojax_device, cpu_device):
    m, k, n = 17, 9, 5
    a = np.ones((m, k), np.float32)
    b = np.ones((k, n), np.float32)
    g, x = _costs(lambda a, b: a @ b, gojax_device, cpu_device, a, b)
    assert g["flops"] == 2 * m * n * k == x["flops"]
    assert g["bytes accessed0{}"] == a.nbytes == x["bytes accessed0{}"]
    assert g["bytes accessed1{}"] == b.nbytes == x["bytes accessed1{}"]
    assert g["bytes accessedout{}"] == 4 * m * n == x["bytes accessedout{}"]
    assert g["bytes accessed"] == x["bytes accessed"]


def test_batched_einsum_flops_match_xla(gojax_device, cpu_device):
    a = np.ones((3, 4, 6), np.float32)
    b = np.ones((3, 6, 2), np.float32)
    g, x = _costs(lambda a, b: jnp.einsum("bij,bjk->bik", a, b), gojax_device, cpu_device, a, b)
    assert g["flops"] == 2 * 3 * 4 * 2 * 6 == x["flops"]


@pytest.mark.parametrize("name", ["exp", "log", "tanh", "sin", "sqrt", "rsqrt", "expm1", "log1p", "pow", "atan2"])
def test_transcendentals_match_xla(gojax_device, cpu_device, name):
    f = {"exp": jnp.exp, "log": jnp.log, "tanh": jnp.tanh, "sin": jnp.sin, "sqrt": jnp.sqrt, "rsqrt": lax.rsqrt,
         "expm1": jnp.expm1, "log1p": jnp.log1p, "pow": lax.pow, "atan2": lax.atan2}[name]
    x = np.linspace(0.5, 2, 30, dtype=np.float32)
    args = (x, x[::-1].copy()) if name in ("pow", "atan2") else (x,)
    g, c = _costs(f, gojax_device, cpu_device, *args)
    assert g["transcendentals"] == x.size == c["transcendentals"]
    assert g["flops"] == c.get("flops", 0.0) == 0


def test_elementwise_and_fused_flops_match_xla(gojax_device, cpu_device):
    x = np.ones((64, 32), np.float32)
    g, c = _costs(lambda a, b: jnp.tanh(a * 2 + 1) * b - jnp.maximum(a, b), gojax_device, cpu_device, x, x)
    # multiply, add, multiply, maximum, subtract: 5 flops; tanh: 1
    # transcendental per element.
    assert g["flops"] == 5 * x.size == c["flops"]
    assert g["transcendentals"] == x.size == c["transcendentals"]


@pytest.mark.parametrize("axis", [0, 1, None])
def test_reduction_flops_match_xla(gojax_device, cpu_device, axis):
    x = np.ones((12, 7), np.float32)
    g, c = _costs(lambda a: jnp.sum(a, axis=axis), gojax_device, cpu_device, x)
    out = x.sum(axis=axis).size
    assert g["flops"] == x.size - out == c["flops"]


def test_convolution_flops_match_xla(gojax_device, cpu_device):
    lhs = np.ones((2, 3, 9, 8), np.float32)
    rhs = np.ones((4, 3, 3, 2), np.float32)
    g, c = _costs(_conv, gojax_device, cpu_device, lhs, rhs)
    assert g["flops"] == c["flops"] > 0


def test_loop_counts_one_iteration_like_xla(gojax_device, cpu_device):
    def f(x):
        return lax.fori_loop(0, 10, lambda i, v: v * 2 + 1, x)

    g, c = _costs(f, gojax_device, cpu_device, np.ones((50,), np.float32))
    # One iteration: the body's multiply and add on 50 elements, plus the
    # counter's add and compare.
    assert g["flops"] == 2 * 50 + 2 == c["flops"]


def _sqrt_plus_one(x):
    return jnp.sqrt(x ** 2) + 1.


@pytest.mark.parametrize("options", [
    {"xla_embed_ir_in_executable": True, "xla_dump_max_hlo_modules": 200,
     "xla_gpu_auto_spmd_partitioning_memory_budget_ratio": 0.5},
    {"xla_embed_ir_in_executable": "False", "xla_dump_max_hlo_modules": "3"},
    {"xla_gpu_enable_command_buffer": ""},
    {"xla_gpu_enable_command_buffer": "FUSION,CUBLAS"},
])
def test_xla_debug_options_are_accepted(gojax_device, cpu_device, options):
    for device in (gojax_device, cpu_device):
        c = _compiled(_sqrt_plus_one, device, np.float32(-2), compiler_options=options)
        assert float(c(jax.device_put(np.float32(-2), device))) == 3.0


@pytest.mark.parametrize("options, message", [
    ({"invalid_key": "invalid_value"}, "No such compile option: 'invalid_key'"),
    ({"xla_embed_ir_in_executable": "invalid_value"},
     "While setting option xla_embed_ir_in_executable, 'invalid_value' is not a valid bool value."),
    ({"xla_dump_max_hlo_modules": 1 << 40}, "'1099511627776' is not a valid int32 value."),
    ({"xla_gpu_enable_command_buffer": "FUSION,BOGUS"}, "'BOGUS' is not a valid enum value."),
])
def test_invalid_compile_options_fail_like_xla(gojax_device, cpu_device, options, message):
    for device in (gojax_device, cpu_device):
        with pytest.raises(jax.errors.JaxRuntimeError, match=re.escape(message)):
            _compiled(_sqrt_plus_one, device, np.float32(1), compiler_options=options)
    # An invalid option fails every compile, not only the first.
    with pytest.raises(jax.errors.JaxRuntimeError, match=re.escape(message)):
        jax.jit(_sqrt_plus_one, compiler_options=options)(jax.device_put(np.float32(1), gojax_device))


def _entry_shapes(text):
    """The parameter and result shapes of an HLO module's ENTRY line."""
    entry = next(line for line in text.splitlines() if line.startswith("ENTRY"))
    return re.findall(r"\b(?:pred|[suf]\d+|bf16|c64|c128)\[[\d,]*\]", entry)


def test_compiled_text_is_the_program_as_hlo(gojax_device, cpu_device):
    # compile().as_text() and hlo_modules() show the program gojax compiled
    # (before its own passes), converted to HLO by jaxlib; its entry
    # signature is XLA:CPU's.
    f = lambda a, b: jnp.sin(a) @ b + 1
    a, b = np.ones((3, 4), np.float32), np.ones((4, 2), np.float32)
    g, x = _compiled(f, gojax_device, a, b), _compiled(f, cpu_device, a, b)
    text = g.as_text()
    assert isinstance(text, str)
    for op in ("sine", "dot", "add"):
        assert re.search(rf"\b{op}\(", text), (op, text)
    assert _entry_shapes(text) == _entry_shapes(x.as_text()) == ["f32[3,4]", "f32[4,2]", "f32[3,2]"]
    modules = g.runtime_executable().hlo_modules()
    assert len(modules) == 1 and "ENTRY" in modules[0].to_string()


def test_compiled_text_shows_donation(gojax_device):
    g = jax.jit(lambda a: a * 2, donate_argnums=0).lower(jax.device_put(np.ones(8, np.float32), gojax_device)).compile()
    assert "input_output_alias" in g.as_text()

