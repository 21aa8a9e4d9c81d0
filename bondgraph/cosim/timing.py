"""The time manager: communication step, end time, multi-rate, Jacobi or Gauss-Seidel.

Every ``step`` seconds (the communication step H) the master samples all subsystems
and cross-assigns their outputs. A subsystem may take ``k`` equal sub-steps of ``H/k``
within one communication step (multi-rate); it then samples the other side's outputs
between communication points from the glue polynomial. A subsystem's own internal step
must not exceed the step it is asked to take; subsystems that declare a fixed internal
step larger than that are refused.

Examples
--------
>>> tm = TimeManager(step=1e-3, end=0.01, scheme="gauss-seidel", substeps={"hyd": 4})
>>> tm.n_steps, tm.step_of("hyd"), tm.step_of("mech")
(10, 0.00025, 0.001)
>>> TimeManager(step=3e-3, end=0.01)
Traceback (most recent call last):
...
bondgraph.errors.ParameterError: time manager: 1 problem
  - end time 0.01 s: found 3.33333 communication steps of 0.003 s from t=0 s, expected a whole number
"""

from __future__ import annotations

import math
from collections.abc import Mapping as _Mapping
from dataclasses import dataclass, field
from numbers import Real
from types import MappingProxyType
from typing import Mapping, Sequence

import numpy as np

from ..errors import ParameterError
from .subsystem import Subsystem

__all__ = ["TimeManager", "SCHEMES"]

#: Accepted coupling orders.
SCHEMES = ("jacobi", "gauss-seidel")


def _finite(x) -> bool:
    return isinstance(x, Real) and not isinstance(x, bool) and math.isfinite(x)


def _positive(x) -> bool:
    return _finite(x) and x > 0


