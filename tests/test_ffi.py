"""XLA FFI handlers (jax.ffi) on gojax, against the same handlers on XLA:CPU.

tests/ffi/handlers.cc is compiled with g++ against the headers jaxlib ships
(jax.ffi.include_dir()), loaded with ctypes and registered for platform
"cpu" exactly as a user's extension would be; each program then runs on
gojax (the default backend) and on XLA's CPU backend in this process.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import export

_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ffi", "handlers.cc")


@pytest.fixture(scope="module")
def handlers(tmp_path_factory):
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.fail("g++ is required to build the XLA FFI test handlers (tests/ffi/handlers.cc)")
    lib = tmp_path_factory.mktemp("ffi") / "handlers.so"
    subprocess.run(
        [gxx, "-std=c++17", "-O1", "-shared", "-fPIC", "-I", jax.ffi.include_dir(), "-o", str(lib), _SOURCE],
        check=True,
        capture_output=True,
    )
    so = ctypes.cdll.LoadLibrary(str(lib))
    reg = jax.ffi.register_ffi_target
    reg("gojax_test_add_one", jax.ffi.pycapsule(so.GojaxTestAddOne), platform="cpu")
    reg("gojax_test_sum_prod", jax.ffi.pycapsule(so.GojaxTestSumProd), platform="cpu")
    reg("gojax_test_attrs", jax.ffi.pycapsule(so.GojaxTestAttrs), platform="cpu")
    reg("gojax_test_checked", jax.ffi.pycapsule(so.GojaxTestChecked), platform="cpu")
    so.GojaxTestScaleTypeId.restype = ctypes.c_void_p
    so.GojaxTestScaleTypeInfo.restype = ctypes.c_void_p
    jax.ffi.register_ffi_type(
        "gojax_test_scale",
        {
            "type_id": jax.ffi.pycapsule(so.GojaxTestScaleTypeId()),
            "type_info": jax.ffi.pycapsule(so.GojaxTestScaleTypeInfo()),
        },
        platform="cpu",
    )
    reg(
        "gojax_test_scale",
        {
            "instantiate": jax.ffi.pycapsule(so.GojaxTestScaleInstantiate),
            "execute": jax.ffi.pycapsule(so.GojaxTestScaleExecute),
        },
        platform="cpu",
    )
    reg("gojax_test_pool", jax.ffi.pycapsule(so.GojaxTestPool), platform="cpu")
    reg("gojax_test_scratch", jax.ffi.pycapsule(so.GojaxTestScratch), platform="cpu")
    reg("gojax_test_user_data", jax.ffi.pycapsule(so.GojaxTestUserData), platform="cpu")
    reg("gojax_test_async", jax.ffi.pycapsule(so.GojaxTestAsync), platform="cpu")
    reg("gojax_test_run_info", jax.ffi.pycapsule(so.GojaxTestRunInfo), platform="cpu")
    reg("gojax_test_raw_bytes", jax.ffi.pycapsule(so.GojaxTestRawBytes), platform="cpu")
    reg("gojax_test_copy_bytes", jax.ffi.pycapsule(so.GojaxTestCopyBytes), platform="cpu")
    for name in ("Prep", "Init"):
        getattr(so, f"GojaxTest{name}TypeId").restype = ctypes.c_void_p
        getattr(so, f"GojaxTest{name}TypeInfo").restype = ctypes.c_void_p
        jax.ffi.register_ffi_type(
            f"gojax_test_{name.lower()}",
            {
                "type_id": jax.ffi.pycapsule(getattr(so, f"GojaxTest{name}TypeId")()),
                "type_info": jax.ffi.pycapsule(getattr(so, f"GojaxTest{name}TypeInfo")()),
            },
            platform="cpu",
        )
    reg(
        "gojax_test_stages",
        {
            "prepare": jax.ffi.pycapsule(so.GojaxTestStagesPrepare),
            "initialize": jax.ffi.pycapsule(so.GojaxTestStagesInitialize),
            "execute": jax.ffi.pycapsule(so.GojaxTestStagesExecute),
        },
        platform="cpu",
    )
    return so


def _both(fn, *args, gojax_device, cpu_device):
    """Run jit(fn) on gojax and on XLA:CPU; return both results as NumPy."""
    out = []
    for dev in (gojax_device, cpu_device):
        res = jax.jit(fn)(*(jax.device_put(a, dev) for a in args))
        leaves = jax.tree.leaves(res)
        assert all(leaf.devices() == {dev} for leaf in leaves)
        out.append(jax.tree.map(np.asarray, res))
    return out


def add_one(x):
    return jax.ffi.ffi_call("gojax_test_add_one", jax.ShapeDtypeStruct(x.shape, x.dtype))(x)


@pytest.mark.parametrize("shape", [(), (7,), (3, 4), (2, 3, 5), (0, 3)])
def test_add_one(handlers, gojax_device, cpu_device, shape):
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    got, xla = _both(add_one, x, gojax_device=gojax_device, cpu_device=cpu_device)
    np.testing.assert_array_equal(got, x + np.float32(1))
    np.testing.assert_array_equal(got, xla)


def test_two_inputs_two_outputs(handlers, gojax_device, cpu_device):
    def f(a, b):
        t = jax.ShapeDtypeStruct(a.shape, a.dtype)
        s, p = jax.ffi.ffi_call("gojax_test_sum_prod", (t, t))(a, b)
        return s, p * 2  # the handler's results feed gojax's own kernels

    rng = np.random.default_rng(1)
    a = rng.standard_normal((4, 6)).astype(np.float32)
    b = rng.standard_normal((4, 6)).astype(np.float32)
    (s, p), xla = _both(f, a, b, gojax_device=gojax_device, cpu_device=cpu_device)
    np.testing.assert_array_equal(s, a + b)
    np.testing.assert_array_equal(p, a * b * np.float32(2))
    np.testing.assert_array_equal(s, xla[0])
    np.testing.assert_array_equal(p, xla[1])


def attrs_call(x):
    out = jax.ffi.ffi_call("gojax_test_attrs", jax.ShapeDtypeStruct((9,), jnp.float32))(
        i=np.int64(-42),
        f=np.float32(1.5),
        d=np.float64(0.125),
        arr=np.array([3, 4, 5, 100], dtype=np.int64),
        s="gojax",
        flag=True,
        dict={"k": np.int32(7)},
    )
    return out + x


def test_attributes(handlers, gojax_device, cpu_device):
    zero = np.zeros((9,), np.float32)
    got, xla = _both(attrs_call, zero, gojax_device=gojax_device, cpu_device=cpu_device)
    np.testing.assert_array_equal(got, [-42, 1.5, 0.125, 112, 4, 5, ord("g"), 1, 7])
    np.testing.assert_array_equal(got, xla)


def checked(x):
    return jax.ffi.ffi_call("gojax_test_checked", jax.ShapeDtypeStruct(x.shape, x.dtype))(x)


def test_handler_error_is_an_exception(handlers, gojax_device, cpu_device):
    ok = np.array([1.0, -2.0], np.float32)
    got, xla = _both(checked, ok, gojax_device=gojax_device, cpu_device=cpu_device)
    np.testing.assert_array_equal(got, ok)
    bad = np.array([-1.0, 2.0], np.float32)
    # gojax names the handler and the call's source line.
    with pytest.raises(jax.errors.JaxRuntimeError, match=r'FFI handler "gojax_test_checked" failed: .*x\[0\] is negative') as err:
        jax.jit(checked)(jax.device_put(bad, gojax_device)).block_until_ready()
    assert "test_ffi.py" in str(err.value)
    # XLA:CPU raises INVALID_ARGUMENT as ValueError.
    with pytest.raises((jax.errors.JaxRuntimeError, ValueError), match=r"x\[0\] is negative"):
        jax.jit(checked)(jax.device_put(bad, cpu_device)).block_until_ready()
    # The failure left gojax usable.
    np.testing.assert_array_equal(jax.jit(checked)(jax.device_put(ok, gojax_device)), ok)


def test_instantiate_state(handlers, gojax_device, cpu_device):
    def f(x):
        return jax.ffi.ffi_call("gojax_test_scale", jax.ShapeDtypeStruct(x.shape, x.dtype))(x, scale=np.float32(2.5))

    x = np.arange(5, dtype=np.float32)
    got, xla = _both(f, x, gojax_device=gojax_device, cpu_device=cpu_device)
    np.testing.assert_array_equal(got, x * np.float32(2.5))
    np.testing.assert_array_equal(got, xla)


def test_thread_pool(handlers, gojax_device, cpu_device):
    def f(x):
        return jax.ffi.ffi_call("gojax_test_pool", jax.ShapeDtypeStruct(x.shape, x.dtype))(x)

    x = np.linspace(-3, 3, 1001, dtype=np.float32)
    got, xla = _both(f, x, gojax_device=gojax_device, cpu_device=cpu_device)
    np.testing.assert_array_equal(got, x * x)
    np.testing.assert_array_equal(got, xla)


def test_asynchronous_handler(handlers, gojax_device, cpu_device):
    def f(x):
        return jax.ffi.ffi_call("gojax_test_async", jax.ShapeDtypeStruct(x.shape, x.dtype))(x) + 1

    x = np.arange(100, dtype=np.float32)
    got, xla = _both(f, x, gojax_device=gojax_device, cpu_device=cpu_device)
    np.testing.assert_array_equal(got, x * np.float32(3) + np.float32(1))
    np.testing.assert_array_equal(got, xla)
    with pytest.raises(jax.errors.JaxRuntimeError, match="async handler: x\\[0\\] is negative"):
        jax.jit(f)(jax.device_put(-x - 1, gojax_device)).block_until_ready()


def test_scratch_memory(handlers, gojax_device):
    def f(x):
        return jax.ffi.ffi_call("gojax_test_scratch", jax.ShapeDtypeStruct(x.shape, x.dtype))(x)

    x = np.arange(37, dtype=np.float32)
    np.testing.assert_array_equal(np.asarray(jax.jit(f)(jax.device_put(x, gojax_device))), x[::-1])


def test_prepare_and_initialize_stages(handlers, gojax_device):
    def f(x):
        return jax.ffi.ffi_call("gojax_test_stages", jax.ShapeDtypeStruct(x.shape, x.dtype))(x, offset=np.float32(0.5))

    x = np.arange(4, dtype=np.float32)
    for _ in range(2):  # the stages run again for every execution
        got = jax.jit(f)(jax.device_put(x, gojax_device))
        np.testing.assert_array_equal(np.asarray(got), x * np.float32(3) + np.float32(0.5))


def test_missing_user_data_is_an_error(handlers, gojax_device, cpu_device):
    def f(x):
        return jax.ffi.ffi_call("gojax_test_user_data", jax.ShapeDtypeStruct((2,), jnp.float32))() + x

    x = np.zeros(2, np.float32)
    with pytest.raises(jax.errors.JaxRuntimeError, match="no user data of type id [0-9]+ is attached to this execution"):
        jax.jit(f)(jax.device_put(x, gojax_device)).block_until_ready()
    with pytest.raises((jax.errors.JaxRuntimeError, ValueError), match="user data"):
        jax.jit(f)(jax.device_put(x, cpu_device)).block_until_ready()


def _run_info(x):
    return jax.ffi.ffi_call("gojax_test_run_info", jax.ShapeDtypeStruct((3,), jnp.int32))(x)


@pytest.mark.parametrize("platform", ["gojax", "cpu"])
def test_run_id_and_device_ordinal(handlers, gojax_device, cpu_device, platform):
    """Handlers taking xla::ffi::RunId and DeviceOrdinal learn which
    execution and device they run for: the device's index among the
    process's devices, and a run id that differs between executions (XLA's
    ids are arbitrary, so only their distinctness is compared)."""
    f = jax.jit(_run_info)
    x = np.zeros(2, np.float32)
    ids = set()
    for ordinal, dev in enumerate(jax.local_devices(backend=platform)[:2]):
        for _ in range(2):
            got = np.asarray(f(jax.device_put(x, dev)))
            assert got[0] == ordinal
            ids.add((int(got[1]), int(got[2])))
    assert len(ids) == 2 * min(2, len(jax.local_devices(backend=platform)))


def test_device_ordinal_of_each_device(handlers):
    """With two devices per backend, a run on the second device reads
    ordinal 1 on gojax as on XLA:CPU."""
    from gojax_testutil import check_python

    out = check_python(f"""
