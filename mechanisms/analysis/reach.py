"""Working range of a planar front (ISO 7135 terms; a loader's ISO 7131 ones): envelope,
dimensions, the spec-sheet chart.

Every pose of the stroke box is solved at once (:mod:`.kinematics`, 50 lengths per
stroke by default); the tool point's positions give the envelope, and each dimension is
found on the grid and then refined continuously (:mod:`.optimise`), so an extreme
inside a stroke is found as exactly as one at a stroke end, and one held by a joint
range (``[limits]``) as exactly as one at a stroke end (the range met as an equality
there, and named in the notes). A dimension the refinement cannot settle is the grid's
value, reported so (``refined`` False) with the bound it may be off by (one grid step's
change), in the summary (``<key>_bound``), the CSV and the notes.

=====  ========================  ==============================================================
code   dimension                 what (distances from ``x = 0`` of the machine frame, the swing
                                 axis of an excavator; heights from ``[machine] ground``)
=====  ========================  ==============================================================
A      ``max_reach``             largest horizontal distance of the tool point
B      ``max_reach_ground``      largest horizontal distance of the tool point at ground level
C      ``max_digging_depth``     deepest tool point below ground
D      ``max_cutting_height``    highest tool point above ground
E      ``max_dump_height``       excavators: the tool point with the tool's pin at its highest
                                 and the tool in its dump position — turned fully open, its
                                 cylinder at the dump end of its stroke (``dump``, default
                                 retracted) or as far as a joint range lets it turn
F      ``max_pin_height``        highest position of the tool's pin (the bucket pin)
G      ``dump_clearance``        excavators: the tool point's lowest height as the tool turns
                                 through its stroke with the pin at its highest (what clears a
                                 truck body while dumping; the figure once reported as the dump
                                 height, with the bucket curled)
E      ``dump_height_45``        loaders (ISO 7131): the cutting edge with the bucket pin at
                                 its highest and the bucket floor 45° below the horizontal —
                                 or at the largest dump angle it reaches there, flagged
G      ``dump_reach_45``         loaders: that point's horizontal distance from ``x = 0``
=====  ========================  ==============================================================

Our reading of ISO 7135 (the hoe equipment's dimensions; in its 1993 edition, as SAE
J/ISO 7135 adopts it, the equipment's dimensions are clause 5.2 — we could not check the
2009 edition's numbering): the *maximum dumping height* is the height of the bucket's tip
with the bucket pin at its highest and the bucket in the dumping position, turned fully
open. Each dimension names its posture (``Dimension.posture``: which cylinder is where,
and for E how far the tip stands above or below the pin); on a front whose fully opened
bucket points up at the highest pin, E equals D and G is the truck-loading figure.

The tool point is an ``[outputs.points]`` entry (default the first: the bucket lip);
the tool's pin is the root pin of the part that carries it, and the *tool functions*
are the cylinders that do not move that pin (the bucket cylinder). ``[machine] kind``
chooses the standard: excavators get E and G above, loaders the ISO 7131 ones (with
:func:`.breakout_forces` for their digging forces), cranes neither.

The envelope is the outline of the grid's tool points with every grid edge drawn as a
segment on a raster (``resolution``, default 2 cm), holes filled and widened by one
cell: it contains every reachable tool point and overstates the region by about a
cell plus the sagitta of a grid step. Where it reaches into the machine's own tracks
(``[base] track_height``) the result says so (:attr:`WorkingRange.interference`) and the
chart hatches it.

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

from .optimise import LIMIT, Extreme, Probe, refine
from .progress import reports_progress
from .result import AnalysisResult, save_figure
from .study import Study
from .threads import one_blas_thread

__all__ = ["working_range", "WorkingRange", "Dimension", "tool_point", "LETTERS", "envelope"]

_DIMENSIONS = {
    "max_reach": "maximum reach",
    "max_reach_ground": "maximum reach at ground level",
    "max_digging_depth": "maximum digging depth",
    "max_cutting_height": "maximum cutting height",
    "max_dump_height": "maximum dump height",
    "dump_height_45": "dump height at a 45° dump angle",
    "max_pin_height": "maximum pin height",
    "dump_clearance": "dump clearance",
    "dump_reach_45": "dump reach at a 45° dump angle",
}
#: spec-sheet letters of the dimensions (the chart's and its table's)
LETTERS = {"max_reach": "A", "max_reach_ground": "B", "max_digging_depth": "C", "max_cutting_height": "D",
           "max_dump_height": "E", "dump_height_45": "E", "max_pin_height": "F", "dump_clearance": "G",
           "dump_reach_45": "G"}


@dataclass
class Dimension:
    """One working-range dimension, the point measured and the posture that gives it.

    ``refined`` False: the value is the grid's best pose, and ``bound`` (m) estimates how
    far it may be from the extreme (the change over one grid step); ``active`` names the
    joint ranges that hold the extreme (``"arm high"``); ``posture`` says how it is
    measured (the dump position, the dump angle reached).
    """

    key: str
    title: str
    value: float                         # m (NaN when the machine cannot reach it)
    measured: str                        # which point: the tool point or its pin
    point: tuple[float, float]           # where that point is (m)
    lengths: dict[str, float]            # function → cylinder length (m)
    refined: bool = True
    note: str = ""
    bound: float = 0.0                   # m: how far an unrefined value may be off (estimate)
    active: tuple[str, ...] = ()         # joint ranges at a bound there
    posture: str = ""                    # the posture measured, in words

    @property
    def letter(self) -> str:
        """The spec-sheet letter (A max reach, B reach at ground, ...)."""
        return LETTERS.get(self.key, "")

    def remark(self) -> str:
        """The note, with what a user must know: not refined (and by how much it may be off),
        joint ranges that hold it."""
        bits = [self.posture] if self.posture else []
        if self.note:
            bits.append(self.note)
        if self.active:
            bits.append("held by the joint range " + ", ".join(self.active))
        if not self.refined and np.isfinite(self.value):
            bits.append("NOT REFINED: the stroke grid's best pose, "
                        + (f"up to about {self.bound * 1e3:.0f} mm from the extreme (one grid step)"
                           if np.isfinite(self.bound) else "its distance from the extreme not estimated"))
        return "; ".join(bits)


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
    (['letter', 'dimension', 'title'], 'm')
    """

    name = "working-range"

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
        """Each dimension's value (m); a dimension left unrefined adds ``<key>_bound``, how far
        it may be off (m)."""
        out = {k: d.value for k, d in self.dimensions.items()}
        out.update({f"{k}_bound": d.bound for k, d in self.dimensions.items()
                    if not d.refined and np.isfinite(d.value)})
        return out

    @property
    def summary_units(self) -> dict[str, str]:
        """Metre for every :meth:`summary` entry."""
        return {k: "m" for k in self.summary()}

    def table(self):
        """One row per dimension: letter, key, title, value, whether refined and the bound of
        an unrefined one, the point measured and where, the cylinder lengths, the note."""
        import pandas as pd

        desc = self.study.description
        rows = []
        for d in self.dimensions.values():
            row = {"letter": d.letter, "dimension": d.key, "title": d.title, "value": d.value,
                   "refined": bool(d.refined), "bound": 0.0 if d.refined else d.bound, "measured": d.measured,
                   "x": d.point[0], "y": d.point[1]}
            row.update({f"{f}_length": d.lengths.get(f, np.nan) for f in desc.functions})
            row["note"] = d.remark()
            rows.append(row)
        df = pd.DataFrame(rows)
        df.attrs["units"] = {"value": "m", "bound": "m", "x": "m", "y": "m",
                             **{f"{f}_length": "m" for f in desc.functions}}
        return df

    def table_text(self) -> str:
        """The dimensions as a spec sheet: letter, title, value in mm, and the remarks (an
        unrefined value says so, with its bound)."""
        desc = self.study.description
        lines = [f"working range of {desc.name} ({desc.kind}), the {self.point}; heights from the ground, "
                 "reach from x = 0"]
        for d in self.dimensions.values():
            v = "—" if not np.isfinite(d.value) else f"{d.value * 1e3:8.0f} mm"
            lines.append(f"{d.letter or ' '}  {d.title:<34} {v:>11}   {d.remark()}")
        if self.interference:
            lines.append(self.interference)
        return "\n".join(lines)

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
    def undercarriage(self) -> np.ndarray | None:
        """The crawler tracks' outline (K × 2, machine frame, m): from the rear to the front
        tipping line, rounded by the idlers, ``[base] track_height`` high; None without it."""
        base = self.study.description.base
        if not base or not base.get("track_height") or base.get("rear_tipping_line") is None:
            return None
        h, g = base["track_height"], self.ground
        r = h / 2
        a = np.linspace(-np.pi / 2, np.pi / 2, 17)
        front = np.column_stack([base["tipping_line"] + r * np.cos(a), g + r + r * np.sin(a)])
        rear = np.column_stack([base["rear_tipping_line"] - r * np.cos(a), g + r - r * np.sin(a)])
        return np.vstack([front, rear, front[:1]])

    def plot(self, path: str | Path | None = None, ax: Any = None):
        """The working range as a spec sheet draws it: heights from the ground (at zero), a
        1 m grid, the envelope of the tool point, the machine's silhouette (the front at its
        start pose, the tracks of ``[base] track_height``), each dimension as a lettered
        dimension line set out beside the envelope, and a table of the letters with their
        values; where the envelope reaches into the tracks it is hatched and flagged.

        With ``ax`` the chart is drawn there and the table and the legend go inside it;
        otherwise in a new figure with the table and the legend in a panel of their own."""
        import matplotlib.pyplot as plt
        from matplotlib.patches import Polygon
        from matplotlib.ticker import MultipleLocator

        desc = self.study.description
        g = self.ground
        panel = None
        if ax is None:
            fig, (ax, panel) = plt.subplots(1, 2, figsize=(13, 8.5), width_ratios=[3.2, 1.25],
                                            layout="constrained")
            panel.axis("off")
        else:
            fig = ax.figure
        env = self.envelope
        ex, ey = env[:, 0], env[:, 1] - g
        ax.fill(ex, ey, color="tab:blue", alpha=0.10, lw=0, zorder=1)
        ax.plot(ex, ey, color="tab:blue", lw=1.5, label=f"envelope of the {self.point}", zorder=2)
        # the machine: the front at its start pose, the tracks
        kin = self.study.kinematics
        start = {f: kin.start.length(c) for f, c in desc.cylinder_of.items()}
        try:
            poses = self.posture(start)
        except AssemblyError:
            poses = None
        label = "the machine at its start pose"
        if poses is not None:
            for name, part in kin.parts.items():
                for line in part.sketch(poses[name]):
                    xs, ys = zip(*line)
                    ax.plot(xs, np.array(ys) - g, color="0.25", lw=1.8, solid_capstyle="round", zorder=5,
                            label=label)
                    label = None
        tracks = self.undercarriage()
        if tracks is not None:
            ax.add_patch(Polygon(np.column_stack([tracks[:, 0], tracks[:, 1] - g]), closed=True, facecolor="0.55",
                                 edgecolor="0.2", lw=1.0, zorder=4, label="tracks ([base] track_height)"))
            if self.interference:
                over = self._interference_region()
                if over is not None:
                    ax.add_patch(Polygon(np.column_stack([over[:, 0], over[:, 1] - g]), closed=True,
                                         facecolor="none", edgecolor="tab:red", hatch="////", lw=0.8, zorder=6,
                                         label="envelope inside the tracks"))
        ax.axhline(0.0, color="saddlebrown", lw=1.4, zorder=3, label="ground")
        xmin = min(float(ex.min()), -1.0, float(tracks[:, 0].min()) if tracks is not None else 0.0)
        xmax = float(ex.max())
        ymin, ymax = min(float(ey.min()), 0.0), float(ey.max())
        ax.fill_between([xmin - 3, xmax + 6], -0.3, 0.0, color="saddlebrown", alpha=0.15, lw=0, zorder=0)
        origin = "the swing axis" if desc.kind == "excavator" else "the machine frame's origin"
        ax.axvline(0.0, color="0.4", lw=0.8, ls="-.", zorder=2, label=f"x = 0 ({origin})")
        # the dimension lines: heights in a rack right of the envelope, reaches below it
        colours = {"A": "tab:red", "B": "tab:orange", "C": "tab:purple", "D": "tab:green", "E": "tab:brown",
                   "F": "tab:pink", "G": "tab:olive"}
        heights = [d for d in self.dimensions.values() if d.letter and np.isfinite(d.value)
                   and d.key not in ("max_reach", "max_reach_ground", "dump_reach_45")]
        reaches = [d for d in self.dimensions.values() if d.letter and np.isfinite(d.value)
                   and d.key in ("max_reach", "max_reach_ground", "dump_reach_45")]
        gap = 0.55
        rack = xmax + 0.6
        for k, d in enumerate(sorted(heights, key=lambda d: d.letter)):
            c = colours.get(d.letter, "k")
            x = rack + gap * k
            px, py = d.point[0], d.point[1] - g
            top = py
            ax.plot([px, x], [top, top], color=c, lw=0.7, ls=":", zorder=3)
            ax.annotate("", xy=(x, top), xytext=(x, 0.0),
                        arrowprops=dict(arrowstyle="<->", color=c, lw=1.0, shrinkA=0, shrinkB=0), zorder=3)
            ax.plot(px, py, "o", color=c, ms=4, zorder=7)
            self._letter(ax, x, top / 2, d.letter, c)
            if d.lengths:
                self._posture_sketch(ax, d, c)
        below = ymin - 0.6
        for k, d in enumerate(sorted(reaches, key=lambda d: d.letter)):
            c = colours.get(d.letter, "k")
            y = below - gap * k
            px, py = d.point[0], d.point[1] - g
            ax.plot([px, px], [py, y], color=c, lw=0.7, ls=":", zorder=3)
            ax.annotate("", xy=(px, y), xytext=(0.0, y),
                        arrowprops=dict(arrowstyle="<->", color=c, lw=1.0, shrinkA=0, shrinkB=0), zorder=3)
            ax.plot(px, py, "o", color=c, ms=4, zorder=7)
            self._letter(ax, px / 2, y, d.letter, c)
            if d.lengths:
                self._posture_sketch(ax, d, c)
        ax.set_aspect("equal")
        ax.set_xlim(xmin - 0.8, rack + gap * max(len(heights), 1) + 0.4)
        ax.set_ylim(below - gap * max(len(reaches), 1) - 0.3, ymax + 0.8)
        ax.xaxis.set_major_locator(MultipleLocator(1.0))
        ax.yaxis.set_major_locator(MultipleLocator(1.0))
        ax.grid(True, which="major", color="0.85", lw=0.6)
        ax.set_axisbelow(True)
        ax.set_xlabel(f"distance from x = 0 ({origin}) [m]")
        ax.set_ylabel("height above the ground [m]")
        ax.set_title(f"{desc.name}: working range of the {self.point} "
                     f"({ {'loader': 'ISO 7131 ', 'excavator': 'ISO 7135 '}.get(desc.kind, '')}dimensions; "
                     f"{'×'.join(map(str, self.grid.shape))} stroke grid)", fontsize=11)
        rows = [[d.letter, d.title, "—" if not np.isfinite(d.value) else f"{d.value:.2f} m"
                 + ("" if d.refined or not np.isfinite(d.value) else " *") + (" †" if "FLAGGED" in d.note else "")]
                for d in self.dimensions.values() if d.letter]
        rows.sort(key=lambda r: r[0])
        notes = []
        if any(not d.refined and np.isfinite(d.value) for d in self.dimensions.values()):
            notes.append("* not refined: the grid's value (see the table's bound)")
        flagged: dict[str, list[str]] = {}
        for d in self.dimensions.values():
            if "FLAGGED" in d.note:
                flagged.setdefault(d.posture, []).append(d.letter)
        notes += [f"† {', '.join(letters)}: {posture}" for posture, letters in flagged.items()]
        if self.interference:
            notes.append(self.interference)
        where = panel if panel is not None else ax
        tab = where.table(cellText=rows, colLabels=["", "dimension", "value"], loc="upper center",
                          colWidths=[0.08, 0.66, 0.26] if panel is not None else [0.03, 0.22, 0.08],
                          cellLoc="left")
        tab.auto_set_font_size(False)
        tab.set_fontsize(8.5)
        tab.scale(1.0, 1.3)
        handles, labels = ax.get_legend_handles_labels()
        if panel is not None:
            panel.legend(handles, labels, loc="lower center", fontsize="small", frameon=True)
            if notes:
                panel.text(0.0, 0.5, "\n".join(_wrap(n, 48) for n in notes), transform=panel.transAxes,
                           fontsize=7.5, va="center", ha="left", color="tab:red")
        else:
            ax.legend(handles, labels, loc="lower left", fontsize="x-small")
        return save_figure(fig, path)

    @staticmethod
    def _letter(ax, x, y, letter, colour):
        ax.text(x, y, letter, color=colour, fontsize=10, fontweight="bold", ha="center", va="center", zorder=8,
                bbox=dict(boxstyle="circle,pad=0.15", facecolor="white", edgecolor=colour, lw=0.8))

    def _posture_sketch(self, ax, d, colour):
        """The front at a dimension's posture, thin and light."""
        try:
            poses = self.posture(d.lengths)
        except AssemblyError:
            return
        for name, part in self.study.kinematics.parts.items():
            for line in part.sketch(poses[name]):
                xs, ys = zip(*line)
                ax.plot(xs, np.array(ys) - self.ground, color=colour, lw=0.8, alpha=0.35, zorder=2)

    @property
    def interference(self) -> str:
        """Where the envelope reaches into the machine's own tracks (``[base]
        track_height``), in words; empty when it does not or the tracks are not given."""
        over = self._interference_region()
        if over is None:
            return ""
        g = self.ground
        return (f"INTERFERENCE: the envelope of the {self.point} reaches into the tracks at x "
                f"{over[:, 0].min():.2f} … {over[:, 0].max():.2f} m, up to {over[:, 1].max() - g:.2f} m above the "
                "ground: the poses there would hit the undercarriage")

    def _interference_region(self) -> np.ndarray | None:
        """The part of the tracks' outline the envelope covers, as the convex hull of the
        covered points of a 2 cm raster (K × 2), or None."""
        tracks = self.undercarriage()
        if tracks is None:
            return None
        from matplotlib.path import Path as MplPath
        from scipy.spatial import ConvexHull

        x0, x1 = tracks[:, 0].min(), tracks[:, 0].max()
        y0, y1 = tracks[:, 1].min(), tracks[:, 1].max()
        X, Y = np.meshgrid(np.arange(x0, x1 + 1e-9, 0.02), np.arange(y0, y1 + 1e-9, 0.02))
        P = np.column_stack([X.ravel(), Y.ravel()])
        inside = MplPath(tracks).contains_points(P) & MplPath(self.envelope).contains_points(P)
        if inside.sum() < 3:
            return None
        pts = P[inside]
        try:
            hull = ConvexHull(pts)
        except Exception:  # noqa: BLE001 - collinear points: a thin strip, drawn as its bounding box
            return np.array([[pts[:, 0].min(), pts[:, 1].min()], [pts[:, 0].max(), pts[:, 1].min()],
                             [pts[:, 0].max(), pts[:, 1].max()], [pts[:, 0].min(), pts[:, 1].max()]])
        return pts[hull.vertices]


