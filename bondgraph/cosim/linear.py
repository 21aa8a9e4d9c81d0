"""A linear state-space subsystem stepped exactly (matrix exponential).

``x' = A x + B u + e``, ``y = C x + D u``. Over a step the input is the polynomial the
glue hands over (degree <= 2), so the step is exact: the input and its derivatives are
appended to the state and the augmented system is propagated with
:func:`scipy.linalg.expm` (computed once per step size, then cached).

Examples
--------
A mass pushed by a constant force (x'' = F/m, m = 2 kg):

>>> sub = StateSpaceSubsystem("mass", A=[[0, 1], [0, 0]], B=[[0], [0.5]],
...                           C=[[1, 0], [0, 1]], D=[[0], [0]], x0=[0, 0],
...                           inputs=[("F", "N")], outputs=[("x", "m"), ("v", "m/s")])
>>> sub.set_inputs(0.0, np.array([4.0]), np.zeros((2, 1)))
>>> sub.do_step(0.0, 1.0)
>>> sub.get_outputs()                       # x = F t^2 / (2 m), v = F t / m
array([1., 2.])
>>> sub.get_output_derivatives(1)
array([[2., 2.]])
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

import numpy as np
from scipy.linalg import expm

from ..errors import ParameterError
from .subsystem import Port, Subsystem

__all__ = ["StateSpaceSubsystem"]


class StateSpaceSubsystem(Subsystem):
    """Linear time-invariant subsystem, exact for polynomial inputs of degree <= 2.

    Parameters
    ----------
    name : str
        Subsystem name.
    A, B, C, D : array_like
        State-space matrices, shapes (n, n), (n, m), (p, n), (p, m).
    x0 : array_like
        Initial state, shape (n,).
    inputs, outputs : iterable of Port or (name, unit[, description])
        m inputs and p outputs.
    offset : array_like, optional
        Constant term ``e`` of the state equation (gravity, supply flow), shape (n,).

    Raises
    ------
    ParameterError
        Listing every inconsistent shape.

    Notes
    -----
    ``direct_feedthrough`` is True exactly when ``D`` has a non-zero entry.

    Examples
    --------
    A ramp force ``F = 6·t`` on a 2 kg mass from rest: ``x = t³/2``, exact over one step
    of 1 s:

    >>> sub = StateSpaceSubsystem("mass", A=[[0, 1], [0, 0]], B=[[0], [0.5]], C=[[1, 0]],
    ...                           D=[[0]], x0=[0, 0], inputs=[("F", "N")], outputs=[("x", "m")])
    >>> sub.set_inputs(0.0, np.array([0.0]), np.array([[6.0], [0.0]]))
    >>> sub.do_step(0.0, 1.0)
    >>> sub.get_outputs(), sub.direct_feedthrough
    (array([0.5]), False)
    """

    input_derivative_order = 2
    output_derivative_order = 2

    def __init__(self, name: str, A, B, C, D, x0, inputs: Iterable[Port | Sequence[str]],
                 outputs: Iterable[Port | Sequence[str]], *, offset=None):
        A, B, C, D = (np.atleast_2d(np.asarray(M, dtype=float)) for M in (A, B, C, D))
        x0 = np.atleast_1d(np.asarray(x0, dtype=float))
        e = np.zeros(A.shape[0]) if offset is None else np.atleast_1d(
            np.asarray(offset, dtype=float))
        super().__init__(name, inputs, outputs, direct_feedthrough=bool(np.any(D != 0)))
        n, m, p = A.shape[0], len(self.inputs), len(self.outputs)
        problems = []
        for label, M, shape in (("A", A, (n, n)), ("B", B, (n, m)), ("C", C, (p, n)),
                                ("D", D, (p, m))):
            if M.shape != shape:
                problems.append(f"matrix {label}: found shape {M.shape}, expected {shape} "
                                f"({n} states, {m} inputs, {p} outputs)")
        for label, v in (("x0", x0), ("offset", e)):
            if v.shape != (n,):
                problems.append(f"{label}: found shape {v.shape}, expected ({n},)")
        for label, M in (("A", A), ("B", B), ("C", C), ("D", D), ("x0", x0), ("offset", e)):
            if not np.all(np.isfinite(M)):
                problems.append(f"{label}: contains non-finite entries")
        if problems:
            raise ParameterError(problems, subject=f"subsystem {name!r}")
        self.A, self.B, self.C, self.D, self.e = A, B, C, D, e
        self.x0 = x0.copy()
        self.x = x0.copy()
        self.t = 0.0
        self._u = np.zeros((3, m))          # value, first and second derivative
        self._z = np.zeros(n + 3 * m + 1)   # augmented state, reused
        self._z[-1] = 1.0
        self._phi: dict[float, np.ndarray] = {}

    def _propagator(self, h: float) -> np.ndarray:
        phi = self._phi.get(h)
        if phi is None:
            n, m = self.A.shape[0], self.B.shape[1]
            N = n + 3 * m + 1
            M = np.zeros((N, N))
            M[:n, :n] = self.A
            M[:n, n:n + m] = self.B
            M[:n, -1] = self.e
            M[n:n + m, n + m:n + 2 * m] = np.eye(m)
            M[n + m:n + 2 * m, n + 2 * m:n + 3 * m] = np.eye(m)
            phi = expm(M * h)[:n]
            if len(self._phi) >= 64:   # variable steps (step-size control): keep it small
                self._phi.clear()
            self._phi[h] = phi
        return phi

    def setup(self, t0: float, t_end: float, step: float) -> None:
        """Reset the state to ``x0`` and precompute the propagator for ``step``.

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
        self._u[:] = 0.0
        self._propagator(step)

    def set_inputs(self, t: float, values: np.ndarray, derivatives: np.ndarray) -> None:
        """Store the input polynomial (value and up to two derivatives).

        Parameters
        ----------
        t : float
            Time (s).
        values : ndarray
            Input values at ``t``.
        derivatives : ndarray
            Input derivatives at ``t`` (row k: order k + 1).
        """
        u = self._u
        u[0] = values
        k = derivatives.shape[0]
        u[1:1 + k] = derivatives
        u[1 + k:] = 0.0

    def get_outputs(self) -> np.ndarray:
        """``C x + D u``.

        Returns
        -------
        ndarray
        """
        return self.C @ self.x + self.D @ self._u[0]

    def get_output_derivatives(self, order: int) -> np.ndarray:
        """Exact output derivatives from the state equation and the input polynomial.

        Parameters
        ----------
        order : int
            Number of derivative orders.

        Returns
        -------
        ndarray
        """
        xd = self.A @ self.x + self.B @ self._u[0] + self.e
        rows = [self.C @ xd + self.D @ self._u[1]]
        if order >= 2:
            xdd = self.A @ xd + self.B @ self._u[1]
            rows.append(self.C @ xdd + self.D @ self._u[2])
        return np.array(rows)

    def do_step(self, t: float, h: float) -> float | None:
        """Propagate the state exactly over ``h`` with the stored input polynomial.

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
        n = self.x.shape[0]
        z = self._z
        z[:n] = self.x
        z[n:-1] = self._u.ravel()
        self.x = self._propagator(h) @ z
        u = self._u   # move the input polynomial to t + h (feedthrough outputs use it)
        u[0] += h * (u[1] + 0.5 * h * u[2])
        u[1] += h * u[2]
        self.t = t + h
        return None

    def get_time(self) -> float:
        """The time the last step ended at.

        Returns
        -------
        float
        """
        return self.t

    def save_state(self) -> Any:
        """A copy of the time and the state vector.

        Returns
        -------
        object
        """
        return self.t, self.x.copy()

    def restore_state(self, state: Any) -> None:
        """Set the time and the state vector back.

        Parameters
        ----------
        state : object
            A state from :meth:`save_state`.
        """
        self.t, x = state
        self.x = np.array(x, dtype=float)
