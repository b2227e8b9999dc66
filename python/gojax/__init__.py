"""gojax: a JAX PJRT plugin whose runtime is written in Go.

Importing gojax loads its single shared library, which is both this Python
extension and the PJRT plugin (one Go runtime per process). JAX finds the
plugin through the ``jax_plugins`` entry point (module ``gojax_plugin``); the
functions here report versions and statistics (``stats()``), ``config``
takes configuration (``config.debug_nans``), and ``profile()`` records per-op
timings and Chrome traces.
"""

from __future__ import annotations

from typing import Final

from ._library import (
    BuildInfo,
    Config,
    Stats,
    api_pointer,
    build_info,
    config,
    in_forked_child,
    library_path,
    pjrt_api_capsule,
    reset_peak_memory,
    set_worker_threads,
    stats,
    version,
    worker_threads,
)
from ._library import _check_environment

# A GOJAX_* variable with a value gojax does not accept raises here, naming
# the variable and the accepted values, rather than being ignored.
_check_environment()
from .interop import ArrowTensor, from_arrow, from_dlpack, to_arrow
from .profiler import OpRecord, Profile, profile

__version__: Final[str] = version()

PLUGIN_NAME: Final[str] = "gojax"

__all__ = [
    "PLUGIN_NAME",
    "ArrowTensor",
    "BuildInfo",
    "Config",
    "OpRecord",
    "Profile",
    "Stats",
    "__version__",
    "api_pointer",
    "build_info",
    "config",
    "from_arrow",
    "from_dlpack",
    "in_forked_child",
    "library_path",
    "pjrt_api_capsule",
    "profile",
    "reset_peak_memory",
    "set_worker_threads",
    "stats",
    "to_arrow",
    "version",
    "worker_threads",
]
