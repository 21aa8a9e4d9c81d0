"""Loader figures: ISO 7131 dump height and reach at 45°, ISO 14397-2 breakout forces.

A machine whose file says ``[machine] kind = "loader"`` is rated by the loader standards,
not by the excavator ones (ISO 6015 tool forces at full lift with the bucket dumped mean
nothing for a loader):

* **dump height and dump reach at a 45° dump angle** (ISO 7131, loaders' terminology and
  commercial specifications): with the bucket pin at its highest, the bucket turned down
  until its floor is 45° below the horizontal; the height of the lowest point of the
  cutting edge above ground and its horizontal distance. A bucket that cannot turn 45°
  down at full lift is measured at the largest dump angle it reaches, and the figure says
  so (``dump angle 37.3° < 45°``). Reach is measured from ``x = 0`` of the machine frame;
  ISO 7131 measures it from the machine's foremost point (its tyres or frame): subtract
  that point's ``x``.
* **breakout force** (ISO 14397-2, test method for loaders' breakout forces): the
  greatest vertical upward force at a point 100 mm behind the cutting edge, with the
  bucket floor level and the cutting edge on the ground, produced by the lift cylinders
  (lift breakout) or the tilt cylinders (tilt breakout) at the relief pressure, the other
  function held — no more than its own relief pressure can hold (the holding circuit) —
  and, with a ``[base]``, no more than tips the machine over its front tipping line.
  The standard measures the force on a machine, so the weights of the boom, linkage and
  empty bucket are taken into account (the cylinders hold them too); a ``[payloads]``
  mass (the load in the bucket) is not: a breakout starts with the bucket empty.

Conventions the file must follow (the shipped ``wheel_loader.toml`` does): the bucket's
frame has its x axis along the bucket floor toward the cutting edge, so the floor is
level when the bucket's absolute angle is zero and the dump angle is minus that angle;
the tool point (the first ``[outputs.points]`` entry) is the cutting edge.

Examples
--------
>>> from mechanisms.machine import DATA
>>> bf = breakout_forces(DATA / "wheel_loader.toml", n=20)
>>> {f: round(v / 1e3) for f, v in bf.summary().items()}       # kN
{'lift_breakout': 220, 'tilt_breakout': 220}
>>> bf.rows[1]["limit"], round(bf.rows[1]["own"] / 1e3)     # the tilt's: the lift cylinders give way first
('lift cylinder (held) at its relief', 341)
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from bondgraph.errors import AssemblyError, ParameterError

from .base import BaseMachine
from .optimise import Extreme, Probe, refine
from .result import AnalysisResult, save_figure
from .statics import cylinder_force_limits
from .study import Study
from .threads import one_blas_thread

__all__ = ["breakout_forces", "BreakoutForces", "dump_at_angle", "DUMP_ANGLE", "BEHIND_EDGE"]

#: ISO 7131: the dump height and reach are given at this dump angle (rad, floor below horizontal)
DUMP_ANGLE = math.radians(45.0)
#: ISO 14397-2: the breakout force acts this far behind the cutting edge (m), along the floor
BEHIND_EDGE = 0.100


def require_loader(desc, what: str) -> None:
    """A named error when ``desc`` is not a loader.

    Raises
    ------
    ParameterError
        ``[machine] kind`` is not ``"loader"``.
    """
    if desc.kind != "loader":
        raise ParameterError(f"{what}: {desc.name!r} is an {desc.kind} ([machine] kind = {desc.kind!r}); the "
                             "loader standards (ISO 7131, ISO 14397-2) are for kind = \"loader\"")


def _tool_functions(study, part: str, pt: str) -> tuple[list[str], list[str]]:
    """``(pin cylinders, tool cylinders)``: those that move the tool's pin, and those that turn
    the tool only."""
    kin = study.kinematics
    desc = study.description
    pin_cyls = sorted(kin._deps(kin.parent[part][0], None)) if kin.parent[part] is not None else []
    moving = {desc.cylinder_of[f] for f in study.moving_functions(part, pt)}
    return pin_cyls, [c for c in kin.cylinders if c in moving and c not in pin_cyls]


def dump_at_angle(study, grid, pin_top, part: str, pt: str, name: str, refine_extremes: bool = True,
                  angle: float = DUMP_ANGLE) -> dict:
    """ISO 7131 dump height and dump reach (:class:`~.reach.Dimension` by key) with the pin
    where ``pin_top`` (the maximum pin height) has it and the tool turned down to ``angle``
    (rad), or as far as it goes (flagged).

    Examples
    --------
    >>> from mechanisms.machine import DATA
    >>> from mechanisms.analysis import working_range
    >>> wr = working_range(DATA / "wheel_loader.toml", n=20)
    >>> d = wr.dimensions["dump_height_45"]
    >>> round(d.value, 3), d.posture.split(";")[0]
    (3.048, 'dump angle 37.3° at most: the bucket cannot turn 45° down at full lift (measured at 37.3°)')
    """
    from .reach import _DIMENSIONS, Dimension

    desc = study.description
    kin = study.kinematics
    g = desc.ground
    fn_of = {c: f for f, c in desc.cylinder_of.items()}
    pin_cyls, tool = _tool_functions(study, part, pt)
    tip = f"{part}/{pt}"
    probe = Probe(kin, grid, [(part, pt)], angles=[part])
    start = {desc.cylinder_of[f]: v for f, v in pin_top.lengths.items()}
    keys = ("dump_height_45", "dump_reach_45")
    if not tool:
        return {k: Dimension(k, _DIMENSIONS[k], np.nan, name, (np.nan, np.nan), {}, False,
                             "no function turns the bucket alone") for k in keys}
    # the largest dump angle at this pin: the bucket's absolute angle at its least over the tool's range
    deepest = refine(probe, lambda p: p[f"angle:{part}"], start, vary=tool, optimise=refine_extremes)
    reached = -deepest.points[f"angle:{part}"]
    if reached >= angle - 1e-12:
        e = refine(probe, lambda p: sum(p[f"length:{c}"] for c in tool), deepest.lengths, vary=tool,
                   constraint=lambda p: p[f"angle:{part}"] + angle, optimise=refine_extremes)
        if abs(e.points[f"angle:{part}"] + angle) > 1e-8:
            e = Extreme(e.value, e.lengths, e.points, False, np.nan, e.active)
        posture = f"dump angle {math.degrees(angle):.0f}°, the bucket pin at its highest"
        flag = ""
    else:
        e = deepest
        posture = (f"dump angle {math.degrees(reached):.1f}° at most: the bucket cannot turn "
                   f"{math.degrees(angle):.0f}° down at full lift (measured at {math.degrees(reached):.1f}°)")
        flag = "FLAGGED: not at the standard's dump angle"
    refined = e.refined and pin_top.refined
    x, y = e.points[tip]
    lengths = {fn_of[c]: v for c, v in e.lengths.items()}
    note = "ISO 7131: the cutting edge with the bucket pin at its highest and the bucket floor turned down"
    out = {
        "dump_height_45": Dimension("dump_height_45", _DIMENSIONS["dump_height_45"], y - g, name, (x, y), lengths,
                                    refined, "; ".join(b for b in (flag, note) if b),
                                    0.0 if refined else np.nan, pin_top.active + e.active, posture),
        "dump_reach_45": Dimension("dump_reach_45", _DIMENSIONS["dump_reach_45"], x, name, (x, y), lengths,
                                   refined, "; ".join(b for b in (flag, "from x = 0 of the machine frame (ISO 7131 "
                                                      "measures from the machine's foremost point)") if b),
                                   0.0 if refined else np.nan, pin_top.active + e.active, posture),
    }
    return out


class BreakoutForces(AnalysisResult):
    """ISO 14397-2 breakout forces of a loader (see :func:`breakout_forces`).

    Attributes
    ----------
    study : Study
    rows : list of dict
        One per function: ``function``, ``force`` (N), ``limit`` (what stops it), ``own``
        (the function's cylinder alone at relief), ``hydraulic`` (with the held function's
        relief too) and ``tipping`` (N), the point ``x``, ``y`` (m) and the lengths.
    pose : dict
        Function → cylinder length (m) of the breakout pose.
    point : tuple
        The force's point (m): 100 mm behind the cutting edge.

    Examples
    --------
    The wheel loader: the force acts 100 mm behind the cutting edge, on the ground, and the
    tilt cylinders' breakout is limited by the held lift cylinders giving way:

    >>> import math
    >>> from mechanisms.machine import DATA
    >>> b = breakout_forces(DATA / "wheel_loader.toml")
    >>> round(math.dist(b.point, b.edge), 9), abs(b.point[1] - b.study.description.ground) < 1e-9
    (0.1, True)
    >>> tilt = next(r for r in b.rows if r["function"] == "tilt")
    >>> tilt["limit"], bool(tilt["force"] == min(tilt["own"], tilt["hydraulic"]) < tilt["own"])
    ('lift cylinder (held) at its relief', True)
    """

    name = "breakout-forces"

    def __init__(self, study, rows, pose, point, edge, pressures, timings, grid, part):
        self.study = study
        self.rows = rows
        self.pose = pose
        self.point = point
        self.edge = edge
        self.pressures = pressures
        self.timings = timings
        self._grid = grid
        self._part = part

    def summary(self) -> dict[str, float]:
        """``<function>_breakout`` (N) per function."""
        return {f"{r['function']}_breakout": r["force"] for r in self.rows}

    @property
    def summary_units(self) -> dict[str, str]:
        """Newton for every :meth:`summary` entry."""
        return {k: "N" for k in self.summary()}

    def table(self):
        """One row per function: the breakout force, what limits it, both limits, the point
        and the pose."""
        import pandas as pd

        df = pd.DataFrame(self.rows)
        desc = self.study.description
        df.attrs["units"] = {"force": "N", "own": "N", "hydraulic": "N", "tipping": "N", "x": "m", "y": "m",
                             "relief": "Pa",
                             **{f"{f}_length": "m" for f in desc.functions}}
        return df

    def table_text(self) -> str:
        """The forces in kN with their limits, as a spec sheet gives them."""
        desc = self.study.description
        lines = [f"ISO 14397-2 breakout forces of {desc.name}: vertical, {BEHIND_EDGE * 1e3:.0f} mm behind the "
                 f"cutting edge, the bucket floor level on the ground (x {self.point[0]:.3f} m, y "
                 f"{round(self.point[1], 6) + 0.0:.3f} m); weights of the equipment included, payloads left out"]
        for r in self.rows:
            own = "" if r["limit"].startswith(r["function"]) else \
                f" (the {r['function']} cylinder alone: {r['own'] / 1e3:.1f} kN)"
            lines.append(f"  {r['function'] + ' breakout':<18} {r['force'] / 1e3:8.1f} kN   {r['limit']}{own}")
        return "\n".join(lines)

    def plot(self, path: str | Path | None = None, ax: Any = None):
        """The machine at the breakout pose, the force's point and its arrows (kN)."""
        import matplotlib.pyplot as plt

        desc = self.study.description
        kin = self.study.kinematics
        if ax is None:
            fig, ax = plt.subplots(figsize=(9, 6), layout="constrained")
        else:
            fig = ax.figure
        L = {desc.cylinder_of[f]: np.array([v]) for f, v in self.pose.items()}
        ang, _ = kin.solve(L, near=self._grid)
        poses, _ = kin.forward(ang, L)
        for nm, part in kin.parts.items():
            pose = tuple(float(np.asarray(v).ravel()[0]) for v in poses[nm])
            for line in part.sketch(pose):
                xs, ys = zip(*line)
                ax.plot(xs, ys, color="0.3", lw=1.6)
        g = desc.ground
        ax.axhline(g, color="saddlebrown", lw=1.2, label="ground")
        px, py = self.point
        scale = 1.0 / max(r["force"] for r in self.rows if np.isfinite(r["force"]))
        colours = ["tab:red", "tab:blue", "tab:green"]
        for k, r in enumerate(self.rows):
            dx = 0.35 * (k - (len(self.rows) - 1) / 2)
            ax.annotate("", xy=(px + dx, py + 1.2 * r["force"] * scale), xytext=(px + dx, py),
                        arrowprops=dict(arrowstyle="->", color=colours[k % 3], lw=2))
            ax.plot([], [], color=colours[k % 3], lw=2, label=f"{r['function']} breakout {r['force'] / 1e3:.1f} kN "
                                                            f"({r['limit']})")
        ax.plot(*self.point, "o", color="k", ms=4, label=f"{BEHIND_EDGE * 1e3:.0f} mm behind the cutting edge")
        ax.set_aspect("equal")
        ax.set_xlabel("x from the frame origin [m]")
        ax.set_ylabel("y [m]")
        ax.grid(True, alpha=0.3)
        ax.legend(loc="upper left", fontsize="small")
        ax.set_title(f"{desc.name}: ISO 14397-2 breakout forces (bucket level on the ground)", fontsize=10)
        return save_figure(fig, path)


