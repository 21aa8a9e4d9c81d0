"""How mechanisms, machines, poses and runs show themselves in a notebook.

The classes delegate IPython's display methods (``_repr_html_``) here; their plain
``repr`` stays short and text-only:

* :func:`draw_pose` — the parts at a pose, each hinge point labelled with its port
  classes (``Rt``, ``Pd``, ``Pr``, ``Li``), the chassis pins, every cylinder with the share
  of its stroke in use, the output points and the ground; the drawing of
  :func:`mechanism_html`, :func:`machine_html`, :func:`pose_html` and of
  :class:`~mechanisms.machine.explore.Explorer`;
* :func:`pose_rows` — a pose as a small table: cylinder lengths and stroke use, part
  angles, output points;
* :func:`mechanism_summary` — one line: parts, functions, mobility, drives or mode;
* :func:`run_html` — a machine run: span, solver, steps, contacts, flags and a small plot
  of the output paths;
* :func:`causal_diagram_svg` — a :class:`~mechanisms.MechanismModel` as its part-level
  causal diagram (:func:`mechanisms.drawing.draw_causal_diagram`).

Examples
--------
>>> from mechanisms.examples import single_boom
>>> mech = single_boom()
>>> pose = mech.solve_pose({"boom_cyl": 3.2}, guess={"boom": 0.4})
>>> [r[0] for r in pose_rows(pose)][:3]
['boom_cyl length', 'boom_cyl stroke used', 'boom angle']
>>> mechanism_summary(mech)
'boom_lift: 2 parts (1 body, 1 cylinder), 1 cylinder function (boom_cyl), mobility 1; drives: boom_cyl force'
"""

from __future__ import annotations

import html
import math
from typing import Any

import numpy as np

from bondgraph.display import figure_svg, html_table, new_figure

__all__ = ["draw_pose", "pose_rows", "pose_html", "mechanism_summary", "mechanism_html", "machine_html",
           "run_html", "stroke_use", "free_points", "causal_diagram_svg"]

_COL = {"body": "#1f77b4", "lever": "#2ca02c", "cylinder": "#d62728"}
#: a cylinder this close to a stroke end (share of the stroke) is drawn in bold
NEAR_END = 0.05


def _info(mech) -> Any:
    """The machine description a mechanism was assembled from (None for a bare mechanism)."""
    return getattr(mech, "description", None)


def stroke_use(part, length: float) -> float:
    """Share of a cylinder's stroke in use at pin-to-pin ``length`` (0 retracted, 1 extended).

    Parameters
    ----------
    part : Cylinder
    length : float
        m.

    Returns
    -------
    float

    Examples
    --------
    >>> from components import Cylinder
    >>> stroke_use(Cylinder("c", retracted=1.0, stroke=0.5), 1.25)
    0.5
    """
    return (float(length) - part.retracted) / part.stroke


def free_points(mech) -> list[tuple[str, str]]:
    """The points of a mechanism neither pinned to the chassis nor hinged: its load points
    (a bucket's tip, a hook), what a pose's table reports when no outputs are named.

    Parameters
    ----------
    mech : Mechanism

    Returns
    -------
    list of (part, point)

    Examples
    --------
    >>> from mechanisms.examples import single_boom
    >>> free_points(single_boom())
    [('boom', 'D'), ('boom', 'F')]
    """
    used = set(mech.fixed) | {(hp.part, hp.name) for h in mech.hinges for hp in h}
    return [(p, q) for p, part in mech.parts.items() for q in part.points if (p, q) not in used]


def _outputs(mech) -> dict[str, tuple[str, str]]:
    desc = _info(mech)
    if desc is not None and desc.output_points:
        return dict(desc.output_points)
    return {f"{p}.{q}": (p, q) for p, q in free_points(mech)}


def _label(mech, cyl: str) -> str:
    desc = _info(mech)
    if desc is not None and cyl in desc.parts:
        try:
            f = desc.function_of(cyl)
        except Exception:  # noqa: BLE001 - a cylinder of no function is named by itself
            return cyl
        return f if f == cyl else f"{f} ({cyl})"
    return cyl


