"""Tool forces (ISO 6015, calculation method) of any machine, on a stroke grid and at the optimum.

The tool force of a function (the arm cylinder's, the bucket cylinder's) is the force
the tool point (the bucket lip) exerts along its own path when that cylinder alone
works and the others hold: tangent to the arc the lip describes about the arm pivot
or the bucket pivot. By virtual work with the bond graph's velocity ratio
``v = ∂P/∂s`` (the lip's velocity per unit extension rate, :mod:`.statics`):

* **hydraulic limit**: the cylinder at the maximum relief circuit pressure,
  ``F = (F_cyl − σ·F_hold)/|v|``, where ``F_cyl`` is the pushing force (cap side at
  relief, rod side at tank: ``p_r·A_cap − p_t·A_rod``) for a digging stroke that
  extends (``σ = +1``) or the pulling force for one that retracts (``σ = −1``), and
  ``F_hold`` the force that holds the front's own weight (only with
  ``weights=True``; the rated figures of the calculation method leave the weights of
  the equipment out, which is the default here);
* **tipping limit** (when the file has ``[base]``): the force whose reaction on the
  machine at the lip, with the weights of the base and of the front (the front's from
  the chassis reactions of the bond graph), turns the machine over its front or rear
  tipping line;
* the **tool force** is the smaller, and the table says which limit governs.

Every grid pose is evaluated (50 lengths per stroke by default) with one batched call
of the compiled model per function; the optimum pose of each function is then refined
continuously from the grid's best.

Examples
--------
>>> from mechanisms.machine import DATA
>>> tf = tool_forces(DATA / "excavator.toml", n=20, functions=("arm", "bucket"))
>>> round(tf.summary()["bucket_tool_force"] / 1e3, 1)         # kN at the hydraulic optimum
78.3
>>> tf.optimum["bucket"]["governing"].limit
'hydraulic'
"""

from __future__ import annotations

import contextvars
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from bondgraph.errors import ParameterError

from .base import BaseMachine
from .optimise import limit_values, refine
from .progress import reports_progress
from .result import AnalysisResult, save_figure
from .lockstep import solve_kinematics
from .reuse import memoised, statics_key
from .statics import cylinder_force_limits
from .study import Study
from .threads import one_blas_thread
from .reach import envelope, tool_point

__all__ = ["tool_forces", "ToolForces", "ToolForceAt", "LIMITS"]

#: limit codes of the ``limit`` arrays
LIMITS = ("hydraulic", "tipping over the front", "tipping over the rear")


@dataclass
class ToolForceAt:
    """The tool force of one function at its optimum pose.

    Attributes
    ----------
    function : str
    kind : {"hydraulic", "governing"}
        The optimum of the hydraulic limit alone, or of the governing (smaller) one.
    force : float
        N.
    limit : str
        Which limit governs there (one of :data:`LIMITS`).
    hydraulic, tipping : float
        The two limits there (N; tipping ``inf`` without ``[base]``).
    point : (float, float)
        The tool point (m).
    direction : (float, float)
        Unit direction of the force on the soil: along the point's path.
    lengths : dict
        Function → cylinder length (m).
    refined : bool

    Examples
    --------
    By virtual work the hydraulic limit times the lip's velocity per unit cylinder rate
    is the cylinder force, ``p_r·A_cap − p_t·A_rod`` (here computed from the file):

    >>> import math
    >>> import numpy as np
    >>> from mechanisms.machine import DATA
    >>> study = Study(DATA / "excavator.toml")
    >>> tf = tool_forces(study, n=20, functions=["bucket"])
    >>> o = tf.optimum["bucket"]["hydraulic"]
    >>> desc = study.description
    >>> cyl = desc.parts[desc.cylinder_of["bucket"]].values
    >>> f_cyl = tf.pressures["relief"]["bucket"] * cyl["count"] * math.pi * cyl["bore"] ** 2 / 4
    >>> L = {desc.cylinder_of[f]: np.array([v]) for f, v in o.lengths.items()}
    >>> angles, ok = study.kinematics.solve(L, near=tf.grid)
    >>> X = study.kinematics.states(study.statics.model, angles, L, shape=(1,))
    >>> vx, vy = study.statics.evaluate(X, points=[("bucket", "Q")], functions=["bucket"]).velocity[("bucket", "Q")]["bucket"]
    >>> bool(abs(o.hydraulic * math.hypot(vx[0], vy[0]) / f_cyl - 1) < 1e-9), o.limit
    (True, 'hydraulic')
    """

    function: str
    kind: str                       # "hydraulic" (relief alone) or "governing" (with tipping)
    force: float                    # N
    limit: str                      # which limit governs there
    hydraulic: float                # N, the hydraulic limit there
    tipping: float                  # N, the tipping limit there (inf without [base])
    point: tuple[float, float]      # the tool point (m)
    direction: tuple[float, float]  # unit direction of the force on the soil
    lengths: dict[str, float]       # function → cylinder length (m)
    refined: bool
    free: tuple[str, ...] = ()      # functions the force does not depend on: set where tipping is worst

    @property
    def convention(self) -> str:
        """The standard the figure follows."""
        if self.kind == "sae_j1179":
            return "SAE J1179 (the bucket held at its largest moment)"
        return "ISO 6015 (every cylinder at its optimum)" if self.kind == "hydraulic" else \
            "ISO 6015, tipping included"

    def remark(self) -> str:
        """What the posture assumes: the free directions and where they are set."""
        if not self.free:
            return ""
        return (f"the force does not depend on {', '.join(self.free)}: set where tipping is worst "
                "(the tipping limit is its least over their strokes)")


