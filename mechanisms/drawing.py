"""Drawings of an assembled mechanism's bond graph that stay readable at machine size.

* :func:`draw_causal_diagram` — the part-level view (the source paper's Fig. 7):
  one box per part at its place in the machine, one bond pair per hinge, each end
  labelled with its port class (``Rt``, ``Pd``, ``Li``, ``Pr``) and carrying the
  causal strokes of its x and y bonds;
* :func:`full_graph_pages` — every element, one readable page per part and one for
  the hydraulics: each page lays its part's elements out in columns by their bond
  distance from the parts it is hinged to (drawn greyed at the left), with labels of
  7.5 pt that never overlap; for a report or a multi-page PDF
  (:func:`mechanisms.machine.plots.write_full_bond_graph`);
* :func:`draw_full_graph` — every element in one figure, each part's cluster drawn where
  the part sits: an overview of the whole graph's shape (its labels are too small to
  read; the pages are for reading).

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
>>> pages = full_graph_pages(mm)
>>> [p.name for p in pages]          # one page per part (no hydraulics here)
['boom', 'boom_cyl']
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np

from bondgraph.plotting import bond_segments, draw_bond_graph
from components.ports import PortClass

__all__ = ["draw_causal_diagram", "causal_scene", "Scene", "page_layout_key", "draw_full_graph", "full_graph_pages", "GraphPage", "part_centres",
           "tree_layout"]

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


class Scene:
    """What a drawing does to its axes, recorded as plain data: each call's method name
    and its arguments (numbers as Python floats, arrays as tuples), to be drawn later on
    any axes by :meth:`replay`. Its :meth:`describe` names everything the drawing shows, so
    that a kept image of it can be looked up by it
    (:mod:`mechanisms.machine.keptfigures`).

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt, numpy as np
    >>> scene = Scene()
    >>> scene.plot(np.array([0.0, 1.0]), [0, np.float64(2.5)], color="k")
    >>> scene.set_title("a line")
    >>> scene.describe()
    "[('plot', ((0.0, 1.0), [0, 2.5]), {'color': 'k'}), ('set_title', ('a line',), {})]"
    >>> fig, ax = plt.subplots()
    >>> scene.replay(ax).get_title()
    'a line'
    >>> plt.close(fig)
    """

    def __init__(self):
        self.calls: list[tuple[str, tuple, dict]] = []

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)

        def record(*args, **kwargs) -> None:
            self.calls.append((name, _plain(args), _plain(kwargs)))
        return record

    def describe(self) -> str:
        """Every recorded call, as text (exact: floats by their ``repr``).

        Examples
        --------
        >>> s = Scene(); s.axis("off"); s.describe()
        "[('axis', ('off',), {})]"
        """
        return repr(self.calls)

    def replay(self, ax):
        """Make the recorded calls on ``ax``; returns ``ax``.

        Examples
        --------
        >>> import matplotlib; matplotlib.use("Agg")
        >>> import matplotlib.pyplot as plt
        >>> s = Scene(); s.set_xlim(0.0, 2.0)
        >>> fig, ax = plt.subplots()
        >>> [float(x) for x in s.replay(ax).get_xlim()]
        [0.0, 2.0]
        >>> plt.close(fig)
        """
        for name, args, kwargs in self.calls:
            getattr(ax, name)(*args, **kwargs)
        return ax


def _plain(value):
    """Numbers as Python floats, arrays as tuples, containers element by element."""
    if isinstance(value, np.ndarray):
        return tuple(_plain(v) for v in value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def draw_causal_diagram(mm, pose=None, ax=None, *, layout: str = "tree", figsize=(12, 7)):
    """Parts and hinges with port classes and causal strokes (x and y bonds per hinge).

    ``layout="tree"`` places parts by depth from the chassis (like the paper's Fig. 7);
    ``"machine"`` places them where they sit in ``pose``. The drawing is
    :func:`causal_scene` replayed on ``ax`` (a new figure of ``figsize`` if None).
    """
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=figsize)
    return causal_scene(mm, pose, layout=layout).replay(ax)


def causal_scene(mm, pose=None, *, layout: str = "tree") -> Scene:
    """The part-level causal diagram of :func:`draw_causal_diagram` as a :class:`Scene`
    (what it draws, before any matplotlib object exists).

    Examples
    --------
    >>> from mechanisms.examples import single_boom
    >>> from mechanisms import MechanismModel
    >>> mm = MechanismModel.build(single_boom())
    >>> scene = causal_scene(mm)
    >>> scene.describe() == causal_scene(mm).describe(), "boom_cyl" in scene.describe()
    (True, True)
    """
    scene = Scene()
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
        scene.text(p[0], p[1], label, ha="center", va="center", fontsize=9, fontweight="bold",
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
            scene.plot([a[0], b[0]], [a[1], b[1]], color="0.35", lw=1.0, zorder=1)
            for end, mark, sgn in ((a, sa[i] if i < len(sa) else "?", 1), (b, sb[i] if i < len(sb) else "?", -1)):
                if mark == "e":  # this end receives effort: stroke across it
                    s1, s2 = end + n * 0.09, end - n * 0.09
                    scene.plot([s1[0], s2[0]], [s1[1], s2[1]], color="black", lw=1.8, zorder=2)
        scene.text(*(pa + e * 0.85 + n * 0.22), la, fontsize=7, color="navy", ha="center", va="center")
        scene.text(*(pb - e * 0.85 + n * 0.22), lb, fontsize=7, color="navy", ha="center", va="center")

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
        scene.text(*p, f"I ← {d.kind}", fontsize=7, ha="center", color=_COL["cylinder"])
    scene.set_aspect("equal")
    scene.axis("off")
    xs = [c[0] for c in centres.values()] + [chassis[0]]
    ys = [c[1] for c in centres.values()] + [chassis[1]]
    low = min(ys) - (1.3 if mech.drives else 0.8)      # the drives' labels sit under their cylinders
    scene.set_xlim(min(xs) - 1.3, max(xs) + 1.3)
    scene.set_ylim(low, max(ys) + 0.8)
    scene.set_title("causal connections of " + mech.name + ": two bonds (x, y) per hinge; a stroke marks "
                 "the end that receives the effort", fontsize=9)
    return scene


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


# ---------------------------------------------------------------------------- one page per part
#: page title of a group of elements that is not a part (``excavator/hyd/...``)
_GROUP_TITLES = {"hyd": "hydraulics"}
#: edge colour of an element's box by kind
_KIND_COLOURS = {"I": "#1f77b4", "C": "#1f77b4", "R": "#d62728", "MR": "#d62728", "Se": "#2ca02c",
                 "Sf": "#2ca02c", "MSe": "#2ca02c", "MSf": "#2ca02c", "TF": "#9467bd", "MTF": "#9467bd",
                 "GY": "#9467bd", "MGY": "#9467bd"}
_PAD = 0.05          # box padding around a label (inch)
_ROW_GAP = 0.10      # vertical gap between two boxes of a column (inch)
_COL_GAP = 0.55      # horizontal gap between two columns (inch)


@dataclass
class GraphPage:
    """One page of the full bond graph.

    Attributes
    ----------
    name : str
        The part (``"boom"``) or group (``"hyd"``) the page draws.
    title : str
        What the page shows, as its figure title says.
    elements : frozenset of str
        The graph nodes the page draws as its own (the greyed neighbours of other pages
        are not among them).
    figure : matplotlib.figure.Figure
        The page, sized to its content (1 data unit = 1 inch; labels 7.5 pt); not held
        by pyplot (``display(page.figure)`` shows it in a notebook).
    """

    name: str
    title: str
    elements: frozenset
    figure: Any


def _page_groups(mm) -> dict[str, set[str]]:
    """Page name → the nodes it owns: a part's elements, a group's (``hyd``), and the
    machine-level elements (hinge junctions, fixings, drives) on each page they touch."""
    g = mm.model.graph
    name = mm.mechanism.name
    owned: dict[str, set[str]] = defaultdict(set)
    top = set()
    for n in g.nodes:
        bits = n.split("/")
        if len(bits) >= 3 and bits[0] == name:
            owned[bits[1]].add(n)
        else:
            top.add(n)
    und = nx.Graph(g)
    reached = set()
    for page, nodes in owned.items():
        frontier = [m for n in nodes for m in und[n] if m in top]
        while frontier:                    # machine-level elements chained to this page's
            m = frontier.pop()
            if m in nodes:
                continue
            nodes.add(m)
            reached.add(m)
            frontier += [k for k in und[m] if k in top and k not in nodes]
    if top - reached:
        owned["connections"] |= top - reached
    parts = list(mm.mechanism.parts)
    return {k: owned[k] for k in sorted(owned, key=lambda k: (k not in parts, parts.index(k) if k in parts else 0, k))}


def _node_label(g, n: str, page: str) -> str:
    el = g.nodes[n]["element"]
    bits = n.split("/")
    local = "/".join(bits[2:]) if len(bits) >= 3 and bits[1] == page else bits[-1] if len(bits) == 2 else \
        "/".join(bits[1:])
    return f"{el.kind}:{local}"


def _text_size(text: str, size: float) -> tuple[float, float]:
    """Width and height (inch) of one line of text at ``size`` pt, with the box padding."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import text_to_path

    w, _, _ = text_to_path.get_text_width_height_descent(text, FontProperties(size=size), ismath=False)
    return w / 72 + 2 * _PAD, size * 1.25 / 72 + 2 * _PAD


def _columns(und: nx.Graph, sources: list[str], band: dict[str, int]) -> list[list[str]]:
    """Columns of a connected graph by bond distance from ``sources``, each ordered by
    ``band`` (a page's sub-groups, e.g. one hydraulic function each, stay together) and
    then to keep bonds short (barycentres, swept both ways)."""
    dist = nx.multi_source_dijkstra_path_length(und, sources) if sources else {}
    cols: list[list[str]] = [[] for _ in range(max(dist.values(), default=0) + 1)]
    for n, d in dist.items():
        cols[d].append(n)
    for c in cols:
        c.sort(key=lambda n: (band.get(n, 0), n))
    for sweep in range(6):
        order = range(1, len(cols)) if sweep % 2 == 0 else range(len(cols) - 2, -1, -1)
        for i in order:
            ref = cols[i - 1] if sweep % 2 == 0 else cols[i + 1]
            rank = {n: k for k, n in enumerate(ref)}
            here = {n: k * len(ref) / max(len(cols[i]), 1) for k, n in enumerate(cols[i])}

            def key(n, rank=rank, here=here):
                ks = [rank[m] for m in und[n] if m in rank]
                return (band.get(n, 0), float(np.mean(ks)) if ks else here[n], n)
            cols[i].sort(key=key)
    return cols


def _place(cols, und, size) -> dict[str, np.ndarray]:
    """Centres (inch) of the boxes of each column: rows at least a box apart, each box as
    near the mean height of its neighbours in the columns before and after as that allows
    (isotonic regression of the wanted heights under the spacing constraint)."""
    from scipy.optimize import isotonic_regression

    pos: dict[str, np.ndarray] = {}
    x = 0.0
    widths = [max(size[n][0] for n in c) for c in cols]
    xs = []
    for i, w in enumerate(widths):
        x += (widths[i - 1] / 2 + _COL_GAP + w / 2) if i else w / 2
        xs.append(x)
    y: dict[str, float] = {}
    for i, c in enumerate(cols):
        pitch = [0.0] + [size[a][1] / 2 + _ROW_GAP + size[b][1] / 2 for a, b in zip(c, c[1:])]
        offs = np.cumsum(pitch)
        for n, o in zip(c, offs):
            y[n] = -(o - offs[-1] / 2)

    def settle(c, wanted):
        pitch = [0.0] + [size[a][1] / 2 + _ROW_GAP + size[b][1] / 2 for a, b in zip(c, c[1:])]
        offs = np.cumsum(pitch)
        down = -np.array(wanted)                  # downward coordinate, increasing along the column
        fit = isotonic_regression(down - offs).x + offs
        for n, d in zip(c, fit):
            y[n] = -float(d)

    for sweep in range(4):
        order = range(len(cols)) if sweep % 2 == 0 else range(len(cols) - 1, -1, -1)
        for i in order:
            c = cols[i]
            near = set(cols[i - 1] if i else []) | set(cols[i + 1] if i + 1 < len(cols) else [])
            wanted = []
            for n in c:
                ys = [y[m] for m in und[n] if m in near]
                wanted.append(float(np.mean(ys)) if ys else y[n])
            settle(c, wanted)
    for i, c in enumerate(cols):
        for n in c:
            pos[n] = np.array([xs[i], y[n]])
    return pos


def _bands(und: nx.Graph, own: set[str], page: str) -> dict[str, int]:
    """Sub-group of each node of a group page (``hyd/boom/...`` → the boom's band, the
    pump unit's last); the page's other nodes take the band of a neighbour."""
    sub = {n: n.split("/")[2] for n in own if len(n.split("/")) >= 4 and n.split("/")[1] == page}
    names = sorted(set(sub.values()), key=lambda k: (len([n for n in sub.values() if n == k]) < 10, k))
    band = {n: names.index(k) for n, k in sub.items()}
    for n in sorted(und.nodes):
        if n not in band:
            near = sorted(band[m] for m in und[n] if m in band)
            band[n] = near[0] if near else 0
    return band


def _page_edges(g, own: set[str], ghosts: set[str]) -> list[tuple[str, str]]:
    """The bonds a page's layout follows (none between two ghosts), in one order whatever
    the order of the sets (a subgraph of few nodes iterates its node set): the layout's
    sums then come out the same in every process."""
    return sorted(tuple(sorted((u, v))) for u, v in nx.Graph(g).subgraph(own | ghosts).edges
                  if not (u in ghosts and v in ghosts))


def _page_layout(g, own: set[str], ghosts: set[str], size, page: str) -> dict[str, np.ndarray]:
    """Positions of a page's nodes: each connected piece in columns from where it meets
    the other pages or the chassis (or from its best-connected element), the pieces one
    under the other."""
    und = nx.Graph()
    und.add_nodes_from(sorted(own | ghosts))
    und.add_edges_from(_page_edges(g, own, ghosts))
    band = _bands(und, own, page)
    ends = {n for n in own if len(n.split("/")) == 2 and und.degree(n) == 1}   # fixings, drives
    pieces = sorted(nx.connected_components(und), key=lambda c: (-len(c), min(c)))
    pos: dict[str, np.ndarray] = {}
    top = 0.0
    for piece in pieces:
        sub = und.subgraph(piece)
        sources = sorted(n for n in piece if n in ghosts or n in ends) or \
            [max(sorted(piece), key=lambda n: (sub.degree(n), -len(n)))]
        local = _place(_columns(sub, sources, band), sub, size)
        ys = [p[1] + s * size[n][1] / 2 for n, p in local.items() for s in (-1, 1)]
        shift = top - max(ys)
        for n, p in local.items():
            pos[n] = p + np.array([0.0, shift])
        top = shift + min(ys) - 0.5
    return pos


#: layout of a kept page layout; a change makes every older one a miss
_LAYOUT_FORMAT = 1


def page_layout_key(und: nx.Graph, own: set[str], ghosts: set[str], size, page: str) -> str:
    """Everything a page's layout is made from: its nodes, its bonds,
    every box's size (from its label and font), the page's name (its sub-groups), the
    drawing code (this module's source) and the versions of networkx, numpy and scipy
    that place it.

    Parameters
    ----------
    und : networkx.Graph
        The whole bond graph, undirected.
    own, ghosts : set of str
        The page's nodes and the greyed nodes of other pages it is bonded to.
    size : mapping
        Node → (width, height) of its box (inch).
    page : str

    Returns
    -------
    str

    Examples
    --------
    >>> import networkx as nx
    >>> und = nx.Graph([("a/p/x", "a/p/y")])
    >>> size = {"a/p/x": (0.5, 0.2), "a/p/y": (0.6, 0.2)}
    >>> k = page_layout_key(und, {"a/p/x", "a/p/y"}, set(), size, "p")
    >>> k == page_layout_key(und, {"a/p/y", "a/p/x"}, set(), dict(size), "p")
    True
    >>> k != page_layout_key(und, {"a/p/x", "a/p/y"}, set(), {**size, "a/p/y": (0.7, 0.2)}, "p")
    True
    """
    import hashlib
    from importlib.metadata import version
    from pathlib import Path

    if not _SOURCE:
        _SOURCE.append(hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16])
    nodes = own | ghosts
    edges = _page_edges(und, own, ghosts)
    sizes = sorted((n, float(size[n][0]), float(size[n][1])) for n in nodes)
    return repr((_LAYOUT_FORMAT, _SOURCE[0], nx.__version__, np.__version__, version("scipy"), page,
                 sorted(own), sorted(ghosts), edges, sizes))