def _wrap(text: str, width: int) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(text, width))


@one_blas_thread
@reports_progress("working range")
def working_range(machine: Any, *, n: int | Mapping[str, int] = 50, point: str | None = None,
                  refine_extremes: bool = True, resolution: float = 0.02, dump: str = "retract",
                  progress: bool = True) -> WorkingRange:
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
    dump : "retract" or "extend"
        The end of the tool functions' strokes that turns the tool open, its dump position
        (default ``"retract"``: a backhoe's bucket cylinder and a Z-bar loader's tilt
        cylinder dump retracting; their digging stroke extends, as :func:`.tool_forces`
        assumes).
    progress : bool
        A progress bar over the stroke grid's poses once the work has taken a second
        (:mod:`mechanisms.analysis.progress`); ``False`` silences it.

    Returns
    -------
    WorkingRange

    Raises
    ------
    ParameterError
        No ground level (``[machine] ground``), no tool point, a bad grid, a bad ``dump``.
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
    if dump not in ("retract", "extend"):
        raise ParameterError(f"working range: dump = {dump!r}, expected 'retract' or 'extend' (the end of the "
                             "tool's stroke that turns it open)")
    tool_point(desc, point)                          # a bad point is named before any work
    # the working range is of the geometry alone: a change that leaves it (a bore, a mass) reuses it
    key = ("working-range", repr(n), point, refine_extremes, resolution, dump, desc.ground, desc.kind,
           repr(desc.output_points), repr(sorted(desc.cylinder_of.items())))
    return study._remember(key, lambda: _working_range(study, n, point, refine_extremes, resolution, dump))


