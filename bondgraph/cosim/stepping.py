"""One subsystem's part of a communication step: inputs in, step(s), outputs out.

Shared by the fixed-step master and the step-doubling control. The subsystem receives
its inputs as the glue's Taylor polynomial, truncated to the derivative orders it
takes, re-expanded at each of its sub-steps; it steps; its outputs come back in an
:class:`~bondgraph.cosim.packages.OutputPackage` stamped with the time the subsystem
itself reports (the time its step returned, else its own clock, else — only if it
cannot tell — the communication time). What the subsystem really applied at the end of
its last sub-step is returned too, so the results and the energy residual record the
held or truncated input rather than the glue's full polynomial.

Examples
--------
>>> import numpy as np
>>> shift_matrix(2, 0.5) @ np.array([1.0, 2.0, 4.0])     # value, slope, curvature at +0.5
array([2.5, 4. , 4. ])
>>> truncated_value(np.array([[1.0], [2.0], [4.0]]), 1, 0.5)   # ZOH would give 1, full 2.5
array([2.])
"""

from __future__ import annotations

import math
from functools import lru_cache
from numbers import Real
from typing import Mapping

import numpy as np

from ..errors import CosimulationError
from .packages import InputPackage, OutputPackage
from .subsystem import Subsystem

__all__ = ["shift_matrix", "truncated_value", "step_subsystem", "reported_time",
           "checked_outputs"]


def shift_matrix(order: int, delta: float) -> np.ndarray:
    """Matrix re-expanding Taylor coefficients (value, derivatives) ``delta`` later.

    Parameters
    ----------
    order : int
        Highest derivative order.
    delta : float
        The shift (s).

    Returns
    -------
    ndarray, shape (order + 1, order + 1)

    Examples
    --------
    ``u = 1 + 2τ + 4τ²/2``: at ``τ = 0.5`` its value is 2.5 and its slope 4:

    >>> import numpy as np
    >>> shift_matrix(2, 0.5) @ np.array([1.0, 2.0, 4.0])
    array([2.5, 4. , 4. ])
    """
    S = np.zeros((order + 1, order + 1))
    for a in range(order + 1):
        for b in range(a, order + 1):
            S[a, b] = delta ** (b - a) / math.factorial(b - a)
    return S


def truncated_value(coeffs: np.ndarray, orders: int, tau: float) -> np.ndarray:
    """Value ``tau`` after the origin of the polynomial truncated to ``orders`` derivatives.

    What a subsystem that takes ``orders`` input derivatives really applies.

    Parameters
    ----------
    coeffs : ndarray, shape (p + 1, n)
        Taylor coefficients.
    orders : int
    tau : float

    Returns
    -------
    ndarray, shape (n,)

    Examples
    --------
    >>> import numpy as np
    >>> c = np.array([[1.0], [2.0], [4.0]])
    >>> truncated_value(c, 0, 0.5), truncated_value(c, 1, 0.5), truncated_value(c, 2, 0.5)
    (array([1.]), array([2.]), array([2.5]))
    """
    if orders == 0:
        return coeffs[0]
    k = min(orders, coeffs.shape[0] - 1) + 1
    return _weights(k, tau) @ coeffs[:k]


@lru_cache(maxsize=64)
def _weights(k: int, tau: float) -> np.ndarray:
    w = np.array([tau ** d / math.factorial(d) for d in range(k)])
    w.setflags(write=False)
    return w


def _time_value(value, sub: Subsystem, what: str) -> float:
    if type(value) is float and math.isfinite(value):
        return value
    if isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    raise CosimulationError(f"{what} returned {value!r}, expected None or a finite time in s",
                            subject=f"subsystem {sub.name!r}")


def reported_time(sub: Subsystem) -> float | None:
    """The subsystem's own clock (:meth:`Subsystem.get_time`), checked; None if unknown.

    Parameters
    ----------
    sub : Subsystem

    Returns
    -------
    float, optional

    Raises
    ------
    CosimulationError
        ``get_time()`` returned something that is not a finite time.

    Examples
    --------
    >>> from bondgraph.cosim import examples
    >>> mass = examples.b1_mass()
    >>> mass.setup(0.0, 1.0, 1e-3)
    >>> reported_time(mass)
    0.0
    """
    clock = sub.get_time()
    return None if clock is None else _time_value(clock, sub, "get_time()")


