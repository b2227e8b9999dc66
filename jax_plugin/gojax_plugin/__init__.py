"""JAX plugin entry point for gojax (entry-point group ``jax_plugins``).

JAX imports this module during backend discovery and calls initialize(),
which registers the already-loaded gojax library through a "pjrt_c_api"
capsule, so the process keeps exactly one copy of it (one Go runtime).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

import gojax

# Above XLA's CPU backend (0) so gojax is JAX's default backend once installed.
PRIORITY = 500


def create_options(environ: Mapping[str, str] = os.environ) -> dict[str, int]:
    """PJRT client create options from the environment:
    GOJAX_NUM_DEVICES=<n> -> num_devices (int64)."""
    options: dict[str, int] = {}
    raw = environ.get("GOJAX_NUM_DEVICES", "").strip()
    if raw:
        try:
            n = int(raw)
        except ValueError:
            raise ValueError(f"GOJAX_NUM_DEVICES must be a positive integer, got {raw!r}") from None
        if n < 1:
            raise ValueError(f"GOJAX_NUM_DEVICES must be a positive integer, got {raw!r}")
        options["num_devices"] = n
    return options


def initialize() -> None:
    from jax._src import xla_bridge

    xla_bridge.register_plugin(
        gojax.PLUGIN_NAME,
        priority=PRIORITY,
        c_api=gojax.pjrt_api_capsule(),
        options=create_options(),
    )
