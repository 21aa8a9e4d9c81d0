"""What every analysis returns: a table, a few headline numbers, a plot, files.

An :class:`AnalysisResult` gives its table as a :class:`pandas.DataFrame` (units of
its columns in ``df.attrs["units"]``), its headline numbers as :meth:`summary` (one
number per name, what a sweep puts in its table) with their units, a matplotlib
figure, and writes ``<name>.csv`` (units in the header, ``value [m]``) and
``<name>.png`` atomically into a folder.

Examples
--------
>>> import pandas as pd
>>> df = pd.DataFrame({"dimension": ["reach"], "value": [10.5]})
>>> df.attrs["units"] = {"value": "m"}
>>> csv_text(df).splitlines()
['dimension,value [m]', 'reach,10.5']
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["AnalysisResult", "csv_text", "write_table"]


def csv_text(df) -> str:
    """A table as CSV text with each column's unit in its header (``name [unit]``)."""
    units = df.attrs.get("units", {})
    out = df.rename(columns={c: f"{c} [{units[c]}]" for c in df.columns if units.get(c)})
    return out.to_csv(index=False, float_format="%.10g", lineterminator="\n")


def write_table(df, path: str | Path) -> Path:
    """Write :func:`csv_text` atomically."""
    from ..machine.files import atomic_write

    return atomic_write(path, csv_text(df))


class AnalysisResult:
    """Base of the analyses' results (see the module docstring)."""

    #: file stem and CLI name, e.g. ``"working-range"``
    name = "analysis"

    def table(self):  # pragma: no cover - every analysis defines it
        raise NotImplementedError

    def summary(self) -> dict[str, float]:  # pragma: no cover
        raise NotImplementedError

    #: unit of each :meth:`summary` entry
    summary_units: dict[str, str] = {}

    def plot(self, path: str | Path | None = None, ax: Any = None):  # pragma: no cover
        raise NotImplementedError

    def write(self, out: str | Path) -> list[Path]:
        """``<name>.csv`` and ``<name>.png`` in the folder ``out`` (checked, created)."""
        import matplotlib.pyplot as plt

        from ..machine.files import check_output_dir

        folder = check_output_dir(out)
        stem = self.name.replace("-", "_")
        files = [write_table(self.table(), folder / f"{stem}.csv")]
        fig = self.plot(folder / f"{stem}.png")
        plt.close(fig)
        files.append(folder / f"{stem}.png")
        return files

    def _repr_html_(self) -> str:
        return self.table()._repr_html_()


def save_figure(fig, path: str | Path | None, dpi: int = 120):
    """Write a figure atomically when a path is given, cut to what it draws (no legend or
    title clipped: :func:`mechanisms.machine.plots.save_figure`); return it."""
    from ..machine.plots import save_figure as save

    return save(fig, path, dpi)
