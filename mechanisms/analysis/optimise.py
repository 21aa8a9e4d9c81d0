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

    def __init__(self, kinematics, grid, points: Sequence[tuple[str, str]], angles: Sequence[str] = ()):
        self.kin = kinematics
        self.grid = grid
        self.points = list(points)
        self.angles = list(angles)
        self.parts = sorted({p for p, _ in self.points})

    def at(self, lengths: Mapping[str, np.ndarray]) -> tuple[dict[str, tuple], np.ndarray]:
        """``({"part/point": (x, y)}, ok)`` at ``lengths`` (cylinder → array), with the grid's
        joint ranges as ``"limit:NAME": (angle − low, high − angle)`` (:func:`limit_values`),
        the absolute angles of the parts asked for as ``"angle:PART"`` (rad) and the lengths
        as ``"length:CYLINDER"`` (m)."""
        ang, ok = self.kin.solve(lengths, near=self.grid, limits=False)
        L = {c: np.atleast_1d(np.asarray(v, dtype=float)) for c, v in lengths.items()}
        _, pts = self.kin.forward(ang, L, parts=self.parts)
        out: dict[str, Any] = {f"{p}/{q}": pts[f"{p}/{q}"] for p, q in self.points}
        out.update(limit_values(ang, self.grid))
        out.update({f"angle:{a}": np.asarray(ang[a], dtype=float) for a in self.angles})
        out.update({f"length:{c}": v for c, v in L.items()})
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

    ``refined`` is True when the lengths are a stationary point of the objective on the
    strokes and the active joint ranges and constraints (first-order optimality checked);
    otherwise they are the grid's best pose and ``bound`` estimates how far the value may
    be from the extreme (the objective's change over one grid step of each varied stroke).
    ``active`` names the joint ranges that hold the extreme.
    """

    value: float
    lengths: dict[str, float]           # cylinder → length (m)
    points: dict[str, Any]              # the probe's values there (points: (x, y))
    refined: bool
    bound: float = 0.0                  # how far an unrefined value may be off (objective's unit)
    active: tuple[str, ...] = ()        # joint ranges at a bound there ("arm low")


#: margin (rad) below which a joint range counts as active at a refined point
ACTIVE = 1e-7
#: relative residual of the first-order optimality conditions accepted as stationary
STATIONARY = 1e-3
#: residual gradient (objective's unit per unit of stroke fraction, relative to the objective)
#: accepted as zero: what is left of the objective to gain, ≈ r²/(2·curvature), is far below
#: a micrometre for the lengths and forces of a machine
NOISE = 1e-4


def refine(probe: Probe, objective: Callable[[dict], np.ndarray], start: Mapping[str, float], *,
           vary: Sequence[str] | None = None, maximise: bool = False,
           constraint: Callable[[dict], Any] | None = None, h: float = 1e-7,
           steps: Mapping[str, float] | None = None, optimise: bool = True) -> Extreme:
    """Refine an extreme of ``objective(points)`` from the lengths ``start``.

    The optimiser (L-BFGS-B, or SLSQP with constraints) is followed by a polish on its
    active set: the joint ranges within reach of their bounds and the equality constraints
    are met exactly (minimum-norm Gauss–Newton steps, the limit as an equality when it is
    active), and the result is accepted only when it satisfies the first-order optimality
    conditions there (the objective's gradient a non-negative combination of the active
    bounds' and ranges' gradients, to :data:`STATIONARY`); failing that, the active set is
    solved for once more with the active ranges as equalities. A result that still fails is
    the grid's pose, ``refined=False``, with the bound it may be off by.

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
        ``points → value`` kept at zero (SLSQP), e.g. the tip's height above ground; or a
        list of such values, all kept at zero.
    h : float
        Central-difference step, as a fraction of each stroke.
    steps : dict, optional
        Cylinder → grid step (m) for the bound of an unrefined result (default the probe's
        grid's, else a fiftieth of the stroke).

    Returns
    -------
    Extreme

    Examples
    --------
    >>> from mechanisms.machine import DATA
    >>> from mechanisms.analysis.study import Study
    >>> s = Study(DATA / "excavator.toml", {"limits.arm": ["-120 deg", "-60 deg"]})
    >>> grid = s.grid(50)
    >>> probe = Probe(s.kinematics, grid, [("bucket", "Q")])
    >>> top = refine(probe, lambda p: p["bucket/Q"][1], {"boom_cylinder": 3.73, "arm_cylinder": 2.66,
    ...                                                   "bucket_cylinder": 2.3}, maximise=True)
    >>> top.refined, top.active, round(top.value, 4)      # the arm held at its range's high end, -60°
    (True, ('arm high',), 7.4384)
    """
    kin = probe.kin
    vary = list(vary if vary is not None else kin.cylinders)
    lo = np.array([kin.parts[c].length_limits[0] for c in vary])
    span = np.array([kin.parts[c].length_limits[1] for c in vary]) - lo
    base = {c: float(start[c]) for c in kin.cylinders}
    sign = -1.0 if maximise else 1.0
    n = len(vary)
    cache: dict = {}
    seen: dict = {}          # key → (u, the probe's values at u and its differences)
    names: list[str] = []

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
        seen[key] = (u.copy(), pts)       # the probe's values, row 0 at ``u`` itself
        f = np.asarray(objective(pts), dtype=float)
        g = None
        if constraint is not None:
            c = constraint(pts)
            g = np.vstack([np.asarray(x, dtype=float) for x in c]) if isinstance(c, (list, tuple)) \
                else np.asarray(c, dtype=float).reshape(1, -1)
        lim = [(k[len(LIMIT):], np.asarray(m, dtype=float)) for k, v in pts.items() if k.startswith(LIMIT)
               for m in v]
        if not names:
            names.extend(f"{k} {'low' if i % 2 == 0 else 'high'}" for i, (k, _) in enumerate(lim))
        q = np.vstack([m for _, m in lim]) if lim else np.zeros((0, len(U)))   # joint-range margins, ≥ 0
        ng = 0 if g is None else len(g)
        if not (np.all(ok) and np.all(np.isfinite(f))):
            out = (np.inf, np.zeros(n), np.full(ng, np.inf), np.zeros((ng, n)),
                   np.full(len(q), -np.inf), np.zeros((len(q), n)))
        else:
            df = (f[1:n + 1] - f[n + 1:]) / (2 * h)
            dg = (g[:, 1:n + 1] - g[:, n + 1:]) / (2 * h) if g is not None else np.zeros((0, n))
            dq = ((q[:, 1:n + 1] - q[:, n + 1:]) / (2 * h)).reshape(len(q), n)
            out = (float(f[0]), df, g[:, 0] if g is not None else np.zeros(0), dg, q[:, 0], dq)
        if len(cache) > 64:
            cache.clear()
            seen.clear()
            seen[key] = (u.copy(), pts)
        cache[key] = out
        return out

    if n == 0:  # nothing to move: the extreme is where it starts
        return _extreme(probe, objective, base, False)
    u0 = np.clip((np.array([base[c] for c in vary]) - lo) / span, 0.0, 1.0)
    f0, df0 = evaluate(u0)[:2]
    if steps is None:
        axes = getattr(getattr(probe, "grid", None), "axes", {}) or {}
        steps = {c: (float(np.max(np.diff(axes[c]))) if c in axes and len(axes[c]) > 1 else span[j] / 50)
                 for j, c in enumerate(vary)}
    bound = float(np.sum(np.abs(df0) * np.array([steps[c] for c in vary]) / span)) if np.isfinite(f0) else np.inf
    if not np.isfinite(f0) or not optimise:
        return _extreme(probe, objective, base, False, bound)
    scale = 1.0 / max(abs(f0), float(np.max(np.abs(df0))) if np.all(np.isfinite(df0)) else 0.0, 1e-300)
    fun = lambda u: (scale * sign * evaluate(u)[0], scale * sign * evaluate(u)[1])  # noqa: E731  (order one)
    bounds = [(0.0, 1.0)] * n
    limited = len(evaluate(u0)[4]) > 0
    equality = constraint is not None

    def solve(u_init, held: np.ndarray | None = None, tight: bool = False):
        """The optimiser from ``u_init``; ``held``: joint ranges kept as equalities; ``tight``:
        SLSQP to its tightest tolerance (slower; the retry)."""
        if not equality and not limited and held is None:
            res = minimize(fun, u_init, jac=True, method="L-BFGS-B", bounds=bounds,
                           options={"ftol": 1e-15, "gtol": 1e-11, "maxiter": 200})
            return np.clip(res.x, 0.0, 1.0)
        cons = []
        if equality:
            cons.append({"type": "eq", "fun": lambda u: evaluate(u)[2], "jac": lambda u: evaluate(u)[3]})
        if held is not None and held.any():
            cons.append({"type": "eq", "fun": lambda u: evaluate(u)[4][held],
                         "jac": lambda u: evaluate(u)[5][held]})
        if limited:
            cons.append({"type": "ineq", "fun": lambda u: evaluate(u)[4], "jac": lambda u: evaluate(u)[5]})
        res = minimize(fun, u_init, jac=True, method="SLSQP", bounds=bounds, constraints=cons,
                       options={"ftol": 1e-14 if tight else 1e-10, "maxiter": 200})
        return np.clip(res.x, 0.0, 1.0)

    def settle(u):
        """Meet the equalities and the nearly active ranges exactly; ``(u, stationary, active)``."""
        u = u.copy()
        for _ in range(8):
            f, df, g, dg, q, dq = evaluate(u)
            if not np.isfinite(f):
                return u, False, None
            act = q < ACTIVE
            r = np.concatenate([g, q[act]])
            A = np.vstack([dg, dq[act]])
            free = (u > 1e-12) & (u < 1 - 1e-12)
            if r.size == 0 or np.max(np.abs(r)) < 1e-13 or not free.any():
                break
            du = np.linalg.lstsq(A[:, free], -r, rcond=None)[0]
            u[free] = np.clip(u[free] + du, 0.0, 1.0)
        f, df, g, dg, q, dq = evaluate(u)
        if not (np.isfinite(f) and np.all(np.abs(g) < 1e-9) and np.all(q >= -1e-11)):
            return u, False, None
        act = q < ACTIVE
        return u, _stationary(sign * df, dg, dq[act], u, NOISE * max(1.0, abs(f))), act

    u1 = solve(u0)
    u, ok, act = settle(u1)
    val = evaluate(u)[0]
    better = np.isfinite(val) and (equality or sign * val <= sign * f0 + 1e-12)
    if not (ok and better):
        # once more on the active set: the ranges near their bounds there (or at the start) as equalities
        q1 = evaluate(u1)[4]
        _, _, _, _, q0, dq0 = evaluate(u0)
        reach = np.abs(dq0) @ (np.array([steps[c] for c in vary]) / span)     # a range's change over a step
        held = (q1 < 1e-4) | (q0 < reach)
        if held.any() or equality or limited:
            u2, ok2, act2 = settle(solve(u if np.isfinite(val) else u0, held, tight=True))
            val2 = evaluate(u2)[0]
            better2 = np.isfinite(val2) and (equality or sign * val2 <= sign * f0 + 1e-12)
            if ok2 and better2:
                u, ok, act, val, better = u2, ok2, act2, val2, better2
    if not (ok and better):
        return _extreme(probe, objective, base, False, bound)
    L = {c: float(v[0]) for c, v in lengths_of(u[None, :]).items()}
    active = tuple(nm for nm, a in zip(names, act) if a) if act is not None else ()
    hit = seen.get(tuple(np.round(u, 15)))
    # the probe has been at these very lengths (row 0 of an evaluation at u: the same lengths, bit
    # for bit, and each row is solved on its own): its values there, not a new probe
    known = hit[1] if hit is not None and np.array_equal(hit[0], u) else None
    return _extreme(probe, objective, L, True, 0.0, active, known)


def _stationary(grad: np.ndarray, eq: np.ndarray, ineq: np.ndarray, u: np.ndarray, noise: float) -> bool:
    """First-order optimality of minimising with gradient ``grad`` at ``u`` (in the unit
    box): ``grad = Σ μ·eq + Σ λ·ineq + Σ ν·(±e_j)`` with ``λ, ν ≥ 0`` (the active ranges'
    and bounds' multipliers), to a residual of :data:`STATIONARY` of ``|grad|`` plus
    ``noise`` (what central differences cannot resolve)."""
    from scipy.optimize import lsq_linear

    n = len(u)
    rows = [eq, ineq, np.eye(n)[u <= 1e-12], -np.eye(n)[u >= 1 - 1e-12]]
    A = np.vstack([r.reshape(-1, n) for r in rows])
    scale = float(np.linalg.norm(grad))
    if scale <= noise:
        return True
    if len(A) == 0:
        return False
    lo_b = np.concatenate([np.full(len(eq), -np.inf), np.zeros(len(A) - len(eq))])
    sol = lsq_linear(A.T, grad, bounds=(lo_b, np.full(len(A), np.inf)))
    return float(np.linalg.norm(A.T @ sol.x - grad)) <= STATIONARY * scale + noise


def _extreme(probe, objective, L: Mapping[str, float], refined: bool, bound: float = np.nan,
             active: tuple[str, ...] = (), known: Mapping[str, Any] | None = None) -> Extreme:
    """The extreme at ``L``: the probe's values there (``known``: already probed, row 0)."""
    pts = known if known is not None else probe.at({c: np.array([v]) for c, v in L.items()})[0]
    val = float(np.asarray(objective(pts))[0])
    first = {k: tuple(float(np.asarray(a)[0]) for a in v) if isinstance(v, tuple) else float(np.asarray(v)[0])
             for k, v in pts.items()}
    return Extreme(val, dict(L), first, refined, 0.0 if refined else bound, active)