def pose_rows(pose) -> list[tuple[str, str, str]]:
    """A pose as rows ``(quantity, value, unit)``: each cylinder's length and the share of its
    stroke in use, each body's and lever's angle, the output points (a machine's
    ``[outputs.points]``; for a bare mechanism its free points).

    Parameters
    ----------
    pose : Pose

    Returns
    -------
    list of (str, str, str)

    Examples
    --------
    >>> from mechanisms.examples import single_boom
    >>> pose = single_boom().solve_pose({"boom_cyl": 3.2}, guess={"boom": 0.4})
    >>> pose_rows(pose)[0]
    ('boom_cyl length', '3.2000', 'm')
    """
    from components import Cylinder

    mech = pose.mechanism
    rows = []
    for name, part in mech.parts.items():
        if isinstance(part, Cylinder):
            L = pose.length(name)
            rows.append((f"{_label(mech, name)} length", f"{L:.4f}", "m"))
            rows.append((f"{_label(mech, name)} stroke used", f"{100 * stroke_use(part, L):.1f}", "%"))
    for name, part in mech.parts.items():
        if not isinstance(part, Cylinder):
            rows.append((f"{name} angle", f"{math.degrees(pose.angle(name)):.2f}", "deg"))
    pts = pose.points()
    for out, (part, point) in _outputs(mech).items():
        x, y = pts[f"{part}/{point}"]
        rows.append((f"{out} x", f"{x:.4f}", "m"))
        rows.append((f"{out} y", f"{y:.4f}", "m"))
    return rows


def draw_pose(pose, ax=None, *, title: str | None = None, ground: float | None = None, labels: bool = True):
    """Draw a pose: parts, hinge points with their port classes, chassis pins, cylinders
    with their stroke use, output points and the ground.

    Parameters
    ----------
    pose : Pose
    ax : matplotlib Axes, optional
        Default: a new figure pyplot does not hold.
    title : str, optional
    ground : float, optional
        Ground level (m); default the machine's ``[machine] ground``.
    labels : bool
        Label hinge points with their port classes and cylinders with their stroke use.

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> from mechanisms.examples import single_boom
    >>> pose = single_boom().solve_pose({"boom_cyl": 3.2}, guess={"boom": 0.4})
    >>> ax = draw_pose(pose)
    >>> ax.get_xlabel(), ax.get_ylabel(), any("%" in t.get_text() for t in ax.texts)
    ('x [m]', 'y [m]', True)
    """
    from components import Cylinder

    mech = pose.mechanism
    desc = _info(mech)
    if ax is None:
        ax = new_figure((6.0, 4.2)).add_subplot()
    if ground is None and desc is not None:
        ground = desc.ground
    pts = pose.points()
    xs = [p[0] for p in pts.values()]
    ys = [p[1] for p in pts.values()]
    size = max(max(xs) - min(xs), max(ys) - min(ys), 1e-3)
    for name, part in mech.parts.items():
        v = pose.values[name]
        lines = part.sketch(v)
        if isinstance(part, Cylinder):
            use = stroke_use(part, v[3])
            near = use < NEAR_END or use > 1 - NEAR_END
            for k, seg in enumerate(lines):
                sx, sy = zip(*seg)
                ax.plot(sx, sy, color=_COL["cylinder"], lw=5.0 if k == 0 else 2.0, alpha=0.85 if k == 0 else 1.0,
                        solid_capstyle="butt", zorder=2)
            if labels:
                a, b = pts[f"{name}/{part.root.name}"], pts[f"{name}/{part.tip}"]
                ax.text((a[0] + b[0]) / 2, (a[1] + b[1]) / 2, f"{_label(mech, name).split(' (')[0]} {100 * use:.0f} %",
                        fontsize=6.5, color="#8b0000", ha="center", va="center",
                        fontweight="bold" if near else "normal", zorder=5,
                        bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.7))
        else:
            for seg in lines:
                sx, sy = zip(*seg)
                ax.plot(sx, sy, color=_COL.get(part.kind, "0.3"), lw=2.2, solid_joinstyle="round", zorder=1)
    # hinge points: one marker per place, labelled with the port classes met there
    places: dict[tuple[float, float], set[str]] = {}
    for key, xy in pts.items():
        part, point = key.split("/")
        cls = mech.parts[part].points[point].cls.value
        places.setdefault((round(xy[0], 6), round(xy[1], 6)), set()).add(cls)
    order = {"Rt": 0, "Li": 1, "Pd": 2, "Pr": 3}
    for (x, y), classes in places.items():
        ax.plot(x, y, "o", ms=4, mfc="white", mec="0.1", mew=0.8, zorder=4)
        if labels:
            ax.annotate("·".join(sorted(classes, key=lambda c: order.get(c, 9))), (x, y), xytext=(3, 3),
                        textcoords="offset points", fontsize=5.5, color="navy", zorder=6)
    for (part, point), at in mech.fixed.items():
        ax.plot(*at, marker="^", ms=8, color="0.15", zorder=3)
    for out, (part, point) in _outputs(mech).items():
        x, y = pts[f"{part}/{point}"]
        ax.plot(x, y, "*", ms=9, color="tab:orange", mec="0.2", mew=0.5, zorder=5)
        ax.annotate(out, (x, y), xytext=(4, -9), textcoords="offset points", fontsize=7, color="tab:orange")
    lo_y = min(ys)
    if ground is not None:
        ax.axhline(ground, color="saddlebrown", ls="--", lw=1.0, zorder=0)
        lo_y = min(lo_y, ground)
    pad = 0.08 * size
    ax.set_xlim(min(xs) - pad, max(xs) + pad)
    ax.set_ylim(lo_y - pad, max(ys) + pad)
    ax.set_aspect("equal")
    ax.grid(True, alpha=0.3)
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.tick_params(labelsize=7)
    ax.set_title(title if title is not None else f"{mech.name}: points by port class, cylinders by stroke used "
                 "(▲ chassis pin, ★ output)", fontsize=8)
    return ax