def _level_on_ground(study, grid, probe, part, pt, tool, pin_cyls) -> Extreme:
    """The pose with the bucket floor level (the part's absolute angle zero) and the cutting
    edge on the ground."""
    desc = study.description
    g = desc.ground
    x, y = grid.point(part, pt)
    th = np.broadcast_to(grid.angles[part], grid.shape)
    miss = np.where(grid.ok, np.hypot(th, (y - g) / 1.0), np.inf)
    idx = np.unravel_index(int(np.argmin(miss)), grid.shape)
    s0 = {c: float(grid.axes[c][k]) for c, k in zip(grid.cylinders, idx)}
    e = refine(probe, lambda p: np.zeros_like(p[f"angle:{part}"]), s0,
               constraint=lambda p: [p[f"angle:{part}"], p[f"{part}/{pt}"][1] - g])
    th0, y0 = e.points[f"angle:{part}"], e.points[f"{part}/{pt}"][1]
    if not (abs(th0) < 1e-8 and abs(y0 - g) < 1e-8):
        raise AssemblyError(f"no pose of {desc.name!r} has the bucket floor level with the cutting edge on the "
                            f"ground within the strokes and ranges (closest: bucket at {math.degrees(th0):.2f}°, "
                            f"edge {y0 - g:+.3f} m from the ground)", subject="breakout forces (ISO 14397-2)")
    return e


