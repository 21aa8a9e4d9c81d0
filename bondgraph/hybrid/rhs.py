"""The right-hand side of a hybrid run: inputs, controller, external signals, compiled calls.

:class:`_Rhs` is what the integrator calls (``rhs(t, y)``, ``rhs.into``, ``rhs.jac``) and
what the guards read through (:class:`~.control._Probe`): it sets the compiled model's
inputs at each call — the signals, a continuous controller's outputs, a sampled one's held
values — and checks the inputs, the controller's and the external signals once, naming
every problem.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Mapping

import numpy as np

from ..errors import ParameterError, UserCallableError
from ..signals import Constant, InputSet, call_user, describe_callable
from ..stepping import Watch
from .control import Controller, Measurements, _Probe

if TYPE_CHECKING:
    from .model import HybridModel

__all__: list[str] = []


class _Rhs:
    """The right-hand side of a hybrid run: the model's inputs (signals, a controller's
    values, held between samples for a sampled one), the external signals guards read,
    and the compiled equations called with them, every failure handed to the run's
    :class:`~bondgraph.stepping.Watch`."""

    def __init__(self, hm: "HybridModel", inputs: Mapping[str, Any] | None, controller: Controller | None,
                 signals: Mapping[str, Any] | None = None, energy: bool = False):
        m = hm.model
        from ..signals import as_signal

        if signals is not None and not isinstance(signals, Mapping):
            raise ParameterError(f"signals {signals!r}: expected a dict of signal name → value",
                                 subject="signals")
        signals = dict(signals or {})
        sp_ = [f"external signal {n!r}: declared by the hybrid model but not given; pass "
               f"signals={{{n!r}: ...}}" for n in hm.signals if n not in signals]
        sp_ += [f"external signal {n!r}: given but not declared (HybridModel(..., signals=[...]))"
                for n in signals if n not in hm.signals]
        if sp_:
            raise ParameterError(sp_, subject="signals")
        self.ext = {n: as_signal(v, n) for n, v in signals.items()}
        self.hm, self.sys, self.nx = hm, m.system, m.system.nx
        #: the three power integrals (source work, dissipation, parametric work) follow the states
        self.energy = bool(energy)
        self.n = self.nx + (3 if self.energy else 0)
        self._yb, self._ob = np.zeros(self.n), np.zeros(self.n)
        if inputs is not None and not isinstance(inputs, Mapping):
            raise ParameterError(f"inputs {inputs!r}: expected a dict of input name → signal",
                                 subject="inputs")
        given = dict(inputs or {})
        ctrl_inputs = list(controller.inputs) if controller else []
        problems = [f"controller input {n!r}: not an input of {m.name!r} "
                    f"(inputs: {', '.join(m.input_names) or 'none'})"
                    for n in ctrl_inputs if n not in m.input_names]
        problems += [f"input {n!r}: set by the controller and also given a signal"
                     for n in ctrl_inputs if n in given]
        problems += [f"input {n!r}: set by the controller, but the model needs its time "
                     "derivative; drive it with a signal instead"
                     for n in ctrl_inputs if n in m.equations.input_derivatives]
        if problems:
            raise ParameterError(problems, subject="inputs")
        for n in ctrl_inputs:
            given[n] = Constant(0.0, n)
        self.inputs = InputSet(m.input_names, m.equations.input_derivatives, given)
        self.ctrl_idx = [m.input_names.index(n) for n in ctrl_inputs]
        self.held = np.zeros(len(self.ctrl_idx))
        self.controller = controller
        self.continuous = controller is not None and controller.period is None
        self.probe = _Probe(hm, self)
        self.watch: Watch | None = None
        self._out_key: tuple | None = None
        self._out_val: np.ndarray | None = None

    def signal(self, name: str, t: float) -> float:
        return self.ext[name].value(t)

    def control(self, t: float, x: np.ndarray) -> Mapping[str, Any]:
        """The controller's outputs at ``(t, x)``, its exceptions named (a UserCallableError)."""
        c = self.controller
        x = x[: self.nx]
        what = f"controller (inputs {', '.join(c.inputs) or 'none'})"
        out = call_user(c.fn, (t, Measurements(self.probe, t, x)), what, t)
        if not isinstance(out, Mapping):
            raise UserCallableError(f"{what}: {describe_callable(c.fn)} returned {out!r} at "
                                    f"t = {t:.9g} s; expected a dict of input values and mode "
                                    "labels", time=t)
        return out

    def control_value(self, t: float, name: str, v: Any) -> float:
        """A controller's value for input ``name``, a finite number or a named error."""
        try:
            fv = float(v)
        except (TypeError, ValueError):
            fv = math.nan
        if not math.isfinite(fv):
            raise UserCallableError(
                f"controller (inputs {', '.join(self.controller.inputs)}): "
                f"{describe_callable(self.controller.fn)} gave {name!r} = {v!r} at t = {t:.9g} s; "
                "expected a finite number for each of its inputs", time=t)
        return fv

    def inputs_at(self, t: float, x: np.ndarray) -> np.ndarray:
        u, du = self.inputs(t)
        u = u.copy()
        if self.ctrl_idx:
            if self.continuous:
                vals = self.control(t, x)
                names = self.hm.model.input_names
                for k, j in enumerate(self.ctrl_idx):
                    self.held[k] = self.control_value(t, names[j], vals.get(names[j]))
            u[self.ctrl_idx] = self.held
        self._du = du
        return u

    def inputs_many(self, t: np.ndarray, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``u`` and ``du`` at the output times ``t`` of one segment (states ``X``): the
        signals in one call each, a sampled controller's held values as they are; a
        continuous controller, or a signal that fails, one time at a time. A row whose
        inputs cannot be computed is NaN (the output read-outs name it)."""
        n_u, n_du = len(self.hm.model.input_names), len(self.hm.model.equations.input_derivatives)
        if not self.continuous:
            try:
                U, DU = self.inputs.at(t)
            except UserCallableError:
                pass
            else:
                if self.ctrl_idx:
                    U[:, self.ctrl_idx] = self.held
                return U, DU
        U, DU = np.empty((len(t), n_u)), np.empty((len(t), n_du))
        for k, (ti, yi) in enumerate(zip(t, X)):
            try:
                U[k] = self.inputs_at(float(ti), yi)
                DU[k] = self._du
            except UserCallableError:
                U[k], DU[k] = np.nan, np.nan
        return U, DU

    def set(self, t: float, x: np.ndarray) -> None:
        u = self.inputs_at(t, x[: self.nx])
        self.sys.set_inputs(u, self._du)

    def outputs(self, t: float, x: np.ndarray) -> np.ndarray:
        """All compiled outputs at ``(t, x)``, computed once for every guard that reads them."""
        x = x[: self.nx]
        key = (t, x.tobytes(), self.sys.params.tobytes(), self.held.tobytes())
        if key != self._out_key:
            self.set(t, x)
            self._out_val = self.sys.outputs(t, x)
            self._out_key = key
        return self._out_val

    def __call__(self, t, y):
        out = np.empty(self.n)
        self.into(t, y, out)
        return out

    def into(self, t, y, out):
        self.watch.call(t)
        self.set(t, y)
        if self.energy:      # the states' rates and the power integrals in one compiled call
            self._yb[:] = y
            st = self.sys.rhs_into(t, self._yb.ctypes.data, self._ob.ctypes.data, 1)
            if st != 0:
                out[:] = np.nan
                self.watch.failed(t, y, self.sys.describe_status(st))
            else:
                out[:] = self._ob
            return
        try:
            self.sys.rhs(t, y, out=out)
        except FloatingPointError as exc:
            out[:] = np.nan
            self.watch.failed(t, y, str(exc))

    def jac(self, t, y):
        self.watch.njev += 1
        self.set(t, y)
        try:
            J = self.sys.jac(t, y[: self.nx])
        except FloatingPointError as exc:
            self.watch.failed(t, y, f"{exc} (in the Jacobian)", jacobian=True)
            raise  # not reached
        if self.energy:      # the integrals depend on no state's rate through their own
            Ja = np.zeros((self.n, self.n))
            Ja[: self.nx, : self.nx] = J
            return Ja
        return J

    def rate(self, t, x):
        self.set(t, x)
        return self.sys.rhs(t, x[: self.nx])

    def monitor(self, t, x):
        self.set(t, x)
        return self.sys.monitors(t, x[: self.nx])
