"""Causal port classes of the linkage templates, and the connection rules.

The source paper (Li & Wang, Tongji University, 2015; `docs/background/sources.md`) classifies every hinge point of a
linear-actuator revolute-joint mechanism by which of its velocity components
the part *receives* (flow-in) and which force components it receives
(effort-in):

====  ===============================  =============  =============
port  on                               x component    y component
====  ===============================  =============  =============
Rt    body, cylinder, lever (root)     flow-in        flow-in
Pd    body (where an actuator pushes)  effort-in      flow-in
Li    body (load point)                effort-in      effort-in
Pr    cylinder, lever (output point)   flow-in        effort-in
I     cylinder (extension interface)   flow-in        —
====  ===============================  =============  =============

**Frames.** ``Rt`` and ``Li`` components are taken in the world frame (their two
components have the same causality, so any frame would do). At a ``Pd``–``Pr``
hinge both sides use the frame of the ``Pr`` part (the cylinder or lever): *y*
along its axis (root → output point) and *x* normal to it,
``x̂ = (sin φ, −cos φ)``, ``ŷ = (cos φ, sin φ)``. Then the strokes chain:
the cylinder makes the *axial* velocity of its output point from the root
velocity and its extension rate (``ẏ = v_Rt·ŷ + ṡ``) and takes the axial force
(y effort-in); it receives the *normal* velocity from the body (x flow-in),
which sets its swing rate ``φ̇ = (v_Rt·x̂ − ẋ)/s``, and returns the normal force.
The pushed body receives the axial velocity (y flow-in), which together with
its root fixes its angular velocity, and pushes back the normal force (x
effort-in). Because the normal components never have to be solved from the
axial ones, nothing degenerates when a cylinder is horizontal or a body point
passes over its root: the only singular poses are the physical ones (an
actuator line through the pivot it is meant to turn). In the world frame the
same table would break down whenever a cylinder became horizontal.

Examples
--------
>>> PortClass.PD.causality
('effort-in', 'flow-in')
>>> check_part_ports("boom", "body", [PortClass.RT, PortClass.PD, PortClass.LI])
[]
>>> check_part_ports("arm", "body", [PortClass.RT, PortClass.LI])
['arm (body): has 0 Pd ports; expected exactly one (rule: a main body has exactly one Rt and one Pd, any number of Li)']
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Iterable

from bondgraph import ConnectionRuleError

__all__ = ["PortClass", "HingePoint", "check_part_ports", "check_connection", "RULES"]


class PortClass(Enum):
    """A causal port class of the source paper (Li & Wang): what a hinge point imposes and
    receives, per axis.

    ``Rt`` root (flow in on x and y), ``Pd`` pushed point of a body (effort in on its normal
    x, flow in on its axial y), ``Li`` load point (effort in on both), ``Pr`` force-output
    point of a cylinder or lever (flow in on x, effort in on y), ``I`` a cylinder's extension
    interface (flow in, from the hydraulic side).

    Examples
    --------
    >>> PortClass.PD.causality, PortClass.I.causality
    (('effort-in', 'flow-in'), ('flow-in',))
    """

    RT = "Rt"
    PD = "Pd"
    LI = "Li"
    PR = "Pr"
    I = "I"  # noqa: E741 - the paper's name

    @property
    def causality(self) -> tuple[str, ...]:
        """Per-axis causality seen from the part (x, y), or (axial,) for ``I``."""
        return _CAUS[self]

    @classmethod
    def parse(cls, value: "PortClass | str") -> "PortClass":
        """A class from its name, matched exactly (``"Li"``; ``"li"`` is an error that
        suggests the right spelling: the paper's names are case-sensitive).

        Examples
        --------
        >>> PortClass.parse("Pd")
        <PortClass.PD: 'Pd'>
        >>> PortClass.parse("li")
        Traceback (most recent call last):
        ...
        bondgraph.errors.ConnectionRuleError: port class 'li': class names are matched exactly; did you mean 'Li'? (expected one of Rt, Pd, Li, Pr, I)
        """
        if isinstance(value, PortClass):
            return value
        for c in cls:
            if c.value == value:
                return c
        near = [c.value for c in cls if c.value.lower() == str(value).lower()]
        hint = f"class names are matched exactly; did you mean {near[0]!r}? " if near else ""
        raise ConnectionRuleError(f"port class {value!r}: {hint}(expected one of Rt, Pd, Li, Pr, I)"
                                  if hint else f"port class {value!r}: expected one of Rt, Pd, Li, Pr, I")


_CAUS = {
    PortClass.RT: ("flow-in", "flow-in"),
    PortClass.PD: ("effort-in", "flow-in"),
    PortClass.LI: ("effort-in", "effort-in"),
    PortClass.PR: ("flow-in", "effort-in"),
    PortClass.I: ("flow-in",),
}

#: The connection rules, as stated to users in messages.
RULES = {
    "body": "a main body has exactly one Rt and one Pd, any number of Li",
    "cylinder": "a cylinder has exactly one Rt, one Pr and one I",
    "lever": "a lever has exactly one Rt and one Pr",
    "chassis": "points on the chassis are Rt",
    "rt": "an Rt not on the chassis connects to an Li",
    "pd": "a Pd connects to a Pr",
    "li": "an Li may stay free",
}

_ALLOWED = {
    "body": {PortClass.RT: (1, 1), PortClass.PD: (1, 1), PortClass.LI: (0, None)},
    "cylinder": {PortClass.RT: (1, 1), PortClass.PR: (1, 1), PortClass.I: (1, 1)},
    "lever": {PortClass.RT: (1, 1), PortClass.PR: (1, 1)},
}


@dataclass(frozen=True)
class HingePoint:
    """A hinge point of a part: its class and its position in the part frame (m).

    Examples
    --------
    >>> hp = HingePoint("boom", "B", PortClass.PD, (2.85, 1.18))
    >>> str(hp), check_connection(hp, None)
    ('boom/B (Pd)', ['boom/B (Pd) fixed to the chassis: found a Pd; expected an Rt (rule: points on the chassis are Rt)'])
    """

    part: str
    name: str
    cls: PortClass
    local: tuple[float, float]

    def __str__(self) -> str:
        return f"{self.part}/{self.name} ({self.cls.value})"


def check_part_ports(part: str, kind: str, classes: Iterable[PortClass]) -> list[str]:
    """Rule violations in the port classes a part declares (empty list if none).

    Examples
    --------
    >>> check_part_ports("boom", "body", [PortClass.RT, PortClass.LI])
    ['boom (body): has 0 Pd ports; expected exactly one (rule: a main body has exactly one Rt and one Pd, any number of Li)']
    """
    allowed = _ALLOWED[kind]
    counts: dict[PortClass, int] = {}
    problems = []
    for c in classes:
        counts[c] = counts.get(c, 0) + 1
    for c, n in counts.items():
        if c not in allowed:
            problems.append(f"{part} ({kind}): has a {c.value} port; a {kind} takes only "
                            f"{', '.join(x.value for x in allowed)} (rule: {RULES[kind]})")
    for c, (lo, hi) in allowed.items():
        n = counts.get(c, 0)
        if n < lo or (hi is not None and n > hi):
            want = "exactly one" if lo == hi == 1 else f"{lo}..{hi or 'any'}"
            problems.append(f"{part} ({kind}): has {n} {c.value} ports; expected {want} "
                            f"(rule: {RULES[kind]})")
    return problems


def check_connection(a: HingePoint, b: HingePoint | None) -> list[str]:
    """Rule violations of connecting ``a`` to ``b`` (``None``: the chassis).

    Examples
    --------
    >>> pd = HingePoint("arm", "E", PortClass.PD, (0, 0))
    >>> pr = HingePoint("arm_cyl", "B", PortClass.PR, (0, 0))
    >>> check_connection(pd, pr)
    []
    """
    if b is None:
        if a.cls is not PortClass.RT:
            return [f"{a} fixed to the chassis: found a {a.cls.value}; expected an Rt "
                    f"(rule: {RULES['chassis']})"]
        return []
    if a.part == b.part:
        return [f"{a} and {b}: both on part {a.part}; a hinge joins two different parts"]
    pair = {a.cls, b.cls}
    if pair == {PortClass.PD, PortClass.PR}:
        return []
    if pair == {PortClass.RT, PortClass.LI}:
        return []
    if PortClass.I in pair:
        return [f"{a} – {b}: an I port is the cylinder's extension interface; it is driven "
                "(force, extension or hydraulics), not hinged"]
    if PortClass.PD in pair:
        other = b if a.cls is PortClass.PD else a
        return [f"{a} – {b}: a Pd must connect to a Pr, found {other.cls.value} "
                f"(rule: {RULES['pd']})"]
    if PortClass.PR in pair:
        other = b if a.cls is PortClass.PR else a
        return [f"{a} – {b}: a Pr connects to a Pd, found {other.cls.value} (rule: {RULES['pd']})"]
    if PortClass.RT in pair:
        other = b if a.cls is PortClass.RT else a
        return [f"{a} – {b}: an Rt not on the chassis connects to an Li, found "
                f"{other.cls.value} (rule: {RULES['rt']})"]
    return [f"{a} – {b}: two {a.cls.value} ports cannot be hinged (rules: {RULES['rt']}; "
            f"{RULES['pd']})"]