def checked_outputs(sub: Subsystem) -> np.ndarray:
    """``get_outputs()`` as a float vector of the declared length, or a named error.

    Parameters
    ----------
    sub : Subsystem

    Returns
    -------
    ndarray

    Raises
    ------
    CosimulationError
        A vector of another length.

    Examples
    --------
    >>> from bondgraph.cosim import examples
    >>> checked_outputs(examples.b1_mass())
    array([0., 0.])
    """
    y = sub.get_outputs()
    if type(y) is not np.ndarray or y.dtype != float:
        y = np.asarray(y, dtype=float)
    if y.shape != (len(sub.outputs),):
        raise CosimulationError(f"get_outputs() returned shape {y.shape}, expected "
                                f"({len(sub.outputs)},) for the outputs "
                                f"{', '.join(sub.output_names) or '(none)'}",
                                subject=f"subsystem {sub.name!r}")
    return y


def step_subsystem(sub: Subsystem, coeffs: np.ndarray, t: float, H: float, substeps: int,
                   orders: int, shifts: Mapping[tuple[int, int], np.ndarray],
                   expected: float) -> tuple[OutputPackage, np.ndarray]:
    """Advance ``sub`` over ``[t, t + H]`` in ``substeps`` equal steps.

    Parameters
    ----------
    sub : Subsystem
        The subsystem.
    coeffs : ndarray, shape (p + 1, n_inputs)
        Taylor coefficients of its inputs at ``t`` (in the inputs' units).
    t, H : float
        Start and length of the communication step.
    substeps : int
        Number of sub-steps ``k`` (each ``H / k``).
    orders : int
        Derivative orders the subsystem is given (``min(input_derivative_order, p)``).
    shifts : mapping
        ``(k, j) -> shift_matrix(p, j * H / k)`` for ``j = 1 .. k - 1``.
    expected : float
        The communication time the step must reach (``t + H``), stamped when the
        subsystem cannot tell its time.

    Returns
    -------
    package : OutputPackage
        Outputs at the end, stamped with the time the subsystem reports.
    applied : ndarray, shape (n_inputs,)
        The inputs the subsystem applied at the end of its last sub-step.

    Raises
    ------
    CosimulationError
        A step or clock that returned a non-time, outputs of the wrong length.

    Examples
    --------
    A mass (``m = 2``, no sine force) pushed by a ramp ``F = 4 + 8t`` for 1 s in four
    sub-steps: ``x = (4/2 + 8/6)/2``.

    >>> import numpy as np
    >>> from bondgraph.cosim import examples
    >>> mass = examples.b1_mass(m=2.0, F0=0.0)
    >>> mass.setup(0.0, 1.0, 0.25)
    >>> coeffs = np.array([[4.0], [8.0], [0.0]])
    >>> shifts = {(4, j): shift_matrix(2, j * 0.25) for j in range(1, 4)}
    >>> pkg, applied = step_subsystem(mass, coeffs, 0.0, 1.0, 4, 2, shifts, expected=1.0)
    >>> pkg.time, bool(np.isclose(pkg.values[0], (2 + 8 / 6) / 2)), applied
    (1.0, True, array([12.]))
    """
    h = H / substeps
    reached = None
    c = coeffs
    for j in range(substeps):
        ts = t + j * h
        c = coeffs if j == 0 else shifts[(substeps, j)] @ coeffs
        pkg = InputPackage(sub.name, ts, c[0], c[1:1 + orders])
        sub.set_inputs(pkg.time, pkg.values, pkg.derivatives)
        reached = sub.do_step(ts, h)
        if reached is not None:
            reached = _time_value(reached, sub, f"do_step({ts:.9g}, {h:g})")
            if abs(reached - (ts + h)) > 1e-9 * h:
                break
    applied = truncated_value(c, orders, h)
    clock = reported_time(sub)
    values = checked_outputs(sub)
    if reached is not None and abs(reached - expected) > 1e-9 * H:
        package = OutputPackage(sub.name, reached, values, "step")
    elif clock is not None:
        package = OutputPackage(sub.name, clock, values, "clock")
    else:
        package = OutputPackage(sub.name, expected if reached is None else reached, values,
                                "master" if reached is None else "step")
    return package, applied
