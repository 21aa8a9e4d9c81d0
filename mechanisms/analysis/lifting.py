"""Lift capacity over the front and over the side (ISO 10567 style) of any machine with a ``[base]``.

At each load-point height × radius of a table the front is placed with the load
point (default: the tool's pin, the arm nose of an excavator; the tool point itself
when one function alone moves that pin, as a crane's hook) there — the two
functions that move that point are solved for, the others held (default: at the end
of their digging stroke, the bucket curled) — and two loads are computed:

* the **hydraulic lift capacity**: the load at which some cylinder reaches its force
  at the relief pressure (cap side at relief and rod side at tank when it pushes, the
  other way when it pulls), the cylinder forces being those that hold the front
  (bond graph, at rest) plus the load's share ``W·∂y_P/∂s_i`` (virtual work with the
  bond graph's velocity ratio);
* the **tipping load**: the load that brings the machine to its front tipping line,
  from the moment of the base machine's masses, of the front's weight (the chassis
  reactions of the bond graph) and of the load; **over the side** (with ``[base]
  side_tipping_line``), the same with the upper structure swung 90°: the side tipping
  line half a track gauge from the swing axis, the masses that do not swing (``swings =
  false``, the undercarriage) on the machine's centreline (:mod:`.base`).

The **rated lift capacity** is the smaller of 87 % of the hydraulic lift capacity and
75 % of the tipping load, over the front and over the side (the hydraulic limit is the
same: the front's plane turns with the upper structure). Loads are given as masses (kg,
``load/g``). A ``[payloads]`` mass of the file (soil in the bucket, a hook load) is left
out: the rated load is what is being lifted, on top of the empty equipment, as a spec
sheet gives it; the table's header says which payloads were left out.

Examples
--------
>>> from mechanisms.machine import DATA
>>> lc = lift_capacity(DATA / "excavator.toml", heights=["0 m"], radii=["6 m"], n=30)
>>> row = lc.table().iloc[0]
>>> row["limit"], round(float(row["rated"]) / 1e3, 2), round(float(row["tipping"]) / 1e3, 2)
('tipping', 6.32, 8.43)
>>> round(float(row["rated_side"]) / 1e3, 2), round(float(row["tipping_side"]) / 1e3, 2)   # over the side
(3.49, 4.65)
"""

from __future__ import annotations

import math
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from bondgraph.errors import AssemblyError, ParameterError

from .base import BaseMachine
from .progress import reports_progress
from .result import AnalysisResult, save_figure
from .statics import cylinder_force_limits
from .study import Study
from .threads import one_blas_thread
from .reach import tool_point

__all__ = ["lift_capacity", "LiftCapacity", "HYDRAULIC_FACTOR", "TIPPING_FACTOR"]

#: ISO 10567: the rated capacity is at most these fractions of the two limits
HYDRAULIC_FACTOR = 0.87
TIPPING_FACTOR = 0.75


def _lengths_list(values, what: str) -> list[float]:
    from ..machine.quantities import to_si

    problems, out = [], []
    for v in values:
        try:
            out.append(float(to_si(v, "m", key=what)))
        except ParameterError as exc:
            problems += exc.problems
    if problems:
        raise ParameterError(problems, subject="lift capacity")
    return out


