"""Drawings of an assembled mechanism's bond graph that stay readable at machine size.

* :func:`draw_causal_diagram` — the part-level view (the source paper's Fig. 7):
  one box per part at its place in the machine, one bond pair per hinge, each end
  labelled with its port class (``Rt``, ``Pd``, ``Li``, ``Pr``) and carrying the
  causal strokes of its x and y bonds;
* :func:`draw_full_graph` — every element, each part's cluster drawn where the part
  sits, hinge junctions at their hinge points.

Examples
--------
>>> import matplotlib; matplotlib.use("Agg")
>>> from mechanisms.examples import single_boom
>>> from mechanisms import MechanismModel
>>> mm = MechanismModel.build(single_boom())
>>> pose = mm.mechanism.solve_pose({"boom_cyl": 3.2}, guess={"boom": 0.4})
>>> ax = draw_causal_diagram(mm, pose)
>>> ax.get_title().startswith("causal connections")
True
"""

from __future__ import annotations

import math
from collections import defaultdict

import networkx as nx
import numpy as np

from bondgraph.plotting import draw_bond_graph
from components.ports import PortClass

__all__ = ["draw_causal_diagram", "draw_full_graph", "part_centres", "tree_layout"]

_COL = {"body": "#1f77b4", "lever": "#2ca02c", "cylinder": "#d62728"}


def part_centres(mm, pose) -> dict[str, np.ndarray]:
    """Centre of each part (mean of its hinge points) in a pose."""
    pts = pose.points()
    out: dict[str, list] = defaultdict(list)
    for key, xy in pts.items():
        out[key.split("/")[0]].append(xy)
    return {k: np.mean(np.array(v), axis=0) for k, v in out.items()}


def _spread(centres: dict[str, np.ndarray], min_dist: float, iters: int = 200) -> dict[str, np.ndarray]:
    c = {k: v.astype(float).copy() for k, v in centres.items()}
    keys = list(c)
    for _ in range(iters):
        moved = False
        for i, a in enumerate(keys):
            for b in keys[i + 1:]:
                d = c[b] - c[a]
                L = float(np.hypot(*d))
                if L < min_dist:
                    push = (min_dist - L) / 2 * (d / L if L > 1e-9 else np.array([1.0, 0.0]))
                    c[a] -= push
                    c[b] += push
                    moved = True
        if not moved:
            break
    return c


def tree_layout(mech) -> dict[str, np.ndarray]:
    """Parts in columns by their distance from the chassis along the root chains."""
    depth: dict[str, int] = {}
    for name in mech._tree_order():
        parent = mech._parent(mech.parts[name])
        depth[name] = 1 if parent is None else depth[parent[0]] + 1
    cols: dict[int, list[str]] = defaultdict(list)
    for name, d in depth.items():
        cols[d].append(name)
    neighbours: dict[str, set[str]] = defaultdict(set)
    for a, b in mech.hinges:
        neighbours[a.part].add(b.part)
        neighbours[b.part].add(a.part)
    out: dict[str, np.ndarray] = {}
    for d in sorted(cols):
        names = cols[d]

        def key(n):   # barycentre of the parts already placed (fewer crossing bonds), then kind, name
            ys = [out[m][1] for m in neighbours[n] if m in out]
            return (-float(np.mean(ys)) if ys else 0.0, mech.parts[n].kind != "body", n)
        names.sort(key=key)
        for i, n in enumerate(names):
            out[n] = np.array([3.2 * d, -2.2 * (i - (len(names) - 1) / 2)])
    return out


