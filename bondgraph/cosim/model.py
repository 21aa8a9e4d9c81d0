"""Adapter (a): a built model of this toolkit as a co-simulation subsystem.

:class:`ModelSubsystem` wraps a :class:`bondgraph.Model` (its compiled
right-hand side, analytic Jacobian and outputs). Its co-simulation inputs drive
the model's named inputs (``Input("...")`` in laws — e.g. the force of an
``MSe`` or the velocity of an ``MSf``); where the model needs an input's time
derivative (a prescribed motion moving dependent inertias) it is taken from the
glue's input polynomial. Outputs are states, bond efforts/flows (``e[bond]``,
``f[bond]``) or any name the model's outputs know. Steps use the stiff
``LSODA`` with the analytic Jacobian by default.

Examples
--------
>>> from bondgraph import BondGraph, MSe, One, I, R, Input, build
>>> M = BondGraph("mass")
>>> _ = M.add(MSe("F", Input("force")), One("v", displacement="x"), I("m", 2.0), R("c", 1.0))
>>> for a, b in [("F", "v"), ("v", "m"), ("v", "c")]:
...     _ = M.connect(a, b)
>>> sub = ModelSubsystem(build(M), "mass", inputs={"F": ("force", "N")},
...                      outputs={"x": ("mass/v.x", "m"), "v": ("mass/m.f", "m/s")})
>>> sub.setup(0.0, 1.0, 0.01)
>>> sub.set_inputs(0.0, np.array([2.0]), np.zeros((2, 1)))
>>> sub.do_step(0.0, 0.01)
>>> round(float(sub.get_outputs()[1]), 6)   # v = F/c (1 − exp(−c t/m)) at t = 0.01
0.009975
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from ..errors import ParameterError
from .ode import OdeSubsystem

__all__ = ["ModelSubsystem"]


class ModelSubsystem(OdeSubsystem):
    """A :class:`bondgraph.Model` stepping on its own inside a co-simulation.

    Parameters
    ----------
    model : bondgraph.Model
    name : str
    inputs : dict
        Co-simulation input name → (model input name, unit).
    outputs : dict
        Co-simulation output name → (state, ``e[bond]``/``f[bond]`` or output name, unit).
    x0 : dict or array, optional
        Initial state (named overrides, as in :func:`bondgraph.simulate`).
    method : str
        ``solve_ivp`` method for the steps (default ``"LSODA"`` with the analytic Jacobian).
    signals : dict, optional
        Model inputs that are signals of time (valve commands...): name → number,
        Table, Spline or callable.
    """

    def __init__(self, model, name: str, inputs: Mapping[str, tuple[str, str]],
                 outputs: Mapping[str, tuple[str, str]], x0: Any = None, *, method: str = "LSODA",
                 rtol: float = 1e-9, atol: float = 1e-11, max_step: float | None = None,
                 signals: Mapping[str, Any] | None = None):
        from ..signals import as_signal

        signals = dict(signals or {})
        problems = []
        for m in signals:
            if m not in model.input_names:
                problems.append(f"signal for {m!r}: the model has no such input "
                                f"(inputs: {', '.join(model.input_names) or 'none'})")
        for cname, (mname, _) in inputs.items():
            if mname not in model.input_names:
                problems.append(f"input {cname!r}: the model has no input {mname!r} "
                                f"(inputs: {', '.join(model.input_names) or 'none'})")
        missing = set(model.input_names) - {m for m, _ in inputs.values()} - set(signals)
        for m in sorted(missing):
            problems.append(f"model input {m!r} is not fed by any co-simulation input")
        out_index: list[tuple[str, int]] = []
        names = model.state_names
        onames = model.system.output_names
        for cname, (quantity, _) in outputs.items():
            if quantity in names:
                out_index.append(("x", names.index(quantity)))
            elif quantity in onames:
                out_index.append(("y", onames.index(quantity)))
            else:
                problems.append(f"output {cname!r}: {quantity!r} is neither a state nor an output "
                                f"of model {model.name!r}")
        if problems:
            raise ParameterError(problems, subject=f"subsystem {name!r}")
        self.model = model
        self._out_index = out_index
        self._needs_y = any(k == "y" for k, _ in out_index)
        order = [model.input_names.index(m) for m, _ in inputs.values()]
        self._perm = np.array(order, dtype=int)
        self._dnames = [model.input_names.index(m) for m in model.equations.input_derivatives]
        super().__init__(name, [(c, u) for c, (_, u) in inputs.items()],
                         [(c, u) for c, (_, u) in outputs.items()], model.initial_state(x0),
                         direct_feedthrough=self._needs_y, method=method, rtol=rtol, atol=atol,
                         max_step=max_step)
        self._uvec = np.zeros(len(model.input_names))
        self._duvec = np.zeros(len(model.input_names))
        self._signals = [(model.input_names.index(m), as_signal(v, m)) for m, v in signals.items()]

    def _set(self, t: float, u: np.ndarray) -> None:
        tau = t - self._tu
        self._uvec[self._perm] = u
        self._duvec[self._perm] = self._u[1] + tau * self._u[2]
        for j, sig in self._signals:  # inputs that are signals of time, not coupling variables
            self._uvec[j] = sig.value(t)
            if sig.has_derivative:
                self._duvec[j] = sig.derivative(t)
        self.model.system.set_inputs(self._uvec, self._duvec[self._dnames] if self._dnames else None)

    def rhs(self, t: float, x: np.ndarray, u: np.ndarray) -> np.ndarray:
        self._set(t, u)
        return self.model.system.rhs(t, x)

    @property
    def state_labels(self) -> list[str]:
        return list(self.model.state_names)

    def jacobian(self, t: float, x: np.ndarray) -> np.ndarray:
        """The compiled analytic Jacobian."""
        self._set(t, self._input(t))
        return self.model.system.jac(t, x)

    def output(self, t: float, x: np.ndarray, u: np.ndarray) -> np.ndarray:
        self._set(t, u)
        y = self.model.system.outputs(t, x) if self._needs_y else None
        return np.array([x[i] if k == "x" else y[i] for k, i in self._out_index])
