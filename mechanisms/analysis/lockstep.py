"""Points of a sweep run side by side, their kinematics solved in one batch.

A tool-force analysis refines each optimum with L-BFGS-B from the grid's best pose; every
iteration solves the linkage at a handful of scattered lengths (the point and its central
differences). On its own, such a solve is a few batched Newton steps on seven rows: its
cost is the steps', not the rows'. :class:`Lockstep` runs the analyses of several design
points of one geometry in threads that take turns (one runs at a time, holding the baton),
and when every one of them is waiting for a solve, the last to ask solves all their rows
in one call of :meth:`BoxKinematics.solve <.kinematics.BoxKinematics.solve>` and hands each
its rows. Each point keeps its own optimiser, its own start and its own path: a solve's
rows do not depend on each other (Newton freezes each row once it has converged), so each
point gets the numbers it would get alone.

Outside :func:`solve_kinematics`'s lockstep (no :class:`Lockstep` running) the solve is
the ordinary one.

Examples
--------
Three "points" each asking for two solves: two batched solves of the three instead of six:

>>> import numpy as np
>>> from mechanisms.machine import DATA
>>> from mechanisms.analysis import Study
>>> s = Study(DATA / "excavator.toml")
>>> grid = s.grid(5)
>>> def job(k):
...     L = {c: np.full(1, grid.axes[c][k]) for c in grid.cylinders}
...     a, _ = solve_kinematics(s.kinematics, L, grid)
...     b, _ = solve_kinematics(s.kinematics, {c: v + 0.01 for c, v in L.items()}, grid)
...     return float(a["bucket"][0]), float(b["bucket"][0])
>>> ls = Lockstep()
>>> together = ls.run([lambda k=k: job(k) for k in (1, 2, 3)])
>>> together == [job(k) for k in (1, 2, 3)], ls.batches
(True, 2)
"""

from __future__ import annotations

import contextvars
import threading
from typing import Any, Callable, Sequence

import numpy as np

__all__ = ["Lockstep", "solve_kinematics"]

_ACTIVE: contextvars.ContextVar = contextvars.ContextVar("hydrobond lockstep", default=None)


def solve_kinematics(kin, lengths, grid, memo: dict | None = None) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """``kin.solve(lengths, near=grid, limits=False, memo=memo)``, in one batch with the other
    points of a running :class:`Lockstep` (alone otherwise).

    Parameters
    ----------
    kin : BoxKinematics
    lengths : mapping
        Cylinder → lengths (m).
    grid : BoxGrid
    memo : dict, optional
        The blocks solved before in this analysis (:meth:`BoxKinematics.solve
        <.kinematics.BoxKinematics.solve>`), used when solving alone; a batch solves its rows
        afresh (the same numbers).

    Returns
    -------
    (dict, ndarray of bool)

    Examples
    --------
    See the module.
    """
    ls = _ACTIVE.get()
    if ls is None:
        return kin.solve(lengths, near=grid, limits=False, memo=memo)
    return ls._solve(kin, lengths, grid)


class _Request:
    __slots__ = ("kin", "lengths", "grid", "result")

    def __init__(self, kin, lengths, grid):
        self.kin, self.lengths, self.grid, self.result = kin, lengths, grid, None


class Lockstep:
    """Jobs run in threads that take turns; their kinematic solves batched (see the module).

    Attributes
    ----------
    batches : int
        Batched solves made.
    requests : int
        Solves asked for.

    Examples
    --------
    See the module.
    """

    def __init__(self):
        self._cv = threading.Condition(threading.Lock())
        self._running = 0
        self._pending: list[_Request] = []
        self._enter: Callable[[], None] = lambda: None
        self.batches = 0
        self.requests = 0

    def run(self, jobs: Sequence[Callable[[], Any]], enter: Sequence[Callable[[], None]] | None = None) -> list:
        """Run ``jobs`` side by side; each job's result, or the exception it raised.

        Parameters
        ----------
        jobs : sequence of callables
            Each run in its own thread (with a copy of the caller's context).
        enter : sequence of callables, optional
            ``enter[i]()`` whenever job ``i`` takes the baton (before it first runs and after
            each batch): what it shares with the others set to its own values (a compiled
            model's parameters).

        Returns
        -------
        list
            Per job: its return value or the exception it raised.
        """
        out: list[Any] = [None] * len(jobs)
        self._running = len(jobs)
        enter = list(enter) if enter is not None else [lambda: None] * len(jobs)

        def body(i):
            token = _ACTIVE.set(self)
            with self._cv:
                try:
                    self._enter = enter[i]
                    enter[i]()
                    out[i] = jobs[i]()
                except BaseException as exc:  # noqa: BLE001 - handed back to the caller
                    out[i] = exc
                finally:
                    self._running -= 1
                    if self._pending and len(self._pending) == self._running:
                        self._flush()
                    _ACTIVE.reset(token)

        threads = [threading.Thread(target=contextvars.copy_context().run, args=(body, i), daemon=True)
                   for i in range(len(jobs))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return out

    def _solve(self, kin, lengths, grid):
        """Called by a job holding the baton: wait for the batch, take the baton back."""
        req = _Request(kin, {c: np.atleast_1d(np.asarray(lengths[c], dtype=float)) for c in kin.cylinders},
                       grid)
        self.requests += 1
        mine = self._enter
        self._pending.append(req)
        if len(self._pending) == self._running:
            self._flush()
        while req.result is None:
            self._cv.wait()
        self._enter = mine
        mine()                      # the baton is back: this job's own values in the shared things
        if isinstance(req.result, Exception):
            raise req.result
        return req.result

    def _flush(self) -> None:
        """Solve every pending request, one batch per kinematics and grid; wake them all."""
        pending, self._pending = self._pending, []
        groups: dict[tuple, list[_Request]] = {}
        for r in pending:
            groups.setdefault((id(r.kin), id(r.grid)), []).append(r)
        for reqs in groups.values():
            kin, grid = reqs[0].kin, reqs[0].grid
            sizes = [max(len(v) for v in r.lengths.values()) for r in reqs]
            L = {c: np.concatenate([np.broadcast_to(r.lengths[c], (n,)) for r, n in zip(reqs, sizes)])
                 for c in kin.cylinders}
            try:
                ang, ok = kin.solve(L, near=grid, limits=False)
            except Exception as exc:  # noqa: BLE001 - each job that asked raises it
                for r in reqs:
                    r.result = exc
                continue
            self.batches += 1
            start = 0
            for r, n in zip(reqs, sizes):
                sl = slice(start, start + n)
                r.result = ({u: np.asarray(v)[sl] for u, v in ang.items()}, ok[sl])
                start += n
        self._cv.notify_all()