def draw_causal_diagram(mm, pose=None, ax=None, *, layout: str = "tree", figsize=(12, 7)):
    """Parts and hinges with port classes and causal strokes (x and y bonds per hinge).

    ``layout="tree"`` places parts by depth from the chassis (like the paper's Fig. 7);
    ``"machine"`` places them where they sit in ``pose``.
    """
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=figsize)
    mech = mm.mechanism
    g = mm.model.graph
    centres = tree_layout(mech) if layout == "tree" or pose is None else _spread(part_centres(mm, pose), 1.2)
    name = mech.name

    def strokes(junction: str, part: str) -> str:
        """'E'/'F' per axis: does the part receive effort on its bond into this hinge?"""
        out = ""
        for ax_ in ("x", "y"):
            node = f"{name}/{junction}_{ax_}"
            mark = "?"
            for u, v, k, d in g.in_edges(node, keys=True, data=True):
                if u.startswith(f"{name}/{part}/"):
                    mark = "e" if d["effort_to"] == u else "f"
            out += mark
        return out

    def box(p, label, colour):
        ax.text(p[0], p[1], label, ha="center", va="center", fontsize=9, fontweight="bold",
                bbox=dict(boxstyle="round,pad=0.4", fc="white", ec=colour, lw=1.5), zorder=3)

    for pname, part in mech.parts.items():
        box(centres[pname], f"{pname}\n({part.kind})", _COL.get(part.kind, "k"))
    chassis = np.array([min(c[0] for c in centres.values()) - 3.2, 0.0]) if layout == "tree" else \
        np.array([min(c[0] for c in centres.values()) - 1.5, min(c[1] for c in centres.values()) - 1.0])
    box(chassis, "chassis", "0.3")

    def bond(pa, pb, la, lb, sa, sb):
        d = pb - pa
        L = float(np.hypot(*d)) or 1.0
        e = d / L
        n = np.array([-e[1], e[0]])
        for i, off in enumerate((-0.06, 0.06)):
            a, b = pa + e * 0.55 + n * off, pb - e * 0.55 + n * off
            ax.plot([a[0], b[0]], [a[1], b[1]], color="0.35", lw=1.0, zorder=1)
            for end, mark, sgn in ((a, sa[i] if i < len(sa) else "?", 1), (b, sb[i] if i < len(sb) else "?", -1)):
                if mark == "e":  # this end receives effort: stroke across it
                    s1, s2 = end + n * 0.09, end - n * 0.09
                    ax.plot([s1[0], s2[0]], [s1[1], s2[1]], color="black", lw=1.8, zorder=2)
        ax.text(*(pa + e * 0.85 + n * 0.22), la, fontsize=7, color="navy", ha="center", va="center")
        ax.text(*(pb - e * 0.85 + n * 0.22), lb, fontsize=7, color="navy", ha="center", va="center")

    for (pname, pt), _ in mech.fixed.items():
        junction = f"h_{pname}_{pt}"
        hp = mech.parts[pname].hinge(pt)
        bond(centres[pname], chassis, f"{pt}:{hp.cls.value}", "fixed", strokes(junction, pname), "ee")
    for a, b in mech.hinges:
        if {a.cls, b.cls} == {PortClass.PD, PortClass.PR}:
            pd = a if a.cls is PortClass.PD else b
            junction = f"h_{pd.part}_{pd.name}"
        else:
            li = a if a.cls is PortClass.LI else b
            junction = f"h_{li.part}_{li.name}"
        bond(centres[a.part], centres[b.part], f"{a.name}:{a.cls.value}", f"{b.name}:{b.cls.value}",
             strokes(junction, a.part), strokes(junction, b.part))
    for cyl, d in mech.drives.items():
        p = centres[cyl] + np.array([0.0, -0.9])
        ax.text(*p, f"I ← {d.kind}", fontsize=7, ha="center", color=_COL["cylinder"])
    ax.set_aspect("equal")
    ax.axis("off")
    xs = [c[0] for c in centres.values()] + [chassis[0]]
    ys = [c[1] for c in centres.values()] + [chassis[1]]
    low = min(ys) - (1.3 if mech.drives else 0.8)      # the drives' labels sit under their cylinders
    ax.set_xlim(min(xs) - 1.3, max(xs) + 1.3)
    ax.set_ylim(low, max(ys) + 0.8)
    ax.set_title("causal connections of " + mech.name + ": two bonds (x, y) per hinge; a stroke marks "
                 "the end that receives the effort", fontsize=9)
    return ax


def draw_full_graph(mm, pose, ax=None, *, scale: float = 2.2, figsize=(20, 15), font_size: float = 4.5):
    """Every element; each part's cluster placed where the part sits in ``pose``."""
    g = mm.model.graph
    name = mm.mechanism.name
    centres = {k: v * scale for k, v in part_centres(mm, pose).items()}
    sizes = defaultdict(int)
    for n in g.nodes:
        parts = n.split("/")
        if len(parts) > 2:
            sizes[parts[1]] += 1
    radius = {k: 0.28 * math.sqrt(v) for k, v in sizes.items()}
    centres = _spread(centres, 2.3 * max(radius.values(), default=1.0))
    pos = {}
    und = nx.Graph(g)
    for part, c in centres.items():
        nodes = [n for n in g.nodes if n.startswith(f"{name}/{part}/")]
        if not nodes:
            continue
        local = nx.kamada_kawai_layout(und.subgraph(nodes)) if len(nodes) > 1 else {nodes[0]: np.zeros(2)}
        for n, p in local.items():
            pos[n] = c + radius[part] * np.asarray(p)
    pts = {k: np.asarray(v) * scale for k, v in pose.points().items()}
    for n in g.nodes:
        if n in pos:
            continue
        local = n.split("/", 1)[1]
        anchor = None
        for key, xy in pts.items():
            tag = "h_" + key.replace("/", "_")
            if local.startswith(tag + "_") or local.startswith(tag):
                anchor = xy
                break
        if anchor is None:
            owner = local.split("_drive")[0].split("_force")[0].split("_piston")[0]
            anchor = centres.get(owner, np.zeros(2)) + np.array([0.0, -1.6])
        jitter = {"x": np.array([-0.25, 0.0]), "y": np.array([0.25, 0.0])}.get(local[-1], np.zeros(2))
        extra = np.array([0.0, -0.45]) if ("_fix_" in local or "_free_" in local) else np.zeros(2)
        pos[n] = anchor + jitter + extra
    return draw_bond_graph(g, ax, pos=pos, figsize=figsize, font_size=font_size)
