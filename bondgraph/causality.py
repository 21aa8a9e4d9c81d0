"""Causality assignment and the causal report.

:func:`assign_causality` puts exactly one causal stroke on every bond of a global
graph (edge attribute ``effort_to``: the node that receives the effort) so that
every junction, transformer and gyrator rule holds (see
:mod:`bondgraph.causal_search`). It keeps the preferences of the Sequential
Causality Assignment Procedure (SCAP) but makes them the *value order* of a
complete search, so a conflict is reported only when no assignment exists:

1. **sources and fixed ports** (templates' ``Rt``, ``Pd``, ``Pr``, ``Li``, ``I``)
   set their bonds; propagation through junctions and two-ports follows (a rule
   left with one way out takes it). Every clash is collected — propagation goes
   on past a clashing node — and all are raised at once, each naming the element,
   the bonds, the sources on either side and a fix;
2. what is still free splits into **independent parts** (free bonds linked through
   junctions and two-ports), each solved by a complete depth-first search with
   propagation (:meth:`~bondgraph.causal_search.Engine.search`) that takes the
   choices of step 3 in their order, so the first assignment it finds is the best
   one. A part with no assignment is a *proved* conflict, reported with the
   smallest set of junctions and two-ports whose rules alone admit none (a
   deletion filter) and the sources around them. The search is bounded
   (``search_limit`` backtracks per part; after the first 1000 the part is searched
   again with its junction structure first, where a dead end shows soon after its
   cause); the bound raises :class:`~bondgraph.errors.CausalitySearchLimit`, never
   a hang;
3. **the choices**, in a fixed order, each kept only if a complete assignment
   still exists with it (the solution of step 2 is the witness; a part is searched
   again only where a choice disagrees with it):

   a. storage elements take *integral* causality (they become independent states)
      in the order of :func:`~bondgraph.state_choice.storage_order` — user
      preference, nonlinear laws, generalised coordinates, conditioning at the
      initial state, then name: a rule that does not depend on the order elements
      were added; otherwise they are *dependent* (derivative causality);
   b. resistors take their law's preferred form (by name);
   c. any bond still free (loops of junctions and two-ports) gives its effort to
      its head (by tail, head and bond name).

   The result is the lexicographically best valid assignment in that order: no
   storage element is dependent if, with the choices made before it, it could
   have been a state. A model the former one-pass SCAP handled keeps the
   causality it had whenever its choices come in the same order (SCAP kept every
   choice that propagated without a clash; here such a choice always has a
   completion, since SCAP found one).

Storage elements in derivative causality are reported with the path that forced
them; cycles of purely algebraic dependencies (zero-order causal paths through
resistors, junctions and two-ports) are reported as algebraic loops. Both are
*handled* by the equation generator.

Examples
--------
>>> from bondgraph import BondGraph, Se, One, I, R, assemble, assign_causality
>>> bg = BondGraph("two")
>>> _ = bg.add(Se("F", 1.0), One("v"), I("m2", 2.0), I("m1", 1.0), R("b", 0.1))
>>> for x in ("m1", "m2", "b"):
...     _ = bg.connect("v", x)
>>> _ = bg.connect("F", "v")
>>> rep = assign_causality(assemble(bg))
>>> [d.element for d in rep.derivative]
['two/m2']
>>> rep.states
['two/m1.f']
"""

from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import dataclass, field

import networkx as nx

from .causal_search import Clash, Engine, SearchLimit
from .elements import Role
from .errors import CausalityConflict, CausalitySearchLimit, ParameterError
from .state_choice import storage_order

__all__ = [
    "Conflict",
    "DerivativeStorage",
    "AlgebraicLoop",
    "CausalReport",
    "assign_causality",
    "causal_dependencies",
]

#: backtracks allowed per independent part before :class:`CausalitySearchLimit`
SEARCH_LIMIT = 200_000


