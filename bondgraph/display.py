"""How the core's objects show themselves in a notebook (IPython's display protocol).

A notebook asks an object for ``_repr_html_``, ``_repr_svg_``... before falling back to
its ``repr``; the classes of the core delegate those methods here, so the display code
is in one place and the classes keep their plain, short, text-only ``repr`` for the
terminal:

* :func:`causal_report_html` — a :class:`~bondgraph.CausalReport` as tables
  (independent states, dependent storages and the path that forced each, algebraic
  loops, conflicts with their fix);
* :func:`results_html` — a run's summary (span, solver, steps, message) and a small plot
  of its first states;
* :func:`bond_graph_svg` — a :class:`~bondgraph.BondGraph` drawn with its causal strokes;
* :func:`figure_svg` and :func:`html_table` — the two building blocks (a matplotlib figure
  as SVG text, rows as an escaped HTML table) that :mod:`mechanisms.display` uses too.

Every drawing is made on a :class:`matplotlib.figure.Figure` that pyplot never holds, so
showing an object leaves no figure open.

Examples
--------
>>> from bondgraph import BondGraph, Se, One, I, R, build
>>> bg = BondGraph("drag")
>>> _ = bg.add(Se("F", 2.0), One("v"), I("m", 1.0), R("b", 1.0))
>>> for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
...     _ = bg.connect(a, b)
>>> html = causal_report_html(build(bg).report)
>>> "<table" in html and "drag/m.f" in html
True
"""

from __future__ import annotations

import html
import io
from typing import Any, Iterable, Sequence

__all__ = ["figure_svg", "html_table", "causal_report_html", "results_html", "bond_graph_svg", "new_figure"]

#: style of the tables (one inline block: a notebook's own CSS may be absent, e.g. on GitHub)
TABLE_STYLE = "border-collapse:collapse;font-size:12px;margin:2px 0 8px 0"
CELL_STYLE = "border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top"


def new_figure(figsize: tuple[float, float] = (6.0, 4.0), dpi: float = 80):
    """A matplotlib figure that pyplot does not hold (closing it is never needed).

    Parameters
    ----------
    figsize : (float, float)
        Inches.
    dpi : float

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> before = len(plt.get_fignums())
    >>> fig = new_figure((3, 2))
    >>> len(plt.get_fignums()) == before
    True
    """
    from matplotlib.figure import Figure

    return Figure(figsize=figsize, dpi=dpi)


def figure_svg(fig) -> str:
    """A matplotlib figure as SVG text (fonts kept as text, so the drawing stays small).

    The figure is cut to what it draws (nothing clipped) and, if pyplot holds it, closed.

    Parameters
    ----------
    fig : matplotlib.figure.Figure

    Returns
    -------
    str
        An ``<svg>`` document.

    Examples
    --------
    >>> import xml.etree.ElementTree as ET
    >>> fig = new_figure((2, 1.5))
    >>> _ = fig.add_subplot().plot([0, 1], [0, 1])
    >>> ET.fromstring(figure_svg(fig)).tag
    '{http://www.w3.org/2000/svg}svg'
    """
    import matplotlib
    import matplotlib.pyplot as plt

    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "hydrobond"}):
        fig.savefig(buf, format="svg", bbox_inches="tight", pad_inches=0.05)
    number = getattr(fig, "number", None)
    if number is not None and plt.fignum_exists(number):
        plt.close(fig)
    text = buf.getvalue()
    start = text.find("<svg")          # the XML declaration and doctype are not wanted inline
    return text[start:] if start > 0 else text


def html_table(rows: Iterable[Sequence[Any]], header: Sequence[str] | None = None, *,
               caption: str | None = None) -> str:
    """Rows as an HTML table, every cell escaped.

    Parameters
    ----------
    rows : iterable of sequences
    header : sequence of str, optional
    caption : str, optional

    Returns
    -------
    str

    Examples
    --------
    >>> html_table([("a<b", 1)], header=("name", "value"))   # doctest: +ELLIPSIS
    '<table ...><tr><th ...>name</th><th ...>value</th></tr><tr><td ...>a&lt;b</td><td ...>1</td></tr></table>'
    """
    out = [f'<table style="{TABLE_STYLE}">']
    if caption:
        out.append(f'<caption style="text-align:left;font-weight:bold">{html.escape(caption)}</caption>')
    if header:
        out.append("<tr>" + "".join(f'<th style="{CELL_STYLE}">{html.escape(str(h))}</th>' for h in header)
                   + "</tr>")
    for r in rows:
        out.append("<tr>" + "".join(f'<td style="{CELL_STYLE}">{html.escape(str(c))}</td>' for c in r) + "</tr>")
    out.append("</table>")
    return "".join(out)


