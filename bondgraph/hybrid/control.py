"""What guards and controllers read, and external control.

:class:`_Probe` reads a named quantity of a hybrid model at ``(t, x)`` — a state, a
discrete variable's value, an external signal, an input or a compiled output — for the
guards (:meth:`.guards.Guard.bind`) and the controller. A :class:`Controller` is the
machine control software of a hybrid simulation: ``u = fn(t, y)`` with ``y`` the
:class:`Measurements` it sees, evaluated at every right-hand-side call (continuous) or at
its own sample period with a zero-order hold, a sampled one also commanding discrete
modes (external events).

Examples
--------
>>> Controller(lambda t, y: {"force": 0.0}, ["force"], period=0.01).period
0.01
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

import numpy as np

from ..errors import ParameterError, UserCallableError

if TYPE_CHECKING:
    from .model import HybridModel
    from .rhs import _Rhs

__all__ = ["Controller", "Measurements"]


class _Probe:
    """Reads named quantities at (t, x): states, outputs, inputs, discrete values."""

    def __init__(self, hm: "HybridModel", rhs: "_Rhs | None" = None):
        self.hm = hm
        self.model = hm.model
        self.rhs = rhs
        self._readers: dict[str, Callable[[float, np.ndarray], float]] = {}

    def reader(self, name: str) -> Callable[[float, np.ndarray], float]:
        """The reader of ``name`` (made once per name: a controller reads at every sample)."""
        r = self._readers.get(name)
        if r is None:
            r = self._readers[name] = self._make_reader(name)
        return r

    def _make_reader(self, name: str) -> Callable[[float, np.ndarray], float]:
        m = self.model
        if name in m.state_names:
            i = m.state_names.index(name)
            return lambda t, x: float(x[i])
        if name in self.hm.variables:
            var = self.hm.variables[name]
            return lambda t, x: var.value(self.hm._modes[name])
        if name in self.hm.signals:
            def sig(t, x):
                return self.rhs.signal(name, t)
            return sig
        if name in m.input_names:
            j = m.input_names.index(name)

            def inp(t, x):
                return float(self.rhs.inputs_at(t, x)[j])
            return inp
        outs = m.system.output_names
        if name in outs:
            k = outs.index(name)

            def out(t, x):
                try:
                    return float(self.rhs.outputs(t, x)[k])
                except FloatingPointError as exc:  # a singular block met by the guard alone
                    raise UserCallableError(
                        f"guard quantity {name!r} at t = {t:.9g} s: the model's outputs cannot "
                        f"be computed there ({exc})", time=t,
                        state={n: float(v) for n, v in zip(m.state_names, x)}) from None
            return out
        import difflib

        close = difflib.get_close_matches(name, m.state_names + m.input_names + outs, n=3)
        raise ParameterError(f"guard quantity {name!r}: not a state, input, output, discrete "
                             f"variable or declared external signal of {m.name!r}"
                             + (f"; did you mean {', '.join(map(repr, close))}?" if close else ""))


class Measurements(Mapping):
    """What a controller sees: ``y[name]`` for states, outputs, inputs; ``y.t``, ``y.x``.

    ``y.mode(variable)`` gives a discrete variable's current label.

    Examples
    --------
    A sampled controller pushing a unit mass with a unit force, looking at its position:

    >>> from bondgraph.hybrid import simulate_hybrid
    >>> from bondgraph.hybrid.examples import servo
    >>> seen = []
    >>> def push(t, y):
    ...     seen.append((y.t, round(y["servo/v.x"], 6), len(y)))
    ...     return {"force": 1.0}
    >>> _ = simulate_hybrid(servo(), (0.0, 1.0), rtol=1e-10, atol=1e-12,
    ...                     controller=Controller(push, ["force"], period=0.5))
    >>> seen                                      # x = t²/2; two states
    [(0.0, 0.0, 2), (0.5, 0.125, 2)]
    """

    def __init__(self, probe: _Probe, t: float, x: np.ndarray):
        self._probe, self.t, self.x = probe, t, x

    def __getitem__(self, name: str) -> float:
        return self._probe.reader(name)(self.t, self.x)

    def __iter__(self):
        return iter(self._probe.model.state_names)

    def __len__(self) -> int:
        return len(self._probe.model.state_names)

    def mode(self, variable: str) -> str:
        return self._probe.hm._modes[variable]


@dataclass(frozen=True)
class Controller:
    """External control: ``u = fn(t, y)`` returning ``{input: value, discrete: label}``.

    Parameters
    ----------
    fn : callable
        ``fn(t, y)`` with ``y`` a :class:`Measurements`; returns a dict mapping
        model input names to numbers and (sampled controllers only) discrete
        variable names to mode labels — external events.
    inputs : sequence of str
        The model inputs this controller sets (they need no signal).
    period : float, optional
        Sample period (s): zero-order hold between samples, restarts at each
        sample. ``None``: evaluated at every right-hand-side call (continuous);
        the solver then differences its Jacobian.
    until : callable, optional
        Sampled controllers only: ``until(t, y)`` is asked at every sample time after
        the first, before ``fn``; ``True`` ends the run there (the results end at that
        sample, their ``message`` says so). A run that must go on until the controller
        is done (an operator at the end of its path) then needs no second run to a
        known end.

    Examples
    --------
    A continuous PD controller holding a unit mass at the origin (critically damped,
    ``x = (1 + 3t)·e^(−3t)`` from ``x = 1``):

    >>> from bondgraph.hybrid import simulate_hybrid
    >>> from bondgraph.hybrid.examples import servo
    >>> pd = Controller(lambda t, y: {"force": -9.0 * y["servo/v.x"] - 6.0 * y["servo/m.f"]}, ["force"])
    >>> res = simulate_hybrid(servo(), (0.0, 2.0), x0={"servo/v.x": 1.0},
    ...                       controller=pd, rtol=1e-10, atol=1e-12)
    >>> round(float(res["servo/v.x"][-1]), 6), round(7 * math.exp(-6), 6)
    (0.017351, 0.017351)

    A sampled push at 10 Hz that ends the run at the first sample past 0.45 m
    (``x = t²/2``: 0.405 m at 0.9 s, 0.5 m at 1 s):

    >>> push = Controller(lambda t, y: {"force": 1.0}, ["force"], period=0.1,
    ...                   until=lambda t, y: y["servo/v.x"] > 0.45)
    >>> res = simulate_hybrid(servo(), (0.0, 5.0), controller=push, rtol=1e-10, atol=1e-12)
    >>> round(float(res.t[-1]), 9), round(float(res["servo/v.x"][-1]), 6), res.message
    (1.0, 0.5, 'ended by the controller at t = 1 s')
    """

    fn: Callable[[float, Measurements], Mapping[str, Any]]
    inputs: tuple[str, ...] = ()
    period: float | None = None
    until: Callable[[float, Measurements], bool] | None = None

    def __init__(self, fn, inputs: Sequence[str] = (), period: float | None = None,
                 until: Callable[[float, Measurements], bool] | None = None):
        if not callable(fn):
            raise ParameterError(f"controller: {fn!r} is not callable")
        if until is not None and not callable(until):
            raise ParameterError(f"controller: until = {until!r} is not callable")
        if until is not None and period is None:
            raise ParameterError("controller: until given to a continuous controller (period None); "
                                 "expected a sample period, at whose samples until is asked")
        if isinstance(inputs, str):
            raise ParameterError(f"controller inputs {inputs!r}: expected a list of input names "
                                 f"(e.g. [{inputs!r}])")
        if period is not None and not (math.isfinite(period) and period > 0):
            raise ParameterError(f"controller period {period!r}: expected > 0 s or None")
        object.__setattr__(self, "fn", fn)
        object.__setattr__(self, "inputs", tuple(inputs))
        object.__setattr__(self, "period", None if period is None else float(period))
        object.__setattr__(self, "until", until)