def _tool_functions(study, part: str, pt: str) -> list[str]:
    """Functions that turn the tool only (move the tool point, not the pin it turns about)."""
    kin = study.kinematics
    if kin.parent[part] is None:
        return []
    pin_moving = set(study.moving_functions(*kin.parent[part]))
    return [f for f in study.moving_functions(part, pt) if f not in pin_moving]


def _iso_functions(study, part: str, pt: str) -> list[str]:
    """The ISO 6015 functions: those that move the tool point but not the root pin of the
    part that carries the tool (the arm's pivot on the boom): an excavator's arm and
    bucket, not its boom."""
    kin = study.kinematics
    moving = study.moving_functions(part, pt)
    if kin.parent[part] is None:
        return moving
    arm = kin.parent[part][0]
    arm_root = kin.parts[arm].root.name
    excluded = set(study.moving_functions(arm, arm_root))
    return [f for f in moving if f not in excluded]


def _free_directions(hyd: np.ndarray, grid, own: str) -> list[str]:
    """The cylinders along whose axis the hydraulic limit does not change on the grid (to
    1e-9 of its largest value): the directions the optimum does not fix."""
    out = []
    top = np.nanmax(np.abs(hyd))
    for i, c in enumerate(grid.cylinders):
        if c == own or hyd.shape[i] < 2:
            continue
        d = np.diff(hyd, axis=i)
        if np.all(~np.isfinite(d) | (np.abs(d) <= 1e-9 * top)):
            out.append(c)
    return out


def _worst_tipping(probe, f, e, free, grid, tipping_map, refine_optimum):
    """The optimum ``e`` moved along the free directions to where the tipping limit is least
    (the grid's least along them from the optimum's nearest node, refined)."""
    sub = tuple(slice(None) if c in free else int(np.argmin(np.abs(grid.axes[c] - e.lengths[c])))
                for c in grid.cylinders)
    vals = np.where(np.isfinite(tipping_map[sub]) | (tipping_map[sub] == np.inf), tipping_map[sub], np.inf)
    k = iter(np.unravel_index(int(np.argmin(vals)), vals.shape))
    start = {c: (float(grid.axes[c][next(k)]) if c in free else e.lengths[c]) for c in grid.cylinders}
    w = refine(probe, lambda p: p[f"{f}/tipping"], start, vary=free, optimise=refine_optimum)
    if not np.isfinite(w.value) and np.isfinite(e.points[f"{f}/tipping"]):
        return e
    return type(e)(w.value, w.lengths, w.points, e.refined and w.refined, max(e.bound, w.bound), w.active)