@dataclass(frozen=True)
class Conflict:
    """A causal conflict: the element, the bonds, what was found and a fix.

    ``sources`` are the sources and fixed ports whose causality reaches the
    element; ``involved`` lists every junction and two-port of a conflict proved
    by search (the smallest set found whose rules admit no assignment).

    Attributes
    ----------
    element : str
        The junction or two-port whose rule is broken.
    bonds : tuple of str
        The bonds involved.
    found : str
        What was found.
    suggestion : str
        How to fix the model.
    sources, involved : tuple of str

    Examples
    --------
    Two effort sources on one 0-junction; the records are on the exception:

    >>> from bondgraph import BondGraph, Se, Zero, assemble, CausalityConflict
    >>> m = BondGraph("two")
    >>> _ = m.add(Se("a", 1.0), Se("b", 2.0), Zero("p"))
    >>> _ = m.connect("a", "p"); _ = m.connect("b", "p")
    >>> try:
    ...     assign_causality(assemble(m))
    ... except CausalityConflict as err:
    ...     (c,) = err.conflicts
    >>> c.element, c.sources
    ('two/p', ('two/a', 'two/b'))
    >>> c.suggestion
    'insert a resistance or an inertia (a 1-junction with R or I) between two/a and two/b'
    """

    element: str
    bonds: tuple[str, ...]
    found: str
    suggestion: str
    sources: tuple[str, ...] = ()
    involved: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"{self.element}: {self.found} (bonds {', '.join(self.bonds)}). Fix: {self.suggestion}"
@dataclass(frozen=True)
class DerivativeStorage:
    """A storage element in derivative causality and the path that forced it.

    Attributes
    ----------
    element : str
        Path of the dependent storage element.
    kind : str
        ``"I"`` or ``"C"``.
    path : tuple of str
        The elements whose causality forced it, nearest first.

    Examples
    --------
    Two masses on one 1-junction share a velocity: one of them is dependent.

    >>> from bondgraph import BondGraph, Se, One, I, assemble
    >>> bg = BondGraph("two")
    >>> _ = bg.add(Se("F", 1.0), One("v"), I("m1", 1.0), I("m2", 2.0))
    >>> for a, b in [("F", "v"), ("v", "m1"), ("v", "m2")]:
    ...     _ = bg.connect(a, b)
    >>> (d,) = assign_causality(assemble(bg)).derivative
    >>> print(d)
    two/m2 (I) forced by two/v ← two/m1
    """

    element: str
    kind: str
    path: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.element} ({self.kind}) forced by " + " ← ".join(self.path)


@dataclass(frozen=True)
class AlgebraicLoop:
    """A zero-order causal path closing on itself.

    The equation generator tears it (:mod:`bondgraph.equations`); it is reported
    because a loop through nonlinear laws costs a Newton solve per call.

    Attributes
    ----------
    elements : tuple of str
        The elements along the loop.
    variables : tuple of str
        The bond variables in it.

    Examples
    --------
    A ladder of three resistors between a source and a compliance:

    >>> from bondgraph import BondGraph, Se, One, Zero, R, C, assemble
    >>> bg = BondGraph("lp")
    >>> _ = bg.add(Se("F", 1.0), One("v"), R("r1", 1.0), Zero("p"), R("r2", 2.0), One("w"),
    ...            R("r3", 3.0), C("c", 1.0))
    >>> for a, b in [("F", "v"), ("v", "r1"), ("v", "p"), ("p", "r2"), ("p", "w"), ("w", "r3"),
    ...              ("w", "c")]:
    ...     _ = bg.connect(a, b)
    >>> (loop,) = assign_causality(assemble(bg)).loops
    >>> sorted(loop.elements)
    ['lp/p', 'lp/r1', 'lp/r2', 'lp/r3', 'lp/v', 'lp/w']
    """

    elements: tuple[str, ...]
    variables: tuple[str, ...]

    def __str__(self) -> str:
        return "loop through " + " → ".join(self.elements)


