"""Reads the [project] table of pyproject.toml: the single source of metadata."""

from __future__ import annotations

import dataclasses
import os
import re
import tomllib


@dataclasses.dataclass(frozen=True)
class Project:
    name: str
    version: str
    summary: str
    requires_python: str
    classifiers: tuple[str, ...]
    dependencies: tuple[str, ...]
    entry_points: dict[str, dict[str, str]]
    readme: str  # absolute path, may be empty

    @property
    def dist_name(self) -> str:
        # Wheel/sdist file names use the normalized name with underscores.
        return re.sub(r"[-_.]+", "_", self.name).lower()


def load(root: str) -> Project:
    with open(os.path.join(root, "pyproject.toml"), "rb") as f:
        data = tomllib.load(f)
    proj = data["project"]
    return Project(
        name=proj["name"],
        version=proj["version"],
        summary=proj.get("description", ""),
        requires_python=proj.get("requires-python", ""),
        classifiers=tuple(proj.get("classifiers", ())),
        dependencies=tuple(proj.get("dependencies", ())),
        entry_points={k: dict(v) for k, v in proj.get("entry-points", {}).items()},
        readme=os.path.join(root, proj["readme"]) if proj.get("readme") else "",
    )
