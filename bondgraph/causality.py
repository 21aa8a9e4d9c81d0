"""Causality assignment (SCAP) and the causal report.

:func:`assign_causality` puts exactly one causal stroke on every bond of a global
graph (edge attribute ``effort_to``: the node that receives the effort), in the
order of the Sequential Causality Assignment Procedure:

1. sources and fixed-causality ports (templates' ``Rt``, ``Pd``, ``Pr``, ``Li``,
   ``I``), each followed by propagation through junctions and two-ports;
2. storage elements, one at a time with their preferred *integral* causality;
   if that contradicts what is already fixed, the element takes derivative
   causality instead (it is *dependent*);
3. resistors (their law's preferred form first);
4. any bond still free (loops of junctions and two-ports), arbitrarily.

Storage elements that propagation forced into derivative causality are
reported with the path that forced them; cycles of purely algebraic
dependencies (zero-order causal paths through resistors, junctions and
two-ports) are reported as algebraic loops. Both are *handled* by the equation
generator. Two sources imposing the same variable is a conflict:
:class:`~bondgraph.errors.CausalityConflict` names the junction, the bonds, the
sources on either side and a fix.

Examples
--------
>>> from bondgraph import BondGraph, Se, One, I, R, assemble, assign_causality
>>> bg = BondGraph("two")
>>> _ = bg.add(Se("F", 1.0), One("v"), I("m1", 1.0), I("m2", 2.0), R("b", 0.1))
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

from collections import defaultdict
from dataclasses import dataclass, field

import networkx as nx

from .elements import Role
from .errors import CausalityConflict

__all__ = [
    "Conflict",
    "DerivativeStorage",
    "AlgebraicLoop",
    "CausalReport",
    "assign_causality",
    "causal_dependencies",
]


@dataclass(frozen=True)
class Conflict:
    """A causal conflict at one element."""

    element: str
    bonds: tuple[str, ...]
    found: str
    suggestion: str

    def __str__(self) -> str:
        return f"{self.element}: {self.found} (bonds {', '.join(self.bonds)}). Fix: {self.suggestion}"


@dataclass(frozen=True)
class DerivativeStorage:
    """A storage element in derivative causality and the path that forced it."""

    element: str
    kind: str
    path: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.element} ({self.kind}) forced by " + " ← ".join(self.path)


@dataclass(frozen=True)
class AlgebraicLoop:
    """A zero-order causal path closing on itself."""

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
    """

    model: str
    states: list[str] = field(default_factory=list)
    displacements: list[str] = field(default_factory=list)
    derivative: list[DerivativeStorage] = field(default_factory=list)
    loops: list[AlgebraicLoop] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    effort_to: dict[str, str] = field(default_factory=dict)

    def summary(self) -> str:
        """A few lines: counts and verdict."""
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

    def _repr_markdown_(self) -> str:
        return "```\n" + str(self) + "\n```"