@dataclass
class CausalReport:
    """What causality assignment found, readable in a notebook or a terminal.

    Attributes
    ----------
    states : list of str
        Independent state variables (integral storage), by global name.
    displacements : list of str
        Displacement states of junctions (integrals needed by modulated laws).
    derivative : list of DerivativeStorage
        Dependent storage elements with the path that forced them.
    loops : list of AlgebraicLoop
        Zero-order causal paths (algebraic loops).
    conflicts : list of Conflict
        Always empty in a returned report (conflicts raise).
    effort_to : dict
        Bond name → node receiving the effort.
    choice : dict
        Storage element offered integral causality as a choice (not forced by
        sources) → the rule that ranked it (see :mod:`bondgraph.state_choice`).

    Examples
    --------
    >>> from bondgraph import BondGraph, Se, One, I, R, assemble
    >>> bg = BondGraph("drag")
    >>> _ = bg.add(Se("F", 1.0), One("v"), I("m", 1.0), R("b", 1.0))
    >>> for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
    ...     _ = bg.connect(a, b)
    >>> rep = assign_causality(assemble(bg))
    >>> rep.states, rep.effort_to["drag/b1"]
    (['drag/m.f'], 'drag/v')
    >>> print(rep.summary())
    causality of 'drag': sound; 1 independent states, 0 displacement states, 0 dependent storage elements, 0 algebraic loops, 0 conflicts
    """

    model: str
    states: list[str] = field(default_factory=list)
    displacements: list[str] = field(default_factory=list)
    derivative: list[DerivativeStorage] = field(default_factory=list)
    loops: list[AlgebraicLoop] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    effort_to: dict[str, str] = field(default_factory=dict)
    choice: dict[str, str] = field(default_factory=dict)

    def summary(self) -> str:
        """One line: counts and verdict (``str(report)`` gives the details).

        Returns
        -------
        str
        """
        verdict = "sound" if not self.conflicts else "CONFLICTS"
        return (f"causality of {self.model!r}: {verdict}; {len(self.states)} independent "
                f"states, {len(self.displacements)} displacement states, "
                f"{len(self.derivative)} dependent storage elements, "
                f"{len(self.loops)} algebraic loops, {len(self.conflicts)} conflicts")

    def __str__(self) -> str:
        lines = [self.summary()]
        lines.append("independent states: " + (", ".join(self.states) or "none"))
        if self.displacements:
            lines.append("displacement states: " + ", ".join(self.displacements))
        ruled = [f"{n} ({why})" for n, why in self.choice.items()
                 if why != "by name" and any(s.startswith(n + ".") for s in self.states)]
        if ruled:
            lines.append("states chosen by rule: " + ", ".join(ruled))
        if self.derivative:
            lines.append("derivative causality (dependent storage):")
            lines += [f"  - {d}" for d in self.derivative]
        if self.loops:
            lines.append("algebraic loops (solved by tearing):")
            lines += [f"  - {lp}" for lp in self.loops]
        if self.conflicts:
            lines.append("conflicts:")
            lines += [f"  - {c}" for c in self.conflicts]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        from .display import causal_report_html

        return causal_report_html(self)


