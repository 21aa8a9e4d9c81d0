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

A header may carry its unit in brackets, ``time [s]``, ``boom [mm]``, ``lift [kN]``,
``boom [-]``: the column is converted to SI (s; m for lengths, N for forces; spool
commands are plain numbers, ``[-]``, ``[1]`` or ``[%]``). A unit of the wrong dimension
(``boom [kg]`` in a lengths cycle) is an error naming the file and the column; a bare
header is in SI, as it always was.

A machine with ``[swing]`` (:mod:`.swing`) takes one more, optional column ``swing``: the
swing angle (rad; ``swing [deg]`` converts) in mode extensions, the swing torque at the
swing axis (N·m; ``swing [kN*m]``) in mode forces, the spool command of the circuit's swing
section (−1 … 1) in mode valves. Without it the swing is held still (mode valves: its valve
centred).

A run's ``results.csv`` is a cycle too (:meth:`Cycle.from_results`; :meth:`Cycle.from_csv`
and ``--cycle`` recognise one): the columns of the mode's quantity become the functions'
columns — ``boom_length [m]`` the lengths of ``boom`` (mode extensions), ``boom_force [N]``
its force (forces), ``boom_command [1]`` its spool command (valves) — and every other
column is left alone. A run's lengths fed back this way reproduce the run to the accuracy
of the spline through its output samples.

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
import re
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
    swing : sequence of float, optional
        The ``swing`` column (:mod:`.swing`): angles (rad, mode extensions) or torques at
        the swing axis (N·m, mode forces); ``None``: the swing held still.

    Examples
    --------
    A lengths cycle is a clamped C² spline through its rows (at rest at both ends), a
    forces or valves cycle a linear table:

    >>> c = Cycle("extensions", [0, 1, 2], {"lift": [1.2, 1.6, 1.3]}, functions=("lift",), source="raise")
    >>> c.start, c.end, [round(float(v), 6) for v in c.sample([1.0])["lift"]]
    (0.0, 2.0, [1.6])
    >>> float(c.signals()["lift"].rate().value(0.0))
    0.0
    """

    def __init__(self, mode: str, time: Sequence[float], values: Mapping[str, Sequence[float]],
                 functions: Sequence[str], source: str = "arrays", swing: Sequence[float] | None = None,
                 travel: Sequence[float] | None = None):
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
        sw = None
        if swing is not None:
            sw = _column("swing", swing, problems)
            if sw is None:
                pass
            elif mode not in _SWING:
                problems.append(f"column 'swing': a swing column in a {mode} cycle; expected the swing angle "
                                "(mode extensions), its torque (mode forces) or its spool command (mode valves)")
            elif t_ok and sw.shape != t.shape:
                problems.append(f"column 'swing': {sw.size} rows, expected {t.size} like 'time'")
            elif not np.all(np.isfinite(sw)):
                i = int(np.argmax(~np.isfinite(sw)))
                problems.append(f"column 'swing': row {i + 2} is {sw[i]}; expected finite values")
            elif mode == "valves" and np.any(np.abs(sw) > 1.0):
                i = int(np.argmax(np.abs(sw) > 1.0))
                problems.append(f"column 'swing': spool commands must lie in −1…1 (row {i + 2}: {sw[i]:g})")
        tr = None
        if travel is not None:
            tr = _column("travel", travel, problems)
            if tr is None:
                pass
            elif mode not in _TRAVEL:
                problems.append(f"column 'travel': a travel column in a {mode} cycle; the travel is driven by its "
                                "speed (mode extensions) or its tractive force (mode forces), the circuits have "
                                "no travel drive yet")
            elif t_ok and tr.shape != t.shape:
                problems.append(f"column 'travel': {tr.size} rows, expected {t.size} like 'time'")
            elif not np.all(np.isfinite(tr)):
                i = int(np.argmax(~np.isfinite(tr)))
                problems.append(f"column 'travel': row {i + 2} is {tr[i]}; expected finite values")
        if problems:
            raise ParameterError(problems, subject=f"cycle ({mode})" if source == "arrays"
                                 else f"cycle {source} ({mode})")
        self.mode, self.time, self.values, self.source = mode, t, vals, source
        self.functions = functions
        #: the ``swing`` column (SI) or None (the swing held still)
        self.swing = sw
        #: the ``travel`` column (SI: speed m/s or tractive force N) or None (no travel drive)
        self.travel = tr

    @property
    def columns(self) -> tuple[str, ...]:
        """The function columns, in the machine's order."""
        return self.functions

    @property
    def end(self) -> float:
        """The last time of the table (s)."""
        return float(self.time[-1])

    @property
    def start(self) -> float:
        """The first time of the table (s)."""
        return float(self.time[0])

    @classmethod
    def from_csv(cls, path: str | Path, mode: str, functions: Sequence[str]) -> "Cycle":
        """Read a cycle file; errors name the file, the row and the column.

        Parameters
        ----------
        path : str or Path
            A CSV whose first column is ``time`` and whose others are ``functions``, each
            header bare (SI) or with its unit (``boom [mm]``, see the module text); or a run's
            ``results.csv`` (a header with none of the functions but their ``<f>_length``,
            ``<f>_force`` or ``<f>_command`` columns), read as :meth:`from_results` does.
        mode : {"extensions", "forces", "valves"}
        functions : sequence of str
            The machine's functions.

        Raises
        ------
        ParameterError
            Every problem at once: a header unit of the wrong dimension or that is no unit,
            a missing or unknown column, a value that is not a finite number...

        Examples
        --------
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "lift.csv"
        >>> _ = p.write_text("time [ms],lift [mm]\\n0,1250\\n500,1300\\n")
        >>> c = Cycle.from_csv(p, "extensions", ["lift"])
        >>> c.time.tolist(), c.values["lift"].tolist()
        ([0.0, 0.5], [1.25, 1.3])
        >>> _ = p.write_text("time [s],lift [kg]\\n0,1250\\n1,1300\\n")
        >>> Cycle.from_csv(p, "extensions", ["lift"])
        Traceback (most recent call last):
        ...
        bondgraph.errors.ParameterError: cycle file lift.csv (extensions): 1 problem
          - line 1, column 'lift [kg]': the unit 'kg' is a mass, expected a length (lengths in m, or with their unit: [mm], [m])
        """
        path = Path(path)
        if path.is_dir() and (path / "results.csv").is_file():   # a run's output folder
            return cls.from_results(path, mode, functions)
        head_line, head, rows = _read_table(path, functions)
        names = [n for n, _ in head]
        if not set(functions) & set(names) and any(f"{f}_{_RESULT_COLUMN[mode]}" in names
                                                     for f in functions if mode in _RESULT_COLUMN):
            return cls.from_results(path, mode, functions)
        return cls._from_rows(path, mode, functions, head_line, head, rows, {n: n for n in names})

    @classmethod
    def from_results(cls, path: str | Path, mode: str, functions: Sequence[str]) -> "Cycle":
        """A run's ``results.csv`` as a cycle of ``mode``: what the run did, to be done again.

        The column of each function's quantity in ``mode`` is read — ``<f>_length`` (m) for
        mode ``extensions``, ``<f>_force`` (N) for ``forces``, ``<f>_command`` for
        ``valves`` — with its unit converted as in :meth:`from_csv`; ``time`` is the time,
        a swinging machine's ``swing_angle`` (extensions) or ``swing_torque`` (forces) is the
        ``swing`` column, every other column is left alone. A run of mode valves has every one of them; a run
        of mode extensions or forces has no spool commands.

        Parameters
        ----------
        path : str or Path
            A ``results.csv`` written by ``hydrobond run`` (or :meth:`MachineRun.to_csv
            <mechanisms.machine.run.MachineRun.to_csv>`), or the run's output folder.
        mode : {"extensions", "forces", "valves"}
        functions : sequence of str
            The machine's functions.

        Raises
        ------
        ParameterError
            A function's column is missing (named, with what a run of which mode writes
            it), a unit of the wrong dimension, a value that is not a finite number.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "results.csv"
        >>> _ = p.write_text("time [s],tip_x [m],lift_length [m],lift_force [N]\\n0,5,1.25,9e3\\n1,5.1,1.3,8e3\\n")
        >>> Cycle.from_results(p, "extensions", ["lift"]).values["lift"].tolist()
        [1.25, 1.3]
        >>> Cycle.from_results(p, "forces", ["lift"]).values["lift"].tolist()
        [9000.0, 8000.0]
        >>> Cycle.from_results(p, "valves", ["lift"])
        Traceback (most recent call last):
        ...
        bondgraph.errors.ParameterError: cycle file results.csv (valves): 1 problem
          - column 'lift_command': missing; a valves cycle from a run's results takes the spool commands of each function, which runs of mode valves write
        """
        if mode not in MODES:
            raise ParameterError(f"cycle mode {mode!r}: expected one of {', '.join(MODES)}")
        path = Path(path)
        if path.is_dir() and (path / "results.csv").is_file():
            path = path / "results.csv"
        head_line, head, rows = _read_table(path, functions)
        names = [n for n, _ in head]
        suffix = _RESULT_COLUMN[mode]
        pick = {f"{f}_{suffix}": f for f in functions}
        missing = [c for c in pick if c not in names]
        if missing:
            raise ParameterError([f"column {c!r}: missing; a {mode} cycle from a run's results takes the "
                                  f"{_QUANTITY[mode][1]} of each function, which runs of mode "
                                  f"{'valves' if mode == 'valves' else 'extensions, forces or valves'} write"
                                  for c in missing], subject=f"cycle file {path.name} ({mode})")
        if mode in _SWING and f"swing_{_SWING[mode].split()[1]}" in names:   # a swinging run's angle / torque
            pick[f"swing_{_SWING[mode].split()[1]}"] = "swing"
        if mode in _TRAVEL and _TRAVEL_RESULT[mode] in names:        # a travelling run's speed / force
            pick[_TRAVEL_RESULT[mode]] = "travel"
        return cls._from_rows(path, mode, functions, head_line, head, rows, {"time": "time", **pick})

    @classmethod
    def _from_rows(cls, path: Path, mode: str, functions: Sequence[str], head_line: int,
                   head: list[tuple[str, str]], rows: list[tuple[int, list[str]]],
                   keep: Mapping[str, str]) -> "Cycle":
        """The columns of ``keep`` (header name → cycle column) read and converted to SI."""
        name = path.name
        if mode not in MODES:
            raise ParameterError(f"cycle mode {mode!r}: expected one of {', '.join(MODES)}")
        problems: list[str] = []
        factors: dict[int, float] = {}
        for j, (h, u) in enumerate(head):
            if h not in keep:
                continue
            if h != "time" and keep[h] == "swing" and "swing" not in functions and mode in _SWING:
                target, what, _ = _QUANTITY[_SWING[mode]]
            elif h != "time" and keep[h] == "travel" and "travel" not in functions and mode in _TRAVEL:
                target, what, _ = _QUANTITY[_TRAVEL[mode]]
            elif h != "time" and keep[h] not in functions:   # an unknown column: Cycle names it
                factors[j] = 1.0
                continue
            else:
                target, what, _ = _QUANTITY["time"] if h == "time" else _QUANTITY[mode]
            f = _unit_factor(u, target, what, problems, f"line {head_line}, column {_label(h, u)!r}")
            factors[j] = 1.0 if f is None else f        # its values are still read for their problems
        data: dict[str, list[float]] = {keep[head[j][0]]: [] for j in factors}
        for line, r in rows:
            if len(r) != len(head):
                problems.append(f"line {line}: {len(r)} values, expected {len(head)} "
                                f"({', '.join(_label(h, u) for h, u in head)})")
                continue
            for j, f in factors.items():
                h, u = head[j]
                x = r[j]
                try:
                    v = float(x)
                except ValueError:
                    problems.append(f"line {line}, column {_label(h, u)!r}: {x.strip()!r} is not a number")
                    continue
                if not math.isfinite(v):
                    problems.append(f"line {line}, column {_label(h, u)!r}: {x.strip()} is not finite")
                data[keep[h]].append(v * f)
        if problems:
            raise ParameterError(problems[:20] + ([f"... and {len(problems) - 20} more"] if len(problems) > 20 else []),
                                 subject=f"cycle file {name} ({mode})")
        t = data.pop("time")
        swing = data.pop("swing", None) if "swing" not in functions else None
        travel = data.pop("travel", None) if "travel" not in functions else None
        return cls(mode, t, data, functions, source=name, swing=swing, travel=travel)

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
        """Write the cycle as a CSV (atomically), SI with the unit in each header:
        ``time [s]``, then ``[m]`` (extensions), ``[N]`` (forces) or ``[1]`` (valves)."""
        from .files import atomic_write

        unit = _QUANTITY[self.mode][0] or "1"
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        cols = [(f"swing [{_QUANTITY[_SWING[self.mode]][0] or '1'}]", self.swing)] if self.swing is not None else []
        if self.travel is not None:
            cols.append((f"travel [{_QUANTITY[_TRAVEL[self.mode]][0]}]", self.travel))
        w.writerow(["time [s]", *(f"{f} [{unit}]" for f in self.functions), *(h for h, _ in cols)])
        for i, ti in enumerate(self.time):
            w.writerow([repr(float(ti))] + [repr(float(self.values[f][i])) for f in self.functions]
                       + [repr(float(v[i])) for _, v in cols])
        return atomic_write(path, buf.getvalue())

    def __repr__(self) -> str:
        return (f"Cycle({self.mode!r}, {len(self.time)} rows, {self.start:g}…{self.end:g} s, "
                f"functions {', '.join(self.functions)}, from {self.source})")


