"""gojax.profile(): per-op timings of gojax executions and Chrome traces.

    with gojax.profile() as prof:
        step(params, batch).block_until_ready()
    print(prof.summary())
    prof.save_chrome_trace("trace.json")   # chrome://tracing or Perfetto

While the context is active every step of every execution on gojax (kernel
steps, including those of while/cond bodies; fused elementwise chains count
as one step named after the ops they fuse) is timed. Only one profile can be
recorded at a time. Wait for results inside the context (block_until_ready):
steps that run after it ends are not recorded.
"""

from __future__ import annotations

import dataclasses
import json
import os
from typing import Any

from ._library import _pyapi

__all__ = ["OpRecord", "Profile", "profile"]


@dataclasses.dataclass(frozen=True)
class OpRecord:
    """Totals of one op (name and source location) over the profile."""

    name: str  # e.g. "stablehlo.dot_general" or "fusion(multiply,add,tanh)"
    where: str  # the source location JAX recorded ("model.py:12:8 ..."), may be ""
    calls: int
    total_seconds: float

    @property
    def mean_seconds(self) -> float:
        return self.total_seconds / self.calls if self.calls else 0.0


class Profile:
    """A recording; filled when its `with` block ends."""

    def __init__(self) -> None:
        self._data: dict[str, Any] | None = None

    def _require(self) -> dict[str, Any]:
        if self._data is None:
            raise RuntimeError("the profile is still recording; read it after the with block")
        return self._data

    def ops(self) -> list[OpRecord]:
        """Per-op totals, most expensive first."""
        return [OpRecord(o["name"], o["where"], int(o["calls"]), o["total_ns"] / 1e9)
                for o in self._require()["ops"]]

    def summary(self) -> str:
        """The per-op totals as a text table."""
        return str(self._require()["summary"])

    def chrome_trace(self) -> dict[str, Any]:
        """The Chrome trace-event object (one complete event per step)."""
        return self._require()["trace"]

    def save_chrome_trace(self, path: str | os.PathLike[str]) -> None:
        """Writes the trace as JSON for chrome://tracing or Perfetto."""
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.chrome_trace(), f)


class profile:  # noqa: N801 - used as `with gojax.profile() as prof:`
    """Context manager recording a Profile of gojax executions."""

    def __init__(self) -> None:
        self._profile = Profile()

    def __enter__(self) -> Profile:
        _pyapi.ProfileStart()
        return self._profile

    def __exit__(self, *exc: object) -> None:
        self._profile._data = json.loads(_pyapi.ProfileStop())
