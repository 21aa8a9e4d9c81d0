"""Two runs' results column by column: how far B strays from A, grouped by quantity.

``hydrobond compare A B`` reads two ``results.csv`` files (SI, units in the headers),
interpolates B at A's times over the time both cover, and measures each common column's
largest difference ``max |B − A|``, when it occurs and its RMS; for every point with both
coordinates it measures the distance between the two paths instead. :func:`differences`
returns a :class:`RunDifferences`, whose :meth:`~RunDifferences.summary` keeps the largest
difference of each quantity (paths of the output points, cylinder lengths, forces,
pressures, flows...) in engineering units (mm, kN, bar, L/min, kW, kJ, deg), and whose
:meth:`~RunDifferences.table` lists every column in SI.

Examples
--------
>>> import numpy as np
>>> t = np.linspace(0.0, 1.0, 11)
>>> a = {"time": t, "tip_x": t, "tip_y": 0 * t, "boom_length": 3 + 0.1 * t, "boom_force": 1e4 + 0 * t}
>>> b = {**a, "tip_y": 0.02 * t, "boom_force": 1e4 + 2e3 * t}
>>> units = {"time": "s", "tip_x": "m", "tip_y": "m", "boom_length": "m", "boom_force": "N"}
>>> d = differences(a, units, b, units)
>>> [(r.quantity, r.column, round(r.max_abs, 6)) for r in d.largest()]
[('output point paths', 'tip', 0.02), ('cylinder lengths', 'boom_length', 0.0), ('forces', 'boom_force', 2000.0)]
>>> print(d.summary())
largest difference per quantity (max |B−A|; B interpolated at A's times, t = 0 … 1 s):
  output point paths  tip                20 mm      at t = 1.000 s
  cylinder lengths    boom_length        0 mm       (the same)
  forces              boom_force         2 kN       at t = 1.000 s  (max |A| 10 kN)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from bondgraph.errors import ParameterError

__all__ = ["Difference", "RunDifferences", "differences", "engineering", "QUANTITIES"]

#: SI unit → (engineering unit, factor) for the summary
_ENGINEERING = {"m": ("mm", 1e3), "m/s": ("mm/s", 1e3), "N": ("kN", 1e-3), "rad": ("deg", 180.0 / math.pi),
                "Pa": ("bar", 1e-5), "m^3/s": ("L/min", 6e4), "W": ("kW", 1e-3), "J": ("kJ", 1e-3)}
#: the quantities of the summary, in its order
QUANTITIES = ("output point paths", "cylinder lengths", "cylinder rates", "forces", "angles", "pressures",
              "spool commands", "flows", "powers", "energies", "hinge point paths")


def engineering(value: float, unit: str) -> str:
    """``value`` (SI, in ``unit``) in the unit an engineer reads it in: lengths in mm below
    1 m and in m above, forces in kN, pressures in bar, flows in L/min, powers in kW,
    energies in kJ, angles in degrees; other units as they are.

    Examples
    --------
    >>> engineering(0.5021, "m"), engineering(4.309, "m"), engineering(2.19e7, "Pa")
    ('502.1 mm', '4.309 m', '219 bar')
    >>> engineering(0.009247, "m^3/s"), engineering(0.4506, "rad"), engineering(0.5, "1")
    ('554.8 L/min', '25.82 deg', '0.5')
    """
    if unit == "m" and abs(value) >= 1.0:
        return f"{value:.4g} m"
    name, factor = _ENGINEERING.get(unit, (unit if unit not in ("1", "") else "", 1.0))
    return f"{value * factor:.4g} {name}".rstrip()


@dataclass(frozen=True)
class Difference:
    """One column's (or one point path's) largest difference between two runs.

    Attributes
    ----------
    column : str
        The column (``boom_force``) or the point whose paths are compared (``tip``).
    unit : str
        Its SI unit (``"N"``; ``"m"`` for a path).
    quantity : str
        What it measures (one of :data:`QUANTITIES`, ``"point coordinates"``, or
        ``"other [unit]"``).
    max_abs : float
        ``max |B − A|`` over the common time (for a path: the largest distance).
    at : float
        When it occurs (s).
    rms : float
        The RMS of the difference.
    max_a : float
        ``max |A|`` of the column (NaN for a path).

    Examples
    --------
    >>> Difference("boom_force", "N", "forces", 2e3, 1.0, 1.1e3, 1e4).max_abs
    2000.0
    """

    column: str
    unit: str
    quantity: str
    max_abs: float
    at: float
    rms: float
    max_a: float = float("nan")


@dataclass
class RunDifferences:
    """Every common column of two runs, its largest difference, and what only one run has.

    Attributes
    ----------
    rows : list of Difference
        The point paths first (output points, then hinge points), then the columns in A's order.
    span : tuple of float
        The common time (s).
    only_a, only_b : list of str
        Columns of one run alone.

    Examples
    --------
    >>> t = np.array([0.0, 1.0])
    >>> d = differences({"time": t, "p": t}, {"p": "Pa"}, {"time": t, "p": t, "q": t}, {"p": "Pa"})
    >>> d.only_b, d.largest()[0].quantity
    (['q'], 'pressures')
    """

    rows: list[Difference]
    span: tuple[float, float]
    only_a: list[str] = field(default_factory=list)
    only_b: list[str] = field(default_factory=list)

    def largest(self) -> list[Difference]:
        """Per quantity, the row of the largest difference, in the order of
        :data:`QUANTITIES` (then other units); point coordinates are left to the paths."""
        best: dict[str, Difference] = {}
        for r in self.rows:
            if r.quantity == "point coordinates":
                continue
            if r.quantity not in best or r.max_abs > best[r.quantity].max_abs:
                best[r.quantity] = r
        order = {q: i for i, q in enumerate(QUANTITIES)}
        return sorted(best.values(), key=lambda r: (order.get(r.quantity, len(order)), r.quantity))

    def summary(self) -> str:
        """The largest difference of each quantity, in engineering units, with when it occurs
        and the largest value of A's column to weigh it against."""
        t0, t1 = self.span
        lines = [f"largest difference per quantity (max |B−A|; B interpolated at A's times, "
                 f"t = {t0:g} … {t1:g} s):"]
        rows = self.largest()
        wq = max([len(r.quantity) for r in rows] + [8])
        wc = max([len(r.column) for r in rows] + [8])
        for r in rows:
            row = f"  {r.quantity:<{wq}}  {r.column:<{wc}}  {engineering(r.max_abs, r.unit):<12}"
            if r.max_abs == 0:
                row += " (the same)"
            else:
                row += f" at t = {r.at:.3f} s"
                if math.isfinite(r.max_a):
                    row += f"  (max |A| {engineering(r.max_a, r.unit)})"
            lines.append(row.rstrip())
        if not rows:
            lines.append("  (no common column besides time)")
        for label, cols in (("A", self.only_a), ("B", self.only_b)):
            if cols:
                lines.append(f"{len(cols)} column{'s' if len(cols) > 1 else ''} only in {label}: "
                             f"{', '.join(cols[:6])}{', ...' if len(cols) > 6 else ''}")
        return "\n".join(lines)

    def table(self) -> str:
        """Every row: column, SI unit, max |B−A|, when, RMS and max |A|; then the columns of
        one run alone."""
        lines = [f"{'column':<34} {'unit':<8} {'max |B−A|':>12} {'at t [s]':>9} {'rms':>12} {'max |A|':>12}"]
        for r in self.rows:
            name = f"{r.column} (distance)" if r.quantity.endswith("paths") else r.column
            lines.append(f"{name:<34} {r.unit:<8} {r.max_abs:>12.4g} {r.at:>9.3f} {r.rms:>12.4g} {r.max_a:>12.4g}")
        for label, cols in (("A", self.only_a), ("B", self.only_b)):
            if cols:
                lines.append(f"only in {label}: {', '.join(cols)}")
        return "\n".join(lines)


