"""Live curves of a machine run: chosen read-outs plotted while the run advances.

``machine.run(..., live=["boom_cap_pressure", "tip_y"])`` passes a :class:`LiveRun` to
the integrator as a polled event that never fires (:class:`bondgraph.events.Flag`): it
is called after every step on the Python path and whenever the native driver returns to
Python (at least every 0.1 s of wall time), records the state, and at most every
``interval`` seconds of wall time turns the samples since its last redraw into the run's
named read-outs (:func:`.table.run_table`: the same columns, units and conventions as
``run.table()``) and redraws. So drawing costs a few table evaluations per second, not one
per step. When the run ends the curves are redrawn from the run's own table (in mode
extensions, at the exact poses).

In a notebook with the inline backend the figure is shown once and refreshed in place
(an IPython display handle, as the co-simulation's :class:`~bondgraph.cosim.LiveCurves`);
with an interactive backend its canvas is redrawn; under Agg nothing is rendered until you
save or show the figure. Values are shown in the units of the plots (bar, kN...).

Examples
--------
>>> import matplotlib; matplotlib.use("Agg")
>>> from mechanisms.machine import Machine, DATA
>>> m = Machine.from_file(DATA / "excavator.toml", mode="forces")
>>> run = m.run(t_end=0.3, progress=False, live=["boom_cap_pressure_required", "tip_y"])
>>> [ax.get_ylabel() for ax in run.live.axes]
['boom_cap_pressure_required [bar]', 'tip_y [m]']
>>> run.live.close()
"""

from __future__ import annotations

import difflib
import time
import warnings
from typing import Sequence

import numpy as np

from bondgraph.errors import ParameterError
from bondgraph.events import Flag

__all__ = ["LiveRun"]