class ToolForces(AnalysisResult):
    """Tool forces of a machine (see :func:`tool_forces`).

    Attributes
    ----------
    study, grid
    functions : tuple of str
    direction : dict
        Function → ``+1`` (digging stroke extends) or ``−1`` (retracts).
    pressures : dict
        ``relief``/``tank`` per function (Pa) and their ``source``.
    maps : dict
        Function → ``{"hydraulic", "tipping", "force", "limit"}``: arrays over the grid
        (N; ``limit`` indexes :data:`LIMITS`).
    tip : tuple of ndarray
        The tool point over the grid.
    optimum : dict
        Function → ``{"hydraulic": ToolForceAt, "governing": ToolForceAt}``.
    timings : dict

    Examples
    --------
    >>> from mechanisms.machine import DATA
    >>> tf = tool_forces(DATA / "excavator.toml", n=20, functions=["bucket"])
    >>> sorted(tf.summary()), tf.summary_units["bucket_tool_force"]
    (['bucket_tipping_limit', 'bucket_tool_force', 'bucket_tool_force_governing'], 'N')
    >>> tf.maps["bucket"]["force"].shape == tf.grid.shape
    True
    """

    name = "tool-forces"

    def __init__(self, study, grid, functions, direction, pressures, weights, base, maps, tip, optimum,
                 timings, point):
        self.study, self.grid = study, grid
        self.functions = tuple(functions)
        self.direction = direction
        self.pressures = pressures
        self.weights = weights
        self.base = base
        self.maps = maps
        self.tip = tip
        self.optimum = optimum
        self.timings = timings
        self.point = point

    @property
    def summary_units(self) -> dict[str, str]:
        """Newton for every :meth:`summary` entry."""
        return {k: "N" for k in self.summary()}

    def summary(self) -> dict[str, float]:
        """``<f>_tool_force`` (ISO 6015, hydraulic limit), ``<f>_tool_force_governing`` (with
        tipping, when there is a ``[base]``), ``<f>_tool_force_sae_j1179`` (the arm with the
        bucket held, SAE J1179) and ``<f>_tipping_limit`` (the tipping limit at the hydraulic
        optimum, its least over the directions the force does not depend on), N."""
        out = {}
        for f in self.functions:
            out[f"{f}_tool_force"] = self.optimum[f]["hydraulic"].force
            if self.base is not None:
                out[f"{f}_tool_force_governing"] = self.optimum[f]["governing"].force
                out[f"{f}_tipping_limit"] = self.optimum[f]["hydraulic"].tipping
            if "sae_j1179" in self.optimum[f]:
                out[f"{f}_tool_force_sae_j1179"] = self.optimum[f]["sae_j1179"].force
        return out

    def table(self):
        """One row per function and optimum: force, limits, point, direction, posture."""
        import pandas as pd

        desc = self.study.description
        rows = []
        for f in self.functions:
            for kind, o in self.optimum[f].items():
                if kind == "governing" and self.base is None:
                    continue
                row = {"function": f, "optimum": kind, "convention": o.convention, "tool_force": o.force,
                       "limit": o.limit,
                       "hydraulic_limit": o.hydraulic, "tipping_limit": o.tipping,
                       "x": o.point[0], "y": o.point[1], "direction_x": o.direction[0],
                       "direction_y": o.direction[1],
                       "stroke": "extends" if self.direction[f] > 0 else "retracts",
                       "relief": self.pressures["relief"][f], "tank": self.pressures["tank"][f]}
                row.update({f"{g}_length": o.lengths[g] for g in desc.functions})
                row["note"] = o.remark()
                rows.append(row)
        df = pd.DataFrame(rows)
        df.attrs["units"] = {"tool_force": "N", "hydraulic_limit": "N", "tipping_limit": "N", "x": "m", "y": "m",
                             "relief": "Pa", "tank": "Pa", **{f"{g}_length": "m" for g in desc.functions}}
        return df

    def plot(self, path: str | Path | None = None, ax: Any = None, *, cell: float = 0.1):
        """For each function, the largest tool force reachable at each place of the working
        range (``cell`` m squares), the envelope, the optimum pose drawn, and where tipping
        governs (hatched).

        Parameters
        ----------
        path : str or Path, optional
            A file name.
        ax : object, optional
        cell : float, optional
        """
        import matplotlib.pyplot as plt

        n = len(self.functions)
        fig, axes = plt.subplots(1, n, figsize=(6.2 * n, 6.0), squeeze=False)
        x, y = self.tip
        ok = np.isfinite(x) & np.isfinite(y)
        env = envelope(self.grid, x, y)
        x0, y0 = float(np.nanmin(x)) - cell, float(np.nanmin(y)) - cell
        ix = ((x[ok] - x0) / cell).astype(int)
        iy = ((y[ok] - y0) / cell).astype(int)
        shape = (iy.max() + 2, ix.max() + 2)
        kin = self.study.kinematics
        xe = x0 + cell * np.arange(shape[1] + 1)
        ye = y0 + cell * np.arange(shape[0] + 1)
        xc, yc = np.meshgrid(0.5 * (xe[1:] + xe[:-1]), 0.5 * (ye[1:] + ye[:-1]))
        from matplotlib.path import Path as MplPath

        inside = MplPath(env).contains_points(np.column_stack([xc.ravel(), yc.ravel()])).reshape(shape)
        for a, f in zip(axes[0], self.functions):
            m = self.maps[f]
            force = np.where(np.isfinite(m["force"][ok]), m["force"][ok], -np.inf)
            order = np.argsort(force, kind="stable")      # the best pose of a cell is written last
            img = np.full(shape, -np.inf)
            code = np.zeros(shape)
            img[iy[order], ix[order]] = force[order]
            code[iy[order], ix[order]] = m["limit"][ok][order]
            from scipy import ndimage

            gaps = ~np.isfinite(img) & inside              # cells the grid's points missed
            img = np.where(gaps, ndimage.maximum_filter(img, 3), img)
            code = np.where(gaps, ndimage.maximum_filter(code, 3), code)
            img[~np.isfinite(img)] = np.nan
            tipped = (code > 0).astype(float)
            pc = a.pcolormesh(xe, ye, img / 1e3, cmap="viridis", shading="flat")
            fig.colorbar(pc, ax=a, shrink=0.8, label=f"{f} tool force [kN] (best at each place)")
            if self.base is not None and tipped.any():
                a.contourf(xc, yc, np.where(np.isnan(img), np.nan, tipped), levels=[0.5, 1.5],
                           hatches=["///"], colors="none")
            a.plot(env[:, 0], env[:, 1], color="k", lw=0.8)
            o = self.optimum[f]["governing" if self.base is not None else "hydraulic"]
            poses = _postures(self, o.lengths)
            for name, part in kin.parts.items():
                for line in part.sketch(poses[name]):
                    xs, ys = zip(*line)
                    a.plot(xs, ys, color="tab:red", lw=1.4, alpha=0.8)
            a.annotate("", xy=(o.point[0] + 0.9 * o.direction[0], o.point[1] + 0.9 * o.direction[1]),
                       xytext=o.point, arrowprops=dict(arrowstyle="->", color="tab:red", lw=2))
            a.plot(*o.point, "o", color="tab:red")
            a.set_title(f"{f} cylinder: {o.force / 1e3:.1f} kN at the optimum ({o.limit})", fontsize=10)
            g = self.study.description.ground
            if g is not None:
                a.axhline(g, color="saddlebrown", lw=1)
            a.set_aspect("equal")
            a.set_xlabel("x [m]")
            a.set_ylabel("y [m]")
            a.grid(True, alpha=0.3)
        rel = self.pressures["relief"]
        fig.suptitle(f"{self.study.description.name}: tool forces at the {self.point} (ISO 6015 calculation, "
                     f"relief {max(rel.values()) / 1e5:.0f} bar"
                     + (", tipping limit hatched" if self.base is not None else ", no [base]: hydraulic limit")
                     + ")", fontsize=11)
        fig.tight_layout()
        return save_figure(fig, path)

    def at(self, lengths: Mapping[str, Any]) -> dict[str, dict[str, np.ndarray]]:
        """Tool forces at scattered poses: ``lengths`` is function → cylinder lengths (m).

        Parameters
        ----------
        lengths : mapping
            Every function → lengths (m), arrays of one length.

        Returns
        -------
        dict
            Function → arrays ``hydraulic``, ``tipping``, ``force``, ``limit``...

        Raises
        ------
        ParameterError
            A function missing.

        Examples
        --------
        >>> from mechanisms.machine import DATA
        >>> tf = tool_forces(DATA / "excavator.toml", n=20, functions=["bucket"])
        >>> o = tf.optimum["bucket"]["hydraulic"]
        >>> at = tf.at({f: [v] for f, v in o.lengths.items()})
        >>> bool(abs(at["bucket"]["hydraulic"][0] - o.hydraulic) < 1e-6)
        True
        """
        desc = self.study.description
        L = {desc.cylinder_of[f]: np.atleast_1d(np.asarray(v, dtype=float)) for f, v in lengths.items()}
        missing = [f for f in desc.functions if f not in lengths]
        if missing:
            raise ParameterError(f"tool forces at given lengths: missing {', '.join(missing)}")
        return _evaluate(self.study, self.grid, L, self.functions, self.direction, self.pressures,
                         self.weights, self.base, self.point)


