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

import math
from typing import ClassVar, Mapping

import sympy as sp

from bondgraph import BondGraph, ConnectionRuleError

from .ports import HingePoint, PortClass, check_part_ports

__all__ = ["Part", "check_amount", "present", "check_gravity"]


def present(value) -> bool:
    """Whether a mass/inertia/gravity adds elements: a number > 0, or any symbol
    (a run-time parameter, whose value may change after the build)."""
    if isinstance(value, sp.Basic) and not value.is_number:
        return True
    return float(value) != 0.0


def check_amount(owner: str, name: str, value, problems: list[str]):
    """A mass or inertia: a finite number ≥ 0, or a sympy symbol/expression (a run-time
    parameter of the compiled model, checked where its value is given)."""
    if isinstance(value, sp.Basic) and not value.is_number:
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float, sp.Number)):
        problems.append(f"{owner}: {name} = {value!r}, expected a number ≥ 0 (kg or kg·m², SI)")
        return 0.0
    v = float(value)
    if not (math.isfinite(v) and v >= 0):
        problems.append(f"{owner}: {name} = {value!r}, expected a finite number ≥ 0")
        return 0.0
    return v


def check_gravity(owner: str, value, problems: list[str]):
    """Gravity acts along −y: a finite number ≥ 0 (0 switches it off) or a symbol."""
    if isinstance(value, sp.Basic) and not value.is_number:
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float, sp.Number)):
        problems.append(f"{owner}: gravity = {value!r}, expected a number ≥ 0 (m/s², acting along −y)")
        return 0.0
    v = float(value)
    if not math.isfinite(v) or v < 0:
        problems.append(f"{owner}: gravity = {value!r}, expected a finite number ≥ 0 (m/s²); it acts "
                        "along −y, so a negative value would pull upwards (turn the frame instead)")
        return 0.0
    return v


class Part(BondGraph):
    """A template instance: a component with classified hinge points.

    Subclasses implement :meth:`_build` (the bond graph), :meth:`world_points`
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
    def _declare_points(self, points: Mapping[str, tuple]) -> None:
        problems = []
        for pname, spec in points.items():
            try:
                cls, local = spec
                cls = PortClass.parse(cls)
                local = (float(local[0]), float(local[1]))
            except (TypeError, ValueError, ConnectionRuleError) as exc:
                problems.append(f"{self.name}/{pname}: point spec {spec!r}: expected "
                                f"(class, (x, y)) with class one of Rt, Pd, Li, Pr ({exc})")
                continue
            if not all(math.isfinite(c) for c in local):
                problems.append(f"{self.name}/{pname}: position {local!r}, expected finite "
                                "coordinates (m)")
                continue
            if not pname.replace("_", "").isalnum():
                problems.append(f"{self.name}/{pname}: point names are letters, digits and '_'")
                continue
            self.points[pname] = HingePoint(self.name, pname, cls, local)
        if problems:
            raise ConnectionRuleError(problems, subject=f"{self.kind} {self.name!r}")

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
            if name == "I" and self.kind == "cylinder":
                raise ConnectionRuleError(
                    f"{self.name}/I (I): the cylinder's extension interface is driven (force, "
                    "extension or the hydraulic side), not hinged (rule: a cylinder has exactly one "
                    "Rt, one Pr and one I)") from None
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
