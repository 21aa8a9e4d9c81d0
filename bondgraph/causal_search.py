"""The constraint engine behind causality assignment: propagation, complete search, cores.

A causal assignment gives every bond one value, the node that receives its effort
(the end with the causal stroke). Only junctions and two-ports constrain it:

* a 0-junction receives the effort on exactly one of its bonds (its *strong* bond);
* a 1-junction gives the effort on exactly one of its bonds (it receives the flow there);
* a transformer receives the effort on exactly one of its two ports;
* a gyrator receives the effort on both ports or on neither.

Sources and fixed ports give some bonds their value first; storage elements and
resistors accept either value. :class:`Engine` keeps a partial assignment with an
undo trail and offers:

* :meth:`Engine.propagate` — a rule left with one way out takes it; every clash is
  collected (or the first one stops the search);
* :meth:`Engine.components` — the independent parts of what is still free (bonds
  linked through nodes that constrain them);
* :meth:`Engine.search` — complete depth-first search with propagation and
  chronological backtracking over a given variable and value order, bounded by a
  number of backtracks (:class:`SearchLimit`, never a hang);
* :meth:`Engine.core` — a deletion filter that shrinks an infeasible part to a
  minimal set of nodes whose rules alone admit no assignment.

Deciding whether an assignment exists is a one-in-k satisfiability problem (NP-complete
in general); on bond graphs propagation decides nearly every bond, and the few choices
left sit in small independent parts, so the search stays short.

Examples
--------
>>> from bondgraph import BondGraph, Sf, One, R, assemble
>>> bg = BondGraph("c")
>>> _ = bg.add(Sf("v", 1.0), One("j"), R("r", 2.0))
>>> _ = bg.connect("v", "j"); _ = bg.connect("j", "r")
>>> eng = Engine(assemble(bg))
>>> eng.assign("c/b1", "c/v", ("c/v", ()))
>>> eng.propagate(["c/j"]) is None, eng.effort_to["c/b2"]
(True, 'c/j')
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable

import networkx as nx

from .elements import Role

__all__ = ["Clash", "Engine", "SearchLimit"]

_JUNCTIONS = (Role.ZERO, Role.ONE)
_TWO_PORTS = (Role.TRANSFORMER, Role.GYRATOR)


@dataclass(frozen=True)
class Clash:
    """A node whose rule cannot hold: ``kind`` is ``"many"`` (several bonds impose its
    variable), ``"none"`` (nothing imposes it) or ``"two-port"``.

    Attributes
    ----------
    node : str
    kind : {"many", "none", "two-port"}
    bonds : tuple of str
        The bonds that break the rule.

    Examples
    --------
    Two effort sources on a 0-junction both give it its effort:

    >>> from bondgraph import BondGraph, Se, Zero, R, assemble
    >>> bg = BondGraph("c")
    >>> _ = bg.add(Se("a", 1.0), Se("b", 1.0), Zero("p"), R("r", 1.0))
    >>> for x, y in [("a", "p"), ("b", "p"), ("p", "r")]:
    ...     _ = bg.connect(x, y)
    >>> eng = Engine(assemble(bg))
    >>> eng.assign("c/b1", "c/p", ("c/a", ())); eng.assign("c/b2", "c/p", ("c/b", ()))
    >>> eng.rule("c/p")
    Clash(node='c/p', kind='many', bonds=('c/b1', 'c/b2'))
    """

    node: str
    kind: str
    bonds: tuple[str, ...]


class SearchLimit(Exception):
    """The search exceeded its number of backtracks (raised by :meth:`Engine.search`).

    :func:`~bondgraph.assign_causality` turns it into the user-facing
    :class:`~bondgraph.errors.CausalitySearchLimit`.

    Parameters
    ----------
    steps : int
        Backtracks made.

    Examples
    --------
    >>> SearchLimit(1001).steps
    1001
    """

    def __init__(self, steps: int):
        self.steps = steps
        super().__init__(steps)


class Engine:
    """A partial causal assignment of a global graph with propagation and search.

    Attributes
    ----------
    effort_to : dict
        Bond → node receiving its effort (assigned bonds only).
    cause : dict
        Bond → ``(node, bonds)``: the node whose rule (or choice) set it and the
        bonds that rule read (empty for a source, a fixed port or a choice).

    Parameters
    ----------
    g : networkx.MultiDiGraph
        A global graph (from :func:`~bondgraph.assemble`); only node roles and bond
        ends are read.

    Examples
    --------
    A flow source drives a 1-junction: once its bond is set, propagation decides
    the others (the junction receives the effort of both resistors):

    >>> from bondgraph import BondGraph, Sf, One, R, assemble
    >>> bg = BondGraph("c")
    >>> _ = bg.add(Sf("v", 1.0), One("j"), R("r", 2.0), R("s", 1.0))
    >>> for x, y in [("v", "j"), ("j", "r"), ("j", "s")]:
    ...     _ = bg.connect(x, y)
    >>> eng = Engine(assemble(bg))
    >>> eng.components()
    [(['c/j'], ['c/b1', 'c/b2', 'c/b3'])]
    >>> eng.assign("c/b1", "c/v", ("c/v", ()))
    >>> eng.search(["c/b2", "c/b3"], {}, limit=10)
    {'c/b2': 'c/j', 'c/b3': 'c/j'}
    >>> "c/b2" in eng.effort_to   # search leaves the engine as it was
    False
    """

    def __init__(self, g: nx.MultiDiGraph):
        self.ends: dict[str, tuple[str, str]] = {}
        self.inc: dict[str, list[str]] = defaultdict(list)
        self.role: dict[str, Role] = {n: el.role for n, el in g.nodes(data="element")}
        for u, v, k in sorted(g.edges(keys=True), key=lambda e: e[2]):  # by bond name
            self.ends[k] = (u, v)
            self.inc[u].append(k)
            self.inc[v].append(k)
        self.effort_to: dict[str, str] = {}
        self.cause: dict[str, tuple[str, tuple[str, ...]]] = {}
        self.trail: list[str] = []
        self.active: set[str] | None = None
        self.clashed: set[str] = set()

    # ------------------------------------------------------------------ basics
    def other(self, k: str, n: str) -> str:
        """The end of bond ``k`` that is not node ``n``.

        Parameters
        ----------
        k : str
        n : str

        Returns
        -------
        str
        """
        u, v = self.ends[k]
        return v if u == n else u

    def constrains(self, n: str) -> bool:
        """Does node ``n`` have a rule (junction or two-port)?

        Parameters
        ----------
        n : str

        Returns
        -------
        bool
        """
        return self.role[n] in _JUNCTIONS or self.role[n] in _TWO_PORTS

    def assign(self, k: str, effort_to: str, cause: tuple[str, tuple[str, ...]]) -> None:
        """Give the free bond ``k`` its value (recorded on the trail).

        Parameters
        ----------
        k : str
        effort_to : str
        cause : tuple
        """
        self.effort_to[k] = effort_to
        self.cause[k] = cause
        self.trail.append(k)

    def undo(self, mark: int) -> None:
        """Forget every assignment made since ``len(trail)`` was ``mark``.

        Parameters
        ----------
        mark : int
        """
        trail, eff, cause = self.trail, self.effort_to, self.cause
        while len(trail) > mark:
            k = trail.pop()
            del eff[k]
            del cause[k]

    # ------------------------------------------------------------------ rules
    def rule(self, n: str) -> Clash | list[tuple[str, str, tuple[str, ...]]]:
        """What node ``n``'s rule implies now: assignments ``(bond, effort_to, read)``
        or a :class:`Clash`.

        Parameters
        ----------
        n : str
            A node.

        Returns
        -------
        list of tuple or Clash
            Empty when the rule implies nothing yet (or ``n`` has no rule).
        """
        role = self.role[n]
        ks = self.inc[n]
        eff = self.effort_to
        if role in _JUNCTIONS:
            zero = role is Role.ZERO
            strong, free = [], []
            for k in ks:
                cur = eff.get(k)
                if cur is None:
                    free.append(k)
                elif (cur == n) == zero:
                    strong.append(k)
            if len(strong) > 1:
                return Clash(n, "many", tuple(strong))
            if strong:
                s = strong[0]
                return [(k, self.other(k, n) if zero else n, (s,)) for k in free]
            if len(free) == 1:
                k = free[0]
                return [(k, n if zero else self.other(k, n), tuple(x for x in ks if x != k))]
            if not free:
                return Clash(n, "none", tuple(ks))
            return []
        if role in _TWO_PORTS and len(ks) == 2:
            k1, k2 = ks
            c1, c2 = eff.get(k1), eff.get(k2)
            same = role is Role.GYRATOR
            if c1 is not None and c2 is None:
                want = (c1 == n) if same else (c1 != n)
                return [(k2, n if want else self.other(k2, n), (k1,))]
            if c2 is not None and c1 is None:
                want = (c2 == n) if same else (c2 != n)
                return [(k1, n if want else self.other(k1, n), (k2,))]
            if c1 is not None and ((c1 == n) == (c2 == n)) != same:
                return Clash(n, "two-port", (k1, k2))
        return []

    def propagate(self, start: Iterable[str], clashes: list[Clash] | None = None) -> Clash | None:
        """Apply the rules of the nodes in ``start`` and of every node whose bonds change.

        With ``clashes`` given, every clash is appended there, the clashing node is
        left as it is and propagation goes on; otherwise the first clash is returned.

        Parameters
        ----------
        start : iterable of str
            Nodes whose rules are applied first.
        clashes : list, optional
            Collects every :class:`Clash`.

        Returns
        -------
        Clash or None
            The first clash (``clashes`` not given), else None.
        """
        queue = list(dict.fromkeys(start))
        waiting = set(queue)
        active, clashed = self.active, self.clashed
        while queue:
            n = queue.pop()
            waiting.discard(n)
            if n in clashed or (active is not None and n not in active):
                continue
            res = self.rule(n)
            if isinstance(res, Clash):
                if clashes is None:
                    return res
                clashes.append(res)
                clashed.add(n)
                continue
            if not res:
                continue
            for k, to, via in res:
                self.assign(k, to, (n, via))
            for k in self.inc[n]:
                m = self.other(k, n)
                if m not in waiting:
                    queue.append(m)
                    waiting.add(m)
        return None

    # ------------------------------------------------------------------ parts
    def components(self) -> list[tuple[list[str], list[str]]]:
        """Independent parts of the free bonds: ``(nodes, bonds)`` each, sorted.

        Two free bonds are in one part when a chain of free bonds through nodes with
        rules links them; an assigned bond separates (its value is fixed on both sides).

        Returns
        -------
        list of (list of str, list of str)
        """
        parent: dict[str, str] = {}

        def find(x: str) -> str:
            parent.setdefault(x, x)
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        groups: dict[str, list[str]] = defaultdict(list)
        free = [k for k in self.ends if k not in self.effort_to]
        for k in free:
            u, v = self.ends[k]
            cu, cv = self.constrains(u), self.constrains(v)
            if cu and cv:
                parent[find(u)] = find(v)
            elif cu:
                find(u)
            elif cv:
                find(v)
        for k in free:
            u, v = self.ends[k]
            root = find(u) if self.constrains(u) else find(v) if self.constrains(v) else "#" + k
            groups[root].append(k)
        parts = []
        for bonds in groups.values():
            nodes = sorted({n for k in bonds for n in self.ends[k] if self.constrains(n)})
            parts.append((nodes, sorted(bonds)))
        parts.sort(key=lambda p: (p[0][:1], p[1][:1]))
        return parts

    def free_part(self, start: Iterable[str]) -> tuple[list[str], list[str]]:
        """The free bonds reachable from the nodes ``start`` through nodes with rules, and
        those nodes: the part a new choice there can affect.

        Parameters
        ----------
        start : iterable of str

        Returns
        -------
        (list of str, list of str)
            Nodes and bonds, sorted.
        """
        nodes: set[str] = set()
        bonds: set[str] = set()
        stack = [n for n in start if self.constrains(n)]
        while stack:
            n = stack.pop()
            if n in nodes:
                continue
            nodes.add(n)
            for k in self.inc[n]:
                if k not in self.effort_to:
                    bonds.add(k)
                    m = self.other(k, n)
                    if self.constrains(m) and m not in nodes:
                        stack.append(m)
        return sorted(nodes), sorted(bonds)

    # ------------------------------------------------------------------ search
    def search(self, order: list[str], first: dict[str, str], limit: int) -> dict[str, str] | None:
        """Complete depth-first search over the free bonds of ``order``.

        Bonds are decided in ``order`` (skipping those propagation already set), each
        value ``first[k]`` before the other; every decision is propagated. Returns the
        values of ``order``'s bonds in the first full assignment found (the engine is
        left as it was), or None when none exists.

        Parameters
        ----------
        order : list of str
            Bonds, in the order they are decided.
        first : dict
            Bond → the value tried first (default: its head).
        limit : int
            Backtracks allowed.

        Returns
        -------
        dict or None

        Raises
        ------
        SearchLimit
            After ``limit`` backtracks without an answer.
        """
        base = len(self.trail)
        stack: list[list] = []  # [position, bond, untried value or None, trail mark]
        pos, steps = 0, 0
        try:
            while True:
                while pos < len(order) and order[pos] in self.effort_to:
                    pos += 1
                if pos == len(order):
                    return {k: self.effort_to[k] for k in order}
                k = order[pos]
                u, v = self.ends[k]
                want = first.get(k, v)
                stack.append([pos, k, u if want == v else v, len(self.trail)])
                ok = self._try(k, want)
                while not ok:
                    steps += 1
                    if steps > limit:
                        raise SearchLimit(steps)
                    while stack and stack[-1][2] is None:
                        stack.pop()
                    if not stack:
                        return None
                    top = stack[-1]
                    pos, k, alt, mark = top
                    self.undo(mark)
                    top[2] = None
                    ok = self._try(k, alt)
        finally:
            self.undo(base)

    def _try(self, k: str, effort_to: str) -> bool:
        self.assign(k, effort_to, (self._chooser(k), ()))
        return self.propagate(self.ends[k]) is None

    def _chooser(self, k: str) -> str:
        u, v = self.ends[k]
        return v if not self.constrains(v) else u

    def feasible(self, nodes: set[str], order: list[str], first: dict[str, str],
                 limit: int) -> bool:
        """Does an assignment of ``order``'s bonds satisfy the rules of ``nodes`` only?

        Parameters as for :meth:`search`, with ``nodes`` the rules that count.

        Returns
        -------
        bool

        Parameters
        ----------
        nodes : set
        order : list
            Number of derivative orders.
        first : dict
        limit : int

        Raises
        ------
        SearchLimit
            After ``limit`` backtracks.
        """
        self.active, mark = nodes, len(self.trail)
        try:
            return (self.propagate(sorted(nodes)) is None
                    and self.search(order, first, limit) is not None)
        finally:
            self.undo(mark)
            self.active = None

    def core(self, nodes: list[str], order: list[str], first: dict[str, str],
             limit: int) -> list[str]:
        """A minimal subset of ``nodes`` whose rules alone admit no assignment of the
        part's free bonds (with the values already fixed around it).

        Deletion filter: drop a node's rule, keep it dropped if the rest is still
        infeasible. A node whose test hits the search bound is kept.

        Parameters
        ----------
        nodes : list of str
            An infeasible part.
        order, first, limit
            As for :meth:`search`.

        Returns
        -------
        list of str
            The smallest set found, sorted.
        """
        keep = set(nodes)
        for n in nodes:
            trial = keep - {n}
            try:
                if not self.feasible(trial, order, first, limit):
                    keep = trial
            except SearchLimit:
                continue
        return sorted(keep)