def _postures(res, lengths):
    desc = res.study.description
    kin = res.study.kinematics
    L = {desc.cylinder_of[f]: np.array([v]) for f, v in lengths.items()}
    ang, _ = kin.solve(L, near=res.grid)
    poses, _ = kin.forward(ang, L)
    return {n: tuple(float(np.asarray(v).ravel()[0]) for v in p) for n, p in poses.items()}


def _first_least(rows: np.ndarray) -> np.ndarray:
    """``np.argmin(rows, axis=0)`` of rows without NaN (the first row on a tie), by strict
    comparisons row after row: the same codes, without argmin's strided pass over the columns."""
    code = np.zeros(rows.shape[1], dtype=np.intp)
    least = rows[0]
    for i in range(1, len(rows)):
        smaller = rows[i] < least
        code[smaller] = i
        least = np.minimum(least, rows[i])
    return code


def _over(v, shape: tuple[int]) -> np.ndarray:
    """``v`` (N values, or one shared) as an array of ``shape = (N,)`` (itself when it is one)."""
    a = np.asarray(v, dtype=float)
    if a.shape == shape:
        return a
    return np.broadcast_to(a.reshape(-1) if a.size == shape[0] else v, shape)


@memoised      # a sweep reuses an evaluation whose inputs are all the same (mechanisms.analysis.reuse)
def _evaluate(study, grid, L, functions, direction, pressures, weights, base, point, angles=None):
    """Tool forces at poses (lengths ``L``: cylinder → arrays): a dict per function of
    arrays ``hydraulic``, ``tipping``, ``force``, ``limit``, ``dx``, ``dy`` and ``tip``."""
    return _evaluate_at(study, grid, L, functions, direction, pressures, weights, base, point, angles)