_SOURCE: list[str] = []


def _kept_page_layout(und: nx.Graph, own: set[str], ghosts: set[str], size, page: str) -> dict[str, np.ndarray]:
    """:func:`_page_layout`, kept in the cache folder under :func:`page_layout_key`: a page
    laid out before (by any process) is read back, not placed again (no isotonic
    regression, no scipy.optimize). A kept layout is used only if it places exactly the
    page's nodes at finite positions."""
    from bondgraph.kept import keep, kept

    key = page_layout_key(und, own, ghosts, size, page)
    pos = kept("layout", key)
    nodes = own | ghosts
    if isinstance(pos, dict) and set(pos) == nodes and all(
            len(p) == 2 and all(isinstance(v, float) and math.isfinite(v) for v in p) for p in pos.values()):
        return {n: np.array(p) for n, p in pos.items()}
    pos = _page_layout(und, own, ghosts, size, page)
    keep("layout", key, {n: (float(p[0]), float(p[1])) for n, p in pos.items()})
    return pos


def _clip_to_box(c: np.ndarray, other: np.ndarray, half: tuple[float, float], gap: float = 0.02) -> np.ndarray:
    """Where the segment from box centre ``c`` toward ``other`` leaves the box."""
    d = other - c
    with np.errstate(divide="ignore"):
        t = min(half[0] / abs(d[0]) if d[0] else np.inf, half[1] / abs(d[1]) if d[1] else np.inf)
    L = float(np.hypot(*d)) or 1.0
    return c + d * min(1.0, t + gap / L)