def causal_report_html(report) -> str:
    """A causal report as HTML: its verdict, then one table per finding.

    Parameters
    ----------
    report : CausalReport

    Returns
    -------
    str

    Examples
    --------
    Two masses on one 1-junction: one is dependent, and the table says which forced it.

    >>> from bondgraph import BondGraph, Se, One, I, assemble, assign_causality
    >>> bg = BondGraph("two")
    >>> _ = bg.add(Se("F", 1.0), One("v"), I("m1", 1.0), I("m2", 2.0))
    >>> for a, b in [("F", "v"), ("v", "m1"), ("v", "m2")]:
    ...     _ = bg.connect(a, b)
    >>> html = causal_report_html(assign_causality(assemble(bg)))
    >>> "two/m2" in html and "two/v ← two/m1" in html
    True
    """
    esc = html.escape
    verdict = "sound" if not report.conflicts else "CONFLICTS"
    colour = "#2a7d2a" if not report.conflicts else "#b00020"
    parts = [f'<div><b>causality of {esc(repr(report.model))}</b>: '
             f'<span style="color:{colour};font-weight:bold">{verdict}</span> — '
             f"{len(report.states)} independent states, {len(report.displacements)} displacement states, "
             f"{len(report.derivative)} dependent storage elements, {len(report.loops)} algebraic loops, "
             f"{len(report.conflicts)} conflicts</div>"]
    if report.states:
        rows = []
        for s in report.states:
            element = s.rsplit(".", 1)[0]
            why = report.choice.get(element, "")
            rows.append((s, "" if why in ("", "by name") else why))
        parts.append(html_table(rows, ("independent state", "chosen by rule"), caption="independent states"))
    if report.displacements:
        parts.append(html_table([(d,) for d in report.displacements], ("displacement state",),
                                caption="displacement states (integrals the modulated laws need)"))
    if report.derivative:
        parts.append(html_table([(d.element, d.kind, " ← ".join(d.path)) for d in report.derivative],
                                ("dependent storage", "kind", "forced by (nearest first)"),
                                caption="derivative causality"))
    if report.loops:
        parts.append(html_table([(" → ".join(lp.elements), ", ".join(lp.variables)) for lp in report.loops],
                                ("elements", "variables"), caption="algebraic loops (solved by tearing)"))
    if report.conflicts:
        parts.append(html_table([(c.element, c.found, ", ".join(c.bonds), c.suggestion) for c in report.conflicts],
                                ("element", "found", "bonds", "fix"), caption="conflicts"))
    return "<div>" + "".join(parts) + "</div>"


def _results_figure(res, names: Sequence[str] | None = None):
    """A small figure of a run: up to four series of one unit against time."""
    if names is None:
        groups: dict[str, list[str]] = {}
        for n in res.model.state_names:
            groups.setdefault(res.units.get(n, ""), []).append(n)
        known = {u: g for u, g in groups.items() if u}
        pick = max((known or groups).values(), key=len, default=[])
        names = pick[:4]
    fig = new_figure((5.5, 2.6))
    ax = fig.add_subplot()
    if len(res.t) and names:
        res.plot(*names, ax=ax)
        if len(names) > 1:
            ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    ax.set_xlabel("time [s]")
    if not len(res.t) or not names:
        ax.text(0.5, 0.5, "nothing to plot", ha="center", va="center", transform=ax.transAxes)
        ax.set_ylabel("value [unit unknown]")
    ax.grid(True, alpha=0.3)
    return fig


def results_html(res, plot: bool = True) -> str:
    """A run of :func:`~bondgraph.simulate` as HTML: span, samples, solver, steps, RHS calls,
    wall time, message, and (``plot=True``) a small plot of its first states.

    Parameters
    ----------
    res : Results
    plot : bool

    Returns
    -------
    str

    Examples
    --------
    >>> from bondgraph import BondGraph, Se, One, I, R, build, simulate
    >>> bg = BondGraph("drag")
    >>> _ = bg.add(Se("F", 2.0), One("v"), I("m", 1.0), R("b", 1.0))
    >>> for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
    ...     _ = bg.connect(a, b)
    >>> html = results_html(simulate(build(bg), (0, 1), progress=False))
    >>> "<svg" in html and "RHS calls" in html
    True
    """
    st = res.stats
    span = f"{res.t[0]:.6g} … {res.t[-1]:.6g} s" if len(res.t) else "empty"
    rows = [("model", res.model.name), ("time span", span), ("samples", len(res.t)),
            ("states", len(res.model.state_names)),
            ("solver", f"{st.get('backend', '?')}"), ("steps", st.get("steps", "?")),
            ("RHS calls", st.get("nfev", "?")),
            ("wall time", f"{st['wall_time']:.3g} s" if isinstance(st.get("wall_time"), float) else "?"),
            ("message", res.message)]
    out = '<div style="display:flex;gap:12px;align-items:flex-start">' + html_table(rows, ("run", ""))
    if plot:
        out += f"<div>{figure_svg(_results_figure(res))}</div>"
    return out + "</div>"


