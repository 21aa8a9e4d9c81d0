"""A native step's guard crossings, located on the step's own polynomial by numpy.

CVODE's dense output on its last step ``[tₙ − hᵤ, tₙ]`` is a polynomial of degree ``q``,
the order of that step (the Nordsieck array): ``y(t) = Σₖ y⁽ᵏ⁾(tₙ)·(t − tₙ)ᵏ/k!`` for
``k = 0 … q``, the derivatives from ``CVodeGetDky`` at ``tₙ``
(:meth:`Session.taylor <bondgraph.native.driver.Session.taylor>`). A guard that reads only
states and constants — a :class:`~bondgraph.events.StateEvent`, ``Above``/``Below``/
``Exceeds`` on states — is linear in the state, ``g = sign·(x_i − x_j − threshold) −
tolerance``, so on that step it is a polynomial in time as well: :func:`guard_polynomial`
builds it in the scaled time ``u = (t − tₙ)/hᵤ`` (``u ∈ [−1, 0]`` on the step), and
:class:`GuardPolynomial` answers the two questions rule R7 of :mod:`bondgraph.stepping`
asks on a step — where the guard crosses zero in ``[a, b]`` (the earliest real root of the
polynomial there) and where it is largest or smallest (the real roots of its derivative,
compared with the ends) — with ``numpy.polynomial.Polynomial.roots`` (the eigenvalues of
its companion matrix), no iteration and no scipy. Which crossings count (direction, both
crossings around an extremum, their order) stays :func:`bondgraph.stepping._crossings`'s
code, the same as on the Python path, where Brent's methods answer the same questions on
the solver's interpolant.

A root from the companion matrix is the root of the polynomial to a few ulps of the step;
it is taken as it is, clipped into ``[a, b]``. Coefficients below ``eps`` of the largest
(rounding noise in the high derivatives) are dropped first: they change the guard by less
than its own rounding on the step.

Examples
--------
``x = t²`` on a step ending at ``tₙ = 1`` s of ``hᵤ = 0.5`` s (order 2: ``x, ẋ, ẍ = 1, 2,
2`` at ``tₙ``); the guard ``x − 0.64`` crosses at ``t = 0.8`` s:

>>> import numpy as np
>>> g = guard_polynomial(("state", 0, 1.0, 0.64, 0.0, 0.0, 1), 1.0, 0.5, np.array([[1.0], [2.0], [2.0]]))
>>> round(g.root(0.5, 1.0), 12)
0.8
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
from numpy.polynomial import Polynomial

__all__ = ["GuardPolynomial", "guard_polynomial", "LINEAR_KINDS"]

#: guard quantities that are linear in the state (a guard of these is a polynomial in time)
LINEAR_KINDS = ("state", "const", "none")

_EPS = float(np.finfo(float).eps)
#: how far outside ``[a, b]`` (in units of the step) a root is still taken (and clipped)
_EDGE = 1e-9


def guard_polynomial(spec: Sequence, tn: float, hu: float, derivs: np.ndarray) -> "GuardPolynomial | None":
    """The guard ``spec`` on the step ``[tn − hu, tn]`` whose state derivatives at ``tn`` are
    ``derivs``, or ``None`` when it reads an output or an input (not linear in the state).

    Parameters
    ----------
    spec : sequence
        A native guard (:meth:`Session.set_guards <bondgraph.native.driver.Session.set_guards>`):
        ``(kind, index, sign, threshold, tolerance, constant, direction[, kind2, index2,
        constant2])``, the function ``sign·(q − q2 − threshold) − tolerance``.
    tn, hu : float
        The step's end (CVODE's current time) and length (s).
    derivs : ndarray
        ``(q + 1, n)``: row ``k`` the ``k``-th time derivative of the states at ``tn``.

    Returns
    -------
    GuardPolynomial or None

    Examples
    --------
    ``x − y`` for ``x = t`` and ``y = 2`` (a constant state) on ``[1, 3]``: zero at ``t = 2``;
    a guard on an output is not a polynomial of the state:

    >>> import numpy as np
    >>> d = np.array([[3.0, 2.0], [1.0, 0.0]])
    >>> guard_polynomial(("state", 0, 1.0, 0.0, 0.0, 0.0, 1, "state", 1, 0.0), 3.0, 2.0, d).root(1.0, 3.0)
    2.0
    >>> guard_polynomial(("output", 0, 1.0, 0.0, 0.0, 0.0, 1), 3.0, 2.0, d) is None
    True
    """
    spec = tuple(spec) + (("none", 0, 0.0) if len(spec) == 7 else ())
    kind, idx, sign, thr, tol, cval, _dir, kind2, idx2, cval2 = spec
    if kind not in LINEAR_KINDS[:2] or kind2 not in LINEAR_KINDS:
        return None
    derivs = np.asarray(derivs, dtype=float)
    q = derivs.shape[0] - 1
    # scaled coefficients: y(tn + u·hu) = Σ_k c_k u^k with c_k = y^(k)(tn)·hu^k/k!
    scale = np.array([hu ** k / math.factorial(k) for k in range(q + 1)])

    def quantity(kind: str, i: int, c: float) -> tuple[float, np.ndarray]:
        if kind == "state":
            col = derivs[:, int(i)] * scale
            return float(col[0]), col[1:]
        return (float(c) if kind == "const" else 0.0), np.zeros(q)

    v0, v = quantity(kind, idx, cval)
    w0, w = quantity(kind2, idx2, cval2)
    # the constant term as the driver evaluates the guard at tn (bgn_guards), the rest linear
    coef = np.concatenate([[float(sign) * (v0 - w0 - float(thr)) - float(tol)], float(sign) * (v - w)])
    return GuardPolynomial(coef, float(tn), float(hu))


class GuardPolynomial:
    """A guard on one step as ``Σₖ cₖ uᵏ`` in ``u = (t − tₙ)/hᵤ``; times in and out in s.

    Parameters
    ----------
    coef : array_like
        ``c₀ … c_q``.
    tn, hu : float
        The step's end and length: ``u = −1`` at its start, ``0`` at its end.

    Examples
    --------
    ``g = 1 − (t − 1)²·4`` on ``[0.5, 1]`` (``u = 2(t − 1)``: ``g = 1 − u²``): its maximum is
    at the end, 1; on ``[0.5, 0.75]`` the largest value is at ``0.75``:

    >>> g = GuardPolynomial([1.0, 0.0, -1.0], 1.0, 0.5)
    >>> g.extremum(0.5, 1.0, +1), g.extremum(0.5, 0.75, +1), g(0.5)
    ((1.0, 1.0), (0.75, 0.75), 0.0)
    """

    def __init__(self, coef: Sequence[float], tn: float, hu: float):
        c = np.asarray(coef, dtype=float)
        big = float(np.max(np.abs(c))) if c.size else 0.0
        self.p = Polynomial(c).trim(_EPS * big) if big > 0 else Polynomial([0.0])
        self.tn, self.hu = float(tn), float(hu)

    def __call__(self, t: float) -> float:
        """The guard at time ``t`` (s).

        Parameters
        ----------
        t : float

        Returns
        -------
        float
        """
        return float(self.p(self._u(t)))

    def _u(self, t: float) -> float:
        return (t - self.tn) / self.hu

    def _t(self, u: float, a: float, b: float) -> float:
        return min(max(self.tn + u * self.hu, a), b)

    def _real_roots(self, p: Polynomial, ua: float, ub: float) -> np.ndarray:
        """Real roots of ``p`` in ``[ua, ub]`` (a little outside taken, clipped), sorted."""
        if p.degree() < 1:
            return np.zeros(0)
        r = np.atleast_1d(p.roots())
        r = np.sort(r.real[r.imag == 0]) if np.iscomplexobj(r) else np.sort(r)
        edge = _EDGE * max(1.0, abs(ua), abs(ub))
        return np.clip(r[(r >= ua - edge) & (r <= ub + edge)], ua, ub)

    def root(self, a: float, b: float) -> float | None:
        """The earliest crossing in ``[a, b]``, with :func:`bondgraph.stepping._root`'s ends:
        ``a`` if the guard is zero there, ``b`` if it is zero there or has the same sign at
        both ends; ``None`` if the polynomial shows no real root where its ends say there is
        one (the caller then uses Brent).

        Parameters
        ----------
        a, b : float
            Times (s), ``a ≤ b``, inside the step.

        Returns
        -------
        float or None
        """
        fa, fb = self(a), self(b)
        if fa == 0:
            return a
        if fb == 0 or not math.isfinite(fa) or not math.isfinite(fb) or fa * fb > 0:
            return b
        r = self._real_roots(self.p, self._u(a), self._u(b))
        return self._t(float(r[0]), a, b) if r.size else None

    def extremum(self, a: float, b: float, sign: int) -> tuple[float, float]:
        """The maximum (``sign`` +1) or minimum (−1) on ``[a, b]``: ``(time, value)``, among
        the real roots of the derivative inside and the ends.

        Parameters
        ----------
        a, b : float
            Times (s).
        sign : {+1, −1}

        Returns
        -------
        tuple of float
        """
        ua, ub = self._u(a), self._u(b)
        crit = self._real_roots(self.p.deriv(), ua, ub)
        cands = [(a, self(a)), (b, self(b))]
        cands += [(self._t(float(u), a, b), float(self.p(u))) for u in crit]
        best = max(cands, key=lambda c: sign * c[1])
        return best