# ---------------------------------------------------------------------------- assignment
def assign_causality(g: nx.MultiDiGraph, *, search_limit: int = SEARCH_LIMIT) -> CausalReport:
    """Assign causality to every bond of a global graph (complete SCAP).

    Writes ``effort_to`` on every edge and returns the :class:`CausalReport`. The
    procedure is in the module docstring.

    Parameters
    ----------
    g : networkx.MultiDiGraph
        A global graph from :func:`~bondgraph.graph.assemble`.
    search_limit : int
        Backtracks allowed in the search of one independent part.

    Returns
    -------
    CausalReport

    Raises
    ------
    CausalityConflict
        When no assignment exists, listing every conflict, each naming the element,
        the bonds, the sources involved and a suggested fix.
    CausalitySearchLimit
        When the search of a part exceeded ``search_limit`` backtracks.
    ParameterError
        For a ``search_limit`` that is not an integer ≥ 1.

    Examples
    --------
    >>> from bondgraph import BondGraph, Sf, One, R, assemble, assign_causality
    >>> bg = BondGraph("clash")
    >>> _ = bg.add(Sf("v1", 1.0), Sf("v2", 2.0), One("j"), R("r", 1.0))
    >>> for a, b in [("v1", "j"), ("v2", "j"), ("j", "r")]:
    ...     _ = bg.connect(a, b)
    >>> assign_causality(assemble(bg))
    Traceback (most recent call last):
    ...
    bondgraph.errors.CausalityConflict: model 'clash': 1 problem
      - clash/j: 2 bonds impose its flow: from clash/v1 (set by clash/v1), clash/v2 (set by clash/v2) (bonds clash/b1, clash/b2). Fix: insert a compliance (a 0-junction with C) between clash/v1 and clash/v2
    """
    name = g.graph.get("name", "?")
    if not isinstance(search_limit, int) or isinstance(search_limit, bool) or search_limit < 1:
        raise ParameterError(f"search_limit={search_limit!r}: expected an integer ≥ 1",
                             subject=f"model {name!r}")
    eng = Engine(g)
    conflicts = _impose_sources(g, eng)
    clashes: list[Clash] = []
    starts = sorted({n for k in eng.effort_to for n in eng.ends[k]}, reverse=True)
    eng.propagate(starts, clashes)
    conflicts += [_describe(eng, c) for c in clashes]

    # 2. independent parts, each solved completely (the witness of step 3)
    ranking = storage_order(g)
    first = _preferred_values(g, eng, ranking)
    decisions = _decisions(g, eng, ranking, first)
    rank = {}
    for i, (k, _, _) in enumerate(decisions):
        rank.setdefault(k, i)
    witness: dict[str, str] = {}
    for nodes, bonds in eng.components():
        if any(n in eng.clashed for n in nodes):
            continue  # already explained by a clash
        w = _witness(eng, nodes, bonds, first, rank, ranking, search_limit, name)
        if w is None:
            order = _structure_first(eng, nodes, bonds, ranking)
            conflicts.append(_unsolvable(eng, nodes, order, first, search_limit))
            continue
        witness.update(w)
    if conflicts:
        raise CausalityConflict([str(c) for c in conflicts], subject=f"model {name!r}",
                                conflicts=conflicts)

    # 3. choices in a fixed order, each kept only if the assignment can still be completed
    choice: dict[str, str] = {}
    reasons = {r.element: r.reason for r in ranking}
    for k, want, who in decisions:
        if k in eng.effort_to:
            continue
        if who in reasons:
            choice[who] = reasons[who]
        _decide(eng, k, want, who, witness, first, ranking, search_limit, name)

    # every rule holds (a safety net: the search guarantees it)
    for n in g.nodes:  # pragma: no cover - an internal error, named if it ever happens
        if eng.constrains(n) and eng.rule(n) != []:
            res = eng.rule(n)
            clash = res if isinstance(res, Clash) else Clash(n, "none", tuple(eng.inc[n]))
            c = _describe(eng, clash)
            raise CausalityConflict([str(c)], subject=f"model {name!r}", conflicts=[c])

    for u, v, k in g.edges(keys=True):
        g.edges[u, v, k]["effort_to"] = eng.effort_to[k]
    g.graph["causality"] = True
    return _report(g, eng, name, choice)


