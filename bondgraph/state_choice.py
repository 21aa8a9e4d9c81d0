"""Which storage elements become the independent states: a rule, not insertion order.

Causality assignment (:func:`~bondgraph.causality.assign_causality`) offers every
storage element, in turn, integral causality — it becomes an independent state —
and gives it that causality whenever a complete valid assignment still exists with
it; otherwise the element is dependent (derivative causality). The *turn* is decided
here, by :func:`storage_order`, from the graph alone, never from the order in which
elements were added. Storage elements are ranked by, in this order:

1. **the user's preference** — ``I(..., prefer="state")`` first,
   ``prefer="dependent"`` last (it takes integral causality only if no storage
   element ranked before it can carry that state);
2. **a nonlinear law** (``law=...``) before a linear parameter: a nonlinear
   element can be dependent only through its inverted law, so it keeps its state
   when it can;
3. **a generalised coordinate** — storage bonded to a junction whose displacement
   (``One("w", displacement="theta")``) a law of the model uses (a law given as an
   expression: moduli, parameters, sources; a callable law is not inspected), such as a body's
   rotational inertia on its angle junction. Every other flow of that body is a
   *multiple* of the coordinate's rate (modulated transformers multiply from the
   coordinate's side), so choosing it never makes the equations divide by a modulus
   that can pass through zero (``vy = L·sin θ·ω`` at ``θ = 0``);
4. **conditioning at the initial state** — for an inertia, the gain ``|f / θ̇|`` of
   its flow with respect to the rate of the nearest coordinate, the product of the
   transformer moduli along the shortest junction path evaluated at the initial
   displacements (``t = 0``); the largest gain first. A point-mass pendulum
   released from the bottom thus keeps the horizontal velocity (gain ``L``), not the
   vertical one (gain ``0``). Moduli that cannot be evaluated count as 1;
5. **the element's name** (the global path), a deterministic tie-break.

Examples
--------
>>> import sympy as sp
>>> from bondgraph import BondGraph, One, Zero, I, MTF, Sf, assemble
>>> P = BondGraph("p")
>>> w = One("w", displacement="theta")
>>> th = w.displacement
>>> _ = P.add(I("my", 1.0), I("mx", 1.0), w, One("vx"), One("vy"), Zero("px"), Zero("py"),
...           MTF("tx", -sp.cos(th)), MTF("ty", -sp.sin(th)), Sf("fx", 0.0), Sf("fy", 0.0))
>>> for a, b in [("vy", "my"), ("vx", "mx"), ("w", "tx/1"), ("tx/2", "px"), ("vx", "px"),
...              ("fx", "px"), ("w", "ty/1"), ("ty/2", "py"), ("vy", "py"), ("fy", "py")]:
...     _ = P.connect(a, b)
>>> [(s.element, s.reason) for s in storage_order(assemble(P))]
[('p/mx', 'flow 1 × rate of p/w.theta at the start'), ('p/my', 'flow 0 × rate of p/w.theta at the start')]
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import networkx as nx
import sympy as sp

from .elements import Role, t

__all__ = ["StorageRank", "storage_order", "coordinate_junctions"]


@dataclass(frozen=True)
class StorageRank:
    """One storage element's place in the order and the reason for it.

    Attributes
    ----------
    element : str
        Path of the storage element.
    key : tuple
        The sort key (preference, nonlinear law, coordinate, gain, name).
    reason : str
        Which rule placed it, as the causal report quotes it.

    Examples
    --------
    ``prefer="state"`` ranks a mass first whatever its name:

    >>> from bondgraph import BondGraph, Se, One, I, assemble
    >>> bg = BondGraph("two")
    >>> _ = bg.add(Se("F", 1.0), One("v"), I("a", 1.0), I("b", 2.0, prefer="state"))
    >>> for x, y in [("F", "v"), ("v", "a"), ("v", "b")]:
    ...     _ = bg.connect(x, y)
    >>> [(r.element, r.reason) for r in storage_order(assemble(bg))]
    [('two/b', "prefer='state'"), ('two/a', 'by name')]
    """

    element: str
    key: tuple
    reason: str


def coordinate_junctions(g: nx.MultiDiGraph) -> dict[str, str]:
    """Junctions whose displacement a law uses: node → global state name.

    Parameters
    ----------
    g : networkx.MultiDiGraph
        A global graph.

    Returns
    -------
    dict

    Examples
    --------
    >>> import sympy as sp
    >>> from bondgraph import BondGraph, Se, MTF, One, I, assemble
    >>> coordinate_junctions(nx.MultiDiGraph())
    {}
    >>> bg = BondGraph("arm")
    >>> w = One("w", displacement="theta")
    >>> _ = bg.add(Se("T", 1.0), w, I("J", 1.0), MTF("t", sp.cos(w.displacement)), One("v"),
    ...            I("m", 1.0), One("free", displacement="x"), I("n", 1.0), Se("F", 1.0))
    >>> for a, b in [("T", "w"), ("w", "J"), ("w", "t/1"), ("t/2", "v"), ("v", "m"),
    ...              ("F", "free"), ("free", "n")]:
    ...     _ = bg.connect(a, b)
    >>> coordinate_junctions(assemble(bg))
    {'arm/w': 'arm/w.theta'}
    """
    handles = g.graph.get("handles", {})
    if not handles:
        return {}
    used: set[sp.Symbol] = set()
    for _, el in g.nodes(data="element"):
        used |= _law_symbols(el)
    names = {handles[s].name for s in used if s in handles}
    out = {}
    for n, el in g.nodes(data="element"):
        if el.role in (Role.ZERO, Role.ONE):
            for key in el.handles().values():
                if f"{n}.{key}" in names:
                    out[n] = f"{n}.{key}"
    return out


def storage_order(g: nx.MultiDiGraph) -> list[StorageRank]:
    """Storage elements of a global graph in the order they are offered integral causality.

    Parameters
    ----------
    g : networkx.MultiDiGraph
        A global graph from :func:`~bondgraph.graph.assemble`.

    Returns
    -------
    list of StorageRank
        Best first; the rule is in the module docstring.

    Examples
    --------
    See :class:`StorageRank` and the module.
    """
    coords = coordinate_junctions(g)
    gains = _gains(g, coords) if coords else {}
    out = []
    for n, el in g.nodes(data="element"):
        if el.role not in (Role.I_STORAGE, Role.C_STORAGE):
            continue
        prefer = getattr(el, "prefer", None)
        pref = {"state": 0, None: 1, "dependent": 2}.get(prefer, 1)
        nonlinear = 0 if getattr(el, "law", None) is not None else 1
        ends = list(nx.all_neighbors(g, n))
        on_coord = next((coords[m] for m in ends if m in coords), None)
        gain = None
        if (on_coord is None and el.role is Role.I_STORAGE and ends and ends[0] in gains
                and g.nodes[ends[0]]["element"].role in (Role.ZERO, Role.ONE)):
            gain = gains[ends[0]]
        cond = (0, -gain[0]) if gain is not None else (1, 0.0)
        key = (pref, nonlinear, 0 if on_coord else 1, cond, n)
        if prefer is not None:
            reason = f"prefer={prefer!r}"
        elif not nonlinear:
            reason = "nonlinear law (dependent only through its inverse)"
        elif on_coord:
            reason = f"on the coordinate {on_coord}"
        elif gain is not None:
            reason = f"flow {gain[0]:.3g} × rate of {gain[1]} at the start"
        else:
            reason = "by name"
        out.append(StorageRank(n, key, reason))
    out.sort(key=lambda r: r.key)
    return out


def _law_symbols(el) -> set[sp.Symbol]:
    """Free symbols of an element's expression-valued parameters (moduli, masses, sources).

    A junction's own displacement handle is not a law of it (it is the symbol other
    laws use), so it does not count.
    """
    syms: set[sp.Symbol] = set()
    for value in vars(el).values():
        if isinstance(value, sp.Basic):
            syms |= value.free_symbols
    return syms - set(el.handles())


def _initial_values(g: nx.MultiDiGraph) -> dict[sp.Symbol, float]:
    """Global displacement symbols → their initial values; ``t`` → 0."""
    vals: dict[sp.Symbol, float] = {t: 0.0}
    for n, el in g.nodes(data="element"):
        for key in el.handles().values():
            init = getattr(el, "_disp_initial", 0.0)  # the junction's initial displacement
            try:
                vals[sp.Symbol(f"{n}.{key}", real=True)] = float(init)
            except (TypeError, ValueError):
                pass
    return vals


def _modulus(el, handles: dict, values: dict) -> float | None:
    """|modulus| of a transformer at the initial state, or None if it cannot be evaluated."""
    n = getattr(el, "modulus", None)
    if isinstance(n, (int, float)):
        return abs(float(n))
    if not isinstance(n, sp.Basic):
        return None
    try:
        v = n.xreplace(handles).xreplace(values)
        return abs(float(v)) if v.is_number else None
    except (TypeError, ValueError):
        return None


def _gains(g: nx.MultiDiGraph, coords: dict[str, str]) -> dict[str, tuple[float, str]]:
    """Flow gain of every junction with respect to the nearest coordinate's rate.

    Multi-source breadth-first search from the coordinates through junctions and
    transformers (a gyrator turns a flow into an effort: the search stops there);
    among paths of equal length the largest gain wins.
    """
    handles = g.graph.get("handles", {})
    values = _initial_values(g)
    moduli: dict[str, float | None] = {}
    best: dict[str, tuple[float, str]] = {c: (1.0, coords[c]) for c in sorted(coords)}
    frontier = sorted(coords)
    while frontier:
        nxt: dict[str, tuple[float, str]] = {}
        for n in frontier:
            gain, coord = best[n]
            el = g.nodes[n]["element"]
            for u, v, k, bond in list(g.out_edges(n, keys=True, data="bond")) + \
                    list(g.in_edges(n, keys=True, data="bond")):
                m = v if u == n else u
                if m in best:
                    continue
                mel = g.nodes[m]["element"]
                if mel.role not in (Role.ZERO, Role.ONE, Role.TRANSFORMER):
                    continue
                gm = gain
                if el.role is Role.TRANSFORMER:
                    if n not in moduli:
                        moduli[n] = _modulus(el, handles, values)
                    mod = moduli[n]
                    if mod is not None:
                        leaving_port = bond.tail.name if u == n else bond.head.name
                        # f2 = n·f1: leaving by port 2 multiplies, by port 1 divides
                        gm = gain * mod if leaving_port == "2" else (
                            gain / mod if mod > 0 else math.inf)
                if m not in nxt or gm > nxt[m][0]:
                    nxt[m] = (gm, coord)
        best.update(nxt)
        frontier = sorted(nxt)
    return best