def pose_html(pose) -> str:
    """A pose as HTML: its table (:func:`pose_rows`) beside its drawing.

    Parameters
    ----------
    pose : Pose

    Returns
    -------
    str

    Examples
    --------
    >>> from mechanisms.examples import single_boom
    >>> pose = single_boom().solve_pose({"boom_cyl": 3.2}, guess={"boom": 0.4})
    >>> "boom_cyl length" in pose_html(pose)
    True
    """
    cached = pose.__dict__.get("_html_cache")
    if cached is not None:
        return cached
    svg = figure_svg(draw_pose(pose, new_figure((4.6, 3.3)).add_subplot(), title="").figure)
    out = ('<div style="display:flex;gap:12px;align-items:flex-start">'
           + html_table(pose_rows(pose), ("pose of " + pose.mechanism.name, "value", "unit"))
           + f"<div>{svg}</div></div>")
    pose.__dict__["_html_cache"] = out
    return out


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def mechanism_summary(mech, mode: str | None = None) -> str:
    """One line: parts by kind, cylinder functions, mobility (Grübler), the drives (or the
    machine's ``mode``).

    Parameters
    ----------
    mech : Mechanism
    mode : str, optional
        A machine's driving mode (said instead of the mechanism's own drives).

    Returns
    -------
    str

    Examples
    --------
    >>> from mechanisms.machine import Machine, DATA
    >>> mechanism_summary(Machine.from_file(DATA / "knuckle_crane.toml", mode="forces").mechanism, "forces")
    'knuckle_crane: 4 parts (2 bodies, 2 cylinders), 2 cylinder functions (lift, fold), mobility 2; mode forces'
    """
    from collections import Counter

    from .machine.check import mobility

    kinds = Counter(p.kind for p in mech.parts.values())
    order = ("body", "lever", "cylinder")
    names = {"body": ("body", "bodies")}
    bits = ", ".join(_count(kinds[k], k) if k != "body" else (f"{kinds[k]} " + names[k][kinds[k] != 1])
                     for k in order if kinds[k])
    cyls = [n for n, p in mech.parts.items() if p.kind == "cylinder"]
    funcs = [_label(mech, c).split(" (")[0] for c in cyls]
    try:
        M = str(mobility(mech)["M"])
    except Exception:  # noqa: BLE001 - an unfinished mechanism has no count yet
        M = "?"
    line = (f"{mech.name}: {_count(len(mech.parts), 'part')} ({bits}), "
            f"{_count(len(cyls), 'cylinder function')} ({', '.join(funcs) or 'none'}), mobility {M}")
    if mode is not None:
        return line + f"; mode {mode}"
    drives = ", ".join(f"{c} {d.kind}" for c, d in mech.drives.items())
    undriven = [c for c in cyls if c not in mech.drives]
    if undriven:
        drives += (", " if drives else "") + "undriven: " + ", ".join(undriven)
    return line + f"; drives: {drives or 'none'}"