@memoised      # a sweep reuses the maps whose inputs are all the same (the key: the grid's lengths, no angles)
def _evaluate_grid(study, grid, L, functions, direction, pressures, weights, base, point):
    """:func:`_evaluate` at every pose of ``grid`` (``L``: its flattened lengths): the tool point
    and the model's states made from the grid's own axes (each part's angle over the lengths it
    depends on: the same numbers as over every pose, a fraction of the work)."""
    kin = study.kinematics
    _, part, pt = tool_point(study.description, point)
    _, pts = kin.forward(grid.angles, grid.lengths(), points=[f"{part}/{pt}"])
    tip = tuple(np.broadcast_to(v, grid.shape).ravel() for v in pts[f"{part}/{pt}"])
    X = kin.states(study.statics.model, grid.angles, grid.lengths(), shape=grid.shape)
    return _evaluate_at(study, grid, L, functions, direction, pressures, weights, base, point, None, tip, X)


def _evaluate_at(study, grid, L, functions, direction, pressures, weights, base, point, angles=None, tip=None,
                 X=None):
    """Tool forces at poses (lengths ``L``: cylinder → arrays): a dict per function of
    arrays ``hydraulic``, ``tipping``, ``force``, ``limit``, ``dx``, ``dy`` and ``tip``
    (given with ``X``: the tool point and the model's states at the poses, flat)."""
    desc = study.description
    kin = study.kinematics
    _, part, pt = tool_point(desc, point)
    N = max(np.size(v) for v in L.values())
    shape = (N,)
    if X is None:
        if angles is None:
            angles, ok = kin.solve(L, near=grid)
        Lf = {c: _over(v, shape) for c, v in L.items()}
        ang = {u: _over(v, shape) for u, v in angles.items()}
        X = kin.states(study.statics.model, ang, Lf, shape=shape)
        _, pts = kin.forward(ang, Lf, points=[f"{part}/{pt}"])
        tip = pts[f"{part}/{pt}"]
    px, py = (v if np.shape(v) == shape else np.broadcast_to(v, shape) for v in tip)
    st = _statics_at(study, X, ((part, pt),), tuple(functions))
    out: dict[str, Any] = {"tip": (px, py)}
    M0 = {}
    if base is not None:
        for which in ("front", "rear"):
            if which == "front" or base.rear is not None:
                M0[which] = base.tipping_moment(which) + base.front_moment(which, st)
    for f in functions:
        vx, vy = st.velocity[(part, pt)][f]
        speed = np.hypot(vx, vy)
        sigma = direction[f]
        push, pull = cylinder_force_limits(desc.areas(f), pressures["relief"][f], pressures["tank"][f])
        fmax = push if sigma > 0 else pull
        hold = st.holding[f] if weights else 0.0
        moves = speed > 1e-12
        with np.errstate(divide="ignore", invalid="ignore"):
            hyd = np.where(moves, np.maximum(fmax - sigma * hold, 0.0) / speed, np.nan)
            dx = np.where(moves, sigma * vx / speed, np.nan)
            dy = np.where(moves, sigma * vy / speed, np.nan)
        limits = [hyd]
        soil = (-dx, -dy) if M0 else None       # the soil pushes back on the lip
        for which in ("front", "rear"):
            if which not in M0:
                limits.append(np.full(shape, np.inf))
                continue
            m = base.load_moment(which, px, py, *soil)
            with np.errstate(divide="ignore", invalid="ignore"):
                lim = np.where(M0[which] >= 0, 0.0, np.where(m > 0, -M0[which] / m, np.inf))
            limits.append(lim)
        stack = np.vstack(limits)
        finite = np.where(np.isnan(stack), np.inf, stack)
        code = _first_least(finite)
        force = np.where(np.isnan(hyd), np.nan, np.min(finite, axis=0))
        out[f] = {"hydraulic": hyd, "tipping": np.minimum(limits[1], limits[2]), "force": force,
                  "limit": code, "dx": dx, "dy": dy}
    return out


