"""Array layouts: what compiled programs and arrays report (against XLA:CPU),
and the PJRT Layouts extension's C calls (tests/pjrt_ctypes.py)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from gojax_testutil import check_python

PROGRAMS = {
    "scalar": (lambda x: x * 2, [np.float32(3)]),
    "rank1": (lambda x: jnp.cumsum(x), [np.arange(7, dtype=np.float32)]),
    "transpose3": (lambda x: x.transpose(2, 0, 1), [np.ones((2, 3, 4), np.float32)]),
    "rank5_bf16": (lambda x: x + 1, [np.ones((2, 1, 3, 2, 2), jnp.bfloat16)]),
    "mixed": (lambda a, b, c: (a @ b, c.astype(jnp.int32).sum(), b > 0),
              [np.ones((3, 4), np.float32), np.ones((4, 5), np.float32), np.ones((6,), np.int8)]),
    "pytree": (lambda d: {"y": d["x"].T, "n": d["x"].shape[0] * jnp.ones(())},
               [{"x": np.ones((2, 9), np.float64)}]),
}


def _layouts(formats):
    return [f.layout.major_to_minor for f in jax.tree.leaves(formats)]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_compiled_formats_match_xla(gojax_device, cpu_device, name):
    fn, args = PROGRAMS[name]
    got = {}
    for dev in (gojax_device, cpu_device):
        placed = jax.device_put(args, dev)
        compiled = jax.jit(fn).lower(*placed).compile()
        got[dev.platform if dev is cpu_device else "gojax"] = (
            _layouts(compiled.input_formats), _layouts(compiled.output_formats),
            [a.format.layout.major_to_minor for a in jax.tree.leaves(placed)],
            [a.format.layout.major_to_minor for a in jax.tree.leaves(compiled(*placed))])
    assert got["gojax"] == got["cpu"]


def test_auto_layout_compiles_to_the_default(gojax_device):
    from jax.experimental.layout import Format, Layout
    spec = jax.ShapeDtypeStruct((2, 3), jnp.float32)
    compiled = jax.jit(lambda a: a + 1, in_shardings=Format(Layout.AUTO),
                       out_shardings=Format(Layout.AUTO)).lower(spec).compile()
    assert _layouts(compiled.input_formats) == [(0, 1)]
    x = jax.device_put(np.ones((2, 3), np.float32), compiled.input_formats[0][0])
    np.testing.assert_array_equal(compiled(x), np.full((2, 3), 2, np.float32))


_EXTENSION = r"""
import ctypes, jax, jax.numpy as jnp, numpy as np
import pjrt_ctypes as pc

api = pc.Api()
ext = api.extension(4)  # PJRT_Extension_Type_Layouts
assert ext is not None
size = ctypes.c_size_t.from_address(ext).value
assert size == 24 + 7 * 8, size
FN = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p)
def fn(index):
    return FN(ctypes.c_void_p.from_address(ext + 24 + 8 * index).value)
destroy, serialize, client_default, buffer_layout, topology_default, exec_outputs, exec_params = map(fn, range(7))

def args(nbytes):
    buf = (ctypes.c_uint64 * (nbytes // 8))()
    buf[0] = nbytes
    return buf

def text(layout, owned):
    a = args(56)
    a[2] = layout
    assert serialize(ctypes.addressof(a)) is None
    s = ctypes.string_at(a[3], a[4]).decode()
    ctypes.CFUNCTYPE(None, ctypes.c_void_p)(a[6])(a[5])
    if owned:
        d = args(24)
        d[2] = layout
        assert destroy(ctypes.addressof(d)) is None
    return s

api.initialize()
client = api.create_client()
device = api.device(client)
for dims, want in [((), "{}"), ((5,), "{0}"), ((3, 4, 5), "{2,1,0}"), ((2,) * 12, "{" + ",".join(map(str, range(11, -1, -1))) + "}")]:
    for call in (client_default, topology_default):
        a = args(56)
        a[2] = client
        a[3] = pc.ABI.enums["PJRT_Buffer_Type_F32"]
        d = (ctypes.c_int64 * max(len(dims), 1))(*dims)
        a[4] = ctypes.addressof(d)
        a[5] = len(dims)
        assert call(ctypes.addressof(a)) is None
        assert text(a[6], owned=True) == want, (dims, want)

buf = api.buffer_from_host(client, device, np.ones((2, 3), np.float32).tobytes(), "F32", (2, 3))
a = args(32)
a[2] = buf
assert buffer_layout(ctypes.addressof(a)) is None
assert text(a[3], owned=True) == "{1,0}"
stale = args(32)  # a NULL buffer is an error, not a crash
err = buffer_layout(ctypes.addressof(stale))
assert err and "buffer" in api.error_text(err).lower()

f = jax.jit(lambda x, y: (x.T @ y, y.sum()))
code = bytes(jax.export.export(f)(jax.ShapeDtypeStruct((4, 3), np.float32), jax.ShapeDtypeStruct((4, 2), np.float32)).mlir_module_serialized)
exe = api.compile_loaded(client, code)
unloaded = api._run("PJRT_LoadedExecutable_GetExecutable", loaded_executable=exe)["executable"]
for call, want in ((exec_params, ["{1,0}", "{1,0}"]), (exec_outputs, ["{1,0}", "{}"])):
    for _ in range(2):  # the executable's own layouts, the same at every call
        a = args(40)
        a[2] = unloaded
        assert call(ctypes.addressof(a)) is None
        ptrs = (ctypes.c_void_p * a[3]).from_address(a[4])
        assert [text(p, owned=False) for p in ptrs] == want
        d = args(24)
        d[2] = ptrs[0]
        assert destroy(ctypes.addressof(d)) is None  # leaves the executable's layout
short = args(40)
short[0] = 8
err = exec_params(ctypes.addressof(short))
assert err and "struct_size" in api.error_text(err)
api._run("PJRT_Executable_Destroy", executable=unloaded)
api.destroy_loaded(exe)
api.destroy_buffer(buf)
api.destroy_client(client)
print("ok")
"""


def test_layouts_extension_calls():
    assert check_python(_EXTENSION).strip().endswith("ok")