#: per mode (and for ``time``): the SI unit of a column ("" a plain number), what it holds,
#: and units to suggest
_QUANTITY = {"time": ("s", "times", "[s], [ms], [min]"), "extensions": ("m", "lengths", "[mm], [m]"),
             "forces": ("N", "forces", "[N], [kN]"), "valves": ("", "spool commands", "[-], [1], [%]"),
             "swing angle": ("rad", "swing angles", "[rad], [deg]"),
             "swing torque": ("N*m", "swing torques", "[N*m], [kN*m]"),
             "swing command": ("", "swing spool commands", "[-], [1], [%]"),
             "travel speed": ("m/s", "travel speeds", "[m/s], [km/h]"),
             "travel force": ("N", "tractive forces", "[N], [kN]")}
#: per mode: the quantity of a cycle's optional ``travel`` column (mechanisms.machine.travel)
_TRAVEL = {"extensions": "travel speed", "forces": "travel force"}
#: per mode: the results.csv column a travelling run writes for it
_TRAVEL_RESULT = {"extensions": "travel_speed", "forces": "tractive_force"}
#: per mode: the quantity of a cycle's optional ``swing`` column (mechanisms.machine.swing)
_SWING = {"extensions": "swing angle", "forces": "swing torque", "valves": "swing command"}
#: per mode: the results.csv column of a function's quantity (``<f>_length``...)
_RESULT_COLUMN = {"extensions": "length", "forces": "force", "valves": "command"}
#: header units that mean "a plain number"
_PLAIN = {"-", "1", ""}
_HEADER = re.compile(r"^(?P<name>.*?)\s*\[(?P<unit>[^\[\]]*)\]$")