@memoised(key=statics_key)  # a sweep shares the statics of a grid between points that differ in bores only
def _statics_at(study, X, points, functions):
    """The statics of the front at the states ``X`` (:meth:`.statics.FrontStatics.evaluate`)."""
    return study.statics.evaluate(X, points=list(points), functions=list(functions))


class _Probe:
    """Tool forces at scattered lengths, for :func:`~.optimise.refine`."""

    def __init__(self, res_args, only: str):
        self.args = res_args
        self.kin = res_args[0].kinematics
        self.only = only

    def at(self, lengths):
        study, grid, _, direction, pressures, weights, base, point = self.args
        L = {c: np.atleast_1d(np.asarray(v, dtype=float)) for c, v in lengths.items()}
        return _probe_at(study, grid, L, (self.only,), direction, pressures, weights, base, point)


#: the kinematic blocks the probes of the running tool-force analysis have solved (one memo per
#: :func:`tool_forces` call, :meth:`BoxKinematics.solve`'s ``memo``)
_BLOCKS: contextvars.ContextVar = contextvars.ContextVar("tool-force probes' kinematic blocks", default=None)


@memoised      # a sweep reuses a probe whose inputs are all the same (mechanisms.analysis.reuse)
def _probe_at(study, grid, L, functions, direction, pressures, weights, base, point):
    """:meth:`_Probe.at`: the tool forces of ``functions`` at lengths ``L``."""
    angles, ok = solve_kinematics(study.kinematics, L, grid, memo=_BLOCKS.get())   # limits=False: refine's constraints
    ev = _evaluate_at(study, grid, L, functions, direction, pressures, weights, base, point, angles)
    vals: dict[str, Any] = {"tip": ev["tip"], **limit_values(angles, grid)}
    for f in functions:
        for k in ("hydraulic", "force", "tipping", "limit"):
            vals[f"{f}/{k}"] = np.where(ok, ev[f][k], np.nan) if k != "limit" else ev[f][k]
        vals[f"{f}/direction"] = (ev[f]["dx"], ev[f]["dy"])
    return vals, ok & np.all([np.isfinite(ev[f]["hydraulic"]) for f in functions], axis=0)


