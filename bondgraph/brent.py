"""Brent's two scalar methods: a root in a bracket, a minimum on an interval.

The step loop locates an event's crossing inside a step (a root of the event function
on the step's dense output) and, when both ends of a step lie on one side, the event
function's extremum between them (is there a pair of crossings inside?). Both are
Brent's methods (R. P. Brent, *Algorithms for Minimization without Derivatives*,
Prentice-Hall 1973, chapters 4 and 5; the procedures ``zero`` and ``fmin`` as given in
G. E. Forsythe, M. A. Malcolm and C. B. Moler, *Computer Methods for Mathematical
Computations*, 1977): bisection safeguarding inverse quadratic interpolation for the
root, golden section safeguarding parabolic interpolation for the minimum. They are
written here so that a run does not import ``scipy.optimize`` (0.15–0.3 s, most of a
warm ``hydrobond run``'s solver imports) for two scalar searches;
``tests/core/test_brent.py`` checks them against scipy's ``brentq`` and bounded
``minimize_scalar`` and against closed forms.

Examples
--------
>>> import math
>>> round(root(lambda x: x * x - 2.0, 0.0, 2.0), 15) == round(math.sqrt(2.0), 15)
True
>>> x, fx = minimum(lambda x: (x - 0.3) ** 2 + 1.0, 0.0, 1.0, xtol=1e-10)
>>> abs(x - 0.3) < 1e-7, round(fx, 12)
(True, 1.0)
"""

from __future__ import annotations

import math
from typing import Callable

__all__ = ["root", "minimum"]

_EPS = 2.220446049250313e-16
#: the relative tolerance of the minimiser: √ε with ε rounded to 2.2e-16, as scipy's bounded
#: ``minimize_scalar`` takes it, so that an event located with either lands at the same time
_SQRT_EPS = math.sqrt(2.2e-16)
#: the golden section's ratio (3 − √5)/2
_GOLD = 0.5 * (3.0 - math.sqrt(5.0))


def root(f: Callable[[float], float], a: float, b: float, *, xtol: float = 4 * _EPS,
         rtol: float = 4 * _EPS, maxiter: int = 200) -> float:
    """A zero of ``f`` in ``[a, b]``, where ``f(a)`` and ``f(b)`` differ in sign (or one is 0).

    The bracket shrinks until it is below ``xtol + rtol·|x|``; every step stays inside it
    (bisection whenever interpolation would not shrink it fast enough).

    Parameters
    ----------
    f : callable
        ``f(x) -> float``.
    a, b : float
        The bracket.
    xtol, rtol : float
        Absolute and relative width of the final bracket.
    maxiter : int
        Iterations before the best point found is returned.

    Returns
    -------
    float

    Raises
    ------
    ParameterError
        ``f(a)`` and ``f(b)`` of the same sign (no bracket), or not finite.

    Examples
    --------
    >>> import math
    >>> abs(root(math.cos, 0.0, 3.0) - math.pi / 2) < 1e-15
    True
    """
    fa, fb = float(f(a)), float(f(b))
    if fa == 0.0:
        return a
    if fb == 0.0:
        return b
    if not (fa * fb < 0.0):
        from .errors import ParameterError

        raise ParameterError(f"root: f({a!r}) = {fa!r} and f({b!r}) = {fb!r}: expected finite values "
                             "of opposite signs (a bracket of the root)")
    c, fc = a, fa          # b is the best point, a the previous one, c the other end of the bracket
    d = e = b - a
    for _ in range(maxiter):
        if (fb > 0.0) == (fc > 0.0):
            c, fc = a, fa
            d = e = b - a
        if abs(fc) < abs(fb):
            a, b, c = b, c, b
            fa, fb, fc = fb, fc, fb
        tol = 0.5 * (xtol + rtol * abs(b))
        m = 0.5 * (c - b)
        if abs(m) <= tol or fb == 0.0:
            return b
        if abs(e) >= tol and abs(fa) > abs(fb):
            s = fb / fa
            if a == c:      # two points: the secant
                p, q = 2.0 * m * s, 1.0 - s
            else:           # three points: inverse quadratic interpolation
                q, r = fa / fc, fb / fc
                p = s * (2.0 * m * q * (q - r) - (b - a) * (r - 1.0))
                q = (q - 1.0) * (r - 1.0) * (s - 1.0)
            if p > 0.0:
                q = -q
            else:
                p = -p
            if 2.0 * p < min(3.0 * m * q - abs(tol * q), abs(e * q)):
                e, d = d, p / q
            else:
                d = e = m
        else:
            d = e = m
        a, fa = b, fb
        b += d if abs(d) > tol else math.copysign(tol, m)
        fb = float(f(b))
    return b


def minimum(f: Callable[[float], float], a: float, b: float, *, xtol: float = 1e-5,
            maxiter: int = 500) -> tuple[float, float]:
    """A local minimum of ``f`` on ``[a, b]`` (the ends excluded, approached to ``xtol``).

    Parameters
    ----------
    f : callable
        ``f(x) -> float``.
    a, b : float
        The interval, ``a < b``.
    xtol : float
        Absolute tolerance on the minimiser (a relative √ε is added, as in Brent's ``fmin``;
        a minimum is flat to first order, so ``f`` there is accurate to about ε).
    maxiter : int
        Function evaluations before the best point found is returned.

    Returns
    -------
    (float, float)
        The minimiser and ``f`` there.

    Examples
    --------
    >>> import math
    >>> x, fx = minimum(math.sin, 3.0, 6.0, xtol=1e-12)
    >>> abs(x - 1.5 * math.pi) < 1e-7, fx
    (True, -1.0)
    """
    sqrt_eps = _SQRT_EPS
    x = w = v = a + _GOLD * (b - a)
    fx = fw = fv = float(f(x))
    d = e = 0.0
    for _ in range(maxiter):
        xm = 0.5 * (a + b)
        tol1 = sqrt_eps * abs(x) + xtol / 3.0
        tol2 = 2.0 * tol1
        if abs(x - xm) <= tol2 - 0.5 * (b - a):
            break
        golden = True
        if abs(e) > tol1:   # try a parabola through x, w, v
            r = (x - w) * (fx - fv)
            q = (x - v) * (fx - fw)
            p = (x - v) * q - (x - w) * r
            q = 2.0 * (q - r)
            if q > 0.0:
                p = -p
            q = abs(q)
            r, e = e, d
            if abs(p) < abs(0.5 * q * r) and q * (a - x) < p < q * (b - x):
                d = p / q
                u = x + d
                if u - a < tol2 or b - u < tol2:
                    d = tol1 if x <= xm else -tol1
                golden = False
        if golden:
            e = (b - x) if x < xm else (a - x)
            d = _GOLD * e
        u = x + (d if abs(d) >= tol1 else (tol1 if d >= 0.0 else -tol1))
        fu = float(f(u))
        if fu <= fx:
            if u < x:
                b = x
            else:
                a = x
            v, fv, w, fw, x, fx = w, fw, x, fx, u, fu
        else:
            if u < x:
                a = u
            else:
                b = u
            if fu <= fw or w == x:
                v, fv, w, fw = w, fw, u, fu
            elif fu <= fv or v == x or v == w:
                v, fv = u, fu
    return x, fx
