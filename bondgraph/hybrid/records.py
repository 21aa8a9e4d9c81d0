"""What a hybrid run leaves: the transition log and results that know each sample's mode.

A :class:`TransitionRecord` is one logged switch; :class:`HybridResults` is a
:class:`~bondgraph.results.Results` with the log, every discrete variable's label at
every sample, and the outputs computed with the parameters of each sample's mode and
the inputs as they were during the run (a controller's held values included).

Examples
--------
>>> r = TransitionRecord(0.25, "valve", "closed", "open", "p > 1e+07")
>>> r.variable, r.target, str(r)
('valve', 'open', 't = 0.25 s: valve closed → open (p > 1e+07)')
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError
from ..results import Results

__all__ = ["TransitionRecord", "HybridResults"]


@dataclass(frozen=True)
class TransitionRecord:
    """One logged switch: time, variable, source → target, cause.

    Attributes
    ----------
    time : float
        When it fired (s).
    variable, source, target : str
        The discrete variable and its labels before and after.
    cause : str
        The guard's condition (``"cart/v.x > 1"``), the label of a timed transition, or
        ``"controller"`` for an external event.

    Examples
    --------
    >>> print(TransitionRecord(1.0, "push", "Right", "Left", "cart/v.x > 1"))
    t = 1 s: push Right → Left (cart/v.x > 1)
    """

    time: float
    variable: str
    source: str
    target: str
    cause: str

    def __str__(self) -> str:
        return f"t = {self.time:.9g} s: {self.variable} {self.source} → {self.target} ({self.cause})"


class _RecordedSignal:
    def __init__(self, name, t, v):
        self.name, self._t, self._v = name, t, v

    def value(self, t: float) -> float:
        return float(np.interp(t, self._t, self._v))


class _RecordedInputs:
    """Input values as they were during the run (for outputs after the run)."""

    def __init__(self, names, t, U):
        self.names = list(names)
        self.deriv_names: list[str] = []
        self.U = U
        self.signals = [_RecordedSignal(n, t, U[:, j]) for j, n in enumerate(self.names)]
        self.constant = False

    def __call__(self, t):
        return np.array([s.value(t) for s in self.signals]), np.zeros(0)

    def at(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``u`` (interpolated in the recorded values) and ``du`` at every time of ``t``."""
        t = np.asarray(t, dtype=float).ravel()
        U = np.column_stack([np.interp(t, s._t, s._v) for s in self.signals]) if self.signals \
            else np.zeros((len(t), 0))
        return U, np.zeros((len(t), 0))

    def breakpoints(self):
        return np.array([])


class HybridResults(Results):
    """Results of :func:`simulate_hybrid`: also the modes and the transition log.

    Attributes
    ----------
    transitions : list of TransitionRecord
    mode_values : dict
        Discrete variable → its label at every sample.

    Examples
    --------
    The bang-bang cart (:func:`.examples.cart`): ``x = t²`` until it turns at ``x = 1``.

    >>> from bondgraph.hybrid import simulate_hybrid
    >>> from bondgraph.hybrid.examples import cart
    >>> res = simulate_hybrid(cart(), (0.0, 2.0), rtol=1e-10, atol=1e-12, t_eval=[0.5, 1.5])
    >>> [str(r) for r in res.transitions]
    ['t = 1 s: push Right → Left (cart/v.x > 1)']
    >>> res.mode("push").tolist(), [round(float(x), 6) for x in res["cart/v.x"]]
    (['Right', 'Left'], [0.25, 1.75])
    >>> res.events_per_second()
    1.0
    """

    def __init__(self, model, t, y, inputs, *, stats, message, events, transitions,
                 mode_values, param_rows, param_index, du_rows, energy: bool = False):
        super().__init__(model, t, y, inputs, energy=energy, stats=stats, message=message, events=events)
        self.transitions: list[TransitionRecord] = transitions
        self.mode_values: dict[str, np.ndarray] = mode_values
        self._param_rows = param_rows
        self._param_index = param_index
        self._du = du_rows

    def mode(self, variable: str) -> np.ndarray:
        """Labels of a discrete variable at every sample."""
        if variable not in self.mode_values:
            raise ParameterError(f"{variable!r}: not a discrete variable of this run "
                                 f"(variables: {', '.join(self.mode_values)})")
        return self.mode_values[variable]

    def outputs(self) -> dict[str, np.ndarray]:
        """The compiled outputs at every sample, each with the parameters of its mode and
        the inputs as they were during the run (one batched call per mode); outputs that
        are not finite somewhere are named in a warning, as for :class:`Results`."""
        if self._out is None:
            from ..batch import evaluate_many

            sysm = self.model.system
            saved = sysm.params.copy()
            names = sysm.output_names
            data = np.zeros((len(self.t), len(names)))
            index = np.asarray(self._param_index, dtype=int)
            try:
                for k in np.unique(index):
                    rows = np.flatnonzero(index == k)
                    sysm.params[:] = self._param_rows[k]
                    data[rows] = evaluate_many(sysm, self.x[rows], self.inputs.U[rows],
                                               self._du[rows], t=self.t[rows])
            finally:
                sysm.params[:] = saved
            self._out = {n: data[:, j] for j, n in enumerate(names)}
            self._warn_non_finite(data, names)
        return self._out

    def events_per_second(self, window: float | None = None) -> float:
        """Largest number of transitions in any window (default 1 s), per second."""
        ts = np.array([r.time for r in self.transitions])
        if ts.size == 0:
            return 0.0
        w = float(window) if window else 1.0
        counts = np.searchsorted(ts, ts + w, side="right") - np.arange(ts.size)
        return float(counts.max() / w)