def _working_range(study: Study, n, point, refine_extremes: bool, resolution: float, dump: str) -> WorkingRange:
    """:func:`working_range` of the study's present description, its arguments checked."""
    desc = study.description
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

    def make(key, ext: Extreme, value: float, measured: str, where: str, posture: str = "", note: str = ""):
        dims[key] = Dimension(key, _DIMENSIONS[key], value, measured, ext.points[where],
                              {fn_of[c]: v for c, v in ext.lengths.items()}, ext.refined, note, ext.bound,
                              ext.active, posture)

    def best(values, maximise, objective, vary=None, constraint=None, start=None):
        idx = np.unravel_index(np.nanargmax(values) if maximise else np.nanargmin(values), grid.shape)
        s0 = start or start_at(idx)
        return refine(probe, objective, s0, maximise=maximise, vary=vary, constraint=constraint,
                      optimise=refine_extremes)

    e = best(x, True, lambda p: p[tip][0])
    make("max_reach", e, e.value, name, tip)
    e = best(y, False, lambda p: p[tip][1])
    make("max_digging_depth", e, g - e.value, name, tip,
         note=f"negative: the {name} never goes below ground" if e.value > g else "")
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
        e = refine(probe, lambda p: p[tip][0], s0, maximise=True, constraint=lambda p: p[tip][1] - g,
                   optimise=refine_extremes)
        make("max_reach_ground", e, e.value, name, tip)
    # the tool's pin and, for an excavator, the dump height
    if kin.parent[part] is None:   # the point's part turns about a chassis pivot: no tool on a pin
        note = (f"the {part} turns about its chassis pivot {pin}: no tool pin to raise (measure a point "
                "on a part carried by another, e.g. a bucket's)")
        keys = [("max_pin_height", f"{part} pin {pin}")]
        if desc.kind == "excavator":
            keys += [("max_dump_height", name), ("dump_clearance", name)]
        for key, what in keys:
            dims[key] = Dimension(key, _DIMENSIONS[key], np.nan, what, (np.nan, np.nan), {}, False, note)
    else:
        pin_cyls = sorted(kin._deps(kin.parent[part][0], None))
        moving = {desc.cylinder_of[f] for f in study.moving_functions(part, pt)}
        tool = [c for c in kin.cylinders if c in moving and c not in pin_cyls]
        e = best(py, True, lambda p: p[pinkey][1], vary=pin_cyls or None)
        make("max_pin_height", e, e.value - g, f"{part} pin {pin}", pinkey, "the pin at its highest")
        if desc.kind == "excavator":
            _dump_dimensions(dims, make, grid, probe, y, e, pin_cyls, tool, dump, refine_extremes, name, part,
                             tip, fn_of, g)
    timings["dimensions"] = time.perf_counter() - T
    T = time.perf_counter()
    env = envelope(grid, x, y, resolution)
    timings["envelope"] = time.perf_counter() - T
    if desc.kind == "loader":
        from .loading import dump_at_angle

        top = dims["max_pin_height"]
        if np.isfinite(top.value):
            dims.update(dump_at_angle(study, grid, top, part, pt, name, refine_extremes))
        else:
            for key in ("dump_height_45", "dump_reach_45"):
                dims[key] = Dimension(key, _DIMENSIONS[key], np.nan, name, (np.nan, np.nan), {}, False, top.note)
    order = [k for k in _DIMENSIONS if k in dims]
    return WorkingRange(study, grid, name, part, pin, env, {k: dims[k] for k in order}, timings)


