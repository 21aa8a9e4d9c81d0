"""Copy the notebooks of ``notebooks/`` into ``docs/gallery/`` for myst-nb to execute.

The repository keeps one copy of each notebook, stripped, under ``notebooks/``; the
site needs them inside its source tree. A copy is rewritten only when it differs, so
unchanged notebooks keep their execution cache. Copies of notebooks that no longer
exist are removed. ``docs/gallery/*.ipynb`` is not tracked.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from sphinx.application import Sphinx

__all__ = ["sync_notebooks", "setup"]


def sync_notebooks(src: Path, dst: Path) -> list[str]:
    """Copy ``src/*.ipynb`` into ``dst`` (only changed files); return the names copied."""
    dst.mkdir(parents=True, exist_ok=True)
    names = []
    for nb in sorted(src.glob("*.ipynb")):
        target = dst / nb.name
        if not target.exists() or target.read_bytes() != nb.read_bytes():
            shutil.copyfile(nb, target)
        names.append(nb.name)
    for old in dst.glob("*.ipynb"):
        if old.name not in names:
            old.unlink()
    return names


def _sync(app: Sphinx, config) -> None:
    src = Path(app.srcdir)
    sync_notebooks(src.parent / "notebooks", src / "gallery")


def setup(app: Sphinx) -> dict:
    app.connect("config-inited", _sync)   # before the sources are listed
    return {"parallel_read_safe": True, "parallel_write_safe": True}
