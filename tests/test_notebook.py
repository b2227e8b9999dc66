"""Executes examples/train_arrow.ipynb in a fresh kernel (this venv's Python),
as a user would run it: every cell must succeed, the loss must go down, and
the figure must be produced."""

from __future__ import annotations

import os
import sys

import nbformat
from nbclient import NotebookClient

from gojax_testutil import REPO_ROOT


def test_train_arrow_notebook_runs(tmp_path, monkeypatch):
    path = os.path.join(REPO_ROOT, "examples", "train_arrow.ipynb")
    nb = nbformat.read(path, as_version=4)
    # The kernel is this interpreter, whatever kernelspecs are installed.
    from ipykernel.kernelspec import write_kernel_spec

    spec_dir = write_kernel_spec(str(tmp_path / "kernels" / "gojax-test"))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))
    client = NotebookClient(nb, timeout=600, kernel_name="gojax-test",
                            resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    nbformat.write(nb, str(tmp_path / "executed.ipynb"))  # kept for inspection on failure
    assert os.path.isdir(spec_dir)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.output_type == "error"]
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "zero-copy: True" in text
    assert "gojax: loss" in text and "XLA:   loss" in text
    assert any("image/png" in o.get("data", {}) for o in outputs if o.output_type == "display_data"), \
        "the loss plot is displayed"
    assert sys.executable  # the kernel spec points at it (write_kernel_spec uses sys.executable)
