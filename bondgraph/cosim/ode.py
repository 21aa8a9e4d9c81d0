"""A base class for subsystems given as ``x' = rhs(t, x, u)``, ``y = output(t, x, u)``.

This is the shape of a model of this toolkit (a state vector, a right-hand side,
inputs and outputs), so an adapter for such a model only has to say how to evaluate
``rhs`` and ``output``. The step is integrated by :func:`scipy.integrate.solve_ivp`
with the input polynomial from the glue evaluated at every solver stage, and an
internal step never larger than the subsystem's communication step.

Examples
--------
>>> class Tank(OdeSubsystem):
...     '''Level h of a tank with inflow q and outflow k*h.'''
...     def rhs(self, t, x, u):
...         return np.array([u[0] - 0.5 * x[0]])
...     def output(self, t, x, u):
...         return x.copy()
>>> tank = Tank("tank", inputs=[("q", "m/s")], outputs=[("h", "m")], x0=[0.0],
...             direct_feedthrough=False)
>>> tank.setup(0.0, 1.0, 0.1)
>>> tank.set_inputs(0.0, np.array([1.0]), np.zeros((2, 1)))
>>> tank.do_step(0.0, 0.1)
>>> round(float(tank.get_outputs()[0]), 6)      # 2 (1 - exp(-0.05))
0.09754
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, Iterable, Sequence

import numpy as np
from scipy.integrate import solve_ivp

from ..errors import ParameterError, SimulationError
from .subsystem import Port, Subsystem

__all__ = ["OdeSubsystem", "METHODS"]

#: the ``solve_ivp`` methods a subsystem steps with
METHODS = ("RK23", "RK45", "DOP853", "Radau", "BDF", "LSODA")


class OdeSubsystem(Subsystem):
    """Subsystem defined by a right-hand side and an output map.

    Subclasses implement :meth:`rhs` and :meth:`output`; optionally
    :meth:`output_derivative` for an exact start-up (the default differentiates the
    output along the trajectory by central differences).

    Parameters
    ----------
    name : str
        Subsystem name.
    inputs, outputs : iterable of Port or (name, unit[, description])
        Ports.
    x0 : array_like
        Initial state.
    direct_feedthrough : bool
        True if :meth:`output` reads ``u``.
    method : str, optional
        :func:`scipy.integrate.solve_ivp` method (default ``"DOP853"``; ``"LSODA"`` or
        ``"Radau"`` for stiff models).
    rtol, atol : float, optional
        Tolerances of the internal solver.
    max_step : float or None, optional
        Cap on the internal step in addition to the communication step.

    Raises
    ------
    ParameterError
        A bad initial state, method or tolerance (all listed).
    SimulationError
        From :meth:`do_step` when the solver fails.

    Examples
    --------
    A tank of level ``h`` filled at ``q = 1`` and drained at ``0.5·h``: ten steps of
    0.1 s reach ``h = 2·(1 − e^{−0.5})``.

    >>> import math
    >>> class Tank(OdeSubsystem):
    ...     def rhs(self, t, x, u):
    ...         return np.array([u[0] - 0.5 * x[0]])
    ...     def output(self, t, x, u):
    ...         return x.copy()
    >>> tank = Tank("tank", inputs=[("q", "m/s")], outputs=[("h", "m")], x0=[0.0],
    ...             direct_feedthrough=False)
    >>> tank.setup(0.0, 1.0, 0.1)
    >>> for k in range(10):
    ...     tank.set_inputs(0.1 * k, np.array([1.0]), np.zeros((2, 1)))
    ...     tank.do_step(0.1 * k, 0.1)
    >>> bool(abs(tank.get_outputs()[0] - 2 * (1 - math.exp(-0.5))) < 1e-9), tank.get_time()
    (True, 1.0)
    """

    input_derivative_order = 2
    output_derivative_order = 1

    def __init__(self, name: str, inputs: Iterable[Port | Sequence[str]],
                 outputs: Iterable[Port | Sequence[str]], x0, *, direct_feedthrough: bool,
                 method: str = "DOP853", rtol: float = 1e-10, atol: float = 1e-12,
                 max_step: float | None = None):
        super().__init__(name, inputs, outputs, direct_feedthrough=direct_feedthrough)
        x0 = np.atleast_1d(np.asarray(x0, dtype=float))
        problems = []
        if x0.ndim != 1 or not np.all(np.isfinite(x0)):
            problems.append(f"x0: found {x0!r}, expected a finite 1-D state vector")
        if method not in METHODS:
            problems.append(f"method: found {method!r}, expected one of {', '.join(METHODS)}")
        for label, v in (("rtol", rtol), ("atol", atol)):
            if not (isinstance(v, (int, float)) and v > 0):
                problems.append(f"{label}: found {v!r}, expected a positive number")
        if max_step is not None and not (isinstance(max_step, (int, float)) and max_step > 0):
            problems.append(f"max_step: found {max_step!r}, expected a positive time in s "
                            "or None")
        if problems:
            raise ParameterError(problems, subject=f"subsystem {name!r}")
        self.x0 = x0.copy()
        self.x = x0.copy()
        self.t = 0.0
        self.method, self.rtol, self.atol = method, rtol, atol
        self._cap = np.inf if max_step is None else float(max_step)
        self._step_cap = self._cap
        self._tu = 0.0
        self._u = np.zeros((3, len(self.inputs)))

    # ----------------------------------------------------------------- model
    @abstractmethod
    def rhs(self, t: float, x: np.ndarray, u: np.ndarray) -> np.ndarray:
        """Return ``dx/dt`` at time ``t``, state ``x`` and inputs ``u``.

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

    @abstractmethod
    def output(self, t: float, x: np.ndarray, u: np.ndarray) -> np.ndarray:
        """Return the outputs at time ``t``, state ``x`` and inputs ``u``.

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

    def output_derivative(self, t: float, x: np.ndarray, u: np.ndarray,
                          du: np.ndarray) -> np.ndarray:
        """Return ``dy/dt``; default: central difference along ``(1, rhs, du)``.

        The difference step is 1e-4 of the communication step.

        Parameters
        ----------
        t : float
            Time (s).
        x : ndarray
            State vector.
        u : ndarray
            Input values.
        du : ndarray
            Input derivatives.

        Returns
        -------
        ndarray
        """
        f = np.asarray(self.rhs(t, x, u), dtype=float)
        eps = 1e-4 * self._step_cap if np.isfinite(self._step_cap) else 1e-7
        yp = np.asarray(self.output(t + eps, x + eps * f, u + eps * du), dtype=float)
        ym = np.asarray(self.output(t - eps, x - eps * f, u - eps * du), dtype=float)
        return (yp - ym) / (2 * eps)

    # ----------------------------------------------------------------- hooks
    def _input(self, t: float) -> np.ndarray:
        tau = t - self._tu
        u = self._u
        return u[0] + tau * (u[1] + 0.5 * tau * u[2])

    def setup(self, t0: float, t_end: float, step: float) -> None:
        """Reset to ``x0`` at ``t0``; cap the internal step at ``step``.

        Parameters
        ----------
        t0 : float
            Start time (s).
        t_end : float
            End time (s).
        step : float
            Communication step (s).
        """
        self.x = self.x0.copy()
        self.t = float(t0)
        self._tu = float(t0)
        self._u[:] = 0.0
        self._step_cap = min(self._cap, float(step))

    def set_inputs(self, t: float, values: np.ndarray, derivatives: np.ndarray) -> None:
        """Store the input polynomial around ``t``.

        Parameters
        ----------
        t : float
            Time (s).
        values : ndarray
            Input values at ``t``.
        derivatives : ndarray
            Input derivatives at ``t`` (row k: order k + 1).
        """
        self._tu = t
        self._u[0] = values
        k = derivatives.shape[0]
        self._u[1:1 + k] = derivatives
        self._u[1 + k:] = 0.0

    def get_outputs(self) -> np.ndarray:
        """``output(t, x, u(t))`` at the current time.

        Returns
        -------
        ndarray
        """
        return np.asarray(self.output(self.t, self.x, self._input(self.t)), dtype=float)

    def get_output_derivatives(self, order: int) -> np.ndarray:
        """First output derivative from :meth:`output_derivative`.

        Parameters
        ----------
        order : int
            Number of derivative orders.

        Returns
        -------
        ndarray
        """
        tau = self.t - self._tu
        du = self._u[1] + tau * self._u[2]
        return np.atleast_2d(self.output_derivative(self.t, self.x, self._input(self.t), du))

    def get_time(self) -> float:
        """The time the solver reached.

        Returns
        -------
        float
        """
        return self.t

    @property
    def state_labels(self) -> list[str]:
        """Names of the state entries in messages (default ``x[i]``)."""
        return [f"x[{i}]" for i in range(len(self.x))]

    def jacobian(self, t: float, x: np.ndarray) -> np.ndarray | None:
        """``∂rhs/∂x`` for the implicit methods, at the glue's input of time ``t``; default
        None (the solver differences it).

        Parameters
        ----------
        t : float
            Time (s).
        x : ndarray
            State vector.

        Returns
        -------
        ndarray, optional
        """
        return None

    def do_step(self, t: float, h: float) -> float | None:
        """Integrate from ``t`` to ``t + h`` with :func:`scipy.integrate.solve_ivp`.

        Parameters
        ----------
        t : float
            Time (s).
        h : float
            Step (s).

        Returns
        -------
        float, optional

        Raises
        ------
        SimulationError
            The solver failed inside the step; says between which times, in what state.
        """
        kw: dict[str, Any] = {}
        if self.method in ("LSODA", "BDF", "Radau") and type(self).jacobian is not OdeSubsystem.jacobian:
            kw["jac"] = self.jacobian
        sol = solve_ivp(lambda s, x: self.rhs(s, x, self._input(s)), (t, t + h), self.x,
                        method=self.method, rtol=self.rtol, atol=self.atol,
                        max_step=self._step_cap, **kw)
        if not sol.success:
            raise SimulationError(f"solve_ivp ({self.method}) failed between t={t:.9g} s and "
                                  f"t={t + h:.9g} s: {sol.message}", subject=f"subsystem {self.name!r}",
                                  time=float(sol.t[-1]),
                                  state=dict(zip(self.state_labels, map(float, sol.y[:, -1]))))
        self.x = sol.y[:, -1].copy()
        self.t = float(sol.t[-1])     # the solver's own time, checked by the master
        return None

    def save_state(self) -> Any:
        """``(t, x)``, copied.

        Returns
        -------
        object
        """
        return self.t, self.x.copy()

    def restore_state(self, state: Any) -> None:
        """Set ``(t, x)`` back.

        Parameters
        ----------
        state : object
            A state from :meth:`save_state`.
        """
        self.t, x = state
        self.x = np.array(x, dtype=float)
