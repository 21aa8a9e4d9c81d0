"""Results of a co-simulation run: exchanged signals against time, events, status.

Examples
--------
>>> import numpy as np
>>> res = CosimResults(time=np.array([0.0, 0.1]), outputs=np.array([[1.0], [2.0]]),
...                    output_names=("mass.x",), output_units=("m",),
...                    inputs=np.array([[0.0], [0.5]]), input_names=("spring.x",),
...                    input_units=("m",))
>>> res["mass.x"]
array([1., 2.])
>>> res.status, res.aborted, len(res)
('completed', False, 2)
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from ..errors import ParameterError
from .catcher import Event

__all__ = ["CosimResults"]


@dataclass(frozen=True)
class CosimResults:
    """Time histories of every exchanged signal.

    Attributes
    ----------
    time : ndarray, shape (N,)
        Communication instants.
    outputs : ndarray, shape (N, n_outputs)
        Every subsystem output at those instants (column names ``"sub.port"``).
    inputs : ndarray, shape (N, n_inputs)
        The value each input had when the outputs at that instant were taken, as its
        subsystem really applied it: the end of the glue polynomial over the step ending
        there (extrapolated or interpolated; held or truncated for a subsystem that takes
        fewer input derivatives than the glue order), or, for a direct-feedthrough
        subsystem re-sampled at the communication point, the other side's new outputs.
    energy_residual : ndarray, shape (N, n_bonds)
        Cumulative energy created by the coupling on each power bond (J; positive:
        created), ``integral of (e_used f_sent - e_sent f_used) dt``.
    events : tuple of Event
        Everything the error catcher recorded.
    status : str
        ``"completed"``, ``"error"`` (completed with error-level events) or
        ``"aborted"``.
    reason : str
        Why the run aborted or erred (empty when completed).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from bondgraph.cosim import cosimulate, examples
    >>> res = cosimulate(list(examples.b1_subsystems()), examples.B1_RELATIONS, step=1e-3,
    ...                  end=0.003)
    >>> res
    <CosimResults completed: 4 points, t=0..0.003 s, 3 outputs, 0 events>
    >>> res.unit("spring.F"), res["mass.x"].shape, res.aborted
    ('N', (4,), False)
    >>> p = res.to_csv(pathlib.Path(tempfile.mkdtemp()) / "b1.csv", ["mass.x", "spring.F*mass.v"])
    >>> p.read_text().splitlines()[0]
    'time [s],mass.x [m],spring.F*mass.v [J]'
    """

    time: np.ndarray
    outputs: np.ndarray
    output_names: tuple[str, ...]
    output_units: tuple[str, ...]
    inputs: np.ndarray
    input_names: tuple[str, ...]
    input_units: tuple[str, ...]
    energy_residual: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    bond_names: tuple[str, ...] = ()
    events: tuple[Event, ...] = ()
    status: str = "completed"
    reason: str = ""
    info: dict = field(default_factory=dict)

    @property
    def aborted(self) -> bool:
        """True if the run stopped before its end time."""
        return self.status == "aborted"

    def __len__(self) -> int:
        return len(self.time)

    def __getitem__(self, name: str) -> np.ndarray:
        """History of output or input ``"sub.port"`` (or bond residual ``"a.e*b.f"``)."""
        for names, data in ((self.output_names, self.outputs), (self.input_names, self.inputs),
                            (self.bond_names, self.energy_residual)):
            if name in names:
                return data[:, names.index(name)]
        raise ParameterError(
            f"signal {name!r}: not in the results; expected one of the outputs "
            f"({', '.join(self.output_names)}) or inputs ({', '.join(self.input_names)})")

    def unit(self, name: str) -> str:
        """Unit of signal ``name``.

        Parameters
        ----------
        name : str

        Returns
        -------
        str

        Raises
        ------
        ParameterError
            Not a signal of the run.
        """
        for names, units in ((self.output_names, self.output_units),
                             (self.input_names, self.input_units)):
            if name in names:
                return units[names.index(name)]
        raise ParameterError(f"signal {name!r}: not in the results")

    def columns(self, names: Sequence[str] | None = None) -> list[str]:
        """Column names for :meth:`to_csv` (all outputs, inputs and bonds by default).

        Parameters
        ----------
        names : sequence of str, optional

        Returns
        -------
        list of str
        """
        if names is None:
            return ["time"] + [f"out:{n}" for n in self.output_names] + [
                f"in:{n}" for n in self.input_names] + [
                f"residual:{n}" for n in self.bond_names]
        return ["time"] + list(names)

    def to_csv(self, path: str | Path, names: Sequence[str] | None = None) -> Path:
        """Write the time histories as CSV (header row with units) and return the path.

        Parameters
        ----------
        path : str or Path
            Destination file.
        names : sequence of str, optional
            Signals to write (default: every output, input and bond residual).

        Returns
        -------
        pathlib.Path

        Raises
        ------
        ParameterError
            A name that is not a signal of the run.
        """
        path = Path(path)
        if names is None:
            data = [self.time] + [self.outputs[:, i] for i in range(self.outputs.shape[1])] + [
                self.inputs[:, i] for i in range(self.inputs.shape[1])] + [
                self.energy_residual[:, i] for i in range(self.energy_residual.shape[1])]
            units = ["s"] + list(self.output_units) + list(self.input_units) + [
                "J"] * len(self.bond_names)
        else:
            data = [self.time] + [self[n] for n in names]
            units = ["s"] + [self.unit(n) if n not in self.bond_names else "J" for n in names]
        header = [f"{c} [{u}]" for c, u in zip(self.columns(names), units)]
        with path.open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(header)
            w.writerows(np.column_stack(data).tolist() if data[0].size else [])
        return path

    def __repr__(self) -> str:
        span = f"t={self.time[0]:g}..{self.time[-1]:g} s" if len(self.time) else "empty"
        extra = f", {self.reason}" if self.reason else ""
        return (f"<CosimResults {self.status}: {len(self.time)} points, {span}, "
                f"{len(self.output_names)} outputs, {len(self.events)} events{extra}>")