class LiftCapacity(AnalysisResult):
    """Rated lift capacities over a height × radius table (see :func:`lift_capacity`).

    Attributes
    ----------
    study : Study
    point : tuple
        ``(part, point)`` of the load point.
    moving, held : dict
        Functions solved for, and functions held at a length (m).
    heights, radii : list of float
        Load-point heights above ground and radii from the swing axis (m).
    rows : list of dict
        One per table cell (reachable or not): ``rated``, ``hydraulic``, ``tipping``,
        ``limit`` over the front; ``rated_side``, ``tipping_side``, ``limit_side`` over the
        side (NaN without ``[base] side_tipping_line``); kg.
    payloads : dict
        The file's ``[payloads]`` left out of the front's weight: name → mass (kg).

    Examples
    --------
    The tipping load balances the moments about the front tipping line — the base
    machine's, the front's (from the chassis reactions at the posture of the row) and the
    load's, ``W·g·(r − x_t)``:

    >>> import numpy as np
    >>> from mechanisms.machine import DATA
    >>> from mechanisms.analysis import Study
    >>> from mechanisms.analysis.base import BaseMachine
    >>> study = Study(DATA / "excavator.toml")
    >>> lc = lift_capacity(study, heights=["0 m"], radii=["6 m"], n=30)
    >>> row = lc.table().iloc[0]
    >>> desc, kin = study.description, study.kinematics
    >>> L = {desc.cylinder_of[f]: np.array([row[f"{f}_length"]]) for f in desc.functions}
    >>> angles, ok = kin.solve(L, near=study.grid(30))
    >>> front = study.statics.evaluate(kin.states(study.statics.model, angles, L, shape=(1,)))
    >>> base = BaseMachine.of(desc)
    >>> W = -(base.tipping_moment("front") + base.front_moment("front", front)[0]) / (
    ...     desc.gravity * (6.0 - base.front))
    >>> bool(abs(W / row["tipping"] - 1) < 1e-9)
    True
    >>> bool(row["rated"] == min(HYDRAULIC_FACTOR * row["hydraulic"], TIPPING_FACTOR * row["tipping"]))
    True
    """

    name = "lift-capacity"

    def __init__(self, study, point, moving, held, heights, radii, rows, region, timings, pressures, payloads=None):
        self.payloads = dict(payloads or {})
        self.study = study
        self.point = point
        self.moving, self.held = moving, held
        self.heights, self.radii = heights, radii
        self.rows = rows
        self.region = region
        self.timings = timings
        self.pressures = pressures

    def table(self):
        """One row per cell: height, radius, rated, hydraulic and tipping loads (kg), the
        governing limit and cylinder, the posture."""
        import pandas as pd

        df = pd.DataFrame(self.rows)
        df.attrs["units"] = {"height": "m", "radius": "m", "rated": "kg", "hydraulic": "kg", "tipping": "kg",
                             "rated_side": "kg", "tipping_side": "kg",
                             **{c: "m" for c in df.columns if c.endswith("_length")}}
        return df

    @property
    def side(self) -> bool:
        """Whether the table has the capacities over the side (``[base] side_tipping_line``)."""
        return any(np.isfinite(r.get("tipping_side", np.nan)) for r in self.rows) or \
            bool(self.study.description.base and self.study.description.base.get("side_tipping_line"))

    def matrix(self, over: str = "front"):
        """The familiar table: rated capacity (kg) per height (rows) and radius (columns),
        ``over`` the front or the side; NaN where the load point cannot be placed.

        Raises
        ------
        ParameterError
            ``over`` is neither ``"front"`` nor ``"side"``.
        """
        if over not in ("front", "side"):
            raise ParameterError(f"lift capacity over {over!r}: expected 'front' or 'side'")
        df = self.table()
        return df.pivot(index="height", columns="radius",
                        values="rated" if over == "front" else "rated_side").sort_index(ascending=False)

    def table_text(self) -> str:
        """The table as text, in tonnes, each cell over the front / over the side; ``*``
        marks a value limited by hydraulics (else by tipping)."""
        df = self.table()
        side = self.side
        over = "over the front / over the side" if side else "over the front"
        left = (f"; payloads left out: {', '.join(f'{k} {v:g} kg' for k, v in self.payloads.items())}"
                if self.payloads else "")
        width = 16 if side else 9
        lines = [f"rated lift capacity {over} [t] at {self.point[0]}.{self.point[1]} "
                 f"(* hydraulic limit, else tipping); heights above ground, radii from x = 0 (the swing axis)"
                 + left,
                 f"{'height':>8} | " + " ".join(f"{f'{r:.2f} m':>{width}}" for r in self.radii)]
        for h in sorted(self.heights, reverse=True):
            cells = []
            for r in self.radii:
                row = df[(df.height == h) & (df.radius == r)].iloc[0]
                if not np.isfinite(row.rated):
                    cells.append(f"{'—':>{width - 1}} ")
                    continue
                text = f"{row.rated / 1e3:.2f}{'*' if row.limit == 'hydraulic' else ' '}"
                if side:
                    text += (f"/ {row.rated_side / 1e3:.2f}{'*' if row.limit_side == 'hydraulic' else ' '}"
                             if np.isfinite(row.rated_side) else "/ —  ")
                cells.append(f"{text:>{width}}")
            lines.append(f"{h:>6.2f} m | " + " ".join(cells))
        return "\n".join(lines)

    def summary(self) -> dict[str, float]:
        """``lift_h<height>_r<radius>`` (kg, over the front) and, with a side tipping line,
        ``lift_side_h<height>_r<radius>``."""
        out = {f"lift_h{row['height']:g}_r{row['radius']:g}": row["rated"] for row in self.rows}
        if self.side:
            out.update({f"lift_side_h{row['height']:g}_r{row['radius']:g}": row["rated_side"] for row in self.rows})
        return out

    @property
    def summary_units(self) -> dict[str, str]:
        """Kilogram for every :meth:`summary` entry."""
        return {k: "kg" for k in self.summary()}

    def plot(self, path: str | Path | None = None, ax: Any = None):
        """The lift chart: the load point's reachable region, the rated capacity (t) at each
        height × radius (blue: hydraulic limit, red: tipping), the machine at one posture.

        Parameters
        ----------
        path : str or Path, optional
            A file name.
        ax : object, optional
        """
        import matplotlib.pyplot as plt

        desc = self.study.description
        g = desc.ground
        if ax is None:
            fig, ax = plt.subplots(figsize=(10, 8))
        else:
            fig = ax.figure
        rx, ry = self.region
        ax.fill(rx, ry - g, color="tab:blue", alpha=0.08, lw=0)
        ax.plot(rx, ry - g, color="tab:blue", lw=1, label=f"reach of {self.point[0]}.{self.point[1]}")
        for r in self.radii:
            ax.axvline(r, color="0.85", lw=0.8, zorder=0)
        for h in self.heights:
            ax.axhline(h, color="0.85", lw=0.8, zorder=0)
        shown = None
        for row in self.rows:
            if not np.isfinite(row["rated"]):
                continue
            colour = "tab:blue" if row["limit"] == "hydraulic" else "tab:red"
            ax.plot(row["radius"], row["height"], "o", color=colour, ms=4)
            text = f"{row['rated'] / 1e3:.2f} t"
            if np.isfinite(row.get("rated_side", np.nan)):
                text += f"\n({row['rated_side'] / 1e3:.2f} t)"
            ax.annotate(text, (row["radius"], row["height"]), xytext=(4, 4),
                        textcoords="offset points", color=colour, fontsize=7)
            if shown is None or row["height"] == 0 and row["radius"] > shown["radius"]:
                shown = row
        if shown is not None:
            kin = self.study.kinematics
            L = {desc.cylinder_of[f]: np.array([shown[f"{f}_length"]]) for f in desc.functions}
            ang, ok = kin.solve(L, near=self._grid)
            if ok[0]:
                poses, _ = kin.forward(ang, L)
                for name, part in kin.parts.items():
                    pose = tuple(float(np.asarray(v).ravel()[0]) for v in poses[name])
                    for line in part.sketch(pose):
                        xs, ys = zip(*line)
                        ax.plot(xs, np.array(ys) - g, color="0.35", lw=1.4)
        ax.axhline(0.0, color="saddlebrown", lw=1.2)
        base = desc.base
        ax.plot([base["tipping_line"]], [0.0], "k^", ms=8, label="front tipping line")
        ax.plot([], [], "o", color="tab:blue", label=f"limited by hydraulics ({HYDRAULIC_FACTOR:.0%})")
        ax.plot([], [], "o", color="tab:red", label=f"limited by tipping ({TIPPING_FACTOR:.0%})")
        ax.set_aspect("equal")
        ax.set_xlabel("load radius from x = 0 (the swing axis) [m]")
        ax.set_ylabel("load-point height above ground [m]")
        ax.grid(False)
        if any(np.isfinite(r.get("rated_side", np.nan)) for r in self.rows):
            ax.plot([], [], ls="none", label="(in brackets: over the side)")
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, fontsize="small")
        held = ", ".join(f"{f} at {v:.3f} m" for f, v in self.held.items()) or "none"
        left = f"; payloads left out: {', '.join(self.payloads)}" if self.payloads else ""
        over = "over the front (over the side)" if self.side else "over the front"
        ax.set_title(f"{desc.name}: rated lift capacity {over}, ISO 10567 style; held: {held}{left}",
                     fontsize=10)
        fig.tight_layout()
        return save_figure(fig, path)