@dataclass(frozen=True)
class TimeManager:
    """Sampling instants and stepping order of a co-simulation.

    Parameters
    ----------
    step : float
        Communication step H in seconds.
    end : float
        End time in seconds; ``end - start`` must be a whole number of steps.
    start : float, optional
        Start time (default 0).
    scheme : str, optional
        ``"jacobi"`` (all subsystems step in parallel from the same data) or
        ``"gauss-seidel"`` (one after the other, in ``sequence``, each seeing the
        outputs of those before it at the end of the step).
    substeps : mapping of str to int, optional
        Sub-steps per communication step for multi-rate subsystems (default 1).
    sequence : sequence of str, optional
        Gauss-Seidel order (default: the order the subsystems are given in).

    Raises
    ------
    ParameterError
        Listing every bad value.

    Examples
    --------
    >>> tm = TimeManager(step=0.25, end=1.0, scheme="gauss-seidel", substeps={"hyd": 5})
    >>> tm.n_steps, tm.times(), tm.step_of("hyd"), tm.step_of("mech")
    (4, array([0.  , 0.25, 0.5 , 0.75, 1.  ]), 0.05, 0.25)
    >>> TimeManager(step=0.3, end=1.0, scheme="parallel")
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: time manager: 2 problems
      - end time 1 s: found 3.33333 communication steps of 0.3 s from t=0 s, expected a whole number
      - scheme: found 'parallel', expected one of 'jacobi', 'gauss-seidel'
    """

    step: float
    end: float
    start: float = 0.0
    scheme: str = "jacobi"
    substeps: Mapping[str, int] = field(default_factory=dict)
    sequence: Sequence[str] | None = None

    def __post_init__(self):
        problems = []
        step_ok = _positive(self.step)
        start_ok = _finite(self.start)
        end_ok = _finite(self.end)
        if not step_ok:
            problems.append(f"communication step: found {self.step!r}, expected a positive, "
                            "finite time in s")
        if not start_ok:
            problems.append(f"start time: found {self.start!r}, expected a finite time in s")
        if not end_ok:
            problems.append(f"end time: found {self.end!r}, expected a finite time in s")
        elif start_ok and not self.end > self.start:
            problems.append(f"end time: found {self.end!r}, expected a finite time after the "
                            f"start time {self.start!r} s")
        elif step_ok and start_ok:
            ratio = (self.end - self.start) / self.step
            if abs(ratio - round(ratio)) > 1e-9 * max(1.0, ratio):
                problems.append(f"end time {self.end:g} s: found {ratio:g} communication "
                                f"steps of {self.step:g} s from t={self.start:g} s, expected "
                                "a whole number")
        if self.scheme not in SCHEMES:
            problems.append(f"scheme: found {self.scheme!r}, expected one of "
                            + ", ".join(repr(s) for s in SCHEMES))
        if isinstance(self.substeps, _Mapping) or self.substeps is None:
            subs = dict(self.substeps or {})
        else:
            problems.append(f"substeps: found {self.substeps!r}, expected a mapping of "
                            "subsystem name to a whole number of sub-steps")
            subs = {}
        for name, k in subs.items():
            if not (isinstance(k, int) and not isinstance(k, bool) and k >= 1):
                problems.append(f"substeps of {name!r}: found {k!r}, expected a whole number "
                                ">= 1")
        if self.sequence is not None and (
                isinstance(self.sequence, (str, bytes)) or not isinstance(self.sequence, Sequence)
                or not all(isinstance(n, str) for n in self.sequence)):
            problems.append(f"sequence: found {self.sequence!r}, expected a list of subsystem "
                            "names")
        if problems:
            raise ParameterError(problems, subject="time manager")
        object.__setattr__(self, "step", float(self.step))
        object.__setattr__(self, "end", float(self.end))
        object.__setattr__(self, "start", float(self.start))
        object.__setattr__(self, "substeps", MappingProxyType(subs))
        if self.sequence is not None:
            object.__setattr__(self, "sequence", tuple(self.sequence))

    @property
    def n_steps(self) -> int:
        """Number of communication steps."""
        return int(round((self.end - self.start) / self.step))

    def times(self) -> np.ndarray:
        """All communication instants, start and end included.

        Returns
        -------
        ndarray, shape (n_steps + 1,)
        """
        return self.start + self.step * np.arange(self.n_steps + 1)

    def substeps_of(self, name: str) -> int:
        """Sub-steps per communication step for subsystem ``name``.

        Parameters
        ----------
        name : str

        Returns
        -------
        int
        """
        return self.substeps.get(name, 1)

    def step_of(self, name: str) -> float:
        """The step subsystem ``name`` takes (``H / k``).

        Parameters
        ----------
        name : str
            The subsystem.

        Returns
        -------
        float
        """
        return self.step / self.substeps_of(name)

    def order(self, subsystems: Sequence[Subsystem]) -> list[Subsystem]:
        """The subsystems in stepping order (``sequence`` if given).

        Parameters
        ----------
        subsystems : sequence of Subsystem

        Returns
        -------
        list of Subsystem
        """
        if self.sequence is None:
            return list(subsystems)
        by_name = {s.name: s for s in subsystems}
        return [by_name[n] for n in self.sequence]

    def problems(self, subsystems: Sequence[Subsystem]) -> list[str]:
        """Every inconsistency between this schedule and ``subsystems``.

        Parameters
        ----------
        subsystems : sequence of Subsystem

        Returns
        -------
        list of str

        Examples
        --------
        >>> from bondgraph.cosim import examples
        >>> TimeManager(step=1e-3, end=1.0, substeps={"hdy": 2}).problems(
        ...     list(examples.b3_subsystems()))
        ["substeps given for 'hdy', which is not a subsystem (known: mech, hyd)"]
        """
        names = [s.name for s in subsystems]
        problems = []
        for name in self.substeps:
            if name not in names:
                problems.append(f"substeps given for {name!r}, which is not a subsystem "
                                f"(known: {', '.join(names)})")
        if self.sequence is not None:
            if sorted(self.sequence) != sorted(names):
                problems.append(f"sequence {list(self.sequence)}: expected each of "
                                f"{names} exactly once")
        for s in subsystems:
            h = self.step_of(s.name)
            if s.max_step is not None and s.max_step > h * (1 + 1e-12):
                problems.append(f"subsystem {s.name!r}: internal step {s.max_step:g} s "
                                f"exceeds its communication step {h:g} s; expected at most "
                                f"{h:g} s (give it a smaller internal step, or fewer substeps / a "
                                "larger communication step)")
        return problems

    def validate(self, subsystems: Sequence[Subsystem]) -> None:
        """Raise :class:`ParameterError` listing every problem with ``subsystems``.

        Parameters
        ----------
        subsystems : sequence
            The coupled subsystems.

        Raises
        ------
        ParameterError
            The problems of :meth:`problems`, if any.
        """
        problems = self.problems(subsystems)
        if problems:
            raise ParameterError(problems, subject="time manager")