def differences(a: Mapping[str, np.ndarray], a_units: Mapping[str, str], b: Mapping[str, np.ndarray],
                b_units: Mapping[str, str] | None = None, *, names: tuple[str, str] = ("A", "B")) -> RunDifferences:
    """Compare two runs' columns (``time`` and SI read-outs, e.g. :func:`~.table.read_csv`).

    Parameters
    ----------
    a, b : mapping
        Column name → values; both need ``time``. B is interpolated at A's times.
    a_units, b_units : mapping
        Column name → SI unit (A's are used; B's are accepted for symmetry).
    names : tuple of str
        How the runs are named in messages.

    Raises
    ------
    ParameterError
        A run without ``time``, no common column, or no common time.

    Examples
    --------
    >>> t = np.array([0.0, 1.0])
    >>> differences({"time": t}, {}, {"time": t + 5, "x": t}, {})
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: compare: 2 problems
      - A and B have no column in common besides time (A: none; B: x)
      - A covers t = 0 … 1 s and B t = 5 … 6 s: no common time
    """
    from .table import output_point_names

    problems = [f"{n}: no 'time' column; expected a results table with its time first"
                for n, cols in zip(names, (a, b)) if "time" not in cols]
    if problems:
        raise ParameterError(problems, subject="compare")
    ta, tb = np.asarray(a["time"], dtype=float), np.asarray(b["time"], dtype=float)
    common = [k for k in a if k in b and k != "time"]
    if not common:
        problems.append(f"{names[0]} and {names[1]} have no column in common besides time "
                        f"({names[0]}: {', '.join(k for k in a if k != 'time') or 'none'}; "
                        f"{names[1]}: {', '.join(k for k in b if k != 'time') or 'none'})")
    t0, t1 = max(ta[0], tb[0]), min(ta[-1], tb[-1])
    sel = (ta >= t0 - 1e-12) & (ta <= t1 + 1e-12)
    if not np.any(sel):
        problems.append(f"{names[0]} covers t = {ta[0]:g} … {ta[-1]:g} s and {names[1]} t = {tb[0]:g} … "
                        f"{tb[-1]:g} s: no common time")
    if problems:
        raise ParameterError(problems, subject="compare")
    t = ta[sel]

    def measure(d: np.ndarray) -> tuple[float, float, float]:
        i = int(np.argmax(d))
        return float(d[i]), float(t[i]), float(np.sqrt(np.mean(d ** 2)))

    outputs = [p for p in output_point_names(a) if f"{p}_x" in common and f"{p}_y" in common]
    hinges = sorted({k[:-2] for k in common if k.endswith("_x") and f"{k[:-2]}_y" in common} - set(outputs))
    rows = []
    for p in outputs + hinges:
        d = np.hypot(np.interp(t, tb, b[f"{p}_x"]) - a[f"{p}_x"][sel],
                     np.interp(t, tb, b[f"{p}_y"]) - a[f"{p}_y"][sel])
        rows.append(Difference(p, "m", "output point paths" if p in outputs else "hinge point paths", *measure(d)))
    points = set(outputs) | set(hinges)
    for k in common:
        da = np.asarray(a[k], dtype=float)[sel]
        d = np.abs(np.interp(t, tb, b[k]) - da)
        unit = a_units.get(k, "")
        quantity = ("point coordinates" if k[-2:] in ("_x", "_y") and k[:-2] in points else _quantity(k, unit))
        rows.append(Difference(k, unit, quantity, *measure(d), float(np.max(np.abs(da)))))
    return RunDifferences(rows, (float(t0), float(t1)), [k for k in a if k not in b], [k for k in b if k not in a])


def _quantity(name: str, unit: str) -> str:
    if name.endswith("_length") and unit == "m":
        return "cylinder lengths"
    if name.endswith("_rate") and unit == "m/s":
        return "cylinder rates"
    if name.endswith("_command"):
        return "spool commands"
    by_unit = {"N": "forces", "rad": "angles", "Pa": "pressures", "m^3/s": "flows", "W": "powers", "J": "energies"}
    return by_unit.get(unit, f"other [{unit or '1'}]")
