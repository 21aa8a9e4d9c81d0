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

__all__ = ["Part", "pair_problems", "raise_problems", "symbolic", "present", "numeric_only", "in_si",
           "pair_in_si"]


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


def pair_in_si(name: str, value: Any, problems: list[str]) -> Any:
    """An ``(x, y)`` pair whose items may carry units (``("1.4 m", "0.1 m")``, a pint
    quantity): the pair in metres, numbers as they are (SI). Anything that is not a pair is
    returned unchanged for :func:`pair_problems` to name; an item that cannot be read as a
    length adds a problem and becomes 0.0.

    Examples
    --------
    >>> problems = []
    >>> pair_in_si("cog", ("1400 mm", 0.1), problems), problems
    ((1.4, 0.1), [])
    >>> pair_in_si("cog", ("1.4 kg", "0 m"), problems), problems  # doctest: +ELLIPSIS
    ((0.0, 0.0), ["'cog x': ... expected a length ..."])
    """
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 2:
        return value
    out = []
    for axis, item in zip("xy", value):
        bad: list[str] = []
        v = in_si({f"{name} {axis}": (item, "m")}, bad)[f"{name} {axis}"]
        problems += bad
        out.append(0.0 if bad else v)
    return tuple(out)


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
    (kinematics) and name their displacement handles in :attr:`coordinates`; each records
    its constructor's arguments (:attr:`spec`), so :meth:`evolve` can build a changed copy.

    Examples
    --------
    >>> from components import MainBody
    >>> arm = MainBody("arm", mass=700.5, inertia=2191.0, cog=(1.176, 0.296),
    ...                points={"F": ("Rt", (0, 0)), "E": ("Pd", (-0.92, 0.217))})
    >>> isinstance(arm, Part), arm.root.name, arm.kind, arm.pose_size()
    (True, 'F', 'body', 3)
    """

    kind: ClassVar[str] = "part"

    def __init__(self, name: str):
        super().__init__(name)
        #: the constructor's arguments (SI numbers, or symbols), set by each template
        self._spec: dict[str, Any] = {}
        self.points: dict[str, HingePoint] = {}
        #: pose coordinate name -> displacement handle (sympy symbol)
        self.coordinates: dict[str, sp.Symbol] = {}
        #: local junction name of each coordinate's displacement state
        self.coordinate_states: dict[str, str] = {}

    # ---------------------------------------------------------------- values
    @property
    def spec(self) -> dict[str, Any]:
        """The keyword arguments this part was built with, in SI units (a copy).

        ``type(part)(part.name, **part.spec)`` builds the same part again; the machine layer
        writes a part's table of a machine file from it.

        Examples
        --------
        >>> from components import Lever
        >>> Lever("link", length="674 mm", mass="50 kg", root="J", tip="N").spec["length"]
        0.674
        """
        return dict(self._spec)

    def evolve(self, **changes: Any) -> "Part":
        """A new part of the same template and name with some arguments changed (units
        allowed, as in the constructor); this part is not modified.

        Examples
        --------
        >>> from components import Lever
        >>> link = Lever("link", length=0.674, mass=50.0)
        >>> heavier = link.evolve(mass="60 kg")
        >>> heavier.mass, link.mass, heavier.length
        (60.0, 50.0, 0.674)
        >>> link.evolve(colour="red")
        Traceback (most recent call last):
        ...
        bondgraph.errors.ParameterError: lever 'link': evolve(colour=...): not an argument of Lever (arguments: length, mass, inertia, cog, gravity, root, tip, phi0)
        """
        unknown = [k for k in changes if k not in self._spec]
        if unknown:
            raise ParameterError(f"{self.kind} {self.name!r}: evolve({', '.join(f'{k}=...' for k in unknown)}): "
                                 f"not an argument of {type(self).__name__} (arguments: "
                                 f"{', '.join(self._spec)})")
        return type(self)(self.name, **{**self._spec, **changes})

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
                if isinstance(spec, (tuple, list)) and len(spec) == 3:   # as in a machine file
                    spec = (spec[0], (spec[1], spec[2]))
                cls, local = spec
                cls = PortClass.parse(cls)
            except (TypeError, ValueError, ConnectionRuleError) as exc:
                rules.append(f"{self.name}/{pname}: point spec {spec!r}: expected "
                             f"(class, (x, y)) or (class, x, y) with class one of Rt, Pd, Li, Pr ({exc})")
                continue
            local = pair_in_si(f"point {pname!r}", local, numeric)
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
        """The part's ``Rt`` point (found once, and again if the part's points change)."""
        hit = self.__dict__.get("_root_point")
        if hit is not None and self.points.get(hit.name) is hit:
            return hit
        hit = next(p for p in self.points.values() if p.cls is PortClass.RT)
        self.__dict__["_root_point"] = hit
        return hit

    # ---------------------------------------------------------------- kinematics
    def pose_size(self) -> int:
        """How many numbers make the part's pose vector (3 for a body or lever, 4 for a cylinder)."""
        raise NotImplementedError

    def world_points(self, pose, names=None) -> dict[str, tuple]:
        """World position of every hinge point for a pose vector (numbers or arrays);
        ``names``: at least these points (a part with many may compute only them)."""
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
