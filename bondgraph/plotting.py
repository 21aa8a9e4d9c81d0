"""Drawings: the bond graph with half-arrows and causal strokes; time series.

:func:`draw_bond_graph` lays elements out with networkx, one cluster per
component (``excavator/boom``, ``excavator/arm``...) so a machine-sized graph
stays readable, and draws every bond as a line with a half-arrow at its head
(the power direction) and, once causality is assigned, a causal stroke across
the end that receives the effort.

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> from bondgraph import BondGraph, Se, One, I, R, assemble, assign_causality
>>> bg = BondGraph("drag")
>>> _ = bg.add(Se("F", 1.0), One("v"), I("m", 1.0), R("b", 1.0))
>>> for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
...     _ = bg.connect(a, b)
>>> g = assemble(bg); _ = assign_causality(g)
>>> ax = draw_bond_graph(g)
>>> len(ax.lines) >= 9   # 3 bonds × (line + half-arrow + stroke)
True
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Sequence

import networkx as nx
import numpy as np

from .errors import ParameterError

__all__ = ["draw_bond_graph", "draw_bond", "bond_segments", "plot_series", "layout_grouped"]

_COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf", "#ff7f0e"]


def _group_of(node: str, depth: int) -> str:
    parts = node.split("/")
    return "/".join(parts[: min(depth + 1, len(parts) - 1)]) or parts[0]


def layout_grouped(g: nx.MultiDiGraph, depth: int = 1, seed: int = 1) -> dict[str, np.ndarray]:
    """Node positions: each component (path prefix of ``depth`` levels) in its own cell."""
    groups: dict[str, list[str]] = defaultdict(list)
    for n in g.nodes:
        groups[_group_of(n, depth)].append(n)
    names = sorted(groups, key=lambda k: (-len(groups[k]), k))
    ncol = max(1, math.ceil(math.sqrt(len(names))))
    radius = {k: 0.35 * math.sqrt(len(v)) for k, v in groups.items()}
    cell = 2.4 * max(radius.values())
    pos: dict[str, np.ndarray] = {}
    und = nx.Graph(g)
    for i, name in enumerate(names):
        sub = und.subgraph(groups[name])
        if sub.number_of_nodes() == 1:
            local = {groups[name][0]: np.zeros(2)}
        else:
            try:
                local = nx.kamada_kawai_layout(sub)
            except Exception:  # disconnected pieces
                local = nx.spring_layout(sub, seed=seed)
        cx, cy = (i % ncol) * cell, -(i // ncol) * cell
        for n, p in local.items():
            pos[n] = np.array([cx, cy]) + radius[name] * np.asarray(p)
    return pos


def _label(g: nx.MultiDiGraph, n: str) -> str:
    el = g.nodes[n]["element"]
    return f"{el.kind}:{n.rsplit('/', 1)[-1]}" if el.kind not in ("0", "1") else f"{el.kind}\n{n.rsplit('/', 1)[-1]}"


def bond_segments(a, b, *, tick: float = 0.05, effort_at_head: bool | None = None):
    """The strokes that draw one bond from ``a`` to ``b``: ``(line, half_arrow, causal)``,
    each a pair of points (``causal`` is None while causality is unknown). The half-arrow
    sits on one side of the head ``b`` (the power direction); the causal stroke crosses
    the end that receives the effort (``effort_at_head``: the head's). ``tick`` sets the
    size of both marks.

    Examples
    --------
    >>> line, half, causal = bond_segments((0, 0), (1, 0), tick=0.1, effort_at_head=False)
    >>> [tuple(map(float, p)) for p in causal]          # across the tail
    [(0.0, 0.22000000000000003), (0.0, -0.22000000000000003)]
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    d = b - a
    L = float(np.hypot(*d)) or 1.0
    e = d / L
    nrm = np.array([-e[1], e[0]])
    half = (b, b - e * 3 * tick + nrm * 2 * tick)
    causal = None
    if effort_at_head is not None:
        c = b if effort_at_head else a
        causal = (c + nrm * 2.2 * tick, c - nrm * 2.2 * tick)
    return (a, b), half, causal


def draw_bond(ax, a, b, *, colour="0.25", tick: float = 0.05, effort_at_head: bool | None = None,
              lw: float = 0.8) -> None:
    """Draw one bond (:func:`bond_segments`) on ``ax``.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> _, ax = plt.subplots()
    >>> draw_bond(ax, (0, 0), (1, 0), tick=0.05, effort_at_head=False)
    >>> len(ax.lines)          # line, half-arrow, causal stroke
    3
    """
    line, half, causal = bond_segments(a, b, tick=tick, effort_at_head=effort_at_head)
    for seg in (line, half):
        ax.plot([seg[0][0], seg[1][0]], [seg[0][1], seg[1][1]], color=colour, lw=lw)
    if causal is not None:
        ax.plot([causal[0][0], causal[1][0]], [causal[0][1], causal[1][1]], color="black", lw=1.75 * lw)


def draw_bond_graph(g, ax=None, *, depth: int = 1, pos: dict | None = None,
                    font_size: float = 6.0, figsize: tuple[float, float] = (12, 9), title: str | None = None):
    """Draw a global bond graph; returns the matplotlib axes.

    Parameters
    ----------
    g : networkx.MultiDiGraph, BondGraph or Model
        A global graph from :func:`~bondgraph.graph.assemble` (causality optional), a
        model to assemble, or a built model (its causal graph).
    depth : int
        Path levels that define a group (1: ``model/part``).
    pos : dict, optional
        Node positions (default :func:`layout_grouped`).

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> from bondgraph import BondGraph, Se, One, I, R
    >>> m = BondGraph("drag")
    >>> _ = m.add(Se("F", 2.0), One("v"), I("m", 1.0), R("b", 1.0))
    >>> for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
    ...     _ = m.connect(a, b)
    >>> ax = draw_bond_graph(m)
    >>> sorted(t.get_text().replace(chr(10), " ") for t in ax.texts)[:4]   # by kind and name
    ['1 v', 'I:m', 'R:b', 'Se:F']
    """
    import matplotlib.pyplot as plt

    from .graph import BondGraph, assemble

    if isinstance(g, BondGraph):
        g = assemble(g)
    elif hasattr(g, "graph") and isinstance(getattr(g, "graph"), nx.MultiDiGraph):
        g = g.graph  # a built Model
    elif not isinstance(g, nx.MultiDiGraph):
        raise ParameterError(f"draw_bond_graph: got {type(g).__name__}, expected a BondGraph, "
                             "an assembled graph or a built Model")
    if ax is None:
        _, ax = plt.subplots(figsize=figsize)
    pos = pos or layout_grouped(g, depth)
    groups = sorted({_group_of(n, depth) for n in g.nodes})
    color = {grp: _COLORS[i % len(_COLORS)] for i, grp in enumerate(groups)}
    span = np.ptp(np.array(list(pos.values())), axis=0).max() if len(pos) > 1 else 1.0
    for u, v, k, data in g.edges(keys=True, data=True):
        p, q = pos[u], pos[v]
        L = float(np.hypot(*(q - p))) or 1.0
        tick = min(0.006 * max(span, 1.0), 0.07 * L)
        e = (q - p) / L
        col = "#444444" if _group_of(u, depth) != _group_of(v, depth) else color[_group_of(u, depth)]
        eff = data.get("effort_to")
        draw_bond(ax, p + e * 0.06 * L, q - e * 0.06 * L, colour=col, tick=tick,
                  effort_at_head=None if eff is None else eff == v)
    for n in g.nodes:
        x, y = pos[n]
        ax.text(x, y, _label(g, n), ha="center", va="center", fontsize=font_size,
                bbox=dict(boxstyle="round,pad=0.15", fc="white", ec=color[_group_of(n, depth)], lw=0.6))
    for grp in groups:
        pts = np.array([pos[n] for n in g.nodes if _group_of(n, depth) == grp])
        lo = pts.min(axis=0)
        ax.text(lo[0], pts[:, 1].max() + 0.25, grp.split("/")[-1], color=color[grp],
                fontsize=font_size + 3, fontweight="bold")
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(title or f"bond graph of {g.graph.get('name', '')}: half-arrow = power direction, "
                 "stroke = effort-receiving end", fontsize=9)
    return ax


def plot_series(results, names: str | Sequence[str], ax=None, *, ylabel: str | None = None,
                scale: float = 1.0, labels: Sequence[str] | None = None):
    """Plot named series of one or several :class:`~bondgraph.results.Results` against time.

    ``names`` is one name or a list; ``labels`` one legend label per name; ``ylabel``
    names the quantity and its unit (without it the axis says ``[unit unknown]``: the
    core knows no series' unit).

    Examples
    --------
    >>> from bondgraph import BondGraph, Se, One, I, R, build, simulate
    >>> m = BondGraph("drag")
    >>> _ = m.add(Se("F", 1.0), One("v"), I("m", 1.0), R("b", 1.0))
    >>> for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
    ...     _ = m.connect(a, b)
    >>> ax = plot_series(simulate(build(m), (0, 3), progress=False), "drag/m.f", ylabel="v [m/s]")
    >>> [line.get_label() for line in ax.get_lines()]
    ['drag/m.f']
    """
    import matplotlib.pyplot as plt

    if isinstance(names, str):
        names = [names]
    names = list(names)
    if not names:
        raise ParameterError("plot_series: no names given; expected at least one state, bond "
                             "variable, input or output")
    if labels is not None and len(labels) != len(names):
        raise ParameterError(f"plot_series: {len(labels)} labels for {len(names)} names; expected "
                             "one label per name")
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 3.5))
    runs = results if isinstance(results, (list, tuple)) else [results]
    for r in runs:
        for i, n in enumerate(names):
            ax.plot(r.t, np.asarray(r[n]) * scale, label=(labels[i] if labels else n))
    ax.set_xlabel("time [s]")
    ax.set_ylabel(ylabel or f"{names[0] if len(names) == 1 else 'value'} [unit unknown]")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    return ax