def _impose_sources(g: nx.MultiDiGraph, eng: Engine) -> list[Conflict]:
    """Step 1: sources and fixed ports set their bonds; clashes between them."""
    conflicts: list[Conflict] = []
    for n in sorted(g.nodes):
        role = eng.role[n]
        if role not in (Role.EFFORT_SOURCE, Role.FLOW_SOURCE):
            continue
        for k in eng.inc[n]:
            target = eng.other(k, n) if role is Role.EFFORT_SOURCE else n
            cur = eng.effort_to.get(k)
            if cur is None:
                eng.assign(k, target, (n, ()))
            elif cur != target:
                a, b = eng.ends[k]
                other = eng.cause[k][0]
                conflicts.append(Conflict(
                    n, (k,), f"bond {k} must give its effort to {target} (source {n}) and to "
                    f"{cur} (source {other})",
                    f"two sources face each other on {a} – {b}: put a junction with a storage "
                    "element or a resistor between them", sources=(other, n)))
    for u, v, k, fixed in sorted(g.edges(keys=True, data="fixed"), key=lambda e: e[2]):
        for effort_to, where in fixed or ():
            cur = eng.effort_to.get(k)
            if cur is None:
                eng.assign(k, effort_to, (where, ()))
            elif cur != effort_to:
                prev = eng.cause[k][0]
                conflicts.append(Conflict(
                    where, (k,),
                    f"fixed port wants {effort_to} to receive the effort, but {prev} gives it "
                    f"to {cur}",
                    "connect ports of compatible classes (a Pd to a Pr, an Rt to an Li or "
                    "the chassis); one side must take effort and the other flow",
                    sources=(prev, where)))
    return conflicts


def _preferred_values(g: nx.MultiDiGraph, eng: Engine, ranking) -> dict[str, str]:
    """The value tried first for every free bond (the SCAP preferences)."""
    first: dict[str, str] = {}
    for u, v, k in g.edges(keys=True):
        first[k] = v
    for r in ranking:
        (k,) = eng.inc[r.element]
        integral_effort_in = eng.role[r.element] is Role.I_STORAGE
        first[k] = r.element if integral_effort_in else eng.other(k, r.element)
    for n, el in g.nodes(data="element"):
        if el.role is Role.RESISTOR:
            (k,) = eng.inc[n]
            first[k] = n if el.preferred_effort_in() in (True, None) else eng.other(k, n)
    return first


def _decisions(g: nx.MultiDiGraph, eng: Engine, ranking, first: dict[str, str]):
    """The choices of step 3 in their order: ``(bond, value wanted, chooser)``."""
    out = [(eng.inc[r.element][0], first[eng.inc[r.element][0]], r.element) for r in ranking]
    for n in sorted(n for n in g.nodes if eng.role[n] is Role.RESISTOR):
        out.append((eng.inc[n][0], first[eng.inc[n][0]], n))
    out += [(k, v, u) for u, v, k in sorted(g.edges(keys=True))]
    return out


#: backtracks tried in the order of the choices before searching structure first
_QUICK = 1000


def _witness(eng: Engine, nodes, bonds, first, rank, ranking, limit: int, name: str):
    """A complete assignment of one part, or None when none exists.

    Depth-first search in the order of the choices of step 3 finds the best assignment
    directly (the lexicographically first in that order), so step 3 only confirms it. If
    that order needs many backtracks (a dead end found late), the part is searched again
    with its junction structure first, where a dead end shows soon after its cause.
    """
    order = sorted(bonds, key=lambda k: rank[k])
    try:
        return eng.search(order, first, min(limit, _QUICK))
    except SearchLimit:
        pass
    return _search(eng, _structure_first(eng, nodes, bonds, ranking), first, limit, nodes, name)


def _structure_first(eng: Engine, nodes: list[str], bonds: list[str], ranking) -> list[str]:
    """Variables of a part: bonds between junctions and two-ports first (breadth first
    from the part's boundary), then bonds to storage and resistors in rank order; these
    last never cause a dead end once the others hold."""
    node_set = set(nodes)
    free = set(bonds)
    structural = {k for k in bonds if all(eng.constrains(n) for n in eng.ends[k])}
    boundary = [n for n in nodes if any(k in eng.effort_to for k in eng.inc[n])]
    order: list[str] = []
    placed: set[str] = set()
    seen: set[str] = set()
    for root in boundary + nodes:
        if root in seen:
            continue
        seen.add(root)
        queue = deque([root])
        while queue:
            n = queue.popleft()
            for k in eng.inc[n]:
                if k in structural and k not in placed:
                    placed.add(k)
                    order.append(k)
                    m = eng.other(k, n)
                    if m in node_set and m not in seen:
                        seen.add(m)
                        queue.append(m)
    rank = {r.element: i for i, r in enumerate(ranking)}
    rest = sorted(free - structural,
                  key=lambda k: (0, rank[e]) if (e := _one_port(eng, k)) in rank else (1, e or "", k))
    return order + rest


