"""What JAX's compiled objects report about a gojax program: cost analysis
(checked against XLA:CPU's in the same process) and compile options
(checked as XLA checks them)."""

from __future__ import annotations

import os
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


def _computation(text, name):
    """The body of the HLO computation called name."""
    m = re.search(rf"^%?{re.escape(name.lstrip('%'))} [^\n]*\{{\n(.*?)^\}}", text, re.S | re.M)
    assert m, (name, text)
    return m.group(1)


def test_compiled_text_is_the_optimized_program(gojax_device, cpu_device):
    # compile().as_text() and hlo_modules() show gojax's program after its
    # passes (docs/runtime.md), converted to HLO by jaxlib; its entry
    # signature is XLA:CPU's.
    f = lambda a, b: jnp.sin(a) @ b + 1
    a, b = np.ones((3, 4), np.float32), np.ones((4, 2), np.float32)
    g, x = _compiled(f, gojax_device, a, b), _compiled(f, cpu_device, a, b)
    text = g.as_text()
    assert isinstance(text, str)
    for op in ("sine", "dot", "add"):
        assert re.search(rf"\b{op}\(", text), (op, text)
    assert _entry_shapes(text) == _entry_shapes(x.as_text()) == ["f32[3,4]", "f32[4,2]", "f32[3,2]"]
    # The module carries the plan's totals; each step its slots.
    assert re.search(r'^HloModule .*frontend_attributes=\{.*gojax.kernel_steps="\d+"', text, re.M), text
    assert re.search(r'gojax.vector_set="(avx512|avx2|none)"', text), text
    assert re.search(r'dot\(.*gojax.reads="s\d+\[48\],s\d+\[32\]".*gojax.writes="s\d+\[24\]"', text), text
    modules = g.runtime_executable().hlo_modules()
    assert len(modules) == 1 and modules[0].to_string() == text


def test_compiled_text_shows_one_fusion_with_its_ops_and_slots(gojax_device):
    x = np.ones((64, 32), np.float32)
    text = _compiled(lambda a, b: jnp.tanh(a * 2 + 1) * b - jnp.maximum(a, b), gojax_device, x, x).as_text()
    calls = [line for line in text.splitlines() if 'gojax.fusion="gojax.fusion"' in line]
    assert len(calls) == 1, text
    call = calls[0]
    # The step reads the two scalar constants (4 bytes each) and both
    # arguments (8192 bytes each), and writes its result.
    assert " fusion(" in call and "kind=kLoop" in call, call
    assert re.search(r'gojax.reads="s\d+\[4\],s\d+\[4\],s\d+\[8192\],s\d+\[8192\]"', call), call
    assert re.search(r'gojax.writes="s\d+\[8192\]"', call), call
    assert re.search(r'gojax.ops="[a-z_,]*tanh[a-z_,]*"', call), call
    body = _computation(text, re.search(r"calls=%?([\w.\-]+)", call).group(1))
    for op in ("multiply", "add", "tanh", "maximum", "subtract"):
        assert re.search(rf"= f32\[64,32\]\S* {op}\(", body), (op, body)
    # No elementwise op of the chain is left outside the fusion.
    entry = re.search(r"^ENTRY [^\n]*\{\n(.*?)^\}", text, re.S | re.M).group(1)
    assert not re.search(r"\b(multiply|tanh|maximum|subtract)\(", entry), entry


def test_compiled_text_shows_partial_sort(gojax_device):
    x = np.arange(100, dtype=np.float32)[::-1].copy()
    text = _compiled(lambda a: jnp.sort(a)[:5], gojax_device, x).as_text()
    assert re.search(r'custom-call\(.*custom_call_target="gojax.partial_sort"', text), text
    text = _compiled(lambda a: lax.top_k(a, 3), gojax_device, x).as_text()
    assert "ENTRY" in text


def test_compiled_text_shows_donation(gojax_device):
    g = jax.jit(lambda a: a * 2, donate_argnums=0).lower(jax.device_put(np.ones(8, np.float32), gojax_device)).compile()
    text = g.as_text()
    assert "input_output_alias" in text
    # Output 0 may reuse argument 0's buffer.
    assert re.search(r'^HloModule .*gojax.output_aliases="0"', text, re.M), text


