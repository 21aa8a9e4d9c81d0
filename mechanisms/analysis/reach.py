"""Working range of a planar front (ISO 7135 terms): envelope, dimensions, the chart.

Every pose of the stroke box is solved at once (:mod:`.kinematics`, 50 lengths per
stroke by default); the tool point's positions give the envelope, and each dimension is
found on the grid and then refined continuously (:mod:`.optimise`), so an extreme
inside a stroke is found as exactly as one at a stroke end:

==========================  ===============================================================
dimension                   what (distances from ``x = 0`` of the machine frame, the swing
                            axis of an excavator; heights from ``[machine] ground``)
==========================  ===============================================================
``max_reach``               largest horizontal distance of the tool point
``max_reach_ground``        largest horizontal distance of the tool point at ground level
``max_digging_depth``       deepest tool point below ground
``max_cutting_height``      highest tool point above ground
``max_dump_height``         the tool point's lowest height with the tool's pin at its
                            highest and the tool turned fully open (dumping position)
``max_pin_height``          highest position of the tool's pin (the bucket pin)
==========================  ===============================================================

The tool point is an ``[outputs.points]`` entry (default the first: the bucket lip);
the tool's pin is the root pin of the part that carries it, and the *tool functions*
are the cylinders that do not move that pin (the bucket cylinder).

The envelope is the outline of the grid's tool points with every grid edge drawn as a
segment on a raster (``resolution``, default 2 cm), holes filled and widened by one
cell: it contains every reachable tool point and overstates the region by about a
cell plus the sagitta of a grid step.

Examples
--------
>>> from mechanisms.machine import DATA
>>> wr = working_range(DATA / "excavator.toml", n=20)
>>> round(wr.dimensions["max_reach"].value, 3), round(wr.dimensions["max_digging_depth"].value, 3)
(11.788, 3.919)
>>> bool(wr.contains([5.0], [0.0])[0]), bool(wr.contains([13.0], [0.0])[0])
(True, False)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from bondgraph.errors import AssemblyError, ParameterError

from .optimise import Extreme, Probe, refine
from .result import AnalysisResult, save_figure
from .study import Study
from .threads import one_blas_thread

__all__ = ["working_range", "WorkingRange", "Dimension", "tool_point", "envelope"]

_DIMENSIONS = {
    "max_reach": "maximum reach",
    "max_reach_ground": "maximum reach at ground level",
    "max_digging_depth": "maximum digging depth",
    "max_cutting_height": "maximum cutting height",
    "max_dump_height": "maximum dump height",
    "max_pin_height": "maximum pin height",
}


@dataclass
class Dimension:
    """One working-range dimension, the point measured and the posture that gives it.

    Attributes
    ----------
    key, title : str
        ``"max_reach"``, ``"maximum reach"``.
    value : float
        m (NaN when the machine cannot reach it).
    measured : str
        Which point: the tool point or its pin.
    point : (float, float)
        Where that point is (m).
    lengths : dict
        Function → cylinder length of the posture (m).
    refined : bool
        Refined continuously from the grid's optimum.
    note : str

    Examples
    --------
    The posture a dimension reports puts the tool point where it says:

    >>> import numpy as np
    >>> from mechanisms.machine import DATA
    >>> wr = working_range(DATA / "excavator.toml", n=20)
    >>> d = wr.dimensions["max_reach"]
    >>> kin, desc = wr.study.kinematics, wr.study.description
    >>> L = {desc.cylinder_of[f]: np.array([v]) for f, v in d.lengths.items()}
    >>> angles, ok = kin.solve(L, near=wr.grid)
    >>> x_tip = kin.forward(angles, L)[1]["bucket/Q"][0]
    >>> bool(ok[0]), bool(abs(float(x_tip[0]) - d.value) < 1e-9), d.point[0] == d.value
    (True, True, True)
    """

    key: str
    title: str
    value: float                         # m (NaN when the machine cannot reach it)
    measured: str                        # which point: the tool point or its pin
    point: tuple[float, float]           # where that point is (m)
    lengths: dict[str, float]            # function → cylinder length (m)
    refined: bool = True
    note: str = ""


def tool_point(desc, point: str | None = None) -> tuple[str, str, str]:
    """``(name, part, point)`` of an ``[outputs.points]`` entry (default the first).

    Parameters
    ----------
    desc : MachineDescription
    point : str, optional

    Returns
    -------
    (str, str, str)

    Examples
    --------
    >>> from mechanisms.machine import DATA
    >>> from mechanisms.machine.description import MachineDescription
    >>> desc = MachineDescription.load(DATA / "excavator.toml")
    >>> tool_point(desc)
    ('tip', 'bucket', 'Q')
    >>> tool_point(desc, "lip")
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: tool point 'lip': not an [outputs] point of 'excavator' (tip)

    Raises
    ------
    ParameterError
        No output points in the file, or an unknown name.
    """
    pts = desc.output_points
    if not pts:
        raise ParameterError(f"{desc.file.name}: no [outputs] points: the working range and the "
                             "tool forces need the tool point (e.g. points.tip = \"bucket.Q\")")
    name = point or next(iter(pts))
    if name not in pts:
        raise ParameterError(f"tool point {name!r}: not an [outputs] point of {desc.name!r} "
                             f"({', '.join(pts)})")
    return (name,) + tuple(pts[name])


class WorkingRange(AnalysisResult):
    """The working range of a machine (see :func:`working_range`).

    Attributes
    ----------
    study : Study
    grid : BoxGrid
    point : str
        The tool point's name (``"tip"``); :attr:`part`, :attr:`pin` its part and pin.
    envelope : ndarray, shape (K, 2)
        Closed outline of every reachable tool point (m).
    dimensions : dict
        Key → :class:`Dimension`.
    timings : dict
        Seconds: ``grid`` (position analysis), ``dimensions``, ``envelope``.

    Examples
    --------
    A refined extreme is at least the grid's best and close to it; the depth is measured
    from the ground:

    >>> import numpy as np
    >>> from mechanisms.machine import DATA
    >>> wr = working_range(DATA / "excavator.toml", n=20)
    >>> x, y = wr.grid.point("bucket", "Q")
    >>> reach, depth = wr.summary()["max_reach"], wr.summary()["max_digging_depth"]
    >>> bool(0 <= reach - np.nanmax(x) < 0.01), bool(0 <= depth - (wr.ground - np.nanmin(y)) < 0.01)
    (True, True)
    >>> list(wr.table().columns[:3]), wr.table().attrs["units"]["value"]
    (['dimension', 'title', 'value'], 'm')
    """

    name = "working-range"
    summary_units = {k: "m" for k in _DIMENSIONS}

    def __init__(self, study, grid, point, part, pin, envelope, dimensions, timings):
        self.study = study
        self.grid = grid
        self.point, self.part, self.pin = point, part, pin
        self.envelope = envelope
        self.dimensions = dimensions
        self.timings = timings
        self._poses: dict | None = None

    @property
    def ground(self) -> float:
        """y of the ground in the machine frame (m)."""
        return self.study.description.ground

    def summary(self) -> dict[str, float]:
        """Each dimension's value (m).

        Returns
        -------
        dict
        """
        return {k: d.value for k, d in self.dimensions.items()}

    def table(self):
        """One row per dimension: value, point, posture (cylinder lengths), note."""
        import pandas as pd

        desc = self.study.description
        rows = []
        for d in self.dimensions.values():
            row = {"dimension": d.key, "title": d.title, "value": d.value, "measured": d.measured,
                   "x": d.point[0], "y": d.point[1]}
            row.update({f"{f}_length": d.lengths.get(f, np.nan) for f in desc.functions})
            row["note"] = d.note
            rows.append(row)
        df = pd.DataFrame(rows)
        df.attrs["units"] = {"value": "m", "x": "m", "y": "m",
                             **{f"{f}_length": "m" for f in desc.functions}}
        return df

    def contains(self, x, y) -> np.ndarray:
        """Whether points ``(x, y)`` lie inside the envelope.

        Parameters
        ----------
        x, y : array_like
            m.

        Returns
        -------
        ndarray of bool
        """
        from matplotlib.path import Path as MplPath

        return MplPath(self.envelope).contains_points(np.column_stack([np.ravel(x), np.ravel(y)]))

    def posture(self, lengths: Mapping[str, float]) -> dict[str, tuple]:
        """Every part's pose (tuple of floats) at function lengths ``lengths``.

        Parameters
        ----------
        lengths : mapping
            Function → cylinder length (m).

        Returns
        -------
        dict

        Raises
        ------
        AssemblyError
            No pose there.
        """
        desc = self.study.description
        kin = self.study.kinematics
        L = {desc.cylinder_of[f]: np.array([v]) for f, v in lengths.items()}
        ang, ok = kin.solve(L, near=self.grid)
        if not ok[0]:
            raise AssemblyError(f"no pose at {lengths}")
        poses, _ = kin.forward(ang, L)
        return {n: tuple(float(np.asarray(v).ravel()[0]) for v in p) for n, p in poses.items()}

    # ------------------------------------------------------------------ the chart
    def plot(self, path: str | Path | None = None, ax: Any = None):
        """The working-range chart: envelope, the machine at each extreme posture,
        dimension lines, ground and swing axis.

        Parameters
        ----------
        path : str or Path, optional
            A file name.
        ax : object, optional
        """
        import matplotlib.pyplot as plt

        desc = self.study.description
        if ax is None:
            fig, ax = plt.subplots(figsize=(12, 8))
        else:
            fig = ax.figure
        env = self.envelope
        ax.fill(env[:, 0], env[:, 1], color="tab:blue", alpha=0.10, lw=0)
        ax.plot(env[:, 0], env[:, 1], color="tab:blue", lw=1.5, label=f"{self.point} envelope")
        g = self.ground
        xmin = min(float(env[:, 0].min()), -1.0)
        xmax = float(env[:, 0].max())
        ax.axhline(g, color="saddlebrown", lw=1.2)
        ax.fill_between([xmin - 1, xmax + 1], g - 0.25, g, color="saddlebrown", alpha=0.15, lw=0)
        ax.axvline(0.0, color="0.4", lw=0.8, ls="-.", label="x = 0: reach and radii are measured from it")
        colours = {"max_reach": "tab:red", "max_reach_ground": "tab:orange", "max_digging_depth": "tab:purple",
                   "max_cutting_height": "tab:green", "max_dump_height": "tab:brown"}
        kin = self.study.kinematics
        for key, colour in colours.items():
            d = self.dimensions.get(key)
            if d is None or not np.isfinite(d.value):
                continue
            try:
                poses = self.posture(d.lengths)
            except AssemblyError:
                continue
            label = f"{d.title}: {d.value:.2f} m"
            for name, part in kin.parts.items():
                for line in part.sketch(poses[name]):
                    xs, ys = zip(*line)
                    ax.plot(xs, ys, color=colour, lw=1.6, alpha=0.75, solid_capstyle="round", label=label)
                    label = None
            ax.plot(*d.point, "o", color=colour, ms=5)
            self._dimension_line(ax, d, colour)
        base = desc.base
        if base:
            label = "tipping lines ([base])"
            for xt in (base["tipping_line"], base["rear_tipping_line"]):
                if xt is not None:
                    ax.plot([xt], [g], marker="^", color="k", ms=8, ls="none", label=label)
                    xmin = min(xmin, xt - 0.5)
                    label = None
        ax.set_aspect("equal")
        ax.set_xlim(xmin - 0.8, xmax + 1.2)
        ymin = min(float(env[:, 1].min()), g) - 0.6
        ax.set_ylim(ymin, float(env[:, 1].max()) + 0.8)
        ax.set_xlabel("x from the frame origin [m]")
        ax.set_ylabel("y [m] (machine frame; ground at %.2f m)" % g)
        ax.grid(True, alpha=0.3)
        ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize="small")
        ax.set_title(f"{desc.name}: working range of the {self.point} "
                     f"({'×'.join(map(str, self.grid.shape))} stroke grid)")
        fig.tight_layout()
        return save_figure(fig, path)

    def _dimension_line(self, ax, d: Dimension, colour: str) -> None:
        g = self.ground
        x, y = d.point
        kw = dict(arrowprops=dict(arrowstyle="<->", color=colour, lw=1.0))
        if d.key in ("max_reach", "max_reach_ground"):
            yy = y if d.key == "max_reach_ground" else y + 0.35
            ax.annotate("", xy=(x, yy), xytext=(0.0, yy), **kw)
            ax.text(x / 2, yy + 0.08, f"{d.value:.2f} m", color=colour, ha="center", fontsize=8)
        else:
            ax.annotate("", xy=(x, y), xytext=(x, g), **kw)
            left = d.key == "max_cutting_height"
            ax.text(x - 0.12 if left else x + 0.12, (y + g) / 2 + (0.4 if left else 0.0), f"{d.value:.2f} m",
                    color=colour, fontsize=8, va="center", ha="right" if left else "left")


@one_blas_thread
def working_range(machine: Any, *, n: int | Mapping[str, int] = 50, point: str | None = None,
                  refine_extremes: bool = True, resolution: float = 0.02) -> WorkingRange:
    """The working range of any machine of the description format.

    Parameters
    ----------
    machine : path, MachineDescription, Machine or Study
    n : int or dict
        Lengths per stroke of the grid (default 50: 125 000 poses for three cylinders),
        or function → count.
    point : str, optional
        The ``[outputs.points]`` entry measured (default the first).
    refine_extremes : bool
        Refine each dimension continuously from its grid optimum (default).
    resolution : float
        Raster cell of the envelope (m).

    Returns
    -------
    WorkingRange

    Raises
    ------
    ParameterError
        No ground level (``[machine] ground``), no tool point, a bad grid.
    AssemblyError
        The start pose cannot be carried to the grid.

    Examples
    --------
    See the module and :class:`WorkingRange`.
    """
    study = Study.of(machine)
    desc = study.description
    if desc.ground is None:
        raise ParameterError(f"{desc.file.name}: the working range needs the ground level: give "
                             "[machine] ground (y of the ground in the machine frame, e.g. \"-1.70 m\")")
    if not (isinstance(resolution, (int, float)) and np.isfinite(resolution) and resolution > 0):
        raise ParameterError(f"envelope resolution {resolution!r}: expected a length > 0 (m)")
    name, part, pt = tool_point(desc, point)
    kin = study.kinematics
    pin = kin.parts[part].root.name
    T = time.perf_counter()
    grid = study.grid(n)
    if not grid.ok.any():
        raise AssemblyError(["no pose of the stroke box assembles"] + grid.failed(),
                            subject=f"working range of {desc.name}")
    timings = {"grid": time.perf_counter() - T}
    T = time.perf_counter()
    x, y = grid.point(part, pt)
    if not np.nanmax(x) > 0:
        raise ParameterError(f"working range of {desc.name}: the {name} stays at x ≤ 0 ({np.nanmax(x):.3f} m at "
                             "most): the dimensions are measured forward, in +x of the world frame; describe the "
                             "machine facing +x (toward its tool)")
    px, py = grid.point(part, pin)
    g = desc.ground
    probe = Probe(kin, grid, [(part, pt), (part, pin)])
    tip, pinkey = f"{part}/{pt}", f"{part}/{pin}"
    fn_of = {c: f for f, c in desc.cylinder_of.items()}
    dims: dict[str, Dimension] = {}

    def start_at(idx) -> dict[str, float]:
        return {c: float(grid.axes[c][k]) for c, k in zip(grid.cylinders, idx)}

    def make(key, ext: Extreme, value: float, measured: str, where: str, note: str = ""):
        dims[key] = Dimension(key, _DIMENSIONS[key], value, measured, ext.points[where],
                              {fn_of[c]: v for c, v in ext.lengths.items()}, ext.refined, note)

    def best(values, maximise, objective, vary=None, constraint=None, start=None):
        idx = np.unravel_index(np.nanargmax(values) if maximise else np.nanargmin(values), grid.shape)
        s0 = start or start_at(idx)
        if refine_extremes:
            return refine(probe, objective, s0, maximise=maximise, vary=vary, constraint=constraint)
        return refine(probe, objective, s0, maximise=maximise, vary=[])

    e = best(x, True, lambda p: p[tip][0])
    make("max_reach", e, e.value, name, tip)
    e = best(y, False, lambda p: p[tip][1])
    make("max_digging_depth", e, g - e.value, name, tip,
         f"negative: the {name} never goes below ground" if e.value > g else "")
    e = best(y, True, lambda p: p[tip][1])
    make("max_cutting_height", e, e.value - g, name, tip)
    # reach at ground level: the grid's crossings of the ground, then a constrained refinement
    cross = _ground_crossing(grid, x, y, g)
    if cross is None:
        dims["max_reach_ground"] = Dimension("max_reach_ground", _DIMENSIONS["max_reach_ground"], np.nan,
                                             name, (np.nan, np.nan), {}, False,
                                             f"the {name} never reaches ground level")
    else:
        s0, _ = cross
        if refine_extremes:
            e = refine(probe, lambda p: p[tip][0], s0, maximise=True, constraint=lambda p: p[tip][1] - g)
        else:
            e = refine(probe, lambda p: p[tip][0], s0, vary=[])
        make("max_reach_ground", e, e.value, name, tip)
    # dump height: the pin at its highest, then the tool turned to its lowest tip
    if kin.parent[part] is None:   # the point's part turns about a chassis pivot: no tool on a pin
        note = (f"the {part} turns about its chassis pivot {pin}: no tool pin to raise (measure a point "
                "on a part carried by another, e.g. a bucket's)")
        for key, what in (("max_pin_height", f"{part} pin {pin}"), ("max_dump_height", name)):
            dims[key] = Dimension(key, _DIMENSIONS[key], np.nan, what, (np.nan, np.nan), {}, False, note)
    else:
        pin_cyls = sorted(kin._deps(kin.parent[part][0], None))
        moving = {desc.cylinder_of[f] for f in study.moving_functions(part, pt)}
        tool = [c for c in kin.cylinders if c in moving and c not in pin_cyls]
        e = best(py, True, lambda p: p[pinkey][1], vary=pin_cyls or None)
        make("max_pin_height", e, e.value - g, f"{part} pin {pin}", pinkey)
        if tool:
            idx = tuple(int(np.argmin(np.abs(grid.axes[c] - e.lengths[c]))) if c in pin_cyls else slice(None)
                        for c in grid.cylinders)
            sub = np.where(np.isfinite(y[idx]), y[idx], np.inf)
            k = np.unravel_index(np.argmin(sub), sub.shape)
            s0 = dict(e.lengths)
            for c, kk in zip([c for c in grid.cylinders if c not in pin_cyls], k):
                s0[c] = float(grid.axes[c][kk])
            e2 = refine(probe, lambda p: p[tip][1], s0, vary=tool if refine_extremes else [])
            make("max_dump_height", e2, e2.value - g, name, tip,
                 f"{name} lowest ({', '.join(fn_of[c] for c in tool)} turned) with the {part} pin highest")
        else:
            make("max_dump_height", e, e.points[tip][1] - g, name, tip, "no tool function: at the highest pin")
    timings["dimensions"] = time.perf_counter() - T
    T = time.perf_counter()
    env = envelope(grid, x, y, resolution)
    timings["envelope"] = time.perf_counter() - T
    order = ["max_reach", "max_reach_ground", "max_digging_depth", "max_cutting_height", "max_dump_height",
             "max_pin_height"]
    return WorkingRange(study, grid, name, part, pin, env, {k: dims[k] for k in order}, timings)


def _ground_crossing(grid, x, y, g):
    """The grid edge where the tool point crosses the ground farthest out:
    ``(lengths, x)`` (interpolated), or None."""
    best = None
    for i, c in enumerate(grid.cylinders):
        if grid.shape[i] < 2:
            continue
        a = [slice(None)] * len(grid.shape)
        b = [slice(None)] * len(grid.shape)
        a[i], b[i] = slice(0, -1), slice(1, None)
        ya, yb = y[tuple(a)] - g, y[tuple(b)] - g
        xa, xb = x[tuple(a)], x[tuple(b)]
        hit = np.isfinite(ya) & np.isfinite(yb) & (ya * yb <= 0) & (ya != yb)
        if not hit.any():
            continue
        t = np.where(hit, ya / np.where(hit, ya - yb, 1.0), 0.0)
        xc = np.where(hit, xa + t * (xb - xa), -np.inf)
        j = np.unravel_index(np.argmax(xc), xc.shape)
        if best is None or xc[j] > best[1]:
            L = {cc: float(grid.axes[cc][jj]) for cc, jj in zip(grid.cylinders, j)}
            L[c] = float(grid.axes[c][j[i]] + t[j] * (grid.axes[c][j[i] + 1] - grid.axes[c][j[i]]))
            best = (L, float(xc[j]))
    return best


def envelope(grid, x: np.ndarray, y: np.ndarray, resolution: float = 0.02) -> np.ndarray:
    """Outline (K × 2, closed) of the grid's points ``(x, y)``.

    Every edge of the grid (neighbours along each axis) is drawn on a raster of cell
    ``resolution`` as a sampled segment, so the outline follows the image of the grid's
    boundary faces to within a chord's sagitta, however far apart neighbours land; holes
    are filled, the region widened by one cell (it then contains every reachable point)
    and traced with contourpy.

    Parameters
    ----------
    grid : BoxGrid or None
        Unused (the grid's structure is that of ``x`` and ``y``).
    x, y : ndarray
        Points on the grid (NaN where not assembled).
    resolution : float
        Raster cell (m).

    Returns
    -------
    ndarray, shape (K, 2)

    Examples
    --------
    A unit square sampled 11 × 11: the outline contains it and overstates it by about
    one 1 cm cell around:

    >>> import numpy as np
    >>> X, Y = np.meshgrid(np.linspace(0, 1, 11), np.linspace(0, 1, 11), indexing="ij")
    >>> e = envelope(None, X, Y, resolution=0.01)
    >>> area = 0.5 * abs(np.dot(e[:-1, 0], e[1:, 1]) - np.dot(e[1:, 0], e[:-1, 1]))
    >>> bool(1.0 < area < 1.0 + 4 * 0.02), e.min(axis=0), e.max(axis=0)
    (True, array([-0.015, -0.015]), array([1.015, 1.015]))
    """
    from contourpy import contour_generator
    from scipy import ndimage

    ok = np.isfinite(x) & np.isfinite(y)
    xs, ys = x[ok], y[ok]
    h = float(resolution)
    segs = []
    for i in range(x.ndim):
        if x.shape[i] < 2:
            continue
        sl_a = [slice(None)] * x.ndim
        sl_b = [slice(None)] * x.ndim
        sl_a[i], sl_b[i] = slice(0, -1), slice(1, None)
        ax_, ay_ = x[tuple(sl_a)].ravel(), y[tuple(sl_a)].ravel()
        bx, by = x[tuple(sl_b)].ravel(), y[tuple(sl_b)].ravel()
        good = np.isfinite(ax_) & np.isfinite(bx) & np.isfinite(ay_) & np.isfinite(by)
        segs.append((ax_[good], ay_[good], bx[good], by[good]))
    total = sum(float(np.sum(np.hypot(s[2] - s[0], s[3] - s[1]))) for s in segs)
    h = max(h, total / 4e6)               # at most a few million samples
    px, py = [xs], [ys]
    for ax_, ay_, bx, by in segs:
        n = np.maximum(1, np.ceil(np.hypot(bx - ax_, by - ay_) / h).astype(np.int64))
        idx = np.repeat(np.arange(len(n)), n)
        t = (np.arange(idx.size) - np.repeat(np.cumsum(n) - n, n)) / n[idx]
        px.append(ax_[idx] + t * (bx - ax_)[idx])
        py.append(ay_[idx] + t * (by - ay_)[idx])
    X, Y = np.concatenate(px), np.concatenate(py)
    pad = 4
    x0, y0 = X.min() - pad * h, Y.min() - pad * h
    nx = int(np.ceil((X.max() - x0) / h)) + pad + 1
    ny = int(np.ceil((Y.max() - y0) / h)) + pad + 1
    img = np.zeros((ny, nx), bool)
    img[np.round((Y - y0) / h).astype(int), np.round((X - x0) / h).astype(int)] = True
    img = ndimage.binary_closing(img, np.ones((3, 3), bool))
    img = ndimage.binary_fill_holes(img)
    img = ndimage.binary_dilation(img, np.ones((3, 3), bool))
    lines = contour_generator(z=img.astype(float)).lines(0.5)
    line = max(lines, key=len)
    out = np.column_stack([x0 + line[:, 0] * h, y0 + line[:, 1] * h])
    if not np.allclose(out[0], out[-1]):
        out = np.vstack([out, out[:1]])
    return out