def _one_port(eng: Engine, k: str) -> str | None:
    u, v = eng.ends[k]
    return v if not eng.constrains(v) else u if not eng.constrains(u) else None


def _search(eng: Engine, order, first, limit: int, nodes, name: str) -> dict[str, str] | None:
    try:
        return eng.search(order, first, limit)
    except SearchLimit:
        shown = ", ".join(nodes[:6]) + (f" and {len(nodes) - 6} more" if len(nodes) > 6 else "")
        raise CausalitySearchLimit(
            f"causality search stopped after {limit} backtrack{'s' if limit != 1 else ''} "
            "in the part of the graph "
            f"made of {shown} ({len(order)} free bonds), without finding an assignment or "
            "proving that none exists; fix the causality of some of its bonds (a source, a "
            "fixed port, a storage element) or pass a larger search_limit= to "
            "assign_causality", subject=f"model {name!r}") from None


def _decide(eng: Engine, k: str, want: str, who: str, witness: dict[str, str],
            first: dict[str, str], ranking, limit: int, name: str) -> None:
    """Give bond ``k`` the value ``want`` if a complete assignment still exists with it,
    otherwise the other value (which the witness then proves possible)."""
    u, v = eng.ends[k]
    mark = len(eng.trail)
    eng.assign(k, want, (who, ()))
    if eng.propagate(eng.ends[k]) is None:
        if witness.get(k) == want:
            return
        # every free bond next to one this choice set may have lost its witness
        touched = {n for b in eng.trail[mark:] for n in eng.ends[b]}
        nodes, bonds = eng.free_part(sorted(touched))
        if not bonds:
            return
        w = _search(eng, _structure_first(eng, nodes, bonds, ranking), first, limit, nodes, name)
        if w is not None:
            witness.update(w)
            return
    eng.undo(mark)
    eng.assign(k, u if want == v else v, (who, ()))
    clash = eng.propagate(eng.ends[k])
    if clash is not None:  # pragma: no cover - the witness extends this choice
        c = _describe(eng, clash)
        raise CausalityConflict([str(c)], subject=f"model {name!r}", conflicts=[c])


# ---------------------------------------------------------------------------- conflicts
def _origins(eng: Engine, k: str) -> list[str]:
    """Sources / fixed ports / choices at the root of bond k's causality."""
    out: list[str] = []
    seen: set[str] = set()
    stack = [k]
    while stack:
        b = stack.pop()
        if b in seen or b not in eng.cause:
            continue
        seen.add(b)
        n, via = eng.cause[b]
        if not via:
            out.append(n)
        stack.extend(reversed(via))
    return list(dict.fromkeys(out))


def _describe(eng: Engine, clash: Clash) -> Conflict:
    """A conflict found by propagation, in words."""
    n = clash.node
    if clash.kind == "two-port":
        k1, k2 = clash.bonds
        srcs = tuple(dict.fromkeys(_origins(eng, k1) + _origins(eng, k2)))
        kind = "transformer" if eng.role[n] is Role.TRANSFORMER else "gyrator"
        same = eng.role[n] is Role.GYRATOR
        return Conflict(n, (k1, k2),
                        f"{kind} gets {'the same' if not same else 'opposite'} causality on "
                        f"both ports (set by {', '.join(srcs) or 'the junctions around it'})",
                        "a transformer passes effort one way and flow the other; a gyrator "
                        "takes both efforts or both flows: check the sources or fixed ports "
                        "on its two sides", sources=srcs)
    zero = eng.role[n] is Role.ZERO
    what = "effort" if zero else "flow"
    if clash.kind == "none":
        srcs = tuple(dict.fromkeys(o for k in clash.bonds for o in _origins(eng, k)))
        return Conflict(n, clash.bonds,
                        f"nothing imposes its {what}"
                        + (f" (every bond is set by {', '.join(srcs)})" if srcs else ""),
                        f"connect {'an effort source or a compliance (C)' if zero else 'a flow source or an inertia (I)'} to {n}",
                        sources=srcs)
    strong = list(clash.bonds)
    ends = [eng.other(k, n) for k in strong]
    origins = [_origins(eng, k) for k in strong]
    fix = (f"insert a resistance or an inertia (a 1-junction with R or I) between "
           f"{ends[0]} and {ends[1]}" if zero else
           f"insert a compliance (a 0-junction with C) between {ends[0]} and {ends[1]}")
    return Conflict(n, tuple(strong),
                    f"{len(strong)} bonds impose its {what}: from " +
                    ", ".join(f"{e} (set by {' / '.join(o) or e})" for e, o in zip(ends, origins)),
                    fix, sources=tuple(dict.fromkeys(o for os_ in origins for o in os_)))


