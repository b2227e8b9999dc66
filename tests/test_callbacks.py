"""Host callbacks on gojax: jax.pure_callback, io_callback, jax.debug.print
and jax.debug.callback, checked against XLA's CPU backend in the same process.

JAX lowers them to the custom call xla_ffi_python_cpu_callback and passes the
Python callables to each execution as FFI user data (go/kernels/callback)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
from jax.experimental import io_callback


def on(device, fn, *args):
    """jit(fn) on one device, result as NumPy."""
    args = [jax.device_put(a, device) for a in args]
    return jax.tree.map(np.asarray, jax.jit(fn)(*args))


DTYPES = [np.float32, np.float64, np.int32, np.int64, np.uint8, np.bool_, np.float16,
          ml_dtypes.bfloat16, np.complex64, np.complex128, np.int8]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_pure_callback_dtypes(gojax_device, cpu_device, dtype):
    x = (np.arange(6).reshape(2, 3) % 3).astype(dtype)

    def host(a):
        a = np.asarray(a)
        assert a.dtype == np.dtype(dtype) and a.shape == (2, 3)
        return (a[::-1] if a.dtype != np.bool_ else ~a).astype(dtype)

    def f(a):
        return jax.pure_callback(host, jax.ShapeDtypeStruct(a.shape, a.dtype), a)

    with jax.enable_x64(True):
        got, want = on(gojax_device, f, x), on(cpu_device, f, x)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == np.dtype(dtype)


@pytest.mark.parametrize("shape", [(), (0,), (3, 0, 2), (5,)])
def test_pure_callback_shapes_and_several_results(gojax_device, cpu_device, shape):
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)

    def host(a, b):
        return a * 2, (b + 1).astype(np.int32), np.float64(a.size)

    out_types = (jax.ShapeDtypeStruct(shape, jnp.float32), jax.ShapeDtypeStruct(shape, jnp.int32),
                 jax.ShapeDtypeStruct((), jnp.float64))

    def f(a):
        p, q, r = jax.pure_callback(host, out_types, a, a.astype(jnp.int32))
        return p + 1, q, r

    with jax.enable_x64(True):
        got, want = on(gojax_device, f, x), on(cpu_device, f, x)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
        assert g.dtype == w.dtype


def test_pure_callback_under_vmap_and_grad_free_math(gojax_device, cpu_device):
    def host(a):
        return np.sin(a)

    def f(x):
        y = jax.vmap(lambda r: jax.pure_callback(host, jax.ShapeDtypeStruct(r.shape, r.dtype), r,
                                                 vmap_method="sequential"))(x)
        return y.sum(axis=1) * 3

    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
    np.testing.assert_allclose(on(gojax_device, f, x), on(cpu_device, f, x), rtol=1e-6)


@pytest.mark.parametrize("vmap_method", ["sequential", "expand_dims", "broadcast_all"])
def test_pure_callback_vmap_methods_with_two_operands(gojax_device, cpu_device, vmap_method):
    calls = []

    def host(a, b):
        calls.append(a.shape)
        return (a * b + 1).astype(a.dtype)

    def f(x, y):
        return jax.vmap(lambda r, s: jax.pure_callback(host, jax.ShapeDtypeStruct(r.shape, r.dtype), r, s,
                                                       vmap_method=vmap_method), in_axes=(0, None))(x, y)

    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    y = np.array([2.0, -1.0, 0.5], np.float32)
    want = on(cpu_device, f, x, y)
    want_calls, calls[:] = list(calls), []
    np.testing.assert_array_equal(on(gojax_device, f, x, y), want)
    assert calls == want_calls  # same batching: one call per row, or one for all


def test_ordered_io_callback_in_scan_and_across_calls(gojax_device):
    seen = []

    def record(i):
        seen.append(int(i))

    def body(c, i):
        io_callback(record, None, i, ordered=True)
        return c + i, None

    f = jax.jit(lambda n: jax.lax.scan(body, n, jnp.arange(4, dtype=jnp.int32) + n)[0])
    for n in (0, 10):
        f(jax.device_put(np.int32(n), gojax_device))
    jax.effects_barrier()
    assert seen == [0, 1, 2, 3, 10, 11, 12, 13]


def test_callback_inside_scan_and_while(gojax_device, cpu_device):
    def host(c):
        return (c * 2 + 1).astype(c.dtype)

    def body(c, _):
        c = jax.pure_callback(host, jax.ShapeDtypeStruct(c.shape, c.dtype), c)
        return c, c.sum()

    def f(x):
        c, ys = jax.lax.scan(body, x, None, length=5)
        w = jax.lax.while_loop(lambda v: v[0] < 1000,
                               lambda v: jax.pure_callback(host, jax.ShapeDtypeStruct(v.shape, v.dtype), v), c)
        return c, ys, w

    x = np.array([1, 2, 3], np.int32)
    for g, w in zip(on(gojax_device, f, x), on(cpu_device, f, x)):
        np.testing.assert_array_equal(g, w)


def test_io_callback_ordered_runs_in_program_order(gojax_device):
    seen = []

    def record(v):
        seen.append(int(v))
        return np.int32(len(seen))

    def f(x):
        a = io_callback(record, jax.ShapeDtypeStruct((), jnp.int32), x, ordered=True)
        b = io_callback(record, jax.ShapeDtypeStruct((), jnp.int32), x + 1, ordered=True)
        c = io_callback(record, jax.ShapeDtypeStruct((), jnp.int32), x + 2, ordered=True)
        return a + b + c

    x = jax.device_put(np.int32(10), gojax_device)
    assert int(jax.jit(f)(x)) == 1 + 2 + 3
    assert seen == [10, 11, 12]
    jax.effects_barrier()


def test_io_callback_keeps_its_arguments(gojax_device):
    kept = []

    def keep(v):
        kept.append(v)  # the array must stay valid after the call
        return None

    @jax.jit
    def f(x):
        io_callback(keep, None, x * 2)
        return x + 1

    for i in range(3):
        f(jax.device_put(np.full(4, i, np.float32), gojax_device)).block_until_ready()
    jax.effects_barrier()
    assert [k.tolist() for k in kept] == [[2.0 * i] * 4 for i in range(3)]


def test_debug_print_and_debug_callback(gojax_device, capfd):
    got = []

    @jax.jit
    def f(x):
        jax.debug.print("x is {x} and sum {s}", x=x, s=x.sum())
        jax.debug.callback(lambda v: got.append(np.asarray(v).copy()), x * 10)
        return x * 2

    out = f(jax.device_put(np.arange(3, dtype=np.float32), gojax_device))
    jax.effects_barrier()
    np.testing.assert_array_equal(np.asarray(out), [0, 2, 4])
    assert "x is [0. 1. 2.] and sum 3.0" in capfd.readouterr().out
    np.testing.assert_array_equal(got[0], [0, 10, 20])


def test_callback_exception_becomes_runtime_error(gojax_device):
    def boom(a):
        raise ValueError("callback exploded on purpose")

    @jax.jit
    def f(x):
        return jax.pure_callback(boom, jax.ShapeDtypeStruct(x.shape, x.dtype), x)

    with pytest.raises(Exception, match="callback exploded on purpose"):
        np.asarray(f(jax.device_put(np.ones(2, np.float32), gojax_device)))


def test_callback_wrong_result_shape_is_an_error(gojax_device):
    @jax.jit
    def f(x):
        return jax.pure_callback(lambda a: np.ones(5, np.float32), jax.ShapeDtypeStruct(x.shape, x.dtype), x)

    with pytest.raises(Exception, match="shape"):
        np.asarray(f(jax.device_put(np.ones(2, np.float32), gojax_device)))


def test_failed_callback_is_reported_by_the_call_not_again_at_exit():
    """As on XLA:CPU, a failing callback fails the call itself: JAX keeps no
    failed runtime token that its exit handler (effects_barrier) raises again."""
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent("""
        import jax, numpy as np
        from jax.experimental import io_callback
        dev = jax.devices("gojax")[0]
        def bad(a):
            raise ValueError("exploded")
        for fn in (lambda x: jax.pure_callback(bad, jax.ShapeDtypeStruct(x.shape, x.dtype), x),
                   lambda x: io_callback(bad, jax.ShapeDtypeStruct(x.shape, x.dtype), x, ordered=True)):
            try:
                np.asarray(jax.jit(fn)(jax.device_put(np.ones(2, np.float32), dev)))
            except Exception as e:
                assert "exploded" in str(e), e
            else:
                raise SystemExit("no error")
        print("OK")
    """)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "OK" in r.stdout, r.stdout + r.stderr
    assert "Exception ignored" not in r.stderr, r.stderr


def test_callback_program_runs_again_and_concurrently(gojax_device):
    import concurrent.futures

    @jax.jit
    def f(x):
        return jax.pure_callback(lambda a: a + 1, jax.ShapeDtypeStruct(x.shape, x.dtype), x) * 2

    xs = [jax.device_put(np.full(3, i, np.float32), gojax_device) for i in range(16)]
    with concurrent.futures.ThreadPoolExecutor(4) as ex:
        outs = list(ex.map(lambda x: np.asarray(f(x)), xs))
    for i, o in enumerate(outs):
        np.testing.assert_array_equal(o, np.full(3, (i + 1) * 2, np.float32))


def test_ffi_extension_user_data_through_the_c_api():
    """The FFI extension as jaxlib uses it, called below jaxlib with ctypes:
    find it in the extension chain, attach user data to an execute context
    (both the 40-byte args of jaxlib 0.11-0.12 and the 48-byte args with a
    deleter), and check the deleter runs when the context is destroyed."""
    import ctypes

    import pjrt_ctypes as pc

    api = pc.Api()
    ffi = api.extension(5)  # PJRT_Extension_Type_FFI
    assert ffi is not None, "no FFI extension in the chain"
    assert ctypes.c_uint64.from_address(ffi).value == 48
    type_register = pc._FN(ctypes.c_void_p.from_address(ffi + 24).value)
    user_data_add = pc._FN(ctypes.c_void_p.from_address(ffi + 32).value)

    reg = pc._args(48)
    api._check(type_register(ctypes.addressof(reg)))
    assert pc._ptr(reg, 32) != 0, "a type registered without an id gets one"

    create = pc._args(24)
    api.call("PJRT_ExecuteContext_Create", create)
    ctx = pc._ptr(create, 16)
    assert ctx

    deleted = []
    deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(lambda p: deleted.append(p))
    payload = ctypes.c_int64(7)
    add = pc._args(40)
    pc._set(add, 16, ctx)
    pc._set(add, 24, 1234)
    pc._set(add, 32, ctypes.addressof(payload))
    api._check(user_data_add(ctypes.addressof(add)))
    with pytest.raises(pc.PjrtError, match="already attached"):
        api._check(user_data_add(ctypes.addressof(add)))
    add48 = pc._args(48)
    pc._set(add48, 16, ctx)
    pc._set(add48, 24, 99)
    pc._set(add48, 32, ctypes.addressof(payload))
    pc._set(add48, 40, ctypes.cast(deleter, ctypes.c_void_p).value)
    api._check(user_data_add(ctypes.addressof(add48)))
    no_ctx = pc._args(40)
    with pytest.raises(pc.PjrtError, match="context"):
        api._check(user_data_add(ctypes.addressof(no_ctx)))

    destroy = pc._args(24)
    pc._set(destroy, 16, ctx)
    api.call("PJRT_ExecuteContext_Destroy", destroy)
    assert deleted == [ctypes.addressof(payload)]
