"""Live curves: a matplotlib figure of chosen exchanged signals, updated during a run.

Pass a :class:`LiveCurves` as ``callback`` to :meth:`Cosimulation.run
<bondgraph.cosim.Cosimulation.run>`. In a Jupyter notebook with the inline backend the
figure is shown once and refreshed in place (an IPython display handle); with an
interactive backend the canvas is redrawn; under Agg it is simply redrawn (and can be
saved at the end).

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> from bondgraph.cosim import cosimulate, examples
>>> live = LiveCurves(["mass.x", "spring.F"])
>>> res = cosimulate(list(examples.b1_subsystems()), examples.B1_RELATIONS, step=1e-3,
...                  end=0.05, callback=live)
>>> live.updates >= 1, [ax.get_ylabel() for ax in live.axes]
(True, ['mass.x [m]', 'spring.F [N]'])
>>> live.close()
"""

from __future__ import annotations

import time
from typing import Sequence

from ..errors import ParameterError
from .results import CosimResults

__all__ = ["LiveCurves"]


def _notebook_inline() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    if shell is None or type(shell).__name__ != "ZMQInteractiveShell":
        return False
    import matplotlib
    return "inline" in matplotlib.get_backend().lower()


class LiveCurves:
    """Callback drawing exchanged signals against simulation time while a run goes on.

    Parameters
    ----------
    signals : sequence of str
        Outputs or inputs to draw, as ``"subsystem.port"`` (one axis each).
    title : str, optional
        Figure title.
    figsize : tuple, optional
        Matplotlib figure size in inches.
    interval : float, optional
        Least wall-clock time in seconds between two redraws (the final state is
        always drawn), so drawing does not slow a long run down.

    Attributes
    ----------
    fig : matplotlib.figure.Figure or None
        The figure (created when the run starts).
    axes : list of Axes
    updates : int
        Number of redraws so far.

    Raises
    ------
    ParameterError
        No signals, or (when the run starts) a name that is not exchanged.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from bondgraph.cosim import cosimulate, examples
    >>> live = LiveCurves(["mass.v"], title="B1")
    >>> _ = cosimulate(list(examples.b1_subsystems()), examples.B1_RELATIONS, step=1e-3,
    ...                end=0.01, callback=live)
    >>> live.axes[0].get_xlabel(), live.axes[0].get_ylabel(), live.fig._suptitle.get_text()
    ('time [s]', 'mass.v [m/s]', 'B1')
    >>> live.close()
    >>> cosimulate(list(examples.b1_subsystems()), examples.B1_RELATIONS, step=1e-3,
    ...            end=0.01, callback=LiveCurves(["mass.a"]))
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: live curves: 1 problem
      - signal 'mass.a': not an exchanged output or input (known: mass.x, mass.v, spring.F, mass.F, spring.x, spring.v)
    """

    def __init__(self, signals: Sequence[str], *, title: str | None = None,
                 figsize: tuple[float, float] | None = None, interval: float = 0.25):
        if isinstance(signals, str) or not signals:
            raise ParameterError(f"signals: found {signals!r}, expected a non-empty list of "
                                 "'subsystem.port' names")
        self.signals = list(signals)
        self.title = title
        self.figsize = figsize
        self.fig = None
        self.axes: list = []
        self.lines: list = []
        self.updates = 0
        self.interval = float(interval)
        self._last = -float("inf")
        self._handle = None

    def prepare(self, sim) -> None:
        """Check the signal names against a :class:`Cosimulation` and open the figure.

        Parameters
        ----------
        sim
            The co-simulation.

        Raises
        ------
        ParameterError
            Listing every name that is neither an output nor an input.
        """
        known = list(sim.output_names) + list(sim.input_names)
        bad = [f"signal {s!r}: not an exchanged output or input (known: {', '.join(known)})"
               for s in self.signals if s not in known]
        if bad:
            raise ParameterError(bad, subject="live curves")
        units = dict(zip(sim.output_names, sim.output_units))
        units.update({n: u for n, u in zip(sim.input_names, sim.input_units) if n not in units})
        self._open(units)

    def _open(self, units: dict[str, str]) -> None:
        import matplotlib.pyplot as plt

        n = len(self.signals)
        size = self.figsize or (7.0, 1.8 + 1.6 * n)
        self.fig, axes = plt.subplots(n, 1, sharex=True, figsize=size, squeeze=False)
        self.axes = list(axes[:, 0])
        self.lines = []
        for ax, name in zip(self.axes, self.signals):
            (line,) = ax.plot([], [], lw=1.0)
            ax.set_ylabel(f"{name} [{units.get(name, '?')}]")
            ax.grid(True, alpha=0.3)
            self.lines.append(line)
        self.axes[-1].set_xlabel("time [s]")
        if self.title:
            self.fig.suptitle(self.title)
        if _notebook_inline():
            from IPython.display import display
            self._handle = display(self.fig, display_id=True)
            plt.close(self.fig)  # keep the inline backend from showing it twice

    def __call__(self, results: CosimResults) -> None:
        """Update the curves with the results so far (throttled while running).

        Parameters
        ----------
        results : CosimResults
            The run so far (``status == "running"``) or complete.
        """
        now = time.perf_counter()
        if results.status == "running" and now - self._last < self.interval:
            return
        self._last = now
        if self.fig is None:
            units = dict(zip(results.output_names, results.output_units))
            units.update(zip(results.input_names, results.input_units))
            self._open(units)
        for ax, line, name in zip(self.axes, self.lines, self.signals):
            line.set_data(results.time, results[name])
            ax.relim()
            ax.autoscale_view()
        if self._handle is not None:
            self._handle.update(self.fig)
        else:
            self.fig.canvas.draw_idle()
            try:
                self.fig.canvas.flush_events()
            except NotImplementedError:  # non-interactive canvases
                pass
        self.updates += 1

    def close(self) -> None:
        """Close the figure."""
        if self.fig is not None:
            import matplotlib.pyplot as plt
            plt.close(self.fig)