def _dump_dimensions(dims, make, grid, probe, y, pin_top, pin_cyls, tool, dump, refine_extremes, name, part,
                     tip, fn_of, g) -> None:
    """ISO 7135 maximum dumping height (the tip with the tool's pin at its highest and the
    tool in its dump position: its cylinders at the dump end of their strokes, or as far as
    a joint range lets them go) and the dump clearance (the tip's lowest point as the tool
    turns, the pin at its highest), into ``dims``."""
    if not tool:
        make("max_dump_height", pin_top, pin_top.points[tip][1] - g, name, tip,
             "no tool function: at the highest pin")
        return
    retract = dump == "retract"
    verb = "retracted" if retract else "extended"
    tools = ", ".join(fn_of[c] for c in tool)
    kin = probe.kin
    s0 = dict(pin_top.lengths)
    for c in tool:
        s0[c] = kin.parts[c].length_limits[0 if retract else 1]
    pts, ok = probe.at({c: np.array([v]) for c, v in s0.items()})
    margins = [float(np.asarray(m)[0]) for k, v in pts.items() if k.startswith(LIMIT) for m in v]
    if ok[0] and all(m >= 0 for m in margins):     # the stroke end: exactly there
        e = refine(probe, lambda p: p[tip][1], s0, vary=[], optimise=False)
        e.refined, e.bound, e.active = pin_top.refined, pin_top.bound, pin_top.active
        posture = f"{part} pin at its highest, dump position: {tools} cylinder fully {verb}"
    else:                                          # a joint range stops the tool: turned as far as it allows
        sign = 1.0 if retract else -1.0
        e = refine(probe, lambda p: sum(sign * p[f"length:{c}"] for c in tool), pin_top.lengths, vary=tool,
                   optimise=refine_extremes)
        L = {c: np.array([v]) for c, v in e.lengths.items()}
        pts, _ = probe.at(L)
        first = {k: tuple(float(np.asarray(a)[0]) for a in v) if isinstance(v, tuple) else float(np.asarray(v)[0])
                 for k, v in pts.items()}
        e = Extreme(first[tip][1], e.lengths, first, e.refined and pin_top.refined,
                    pin_top.bound if e.refined else np.nan, tuple(dict.fromkeys(pin_top.active + e.active)))
        posture = (f"{part} pin at its highest, dump position: {tools} turned open as far as the joint range "
                   f"{', '.join(e.active) or 'allows'}")
    rise = e.points[tip][1] - pin_top.points[f"{part}/{kin.parts[part].root.name}"][1]
    posture += f" (the {name} {abs(rise):.2f} m {'above' if rise > 0 else 'below'} the pin)"
    make("max_dump_height", e, e.value - g, name, tip, posture,
         "ISO 7135 maximum dumping height (our reading: the tip with the bucket pin at its highest and "
         "the bucket in its dump position, turned fully open)")
    # the dump clearance: the pin at its highest, the tip's lowest point as the tool turns
    cyls = grid.cylinders
    idx = tuple(int(np.argmin(np.abs(grid.axes[c] - pin_top.lengths[c]))) if c in pin_cyls else slice(None)
                for c in cyls)
    sub = np.where(np.isfinite(y[idx]), y[idx], np.inf)
    k = np.unravel_index(np.argmin(sub), sub.shape)
    s0 = dict(pin_top.lengths)
    for c, kk in zip([c for c in cyls if c not in pin_cyls], k):
        s0[c] = float(grid.axes[c][kk])
    e2 = refine(probe, lambda p: p[tip][1], s0, vary=tool, optimise=refine_extremes)
    if not pin_top.refined:    # the pin's posture is the grid's: its bound carries over
        e2 = Extreme(e2.value, e2.lengths, e2.points, False, e2.bound + pin_top.bound, e2.active)
    make("dump_clearance", e2, e2.value - g, name, tip,
         f"the {part} pin at its highest, the {name} at its lowest as {tools} turns",
         "the least height of the tip while the tool turns at the highest pin (clearance over a truck body)")