def _default_load_point(study) -> tuple[str, str]:
    """The pin of the part carrying the tool point (an excavator's bucket pin, moved by the
    boom and the arm) when two functions or more move it, else the tool point itself (a
    crane's hook, whose pin moves with the inner boom alone)."""
    desc = study.description
    name, tpart, tpt = tool_point(desc, None)
    parent = study.kinematics.parent[tpart]
    candidates = ([parent] if parent is not None else []) + [(tpart, tpt)]
    for part, pt in candidates:
        if len(study.moving_functions(part, pt)) >= 2:
            return part, pt
    moved = "; ".join(f"{p}.{q} by {', '.join(study.moving_functions(p, q)) or 'none'}" for p, q in candidates)
    others = _two_function_points(study)
    raise ParameterError(f"lift capacity of {desc.name!r}: a height × radius table needs a load point that two "
                         f"functions move, and the default ones are not ({moved})"
                         + (f"; give one, point=\"part.point\"{others}" if others else
                            f": no point of {desc.name!r} is ({len(desc.functions)} function(s): "
                            f"{', '.join(desc.functions)})"))


def _two_function_points(study) -> str:
    """``" (e.g. outer.T: lift, fold)"``: the points that two or more functions move, or ``""``."""
    kin = study.kinematics
    found = [(f"{p}.{q}", m) for p, P in kin.parts.items() for q in P.points
             if len(m := study.moving_functions(p, q)) >= 2]
    if not found:
        return ""
    return " (e.g. " + "; ".join(f"{n}: {', '.join(m)}" for n, m in found[:4]) + ")"