@one_blas_thread
def breakout_forces(machine: Any, *, relief: Any = None, tank: Any = None, n: int | Mapping[str, int] = 30,
                    point: str | None = None, tipping: bool | None = None,
                    weights: bool = True) -> BreakoutForces:
    """ISO 14397-2 breakout forces of a loader (see the module docstring).

    Parameters
    ----------
    machine : path, MachineDescription, Machine or Study
        A loader (``[machine] kind = "loader"``) with a ground level.
    relief, tank : pressure with unit, or dict function → pressure, optional
        Default: the circuit's relief cracking pressure and its tank pressure.
    n : int or dict
        Lengths per stroke of the grid that seeds the breakout pose.
    point : str, optional
        The ``[outputs.points]`` entry at the cutting edge (default the first).
    tipping : bool, optional
        Include the tipping limit (default: when the file has ``[base]``).
    weights : bool
        Take the equipment's weight into account (default True, as the standard measures).

    Returns
    -------
    BreakoutForces

    Raises
    ------
    ParameterError
        Not a loader, no ground level, no relief pressure, ``tipping=True`` without
        ``[base]``.
    AssemblyError
        No pose has the bucket level with its edge on the ground.

    Examples
    --------
    See :class:`BreakoutForces`. An excavator is refused by name:

    >>> from mechanisms.machine import DATA
    >>> breakout_forces(DATA / "excavator.toml")      # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: ...
    """
    from .reach import tool_point

    study = Study.of(machine)
    desc = study.description
    require_loader(desc, "breakout forces (ISO 14397-2)")
    if desc.ground is None:
        raise ParameterError(f"{desc.file.name}: the breakout pose needs the ground level: give [machine] ground")
    if tipping and desc.base is None:
        BaseMachine.of(desc)  # the named error
    base = BaseMachine.of(desc) if (desc.base is not None and tipping is not False) else None
    name, part, pt = tool_point(desc, point)
    kin = study.kinematics
    pin_cyls, tool = _tool_functions(study, part, pt)
    pressures = study.pressures(relief, tank)
    T = time.perf_counter()
    grid = study.grid(n)
    probe = Probe(kin, grid, [(part, pt)], angles=[part])
    pose = _level_on_ground(study, grid, probe, part, pt, tool, pin_cyls)
    # the statics at that pose (payloads off: the bucket is empty), the point 100 mm behind the edge
    rel = {f"payloads.{k}.mass": "0 kg" for k in desc.payloads}
    work = study if not rel else Study(desc.with_overrides(rel))
    L = {c: np.array([v]) for c, v in pose.lengths.items()}
    ang, ok = kin.solve(L, near=grid)
    X = kin.states(work.statics.model, ang, L, shape=(1,))
    root = kin.parts[part].root.name
    st = work.statics.evaluate(X, points=[(part, pt), (part, root)])
    _, pts = kin.forward(ang, L, parts=[part])
    Q = np.array([float(np.asarray(v).ravel()[0]) for v in pts[f"{part}/{pt}"]])
    D = np.array([float(np.asarray(v).ravel()[0]) for v in pts[f"{part}/{root}"]])
    th = float(np.asarray(ang[part]).ravel()[0])
    P = Q - BEHIND_EDGE * np.array([math.cos(th), math.sin(th)])
    fn_of = {c: f for f, c in desc.cylinder_of.items()}
    vyP = {}
    for f in desc.functions:
        vQ = np.array([float(np.asarray(v)[0]) for v in st.velocity[(part, pt)][f]])
        vD = np.array([float(np.asarray(v)[0]) for v in st.velocity[(part, root)][f]])
        r = Q - D
        omega = (r[0] * (vQ[1] - vD[1]) - r[1] * (vQ[0] - vD[0])) / float(r @ r)
        vyP[f] = vQ[1] + omega * (P[0] - Q[0])          # v_P = v_Q + ω × (P − Q), its y component
    limit_of = {}
    for f in desc.functions:
        push, pull = cylinder_force_limits(desc.areas(f), pressures["relief"][f], pressures["tank"][f])
        hold = float(st.holding[f][0]) if weights else 0.0
        v = vyP[f]
        # the force F (up, on the soil) loads the cylinder with F·∂y_P/∂s on top of what holds the front
        limit_of[f] = (push - hold) / v if v > 1e-9 else ((-pull - hold) / v if v < -1e-9 else np.inf)
    tip_limit = np.inf
    if base is not None:
        M0 = float(base.tipping_moment("front") + base.front_moment("front", st)[0])
        arm = float(base.load_moment("front", P[0], P[1], 0.0, -1.0))
        tip_limit = 0.0 if M0 >= 0 else (-M0 / arm if arm > 0 else np.inf)
    rows = []
    for f in desc.functions:
        own = limit_of[f]
        if not np.isfinite(own) or own <= 0:
            continue
        held = {h: limit_of[h] for h in desc.functions if h != f and np.isfinite(limit_of[h]) and limit_of[h] >= 0}
        force, limit = own, f"{f} cylinder at relief"
        for h, v in held.items():
            if v < force:
                force, limit = v, f"{h} cylinder (held) at its relief"
        if tip_limit < force:
            force, limit = tip_limit, "tipping over the front line"
        row = {"function": f, "force": force, "limit": limit, "own": own,
               "hydraulic": min([own] + list(held.values())),
               "tipping": tip_limit, "x": float(P[0]), "y": float(P[1]), "relief": pressures["relief"][f]}
        row.update({f"{fn_of[c]}_length": v for c, v in pose.lengths.items()})
        rows.append(row)
    if not rows:
        raise ParameterError(f"breakout forces of {desc.name!r}: no function raises the point "
                             f"{BEHIND_EDGE * 1e3:.0f} mm behind the cutting edge")
    timings = {"pose": time.perf_counter() - T}
    return BreakoutForces(study, rows, {fn_of[c]: v for c, v in pose.lengths.items()}, (float(P[0]), float(P[1])),
                          (float(Q[0]), float(Q[1])), pressures, timings, grid, part)