def bond_graph_svg(bg) -> str:
    """A bond graph's part-level causal diagram, as SVG: one box per child (an element, or a
    component drawn as one box with its name), one line per bond of this level with its
    half-arrow (power direction) and, when causality can be assigned to the whole graph, its
    causal stroke at the end that receives the effort. A component's inside is not drawn:
    :func:`~bondgraph.draw_bond_graph` draws every element.

    A graph that cannot be assembled or has causal conflicts is drawn without strokes (its
    conflicts are for :func:`~bondgraph.build` to report).

    Parameters
    ----------
    bg : BondGraph

    Returns
    -------
    str

    Examples
    --------
    >>> import xml.etree.ElementTree as ET
    >>> from bondgraph import BondGraph, Se, One, I
    >>> bg = BondGraph("fall")
    >>> _ = bg.add(Se("g", -9.81), One("v"), I("m", 1.0))
    >>> _ = bg.connect("g", "v"); _ = bg.connect("v", "m")
    >>> svg = ET.fromstring(bond_graph_svg(bg))
    >>> sorted(t.text for t in svg.iter("{http://www.w3.org/2000/svg}text") if t.text in ("Se:g", "I:m"))
    ['I:m', 'Se:g']
    """
    import networkx as nx
    import numpy as np

    from .causality import assign_causality
    from .errors import BondGraphError
    from .graph import BondGraph, assemble
    from matplotlib.collections import LineCollection

    from .plotting import bond_segments

    effort_to: dict[str, str] = {}
    note = "causal strokes at the end that receives the effort"
    try:
        g = assemble(bg)
        assign_causality(g)
        effort_to = {k: d.get("effort_to") for _, _, k, d in g.edges(keys=True, data=True)}
    except BondGraphError as exc:
        note = f"no causal strokes: {type(exc).__name__}"

    def child(ref: str) -> str:
        return ref.partition("/")[0]

    und = nx.Graph()
    und.add_nodes_from(bg.children)
    und.add_edges_from((child(b.tail), child(b.head)) for b in bg.bonds)
    n = max(und.number_of_nodes(), 1)
    # a force-directed layout with a fixed seed (Kamada-Kawai is nicer but costs ~0.4 s at machine size)
    pos = nx.spring_layout(und, seed=1, iterations=200, k=2.5 / n ** 0.5) if n > 2 else \
        {c: np.array([float(i), 0.0]) for i, c in enumerate(und)}
    side = min(3.5 + 1.1 * n ** 0.5, 13.0)
    fig = new_figure((side, 0.75 * side))
    ax = fig.add_subplot()
    span = max(1.0, float(np.ptp(np.array(list(pos.values()))))) if pos else 1.0
    tick, shrink = 0.005 * span, 0.03 * span
    thin, thick = [], []
    for b in bg.bonds:
        t, h = child(b.tail), child(b.head)
        eff = effort_to.get(f"{bg.name}/{b.name}")
        at_head = None
        if eff is not None:
            node = f"{bg.name}/{h}"
            at_head = eff == node or eff.startswith(node + "/")
        pa, pb = np.asarray(pos[t]), np.asarray(pos[h])
        d = pb - pa
        L = float(np.hypot(*d)) or 1.0
        line, half, causal = bond_segments(pa + d / L * min(shrink, L / 3), pb - d / L * min(shrink, L / 3),
                                           tick=tick, effort_at_head=at_head)
        thin += [line, half]
        if causal is not None:
            thick.append(causal)
    ax.add_collection(LineCollection(thin, colors="0.25", linewidths=0.8))
    ax.add_collection(LineCollection(thick, colors="black", linewidths=1.4))
    for name, c in bg.children.items():
        sub = isinstance(c, BondGraph)
        label = name if sub else (f"{c.kind}:{name}" if c.kind not in ("0", "1") else f"{c.kind} {name}")
        ax.text(*pos[name], label, ha="center", va="center", fontsize=7 if sub else 5.5,
                fontweight="bold" if sub else "normal", zorder=3,
                bbox=dict(boxstyle="round,pad=0.25", fc="white", ec="#1f77b4" if sub else "0.6", lw=1.0))
    ax.autoscale_view()
    ax.axis("off")
    ax.set_title(f"bond graph {bg.name!r}: {len(bg.children)} children, {len(bg.bonds)} bonds; {note}", fontsize=8)
    return figure_svg(fig)