@one_blas_thread
@reports_progress("lift capacity")
def lift_capacity(machine: Any, *, heights: Sequence[Any] | None = None, radii: Sequence[Any] | None = None,
                  point: str | None = None, held: Any = "extend", relief: Any = None, tank: Any = None,
                  n: int = 60, progress: bool = True) -> LiftCapacity:
    """Rated lift capacity over the front, ISO 10567 style.

    Parameters
    ----------
    machine : path, MachineDescription, Machine or Study
        Needs ``[base]`` (the tipping line and the base machine's masses) and a ground.
    heights, radii : sequences of lengths with units, optional
        Load-point heights above ground and radii from the swing axis (``x = 0``); default
        1.5 m steps over the load point's reach.
    point : str, optional
        The load point as ``"part.point"`` or an ``[outputs]`` point's name (default: the
        pin of the part carrying the first ``[outputs.points]`` entry — the bucket pin —
        when two functions move it, else that output point itself — a crane's hook).
    held : "extend", "retract", length, or dict
        Where the functions that do not move the load point stay (default: fully
        extended — a backhoe's bucket curled); a dict gives them per function.
    relief, tank : pressure with unit, or dict function → pressure, optional
        Default: the circuit's relief cracking pressure and tank pressure.
    n : int
        Lengths per stroke of the map that seeds the placement of the load point.
    progress : bool
        A progress bar over the stroke grid's poses once the work has taken a second
        (:mod:`mechanisms.analysis.progress`); ``False`` silences it.

    Returns
    -------
    LiftCapacity

    Raises
    ------
    ParameterError
        No ``[base]`` or no ground, a bad point, heights or radii without units, a load
        point that does not move in two directions with the non-held functions.

    Examples
    --------
    See the module and :class:`LiftCapacity`; lengths need their unit:

    >>> from mechanisms.machine import DATA
    >>> lift_capacity(DATA / "excavator.toml", heights=[0.0], radii=["6 m"], n=10)
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: lift capacity: 1 problem
      - 'height': found the bare number 0.0, expected a length with its unit, e.g. "0 m"
    """
    study = Study.of(machine)
    desc = study.description
    base = BaseMachine.of(desc)
    g = desc.ground
    kin = study.kinematics
    if point is None:
        part, pt = _default_load_point(study)
    elif point in desc.output_points:      # an [outputs] point by its name ("hook")
        part, pt = desc.output_points[point]
    else:
        bits = str(point).split(".")
        if len(bits) != 2 or bits[0] not in kin.parts or bits[1] not in kin.parts[bits[0]].points:
            known = ", ".join(f"{p}.{q}" for p, P in kin.parts.items() for q in P.points)
            raise ParameterError(f"lift capacity: load point {point!r}: expected an [outputs] point "
                                 f"({', '.join(desc.output_points) or 'none'}) or \"part.point\" of "
                                 f"{desc.name!r} ({known})")
        part, pt = bits
    moving = study.moving_functions(part, pt)
    others = [f for f in desc.functions if f not in moving]
    held_len = _held(desc, others, held)
    if isinstance(held, Mapping):
        extra = [f for f in held if f not in desc.functions]
        if extra:
            raise ParameterError(f"lift capacity: held {', '.join(map(repr, extra))}: not functions of "
                                 f"{desc.name!r} ({', '.join(desc.functions)})")
        for f in list(held):
            if f in moving and len(moving) > 2:
                moving.remove(f)
                held_len[f] = _held(desc, [f], held)[f]
    if len(moving) < 2:
        raise ParameterError(f"lift capacity: the load point {part}.{pt} is moved by "
                             f"{len(moving)} function(s) ({', '.join(moving) or 'none'}): it follows at most a "
                             "curve, and placing it at a height and a radius needs two; choose a load point "
                             "moved by two functions, point=\"part.point\""
                             + (_two_function_points(study) or f" ({desc.name!r} has none)"))
    if len(moving) != 2:
        raise ParameterError(f"lift capacity: the load point {part}.{pt} is moved by "
                             f"{len(moving)} function(s) ({', '.join(moving)}); placing it at a "
                             "height and a radius needs exactly two: hold the others with held={...} in "
                             "Python, --held FUNCTION=extend|retract|LENGTH with hydrobond analyse")
    if not (isinstance(n, int) and n >= 4):
        raise ParameterError(f"lift capacity: n = {n!r}, expected a whole number ≥ 4")
    pressures = study.pressures(relief, tank)
    T = time.perf_counter()
    axes = {desc.cylinder_of[f]: np.linspace(*desc.stroke_limits(f), n) for f in moving}
    axes.update({desc.cylinder_of[f]: np.array([v]) for f, v in held_len.items()})
    limits = {name: (lo, hi, desc.angles[name]) for name, (lo, hi) in desc.limits.items()}
    grid = kin.solve_grid(axes, limits=limits)
    px, py = (np.squeeze(a) for a in grid.point(part, pt))
    region = _outline(px, py)
    if heights is None or radii is None:
        ok = np.isfinite(px)
        hs = np.arange(math.floor((np.nanmin(py[ok]) - g) / 1.5) * 1.5, np.nanmax(py[ok]) - g + 1e-9, 1.5)
        rs = np.arange(1.5, np.nanmax(px[ok]) + 1e-9, 1.5)
        rs = rs[rs >= max(1.5, np.nanmin(px[ok]))]
    hs = np.array(_lengths_list(heights, "height") if heights is not None else hs, dtype=float)
    rs = np.array(_lengths_list(radii, "radius") if radii is not None else rs, dtype=float)
    if hs.size == 0 or rs.size == 0:
        raise ParameterError("lift capacity: no heights or no radii")
    t_map = time.perf_counter() - T
    T = time.perf_counter()
    cyl_m = [desc.cylinder_of[f] for f in moving]
    targets = [(h, r) for h in hs for r in rs]
    sols = _place(kin, grid, part, pt, cyl_m, {desc.cylinder_of[f]: v for f, v in held_len.items()},
                  px, py, [(r, h + g) for h, r in targets])
    rows = []
    fn_of = {c: f for f, c in desc.cylinder_of.items()}
    cand_L, owner = [], []
    for k, cands in enumerate(sols):
        for L in cands:
            cand_L.append(L)
            owner.append(k)
    with _payloads_removed(study.statics.machine) as payloads:
        evals = _capacities(study, grid, part, pt, cand_L, base, pressures) if cand_L else []
    best: dict[int, dict] = {}
    best_side: dict[int, dict] = {}
    for k, ev in zip(owner, evals):
        if k not in best or (ev["rated"] > best[k]["rated"]):
            best[k] = ev
        if k not in best_side or (ev["rated_side"] > best_side[k]["rated_side"]):
            best_side[k] = ev
    for k, (h, r) in enumerate(targets):
        row = {"height": float(h), "radius": float(r)}
        ev = best.get(k)
        if ev is None:
            row.update(rated=np.nan, hydraulic=np.nan, tipping=np.nan, limit="out of reach", cylinder="",
                       rated_side=np.nan, tipping_side=np.nan, limit_side="out of reach",
                       **{f"{f}_length": np.nan for f in desc.functions})
        else:
            sd = best_side[k]
            row.update(rated=ev["rated"], hydraulic=ev["hydraulic"], tipping=ev["tipping"], limit=ev["limit"],
                       cylinder=ev["cylinder"], rated_side=sd["rated_side"], tipping_side=sd["tipping_side"],
                       limit_side=sd["limit_side"],
                       **{f"{fn_of[c]}_length": v for c, v in ev["lengths"].items()})
        rows.append(row)
    timings = {"map": t_map, "table": time.perf_counter() - T}
    res = LiftCapacity(study, (part, pt), moving, held_len, list(map(float, hs)), list(map(float, rs)), rows,
                       region, timings, pressures, payloads)
    res._grid = grid
    return res