def _violated(grid, idx) -> list[tuple[str, int]]:
    """The joint ranges a grid node lies outside: ``(name, 0 low | 1 high)``."""
    from .kinematics import limit_margins

    ang = {u: np.broadcast_to(v, grid.shape)[idx] for u, v in grid.angles.items()}
    out = []
    for nm, (below, above) in limit_margins(ang, grid.limits).items():
        if below < 0:
            out.append((nm, 0))
        if above < 0:
            out.append((nm, 1))
    return out


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
        segs.append((ax_, ay_, bx, by) if good.all() else (ax_[good], ay_[good], bx[good], by[good]))
    img, x0, y0, h = _raster(xs, ys, segs, h)
    img = ndimage.binary_closing(img, np.ones((3, 3), bool))
    img = _fill_holes(img)
    img = ndimage.binary_dilation(img, np.ones((3, 3), bool))
    lines = contour_generator(z=img.astype(float)).lines(0.5)
    line = max(lines, key=len)
    out = np.column_stack([x0 + line[:, 0] * h, y0 + line[:, 1] * h])
    if not np.allclose(out[0], out[-1]):
        out = np.vstack([out, out[:1]])
    return out


def _fill_holes(img: np.ndarray) -> np.ndarray:
    """``scipy.ndimage.binary_fill_holes`` in one labelling pass: the background's pieces
    (4-connected, as there) that touch the border stay background, every other piece is
    filled."""
    from scipy import ndimage

    lab, _ = ndimage.label(~img)
    border = np.unique(np.concatenate([lab[0], lab[-1], lab[:, 0], lab[:, -1]]))
    return ~np.isin(lab, border[border > 0])


