"""gojax: a JAX PJRT plugin whose runtime is written in Go.

Importing gojax loads its single shared library, which is both this Python
extension and the PJRT plugin (one Go runtime per process). JAX finds the
plugin through the ``jax_plugins`` entry point (module ``gojax_plugin``); the
functions here report versions and statistics and take configuration.
"""

from __future__ import annotations

from ._library import (
    Stats,
    api_pointer,
    build_info,
    library_path,
    pjrt_api_capsule,
    set_worker_threads,
    stats,
    version,
    worker_threads,
)

__version__ = version()

PLUGIN_NAME = "gojax"

__all__ = [
    "PLUGIN_NAME",
    "Stats",
    "__version__",
    "api_pointer",
    "build_info",
    "library_path",
    "pjrt_api_capsule",
    "set_worker_threads",
    "stats",
    "version",
    "worker_threads",
]
