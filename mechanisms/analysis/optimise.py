"""Extremes of point positions over a stroke box, refined from a solved grid.

A grid finds where an extreme is to within a grid step; :func:`refine` then moves the
lengths continuously (scipy's L-BFGS-B, or SLSQP with an equality constraint) with
gradients by central differences, all evaluated in one batched solve of
:meth:`BoxKinematics.solve <.kinematics.BoxKinematics.solve>` per iteration. Lengths
stay inside the strokes (bounds) and the poses inside the joint ranges the grid was solved
with (``[limits]``: inequality constraints, SLSQP); an interior extreme (reach is largest with the
bucket cylinder part-way out) is found like a corner one.

Examples
--------
>>> import numpy as np
>>> from mechanisms.machine import DATA
>>> from mechanisms.analysis.study import Study
>>> s = Study(DATA / "excavator.toml")
>>> grid = s.grid(12)
>>> probe = Probe(s.kinematics, grid, [("bucket", "Q")])
>>> x, _ = grid.point("bucket", "Q")
>>> i = np.unravel_index(np.nanargmax(x), grid.shape)
>>> start = {c: grid.axes[c][k] for c, k in zip(grid.cylinders, i)}
>>> best = refine(probe, lambda p: p["bucket/Q"][0], start, maximise=True)
>>> bool(best.value >= np.nanmax(x)), round(best.value, 3)
(True, 11.788)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np
from scipy.optimize import minimize

__all__ = ["Probe", "Extreme", "refine", "limit_values", "LIMIT"]


class Probe:
    """Positions of chosen points at scattered cylinder lengths (batched).

    Any object with the same :meth:`at` (lengths → ``(dict of arrays or (x, y) tuples,
    ok)``) can stand in for it in :func:`refine`.

    Parameters
    ----------
    kinematics : BoxKinematics
    grid : BoxGrid
        Solved grid the poses start from (its branch, its joint ranges).
    points : sequence of (str, str)
        ``(part, point)`` pairs.

    Examples
    --------
    At the start pose's lengths the probe finds the start pose's tip:

    >>> import numpy as np
    >>> from mechanisms.machine import DATA
    >>> from mechanisms.analysis.study import Study
    >>> s = Study(DATA / "excavator.toml")
    >>> kin = s.kinematics
    >>> probe = Probe(kin, s.grid(12), [("bucket", "Q")])
    >>> pts, ok = probe.at({c: np.array([kin.start.length(c)]) for c in kin.cylinders})
    >>> q = kin.start.points()["bucket/Q"]
    >>> bool(ok[0]), bool(np.hypot(pts["bucket/Q"][0][0] - q[0], pts["bucket/Q"][1][0] - q[1]) < 1e-9)
    (True, True)
    """

    def __init__(self, kinematics, grid, points: Sequence[tuple[str, str]]):
        self.kin = kinematics
        self.grid = grid
        self.points = list(points)
        self.parts = sorted({p for p, _ in self.points})

    def at(self, lengths: Mapping[str, np.ndarray]) -> tuple[dict[str, tuple], np.ndarray]:
        """``({"part/point": (x, y)}, ok)`` at ``lengths`` (cylinder → array), with the grid's
        joint ranges as ``"limit:NAME": (angle − low, high − angle)`` (:func:`limit_values`).

        Parameters
        ----------
        lengths : mapping
            Cylinder → lengths (m), every cylinder.

        Returns
        -------
        (dict, ndarray of bool)
        """
        ang, ok = self.kin.solve(lengths, near=self.grid, limits=False)
        L = {c: np.atleast_1d(np.asarray(v, dtype=float)) for c, v in lengths.items()}
        _, pts = self.kin.forward(ang, L, parts=self.parts)
        out = {f"{p}/{q}": pts[f"{p}/{q}"] for p, q in self.points}
        out.update(limit_values(ang, self.grid))
        return out, ok


def limit_values(angles: Mapping[str, np.ndarray], grid) -> dict[str, tuple]:
    """A probe's entries for the joint ranges ``grid`` was solved with:
    ``"limit:NAME" → (angle − low, high − angle)``, which :func:`refine` keeps ≥ 0.

    Parameters
    ----------
    angles : mapping
        Part → absolute angle (rad).
    grid : BoxGrid
        Its ``limits`` (none: an empty result).

    Returns
    -------
    dict

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> grid = SimpleNamespace(limits={"elbow": (-2.0, 0.0, ("arm", "boom"))})
    >>> limit_values({"arm": np.array([-0.5]), "boom": np.array([0.2])}, grid)
    {'limit:elbow': (array([1.3]), array([0.7]))}
    """
    from .kinematics import limit_margins

    return {f"{LIMIT}{k}": v for k, v in limit_margins(angles, getattr(grid, "limits", {}) or {}).items()}


#: prefix of a probe's joint-range entries
LIMIT = "limit:"


@dataclass
class Extreme:
    """A refined extreme: its value, the lengths that give it, the points there.

    Attributes
    ----------
    value : float
    lengths : dict
        Cylinder → length (m).
    points : dict
        The probe's values there (points: ``(x, y)``).
    refined : bool
        False when the refinement could not improve on the start (then the start).

    Examples
    --------
    See :func:`refine`.
    """

    value: float
    lengths: dict[str, float]           # cylinder → length (m)
    points: dict[str, Any]              # the probe's values there (points: (x, y))
    refined: bool


def refine(probe: Probe, objective: Callable[[dict], np.ndarray], start: Mapping[str, float], *,
           vary: Sequence[str] | None = None, maximise: bool = False,
           constraint: Callable[[dict], np.ndarray] | None = None, h: float = 1e-7) -> Extreme:
    """Refine an extreme of ``objective(points)`` from the lengths ``start``.

    Parameters
    ----------
    probe : Probe
    objective : callable
        ``points → value`` (arrays over the batch), e.g. ``lambda p: p["bucket/Q"][0]``.
    start : dict
        Cylinder → length (m), every cylinder: the grid's best point.
    vary : sequence of str, optional
        Cylinders that move (default all); the others stay at ``start``.
    maximise : bool
    constraint : callable, optional
        ``points → value`` kept at zero (SLSQP), e.g. the tip's height above ground.
    h : float
        Central-difference step, as a fraction of each stroke.

    Returns
    -------
    Extreme

    Examples
    --------
    The greatest reach *at ground level*: the tip's x maximised with its height held at
    the ground (SLSQP), from the grid's best point near the ground:

    >>> import numpy as np
    >>> from mechanisms.machine import DATA
    >>> from mechanisms.analysis.study import Study
    >>> s = Study(DATA / "excavator.toml")
    >>> grid, ground = s.grid(12), s.description.ground
    >>> x, y = grid.point("bucket", "Q")
    >>> i = np.unravel_index(np.nanargmax(np.where(abs(y - ground) < 0.3, x, np.nan)), grid.shape)
    >>> start = {c: grid.axes[c][k] for c, k in zip(grid.cylinders, i)}
    >>> best = refine(Probe(s.kinematics, grid, [("bucket", "Q")]), lambda p: p["bucket/Q"][0],
    ...               start, maximise=True, constraint=lambda p: p["bucket/Q"][1] - ground)
    >>> best.refined, round(best.value, 3), bool(abs(best.points["bucket/Q"][1] - ground) < 1e-7)
    (True, 11.372, True)
    """
    kin = probe.kin
    vary = list(vary if vary is not None else kin.cylinders)
    lo = np.array([kin.parts[c].length_limits[0] for c in vary])
    span = np.array([kin.parts[c].length_limits[1] for c in vary]) - lo
    base = {c: float(start[c]) for c in kin.cylinders}
    sign = -1.0 if maximise else 1.0
    n = len(vary)
    cache: dict = {}

    def lengths_of(U: np.ndarray) -> dict[str, np.ndarray]:
        L = {c: np.full(len(U), base[c]) for c in kin.cylinders}
        for j, c in enumerate(vary):
            L[c] = lo[j] + U[:, j] * span[j]
        return L

    def evaluate(u: np.ndarray):
        key = tuple(np.round(u, 15))
        if key in cache:
            return cache[key]
        U = np.vstack([u] + [u + h * e for e in np.eye(n)] + [u - h * e for e in np.eye(n)])
        pts, ok = probe.at(lengths_of(U))
        f = np.asarray(objective(pts), dtype=float)
        g = np.asarray(constraint(pts), dtype=float) if constraint is not None else None
        lim = [np.asarray(m, dtype=float) for k, v in pts.items() if k.startswith(LIMIT) for m in v]
        q = np.vstack(lim) if lim else np.zeros((0, len(U)))      # joint-range margins, kept ≥ 0
        if not np.all(ok):
            out = (np.inf, np.zeros(n), np.inf if g is not None else None, np.zeros(n),
                   np.full(len(q), -np.inf), np.zeros((len(q), n)))
        else:
            df = (f[1:n + 1] - f[n + 1:]) / (2 * h)
            dg = (g[1:n + 1] - g[n + 1:]) / (2 * h) if g is not None else None
            dq = ((q[:, 1:n + 1] - q[:, n + 1:]) / (2 * h)).reshape(len(q), n)
            out = (float(f[0]), df, float(g[0]) if g is not None else None, dg, q[:, 0], dq)
        cache.clear()
        cache[key] = out
        return out

    if n == 0:  # nothing to move: the extreme is where it starts
        return _extreme(probe, objective, base, False)
    u0 = np.clip((np.array([base[c] for c in vary]) - lo) / span, 0.0, 1.0)
    f0 = evaluate(u0)[0]
    if not np.isfinite(f0):
        return _extreme(probe, objective, base, False)
    fun = lambda u: (sign * evaluate(u)[0], sign * evaluate(u)[1])  # noqa: E731
    bounds = [(0.0, 1.0)] * n
    limited = len(evaluate(u0)[4]) > 0
    if constraint is None and not limited:
        res = minimize(fun, u0, jac=True, method="L-BFGS-B", bounds=bounds,
                       options={"ftol": 1e-15, "gtol": 1e-11, "maxiter": 200})
    else:
        cons = []
        if constraint is not None:
            cons.append({"type": "eq", "fun": lambda u: evaluate(u)[2], "jac": lambda u: evaluate(u)[3]})
        if limited:
            cons.append({"type": "ineq", "fun": lambda u: evaluate(u)[4], "jac": lambda u: evaluate(u)[5]})
        res = minimize(fun, u0, jac=True, method="SLSQP", bounds=bounds, constraints=cons,
                       options={"ftol": 1e-14, "maxiter": 200})
    u = np.clip(res.x, 0.0, 1.0)
    val, _, gval, _, qval, _ = evaluate(u)
    feasible = (constraint is None or (gval is not None and abs(gval) < 1e-7)) and bool(np.all(qval >= -1e-9))
    better = np.isfinite(val) and (constraint is not None or sign * val <= sign * f0 + 1e-12)
    if not (feasible and better):
        return _extreme(probe, objective, base, False)
    L = {c: float(v[0]) for c, v in lengths_of(u[None, :]).items()}
    return _extreme(probe, objective, L, True)


def _extreme(probe, objective, L: Mapping[str, float], refined: bool) -> Extreme:
    pts, _ = probe.at({c: np.array([v]) for c, v in L.items()})
    val = float(np.asarray(objective(pts))[0])
    first = {k: tuple(float(np.asarray(a)[0]) for a in v) if isinstance(v, tuple) else float(np.asarray(v)[0])
             for k, v in pts.items()}
    return Extreme(val, dict(L), first, refined)
