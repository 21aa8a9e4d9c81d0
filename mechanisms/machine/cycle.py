"""Work cycles: a ``time`` column and one column per cylinder function.

What the columns mean depends on the mode:

* ``extensions`` — pin-to-pin cylinder lengths (m), interpolated by a C² cubic
  spline with *clamped* ends (zero slope at the first and last time: the motion
  starts and ends at rest), so accelerations exist for the inverse dynamics;
* ``forces`` — cylinder forces (N, total per function, positive pushing: the net
  force on the rod), linear in time;
* ``valves`` — spool commands −1…1 (positive: pressure to the cap side, extending),
  linear in time.

A cycle file is a CSV with a header row ``time,<function>,...``; ``#`` starts a
comment line. Every problem is named by the file, its row and its column.

Examples
--------
>>> c = Cycle("forces", [0, 1], {"lift": [0, 5e3]}, functions=("lift",))
>>> c.mode, c.columns, c.end
('forces', ('lift',), 1.0)
>>> Cycle("forces", [0, float("nan")], {"lift": [0, 1]}, functions=("lift",))
Traceback (most recent call last):
...
bondgraph.errors.ParameterError: cycle (forces): 1 problem
  - column 'time': row 3 is nan; expected finite times
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from bondgraph import ParameterError, Spline, Table

from .description import MODES
from .tomlfile import read_text_file

__all__ = ["Cycle"]


class Cycle:
    """A cycle table for one mode.

    Parameters
    ----------
    mode : {"extensions", "forces", "valves"}
    time : sequence of float
        Strictly increasing, finite (s).
    values : dict
        Function → sequence like ``time``.
    functions : sequence of str
        The machine's functions: every one must have a column, no other may.
    source : str
        Where it came from (named in messages and reports).
    """

    def __init__(self, mode: str, time: Sequence[float], values: Mapping[str, Sequence[float]],
                 functions: Sequence[str], source: str = "arrays"):
        if mode not in MODES:
            raise ParameterError(f"cycle mode {mode!r}: expected one of {', '.join(MODES)}")
        problems: list[str] = []
        functions = tuple(functions)
        t = _column("time", time, problems)
        t_ok = t is not None
        if t is None:
            t = np.zeros(0)
        elif len(t) < 2:
            problems.append(f"column 'time': {t.size} rows, expected at least 2")
        elif not np.all(np.isfinite(t)):
            i = int(np.argmax(~np.isfinite(t)))
            problems.append(f"column 'time': row {i + 2} is {t[i]}; expected finite times")
        elif np.any(np.diff(t) <= 0):
            i = int(np.argmax(np.diff(t) <= 0))
            problems.append(f"column 'time': not increasing at row {i + 3} ({t[i]:g} then {t[i + 1]:g})")
        vals: dict[str, np.ndarray] = {}
        cols = ", ".join(("time",) + functions)
        for f in functions:
            if f not in values:
                problems.append(f"column {f!r}: missing; expected the columns {cols}")
                continue
            v = _column(f, values[f], problems)
            if v is None:
                continue
            if t_ok and v.shape != t.shape:
                problems.append(f"column {f!r}: {v.size} rows, expected {t.size} like 'time'")
            elif not np.all(np.isfinite(v)):
                i = int(np.argmax(~np.isfinite(v)))
                problems.append(f"column {f!r}: row {i + 2} is {v[i]}; expected finite values")
            elif mode == "valves" and np.any(np.abs(v) > 1.0):
                i = int(np.argmax(np.abs(v) > 1.0))
                problems.append(f"column {f!r}: spool commands must lie in −1…1 (row {i + 2}: {v[i]:g})")
            elif mode == "extensions" and np.any(v <= 0):
                i = int(np.argmax(v <= 0))
                problems.append(f"column {f!r}: row {i + 2} is {v[i]:g}; pin-to-pin lengths are > 0 m")
            vals[f] = v
        for extra in values:
            if extra not in functions:
                problems.append(f"column {extra!r}: unknown; expected {cols}")
        if problems:
            raise ParameterError(problems, subject=f"cycle ({mode})" if source == "arrays"
                                 else f"cycle {source} ({mode})")
        self.mode, self.time, self.values, self.source = mode, t, vals, source
        self.functions = functions

    @property
    def columns(self) -> tuple[str, ...]:
        return self.functions

    @property
    def end(self) -> float:
        return float(self.time[-1])

    @property
    def start(self) -> float:
        return float(self.time[0])

    @classmethod
    def from_csv(cls, path: str | Path, mode: str, functions: Sequence[str]) -> "Cycle":
        """Read a cycle file; errors name the file, the row and the column."""
        path = Path(path)
        text = read_text_file(path, "cycle file")
        rows = [(i, r) for i, r in enumerate(csv.reader(io.StringIO(text)), start=1)
                if r and any(x.strip() for x in r) and not r[0].lstrip().startswith("#")]
        name = path.name
        if not rows:
            raise ParameterError(f"cycle file {name}: empty; expected a header row time,{','.join(functions)}")
        head_line, head = rows[0]
        head = [h.strip() for h in head]
        if head[0] != "time":
            raise ParameterError(f"cycle file {name}, line {head_line}: the first column must be 'time' "
                                 f"(found {head[0]!r})")
        seen: dict[str, int] = {}
        for j, h in enumerate(head, start=1):
            if h in seen:
                raise ParameterError(f"cycle file {name}, line {head_line}: column {h!r} appears twice "
                                     f"(columns {seen[h]} and {j})")
            seen[h] = j
        data: dict[str, list[float]] = {h: [] for h in head}
        problems = []
        for line, r in rows[1:]:
            if len(r) != len(head):
                problems.append(f"line {line}: {len(r)} values, expected {len(head)} ({', '.join(head)})")
                continue
            for h, x in zip(head, r):
                try:
                    v = float(x)
                except ValueError:
                    problems.append(f"line {line}, column {h!r}: {x.strip()!r} is not a number")
                    continue
                if not math.isfinite(v):
                    problems.append(f"line {line}, column {h!r}: {x.strip()} is not finite")
                data[h].append(v)
        if problems:
            raise ParameterError(problems[:20] + ([f"... and {len(problems) - 20} more"] if len(problems) > 20 else []),
                                 subject=f"cycle file {name} ({mode})")
        t = data.pop("time")
        return cls(mode, t, data, functions, source=name)

    def signals(self) -> dict[str, object]:
        """Per function: a clamped C² cubic spline (extensions) or a linear table."""
        if self.mode == "extensions":
            return {f: Spline(self.time, self.values[f], name=f"{f} length") for f in self.functions}
        return {f: Table(self.time, self.values[f], name=f"{f} {self.mode[:-1]}") for f in self.functions}

    def sample(self, times: np.ndarray) -> dict[str, np.ndarray]:
        """Values of each function at ``times``: those of the signals a run uses
        (:meth:`signals`), the last values held past the cycle's end as a run holds them."""
        times = np.asarray(times, dtype=float)
        return {f: s.values_at(times) for f, s in self.signals().items()}

    def to_csv(self, path: str | Path) -> Path:
        """Write the cycle as a CSV (atomically)."""
        from .files import atomic_write

        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["time", *self.functions])
        for i, ti in enumerate(self.time):
            w.writerow([repr(float(ti))] + [repr(float(self.values[f][i])) for f in self.functions])
        return atomic_write(path, buf.getvalue())

    def __repr__(self) -> str:
        return (f"Cycle({self.mode!r}, {len(self.time)} rows, {self.start:g}…{self.end:g} s, "
                f"functions {', '.join(self.functions)}, from {self.source})")


def _column(name: str, x, problems: list[str]) -> np.ndarray | None:
    """A column as a 1-D float array, or ``None`` with the problem appended (text, a nested
    list, a bare number: named by the column, never numpy's own error)."""
    try:
        v = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as exc:
        problems.append(f"column {name!r}: {_short(x)} is not a sequence of numbers ({exc})")
        return None
    if v.ndim != 1:
        problems.append(f"column {name!r}: {v.ndim}-D (shape {v.shape}), expected a 1-D sequence of numbers")
        return None
    return v


def _short(x) -> str:
    r = repr(x)
    return r if len(r) <= 60 else r[:57] + "..."