def _raster(xs: np.ndarray, ys: np.ndarray, segs: list, h: float) -> tuple[np.ndarray, float, float, float]:
    """The cells (``img[row, col]``, origin ``x0, y0``, cell ``h``) that the points ``xs, ys``
    and the segments ``segs`` (``(ax, ay, bx, by)`` arrays) sampled every ``h`` or closer
    fall in; ``h`` grows so that at most a few million samples are drawn.

    A segment of length ``s`` is sampled at ``a + t (b - a)``, ``t = j / n``, ``j < n``,
    ``n = ceil(s / h)``: the segments are taken in groups of one ``n``, each group one
    broadcast product (no per-sample gather); ``j = 0`` is the segment's start, a point of
    ``xs, ys`` already drawn. The samples are bit for bit those of the plain form, so the
    image is the same cell for cell. The samples are drawn in C when a compiler is found
    (:mod:`.raster`: the same operations, one loop), else in numpy as described.
    """
    lens = [np.hypot(bx - ax_, by - ay_) for ax_, ay_, bx, by in segs]
    h = max(h, sum(float(np.sum(s)) for s in lens) / 4e6)
    native = _raster_native(xs, ys, segs, lens, h)
    if native is not None:
        return native
    samples = [(xs, ys)]
    for (ax_, ay_, bx, by), s in zip(segs, lens):
        n = np.maximum(1, np.ceil(s / h).astype(np.int64))
        small = n.max(initial=1) < 2 ** 15            # then a radix sort on 16 bits: the same order, sooner
        order = np.argsort(n.astype(np.int16) if small else n, kind="stable")
        ns = n[order]
        cuts = np.flatnonzero(np.diff(ns)) + 1
        for i0, i1 in zip(np.concatenate([[0], cuts]), np.concatenate([cuts, [len(ns)]])):
            m = int(ns[i0])
            if m == 1:
                continue
            sel = order[i0:i1]
            t = np.arange(1, m) / m
            a_x, a_y = ax_[sel], ay_[sel]
            px = (bx[sel] - a_x)[:, None] * t
            px += a_x[:, None]
            py = (by[sel] - a_y)[:, None] * t
            py += a_y[:, None]
            samples.append((px.ravel(), py.ravel()))
    pad = 4
    x0 = min(float(p.min()) for p, _ in samples if p.size) - pad * h
    y0 = min(float(p.min()) for _, p in samples if p.size) - pad * h
    nx = int(np.ceil((max(float(p.max()) for p, _ in samples if p.size) - x0) / h)) + pad + 1
    ny = int(np.ceil((max(float(p.max()) for _, p in samples if p.size) - y0) / h)) + pad + 1
    flat = np.zeros(ny * nx, bool)
    for j, (px, py) in enumerate(samples):
        col = px - x0 if j == 0 else np.subtract(px, x0, out=px)     # the samples are ours to overwrite
        col /= h
        row = py - y0 if j == 0 else np.subtract(py, y0, out=py)
        row /= h
        np.rint(row, out=row)
        row *= nx                                   # whole numbers below 2**53: exact in floats
        row += np.rint(col, out=col)
        flat[row.astype(np.int64)] = True
    return flat.reshape(ny, nx), x0, y0, h