def _mechanism_pose(mech):
    """The pose a mechanism shows: the last one solved, else its cylinders at mid-stroke
    (solved once and kept for the display; the mechanism's last pose is left as it was)."""
    pose = getattr(mech, "_last_pose", None)
    if pose is not None and set(pose.values) == set(mech.parts):
        return pose, "last pose solved"
    from components import Cylinder

    parts = tuple((n, id(p)) for n, p in mech.parts.items())
    kept = mech.__dict__.get("_mid_stroke_pose")
    if kept is not None and kept[0] == (parts, len(mech.hinges), len(mech.fixed)):
        return kept[1], "cylinders at mid-stroke (no pose solved yet)"
    targets = {n: p.retracted + p.stroke / 2 for n, p in mech.parts.items() if isinstance(p, Cylinder)}
    try:
        pose = mech.solve_pose(targets)
    except Exception:  # noqa: BLE001 - not assembled yet, or mid-stroke does not close
        pose = None
    finally:
        mech.__dict__["_last_pose"] = None      # showing a mechanism solves no pose of the user's
    mech.__dict__["_mid_stroke_pose"] = ((parts, len(mech.hinges), len(mech.fixed)), pose)
    return pose, "cylinders at mid-stroke (no pose solved yet)"


def mechanism_html(mech) -> str:
    """A mechanism as HTML: its summary line and a drawing of its last solved pose (or, before
    one, its cylinders at mid-stroke); a mechanism that cannot be posed yet shows why.

    Parameters
    ----------
    mech : Mechanism

    Returns
    -------
    str

    Examples
    --------
    >>> from mechanisms.examples import single_boom
    >>> mech = single_boom()
    >>> _ = mech.solve_pose({"boom_cyl": 3.2}, guess={"boom": 0.4})
    >>> html = mechanism_html(mech)
    >>> "mobility 1" in html and "<svg" in html and "last pose solved" in html
    True
    """
    cached = getattr(mech, "_html_cache", None)
    pose, what = _mechanism_pose(mech)
    key = (id(pose), tuple(id(p) for p in mech.parts.values()), len(mech.hinges), len(mech.drives))
    if cached is not None and cached[0] == key:
        return cached[1]
    head = f"<div><b>{html.escape(mechanism_summary(mech))}</b></div>"
    if pose is None:
        body = ("<div><i>no pose to draw: the mechanism is not complete, or its cylinders at mid-stroke do not "
                "close its loops; Mechanism.solve_pose draws the one it solves</i></div>")
    else:
        body = f"<div>{figure_svg(draw_pose(pose, title=f'{mech.name}: {what}').figure)}</div>"
    out = f"<div>{head}{body}</div>"
    mech._html_cache = (key, out)
    return out


