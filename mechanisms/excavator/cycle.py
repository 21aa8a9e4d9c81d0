"""Work-cycle tables: CSV files with a ``time`` column and ``boom``, ``arm``, ``bucket``.

The meaning of the columns depends on the mode:

* ``extensions`` — pin-to-pin cylinder lengths (m), interpolated by a C² cubic
  spline (so accelerations exist for the inverse dynamics);
* ``forces`` — cylinder forces (N, total per function, positive pushing),
  interpolated linearly;
* ``valves`` — spool commands −1…1, interpolated linearly.

Examples
--------
>>> c = Cycle.default("extensions")
>>> c.mode, c.columns, round(c.end, 1)
('extensions', ('boom', 'arm', 'bucket'), 10.0)
>>> Cycle("forces", [0, 1], {"boom": [0, 1], "arm": [0, 1]})
Traceback (most recent call last):
...
bondgraph.errors.ParameterError: cycle (forces): 1 problem
  - column 'bucket': missing; expected the columns time, boom, arm, bucket
"""

from __future__ import annotations

import csv
from importlib import resources
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from bondgraph import ParameterError, Spline, Table

__all__ = ["Cycle", "MODES", "FUNCTIONS", "DEFAULT_CYCLE_FILES"]

MODES = ("extensions", "forces", "valves")
FUNCTIONS = ("boom", "arm", "bucket")
_DATA = Path(str(resources.files("mechanisms") / "data"))
DEFAULT_CYCLE_FILES = {"extensions": _DATA / "dig_lift_dump_lengths.csv",
                       "valves": _DATA / "dig_lift_dump_valves.csv"}


class Cycle:
    """A cycle table for one mode."""

    def __init__(self, mode: str, time: Sequence[float], values: Mapping[str, Sequence[float]],
                 source: str = "arrays"):
        problems = []
        if mode not in MODES:
            raise ParameterError(f"cycle mode {mode!r}: expected one of {', '.join(MODES)}")
        t = np.asarray(time, dtype=float)
        if t.ndim != 1 or len(t) < 2:
            problems.append(f"column 'time': {len(t)} rows, expected at least 2")
        elif np.any(np.diff(t) <= 0):
            i = int(np.argmax(np.diff(t) <= 0))
            problems.append(f"column 'time': not increasing at row {i + 2} ({t[i]} then {t[i + 1]})")
        vals = {}
        for f in FUNCTIONS:
            if f not in values:
                problems.append(f"column {f!r}: missing; expected the columns time, boom, arm, bucket")
                continue
            v = np.asarray(values[f], dtype=float)
            if v.shape != t.shape:
                problems.append(f"column {f!r}: {v.shape[0]} rows, expected {t.shape[0]} like 'time'")
            elif not np.all(np.isfinite(v)):
                problems.append(f"column {f!r}: non-finite values")
            elif mode == "valves" and np.any(np.abs(v) > 1.0):
                problems.append(f"column {f!r}: spool commands must lie in −1…1 "
                                f"(found {v.min():.3g}…{v.max():.3g})")
            vals[f] = v
        for extra in sorted(set(values) - set(FUNCTIONS)):
            problems.append(f"column {extra!r}: unknown; expected time, boom, arm, bucket")
        if problems:
            raise ParameterError(problems, subject=f"cycle ({mode})" if source == "arrays" else f"cycle {source} ({mode})")
        self.mode, self.time, self.values, self.source = mode, t, vals, source

    columns = FUNCTIONS

    @property
    def end(self) -> float:
        return float(self.time[-1])

    @classmethod
    def from_csv(cls, path: str | Path, mode: str) -> "Cycle":
        """Read a cycle file; errors name the file, the column and the row."""
        path = Path(path)
        try:
            with open(path, newline="") as fh:
                rows = [r for r in csv.reader(fh) if r and not r[0].lstrip().startswith("#")]
        except FileNotFoundError:
            raise ParameterError(f"cycle file {str(path)!r}: not found") from None
        if not rows or rows[0][0].strip() != "time":
            raise ParameterError(f"cycle file {str(path)!r}: the first column must be 'time' "
                                 f"(found {rows[0][0] if rows else 'an empty file'!r})")
        head = [h.strip() for h in rows[0]]
        data: dict[str, list[float]] = {h: [] for h in head}
        for i, r in enumerate(rows[1:], start=2):
            if len(r) != len(head):
                raise ParameterError(f"cycle file {path.name}: row {i} has {len(r)} values, expected {len(head)}")
            for h, x in zip(head, r):
                try:
                    data[h].append(float(x))
                except ValueError:
                    raise ParameterError(f"cycle file {path.name}: row {i}, column {h!r}: {x!r} is not a number") from None
        t = data.pop("time")
        return cls(mode, t, data, source=path.name)

    @classmethod
    def default(cls, mode: str) -> "Cycle":
        """The 10 s dig–lift–dump of this project (forces: none stored, see the CLI)."""
        if mode not in DEFAULT_CYCLE_FILES:
            raise ParameterError(f"no default cycle for mode {mode!r}; default cycles exist for "
                                 f"{', '.join(DEFAULT_CYCLE_FILES)} (forces come from a prescribed-"
                                 "extension run or your own file)")
        return cls.from_csv(DEFAULT_CYCLE_FILES[mode], mode)

    def signals(self) -> dict[str, object]:
        """Per function: a C² spline (extensions) or a linear table (forces, valves)."""
        if self.mode == "extensions":
            return {f: Spline(self.time, self.values[f], name=f"{f} length") for f in FUNCTIONS}
        return {f: Table(self.time, self.values[f], name=f"{f} {self.mode[:-1]}") for f in FUNCTIONS}

    def to_csv(self, path: str | Path) -> Path:
        path = Path(path)
        with open(path, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["time", *FUNCTIONS])
            for i, ti in enumerate(self.time):
                w.writerow([repr(float(ti))] + [repr(float(self.values[f][i])) for f in FUNCTIONS])
        return path