import ctypes, numpy as np, jax, jax.numpy as jnp
so = ctypes.cdll.LoadLibrary({handlers._name!r})
jax.ffi.register_ffi_target("gojax_test_run_info", jax.ffi.pycapsule(so.GojaxTestRunInfo), platform="cpu")
jax.config.update("jax_num_cpu_devices", 2)
f = jax.jit(lambda x: jax.ffi.ffi_call("gojax_test_run_info", jax.ShapeDtypeStruct((3,), jnp.int32))(x))
for backend in ("gojax", "cpu"):
    devs = jax.local_devices(backend=backend)
    assert len(devs) == 2, devs
    got = [int(np.asarray(f(jax.device_put(np.zeros(2, np.float32), d)))[0]) for d in devs]
    print(backend, got)
""", env={"GOJAX_NUM_DEVICES": "", "JAX_NUM_CPU_DEVICES": "-1", "XLA_FLAGS": ""})
    lines = dict(line.split(" ", 1) for line in out.strip().splitlines()[-2:])
    assert lines["gojax"] == lines["cpu"] == "[0, 1]", out


@pytest.mark.parametrize("dtype", [jnp.int4, jnp.uint4, jnp.int2, jnp.uint2])
def test_sub_byte_buffers(handlers, gojax_device, cpu_device, dtype):
    """Sub-byte operands reach handlers packed as XLA packs them, and packed
    results come back as the same values."""
    info = jnp.iinfo(dtype)
    x = (np.arange(13) % (int(info.max) - int(info.min) + 1) + int(info.min)).astype(dtype)
    nbytes = (13 * info.bits + 7) // 8

    def raw(x):
        return jax.ffi.ffi_call("gojax_test_raw_bytes", jax.ShapeDtypeStruct((nbytes,), jnp.uint8))(x)

    def copy(x):
        return jax.ffi.ffi_call("gojax_test_copy_bytes", jax.ShapeDtypeStruct(x.shape, x.dtype))(x)

    got, xla = _both(raw, x, gojax_device=gojax_device, cpu_device=cpu_device)
    np.testing.assert_array_equal(got, xla)
    got, xla = _both(copy, x, gojax_device=gojax_device, cpu_device=cpu_device)
    np.testing.assert_array_equal(got.astype(np.int8), x.astype(np.int8))
    np.testing.assert_array_equal(got.astype(np.int8), xla.astype(np.int8))


def test_exported_artifact(handlers, gojax_device):
    """A jax.export artifact carrying the custom calls (its serialized
    StableHLO module, with api_version and attributes as XLA reads them)
    runs on gojax."""
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    exp = export.export(
        jax.jit(lambda x: attrs_call(jnp.zeros((9,), jnp.float32)).sum() + add_one(x)),
        disabled_checks=[
            export.DisabledSafetyCheck.custom_call("gojax_test_attrs"),
            export.DisabledSafetyCheck.custom_call("gojax_test_add_one"),
        ],
    )(jax.ShapeDtypeStruct(x.shape, x.dtype))
    got = exp.call(jax.device_put(x, gojax_device))
    assert got.devices() == {gojax_device}
    want = np.float32(-42 + 1.5 + 0.125 + 112 + 4 + 5 + ord("g") + 1 + 7) + x + 1
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)


def test_unregistered_target_fails_to_compile(handlers, gojax_device):
    def f(x):
        return jax.ffi.ffi_call("gojax_test_never_registered", jax.ShapeDtypeStruct(x.shape, x.dtype))(x)

    with pytest.raises(jax.errors.JaxRuntimeError, match='unknown custom call target "gojax_test_never_registered"'):
        jax.jit(f)(jax.device_put(np.ones(3, np.float32), gojax_device))


def test_builtin_target_called_wrongly_compiles_and_fails_when_run():
    # jaxlib's own targets check a call's operands when it runs: the program
    # compiles on both backends (JAX's ffi tests compile such calls only to
    # read the compiled text) and running it is an error naming the op, which
    # a call without results reports through its effect token. A fresh
    # interpreter: the failed token stays in JAX's runtime tokens.
    from gojax_testutil import check_python

    out = check_python("""