def _outline(px, py) -> tuple[np.ndarray, np.ndarray]:
    """Boundary of the load point's 2-D map (the image of the map's edges)."""
    edge = np.concatenate([np.column_stack([px[:, 0], py[:, 0]]), np.column_stack([px[-1, :], py[-1, :]]),
                           np.column_stack([px[::-1, -1], py[::-1, -1]]), np.column_stack([px[0, ::-1], py[0, ::-1]])])
    edge = edge[np.all(np.isfinite(edge), axis=1)]
    return edge[:, 0], edge[:, 1]


def _held(desc, functions, held) -> dict[str, float]:
    from ..machine.quantities import to_si

    out, problems = {}, []
    for f in functions:
        v = held.get(f, "extend") if isinstance(held, Mapping) else held
        lo, hi = desc.stroke_limits(f)
        if v == "extend":
            out[f] = hi
        elif v == "retract":
            out[f] = lo
        else:
            try:
                L = float(to_si(v, "m", key=f"held {f}"))
            except ParameterError as exc:
                problems += [p + " (or 'extend' / 'retract')" for p in exc.problems]
                continue
            if not lo - 1e-9 <= L <= hi + 1e-9:
                problems.append(f"held {f}: {L:.4g} m, outside its stroke {lo:.4g} … {hi:.4g} m")
                continue
            out[f] = L
    if problems:
        raise ParameterError(problems, subject="lift capacity")
    return out


