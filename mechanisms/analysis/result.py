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

__all__ = ["AnalysisResult", "csv_text", "write_table", "save_figure"]


def csv_text(df) -> str:
    """A table as CSV text with each column's unit in its header (``name [unit]``).

    Parameters
    ----------
    df : pandas.DataFrame
        Units of its columns in ``df.attrs["units"]`` (a column without one keeps its
        name).

    Returns
    -------
    str

    Examples
    --------
    See the module.
    """
    units = df.attrs.get("units", {})
    out = df.rename(columns={c: f"{c} [{units[c]}]" for c in df.columns if units.get(c)})
    return out.to_csv(index=False, float_format="%.10g", lineterminator="\n")


def write_table(df, path: str | Path) -> Path:
    """Write :func:`csv_text` atomically.

    Parameters
    ----------
    df : pandas.DataFrame
    path : str or pathlib.Path

    Returns
    -------
    pathlib.Path

    Raises
    ------
    ParameterError
        The file cannot be written.

    Examples
    --------
    >>> import pandas as pd, tempfile, pathlib
    >>> df = pd.DataFrame({"x": [1.0, 2.0]})
    >>> df.attrs["units"] = {"x": "m"}
    >>> write_table(df, pathlib.Path(tempfile.mkdtemp()) / "t.csv").read_text().splitlines()
    ['x [m]', '1', '2']
    """
    from ..machine.files import atomic_write

    return atomic_write(path, csv_text(df))


class AnalysisResult:
    """Base of the analyses' results (see the module docstring).

    A subclass sets :attr:`name` and :attr:`summary_units` and defines :meth:`table`,
    :meth:`summary` and :meth:`plot`; :meth:`write` and the notebook display come with it.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> import pandas as pd
    >>> class Reach(AnalysisResult):
    ...     name = "reach"
    ...     summary_units = {"max_reach": "m"}
    ...     def table(self):
    ...         df = pd.DataFrame({"angle": [0.0, 45.0], "reach": [10.0, 9.0]})
    ...         df.attrs["units"] = {"angle": "deg", "reach": "m"}
    ...         return df
    ...     def summary(self):
    ...         return {"max_reach": float(self.table()["reach"].max())}
    ...     def plot(self, path=None, ax=None):
    ...         fig, ax = plt.subplots()
    ...         ax.plot(self.table()["angle"], self.table()["reach"])
    ...         ax.set_xlabel("angle [deg]"); ax.set_ylabel("reach [m]")
    ...         return save_figure(fig, path)
    >>> files = Reach().write(pathlib.Path(tempfile.mkdtemp()) / "out")
    >>> [f.name for f in files], files[0].read_text().splitlines()[0]
    (['reach.csv', 'reach.png'], 'angle [deg],reach [m]')
    >>> Reach().summary()
    {'max_reach': 10.0}
    """

    #: file stem and CLI name, e.g. ``"working-range"``
    name = "analysis"

    def table(self):  # pragma: no cover - every analysis defines it
        """The result as a :class:`pandas.DataFrame` (units in ``df.attrs["units"]``)."""
        raise NotImplementedError

    def summary(self) -> dict[str, float]:  # pragma: no cover
        """The headline numbers, one per name (units in :attr:`summary_units`)."""
        raise NotImplementedError

    #: unit of each :meth:`summary` entry
    summary_units: dict[str, str] = {}

    def plot(self, path: str | Path | None = None, ax: Any = None):  # pragma: no cover
        """The result's figure (written to ``path`` if given); returns the figure.

        Parameters
        ----------
        path : str or Path, optional
            A file name.
        ax : object, optional
        """
        raise NotImplementedError

    def write(self, out: str | Path) -> list[Path]:
        """``<name>.csv`` and ``<name>.png`` in the folder ``out`` (checked, created).

        Parameters
        ----------
        out : str or pathlib.Path
            A folder.

        Returns
        -------
        list of pathlib.Path

        Raises
        ------
        ParameterError
            ``out`` is a file, or cannot be created or written.
        """
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
