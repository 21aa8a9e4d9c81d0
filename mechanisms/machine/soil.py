"""A soil tool on a machine's edge point: from Python, or from a machine file's ``[soil]`` table.

:func:`with_soil` rebuilds a :class:`~mechanisms.machine.Machine`'s model with a
:class:`components.soil_tool.SoilTool` connected to the hinge junctions of the cutting edge
(a free ``Li`` point of a body): the edge's world position and the face angle are written
as expressions of the bodies' angle states along the root chain (:func:`point_expressions`),
so the equations still come from the graph. The payload's weight acts at the edge point.
The energy split shows the tool's dissipation as "soil" and the payload weight's work as
"soil payload weight".

Examples
--------
>>> from mechanisms.machine import Machine, DATA
>>> m = Machine.from_file(DATA / "excavator.toml", mode="extensions")
>>> x, y = point_expressions(m.mechanism, "bucket", "Q")
>>> pose = m.start_pose
>>> subs = {m.mechanism.parts[n].coordinates["theta"]: pose.angle(n) for n in ("boom", "arm", "bucket")}
>>> px, py = pose.points()["bucket/Q"]
>>> abs(float(x.xreplace(subs)) - px) < 1e-9 and abs(float(y.xreplace(subs)) - py) < 1e-9
True
"""

from __future__ import annotations

import math
from typing import Any

import sympy as sp

from bondgraph import build
from bondgraph.errors import ParameterError
from components import MainBody
from components.soil import SoilProperties
from components.soil_tool import SoilTool

from ..model import MechanismModel

__all__ = ["point_expressions", "with_soil"]


def point_expressions(mechanism, part: str, point: str) -> tuple[sp.Expr, sp.Expr]:
    """World ``(x, y)`` of a body's point as expressions of the bodies' angle handles along
    its root chain (every part of the chain a body).

    Raises
    ------
    ParameterError
        A part of the chain that is not a body (named).
    """
    p = mechanism.parts[part]
    if not isinstance(p, MainBody):
        raise ParameterError(f"part {part!r}: a {p.kind}; the soil tool's edge must sit on a chain of "
                             "bodies from the chassis")
    parent = mechanism._parent(p)
    if parent is None:
        rx, ry = mechanism.fixed[(part, p.root.name)]
    else:
        rx, ry = point_expressions(mechanism, *parent)
    th = p.coordinates["theta"]
    c, s = sp.cos(th), sp.sin(th)
    lx, ly = p.root.local
    ox, oy = rx - (c * lx - s * ly), ry - (s * lx + c * ly)
    x, y = p.hinge(point).local
    return ox + c * x - s * y, oy + s * x + c * y


def with_soil(machine, soil: SoilProperties, *, edge: tuple[str, str], face: float, width: float,
              capacity: float, ground: Any = None, params: Any = None, cache_key: str | None = None,
              **tool: Any):
    """The machine with a soil tool on its edge point: its model rebuilt in place (returned).

    Parameters
    ----------
    machine : Machine
    soil : SoilProperties
    edge : (part, point)
        The cutting edge: a free ``Li`` point of a body (the excavator's ``("bucket", "Q")``).
    face : float
        The face direction in the part's frame (rad), from the edge into the bucket.
    width, capacity : float
        m, m³ (heaped).
    ground : float or points, optional
        Default the machine's ``[machine] ground``.
    params : mapping, optional
        The run-time parameters to build with (default the machine's current ones).
    cache_key : str, optional
        The machine's ``mechanisms.machine.buildkey.machine_key``, passed to :func:`bondgraph.build`.
    **tool
        Further keywords of :class:`~components.soil_tool.SoilTool`.
    """
    mech = machine.mechanism
    part, point = edge
    problems = []
    if part not in mech.parts or point not in mech.parts[part].points:
        problems.append(f"edge {part}.{point}: no such point (parts: {', '.join(mech.parts)})")
    if ground is None and machine.description.ground is None:
        problems.append("ground: not given and the machine has no [machine] ground")
    if problems:
        raise ParameterError(problems, subject=f"soil tool on {machine.name!r}")
    x, y = point_expressions(mech, part, point)
    bg = mech.bond_graph()
    h = f"h_{part}_{point}"
    hx = f"{h}_x"
    if hasattr(mech, "ground_velocity"):    # a travelling front: the soil sees the edge on the ground
        x = x + mech.position
        hx = mech.ground_velocity(bg, hx)
    th = mech.parts[part].coordinates["theta"]
    tool_graph = SoilTool("soil", soil, width=width, capacity=capacity, position=(x, y),
                          face_angle=th + face, ground=machine.description.ground if ground is None else ground,
                          **tool)
    bg.add(tool_graph)
    bg.connect(hx, "soil/x")
    bg.connect(f"{h}_y", "soil/y")
    bg.connect(f"{h}_y", "soil/load")
    machine.model = MechanismModel(mech, build(bg, machine.params if params is None else params,
                                                cache_key=cache_key))
    machine.soil_tool = tool_graph
    return machine
