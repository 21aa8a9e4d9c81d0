"""Independent reference: working-range extremes by brute force, with joint ranges.

No optimiser and none of the analyses' solvers: each extreme is the best node of a grid
over the cylinder strokes, then of finer and finer grids around it (each twice as fine,
down to a step of 1e-7 m), keeping only the nodes that assemble inside the joint ranges. An extreme
held by a joint range (the arm at its limit) is approached from inside, to the grid's last
step. Poses come from one of two position analyses, neither the analyses' batched one:

* :class:`TrigFront` — the shipped excavators by plain trigonometry
  (:mod:`reference.excavator_trig`), vectorised;
* :class:`SolverFront` — any machine by its mechanism's own pose solver
  (``Mechanism.track``, one pose after the other along the grid's lines), the machine
  passed in by the caller (nothing of the toolkit is imported here).

A joint range is ``name → (low, high, (part, reference part or None))`` on the parts'
absolute angles (rad), as the machine file's ``[limits]`` and ``[outputs.angles]``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

__all__ = ["TrigFront", "SolverFront", "zoom_extreme", "zoom_ground_reach", "dump_end"]


class TrigFront:
    """An excavator front (:class:`reference.excavator_trig.Excavator`) on grids of lengths
    ``(boom, arm, bucket)``; points ``tip`` (bucket/Q) and ``pin`` (arm/K)."""

    functions = ("boom", "arm", "bucket")

    def __init__(self, ex, limits=None):
        self.ex = ex
        self.limits = dict(limits or {})
        self.bounds = [ex.stroke_limits(f"{f}_cylinder") for f in self.functions]

    def evaluate(self, S: np.ndarray) -> dict:
        """Points and feasibility at lengths ``S`` (N × 3)."""
        s = [S[:, k] for k in range(3)]
        w = self.ex.world(*s)
        a = self.ex.angles(*s)
        ok = np.ones(len(S), bool)
        for lo, hi, (part, ref) in self.limits.values():
            v = a[part] - (a[ref] if ref else 0.0)
            ok &= (v >= lo) & (v <= hi)
        return {"tip": tuple(np.asarray(c, float) for c in w["bucket/Q"]),
                "pin": tuple(np.asarray(c, float) for c in w["arm/K"]), "ok": ok}


class SolverFront:
    """Any machine by its mechanism's pose solver: ``machine`` built for mode
    ``extensions``; ``tip`` and ``pin`` are ``"part/point"`` names."""

    def __init__(self, machine, tip: str, pin: str, limits=None, angle: str | None = None):
        self.m = machine
        self.angle = angle
        self.functions = tuple(machine.functions)
        self.tip, self.pin = tip, pin
        self.limits = dict(limits or {})
        self.bounds = [machine.description.stroke_limits(f) for f in self.functions]
        self.cyl = [machine.cylinder_of[f] for f in self.functions]

    def _track(self, pose, row):
        return self.m.mechanism.track({c: np.array([v]) for c, v in zip(self.cyl, row)}, pose, diagnose=False)[-1]

    def _from_start(self, row):
        start = self.m.start_pose
        path = np.linspace([start.length(c) for c in self.cyl], row, 20)
        return self.m.mechanism.track({c: path[:, i] for i, c in enumerate(self.cyl)}, start, diagnose=False)[-1]

    def evaluate(self, S: np.ndarray) -> dict:
        """Points and feasibility at lengths ``S`` (N × k), solved one pose after the other
        (the rows in a serpentine order, each from its neighbour; from the start pose again
        after a row that does not assemble)."""
        N = len(S)
        tx, ty, px, py, an = (np.full(N, np.nan) for _ in range(5))
        ok = np.zeros(N, bool)
        idx = [np.unique(S[:, j], return_inverse=True) for j in range(S.shape[1])]
        keys, parity = [], np.zeros(N, int)
        for vals, inv in idx:
            keys.append(np.where(parity % 2 == 0, inv, len(vals) - 1 - inv))
            parity = parity + inv
        order = np.lexsort(keys[::-1])
        pose = None
        for j in order:
            p = None
            for attempt in (0, 1):
                try:
                    p = self._track(pose, S[j]) if attempt == 0 and pose is not None else self._from_start(S[j])
                    break
                except Exception:  # noqa: BLE001 - a pose that does not assemble from there
                    p = None
            pose = p
            if p is None:
                continue
            pts = p.points()
            tx[j], ty[j] = pts[self.tip]
            px[j], py[j] = pts[self.pin]
            if self.angle:
                an[j] = p.angle(self.angle)
            good = True
            for lo, hi, (part, ref) in self.limits.values():
                v = p.angle(part) - (p.angle(ref) if ref else 0.0)
                good &= lo <= v <= hi
            ok[j] = good
        return {"tip": (tx, ty), "pin": (px, py), "angle": an, "ok": ok}


def _mesh(axes) -> np.ndarray:
    return np.array(list(itertools.product(*axes)), dtype=float)


def zoom_extreme(front, value, maximise: bool, *, free=None, fixed=None, n0: int = 41, n: int = 13,
                 tol: float = 1e-7):
    """``(best value, lengths)`` of ``value(points)`` over the feasible lengths: the best node
    of a grid of ``n0`` lengths per free stroke, then of grids of ``n`` nodes spanning ±3 of
    the previous steps around it, until the step is below ``tol`` (m). ``fixed``: function
    index → length held.

    Each finer grid has ``n`` nodes over ±3 previous steps: ``n > 7`` makes it finer.
    """
    if n <= 7:
        raise ValueError(f"n = {n}: a zoomed grid of ±3 steps needs more than 7 nodes to be finer")
    k = len(front.bounds)
    fixed = dict(fixed or {})
    free = [i for i in range(k) if i not in fixed] if free is None else list(free)
    lo = np.array([front.bounds[i][0] for i in range(k)])
    hi = np.array([front.bounds[i][1] for i in range(k)])
    axes = [np.linspace(lo[i], hi[i], n0) if i in free else np.array([fixed.get(i, lo[i])]) for i in range(k)]
    sign = 1.0 if maximise else -1.0
    best = None
    while True:
        S = _mesh(axes)
        res = front.evaluate(S)
        v = np.where(res["ok"], sign * np.asarray(value(res), float), -np.inf)
        j = int(np.argmax(v))
        if not np.isfinite(v[j]):
            return best if best is not None else (math.nan, None)
        if best is None or v[j] >= sign * best[0]:
            best = (float(sign * v[j]), S[j].copy())
        step = max(float(a[1] - a[0]) if len(a) > 1 else 0.0 for a in axes)
        if step < tol:
            return best
        c = best[1]
        axes = [np.linspace(max(lo[i], c[i] - 3 * (a[1] - a[0])), min(hi[i], c[i] + 3 * (a[1] - a[0])), n)
                if i in free and len(a) > 1 else a for i, a in enumerate(axes)]


def zoom_ground_reach(front, ground: float, *, n0: int = 41, n: int = 13, tol: float = 1e-7):
    """``(x, lengths)``: the farthest point where the tip crosses the ground — on every grid
    edge where the tip's height changes sign, the crossing by linear interpolation; the
    farthest, then finer grids around it."""
    k = len(front.bounds)
    lo = np.array([b[0] for b in front.bounds])
    hi = np.array([b[1] for b in front.bounds])
    axes = [np.linspace(lo[i], hi[i], n0) for i in range(k)]
    best = None
    while True:
        shape = tuple(len(a) for a in axes)
        S = _mesh(axes)
        res = front.evaluate(S)
        x = res["tip"][0].reshape(shape)
        y = (res["tip"][1] - ground).reshape(shape)
        ok = res["ok"].reshape(shape)
        found = None
        for d in range(k):
            a = [slice(None)] * k
            b = [slice(None)] * k
            a[d], b[d] = slice(0, -1), slice(1, None)
            ya, yb = y[tuple(a)], y[tuple(b)]
            hit = ok[tuple(a)] & ok[tuple(b)] & (ya * yb <= 0) & (ya != yb)
            if not hit.any():
                continue
            t = np.where(hit, ya / np.where(hit, ya - yb, 1.0), 0.0)
            xc = np.where(hit, x[tuple(a)] + t * (x[tuple(b)] - x[tuple(a)]), -np.inf)
            idx = np.unravel_index(int(np.argmax(xc)), xc.shape)
            if found is None or xc[idx] > found[0]:
                L = np.array([axes[i][idx[i]] for i in range(k)])
                L[d] += t[idx] * (axes[d][idx[d] + 1] - axes[d][idx[d]])
                found = (float(xc[idx]), L)
        if found is None:
            return best if best is not None else (math.nan, None)
        best = found
        step = max(float(a[1] - a[0]) for a in axes)
        if step < tol:
            return best
        c = best[1]
        axes = [np.linspace(max(lo[i], c[i] - 3 * (a[1] - a[0])), min(hi[i], c[i] + 3 * (a[1] - a[0])), n)
                for i, a in enumerate(axes)]


def dump_end(front, lengths, tool: int, retract: bool = True, iters: int = 60) -> float:
    """The tool cylinder's length at the dump end of its range with the others at ``lengths``:
    its stroke end (retracted) when that pose is feasible, else where the joint range stops it
    (bisection between the stroke end and the nearest feasible length of a fine scan)."""
    lo, hi = front.bounds[tool]
    s = np.linspace(lo, hi, 2001)
    S = np.tile(np.asarray(lengths, float), (len(s), 1))
    S[:, tool] = s
    ok = front.evaluate(S)["ok"]
    if not ok.any():
        return math.nan
    j = int(np.argmax(ok)) if retract else len(ok) - 1 - int(np.argmax(ok[::-1]))
    if (retract and j == 0) or (not retract and j == len(s) - 1):
        return float(s[j])
    a, b = (s[j - 1], s[j]) if retract else (s[j + 1], s[j])      # a infeasible, b feasible
    for _ in range(iters):
        mid = 0.5 * (a + b)
        row = np.asarray(lengths, float).copy()
        row[tool] = mid
        if front.evaluate(row[None, :])["ok"][0]:
            b = mid
        else:
            a = mid
    return float(b)