def _raster_native(xs, ys, segs, lens, h):
    """:func:`_raster` with the segments' samples measured and marked in C
    (:func:`.raster.mark_segments`); the points ``xs, ys`` as in numpy. ``None`` without a
    C compiler."""
    from .raster import mark_segments

    counts = [np.maximum(1, np.ceil(s / h).astype(np.int64)) for s in lens]
    ext = mark_segments(None, 0, 0.0, 0.0, h, segs, counts)
    if ext is None:
        return None
    pad = 4
    lo_x = [float(xs.min())] if xs.size else []
    lo_y = [float(ys.min())] if ys.size else []
    hi_x = [float(xs.max())] if xs.size else []
    hi_y = [float(ys.max())] if ys.size else []
    if np.isfinite(ext[0]):           # some segment has samples
        lo_x.append(ext[0]), hi_x.append(ext[1]), lo_y.append(ext[2]), hi_y.append(ext[3])
    x0 = min(lo_x) - pad * h
    y0 = min(lo_y) - pad * h
    nx = int(np.ceil((max(hi_x) - x0) / h)) + pad + 1
    ny = int(np.ceil((max(hi_y) - y0) / h)) + pad + 1
    flat = np.zeros(ny * nx, bool)
    col = xs - x0
    col /= h
    row = ys - y0
    row /= h
    np.rint(row, out=row)
    row *= nx
    row += np.rint(col, out=col)
    flat[row.astype(np.int64)] = True
    mark_segments(flat, nx, x0, y0, h, segs, counts)
    return flat.reshape(ny, nx), x0, y0, h