class LiveRun(Flag):
    """Read-outs of a machine run drawn while it runs (see the module).

    Parameters
    ----------
    names : sequence of str
        Columns of the run's table (``"tip_y"``, ``"boom_cap_pressure"``,
        ``"arm_force"``...), one axes each.
    interval : float
        Least wall-clock time (s) between two redraws (default 0.25: at most four per
        second); the end of the run is always drawn.
    figsize : (float, float), optional

    Attributes
    ----------
    fig : matplotlib.figure.Figure or None
        The figure (made when the run starts).
    axes : list of Axes
    updates : int
        Redraws so far.
    samples : int
        States recorded so far.

    Raises
    ------
    ParameterError
        No names; (when the run starts) a name that is not a column of the run's table.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> from mechanisms.machine import Machine, DATA
    >>> m = Machine.from_file(DATA / "knuckle_crane.toml", mode="extensions")
    >>> live = LiveRun(["hook_y", "lift_force"], interval=0.0)
    >>> run = m.run(t_end=0.5, progress=False, live=live)
    >>> live.updates >= 2, live.axes[-1].get_xlabel()
    (True, 'time [s]')
    >>> m.run(t_end=0.1, progress=False, live=["hook_z"])
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: live curves of knuckle_crane: 1 problem
      - 'hook_z': not a read-out of the run; did you mean 'hook_y', 'hook_x'?
    >>> live.close()
    """

    terminal = True
    direction = 0
    polled = True

    def __init__(self, names: Sequence[str], *, interval: float = 0.25,
                 figsize: tuple[float, float] | None = None):
        super().__init__()
        if isinstance(names, str) or not names or not all(isinstance(n, str) for n in names):
            raise ParameterError(f"live: found {names!r}, expected a non-empty list of read-out names "
                                 "(columns of run.table(): 'tip_y', 'boom_cap_pressure'...)")
        if isinstance(interval, bool) or not isinstance(interval, (int, float)) or not interval >= 0:
            raise ParameterError(f"live: interval = {interval!r}, expected a time ≥ 0 s between redraws")
        self.names = list(names)
        self.interval = float(interval)
        self.figsize = figsize
        self.fig = None
        self.axes: list = []
        self.lines: list = []
        self.updates = 0
        self.samples = 0
        self._t: list[float] = []
        self._x: list[np.ndarray] = []
        self._done = 0
        self._data: dict[str, list[np.ndarray]] = {}
        self._factor: dict[str, float] = {}
        self._last = -float("inf")
        self._handle = None
        self._interactive = False
        self._ctx = None

    # ------------------------------------------------------------------ set-up
    def prepare(self, machine, cycle, inputs) -> None:
        """Check the names against the run's table and open the figure (``run_machine``
        calls it before integrating).

        Parameters
        ----------
        machine : Machine
        cycle : Cycle
        inputs : dict
            The run's inputs (as :func:`bondgraph.simulate` takes them).

        Raises
        ------
        ParameterError
            Every name that is not a column of the run's table, with the close ones.
        """
        from bondgraph.signals import InputSet

        model = machine.model.model
        inp = InputSet(model.input_names, model.equations.input_derivatives, inputs)
        self._ctx = (machine, cycle, inp)
        x0 = model.initial_state()
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")        # only the names matter here, not the values at x0
            tab, units = self._table(np.array([cycle.start]), x0[None, :])
        bad = []
        for n in self.names:
            if n not in tab:
                close = difflib.get_close_matches(n, list(tab), n=2)
                bad.append(f"{n!r}: not a read-out of the run"
                           + (f"; did you mean {', '.join(map(repr, close))}?" if close else ""))
        if bad:
            raise ParameterError(bad, subject=f"live curves of {machine.name}")
        self._open(units, machine.name)

    def _table(self, t: np.ndarray, x: np.ndarray):
        from bondgraph import Results

        from .run import MachineRun
        from .table import run_table

        machine, cycle, inp = self._ctx
        res = Results(machine.model.model, t, x, inp, energy=False, stats={}, message="running")
        return run_table(MachineRun(machine, res, cycle, {}))

    def _open(self, units: dict[str, str], title: str) -> None:
        import matplotlib.pyplot as plt

        from bondgraph.cosim.live import _notebook_inline
        from bondgraph.units import display_unit

        n = len(self.names)
        self.fig, axes = plt.subplots(n, 1, sharex=True, figsize=self.figsize or (7.0, 1.4 + 1.6 * n),
                                      squeeze=False, layout="constrained")
        self.axes = list(axes[:, 0])
        self.lines = []
        for ax, name in zip(self.axes, self.names):
            factor, shown = display_unit(units.get(name, ""))
            self._factor[name] = factor
            (line,) = ax.plot([], [], lw=1.2)
            ax.set_ylabel(f"{name} [{shown or 'unit unknown'}]")
            ax.grid(True, alpha=0.3)
            self.lines.append(line)
            self._data[name] = []
        self.axes[-1].set_xlabel("time [s]")
        self.fig.suptitle(f"{title}: live", fontsize=9)
        import matplotlib

        # a canvas nobody looks at (Agg, a file backend) is not rendered while the run goes on
        self._interactive = matplotlib.get_backend().lower() not in ("agg", "pdf", "svg", "ps", "cairo", "template")
        if _notebook_inline():
            from IPython.display import display

            self._handle = display(self.fig, display_id=True)
            plt.close(self.fig)   # the inline backend would show it a second time

    # ------------------------------------------------------------------ during the run
    def __call__(self, t: float, x: np.ndarray) -> float:
        if self._ctx is not None and (not self._t or t > self._t[-1]):
            self._t.append(float(t))
            self._x.append(np.array(x, dtype=float))
            self.samples += 1
            now = time.perf_counter()
            if now - self._last >= self.interval:
                self._last = now
                self._extend()
                self._draw()
        return 1.0     # never requested: the run goes on

    def _extend(self) -> None:
        if self._done >= len(self._t):
            return
        t = np.array(self._t[self._done:])
        x = np.vstack(self._x[self._done:])
        with np.errstate(all="ignore"):
            tab, _ = self._table(t, x)
        for name in self.names:
            self._data[name].append(np.asarray(tab[name], dtype=float))
        self._data.setdefault("time", []).append(t)
        self._done = len(self._t)

    def _draw(self, columns: dict[str, np.ndarray] | None = None) -> None:
        for ax, line, name in zip(self.axes, self.lines, self.names):
            if columns is None:
                t = np.concatenate(self._data.get("time", [np.zeros(0)]))
                y = np.concatenate(self._data[name]) if self._data[name] else np.zeros(0)
            else:
                t, y = columns["time"], columns[name]
            line.set_data(t, np.asarray(y) * self._factor[name])
            ax.relim()
            ax.autoscale_view()
        if self._handle is not None:
            self._handle.update(self.fig)
        elif self._interactive:
            self.fig.canvas.draw_idle()
            self.fig.canvas.flush_events()
        self.updates += 1

    def finish(self, run) -> None:
        """Draw the curves from the finished run's table (``run_machine`` calls it).

        Parameters
        ----------
        run : MachineRun
        """
        if self.fig is None:
            return
        self._draw(run.table())
        self._t, self._x = [], []    # the samples are the run's now

    def close(self) -> None:
        """Close the figure."""
        if self.fig is not None:
            import matplotlib.pyplot as plt

            plt.close(self.fig)
