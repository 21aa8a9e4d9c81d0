"""The relations: which output feeds which input, in both directions.

A :class:`Relation` joins ``"subsystem.output"`` to ``"subsystem.input"``. A
:class:`PowerBond` names the two relations that together carry power between two
subsystems (an effort one way, a flow the other way); the error catcher watches the
energy residual on each bond. :meth:`Relations.validate` checks, all at once, that every
input is fed exactly once, that every name exists and that units agree: units are
parsed and compared with pint (:mod:`bondgraph.cosim.units`), so ``m*s^-1`` feeds
``m/s``, ``mm`` feeds ``m`` multiplied by 0.001 (:meth:`Relations.factors`; the tables
show the factor), and an unknown unit, different dimensions or temperatures in
different scales are errors naming the relation.

Examples
--------
>>> rel = Relations(["mass.x -> spring.x", "mass.v -> spring.v", "spring.F -> mass.F"],
...                 bonds=[PowerBond(effort="spring.F", flow="mass.v")])
>>> print(rel)
mass -> spring
  mass.x    -> spring.x
  mass.v    -> spring.v
spring -> mass
  spring.F  -> mass.F
power bonds
  spring.F * mass.v
>>> rel.relations[2]
Relation(source='spring.F', target='mass.F')
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from ..errors import CosimulationError, ParameterError
from .subsystem import Subsystem
from .units import conversion

__all__ = ["Relation", "PowerBond", "Relations", "split_endpoint"]


def split_endpoint(endpoint: str) -> tuple[str, str]:
    """Split ``"subsystem.port"`` into its two names.

    Parameters
    ----------
    endpoint : str

    Returns
    -------
    tuple

    Raises
    ------
    ParameterError
        If ``endpoint`` is not of that form.

    Examples
    --------
    >>> split_endpoint("hydraulics.F")
    ('hydraulics', 'F')
    >>> split_endpoint("F")
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: endpoint 'F': expected 'subsystem.port'
    """
    parts = endpoint.split(".") if isinstance(endpoint, str) else []
    if len(parts) != 2 or not all(parts):
        raise ParameterError(f"endpoint {endpoint!r}: expected 'subsystem.port'")
    return parts[0], parts[1]


@dataclass(frozen=True)
class Relation:
    """One output feeding one input.

    Parameters
    ----------
    source : str
        ``"subsystem.output"``.
    target : str
        ``"subsystem.input"``.

    Examples
    --------
    >>> Relation.parse("hyd.F -> mech.F").target_subsystem
    'mech'
    """

    source: str
    target: str

    def __post_init__(self):
        split_endpoint(self.source)
        split_endpoint(self.target)

    @classmethod
    def parse(cls, text: str) -> "Relation":
        """Build from ``"a.out -> b.in"``.

        Parameters
        ----------
        text : str

        Returns
        -------
        'Relation'
        """
        parts = text.split("->") if isinstance(text, str) else []
        if len(parts) != 2:
            raise ParameterError(f"relation {text!r}: expected 'subsystem.output -> "
                                 "subsystem.input'")
        return cls(parts[0].strip(), parts[1].strip())

    @property
    def source_subsystem(self) -> str:
        """Name of the sending subsystem."""
        return split_endpoint(self.source)[0]

    @property
    def source_port(self) -> str:
        """Name of the output."""
        return split_endpoint(self.source)[1]

    @property
    def target_subsystem(self) -> str:
        """Name of the receiving subsystem."""
        return split_endpoint(self.target)[0]

    @property
    def target_port(self) -> str:
        """Name of the input."""
        return split_endpoint(self.target)[1]


@dataclass(frozen=True)
class PowerBond:
    """A power connection: an effort output one way, a flow output the other way.

    Parameters
    ----------
    effort : str
        ``"subsystem.output"`` carrying the effort (force, pressure).
    flow : str
        ``"subsystem.output"`` carrying the flow (velocity, volume flow), produced by
        the subsystem that receives the effort.

    Examples
    --------
    >>> PowerBond("hyd.F", "mech.v").name
    'hyd.F*mech.v'
    """

    effort: str
    flow: str

    def __post_init__(self):
        split_endpoint(self.effort)
        split_endpoint(self.flow)

    @property
    def name(self) -> str:
        """``"effort*flow"``, used in messages and result columns."""
        return f"{self.effort}*{self.flow}"


class Relations:
    """The mapping table between subsystems.

    Parameters
    ----------
    relations : iterable of Relation or str
        Relations, or strings ``"a.out -> b.in"``.
    bonds : iterable of PowerBond or (effort, flow) tuples, optional
        Power bonds to monitor.

    Raises
    ------
    ParameterError
        Every malformed relation or bond, listed at once.

    Examples
    --------
    >>> rel = Relations(["mass.x -> spring.x", "mass.v -> spring.v", "spring.F -> mass.F"],
    ...                 bonds=[("spring.F", "mass.v")])
    >>> len(rel), rel.bonds[0].name
    (3, 'spring.F*mass.v')
    >>> Relations(["mass.x => spring.x", "spring.F -> mass"])
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: relations: 2 problems
      - relation 'mass.x => spring.x': expected 'subsystem.output -> subsystem.input'
      - endpoint 'mass': expected 'subsystem.port'
    """

    def __init__(self, relations: Iterable[Relation | str],
                 bonds: Iterable[PowerBond | Sequence[str]] = ()):
        rels = []
        problems = []
        for what, items in (("relations", relations), ("bonds", bonds)):
            if isinstance(items, (str, bytes)) or not isinstance(items, Iterable):
                problems.append(f"{what}: found {items!r}, expected a list of "
                                + ("'subsystem.output -> subsystem.input' strings"
                                   if what == "relations" else "(effort, flow) pairs"))
        if problems:
            raise ParameterError(problems, subject="relations")
        for r in relations:
            try:
                rels.append(r if isinstance(r, Relation) else Relation.parse(r))
            except ParameterError as exc:
                problems.extend(exc.problems)
        bs = []
        for b in bonds:
            if isinstance(b, PowerBond):
                bs.append(b)
                continue
            if isinstance(b, (str, bytes)) or not isinstance(b, Sequence) or len(b) != 2:
                problems.append(f"bond {b!r}: expected a PowerBond or an (effort, flow) pair "
                                "of 'subsystem.output' names")
                continue
            try:
                bs.append(PowerBond(*b))
            except ParameterError as exc:
                problems += [f"bond {tuple(b)!r}: {p}" for p in exc.problems]
        if problems:
            raise ParameterError(problems, subject="relations")
        self.relations: tuple[Relation, ...] = tuple(rels)
        self.bonds: tuple[PowerBond, ...] = tuple(bs)

    def __len__(self) -> int:
        return len(self.relations)

    def __iter__(self):
        return iter(self.relations)

    def __repr__(self) -> str:
        return f"Relations({len(self.relations)} relations, {len(self.bonds)} bonds)"

    # ------------------------------------------------------------ validation
    def problems(self, subsystems: Sequence[Subsystem]) -> list[str]:
        """Every inconsistency between the relations and ``subsystems``.

        Names, units (compared with pint), every input fed exactly once, power bonds
        whose effort and flow go both ways between two subsystems.

        Parameters
        ----------
        subsystems : sequence of Subsystem

        Returns
        -------
        list of str
            Empty when the relations fit.

        Examples
        --------
        >>> from bondgraph.cosim import examples
        >>> Relations(["mass.x -> spring.x", "mass.x -> spring.v", "spring.F -> mass.F"]).problems(
        ...     list(examples.b1_subsystems()))
        ["relation mass.x -> spring.v: unit mismatch, output is in 'm', input expects 'm/s': units 'm' and 'm/s': different dimensions ([length] and [length] / [time]), expected the same dimension"]
        """
        problems: list[str] = []
        counts = Counter(s.name for s in subsystems)
        problems += [f"subsystem name {n!r} is used {c} times" for n, c in counts.items()
                     if c > 1]
        subs = {s.name: s for s in subsystems}
        outs = {n: {p.name: p for p in s.outputs} for n, s in subs.items()}
        ins = {n: {p.name: p for p in s.inputs} for n, s in subs.items()}
        fed: dict[str, list[str]] = {}
        for r in self.relations:
            ss, sp = split_endpoint(r.source)
            ts, tp = split_endpoint(r.target)
            src = tgt = None
            if ss not in subs:
                problems.append(f"relation {r.source} -> {r.target}: no subsystem {ss!r} "
                                f"(known: {', '.join(sorted(subs))})")
            elif sp not in outs[ss]:
                problems.append(f"relation {r.source} -> {r.target}: subsystem {ss!r} has no "
                                f"output {sp!r} (outputs: {', '.join(outs[ss]) or 'none'})")
            else:
                src = outs[ss][sp]
            if ts not in subs:
                problems.append(f"relation {r.source} -> {r.target}: no subsystem {ts!r} "
                                f"(known: {', '.join(sorted(subs))})")
            elif tp not in ins[ts]:
                problems.append(f"relation {r.source} -> {r.target}: subsystem {ts!r} has no "
                                f"input {tp!r} (inputs: {', '.join(ins[ts]) or 'none'})")
            else:
                tgt = ins[ts][tp]
                fed.setdefault(r.target, []).append(r.source)
            if ss == ts:
                problems.append(f"relation {r.source} -> {r.target}: connects subsystem "
                                f"{ss!r} to itself")
            if src is not None and tgt is not None:
                try:
                    conversion(src.unit, tgt.unit)
                except ParameterError as exc:
                    problems += [f"relation {r.source} -> {r.target}: unit mismatch, output is "
                                 f"in {src.unit!r}, input expects {tgt.unit!r}: {p}"
                                 for p in exc.problems]
        for n, s in subs.items():
            for p in s.inputs:
                key = f"{n}.{p.name}"
                sources = fed.get(key, [])
                if not sources:
                    problems.append(f"input {key} [{p.unit}] is fed by no relation")
                elif len(sources) > 1:
                    problems.append(f"input {key} is fed {len(sources)} times (by "
                                    f"{', '.join(sources)}), expected exactly once")
        for b in self.bonds:
            problems += self._bond_problems(b, subs, outs)
        return problems

    def _bond_problems(self, b: PowerBond, subs: Mapping[str, Subsystem],
                       outs: Mapping[str, Mapping]) -> list[str]:
        problems = []
        es, ep = split_endpoint(b.effort)
        fs, fp = split_endpoint(b.flow)
        for role, s, p in (("effort", es, ep), ("flow", fs, fp)):
            if s not in subs or p not in outs[s]:
                problems.append(f"bond {b.name}: {role} {s}.{p} is not an output of any "
                                "subsystem")
        if problems:
            return problems
        if es == fs:
            return [f"bond {b.name}: effort and flow both come from subsystem {es!r}, "
                    "expected the flow from the subsystem that receives the effort"]
        n_e = sum(1 for r in self.relations if r.source == b.effort and r.target_subsystem == fs)
        n_f = sum(1 for r in self.relations if r.source == b.flow and r.target_subsystem == es)
        for role, n, src, dst in (("effort", n_e, b.effort, fs), ("flow", n_f, b.flow, es)):
            if n != 1:
                problems.append(f"bond {b.name}: found {n} relations from {src} to subsystem "
                                f"{dst!r}, expected exactly 1 ({role} side of the bond)")
        return problems

    def factors(self, subsystems: Sequence[Subsystem]) -> dict[str, float]:
        """Unit factor of each relation, by target ``"sub.input"``.

        The master multiplies the source's values (and derivatives) by it. Call after
        :meth:`validate`.

        Parameters
        ----------
        subsystems : sequence
            The coupled subsystems.

        Returns
        -------
        dict

        Examples
        --------
        >>> from bondgraph.cosim.python import PythonSubsystem
        >>> class Obj:
        ...     x = 0.0; F = 0.0
        ...     def do_step(self, t, h): pass
        >>> a = PythonSubsystem(Obj(), "a", [("F", "kN")], [("x", "m")],
        ...                     direct_feedthrough=False)
        >>> b = PythonSubsystem(Obj(), "b", [("x", "mm")], [("F", "N")],
        ...                     direct_feedthrough=True)
        >>> Relations(["a.x -> b.x", "b.F -> a.F"]).factors([a, b])
        {'b.x': 1000.0, 'a.F': 0.001}
        """
        units = _units(subsystems)
        return {r.target: conversion(units[r.source], units[r.target]) for r in self.relations}

    def validate(self, subsystems: Sequence[Subsystem]) -> None:
        """Raise :class:`CosimulationError` listing every problem, if any.

        Parameters
        ----------
        subsystems : sequence
            The coupled subsystems.

        Examples
        --------
        >>> from bondgraph.cosim.python import PythonSubsystem
        >>> class Obj:
        ...     x = 0.0; F = 0.0
        ...     def do_step(self, t, h): pass
        >>> a = PythonSubsystem(Obj(), "a", [("F", "N")], [("x", "m")],
        ...                     direct_feedthrough=False)
        >>> b = PythonSubsystem(Obj(), "b", [("x", "N")], [("F", "N")],
        ...                     direct_feedthrough=True)
        >>> Relations(["a.x -> b.x"]).validate([a, b])
        Traceback (most recent call last):
        ...
        bondgraph.errors.CosimulationError: relations: 2 problems
          - relation a.x -> b.x: unit mismatch, output is in 'm', input expects 'N': units 'm' and 'N': different dimensions ([length] and [mass] * [length] / [time] ** 2), expected the same dimension
          - input a.F [N] is fed by no relation
        """
        problems = self.problems(subsystems)
        if problems:
            raise CosimulationError(problems, subject="relations")

    # ------------------------------------------------------------ printing
    def directions(self) -> dict[tuple[str, str], list[Relation]]:
        """Relations grouped by (source subsystem, target subsystem), in order.

        Returns
        -------
        dict
        """
        groups: dict[tuple[str, str], list[Relation]] = {}
        for r in self.relations:
            groups.setdefault((r.source_subsystem, r.target_subsystem), []).append(r)
        return groups

    def table(self, subsystems: Sequence[Subsystem] | None = None) -> str:
        """The relations as a text table, one block per direction.

        With ``subsystems``, units are shown next to each endpoint.

        Parameters
        ----------
        subsystems : sequence, optional
            The coupled subsystems.

        Returns
        -------
        str
        """
        units = _units(subsystems or ())

        def label(ep: str) -> str:
            return f"{ep} [{units[ep]}]" if ep in units else ep

        def factor(r: Relation) -> str:
            try:
                f = conversion(units[r.source], units[r.target])
            except (KeyError, ParameterError):
                return ""
            return "" if f == 1.0 else f"  (x {f:g})"

        width = max((len(label(r.source)) for r in self.relations), default=0)
        lines = []
        for (a, b), rels in self.directions().items():
            lines.append(f"{a} -> {b}")
            lines += [f"  {label(r.source):<{width}}  -> {label(r.target)}{factor(r)}"
                      for r in rels]
        if self.bonds:
            lines.append("power bonds")
            lines += [f"  {label(b.effort)} * {label(b.flow)}" for b in self.bonds]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()


def _units(subsystems: Sequence[Subsystem]) -> dict[str, str]:
    """Unit of every port, by ``"subsystem.port"``."""
    return {f"{s.name}.{p.name}": p.unit for s in subsystems for p in (*s.outputs, *s.inputs)}