class _Assigner:
    def __init__(self, g: nx.MultiDiGraph):
        self.g = g
        self.ends: dict[str, tuple[str, str]] = {}
        self.inc: dict[str, list[str]] = defaultdict(list)
        for u, v, k in g.edges(keys=True):
            self.ends[k] = (u, v)
            self.inc[u].append(k)
            self.inc[v].append(k)
        self.effort_to: dict[str, str] = {}
        self.cause: dict[str, tuple[str, tuple[str, ...]]] = {}
        self.trail: list[str] | None = None
        self.conflicts: list[Conflict] = []

    # --------------------------------------------------------------- primitives
    def role(self, n: str) -> Role:
        return self.g.nodes[n]["element"].role

    def other(self, k: str, n: str) -> str:
        u, v = self.ends[k]
        return v if u == n else u

    def set(self, k: str, effort_to: str, cause: tuple[str, tuple[str, ...]]) -> Conflict | None:
        cur = self.effort_to.get(k)
        if cur is not None:
            if cur != effort_to:
                return self._clash(k, effort_to, cause)
            return None
        self.effort_to[k] = effort_to
        self.cause[k] = cause
        if self.trail is not None:
            self.trail.append(k)
        return None

    def _clash(self, k, effort_to, cause) -> Conflict:
        a, b = self.ends[k]
        return Conflict(
            element=cause[0], bonds=(k,) + tuple(cause[1]),
            found=f"bond {k} must give its effort to {effort_to} and to {self.effort_to[k]}",
            suggestion=f"check the sources and fixed ports on either side of {a} – {b}")

    def receives_effort(self, k: str, n: str) -> bool | None:
        cur = self.effort_to.get(k)
        return None if cur is None else cur == n

    # --------------------------------------------------------------- propagation
    def propagate(self, start: list[str]) -> Conflict | None:
        queue = list(dict.fromkeys(start))
        seen_len = -1
        while queue:
            n = queue.pop()
            before = len(self.effort_to)
            c = self._rule(n)
            if c is not None:
                return c
            if len(self.effort_to) != before:
                for k in self.inc[n]:
                    m = self.other(k, n)
                    if m not in queue:
                        queue.append(m)
            seen_len = before
        del seen_len
        return None

    def _rule(self, n: str) -> Conflict | None:
        role = self.role(n)
        ks = self.inc[n]
        if role in (Role.ZERO, Role.ONE):
            strong_is_effort = role is Role.ZERO  # 0: one bond gives effort; 1: one gives flow
            strong = [k for k in ks if self.receives_effort(k, n) is strong_is_effort]
            free = [k for k in ks if self.receives_effort(k, n) is None]
            if len(strong) > 1:
                return self._junction_conflict(n, strong)
            if len(strong) == 1:
                for k in free:
                    c = self.set(k, self.other(k, n) if strong_is_effort else n, (n, (strong[0],)))
                    if c:
                        return c
            elif len(free) == 1:
                k = free[0]
                others = tuple(x for x in ks if x != k)
                return self.set(k, n if strong_is_effort else self.other(k, n), (n, others))
            elif not free:
                return self._junction_conflict(n, [])
            return None
        if role in (Role.TRANSFORMER, Role.GYRATOR):
            if len(ks) != 2:
                return None
            k1, k2 = ks
            r1, r2 = self.receives_effort(k1, n), self.receives_effort(k2, n)
            same = role is Role.GYRATOR
            if r1 is not None and r2 is None:
                want = r1 if same else not r1
                return self.set(k2, n if want else self.other(k2, n), (n, (k1,)))
            if r2 is not None and r1 is None:
                want = r2 if same else not r2
                return self.set(k1, n if want else self.other(k1, n), (n, (k2,)))
            if r1 is not None and r2 is not None and (r1 == r2) != same:
                el = self.g.nodes[n]["element"]
                return Conflict(n, (k1, k2),
                                f"{el.kind} gets {'the same' if not same else 'opposite'} "
                                "causality on both ports",
                                "a transformer passes effort one way and flow the other; "
                                "a gyrator takes both efforts or both flows: check the "
                                "sources or fixed ports on its two sides")
        return None

    def _origins(self, k: str, depth: int = 0) -> list[str]:
        """Sources / fixed ports / choices at the root of bond k's causality."""
        if depth > 200 or k not in self.cause:
            return []
        n, via = self.cause[k]
        if not via:
            return [n]
        out: list[str] = []
        for k2 in via:
            out += self._origins(k2, depth + 1)
        return list(dict.fromkeys(out)) or [n]

    def _junction_conflict(self, n: str, strong: list[str]) -> Conflict:
        zero = self.role(n) is Role.ZERO
        if not strong:
            var = "effort" if zero else "flow"
            return Conflict(n, tuple(self.inc[n]), f"nothing imposes its {var}",
                            f"connect an {'effort source or a compliance (C)' if zero else 'flow source or an inertia (I)'} to {n}")
        ends = [self.other(k, n) for k in strong]
        origins = [" / ".join(self._origins(k)) or self.other(k, n) for k in strong]
        what = "effort" if zero else "flow"
        fix = (f"insert a resistance or an inertia (a 1-junction with R or I) between "
               f"{ends[0]} and {ends[1]}" if zero else
               f"insert a compliance (a 0-junction with C) between {ends[0]} and {ends[1]}")
        return Conflict(n, tuple(strong),
                        f"{len(strong)} bonds impose its {what}: from " +
                        ", ".join(f"{e} (set by {o})" for e, o in zip(ends, origins)),
                        fix)

    # --------------------------------------------------------------- trial
    def trial(self, k: str, effort_to: str, cause) -> Conflict | None:
        self.trail = []
        c = self.set(k, effort_to, cause) or self.propagate(list(self.ends[k]))
        if c is not None:
            for kk in self.trail:
                del self.effort_to[kk]
                del self.cause[kk]
        self.trail = None
        return c