def _place(kin, grid, part, pt, cyls, held, px, py, targets, tol=1e-9):
    """All poses (lengths) that put the load point at each target, seeded from the cells of
    the 2-D map that contain it and refined by Newton; within the strokes."""
    ax0, ax1 = grid.axes[cyls[0]], grid.axes[cyls[1]]
    if grid.cylinders.index(cyls[0]) > grid.cylinders.index(cyls[1]):
        px, py = px.T, py.T
    n0, n1 = px.shape
    seeds, owner = [], []
    for k, (tx, ty) in enumerate(targets):
        for tri in ((0, 0, 1, 0, 0, 1), (1, 1, 0, 1, 1, 0)):
            a = (px[tri[0]:n0 - 1 + tri[0], tri[1]:n1 - 1 + tri[1]], py[tri[0]:n0 - 1 + tri[0], tri[1]:n1 - 1 + tri[1]])
            b = (px[tri[2]:n0 - 1 + tri[2], tri[3]:n1 - 1 + tri[3]], py[tri[2]:n0 - 1 + tri[2], tri[3]:n1 - 1 + tri[3]])
            c = (px[tri[4]:n0 - 1 + tri[4], tri[5]:n1 - 1 + tri[5]], py[tri[4]:n0 - 1 + tri[4], tri[5]:n1 - 1 + tri[5]])
            det = (b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1])
            with np.errstate(invalid="ignore", divide="ignore"):
                u = ((tx - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (ty - a[1])) / det
                v = ((b[0] - a[0]) * (ty - a[1]) - (tx - a[0]) * (b[1] - a[1])) / det
            inside = np.isfinite(u) & np.isfinite(v) & (u >= -1e-9) & (v >= -1e-9) & (u + v <= 1 + 1e-9)
            for i, j in np.argwhere(inside):
                i0 = i + tri[0] + u[i, j] * (tri[2] - tri[0]) + v[i, j] * (tri[4] - tri[0])
                j0 = j + tri[1] + u[i, j] * (tri[3] - tri[1]) + v[i, j] * (tri[5] - tri[1])
                seeds.append((np.interp(i0, np.arange(n0), ax0), np.interp(j0, np.arange(n1), ax1)))
                owner.append(k)
    out: list[list[dict]] = [[] for _ in targets]
    if not seeds:
        return out
    S = np.array(seeds)
    T = np.array([targets[k] for k in owner])
    h = 1e-7
    lo = np.array([kin.parts[c].length_limits[0] for c in cyls])
    hi = np.array([kin.parts[c].length_limits[1] for c in cyls])
    for _ in range(12):
        batch = np.concatenate([S, S + [h, 0], S - [h, 0], S + [0, h], S - [0, h]])
        L = {cyls[0]: batch[:, 0], cyls[1]: batch[:, 1], **{c: np.full(len(batch), v) for c, v in held.items()}}
        ang, ok = kin.solve(L, near=grid)
        _, pts = kin.forward(ang, L, parts=[part])
        X = np.column_stack([np.broadcast_to(pts[f"{part}/{pt}"][0], (len(batch),)),
                             np.broadcast_to(pts[f"{part}/{pt}"][1], (len(batch),))]).reshape(5, len(S), 2)
        r = X[0] - T
        J = np.stack([(X[1] - X[2]) / (2 * h), (X[3] - X[4]) / (2 * h)], axis=2)
        with np.errstate(invalid="ignore"):
            good = np.isfinite(r).all(axis=1) & (np.abs(np.linalg.det(np.where(np.isfinite(J), J, 0))) > 1e-12)
        if np.all(np.abs(r[good]) < tol) and good.all():
            break
        dS = np.zeros_like(S)
        dS[good] = np.linalg.solve(J[good], -r[good][..., None])[..., 0]
        S = np.where(good[:, None], S + dS, np.nan)
    for k, s, res in zip(owner, S, r):
        if not (np.all(np.isfinite(s)) and np.all(np.abs(res) < 1e-6)):
            continue
        if np.any(s < lo - 1e-9) or np.any(s > hi + 1e-9):
            continue
        L = {cyls[0]: float(s[0]), cyls[1]: float(s[1]), **held}
        if not any(all(abs(L[c] - M[c]) < 1e-6 for c in L) for M in out[k]):
            out[k].append(L)
    return out


def _capacities(study, grid, part, pt, cands: list[dict], base, pressures) -> list[dict]:
    desc = study.description
    kin = study.kinematics
    L = {c: np.array([C[c] for C in cands]) for c in kin.cylinders}
    ang, ok = kin.solve(L, near=grid)
    N = len(cands)
    X = kin.states(study.statics.model, ang, L, shape=(N,))
    _, pts = kin.forward(ang, L, parts=[part])
    px, py = (np.broadcast_to(v, (N,)) for v in pts[f"{part}/{pt}"])
    st = study.statics.evaluate(X, points=[(part, pt)])
    gval = desc.gravity
    W = np.full(N, np.inf)
    which = np.full(N, "", dtype=object)
    for f in desc.functions:
        vy = st.velocity[(part, pt)][f][1]
        push, pull = cylinder_force_limits(desc.areas(f), pressures["relief"][f], pressures["tank"][f])
        hold = st.holding[f]
        with np.errstate(divide="ignore", invalid="ignore"):
            w = np.where(vy > 1e-9, (push - hold) / vy, np.where(vy < -1e-9, (-pull - hold) / vy, np.inf))
        w = np.maximum(w, 0.0)
        lower = w < W
        W = np.where(lower, w, W)
        which = np.where(lower, f, which)
    tipping = {}
    for over in ("front", "side"):
        if over == "side" and base.side is None:
            tipping[over] = np.full(N, np.nan)
            continue
        M0 = base.tipping_moment(over) + base.front_moment(over, st)
        arm = base.load_moment(over, px, py, 0.0, -1.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            tipping[over] = np.where(M0 >= 0, 0.0, np.where(arm > 0, -M0 / arm, np.inf))
    out = []
    for i in range(N):
        hyd = W[i] / gval
        row = {"hydraulic": hyd, "cylinder": str(which[i]), "lengths": dict(cands[i])}
        for over, suffix in (("front", ""), ("side", "_side")):
            tip = tipping[over][i] / gval
            rated = min(HYDRAULIC_FACTOR * hyd, TIPPING_FACTOR * tip) if np.isfinite(tip) or tip == np.inf \
                else np.nan
            row[f"rated{suffix}"] = rated
            row[f"tipping{suffix}"] = tip
            row[f"limit{suffix}"] = ("" if np.isnan(rated) else
                                     "hydraulic" if HYDRAULIC_FACTOR * hyd <= TIPPING_FACTOR * tip else "tipping")
        out.append(row)
    return out


@contextmanager
def _payloads_removed(machine):
    """The machine's ``[payloads]`` masses at zero for the duration (run-time parameters of
    its compiled model, restored after); yields name → the mass left out (kg)."""
    desc = machine.description
    keys = {f"payloads.{k}.mass": k for k in desc.payloads}
    left = {k: float(desc.values[key]) for key, k in keys.items() if desc.values.get(key, 0.0) > 0}
    if not left:
        yield {}
        return
    params = machine.model.model
    params.set_params({key: 0.0 for key in keys})
    try:
        yield left
    finally:
        params.set_params({key: float(desc.values[key]) for key in keys})
