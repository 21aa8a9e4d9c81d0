"""Every notebook runs top to bottom, and notebooks are committed without outputs."""

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_is_stripped(path):
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert not cell.get("outputs"), f"{path.name}: a code cell has outputs; strip them"
            assert cell.get("execution_count") is None, f"{path.name}: execution counts left in"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs_top_to_bottom(path, tmp_path, monkeypatch):
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel uses its inline backend
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=900, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    last = [c for c in nb.cells if c.cell_type == "code"][-1]
    kinds = {o.get("output_type") for o in last.get("outputs", [])}
    data = [o.get("data", {}) for o in last.get("outputs", [])]
    assert any("image/png" in d for d in data) or "display_data" in kinds, \
        f"{path.name}: the last cell should show the plot the user came for"