def assign_causality(g: nx.MultiDiGraph) -> CausalReport:
    """Assign causality to every bond of a global graph (SCAP).

    Writes ``effort_to`` on every edge and returns the :class:`CausalReport`.

    Parameters
    ----------
    g : networkx.MultiDiGraph
        A global graph from :func:`~bondgraph.graph.assemble`.

    Returns
    -------
    CausalReport

    Raises
    ------
    CausalityConflict
        Listing every conflict, each naming the element, the bonds, the sources
        involved and a suggested fix.

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
    a = _Assigner(g)
    name = g.graph.get("name", "?")
    nodes = list(g.nodes)

    # 1. sources and fixed ports
    starts: list[str] = []
    for n in nodes:
        role = a.role(n)
        if role in (Role.EFFORT_SOURCE, Role.FLOW_SOURCE):
            for k in a.inc[n]:
                target = a.other(k, n) if role is Role.EFFORT_SOURCE else n
                c = a.set(k, target, (n, ()))
                if c:
                    a.conflicts.append(c)
                starts.append(a.other(k, n))
    for u, v, k, fixed in g.edges(keys=True, data="fixed"):
        for effort_to, where in fixed or ():
            cur = a.effort_to.get(k)
            if cur is not None and cur != effort_to:
                prev = a.cause[k][0]
                a.conflicts.append(Conflict(
                    where, (k,),
                    f"fixed port wants {effort_to} to receive the effort, but {prev} gives it "
                    f"to {cur}",
                    "connect ports of compatible classes (a Pd to a Pr, an Rt to an Li or "
                    "the chassis); one side must take effort and the other flow"))
                continue
            a.set(k, effort_to, (where, ()))
            starts += [u, v]
    c = a.propagate(starts)
    if c:
        a.conflicts.append(c)
    if a.conflicts:
        raise CausalityConflict([str(c) for c in a.conflicts], subject=f"model {name!r}",
                                conflicts=a.conflicts)

    forced_by_sources = {k for k in a.effort_to}

    # 2. storage, preferred integral causality
    for n in nodes:
        el = a.g.nodes[n]["element"]
        if el.role not in (Role.C_STORAGE, Role.I_STORAGE):
            continue
        (k,) = a.inc[n]
        if k in a.effort_to:
            continue
        integral_effort_in = el.role is Role.I_STORAGE
        c = a.trial(k, n if integral_effort_in else a.other(k, n), (n, ()))
        if c is not None:
            c2 = a.trial(k, a.other(k, n) if integral_effort_in else n, (n, ()))
            if c2 is not None:
                a.conflicts.append(c2)

    # 3. resistors
    for n in nodes:
        el = a.g.nodes[n]["element"]
        if el.role is not Role.RESISTOR:
            continue
        (k,) = a.inc[n]
        if k in a.effort_to:
            continue
        pref = el.preferred_effort_in()
        order = [True, False] if pref in (True, None) else [False, True]
        for eff_in in order:
            if a.trial(k, n if eff_in else a.other(k, n), (n, ())) is None:
                break
        else:
            a.conflicts.append(Conflict(n, (k,), "neither causality is possible",
                                        "check the sources around it"))

    # 4. remaining bonds
    for u, v, k in list(g.edges(keys=True)):
        if k in a.effort_to:
            continue
        if a.trial(k, v, (u, ())) is not None and a.trial(k, u, (u, ())) is not None:
            a.conflicts.append(Conflict(u, (k,), "no causality fits this bond",
                                        f"check the junction structure between {u} and {v}"))

    # final check of every junction and two-port
    for n in nodes:
        c = a._rule(n)
        if c is not None:
            a.conflicts.append(c)
    if a.conflicts:
        raise CausalityConflict([str(c) for c in a.conflicts], subject=f"model {name!r}",
                                conflicts=a.conflicts)

    for u, v, k in g.edges(keys=True):
        g.edges[u, v, k]["effort_to"] = a.effort_to[k]
    g.graph["causality"] = True

    rep = CausalReport(model=name, effort_to=dict(a.effort_to))
    for n in nodes:
        el = a.g.nodes[n]["element"]
        if el.role in (Role.C_STORAGE, Role.I_STORAGE):
            (k,) = a.inc[n]
            eff_in = a.effort_to[k] == n
            integral = eff_in == (el.role is Role.I_STORAGE)
            if integral:
                rep.states += [f"{n}.{key}" for key in el.state_keys(eff_in)]
            else:
                path = _path(a, k, forced_by_sources)
                rep.derivative.append(DerivativeStorage(n, el.kind, tuple(path)))
        elif el.role in (Role.ZERO, Role.ONE):
            rep.displacements += [f"{n}.{key}" for key in el.state_keys(True)]
    rep.loops = _loops(g, a.effort_to)
    return rep


def _path(a: _Assigner, k: str, fixed_first: set[str]) -> list[str]:
    """Chain of elements that forced bond k, back to a source, port or choice."""
    out: list[str] = []
    seen = set()
    while k in a.cause and k not in seen:
        seen.add(k)
        n, via = a.cause[k]
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

    Examples
    --------
    >>> import networkx as nx
    >>> causal_dependencies(nx.MultiDiGraph(), {}).number_of_nodes()
    0
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