def machine_html(machine) -> str:
    """A machine as HTML: its summary line (parts, functions, mobility, mode, formulation) and
    a drawing of its start pose.

    Parameters
    ----------
    machine : Machine

    Returns
    -------
    str

    Examples
    --------
    >>> from mechanisms.machine import Machine, DATA
    >>> html = machine_html(Machine.from_file(DATA / "wheel_loader.toml", mode="extensions"))
    >>> "mode extensions" in html and "<svg" in html
    True
    """
    key = (id(machine.start_pose), id(machine.description), machine.mode)
    cached = getattr(machine, "_html_cache", None)
    if cached is not None and cached[0] == key:
        return cached[1]
    desc = machine.description
    line = mechanism_summary(machine.mechanism, machine.mode) + f", formulation {machine.formulation}"
    title = f" — {html.escape(desc.title)}" if desc.title else ""
    svg = figure_svg(draw_pose(machine.start_pose, title=f"{desc.name}: start pose ([start])").figure)
    out = f"<div><div><b>{html.escape(line)}</b>{title}</div><div>{svg}</div></div>"
    machine._html_cache = (key, out)
    return out


def run_html(run) -> str:
    """A machine run as HTML: span, samples, solver and steps, × real time, end-stop contacts,
    the report's flags (the oscillation check aside: :meth:`MachineRun.report
    <mechanisms.machine.MachineRun.report>` runs it) and a small plot of the output paths
    with the first and last postures.

    Parameters
    ----------
    run : MachineRun

    Returns
    -------
    str

    Examples
    --------
    >>> from mechanisms.machine import Machine, DATA
    >>> run = Machine.from_file(DATA / "excavator.toml", mode="extensions").run(t_end=0.2, progress=False)
    >>> html = run_html(run)
    >>> "end-stop contacts" in html and "<svg" in html
    True
    """
    cached = getattr(run, "_html_cache", None)
    if cached is not None:
        return cached
    from .machine.plots import plot_trajectory
    from .machine.report import flags

    res = run.results
    st = res.stats
    fl = flags(run, check_oscillation=False)
    rows = [("machine", f"{run.machine.name} (mode {run.mode}, formulation {run.machine.formulation})"),
            ("cycle", str(run.cycle.source)),
            ("time span", f"{run.t[0]:.4g} … {run.t[-1]:.4g} s, {len(run.t)} samples"),
            ("solver", f"{st.get('backend', '?')}, {st.get('steps', '?')} steps, {st.get('nfev', '?')} RHS calls"),
            ("speed", f"{run.real_time_factor:.3g} × real time"),
            ("end-stop contacts", str(len(run.contacts)) if run.contacts else "none"),
            ("status", "interrupted" if run.interrupted else res.message),
            ("flags", "; ".join(f.split("  ")[0] for f in fl) if fl else "none")]
    ax = new_figure((5.6, 4.0)).add_subplot()
    plot_trajectory(run, ax=ax)
    out = ('<div style="display:flex;gap:12px;align-items:flex-start">' + html_table(rows, ("run", ""))
           + f"<div>{figure_svg(ax.figure)}</div></div>")
    if fl:
        out += "<details><summary>flags</summary><pre>" + html.escape("\n".join(fl)) + "</pre></details>"
    run._html_cache = out
    return out


def causal_diagram_svg(mm) -> str:
    """A mechanism model's part-level causal diagram (one box per part, two bonds per hinge
    with their port classes and causal strokes: :func:`mechanisms.drawing.draw_causal_diagram`)
    as SVG, cached on the model.

    Parameters
    ----------
    mm : MechanismModel

    Returns
    -------
    str

    Examples
    --------
    >>> import xml.etree.ElementTree as ET
    >>> from mechanisms import MechanismModel
    >>> from mechanisms.examples import single_boom
    >>> svg = ET.fromstring(causal_diagram_svg(MechanismModel.build(single_boom())))
    >>> any("chassis" in "".join(t.itertext()) for t in svg.iter("{http://www.w3.org/2000/svg}text"))
    True
    """
    cached = mm.__dict__.get("_svg_cache")
    if cached is not None:
        return cached
    from .drawing import draw_causal_diagram

    n = len(mm.mechanism.parts)
    ax = new_figure((min(4.0 + 1.1 * n, 13.0), min(3.0 + 0.5 * n, 8.0))).add_subplot()
    out = figure_svg(draw_causal_diagram(mm, ax=ax).figure)
    mm.__dict__["_svg_cache"] = out
    return out