def _unsolvable(eng: Engine, nodes: list[str], order: list[str], first: dict[str, str],
                limit: int) -> Conflict:
    """A part proved to have no assignment: its smallest infeasible core, in words."""
    core = eng.core(nodes, order, first, limit)
    core_set = set(core)
    bonds = sorted({k for n in core for k in eng.inc[n]})
    fixed = [k for k in bonds if k in eng.effort_to]
    srcs = tuple(dict.fromkeys(o for k in fixed for o in _origins(eng, k)))
    inner = [k for k in bonds if all(m in core_set for m in eng.ends[k])]
    shape = "loop" if len(inner) >= len(core) and len(core) > 1 else "structure"
    junctions = [n for n in core if eng.role[n] in (Role.ZERO, Role.ONE)]
    return Conflict(
        (junctions or core)[0], tuple(bonds),
        f"no causal assignment exists: the junction {shape} {' – '.join(core)} cannot satisfy "
        "its junction, transformer and gyrator rules"
        + (f" with the causality imposed by {', '.join(srcs)}" if srcs else "")
        + f" (proved by exhaustive search over {sum(1 for k in bonds if k not in eng.effort_to)} "
        "free bonds)",
        f"the {shape} ties a junction's variable to itself (a redundant connection): insert a "
        "storage element or a resistor into one of its bonds (a 1-junction with I or R into a "
        "bond of a 0-junction, a 0-junction with C or R into a bond of a 1-junction) or "
        "remove the redundant connection"
        + (f"; or change {', '.join(srcs)}" if srcs else ""),
        sources=srcs, involved=tuple(core))


# ---------------------------------------------------------------------------- report
def _report(g: nx.MultiDiGraph, eng: Engine, name: str, choice: dict[str, str]) -> CausalReport:
    rep = CausalReport(model=name, effort_to=dict(eng.effort_to), choice=choice)
    for n, el in g.nodes(data="element"):
        if el.role in (Role.C_STORAGE, Role.I_STORAGE):
            (k,) = eng.inc[n]
            eff_in = eng.effort_to[k] == n
            integral = eff_in == (el.role is Role.I_STORAGE)
            if integral:
                rep.states += [f"{n}.{key}" for key in el.state_keys(eff_in)]
            else:
                rep.derivative.append(DerivativeStorage(n, el.kind, tuple(_path(eng, k))))
        elif el.role in (Role.ZERO, Role.ONE):
            rep.displacements += [f"{n}.{key}" for key in el.state_keys(True)]
    rep.loops = _loops(g, eng.effort_to)
    return rep


def _path(eng: Engine, k: str) -> list[str]:
    """Chain of elements that forced bond k, back to a source, port or choice."""
    out: list[str] = []
    seen = set()
    while k in eng.cause and k not in seen:
        seen.add(k)
        n, via = eng.cause[k]
        out.append(n)
        if not via:
            break
        k = via[0]
    return out