@one_blas_thread
@reports_progress("tool forces")
def tool_forces(machine: Any, *, functions: Sequence[str] | None = None,
                direction: str | Mapping[str, str] = "extend", relief: Any = None, tank: Any = None,
                n: int | Mapping[str, int] = 50, point: str | None = None, weights: bool = False,
                tipping: bool | None = None, refine_optimum: bool = True, generic: bool = False,
                progress: bool = True) -> ToolForces:
    """ISO 6015 tool forces of an excavator (any machine of the description format with
    ``generic=True``).

    Parameters
    ----------
    machine : path, MachineDescription, Machine or Study
    functions : sequence of str, optional
        The cylinders whose tool forces are wanted. Default: the ISO 6015 ones, those that
        move the tool point but not the arm's pivot (an excavator's arm and bucket; the
        boom's is no ISO quantity: ask for it by name); with ``generic=True`` every function
        that moves the tool point.
    direction : "extend", "retract" or dict
        The digging stroke of each function (default: extending, as a backhoe's arm
        crowds and its bucket curls).
    relief, tank : pressure with unit, or dict function → pressure, optional
        Default: the circuit's relief cracking pressure and its tank pressure.
    n : int or dict
        Lengths per stroke of the grid.
    point : str, optional
        ``[outputs.points]`` entry where the force acts (default the first: the lip).
    weights : bool
        Subtract the front's own weight from the cylinder force (default False, as rated
        figures are given).
    tipping : bool, optional
        Include the tipping limit (default: when the file has ``[base]``; True without
        ``[base]`` is an error).
    refine_optimum : bool
        Refine each optimum continuously from the grid's best (default).
    generic : bool
        Compute the tool forces (force along the tool point's path by virtual work) of a
        machine that is not an excavator — a loader, a crane — which ISO 6015 does not rate
        (a loader's are its ISO 14397-2 breakout forces, :func:`.breakout_forces`).
    progress : bool
        A progress bar over the stroke grid's poses once the work has taken a second
        (:mod:`mechanisms.analysis.progress`); ``False`` silences it.

    Returns
    -------
    ToolForces
        ``optimum[f]`` holds, per function: ``"hydraulic"`` (ISO 6015, the largest force at
        the relief pressure over every pose), ``"governing"`` (the largest with the tipping
        limit too) and, for the arm of an excavator, ``"sae_j1179"`` (SAE J1179: the bucket
        held where its own cylinder gives its largest moment, the arm and boom at their
        best). Where the force does not depend on a cylinder (the bucket's on the boom and
        the arm, without weights) the optimum pose does not fix it: its tipping limit is
        reported at its worst over those strokes (``ToolForceAt.free`` names them).

    Raises
    ------
    ParameterError
        Unknown functions, a bad direction, no relief pressure, ``tipping=True`` without
        ``[base]``, a tool point the function does not move, a machine that is not an
        excavator without ``generic=True``.

    Examples
    --------
    See the module, :class:`ToolForces` and :class:`ToolForceAt`. A name that is no function
    is refused with the machine's functions:

    >>> from mechanisms.machine import DATA
    >>> tool_forces(DATA / "excavator.toml", n=5, functions=["stick"])      # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: ...'stick'...
    """
    study = Study.of(machine)
    desc = study.description
    if desc.kind != "excavator" and not generic:
        hint = ("its digging forces are the ISO 14397-2 breakout forces: breakout_forces(...), "
                "hydrobond analyse --analysis breakout-forces" if desc.kind == "loader" else
                "a crane's is its lift capacity: lift_capacity(...)")
        raise ParameterError(f"tool forces: ISO 6015 rates the tool forces of excavators; {desc.name!r} is a "
                             f"{desc.kind} ([machine] kind = {desc.kind!r}): {hint}; in Python, tool_forces(..., "
                             "generic=True) computes the force along the tool point's path anyway")
    name, part, pt = tool_point(desc, point)
    if functions is None:   # ISO 6015: not the boom; generic: those that move the tool point
        functions = study.moving_functions(part, pt) if desc.kind != "excavator" else \
            _iso_functions(study, part, pt)
    functions = tuple(functions)
    problems = [f"tool force of {f!r}: not a function of {desc.name!r} ({', '.join(desc.functions)})"
                for f in functions if f not in desc.functions]
    dirs = direction if isinstance(direction, Mapping) else {f: direction for f in functions}
    for f, d in dirs.items():
        if d not in ("extend", "retract"):
            problems.append(f"digging direction of {f!r}: {d!r}, expected 'extend' or 'retract'")
        if f not in desc.functions and isinstance(direction, Mapping):
            problems.append(f"digging direction for {f!r}: not a function of {desc.name!r}")
    if not functions:
        problems.append(f"tool forces: no functions given, or none moves the {name} ({part}.{pt})")
    if problems:
        raise ParameterError(problems, subject="tool forces")
    sigma = {f: (1.0 if dirs.get(f, "extend") == "extend" else -1.0) for f in functions}
    if tipping and desc.base is None:
        BaseMachine.of(desc)  # the named error
    base = BaseMachine.of(desc) if (desc.base is not None and tipping is not False) else None
    pressures = study.pressures(relief, tank)
    T = time.perf_counter()
    grid = study.grid(n)
    t_grid = time.perf_counter() - T
    T = time.perf_counter()
    flat = grid.flat_lengths()
    ev = _evaluate_grid(study, grid, flat, functions, sigma, pressures, weights, base, name)
    ok = grid.ok.ravel()
    every = bool(ok.all())

    def masked(v):
        """NaN where the grid has no pose (every pose assembled: the array itself, reshaped)."""
        return (v if every and v.flags.writeable else np.where(ok, v, np.nan)).reshape(grid.shape)

    maps = {}
    for f in functions:
        if not np.any(np.isfinite(ev[f]["hydraulic"] if every else ev[f]["hydraulic"][ok])):
            raise ParameterError(f"tool force of {f!r}: the {name} ({part}.{pt}) does not move when "
                                 f"{desc.cylinder_of[f]} extends; choose another point or function")
        maps[f] = {k: masked(ev[f][k]) if k != "limit"
                   else ev[f][k].reshape(grid.shape) for k in ("hydraulic", "tipping", "force", "limit")}
    tip = tuple(masked(v) for v in ev["tip"])
    t_maps = time.perf_counter() - T
    T = time.perf_counter()
    fn_of = {c: f for f, c in desc.cylinder_of.items()}
    optimum: dict[str, dict[str, ToolForceAt]] = {}
    args = (study, grid, functions, sigma, pressures, weights, base, name)
    tools = _tool_functions(study, part, pt)
    arms = [f for f in _iso_functions(study, part, pt) if f not in tools]

    def at_optimum(f, kind, e, free=()) -> ToolForceAt:
        code = int(e.points[f"{f}/limit"])
        gov = kind == "governing"
        return ToolForceAt(f, kind, e.value if gov else e.points[f"{f}/hydraulic"],
                           LIMITS[code] if gov else "hydraulic", e.points[f"{f}/hydraulic"],
                           e.points[f"{f}/tipping"], e.points["tip"], e.points[f"{f}/direction"],
                           {fn_of[c]: v for c, v in e.lengths.items()}, e.refined,
                           tuple(fn_of[c] for c in free))

    def hydraulic_optimum(f, probe, held=None) -> ToolForceAt:
        """The pose of the largest hydraulic limit (``held``: cylinder → length kept), the free
        directions (cylinders the limit does not depend on) set where tipping is worst."""
        vals = maps_of(f)["hydraulic"]
        sub = tuple(int(np.argmin(np.abs(grid.axes[c] - held[c]))) if held and c in held else slice(None)
                    for c in grid.cylinders)
        part_vals = np.where(np.isfinite(vals[sub]), vals[sub], -np.inf)
        k = iter(np.unravel_index(int(np.argmax(part_vals)), part_vals.shape))
        start = {c: (held[c] if held and c in held else float(grid.axes[c][next(k)])) for c in grid.cylinders}
        vary = [c for c in grid.cylinders if not (held and c in held)]
        e = refine(probe, lambda p, f=f: p[f"{f}/hydraulic"], start, maximise=True, vary=vary,
                   optimise=refine_optimum)
        free = _free_directions(maps_of(f)["hydraulic"], grid, desc.cylinder_of[f])
        free = [c for c in free if not (held and c in held)]
        if base is not None and free:
            e = _worst_tipping(probe, f, e, free, grid, maps_of(f)["tipping"], refine_optimum)
        kind = "hydraulic" if held is None else "sae_j1179"
        return at_optimum(f, kind, e, free)

    extra: dict[str, dict] = {}

    def maps_of(f):
        if f in maps:
            return maps[f]
        if f not in extra:    # a function not asked for (the bucket, for the arm's SAE J1179 pose)
            sg = dict(sigma)
            sg.setdefault(f, 1.0)
            e2 = _evaluate_grid(study, grid, flat, (f,), sg, pressures, weights, base, name)
            extra[f] = {k: masked(e2[f][k]) if k != "limit"
                        else e2[f][k].reshape(grid.shape) for k in ("hydraulic", "tipping", "force", "limit")}
        return extra[f]

    early: dict[str, ToolForceAt] = {}   # a tool's optimum found for an arm's SAE J1179 pose, kept for its own
    token = _BLOCKS.set({})     # the probes of this call share the kinematic blocks they solve
    try:
        for f in functions:
            optimum[f] = {}
            probe = _Probe(args, f)
            h = early.pop(f) if f in early else hydraulic_optimum(f, probe)
            optimum[f]["hydraulic"] = h
            if base is None or h.tipping >= h.hydraulic:
                # the hydraulic optimum is not tipping-limited (at its worst free posture): no pose does better
                optimum[f]["governing"] = ToolForceAt(f, "governing", h.force, "hydraulic", h.hydraulic, h.tipping,
                                                      h.point, h.direction, h.lengths, h.refined, h.free)
            else:
                vals = maps[f]["force"]
                idx = np.unravel_index(np.nanargmax(np.where(np.isfinite(vals), vals, np.nan)), grid.shape)
                start = {c: float(grid.axes[c][k]) for c, k in zip(grid.cylinders, idx)}
                e = refine(probe, lambda p, f=f: p[f"{f}/force"], start, maximise=True, optimise=refine_optimum)
                optimum[f]["governing"] = at_optimum(f, "governing", e)
            if f in arms and tools:
                # SAE J1179: the tool held where its own cylinder gives its largest moment (its optimum)
                held = {}
                for t in tools:
                    if t in optimum:
                        o = optimum[t]["hydraulic"]
                    elif t in early:
                        o = early[t]
                    else:
                        o = hydraulic_optimum(t, _Probe((study, grid, (t,), {**sigma, t: sigma.get(t, 1.0)}, pressures,
                                                         weights, base, name), t))
                        if t in functions:      # the same search its own turn would make (same σ): made once
                            early[t] = o
                    held[desc.cylinder_of[t]] = o.lengths[t]
                optimum[f]["sae_j1179"] = hydraulic_optimum(f, probe, held)
    finally:
        _BLOCKS.reset(token)
    timings = {"grid": t_grid, "maps": t_maps, "optimum": time.perf_counter() - T}
    return ToolForces(study, grid, functions, sigma, pressures, weights, base, maps, tip, optimum, timings, name)
