"""JAX plugin entry point for gojax (entry-point group ``jax_plugins``).

JAX imports this module during backend discovery and calls initialize(),
which registers the already-loaded gojax library through a "pjrt_c_api"
capsule, so the process keeps exactly one copy of it (one Go runtime).
The client's settings (GOJAX_NUM_DEVICES and the rest) come from the Go
side's one reading of the environment (go/config), not from here. The one
thing passed from JAX is its jax_num_cpu_devices (JAX_NUM_CPU_DEVICES), the
standard request for host devices; the Go side weighs it against
GOJAX_NUM_DEVICES (engine.NumDevicesFor).
"""

from __future__ import annotations

from typing import NoReturn

# Above XLA's CPU backend (0) so gojax is JAX's default backend once installed.
PRIORITY = 500

# gojax.PLUGIN_NAME, spelled out: it is needed when `import gojax` fails.
PLUGIN_NAME = "gojax"


def initialize() -> None:
    from jax._src import xla_bridge

    try:
        import gojax
    except ValueError as err:
        # An invalid GOJAX_* setting. JAX only logs what initialize() raises
        # and would then run everything on its own CPU backend; a backend
        # whose creation raises the error makes jax.devices() and every
        # computation fail with it instead (errors of backends registered
        # with fail_quietly=False propagate).
        _register_failing_backend(xla_bridge, err)
        raise

    capsule = gojax.pjrt_api_capsule()
    xla_bridge.register_plugin(gojax.PLUGIN_NAME, priority=PRIORITY, c_api=capsule, options=_client_options)
    # register_plugin only looks for a profiler extension in plugins it loads
    # from a path; gojax has one (go/capi), so jax.profiler traces record
    # gojax's executions and steps.
    from jax._src.lib import _profiler

    _profiler.register_plugin_profiler(capsule)
    # Before XLA's CPU client installs its own: FFI targets registered for
    # "cpu" then reach both runtimes (gojax/_ffi.py).
    from gojax import _ffi

    _ffi.install()


def _client_options() -> dict[str, int]:
    # Called when JAX creates the client, after the program (or
    # jtu.request_cpu_devices) had its chance to set jax_num_cpu_devices.
    from jax._src import xla_bridge

    n = xla_bridge.num_cpu_devices.value
    return {"jax_num_cpu_devices": int(n)} if n is not None and n > 0 else {}


def _register_failing_backend(xla_bridge: object, err: ValueError) -> None:
    message = str(err)

    def factory() -> NoReturn:
        raise ValueError(message)

    xla_bridge.register_backend_factory(  # type: ignore[attr-defined]
        PLUGIN_NAME, factory, priority=PRIORITY, fail_quietly=False
    )
    # JAX creates backends in registration order and keeps those created
    # before one that fails, answering later calls with them alone. Put this
    # one first, so that every call fails, not only the first.
    factories = getattr(xla_bridge, "_backend_factories", None)
    if isinstance(factories, dict) and PLUGIN_NAME in factories:
        ordered = {PLUGIN_NAME: factories.pop(PLUGIN_NAME), **factories}
        factories.clear()
        factories.update(ordered)
