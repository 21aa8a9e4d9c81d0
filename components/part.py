"""Base of the linkage templates: a bond-graph component with typed hinge points.

A :class:`Part` is a :class:`bondgraph.BondGraph` whose exposed ports come in
pairs, one per hinge point and axis (``"B.x"``, ``"B.y"``), each fixed to the
causality of the point's class (see :mod:`components.ports`). It also knows
its own planar kinematics (where its points are for a given pose), which the
mechanism uses for position analysis, loop-closure checks and drawings.

Every part's velocities are built *from its root point* ``Rt``: the root
velocity junctions are the part's base, and every other point (and the centre
of gravity) is reached through modulated transformers from the rotation
junction, whose displacement state is the part's angle. This is the paper's
"root" idea; with it the only divisions in the generated equations are
physical moment arms (see :mod:`components.ports`).

Examples
--------
>>> from components import MainBody
>>> b = MainBody("link", mass=2.0, inertia=0.5, cog=(0.5, 0.0),
...              points={"O": ("Rt", (0, 0)), "P": ("Pd", (1, 0))})
>>> b.port_names("P")
('P.x', 'P.y')
>>> [str(p) for p in b.points.values()]
['link/O (Rt)', 'link/P (Pd)']
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping

import sympy as sp

from bondgraph import BondGraph, ConnectionRuleError, ParameterError
from bondgraph.checks import FINITE, Check, number_problems

from .ports import HingePoint, PortClass, check_part_ports

__all__ = ["Part", "pair_problems", "raise_problems", "symbolic", "present", "numeric_only", "in_si"]


def symbolic(value: Any) -> bool:
    """A sympy expression with free symbols: a run-time parameter of the compiled model
    (its value is given to ``build(..., params)`` and checked there)."""
    return isinstance(value, sp.Basic) and not value.is_number


def present(value: Any) -> bool:
    """Whether a mass, inertia or gravity adds elements: a non-zero number, or any
    symbol (a run-time parameter, whose value may change after the build)."""
    return True if symbolic(value) else float(value) != 0.0


def numeric_only(values: Mapping[str, tuple]) -> dict[str, tuple]:
    """The entries of a :func:`~bondgraph.checks.number_problems` table that are numbers
    (symbols are run-time parameters, checked where their values are given)."""
    return {k: v for k, v in values.items() if not symbolic(v[0])}


def as_amount(value: Any):
    """A checked number as a float, a symbol as it is."""
    return value if symbolic(value) else float(value)


def in_si(values: Mapping[str, tuple[Any, str]], problems: list[str]) -> dict[str, Any]:
    """Scalar template values given with their units (``"850 kg"``, a pint quantity) in SI;
    numbers (taken as SI) and symbols as they are. A value that cannot be read, or has the
    wrong dimension, adds a problem naming it and is replaced by 1.0, a placeholder every
    later range check passes, so that it is reported once (the constructor raises).

    Examples
    --------
    >>> problems = []
    >>> in_si({"mass": ("1.2 t", "kg"), "stroke": (1.25, "m"), "J": ("3 kg*m^2", "kg*m^2")}, problems)
    {'mass': 1200.0, 'stroke': 1.25, 'J': 3.0}
    >>> in_si({"retracted": ("2 kg", "m")}, problems), problems  # doctest: +ELLIPSIS
    ({'retracted': 1.0}, ["'retracted': ... expected a length ..."])
    """
    from bondgraph.errors import ParameterError
    from bondgraph.units import to_si

    out: dict[str, Any] = {}
    for name, (value, unit) in values.items():
        if isinstance(value, str) or hasattr(value, "magnitude") or isinstance(value, Mapping):
            try:
                out[name] = to_si(value, unit, name=name)
            except ParameterError as exc:
                problems += exc.problems
                out[name] = 1.0
        else:
            out[name] = value
    return out


def pair_problems(name: str, value: Any, check: Check = FINITE) -> list[str]:
    """Problems of an ``(x, y)`` pair of numbers (a centre of gravity, a hinge point), in m.

    Examples
    --------
    >>> pair_problems("cog", (0.5, float("nan")))
    ['cog y: found nan, expected a finite number (m)']
    >>> pair_problems("point 'B'", "0.5, 1")
    ["point 'B': found '0.5, 1', expected a pair of numbers (x, y) in m"]
    """
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 2:
        return [f"{name}: found {value!r}, expected a pair of numbers (x, y) in m"]
    chk = check if check.meaning else check.with_meaning("m")
    return number_problems("", {f"{name} {axis}": (v, chk) for axis, v in zip("xy", value)})


def raise_problems(numeric: list[str], rules: list[str], subject: str) -> None:
    """One error for every problem of a constructor: a :class:`ParameterError` when any
    number is bad (the rule problems listed with it), else a :class:`ConnectionRuleError`."""
    if numeric:
        raise ParameterError(numeric + rules, subject=subject)
    if rules:
        raise ConnectionRuleError(rules, subject=subject)


class Part(BondGraph):
    """A template instance: a component with classified hinge points.

    Subclasses implement ``_build`` (the bond graph), :meth:`world_points`
    (kinematics) and name their displacement handles in :attr:`coordinates`.
    """

    kind: ClassVar[str] = "part"

    def __init__(self, name: str):
        super().__init__(name)
        self.points: dict[str, HingePoint] = {}
        #: pose coordinate name -> displacement handle (sympy symbol)
        self.coordinates: dict[str, sp.Symbol] = {}
        #: local junction name of each coordinate's displacement state
        self.coordinate_states: dict[str, str] = {}

    # ---------------------------------------------------------------- points
    def _declare_points(self, points: Mapping[str, tuple], numeric: list[str] | None = None) -> list[str]:
        """Declare the hinge points; returns the rule problems (bad specs, classes, names).

        With ``numeric`` (a list), bad coordinates are appended to it and the caller
        raises once for everything; without it, any problem is raised here.
        """
        own = numeric is None
        numeric = [] if numeric is None else numeric
        rules = []
        if not isinstance(points, Mapping):
            rules.append(f"{self.name}: points = {points!r}, expected a dict name -> (class, (x, y))")
            points = {}
        for pname, spec in points.items():
            try:
                cls, local = spec
                cls = PortClass.parse(cls)
            except (TypeError, ValueError, ConnectionRuleError) as exc:
                rules.append(f"{self.name}/{pname}: point spec {spec!r}: expected "
                             f"(class, (x, y)) with class one of Rt, Pd, Li, Pr ({exc})")
                continue
            if not (isinstance(pname, str) and pname.replace("_", "").isalnum()):
                rules.append(f"{self.name}/{pname}: point names are letters, digits and '_'")
                continue
            bad = pair_problems(f"point {pname!r} ({cls.value})", local)
            if bad:
                numeric += bad
                continue
            self.points[pname] = HingePoint(self.name, pname, cls, (float(local[0]), float(local[1])))
        if own:
            raise_problems(numeric, rules, f"{self.kind} {self.name!r}")
        return rules

    def check_rules(self) -> list[str]:
        """Violations of the per-part rules (classes and counts of its points)."""
        classes = [p.cls for p in self.points.values()]
        if self.kind == "cylinder":
            classes.append(PortClass.I)
        return check_part_ports(self.name, self.kind, classes)

    def hinge(self, name: str) -> HingePoint:
        """The hinge point ``name``; the error lists the part's points."""
        try:
            return self.points[name]
        except KeyError:
            raise ConnectionRuleError(
                f"{self.name}: no hinge point {name!r}; points are "
                f"{', '.join(f'{p} ({h.cls.value})' for p, h in self.points.items())}") from None

    def port_names(self, point: str) -> tuple[str, str]:
        """The exposed ports (x, y) of a hinge point."""
        self.hinge(point)
        return f"{point}.x", f"{point}.y"

    @property
    def root(self) -> HingePoint:
        return next(p for p in self.points.values() if p.cls is PortClass.RT)

    # ---------------------------------------------------------------- kinematics
    def pose_size(self) -> int:
        raise NotImplementedError

    def world_points(self, pose) -> dict[str, tuple]:
        """World position of every hinge point for a pose vector (numbers or arrays)."""
        raise NotImplementedError

    def point_jacobian(self, pose, point: str):
        """∂(world x, y of ``point``)/∂pose: a 2 × :meth:`pose_size` array (numbers)."""
        raise NotImplementedError

    def pose_from_states(self, root_xy, states: Mapping[str, object]):
        """Pose from the root position and the part's displacement states."""
        raise NotImplementedError

    def states_from_pose(self, pose) -> dict[str, float]:
        """Displacement-state values (local junction path → value) of a pose."""
        raise NotImplementedError

    def sketch(self, pose) -> list[tuple]:
        """Polylines to draw the part at a pose (list of ``[(x, y), ...]``)."""
        pts = self.world_points(pose)
        return [list(pts.values())]
