"""Adapter (a): a built model of this toolkit as a co-simulation subsystem.

:class:`ModelSubsystem` wraps a :class:`bondgraph.Model` (its compiled
right-hand side, analytic Jacobian and outputs). Its co-simulation inputs drive
the model's named inputs (``Input("...")`` in laws — e.g. the force of an
``MSe`` or the velocity of an ``MSf``); where the model needs an input's time
derivative (a prescribed motion moving dependent inertias) it is taken from the
glue's input polynomial. Outputs are states, bond efforts/flows (``e[bond]``,
``f[bond]``) or any name the model's outputs know. Steps use the stiff
``LSODA`` with the analytic Jacobian by default; ``method="CVODE"`` steps with
SUNDIALS CVODE, natively from C (:mod:`bondgraph.native`: the glue's input
polynomials and the signal tables are evaluated in C) unless ``backend="python"``
or a signal is a Python callable.

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

from ..errors import ParameterError, SimulationError
from .ode import METHODS, OdeSubsystem

__all__ = ["ModelSubsystem"]


class _CvodeRhs:
    """The Python path's right-hand side and Jacobian of a CVODE step, reporting to the
    step's :class:`~bondgraph.stepping.Watch` (failed calls, counts)."""

    def __init__(self, sub: "ModelSubsystem", watch):
        self.sub, self.watch = sub, watch

    def into(self, t: float, y: np.ndarray, out: np.ndarray) -> None:
        self.watch.call(t)
        try:
            out[:] = self.sub.rhs(t, y, self.sub._input(t))
        except FloatingPointError as exc:
            out[:] = np.nan
            self.watch.failed(t, y, str(exc))

    def jac(self, t: float, y: np.ndarray) -> np.ndarray:
        self.watch.njev += 1
        try:
            return self.sub.jacobian(t, y)
        except FloatingPointError as exc:
            self.watch.failed(t, y, f"{exc} (in the Jacobian)", jacobian=True)
            raise  # not reached: a failed Jacobian stops the step


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
        ``solve_ivp`` method for the steps (default ``"LSODA"`` with the analytic Jacobian),
        or ``"CVODE"``.
    signals : dict, optional
        Model inputs that are signals of time (valve commands...): name → number,
        Table, Spline or callable.
    rtol, atol : float
        Tolerances of the steps.
    max_step : float, optional
        Cap on the internal step in addition to the communication step.
    backend : {"auto", "native", "python"}
        Who drives CVODE (``method="CVODE"``), as in :func:`bondgraph.simulate`.

    Raises
    ------
    ParameterError
        Inputs, signals or outputs that are not the model's, a model input fed by
        nothing, a bad method or backend (all listed).

    Examples
    --------
    The B1 mass as a bond graph (its sine force an ``Se`` of ``t``, the spring force a
    model input), coupled to the B1 spring-damper, follows the analytic oscillator:

    >>> import sympy as sp
    >>> from bondgraph import BondGraph, MSe, Se, One, I, Input, build, t
    >>> from bondgraph.cosim import cosimulate, examples
    >>> B1 = examples.B1
    >>> M = BondGraph("m")
    >>> _ = M.add(MSe("F", Input("force")), Se("drive", B1["F0"] * sp.sin(B1["Omega"] * t)),
    ...           One("v", displacement="x"), I("m", B1["m"]))
    >>> for a, b in [("F", "v"), ("drive", "v"), ("v", "m")]:
    ...     _ = M.connect(a, b)
    >>> mass = ModelSubsystem(build(M), "mass", inputs={"F": ("force", "N")},
    ...                       outputs={"x": ("m/v.x", "m"), "v": ("m/m.f", "m/s")},
    ...                       method="CVODE")
    >>> res = cosimulate([mass, examples.b1_spring()], examples.B1_RELATIONS, step=1e-4,
    ...                  end=0.05)
    >>> bool(np.abs(res["mass.x"] - examples.b1_reference(res.time)).max() < 1e-6)
    True
    """

    def __init__(self, model, name: str, inputs: Mapping[str, tuple[str, str]],
                 outputs: Mapping[str, tuple[str, str]], x0: Any = None, *, method: str = "LSODA",
                 rtol: float = 1e-9, atol: float = 1e-11, max_step: float | None = None,
                 signals: Mapping[str, Any] | None = None, backend: str = "auto"):
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
        if method not in (*METHODS, "CVODE"):
            problems.append(f"method: found {method!r}, expected one of {', '.join(METHODS)}, CVODE")
        if backend not in ("auto", "native", "python"):
            problems.append(f"backend {backend!r}: expected one of auto, native, python")
        elif backend == "native" and method != "CVODE":
            problems.append(f"backend 'native' with method {method!r}: the native path integrates "
                            "with CVODE only (pass method='CVODE')")
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
                         direct_feedthrough=self._needs_y,
                         method="LSODA" if method == "CVODE" else method, rtol=rtol, atol=atol,
                         max_step=max_step)
        self.method = method
        self.backend = backend
        self._native = None
        self._uvec = np.zeros(len(model.input_names))
        self._duvec = np.zeros(len(model.input_names))
        self._signals = [(model.input_names.index(m), as_signal(v, m)) for m, v in signals.items()]
        if backend == "native":  # refused now, not at the first step of a run
            from ..native.cvode import native_reasons

            why = native_reasons(model, method=method, extra=self._native_needs())
            if why:
                raise ParameterError([f"backend 'native' cannot run this subsystem: {w}" for w in why],
                                     subject=f"subsystem {name!r}")

    def _native_needs(self) -> list[str]:
        """What in this subsystem needs Python per step (signals given as callables)."""
        from ..native.cvode import evaluable_in_c

        callables = [self.model.input_names[j] for j, sig in self._signals if not evaluable_in_c(sig)]
        return ["signals given as Python callables (" + ", ".join(callables) + ")"] if callables else []

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
        """The compiled right-hand side with the model inputs set from ``u`` and the
        signals at ``t``.

        Parameters
        ----------
        t : float
            Time (s).
        x : ndarray
            State vector.
        u : ndarray
            Input values.

        Returns
        -------
        ndarray
        """
        self._set(t, u)
        return self.model.system.rhs(t, x)

    def setup(self, t0: float, t_end: float, step: float) -> None:
        """Back to the initial state at ``t0``; the native session is made again.

        Parameters
        ----------
        t0 : float
            Start time (s).
        t_end : float
            End time (s).
        step : float
            Communication step (s).
        """
        super().setup(t0, t_end, step)
        self._native = None  # made again for this run's step cap

    def do_step(self, t: float, h: float) -> float | None:
        """One communication step; with ``method="CVODE"`` by SUNDIALS CVODE, stepped by
        :func:`bondgraph.stepping.run_segment` (its failure rules; natively in C unless
        ``backend="python"`` or a signal is a Python callable).

        Parameters
        ----------
        t : float
            Time (s).
        h : float
            Step (s).

        Returns
        -------
        float, optional
        """
        if self.method != "CVODE":
            return super().do_step(t, h)
        from ..stepping import Watch, run_segment

        model, sysm, b = self.model, self.model.system, t + h
        native = self._native_session()
        watch = Watch(model, t, b, self.x, method="CVODE", timeout=None, blowup=None,
                      singular="ignore", max_steps=500_000)
        fun = _CvodeRhs(self, watch)
        cap = self._step_cap if np.isfinite(self._step_cap) else np.inf
        try:
            if native is not None:
                sysm.set_native_inputs(self._tables(t), self._slots)
                native.attach(watch)
            seg = run_segment("CVODE", fun, fun.jac, t, b, self.x, watch, rtol=self.rtol,
                              atol=self.atol, max_step=cap, first_step=None,
                              t_eval=np.array([b]), native=native)
        finally:
            if native is not None:
                sysm.set_native_inputs(None)
        f = seg.failure
        if f is not None:
            x = f.state if f.state is not None else seg.y_good
            raise SimulationError(f"CVODE failed between t={t:.9g} s and t={b:.9g} s, at "
                                  f"t = {f.time:.9g} s: {f.cause}"
                                  + (f". Solver: {f.solver}" if f.solver else ""),
                                  subject=f"subsystem {self.name!r}", time=f.time,
                                  state=dict(zip(self.state_labels, map(float, x))))
        self.x = np.array(seg.y[-1], dtype=float)
        self.t = float(seg.t_end)  # the solver's own time (CVODE stops exactly at t + h)
        return None

    def _native_session(self):
        """The native CVODE of this run (made at the first step), or None for Python."""
        from ..native.cvode import native_session

        if self._native is None:
            self._native = native_session(self.model, self.backend, "CVODE",
                                          extra=self._native_needs(),
                                          subject=f"subsystem {self.name!r}") or False
            names = self.model.input_names
            dn = self.model.equations.input_derivatives
            self._slots = [dn.index(n) if n in dn else -1 for n in names]
        return self._native or None

    def _tables(self, t: float) -> list[np.ndarray]:
        """Every model input as a piecewise polynomial for the C evaluator: the glue's
        quadratic ``u₀ + u₁τ + u₂τ²/2`` (τ = t − t_u) for coupling inputs, the signals' own."""
        names = self.model.input_names
        tabs: list[np.ndarray | None] = [None] * len(names)
        tu, span = self._tu, max(1.0, abs(self._tu)) * 1e6
        for k, j in enumerate(self._perm):
            u0, u1, u2 = self._u[0, k], self._u[1, k], self._u[2, k]
            tabs[j] = np.array([1, 2, 1.0, tu, tu + span, 0.5 * u2, u1, u0])
        for j, sig in self._signals:
            tabs[j] = sig.pack() if hasattr(sig, "pack") else np.array([1, 0, 0.0, 0.0, 1.0, sig.constant])
        return tabs

    @property
    def state_labels(self) -> list[str]:
        """The model's state names (messages name the states by them)."""
        return list(self.model.state_names)

    def jacobian(self, t: float, x: np.ndarray) -> np.ndarray:
        """The compiled analytic Jacobian.

        Parameters
        ----------
        t : float
            Time (s).
        x : ndarray
            State vector.

        Returns
        -------
        ndarray
        """
        self._set(t, self._input(t))
        return self.model.system.jac(t, x)

    def output(self, t: float, x: np.ndarray, u: np.ndarray) -> np.ndarray:
        """The chosen states and model outputs at ``(t, x, u)``.

        Parameters
        ----------
        t : float
            Time (s).
        x : ndarray
            State vector.
        u : ndarray
            Input values.

        Returns
        -------
        ndarray
        """
        self._set(t, u)
        y = self.model.system.outputs(t, x) if self._needs_y else None
        return np.array([x[i] if k == "x" else y[i] for k, i in self._out_index])