def _programs():
    """Programs that reach most of gojax's passes and kernel families."""
    k = jax.random.key(0)
    v = np.linspace(-2, 2, 24, dtype=np.float32)
    m = np.arange(16, dtype=np.float32).reshape(4, 4) + 4 * np.eye(4, dtype=np.float32)
    i = np.arange(6, dtype=np.int32)
    img = np.ones((1, 2, 6, 6), np.float32)
    w = np.ones((3, 2, 3, 3), np.float32)
    return {
        "fori_loop": (lambda a: lax.fori_loop(0, 5, lambda j, c: c * 2 + j, a), v),
        "while": (lambda a: lax.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * 1.5), (0, a))[1], v),
        "cond": (lambda a: lax.cond(a[0] > 0, jnp.sin, jnp.cos, a), v),
        "switch": (lambda a, j: lax.switch(j[0] % 3, [jnp.sin, jnp.cos, jnp.tanh], a), v, i),
        "scan": (lambda a: lax.scan(lambda c, x: (c + x, c * x), 0.0, a), v),
        "cumsum": (lambda a: jnp.cumsum(a) + jnp.cumprod(a), v),
        "sort": (lambda a: jnp.sort(a), v),
        "argsort": (lambda a: jnp.argsort(a), v),
        "top_k": (lambda a: lax.top_k(a, 4), v),
        "reductions": (lambda a: (a.sum(), a.max(), jnp.argmax(a), a.reshape(4, 6).mean(1)), v),
        "softmax": (lambda a: jax.nn.softmax(a.reshape(4, 6), axis=-1), v),
        "logsumexp": (lambda a: jax.nn.logsumexp(a.reshape(6, 4), axis=0), v),
        "random": (lambda key: (jax.random.normal(key, (8,)), jax.random.randint(key, (3,), 0, 9)), k),
        "dot": (lambda a, b: a @ b @ a.T, m, m),
        "einsum": (lambda a: jnp.einsum("ij,jk,kl->il", a, a, a), m),
        "conv": (lambda a, b: lax.conv(a, b, (1, 1), "SAME"), img, w),
        "reduce_window": (lambda a: lax.reduce_window(a, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID"), img),
        # Its gradient is a select_and_scatter (two regions); padded windows.
        "reduce_window_grad": (jax.grad(lambda a: lax.reduce_window(
            a, -jnp.inf, lax.max, (1, 1, 3, 2), (1, 1, 2, 1), ((0, 0), (0, 0), (2, 1), (1, 1))).sum()), img),
        "gather": (lambda a, j: a[j], v, i),
        "scatter": (lambda a, j: a.at[j].add(1.0), v, i),
        "dynamic_slice": (lambda a, j: lax.dynamic_slice(a, (j[1],), (4,)), v, i),
        "dynamic_update_slice": (lambda a, j: lax.dynamic_update_slice(a, a[:4] * 2, (j[2],)), v, i),
        "pad_concat_rev": (lambda a: jnp.concatenate([jnp.pad(a, (2, 3)), a[::-1]]), v),
        "transpose_reshape": (lambda a: (a.reshape(2, 3, 4).transpose(2, 0, 1) + 1).reshape(-1), v),
        "iota_compare_select": (lambda a: jnp.where(jnp.arange(24) % 3 == 0, a, -a), v),
        "int_ops": (lambda j: (j << 2, j // 2, j % 4, j & 3, jnp.clip(j, 1, 4)), i),
        "convert": (lambda a: (a.astype(jnp.bfloat16) * 2).astype(jnp.float16), v),
        "complex": (lambda a: jnp.abs(jnp.exp(1j * a)) + jnp.angle(a + 1j), v),
        "fft": (lambda a: jnp.fft.rfft(a), v),
        "cholesky": (lambda a: jnp.linalg.cholesky(a @ a.T), m),
        "qr": (lambda a: jnp.linalg.qr(a), m),
        "svd": (lambda a: jnp.linalg.svd(a, compute_uv=False), m),
        "eigh": (lambda a: jnp.linalg.eigh(a + a.T), m),
        "solve": (lambda a, b: jnp.linalg.solve(a, b), m, m[:, :2]),
        "triangular_solve": (lambda a, b: jax.scipy.linalg.solve_triangular(a, b, lower=True), m, m),
        "grad": (lambda a: jax.grad(lambda x: jnp.sum(jnp.tanh(x) ** 2))(a), v),
        "vmap": (lambda a: jax.vmap(lambda r: r @ r)(a), m),
        "callback": (lambda a: jax.pure_callback(lambda x: x * 2, jax.ShapeDtypeStruct(a.shape, a.dtype), a) + 1, v),
        "big_constant": (lambda a: a + jnp.asarray(np.arange(24, dtype=np.float32)), v),
        "erf_lgamma": (lambda a: jax.scipy.special.erf(a) + jax.lax.lgamma(jnp.abs(a) + 1), v),
        "rng_bit_generator": (lambda key: lax.rng_bit_generator(key, (4,))[1], np.zeros(4, np.uint32)),
        "reduce_precision": (lambda a: lax.reduce_precision(a, 5, 10), v),
        "optimization_barrier": (lambda a: lax.optimization_barrier(a * 2) + 1, v),
        "clamp_popcnt": (lambda a, j: (lax.clamp(-1.0, a, 1.0), lax.population_count(j)), v, i),
    }


PROGRAMS = sorted(_programs()) if jax is not None else []


@pytest.mark.parametrize("name", PROGRAMS)
def test_compiled_text_of_every_program(gojax_device, name):
    # jaxlib converts the text of any program gojax compiles; the text is
    # gojax's optimized program (its steps carry their slots).
    f, *args = _programs()[name]
    text = _compiled(f, gojax_device, *args).as_text()
    assert isinstance(text, str) and "\nENTRY " in text, text
    assert re.search(r'gojax.step ?= ?"\d+"', text), text


def test_compiled_text_of_shardy_programs():
    # Shardy annotations are dropped from the text (jaxlib's HLO converter
    # refuses them); a shard_map over the whole mesh runs per device, so the
    # text is device 0's program, its body, as XLA:CPU's partitioned text.
    from gojax_testutil import check_python

    out = check_python("""
import numpy as np, jax, jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
jax.config.update("jax_num_cpu_devices", 4)
devs = jax.devices("gojax")
assert len(devs) == 4, devs
mesh = Mesh(np.array(devs), ("x",))
x = jax.device_put(np.arange(16, dtype=np.float32), NamedSharding(mesh, P("x")))
f = jax.shard_map(lambda a: jax.lax.psum(a * 2, "x"), mesh=mesh, in_specs=P("x"), out_specs=P())
text = jax.jit(f).lower(x).compile().as_text()
assert text is not None and "manual_computation" not in text, text
assert "all-reduce(" in text or "stablehlo.all_reduce" in text, text
g = lambda a: jax.lax.with_sharding_constraint(a * 2, NamedSharding(mesh, P("x"))) + 1
text = jax.jit(g).lower(x).compile().as_text()
assert text is not None and "\\nENTRY " in text, text
print("ok")
""", env={"GOJAX_NUM_DEVICES": "", "JAX_NUM_CPU_DEVICES": "-1", "XLA_FLAGS": ""})
    assert out.strip().endswith("ok"), out


def test_compiled_text_of_the_differential_suite(tmp_path):
    # Every program a part of the differential suite compiles for gojax has
    # text: jaxlib converts gojax's optimized program (compiled_text_sweep
    # asks each executable for its HLO modules). Whether those tests pass
    # is their own business; the sweep's failures are this test's.
    import json
    import subprocess
    import sys

    from gojax_testutil import TESTS_DIR

    out = tmp_path / "sweep.json"
    files = ["differential/test_control_flow.py", "differential/test_random.py", "differential/test_exotic.py"]
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "compiled_text_sweep", "-p", "no:cacheprovider",
                           *files], cwd=TESTS_DIR, env=dict(os.environ, GOJAX_TEXT_SWEEP_OUT=str(out)),
                          capture_output=True, text=True, timeout=1200)
    assert out.exists(), proc.stdout[-3000:] + proc.stderr[-3000:]
    sweep = json.loads(out.read_text())
    assert sweep["failures"] == []
    # Each is gojax's optimized program, not the fallback (the program as
    # received).
    assert sweep["checked"] >= 100 and sweep["optimized"] == sweep["checked"], sweep


def test_dce_sink_keeps_its_operand_computed(gojax_device):
    # lax.dce_sink(y, prevent_mlir_dce=True) keeps y computed, as XLA does:
    # the sink and y's add stay in the optimized program.
    from jax import lax

    def f(x):
        lax.dce_sink(x + 1, prevent_mlir_dce=True)
        return x * 3

    x = jax.device_put(np.float32(2), gojax_device)
    compiled = jax.jit(f).lower(x).compile()
    text = compiled.as_text()
    assert 'custom_call_target="dce_sink"' in text and " add(" in text, text
    assert float(compiled(x)) == 6.0
