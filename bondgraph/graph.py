"""Building bond graphs from elements and nested components; the global graph.

A :class:`BondGraph` is a model or a reusable component: named children
(elements or other components), bonds between their ports, and *exposed ports*
through which a parent connects to it. An exposed port may fix its causality
(the component receives the effort, or the flow), which is how the templates
carry the causal port classes ``Rt``, ``Pd``, ``Pr``, ``Li`` and ``I``.

:func:`assemble` flattens a model into the **global graph**, a
``networkx.MultiDiGraph``: one node per element, named by its hierarchical path
(``excavator/boom/w``), with the element in the ``element`` attribute; one keyed
edge per bond, from tail to head (the power direction), with attributes
``bond`` (a :class:`Bond`), ``fixed`` (causality imposed by exposed ports) and,
once :func:`~bondgraph.causality.assign_causality` ran, ``effort_to`` (the node
at the causal-stroke end, which receives the effort).

Reference syntax inside a graph: ``"m"`` (a child element, its only port or a
new junction port), ``"tf/1"`` (port ``1`` of child ``tf``), ``"boom/Pd.x"``
(exposed port ``Pd.x`` of child component ``boom``), ``"a/b/c"`` nested.

Examples
--------
>>> from bondgraph import BondGraph, Se, One, I, R, assemble
>>> bg = BondGraph("msd")
>>> _ = bg.add(Se("F", 1.0), One("v"), I("m", 1.0), R("b", 0.5))
>>> for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
...     _ = bg.connect(a, b)
>>> g = assemble(bg)
>>> sorted(g.nodes)
['msd/F', 'msd/b', 'msd/m', 'msd/v']
>>> [(u, v) for u, v, k in g.edges(keys=True)][0]
('msd/F', 'msd/v')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Iterable, Union

import networkx as nx
import sympy as sp

from .elements import Element, Role, _check_name
from .errors import ModelStructureError, UnknownNameError

__all__ = ["Causality", "Port", "Bond", "ExposedPort", "BondGraph", "assemble", "validate",
           "iter_bonds"]


class Causality(Enum):
    """Causality at a port, seen from the element or component that owns it.

    Examples
    --------
    >>> Causality("effort-in") is Causality.EFFORT_IN
    True
    """

    EFFORT_IN = "effort-in"
    FLOW_IN = "flow-in"

    @classmethod
    def parse(cls, value: "Causality | str | None") -> "Causality | None":
        """Read a causality given as a member, a string (any case, ``_`` or ``-``) or None.

        Parameters
        ----------
        value : Causality, str or None

        Returns
        -------
        Causality or None

        Raises
        ------
        ModelStructureError
            Not ``"effort-in"`` or ``"flow-in"``.

        Examples
        --------
        >>> Causality.parse("FLOW_IN"), Causality.parse(None)
        (<Causality.FLOW_IN: 'flow-in'>, None)
        >>> Causality.parse("effort")
        Traceback (most recent call last):
        ...
        bondgraph.errors.ModelStructureError: causality 'effort': expected 'effort-in' or 'flow-in'
        """
        if value is None or isinstance(value, Causality):
            return value
        key = str(value).lower().replace("_", "-")
        for c in cls:
            if c.value == key:
                return c
        raise ModelStructureError(f"causality {value!r}: expected 'effort-in' or 'flow-in'")


@dataclass(frozen=True)
class Port:
    """An element port in the global graph: node path and port name.

    Attributes
    ----------
    element : str
        Path of the element node (``"msd/m"``).
    name : str
        Port name (``"p"``, ``"1"``, ``"2"``, or the bond name for junctions).

    Examples
    --------
    >>> str(Port("msd/m", "p")), str(Port("msd/tf", "1"))
    ('msd/m', 'msd/tf.1')
    """

    element: str
    name: str

    def __str__(self) -> str:
        return f"{self.element}.{self.name}" if self.name != "p" else self.element


@dataclass(frozen=True)
class Bond:
    """A power bond from ``tail`` to ``head`` (the half-arrow points at ``head``).

    Attributes
    ----------
    name : str
        Global bond name (``"msd/b1"``).
    tail, head : Port
        Its two ends; power ``e·f`` is positive from tail to head.

    Examples
    --------
    >>> from bondgraph import BondGraph, Se, One, I, assemble
    >>> bg = BondGraph("push")
    >>> _ = bg.add(Se("F", 1.0), One("v"), I("m", 1.0))
    >>> _ = bg.connect("F", "v"); _ = bg.connect("v", "m")
    >>> [str(b) for b in iter_bonds(assemble(bg))]
    ['bond push/b1 (push/F → push/v.push/b1)', 'bond push/b2 (push/v.push/b2 → push/m)']
    """

    name: str
    tail: Port
    head: Port

    def __str__(self) -> str:
        return f"bond {self.name} ({self.tail} → {self.head})"


@dataclass(frozen=True)
class ExposedPort:
    """A port a component offers its parent (made by :meth:`BondGraph.expose`).

    Attributes
    ----------
    name : str
        Port name seen from the parent.
    target : str
        Reference inside the component (``"v"``, ``"tf/2"``, ``"sub/port"``).
    causality : Causality or None
        Fixed causality, seen from the component.
    label : str or None
        Readable description used in messages (e.g. ``"Pd: x effort-in"``).

    Examples
    --------
    >>> from bondgraph import BondGraph, One
    >>> body = BondGraph("body")
    >>> _ = body.add(One("v"))
    >>> body.expose("x", "v", causality="flow-in", label="Rt: x")
    >>> body.ports["x"]
    ExposedPort(name='x', target='v', causality=<Causality.FLOW_IN: 'flow-in'>, label='Rt: x')
    """

    name: str
    target: str
    causality: Causality | None = None
    label: str | None = None  # e.g. "Pd: x effort-in"


@dataclass
class _BondSpec:
    tail: str
    head: str
    name: str


Child = Union[Element, "BondGraph"]


class BondGraph:
    """A model or reusable component made of elements and sub-components.

    Parameters
    ----------
    name : str
        Name of the model/component (first segment of every path inside it).

    Attributes
    ----------
    children : dict
        Child name → element or component.
    ports : dict
        Exposed port name → :class:`ExposedPort`.

    Raises
    ------
    ModelStructureError
        A malformed name.

    Examples
    --------
    >>> from bondgraph import BondGraph, One, I
    >>> body = BondGraph("body")
    >>> _ = body.add(One("v"), I("m", 3.0))
    >>> _ = body.connect("v", "m")
    >>> body.expose("x", "v", causality="effort-in")
    >>> body.ports["x"].causality
    <Causality.EFFORT_IN: 'effort-in'>
    """

    def __init__(self, name: str):
        self.name = _check_name(name, "BondGraph")
        self.children: dict[str, Child] = {}
        self.bonds: list[_BondSpec] = []
        self.ports: dict[str, ExposedPort] = {}
        self.placeholders: dict[sp.Symbol, str] = {}
        self.bindings: dict[sp.Symbol, sp.Symbol] = {}
        self._counter = 0

    # ------------------------------------------------------------------ building
    def add(self, *items: Child):
        """Add elements or components.

        Parameters
        ----------
        *items : Element or BondGraph
            Children, each with a name unique in this graph.

        Returns
        -------
        Element, BondGraph or tuple
            The item, or a tuple of them when several are given.

        Raises
        ------
        ModelStructureError
            Not an element or graph, or a name already used.

        Examples
        --------
        >>> from bondgraph import I, One
        >>> bg = BondGraph("b")
        >>> m = bg.add(I("m", 1.0))
        >>> v, w = bg.add(One("v"), One("w"))
        >>> sorted(bg.children), m.name
        (['m', 'v', 'w'], 'm')
        >>> bg.add(I("m", 2.0))
        Traceback (most recent call last):
        ...
        bondgraph.errors.ModelStructureError: b: a child named 'm' exists already (I('m')); names must be unique in a graph
        """
        for item in items:
            if not isinstance(item, (Element, BondGraph)):
                raise ModelStructureError(
                    f"{self.name}: add() got {item!r}, expected an Element or a BondGraph")
            if item.name in self.children:
                raise ModelStructureError(
                    f"{self.name}: a child named {item.name!r} exists already "
                    f"({self.children[item.name]!r}); names must be unique in a graph")
            self.children[item.name] = item
        return items[0] if len(items) == 1 else items

    def connect(self, tail: str | Child, head: str | Child, name: str | None = None) -> str:
        """Bond ``tail`` → ``head`` (power positive from tail to head).

        Parameters
        ----------
        tail, head : str or Element or BondGraph
            A child (its only port, or a new port of a junction), ``"child/port"``
            (``"tf/1"``, ``"boom/Pd.x"``), a nested path, or the child object itself.
        name : str, optional
            Bond name, unique in this graph.

        Returns
        -------
        str
            The bond name (``b1``, ``b2``... unless given).

        Raises
        ------
        ModelStructureError
            An unknown child, a component named without a port, a bond name used twice.

        Examples
        --------
        >>> from bondgraph import Se, One
        >>> bg = BondGraph("c")
        >>> F, v = bg.add(Se("F", 1.0), One("v"))
        >>> bg.connect(F, v), bg.connect("F", "v", name="again")
        ('b1', 'again')
        """
        tail, head = self._ref(tail), self._ref(head)
        for ref in (tail, head):
            self._resolve_local(ref)  # fail early on unknown names
        if name is None:
            self._counter += 1
            name = f"b{self._counter}"
            while any(b.name == name for b in self.bonds):
                self._counter += 1
                name = f"b{self._counter}"
        else:
            _check_name(name, "bond")
            if any(b.name == name for b in self.bonds):
                raise ModelStructureError(f"{self.name}: bond name {name!r} used twice")
        self.bonds.append(_BondSpec(tail, head, name))
        return name

    def expose(self, name: str, target: str | Child, causality: Causality | str | None = None,
               label: str | None = None) -> None:
        """Offer the port ``target`` to the parent under ``name``.

        Parameters
        ----------
        name : str
            Port name seen from the parent (no ``/`` or ``:``).
        target : str or Element or BondGraph
            The port inside this graph (same references as :meth:`connect`).
        causality : {"effort-in", "flow-in"} or Causality, optional
            Fixes the causality: ``"effort-in"`` means this component receives the
            effort there, ``"flow-in"`` the flow.
        label : str, optional
            How messages name the port (e.g. its port class).

        Raises
        ------
        ModelStructureError
            A bad or repeated name, an unknown target, an unknown causality.

        Examples
        --------
        A mass offered as a component, then used by a model:

        >>> from bondgraph import Se, One, I, build
        >>> body = BondGraph("body")
        >>> _ = body.add(One("v"), I("m", 3.0))
        >>> _ = body.connect("v", "m")
        >>> body.expose("x", "v", causality="effort-in")
        >>> model = BondGraph("top")
        >>> _ = model.add(Se("F", 1.0), body)
        >>> _ = model.connect("F", "body/x")
        >>> build(model).state_names
        ['top/body/m.f']
        """
        if not isinstance(name, str) or not name or "/" in name or ":" in name:
            raise ModelStructureError(f"{self.name}: port name {name!r}: expected a "
                                      "non-empty name without '/' or ':'")
        if name in self.ports:
            raise ModelStructureError(f"{self.name}: port {name!r} exposed twice")
        target = self._ref(target)
        self._resolve_local(target)
        self.ports[name] = ExposedPort(name, target, Causality.parse(causality), label)

    def placeholder(self, symbol: sp.Symbol, description: str) -> sp.Symbol:
        """Declare a symbol that a parent must :meth:`bind` (e.g. a port's frame angle).

        Parameters
        ----------
        symbol : sympy.Symbol
            Used in laws inside this graph.
        description : str
            What it stands for, quoted if it is left unbound.

        Returns
        -------
        sympy.Symbol
            ``symbol``.

        Examples
        --------
        See :meth:`bind`.
        """
        self.placeholders[symbol] = description
        return symbol

    def bind(self, placeholder: sp.Symbol, handle: sp.Symbol) -> None:
        """Make ``placeholder`` (declared in this graph or below) stand for ``handle``,
        a displacement handle of any element in the model.

        Parameters
        ----------
        placeholder : sympy.Symbol
            Declared by :meth:`placeholder`.
        handle : sympy.Symbol
            A displacement handle (:attr:`~bondgraph.One.displacement`).

        Raises
        ------
        ModelStructureError
            The placeholder is already bound to another handle.

        Examples
        --------
        A spring component whose force depends on a position it does not own:

        >>> import sympy as sp
        >>> from bondgraph import Se, MSe, One, I, R, build, simulate
        >>> spring = BondGraph("spring")
        >>> x = spring.placeholder(sp.Symbol("x"), "the spring's deflection")
        >>> _ = spring.add(MSe("F", -4.0 * x))
        >>> spring.expose("p", "F")
        >>> top = BondGraph("top")
        >>> v = One("v", displacement="x")
        >>> _ = top.add(Se("push", 2.0), v, I("m", 1.0), R("b", 3.0), spring)
        >>> for a, b in [("push", "v"), ("spring/p", "v"), ("v", "m"), ("v", "b")]:
        ...     _ = top.connect(a, b)
        >>> top.bind(x, v.displacement)
        >>> res = simulate(build(top), (0.0, 30.0), rtol=1e-9, progress=False)
        >>> round(float(res["top/v.x"][-1]), 6)     # 2 N / 4 N/m
        0.5
        """
        if placeholder in self.bindings and self.bindings[placeholder] != handle:
            raise ModelStructureError(f"{self.name}: placeholder {placeholder} bound twice "
                                      f"({self.bindings[placeholder]} and {handle})")
        self.bindings[placeholder] = handle

    def __getitem__(self, path: str) -> Child:
        """The child at ``path`` (``"boom/w"`` for nested components).

        Raises
        ------
        UnknownNameError
            No such child.
        """
        node: Child = self
        for part in path.split("/"):
            if not isinstance(node, BondGraph) or part not in node.children:
                raise UnknownNameError(f"{self.name}: no child {path!r} (children: "
                                       f"{', '.join(self.children) or 'none'})")
            node = node.children[part]
        return node

    def _ref(self, ref: str | Child) -> str:
        if isinstance(ref, (Element, BondGraph)):
            if self.children.get(ref.name) is not ref:
                raise ModelStructureError(
                    f"{self.name}: {ref!r} is not a child of this graph; add() it first")
            return ref.name
        if not isinstance(ref, str) or not ref:
            raise ModelStructureError(f"{self.name}: port reference {ref!r}: expected "
                                      "'child', 'child/port' or an element")
        return ref

    def _resolve_local(self, ref: str) -> tuple[Child, str | None]:
        """(child, remainder) where remainder is a port name or nested path."""
        head, _, rest = ref.partition("/")
        if head not in self.children:
            known = ", ".join(sorted(self.children)) or "none"
            raise ModelStructureError(f"{self.name}: reference {ref!r}: no child {head!r} "
                                      f"(children: {known})")
        child = self.children[head]
        if isinstance(child, BondGraph) and not rest:
            raise ModelStructureError(
                f"{self.name}: reference {ref!r} names component {head!r}; expected one of "
                f"its ports: {', '.join(sorted(child.ports)) or 'none exposed'}")
        return child, (rest or None)

    def _repr_svg_(self) -> str:
        key = (len(self.children), len(self.bonds), tuple(self.children))
        cached = getattr(self, "_svg_cache", None)
        if cached is None or cached[0] != key:
            from .display import bond_graph_svg

            cached = self._svg_cache = (key, bond_graph_svg(self))
        return cached[1]

    def __repr__(self) -> str:
        return (f"BondGraph({self.name!r}, {len(self.children)} children, "
                f"{len(self.bonds)} bonds, ports={sorted(self.ports)})")


# ---------------------------------------------------------------------- assembly
@dataclass
class _Terminal:
    node: str
    port: str | None  # None: a new junction port
    fixed: list[tuple[Causality, str]] = field(default_factory=list)  # (causality, where)
    path: str = ""  # readable name of the exposed port used
    via: list[str] = field(default_factory=list)  # every exposed port passed (re-exports)


def _resolve(bg: BondGraph, prefix: str, ref: str, problems: list[str]) -> _Terminal | None:
    """Follow ``ref`` inside ``bg`` (at path ``prefix``) down to an element port."""
    try:
        child, rest = bg._resolve_local(ref)
    except ModelStructureError as exc:
        problems.append(str(exc))
        return None
    cpath = f"{prefix}/{child.name}"
    if isinstance(child, Element):
        names = child.port_names()
        if names is None:
            if rest is not None:
                problems.append(f"{cpath}: junction ports are created by connecting; "
                                f"found port {rest!r} in reference {ref!r}")
                return None
            return _Terminal(cpath, None, path=cpath)
        if rest is None:
            if len(names) != 1:
                problems.append(f"{cpath}: reference {ref!r} must name a port of "
                                f"{child.kind} {child.name!r}: one of {', '.join(names)}")
                return None
            rest = names[0]
        if rest not in names:
            problems.append(f"{cpath}: no port {rest!r}; {child.kind} ports are "
                            f"{', '.join(names)}")
            return None
        return _Terminal(cpath, rest, path=f"{cpath}.{rest}" if rest != "p" else cpath)
    # component: rest is a port name or a nested path
    if rest in child.ports:
        ep = child.ports[rest]
        term = _resolve(child, cpath, ep.target, problems)
        if term is None:
            return None
        if ep.causality is not None:
            where = f"{cpath}/{ep.name}" + (f" ({ep.label})" if ep.label else "")
            term.fixed.insert(0, (ep.causality, where))
        term.path = f"{cpath}/{ep.name}"
        term.via.append(term.path)
        return term
    return _resolve(child, cpath, rest, problems)


def assemble(bg: BondGraph) -> nx.MultiDiGraph:
    """Flatten a model into the global bond graph and validate it.

    Parameters
    ----------
    bg : BondGraph
        The model (top-level component).

    Returns
    -------
    networkx.MultiDiGraph
        Elements on nodes (``element``, ``kind``), bonds as keyed edges
        (``bond``, ``fixed``); ``graph.graph["handles"]`` maps displacement
        handles to their global state symbols.

    Raises
    ------
    ModelStructureError
        Listing every structural problem found (see :func:`validate`).

    Examples
    --------
    >>> from bondgraph import BondGraph, Se, I, assemble
    >>> bg = BondGraph("bad")
    >>> _ = bg.add(Se("F", 1.0), I("m", 1.0))
    >>> _ = bg.connect("m", "F")
    >>> assemble(bg)
    Traceback (most recent call last):
    ...
    bondgraph.errors.ModelStructureError: model 'bad': 2 problems
      - Se 'bad/F': its bond bad/b1 points in; expected out of a source
      - I 'bad/m': its bond bad/b1 points out; expected into a storage element
    """
    g = nx.MultiDiGraph(name=bg.name)
    problems: list[str] = []
    used_ports: dict[tuple[str, str], str] = {}
    exposed_used: dict[str, str] = {}
    all_exposed: dict[str, str] = {}

    def walk(comp: BondGraph, prefix: str) -> None:
        for child in comp.children.values():
            path = f"{prefix}/{child.name}"
            if isinstance(child, Element):
                g.add_node(path, element=child, kind=child.kind)
            else:
                for pname in child.ports:
                    all_exposed[f"{path}/{pname}"] = path
                walk(child, path)
        for spec in comp.bonds:
            bname = f"{prefix}/{spec.name}"
            ends = [_resolve(comp, prefix, r, problems) for r in (spec.tail, spec.head)]
            if None in ends:
                continue
            tail, head = ends
            if tail.node == head.node:
                problems.append(f"bond {bname}: connects {tail.node} to itself")
                continue
            for term in (tail, head):
                if term.port is None:
                    term.port = bname
                key = (term.node, term.port)
                if key in used_ports:
                    problems.append(f"port {term.path}: bonded twice (bonds {used_ports[key]} "
                                    f"and {bname}); expected one bond per port")
                used_ports[key] = bname
                for via in dict.fromkeys(term.via + [term.path]):
                    if via not in all_exposed:
                        continue
                    if via in exposed_used:
                        problems.append(f"port {via}: connected twice (bonds "
                                        f"{exposed_used[via]} and {bname})")
                    exposed_used[via] = bname
            fixed = []
            for term in (tail, head):
                for caus, where in term.fixed:
                    effort_to = term.node if caus is Causality.EFFORT_IN else \
                        (head.node if term is tail else tail.node)
                    fixed.append((effort_to, where))
            bond = Bond(bname, Port(tail.node, tail.port), Port(head.node, head.port))
            g.add_edge(tail.node, head.node, key=bname, bond=bond, fixed=tuple(fixed))

    walk(bg, bg.name)
    placeholders: dict[sp.Symbol, str] = {}
    bindings: dict[sp.Symbol, sp.Symbol] = {}

    def collect(comp: BondGraph, prefix: str) -> None:
        for sym, desc in comp.placeholders.items():
            placeholders[sym] = f"{prefix}: {desc}"
        bindings.update(comp.bindings)
        for child in comp.children.values():
            if isinstance(child, BondGraph):
                collect(child, f"{prefix}/{child.name}")

    collect(bg, bg.name)
    for path in sorted(set(all_exposed) - set(exposed_used)):
        problems.append(f"port {path}: dangling (not connected); connect it or terminate it, "
                        "e.g. with a zero source")
    for pname in bg.ports:
        problems.append(f"port {bg.name}/{pname}: the model itself exposes a port; a model "
                        "to simulate must be closed (connect or terminate it)")
    handles: dict[sp.Symbol, sp.Symbol] = {}
    for node, data in g.nodes(data=True):
        for h, key in data["element"].handles().items():
            handles[h] = sp.Symbol(f"{node}.{key}", real=True)
    for ph, target in bindings.items():
        if target not in handles:
            problems.append(f"binding of {ph}: {target} is not a displacement handle of any "
                            "element in the model")
        else:
            handles[ph] = handles[target]
    for ph, desc in placeholders.items():
        if ph not in bindings:
            problems.append(f"{desc} is not set (unbound placeholder {ph})")
    g.graph["handles"] = handles
    problems += _structure_problems(g)
    if problems:
        raise ModelStructureError(problems, subject=f"model {bg.name!r}")
    return g


def _structure_problems(g: nx.MultiDiGraph) -> list[str]:
    problems = []
    for node, data in g.nodes(data=True):
        el: Element = data["element"]
        ins = list(g.in_edges(node, keys=True, data="bond"))
        outs = list(g.out_edges(node, keys=True, data="bond"))
        names = el.port_names()
        label = f"{el.kind} {node!r}"
        if names is None:
            if len(ins) + len(outs) < 1:
                problems.append(f"{label}: has no bonds; expected at least one")
            continue
        bonded = {b.head.name for *_, b in ins} | {b.tail.name for *_, b in outs}
        for pn in names:
            if pn not in bonded:
                problems.append(f"{label}: port {pn!r} is not connected" if len(names) > 1
                                else f"{label}: not connected")
        if el.role in (Role.C_STORAGE, Role.I_STORAGE, Role.RESISTOR):
            for *_, b in outs:
                problems.append(f"{label}: its bond {b.name} points out; expected into a "
                                f"{'resistor' if el.role is Role.RESISTOR else 'storage element'}")
        elif el.role in (Role.EFFORT_SOURCE, Role.FLOW_SOURCE):
            for *_, b in ins:
                problems.append(f"{label}: its bond {b.name} points in; expected out of a source")
        elif el.role in (Role.TRANSFORMER, Role.GYRATOR):
            for *_, b in ins:
                if b.head.name != "1":
                    problems.append(f"{label}: bond {b.name} points into port 2; expected "
                                    "port 1 bonded in and port 2 bonded out")
            for *_, b in outs:
                if b.tail.name != "2":
                    problems.append(f"{label}: bond {b.name} points out of port 1; expected "
                                    "port 1 bonded in and port 2 bonded out")
    return problems


def validate(g: nx.MultiDiGraph) -> None:
    """Check arity and bond directions of a global graph; list every problem.

    :func:`assemble` calls it; call it again on a graph edited by hand.

    Parameters
    ----------
    g : networkx.MultiDiGraph
        A global graph (from :func:`assemble`).

    Raises
    ------
    ModelStructureError
        Listing every unconnected port and every bond pointing the wrong way.

    Examples
    --------
    >>> import networkx as nx
    >>> from bondgraph import BondGraph, Se, One, I
    >>> validate(nx.MultiDiGraph(name="empty"))
    >>> bg = BondGraph("m")
    >>> _ = bg.add(Se("F", 1.0), One("v"), I("m", 1.0))
    >>> _ = bg.connect("F", "v"); _ = bg.connect("v", "m")
    >>> g = assemble(bg)
    >>> g.remove_edge("m/v", "m/m")
    >>> validate(g)
    Traceback (most recent call last):
    ...
    bondgraph.errors.ModelStructureError: model 'm': 1 problem
      - I 'm/m': not connected
    """
    problems = _structure_problems(g)
    if problems:
        raise ModelStructureError(problems, subject=f"model {g.graph.get('name', '?')!r}")


def iter_bonds(g: nx.MultiDiGraph) -> Iterable[Bond]:
    """All bonds of a global graph, in insertion order.

    Parameters
    ----------
    g : networkx.MultiDiGraph
        A global graph (from :func:`assemble`).

    Yields
    ------
    Bond

    Examples
    --------
    >>> from bondgraph import BondGraph, Se, One, I
    >>> bg = BondGraph("push")
    >>> _ = bg.add(Se("F", 1.0), One("v"), I("m", 1.0))
    >>> _ = bg.connect("F", "v"); _ = bg.connect("v", "m")
    >>> [b.name for b in iter_bonds(assemble(bg))]
    ['push/b1', 'push/b2']
    """
    for *_, b in g.edges(keys=True, data="bond"):
        yield b