def _read_table(path: Path, functions: Sequence[str]) -> tuple[int, list[tuple[str, str]], list]:
    """``(header line, [(name, unit text)...], [(line, row)...])`` of a cycle or results
    file; comment and blank lines dropped. The first column must be ``time``; a name may
    appear once."""
    text = read_text_file(path, "cycle file")
    rows = [(i, r) for i, r in enumerate(csv.reader(io.StringIO(text)), start=1)
            if r and any(x.strip() for x in r) and not r[0].lstrip().startswith("#")]
    name = path.name
    if not rows:
        raise ParameterError(f"cycle file {name}: empty; expected a header row time,{','.join(functions)}")
    head_line, raw = rows[0]
    head = []
    for h in raw:
        m = _HEADER.match(h.strip())
        head.append((m["name"].strip(), m["unit"].strip()) if m else (h.strip(), ""))
    if head[0][0] != "time":
        raise ParameterError(f"cycle file {name}, line {head_line}: the first column must be 'time' "
                             f"(found {raw[0].strip()!r})")
    seen: dict[str, int] = {}
    for j, (h, _u) in enumerate(head, start=1):
        if h in seen:
            raise ParameterError(f"cycle file {name}, line {head_line}: column {h!r} appears twice "
                                 f"(columns {seen[h]} and {j})")
        seen[h] = j
    return head_line, head, rows[1:]


def _label(name: str, unit: str) -> str:
    return f"{name} [{unit}]" if unit else name


def _unit_factor(text: str, target: str, what: str, problems: list[str], where: str) -> float | None:
    """The factor from a header's unit ``text`` to ``target`` (``""``: plain numbers), or
    ``None`` with the problem appended. No unit at all means SI."""
    from .quantities import dimension_name, unit

    hint = f"{what} in {target or 'plain numbers'}, or with their unit: " + \
        [q[2] for q in _QUANTITY.values() if q[1] == what][0]
    if text == "":
        return 1.0
    if text in _PLAIN:
        f_src, d_src = 1.0, ""
    else:
        try:
            f_src, d_src = unit(text)
        except Exception:  # noqa: BLE001 - pint raises several unrelated types
            problems.append(f"{where}: {text!r} is not a unit; expected {hint}")
            return None
    f_tgt, d_tgt = (1.0, "") if target == "" else unit(target)
    if d_src != d_tgt:
        found = "a plain number" if d_src == "" else dimension_name(text)
        expected = "a plain number" if target == "" else dimension_name(target)
        problems.append(f"{where}: the unit {text!r} is {found}, expected {expected} ({hint})")
        return None
    return f_src / f_tgt


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
