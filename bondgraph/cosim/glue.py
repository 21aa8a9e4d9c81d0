"""The glue: coupling signals extrapolated or interpolated by low-order polynomials.

Between communication points a receiver needs the other side's outputs at any instant
of its own step. The glue fits a polynomial of degree 0 (zero-order hold), 1 (linear)
or 2 (quadratic) through the last samples and hands the receiver its value and
derivatives at the start of the step (a truncated Taylor polynomial):

* **extrapolation** (Jacobi, and Gauss-Seidel for sides not yet advanced): through
  ``t[n-p], ..., t[n]``, used over ``[t[n], t[n+1]]``;
* **interpolation** (Gauss-Seidel, for sides already advanced to ``t[n+1]``): through
  ``t[n+1-p], ..., t[n+1]``, so a subsystem that samples between communication points
  reads the other side's outputs interpolated.

Start-up: with fewer than ``p + 1`` samples the missing conditions come from the
sender's output derivatives at the newest sample where it provides them (Taylor or
Hermite polynomial, ``start="derivatives"``), otherwise the order is reduced.

Examples
--------
Quadratic extrapolation of ``y = t**2`` from samples at 0, 1, 2 is exact:

>>> import numpy as np
>>> t = np.array([0.0, 1.0, 2.0])
>>> coeffs = extrapolate(t, (t**2)[:, None], at=2.0, order=2)
>>> coeffs[:, 0]                     # y(2), y'(2), y''(2)
array([4., 4., 2.])
>>> evaluate(coeffs, 1.0)[0]         # y(3)
np.float64(9.0)

With one sample and its derivative (start-up), a linear Taylor polynomial:

>>> extrapolate(t[:1], np.array([[1.0]]), at=0.0, order=2,
...             derivatives=np.array([[3.0]]))[:, 0]
array([1., 3., 0.])
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..errors import ParameterError

__all__ = ["Glue", "taylor_matrix", "extrapolate", "evaluate", "ORDERS"]

#: Names accepted for the polynomial order.
ORDERS = {"zoh": 0, "zero-order-hold": 0, "linear": 1, "quadratic": 2}


@dataclass(frozen=True)
class Glue:
    """How coupling signals are carried between communication points.

    Parameters
    ----------
    order : int or str
        0 / ``"zoh"``, 1 / ``"linear"`` or 2 / ``"quadratic"``.
    start : str
        ``"derivatives"``: use the senders' output derivatives on the first steps
        where they are provided (reduced order for the others); ``"reduced"``: always
        reduce the order on the first steps.
    interpolate : bool
        In Gauss-Seidel order, give later subsystems the earlier ones' outputs
        interpolated over the step (True) rather than extrapolated.

    Examples
    --------
    >>> Glue("quadratic")
    Glue(order=2, start='derivatives', interpolate=True)
    >>> Glue(order=3)
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: glue: 1 problem
      - order: found 3, expected 0, 1, 2 or one of 'zoh', 'zero-order-hold', 'linear', 'quadratic'
    """

    order: int | str = 2
    start: str = "derivatives"
    interpolate: bool = True

    def __post_init__(self):
        problems = []
        order = self.order
        if isinstance(order, str) and order.lower() in ORDERS:
            object.__setattr__(self, "order", ORDERS[order.lower()])
        elif not (isinstance(order, int) and not isinstance(order, bool) and 0 <= order <= 2):
            problems.append(f"order: found {order!r}, expected 0, 1, 2 or one of "
                            + ", ".join(repr(k) for k in ORDERS))
        if self.start not in ("derivatives", "reduced"):
            problems.append(f"start: found {self.start!r}, expected 'derivatives' or "
                            "'reduced'")
        if not isinstance(self.interpolate, bool):
            problems.append(f"interpolate: found {self.interpolate!r}, expected True or False")
        if problems:
            raise ParameterError(problems, subject="glue")

    @property
    def name(self) -> str:
        """``"zoh"``, ``"linear"`` or ``"quadratic"``."""
        return ("zoh", "linear", "quadratic")[self.order]


@lru_cache(maxsize=256)
def _unit_matrix(rel_times: tuple[float, ...], rel_at: float, order: int,
                 n_derivatives: int) -> np.ndarray:
    # Polynomial p(s) = sum_j c_j s^j in s = (t - t_newest)/scale, fitted to the samples
    # (rows of the confluent Vandermonde system) and to derivatives at s = 0.
    k = len(rel_times)
    degree = k + n_derivatives - 1
    rows = [[s ** j for j in range(degree + 1)] for s in rel_times]
    for d in range(1, n_derivatives + 1):
        rows.append([math.factorial(d) if j == d else 0.0 for j in range(degree + 1)])
    inv = np.linalg.inv(np.array(rows, dtype=float))
    # Taylor rows at s = rel_at: d-th derivative of p.
    T = np.zeros((order + 1, degree + 1))
    for d in range(min(order, degree) + 1):
        for j in range(d, degree + 1):
            T[d, j] = math.factorial(j) / math.factorial(j - d) * rel_at ** (j - d)
    M = T @ inv
    M.setflags(write=False)
    return M


def taylor_matrix(times, at: float, order: int, n_derivatives: int = 0) -> np.ndarray:
    """Matrix mapping samples (and derivatives) to the Taylor polynomial at ``at``.

    Parameters
    ----------
    times : sequence of float
        Sample times, oldest first; ``len(times) + n_derivatives - 1`` is the degree of
        the fitted polynomial and must not exceed ``order``.
    at : float
        Time at which value and derivatives are wanted.
    order : int
        Number of derivative rows beyond the value.
    n_derivatives : int, optional
        Number of derivatives given at the newest sample.

    Returns
    -------
    ndarray, shape (order + 1, len(times) + n_derivatives)
        Row d gives the d-th derivative at ``at``; columns act on the stacked samples
        (oldest first) followed by the derivatives (first order first).

    Examples
    --------
    >>> taylor_matrix([0.0, 1.0], at=1.0, order=1)
    array([[ 0.,  1.],
           [-1.,  1.]])
    """
    times = [float(t) for t in times]
    if not times or len(times) + n_derivatives - 1 > order:
        raise ParameterError(f"taylor_matrix: {len(times)} samples and {n_derivatives} "
                             f"derivatives give a degree above order {order}")
    t_new = times[-1]
    scale = max(t_new - times[0], abs(at - t_new), 0.0)
    if scale == 0.0:
        scale = 1.0
    rel = tuple(round((t - t_new) / scale, 12) for t in times)
    M = _unit_matrix(rel, round((at - t_new) / scale, 12), order, n_derivatives).copy()
    k = len(times)
    M /= np.array([scale ** d for d in range(order + 1)])[:, None]
    for d in range(1, n_derivatives + 1):
        M[:, k + d - 1] *= scale ** d
    return M


def extrapolate(times, values, at: float, order: int, derivatives=None) -> np.ndarray:
    """Taylor coefficients at ``at`` of the polynomial through the last samples.

    Parameters
    ----------
    times : array_like, shape (k,)
        Sample times, oldest first (the last ``order + 1`` are used).
    values : array_like, shape (k, n)
        Samples of n signals.
    at : float
        Expansion time (the start of the receiver's step).
    order : int
        Polynomial order wanted (0, 1, 2).
    derivatives : array_like, shape (j, n), optional
        Derivatives at the newest sample, used only when there are fewer than
        ``order + 1`` samples (start-up).

    Returns
    -------
    ndarray, shape (order + 1, n)
        Value, first derivative, ... at ``at``.

    Examples
    --------
    Samples of ``y = t²`` at 0, 1, 2 extrapolated to ``t = 3`` by a quadratic are
    exact (value 9, slope 6, curvature 2); a line through the last two is not:

    >>> extrapolate([0.0, 1.0, 2.0], [[0.0], [1.0], [4.0]], at=3.0, order=2).ravel()
    array([9., 6., 2.])
    >>> extrapolate([0.0, 1.0, 2.0], [[0.0], [1.0], [4.0]], at=3.0, order=1).ravel()
    array([7., 3.])
    """
    times = np.asarray(times, dtype=float)
    values = np.asarray(values, dtype=float)
    k = min(len(times), order + 1)
    j = 0
    rows = values[-k:]
    if derivatives is not None and k < order + 1:
        derivatives = np.atleast_2d(np.asarray(derivatives, dtype=float))
        j = min(order + 1 - k, derivatives.shape[0])
        rows = np.vstack([rows, derivatives[:j]])
    return taylor_matrix(times[-k:], at, order, j) @ rows


def evaluate(coefficients, tau: float) -> np.ndarray:
    """Value of a Taylor polynomial (rows: value, derivatives) ``tau`` after its origin.

    Parameters
    ----------
    coefficients
    tau : float

    Returns
    -------
    ndarray

    Examples
    --------
    >>> evaluate(np.array([[1.0], [2.0], [2.0]]), 3.0)
    array([16.])
    """
    c = np.asarray(coefficients, dtype=float)
    out = c[0].copy()
    for d in range(1, c.shape[0]):
        out = out + c[d] * (tau ** d / math.factorial(d))
    return out
