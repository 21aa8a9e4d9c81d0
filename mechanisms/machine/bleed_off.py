"""The bleed-off operator: open-loop levers on an open-centre machine, whose speed depends on the load.

An operator of an open-centre excavator does not command a speed. The lever strokes the
spool; the first part of its travel throttles the section's centre bypass (the *bleed-off*
edge) while the pump's flow still escapes through it, and the function starts to move only
when the bypass is throttled enough for the pump pressure to exceed the function's load
pressure. Past that point the pump flow divides between the work port and what still
bleeds off, by their pressures: the same lever lifts a light bucket faster than a full one.
That is the "feel" of open-centre machines, and the operator closes the loop with their
eyes, not the machine.

:class:`BleedOffOperator` is that operator with the eyes shut: a lever profile per function
(held values, or a valves cycle), no feedback on length, so the speed a lever gives is the
circuit's. On a load-sensing or fixed circuit the same levers drive those valves, for the
comparison. On an open centre it also answers, from the circuit's own steady law
(:class:`~mechanisms.machine.open_centre_law.OpenCentreLaw`), where a function starts to
move against a load (:meth:`BleedOffOperator.start_lever`) and how fast levers move loads
(:meth:`BleedOffOperator.steady`).

Examples
--------
>>> from mechanisms.machine import DATA, Machine
>>> m = Machine.from_file(DATA / "excavator.toml", {"circuit.type": "open-centre"}, mode="valves")
>>> op = BleedOffOperator(m, {"boom": 0.47})
>>> op.lever(0.5)
{'boom': 0.47, 'arm': 0.0, 'bucket': 0.0}
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np

from bondgraph import ParameterError
from bondgraph.hybrid import Controller

__all__ = ["BleedOffOperator"]


class BleedOffOperator:
    """Open-loop levers (spool strokes) per function: no feedback on length.

    Parameters
    ----------
    machine : Machine
        Built in mode ``valves``.
    levers : Cycle or mapping
        A valves cycle (its columns are the lever strokes against time), or a mapping
        function → lever stroke held from the start (−1 … 1; functions not named are held
        centred).
    period : float
        Sample period of the operator (s): the lever is held between samples.

    Attributes
    ----------
    controller : bondgraph.hybrid.Controller
        Pass it to :meth:`Machine.run`, or use :meth:`drive`.

    Raises
    ------
    ParameterError
        A machine not in mode ``valves``, a cycle not in mode ``valves``, an unknown
        function, a lever outside −1 … 1, a bad period (every problem at once).

    Examples
    --------
    The same lever lifts a light boom faster than a loaded one on the open centre
    (checked against the hand-computed valve law in ``tests/machines/test_bleed_off.py``):

    >>> from mechanisms.machine import DATA, Machine
    >>> m = Machine.from_file(DATA / "excavator.toml", {"circuit.type": "open-centre"}, mode="valves")
    >>> op = BleedOffOperator(m, {"boom": 0.48})
    >>> a_cap = m.circuit.areas["boom"][0]
    >>> [round(op.steady({"boom": 0.48}, {"boom": p * a_cap}).rates["boom"] * 1e3) for p in (40e5, 60e5)]   # mm/s
    [156, 76]
    """

    def __init__(self, machine: Any, levers: Any, *, period: float = 0.01) -> None:
        from .cycle import Cycle

        problems = []
        if machine.mode != "valves":
            problems.append(f"the machine is built for mode {machine.mode!r}, expected 'valves'")
        fns = tuple(machine.functions)
        self._cycle = None
        self._held: dict[str, float] = {f: 0.0 for f in fns}
        if isinstance(levers, Cycle):
            if levers.mode != "valves":
                problems.append(f"the lever cycle is for mode {levers.mode!r}, expected 'valves' (spool strokes)")
            else:
                self._cycle = levers
        elif isinstance(levers, Mapping):
            for f, v in levers.items():
                if f not in fns:
                    problems.append(f"lever {f!r}: no such function (expected one of {', '.join(fns)})")
                elif not (isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                          and -1.0 <= v <= 1.0):
                    problems.append(f"lever {f!r} = {v!r}: expected a stroke −1 … 1")
                else:
                    self._held[f] = float(v)
        else:
            problems.append(f"levers = {type(levers).__name__}: expected a valves Cycle or a mapping "
                            "function → stroke")
        if not (isinstance(period, (int, float)) and math.isfinite(period) and 0 < period <= 1):
            problems.append(f"period = {period!r}: expected a number > 0 and ≤ 1 s")
        if problems:
            raise ParameterError("BleedOffOperator: " + "; ".join(problems))
        self.machine = machine
        self._signals = self._cycle.signals() if self._cycle is not None else None
        self.controller = Controller(self._step, [f"{f}.cmd" for f in fns], period=float(period))
        self._law = None

    def lever(self, t: float) -> dict[str, float]:
        """The lever strokes at time ``t`` (s).

        Examples
        --------
        See the class.
        """
        if self._signals is None:
            return dict(self._held)
        return {f: float(np.clip(self._signals[f].value(t), -1.0, 1.0)) for f in self.machine.functions}

    def _step(self, t: float, y) -> dict[str, float]:
        return {f"{f}.cmd": v for f, v in self.lever(t).items()}

    def drive(self, t_end: float, **run_kw: Any):
        """Run the machine with these levers up to ``t_end`` (s).

        Parameters
        ----------
        t_end : float
        **run_kw
            Passed to :meth:`Machine.run` (``progress``, ``energy``...).

        Returns
        -------
        MachineRun

        Raises
        ------
        ParameterError
            ``t_end`` not a time > 0.

        Examples
        --------
        >>> from mechanisms.machine import DATA, Machine
        >>> m = Machine.from_file(DATA / "excavator.toml", {"circuit.type": "open-centre"}, mode="valves")
        >>> run = BleedOffOperator(m, {"boom": 0.3}).drive(0.5, progress=False)
        >>> float(run.table()["boom_command"][-1])
        0.3
        """
        if not (isinstance(t_end, (int, float)) and math.isfinite(t_end) and t_end > 0):
            raise ParameterError(f"BleedOffOperator.drive: t_end = {t_end!r}, expected a time > 0 s")
        from .cycle import Cycle

        fns = tuple(self.machine.functions)
        commands = Cycle("valves", [0.0, float(t_end)], {f: [0.0, 0.0] for f in fns}, fns,
                         source="bleed-off operator's levers")
        return self.machine.run(commands, controller=self.controller, t_end=float(t_end), **run_kw)

    # ------------------------------------------------------------------ the open centre's feel
    def _open_centre(self):
        if self._law is None:
            from .open_centre_law import OpenCentreLaw

            circ = self.machine.circuit
            if not hasattr(getattr(circ, "hydraulic", None), "control"):
                raise ParameterError(f"BleedOffOperator: circuit {type(circ).__name__} has no centre "
                                     "bypass; the bleed-off read-outs need circuit.type = 'open-centre'")
            self._law = OpenCentreLaw(circ)
        return self._law

    def steady(self, levers: Mapping[str, float], forces: Mapping[str, float], speed_ratio: float = 1.0):
        """The open centre's steady state with these levers held against these loads.

        Parameters
        ----------
        levers : mapping
            Function → stroke (missing: centred).
        forces : mapping
            Function → load force on the rod (N, positive pushing it in).
        speed_ratio : float
            Pump speed over the circuit's start speed.

        Returns
        -------
        OpenCentreState
            Pump and negacon pressures, the rates and flows per function.

        Raises
        ------
        ParameterError
            Not an open-centre circuit.

        Examples
        --------
        See the class.
        """
        return self._open_centre().steady(levers, forces, speed_ratio)

    def start_lever(self, function: str, force: float, speed_ratio: float = 1.0) -> float:
        """The lever stroke at which ``function`` starts to move against ``force``, the others
        centred: where the throttled bypass lifts the pump pressure to the load's.

        Parameters
        ----------
        function : str
        force : float
            Load force on the rod (N, positive pushing it in): the function extends.
        speed_ratio : float

        Returns
        -------
        float
            ``nan`` if even a closed bypass does not move it (the load above the relief).

        Raises
        ------
        ParameterError
            An unknown function, or not an open-centre circuit.

        Examples
        --------
        A heavier load needs more lever before anything moves:

        >>> from mechanisms.machine import DATA, Machine
        >>> m = Machine.from_file(DATA / "excavator.toml", {"circuit.type": "open-centre"}, mode="valves")
        >>> op = BleedOffOperator(m, {})
        >>> a = m.circuit.areas["boom"][0]
        >>> [round(op.start_lever("boom", p * a), 2) for p in (40e5, 120e5)]
        [0.43, 0.48]
        """
        law = self._open_centre()
        if function not in law.functions:
            raise ParameterError(f"BleedOffOperator.start_lever: no function {function!r} "
                                 f"(expected one of {', '.join(law.functions)})")

        def moves(x: float) -> bool:
            return law.steady({function: x}, {function: force}, speed_ratio).rates[function] > 0.0

        if not moves(1.0):
            return math.nan
        lo, hi = 0.0, 1.0
        while hi - lo > 1e-5:
            mid = 0.5 * (lo + hi)
            if moves(mid):
                hi = mid
            else:
                lo = mid
        return 0.5 * (lo + hi)