def causal_dependencies(g: nx.MultiDiGraph, effort_to: dict[str, str] | None = None) -> nx.DiGraph:
    """Directed graph of algebraic dependencies between bond variables.

    Nodes are ``("e", bond)`` / ``("f", bond)``; an edge ``a → b`` means the
    element computing ``b`` reads ``a`` without integrating. Storage elements
    break the chain (integral) or depend by differentiation (not an edge).

    Parameters
    ----------
    g : networkx.MultiDiGraph
        A global graph.
    effort_to : dict, optional
        Bond → node receiving the effort (default: the ``effort_to`` edge attributes
        written by :func:`assign_causality`).

    Returns
    -------
    networkx.DiGraph
        Its cycles are the algebraic loops.

    Examples
    --------
    >>> import networkx as nx
    >>> from bondgraph import BondGraph, Se, One, R, I, assemble
    >>> causal_dependencies(nx.MultiDiGraph(), {}).number_of_nodes()
    0
    >>> bg = BondGraph("d")
    >>> _ = bg.add(Se("F", 1.0), One("v"), I("m", 1.0), R("b", 1.0))
    >>> for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
    ...     _ = bg.connect(a, b)
    >>> g = assemble(bg)
    >>> _ = assign_causality(g)
    >>> dep = causal_dependencies(g)
    >>> dep.has_edge(("f", "d/b3"), ("e", "d/b3")), nx.is_directed_acyclic_graph(dep)
    (True, True)
    """
    if effort_to is None:
        effort_to = {k: d for *_, k, d in g.edges(keys=True, data="effort_to")}
    dep = nx.DiGraph()
    inc: dict[str, list[str]] = defaultdict(list)
    ends = {}
    for u, v, k in g.edges(keys=True):
        inc[u].append(k)
        inc[v].append(k)
        ends[k] = (u, v)
        dep.add_node(("e", k))
        dep.add_node(("f", k))
    for n, el in g.nodes(data="element"):
        role = el.role
        ks = inc[n]
        ins = {k: effort_to[k] == n for k in ks}  # True: n receives effort on k
        if role is Role.RESISTOR:
            (k,) = ks
            if ins[k]:
                dep.add_edge(("e", k), ("f", k))
            else:
                dep.add_edge(("f", k), ("e", k))
        elif role in (Role.TRANSFORMER, Role.GYRATOR) and len(ks) == 2:
            k1, k2 = ks
            for a_, b_ in ((k1, k2), (k2, k1)):
                src = ("e", a_) if ins[a_] else ("f", a_)
                if role is Role.TRANSFORMER:
                    dst = ("e", b_) if not ins[b_] else ("f", b_)
                else:
                    dst = ("f", b_) if ins[b_] else ("e", b_)
                dep.add_edge(src, dst)
        elif role is Role.ZERO:
            strong = [k for k in ks if ins[k]]
            if len(strong) == 1:
                s = strong[0]
                for k in ks:
                    if k != s:
                        dep.add_edge(("e", s), ("e", k))
                        dep.add_edge(("f", k), ("f", s))
        elif role is Role.ONE:
            strong = [k for k in ks if not ins[k]]
            if len(strong) == 1:
                s = strong[0]
                for k in ks:
                    if k != s:
                        dep.add_edge(("f", s), ("f", k))
                        dep.add_edge(("e", k), ("e", s))
    dep.graph["ends"] = ends
    return dep


def _loops(g: nx.MultiDiGraph, effort_to: dict[str, str]) -> list[AlgebraicLoop]:
    dep = causal_dependencies(g, effort_to)
    ends = dep.graph["ends"]
    loops = []
    for scc in nx.strongly_connected_components(dep):
        if len(scc) < 2:
            continue
        elems: list[str] = []
        for kind, k in sorted(scc):
            u, v = ends[k]
            # the computing element of e_k is the end that does not receive effort
            comp = (u if effort_to[k] == v else v) if kind == "e" else effort_to[k]
            elems.append(comp)
        elems = list(dict.fromkeys(elems))
        loops.append(AlgebraicLoop(tuple(elems), tuple(f"{kind}[{k}]" for kind, k in sorted(scc))))
    loops.sort(key=lambda lp: lp.elements)
    return loops