def full_graph_pages(mm, *, font_size: float = 7.5) -> list[GraphPage]:
    """Every element of a mechanism model's bond graph, one page per part, one for the
    hydraulics (any other group of elements gets its own page too).

    A page shows its part's elements (``kind:name``), the machine-level elements it is
    bonded to (hinge junctions, fixings, drives), and — greyed, dashed — the elements of
    other parts at the far end of those bonds, so each page reads on its own. Bonds
    carry their half-arrow (power direction) and causal stroke (the end that receives
    the effort). Columns run by bond distance from the neighbouring parts; labels are
    ``font_size`` pt and never overlap, and each figure is sized to its content, so the
    page reads at 100 % zoom.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> from mechanisms.examples import single_boom
    >>> from mechanisms import MechanismModel
    >>> mm = MechanismModel.build(single_boom())
    >>> page = full_graph_pages(mm)[0]
    >>> page.name, len(page.elements) > 10, bool(page.figure.get_size_inches()[0] > 4)
    ('boom', True, True)
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from matplotlib.collections import LineCollection

    g = mm.model.graph
    und = nx.Graph(g)
    mech = mm.mechanism
    pages = []
    for page, own in _page_groups(mm).items():
        ghosts = {m for n in own for m in und[n] if m not in own}
        labels = {n: _node_label(g, n, page) for n in own | ghosts}
        size = {n: _text_size(labels[n], font_size) for n in labels}
        pos = _kept_page_layout(und, own, ghosts, size, page)
        lo = np.min([pos[n] - np.array(size[n]) / 2 for n in pos], axis=0)
        hi = np.max([pos[n] + np.array(size[n]) / 2 for n in pos], axis=0)
        margin = 0.3
        w, h = hi - lo + 2 * margin
        if page in mech.parts:
            part = mech.parts[page]
            title = (f"{mech.name}: {page} ({part.kind}), {len(own)} elements; greyed: the elements "
                     "of the parts it is bonded to")
        else:
            title = (f"{mech.name}: {_GROUP_TITLES.get(page, page)}, {len(own)} elements; greyed: the "
                     "elements of the parts it is bonded to")
        fig = Figure(figsize=(max(w, 6.0), h + 0.6))   # not kept by pyplot: a report page, not a window
        FigureCanvasAgg(fig)
        ax = fig.add_axes((0, 0, 1, h / (h + 0.6)))
        ax.set_xlim(lo[0] - margin - (max(w, 6.0) - w) / 2, hi[0] + margin + (max(w, 6.0) - w) / 2)
        ax.set_ylim(lo[1] - margin, hi[1] + margin)
        ax.set_aspect("equal")
        ax.axis("off")
        fig.suptitle(title + "\nhalf-arrow: power direction; bar across a bond: the end that receives "
                     "the effort", fontsize=9, y=1 - 0.05 / (h + 0.6))
        segs: dict[str, list] = {"bond": [], "outer": [], "causal": []}
        for u, v, k, data in g.subgraph(own | ghosts).edges(keys=True, data=True):
            if u in ghosts and v in ghosts:
                continue
            a = _clip_to_box(pos[u], pos[v], (size[u][0] / 2, size[u][1] / 2))
            b = _clip_to_box(pos[v], pos[u], (size[v][0] / 2, size[v][1] / 2))
            eff = data.get("effort_to")
            line, half, causal = bond_segments(a, b, tick=0.035, effort_at_head=None if eff is None else eff == v)
            segs["outer" if (u in ghosts or v in ghosts) else "bond"] += [line, half]
            if causal is not None:
                segs["causal"].append(causal)
        for key, colour, lw in (("bond", "0.2", 0.8), ("outer", "0.55", 0.8), ("causal", "black", 1.4)):
            ax.add_collection(LineCollection(segs[key], colors=colour, linewidths=lw))
        for n in sorted(labels):
            ghost = n in ghosts
            kind = g.nodes[n]["element"].kind
            t = ax.text(*pos[n], labels[n], ha="center", va="center", fontsize=font_size,
                        color="0.45" if ghost else "black", style="italic" if ghost else "normal",
                        bbox=dict(boxstyle=f"square,pad={_PAD * 72 / font_size:.3f}", fc="white",
                                  ec="0.6" if ghost else _KIND_COLOURS.get(kind, "0.15"),
                                  ls="--" if ghost else "-", lw=0.7), zorder=3)
            t.set_gid(("ghost:" if ghost else "element:") + n)
        pages.append(GraphPage(page, title, frozenset(own), fig))
    return pages