import jax
def f():
    jax.ffi.ffi_call("lapack_sgetrf_ffi", (), has_side_effect=True)()
for dev in (jax.devices("gojax")[0], jax.devices("cpu")[0]):
    assert "lapack_sgetrf_ffi" in jax.jit(f, device=dev).lower().compile().as_text()
jax.jit(f, device=jax.devices("gojax")[0])()
try:
    jax.effects_barrier()
except jax.errors.JaxRuntimeError as e:
    print("ERROR", e)
import os
os._exit(0)
""")
    assert "ERROR" in out and "lapack_sgetrf_ffi" in out and "want one matrix operand" in out, out


def _register_through_pjrt(name: bytes, handler: int, platform: bytes) -> None:
    """PJRT_FFI_Register_Handler as a framework without Python calls it."""
    import pjrt_ctypes as pc

    api = pc.Api()
    ffi = api.extension(5)  # PJRT_Extension_Type_FFI
    assert ffi is not None, "no FFI extension in the chain"
    register = pc._FN(ctypes.c_void_p.from_address(ffi + 40).value)
    name_buf, platform_buf = ctypes.create_string_buffer(name), ctypes.create_string_buffer(platform)
    args = pc._args(52)  # struct_size, target_name, _size, handler, platform_name, _size, traits
    pc._set(args, 8, ctypes.addressof(name_buf))
    pc._set(args, 16, len(name))
    pc._set(args, 24, handler)
    pc._set(args, 32, ctypes.addressof(platform_buf))
    pc._set(args, 40, len(platform))
    api._check(register(ctypes.addressof(args)))


def test_pjrt_extension_register_handler(handlers, gojax_device):
    import pjrt_ctypes as pc

    handler = ctypes.cast(handlers.GojaxTestAddOne, ctypes.c_void_p).value
    with pytest.raises(pc.PjrtError, match='platform "cpu"'):
        _register_through_pjrt(b"gojax_test_pjrt_cuda", handler, b"CUDA")
    _register_through_pjrt(b"gojax_test_pjrt_add_one", handler, b"cpu")

    def f(x):
        return jax.ffi.ffi_call("gojax_test_pjrt_add_one", jax.ShapeDtypeStruct(x.shape, x.dtype))(x)

    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(np.asarray(jax.jit(f)(jax.device_put(x, gojax_device))), x + 1)
    # Another handler under a registered name is refused.
    other = ctypes.cast(handlers.GojaxTestChecked, ctypes.c_void_p).value
    with pytest.raises(pc.PjrtError, match="already registered"):
        _register_through_pjrt(b"gojax_test_pjrt_add_one", other, b"cpu")


@pytest.mark.parametrize(
    "make, match",
    [
        # Column-major operands: gojax's buffers are row-major.
        (lambda x: jax.ffi.ffi_call("gojax_test_add_one", jax.ShapeDtypeStruct(x.shape, x.dtype),
                                    input_layouts=[(1, 0)])(x), "row-major"),
        # Float scalars are f32 or f64 (XLA:CPU also refuses 16-bit ones).
        (lambda x: jax.ffi.ffi_call("gojax_test_add_one", jax.ShapeDtypeStruct(x.shape, x.dtype))(x, h=np.float16(1)),
         "f16 scalars cannot be passed"),
    ],
)
def test_unsupported_calls_fail_to_compile(handlers, gojax_device, make, match):
    x = jax.device_put(np.ones((2, 3), np.float32), gojax_device)
    with pytest.raises(jax.errors.JaxRuntimeError, match=match) as err:
        jax.jit(make)(x)
    assert 'gojax_test_add_one' in str(err.value)


@pytest.mark.parametrize("first", ["register", "backends"])
def test_registration_order(handlers, first):
    """Targets registered before JAX starts its backends (queued by jaxlib)
    and after (passed on at once) reach both runtimes."""
    from gojax_testutil import check_python

    register = f"""
lib = ctypes.cdll.LoadLibrary({handlers._name!r})
jax.ffi.register_ffi_target("gojax_test_early", jax.ffi.pycapsule(lib.GojaxTestAddOne), platform="cpu")
"""
    start = "devices = [jax.devices('gojax')[0], jax.devices('cpu')[0]]\n"
    steps = register + start if first == "register" else start + register
    out = check_python(
        "import ctypes, numpy as np, jax\n" + steps + """
f = lambda x: jax.ffi.ffi_call("gojax_test_early", jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
x = np.arange(3, dtype=np.float32)
for d in devices:
    y = jax.jit(f)(jax.device_put(x, d))
    assert y.devices() == {d} and (np.asarray(y) == x + 1).all(), (d, y)
print("ran on", len(devices))
"""
    )
    assert "ran on 2" in out
