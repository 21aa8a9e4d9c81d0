"""The planar front riding on a turntable: the swing coupling, built as bond-graph elements.

:func:`with_swing` takes a planar :class:`~mechanisms.Mechanism` (the front: boom, arm,
bucket, their cylinders) and a :class:`~components.Turntable` and gives a
:class:`SwingMechanism` whose bond graph is the front's own graph plus the turntable plus,
for every mass and inertia of the front, modulated transformers to *inertial-frame*
junctions. Nothing is written by hand: the equations come from that graph as for any
other model (:class:`~mechanisms.MechanismModel`).

The coupling
------------
The front's plane turns with the swing angle ``φ`` about the vertical axis, which crosses
the plane at ``x = axis_x``. A point of the front at ``(x, y)`` in its plane, at the
radius ``r = x − axis_x``, is at ``X = r·cos φ``, ``Z = r·sin φ``, ``Y = y`` in the
inertial frame, so

* ``Ẋ = cos φ·ẋ − r·sin φ·φ̇`` and ``Ż = sin φ·ẋ + r·cos φ·φ̇``: each centre of gravity's
  velocity junction ``ẋ`` (from the part's template) and the turntable's ``φ̇`` junction
  feed, through MTFs whose moduli are functions of the states (``φ`` and the front's
  angles and lengths, through ``r``), 1-junctions ``Ẋ`` and ``Ż`` carrying the mass
  ``m``; the template's mass on ``ẋ`` is taken off (its mass on ``ẏ = Ẏ`` stays, with
  its weight).
* The rotation: a rigid part's rotational kinetic energy about its centre of gravity is
  ``½·Σₖ Sₖ·|ėₖ|²`` over its principal axes ``eₖ`` (unit vectors, in the inertial frame)
  with ``S_a = (J_b + J_n − J_a)/2`` and its two cyclic twins (``J_n`` the inertia about
  the plane's normal, the template's planar inertia; ``J_a``, ``J_b`` the in-plane
  principal values; ``Sₖ`` is the second moment of the mass along ``eₖ``). So each
  component of each ``ėₖ``, a function of the part's angle ``α`` and of ``φ``, is a
  1-junction fed by MTFs from the part's angular-rate junction and from ``φ̇``, with an
  inertia ``Sₖ`` on it; the template's planar inertia on ``ω`` is taken off.

Every inertia thus sits on the time derivative of a function of the configuration, which
is what makes the graph's dynamics Lagrange's: the centrifugal load on the front and the
full Coriolis torque on the swing appear without being written. (A transformer from ``φ̇``
to "``φ̇ × radius``" alone carries the right kinetic energy but misses the centrifugal
force and half the Coriolis torque: ``r·φ̇`` is not the rate of any position.) The
inertial-frame inertias are dependent storages (derivative causality), which the causal
analysis assigns like any other.

In-plane inertia
----------------
A part may be given its in-plane inertia tensor about its centre of gravity (``tensors``,
2×2 in the part's own frame: a body's frame, a lever's or cylinder's axis frame). Without
one, the part is taken as **slender along its pin line**: the inertia about the pin line
``J_a = 0`` and the other in-plane value ``J_b = J_n`` (its planar inertia). The pin line
of a body runs from its root pin to its farthest hinge point; a lever's or cylinder's is
its axis. :func:`inertia_defaults` says which parts use it.

Examples
--------
>>> from components import Turntable
>>> from mechanisms.examples import single_boom
>>> from mechanisms import MechanismModel
>>> swung = with_swing(single_boom("extension"), Turntable("swing", inertia="20000 kg*m^2"))
>>> mm = MechanismModel.build(swung)
>>> mm.model.input_names
['boom_cyl.rate', 'swing.torque']
>>> pose = swung.solve_pose({"boom_cyl": 3.2}, guess={"boom": 0.4})
>>> round(swing_inertia(swung, pose), 1)        # turntable + boom about the swing axis, kg·m²
37048.8
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
import sympy as sp

from bondgraph import MTF, BondGraph, I, One, ParameterError, Zero
from components import Cylinder, Lever, MainBody, Part
from components.part import present, symbolic
from components.turntable import Turntable

from .assembly import Mechanism, Pose

__all__ = ["with_swing", "SwingMechanism", "swing_inertia", "inertia_defaults", "PartInertia"]


@dataclass(frozen=True)
class PartInertia:
    """A part's rotational inertia as the swing sees it.

    Attributes
    ----------
    part : str
    planar : float or sympy expression
        ``J_n``: about the normal of the front's plane (the template's inertia), kg·m².
    along, across : float or sympy expression
        ``J_a``, ``J_b``: the in-plane principal values, about the principal axis at
        ``angle`` in the part's frame and about the in-plane axis normal to it (kg·m²).
    angle : float
        Angle of the principal axis ``a`` in the part's own frame (rad).
    default : bool
        True when no tensor was given (slender along the pin line).

    Examples
    --------
    >>> pi = PartInertia("boom", 8060.0, 0.0, 8060.0, -0.2, True)
    >>> pi.second_moments()          # along a, along b, along the plane's normal
    (8060.0, 0.0, 0.0)
    >>> round(pi.about_vertical(0.2), 6)   # principal axis horizontal: J_b
    8060.0
    """

    part: str
    planar: Any
    along: Any
    across: Any
    angle: float
    default: bool

    def second_moments(self) -> tuple:
        """``(S_a, S_b, S_n)``: the mass's second moments along the principal axes (kg·m²)."""
        Jn, Ja, Jb = self.planar, self.along, self.across
        return (Jb + Jn - Ja) / 2, (Ja + Jn - Jb) / 2, (Ja + Jb - Jn) / 2

    def about_vertical(self, part_angle: float) -> float:
        """The part's inertia about the vertical through its centre of gravity when its frame
        is at ``part_angle`` (rad) in the front's plane: ``J_a·sin²α + J_b·cos²α`` with
        ``α = part_angle + angle``."""
        a = part_angle + self.angle
        return float(self.along) * math.sin(a) ** 2 + float(self.across) * math.cos(a) ** 2


# ---------------------------------------------------------------------- parts' data
def _angle(part: Part):
    return part.coordinates["theta"] if isinstance(part, MainBody) else part.coordinates["phi"]


def _pin_line(part: Part) -> float:
    """Angle (rad) in the part's frame of its pin line: a body's root → farthest point."""
    if not isinstance(part, MainBody):
        return 0.0
    rx, ry = part.root.local
    far = max(part.points.values(), key=lambda p: math.hypot(p.local[0] - rx, p.local[1] - ry))
    return math.atan2(far.local[1] - ry, far.local[0] - rx)


def _planar(part: Part):
    if isinstance(part, Cylinder):
        return part.J_barrel + part.J_rod
    return part.inertia


def inertia_defaults(mechanism: Mechanism, tensors: Mapping[str, Any] | None = None
                     ) -> dict[str, PartInertia]:
    """Every part's inertia for the swing: from its given 2×2 tensor, or the stated default.

    Parameters
    ----------
    mechanism : Mechanism
    tensors : dict, optional
        Part name → ``((J_xx, J_xy), (J_xy, J_yy))`` (kg·m², numbers) about its centre of
        gravity in the part's own frame (a body's frame; a lever's or a cylinder's axis
        frame, x along the axis). Its in-plane principal values and the template's planar
        inertia ``J_n`` must be those of a rigid body: ``J_a + J_b ≥ J_n``,
        ``|J_a − J_b| ≤ J_n``.

    Returns
    -------
    dict
        Part name → :class:`PartInertia` (``default=True``: slender along the pin line,
        ``J_a = 0``, ``J_b = J_n``).

    Raises
    ------
    ParameterError
        Every bad tensor at once: an unknown part, not a symmetric 2×2 table of finite
        numbers, not positive semi-definite, or not a rigid body's with the part's ``J_n``.

    Examples
    --------
    >>> from mechanisms.examples import single_boom
    >>> d = inertia_defaults(single_boom())
    >>> d["boom"].default, round(math.degrees(d["boom"].angle), 3), d["boom"].across
    (True, 0.0, 8060.0)
    >>> inertia_defaults(single_boom(), {"boom": ((100.0, 0.0), (0.0, 100.0))})
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: in-plane inertia tensors: boom: principal values 100 and 100 kg·m² with the planar inertia J_n = 8060 kg·m²: expected J_a + J_b ≥ J_n and |J_a − J_b| ≤ J_n (a rigid body's)
    """
    tensors = dict(tensors or {})
    problems: list[str] = []
    out: dict[str, PartInertia] = {}
    for name in tensors:
        if name not in mechanism.parts:
            problems.append(f"{name}: no such part (parts: {', '.join(mechanism.parts)})")
    for name, part in mechanism.parts.items():
        Jn = _planar(part)
        if name not in tensors:
            out[name] = PartInertia(name, Jn, 0.0, Jn, _pin_line(part), True)
            continue
        try:
            T = np.array(tensors[name], dtype=float)
            ok = T.shape == (2, 2) and bool(np.all(np.isfinite(T)))
        except (TypeError, ValueError):
            ok = False
        if not ok:
            problems.append(f"{name}: tensor {tensors[name]!r}: expected ((J_xx, J_xy), (J_xy, J_yy)), "
                            "finite numbers in kg·m²")
            continue
        if abs(T[0, 1] - T[1, 0]) > 1e-9 * max(1.0, np.abs(T).max()):
            problems.append(f"{name}: tensor not symmetric (J_xy = {T[0, 1]:g}, J_yx = {T[1, 0]:g} kg·m²)")
            continue
        vals, vecs = np.linalg.eigh(T)
        if symbolic(Jn):
            problems.append(f"{name}: a tensor needs a numeric planar inertia (found the run-time "
                            f"parameter {Jn})")
            continue
        tol = 1e-9 * max(1.0, float(Jn), float(vals.max()))
        if vals.min() < -tol:
            problems.append(f"{name}: tensor not positive semi-definite (principal values "
                            f"{vals[0]:g}, {vals[1]:g} kg·m²)")
            continue
        Ja, Jb = float(vals[0]), float(vals[1])
        if Ja + Jb < float(Jn) - tol or abs(Ja - Jb) > float(Jn) + tol:
            problems.append(f"{name}: principal values {Ja:g} and {Jb:g} kg·m² with the planar inertia "
                            f"J_n = {float(Jn):g} kg·m²: expected J_a + J_b ≥ J_n and |J_a − J_b| ≤ J_n "
                            "(a rigid body's)")
            continue
        out[name] = PartInertia(name, Jn, Ja, Jb, math.atan2(vecs[1, 0], vecs[0, 0]), False)
    if problems:
        raise ParameterError([f"in-plane inertia tensors: {p}" for p in problems]
                             if len(problems) > 1 else f"in-plane inertia tensors: {problems[0]}")
    return out


def _masses(part: Part, at) -> list[tuple[str, str, Any, tuple]]:
    """``(I element on ẋ, its junction, mass, world point)`` of every mass of a part;
    ``at(local)`` gives a part-frame point's world position (sympy)."""
    out = []
    if isinstance(part, MainBody):
        if present(part.mass):
            out.append(("m_x", "Gx", part.mass, at(part.cog)))
        for pm, (m, xy) in part.point_masses.items():
            if present(m):
                out.append((f"{pm}_m_x", f"{pm}_Gx", m, at(xy)))
    elif isinstance(part, Lever):
        if present(part.mass):
            out.append(("m_x", "Gx", part.mass, at(part.cog)))
    elif isinstance(part, Cylinder):
        s = part.coordinates["s"]
        if present(part.m_barrel):
            out.append(("m_barrel_x", "barrel_x", part.m_barrel, at((part.d_barrel, 0.0))))
        if present(part.m_rod):
            out.append(("m_rod_x", "rod_x", part.m_rod, at((s - part.d_rod, 0))))
    else:
        raise ParameterError(f"{part.name}: a {type(part).__name__}; the swing coupling knows the "
                             "masses of MainBody, Lever and Cylinder parts")
    return out


def _frames(mech: Mechanism) -> dict[str, Any]:
    """Part name → ``at(local)``: world position (sympy, in the states) of a point given in
    the part's own frame, along the root chains from the chassis."""
    world: dict[str, Any] = {}
    for name in mech._tree_order():
        part = mech.parts[name]
        parent = mech._parent(part)
        if parent is None:
            ox, oy = (sp.Float(v) for v in mech.fixed[(name, part.root.name)])
        else:
            ox, oy = world[parent[0]](mech.parts[parent[0]].points[parent[1]].local)
        a = _angle(part)
        c, s = sp.cos(a), sp.sin(a)
        rx, ry = part.root.local if isinstance(part, MainBody) else (0.0, 0.0)

        def at(local, ox=ox, oy=oy, c=c, s=s, rx=rx, ry=ry):
            ux, uy = local[0] - rx, local[1] - ry
            return ox + c * ux - s * uy, oy + s * ux + c * uy
        world[name] = at
    return world


class SwingMechanism(Mechanism):
    """A planar front riding on a turntable (made by :func:`with_swing`).

    It is the front's :class:`~mechanisms.Mechanism` (the same parts, hinges, chassis pins
    and drives: poses are solved in the front's plane as before) whose
    :meth:`bond_graph` adds the turntable and the swing coupling. Build it with
    :meth:`MechanismModel.build <mechanisms.MechanismModel.build>`; the swing angle is the
    state :meth:`swing_state` ``"angle"``, its rate ``"rate"``.

    Attributes
    ----------
    front : Mechanism
        The planar mechanism it was made from (not modified).
    turntable : Turntable
    tensors : dict
        The in-plane inertia tensors given (:func:`inertia_defaults`).

    Examples
    --------
    >>> from components import Turntable
    >>> from mechanisms.examples import single_boom
    >>> swung = with_swing(single_boom(), Turntable("swing", inertia=2.0e4))
    >>> swung.swing_state("angle"), swung.swing_state("rate")
    ('boom_lift/swing/w.phi', 'boom_lift/swing/J.f')
    """

    def __init__(self, front: Mechanism, turntable: Turntable, tensors: Mapping[str, Any] | None = None,
                 terminals: Mapping[str, Any] | None = None):
        super().__init__(front.name, front.gravity)
        self.parts = dict(front.parts)
        self.fixed = dict(front.fixed)
        self.hinges = list(front.hinges)
        self.drives = dict(front.drives)
        self.external = dict(front.external)
        self.front = front
        self.turntable = turntable
        self.tensors = dict(tensors or {})
        inertia_defaults(front, self.tensors)          # bad tensors are named now, not at the build
        self.terminals = _terminals(turntable, terminals)

    def __repr__(self) -> str:
        return f"SwingMechanism({self.name!r}: {len(self.parts)} parts on turntable {self.turntable.name!r})"

    @property
    def inertias(self) -> dict[str, PartInertia]:
        """Part name → :class:`PartInertia` the swing uses (the given tensor or the default),
        for the parts as they are now (after a :meth:`~mechanisms.Mechanism.replace`)."""
        return inertia_defaults(self, self.tensors)

    def swing_state(self, which: str = "angle") -> str:
        """Global state name of the swing ``"angle"`` (rad) or ``"rate"`` (rad/s, the
        turntable's inertia state; present when its inertia is not zero)."""
        local = {"angle": "w.phi", "rate": "J.f"}
        if which not in local:
            raise ParameterError(f"swing_state({which!r}): expected 'angle' or 'rate'")
        return f"{self.name}/{self.turntable.name}/{local[which]}"

    def bond_graph(self) -> BondGraph:
        """The front's global bond graph, the turntable, and the swing coupling."""
        self.check()
        tt = self.turntable
        if tt.name in self.parts:
            raise ParameterError(f"turntable {tt.name!r}: a part of the front has the same name")
        plan: dict[str, list] = {}
        frames = _frames(self)
        for name, part in self.parts.items():
            masses = [m for m in _masses(part, frames[name]) if m[0] in part.children]
            rot = "J" in part.children and present(_planar(part))
            plan[name] = [masses, rot]
        shadow = copy.copy(self)
        shadow.__class__ = Mechanism
        shadow.parts = {n: _without(p, [m[0] for m in plan[n][0]] + (["J"] if plan[n][1] else []))
                        for n, p in self.parts.items()}
        bg = Mechanism.bond_graph(shadow)
        bg.add(tt)
        for port, (item, item_port) in self.terminals.items():
            if item.name not in bg.children:
                bg.add(item)
            bg.connect(item.name if item_port is None else f"{item.name}/{item_port}", f"{tt.name}/{port}")
        phi = tt.angle
        cphi, sphi = sp.cos(phi), sp.sin(phi)
        rate = f"{tt.name}/w"
        inertias = self.inertias
        for name, (masses, rot) in plan.items():
            for elem, jx, m, (xw, _yw) in masses:
                r = xw - tt.axis_x
                tag = f"sw_{name}_{elem}"
                for ax, (mv, mw) in {"X": (cphi, -r * sphi), "Z": (sphi, r * cphi)}.items():
                    _velocity(bg, f"{tag}_{ax}", [(f"{name}/{jx}", mv), (rate, mw)], m)
            if rot:
                self._rotation(bg, name, phi, rate, inertias)
        return bg

    def _rotation(self, bg: BondGraph, name: str, phi, rate: str, inertias: dict[str, PartInertia]) -> None:
        part, pi = self.parts[name], inertias[name]
        alpha = _angle(part)
        a = alpha + pi.angle
        ca, sa = sp.cos(a), sp.sin(a)
        cphi, sphi = sp.cos(phi), sp.sin(phi)
        # unit vectors of the principal axes in the inertial frame (X, Y, Z); the plane's
        # (r, y, n) frame maps to X = r·cos φ − n·sin φ, Y = y, Z = r·sin φ + n·cos φ
        axes = {"a": (ca * cphi, sa, ca * sphi), "b": (-sa * cphi, ca, -sa * sphi),
                "n": (-sphi, sp.Integer(0), cphi)}
        for (k, vec), S in zip(axes.items(), pi.second_moments()):
            if not present(S):
                continue
            for comp, g in zip("XYZ", vec):
                terms = [(f"{name}/w", sp.diff(g, alpha)), (rate, sp.diff(g, phi))]
                terms = [(src, mod) for src, mod in terms if mod != 0]
                if terms:
                    _velocity(bg, f"sw_{name}_J{k}_{comp}", terms, S)


def _terminals(turntable: Turntable, terminals: Mapping[str, Any] | None) -> dict[str, tuple]:
    """Checked ``port → (element or component, its port or None)`` for the turntable's ports."""
    from bondgraph.elements import Element

    terminals = dict(terminals or {})
    problems = []
    out = {}
    for port, spec in terminals.items():
        item, item_port = spec if isinstance(spec, tuple) and len(spec) == 2 else (spec, None)
        if port not in turntable.ports:
            problems.append(f"{port}: the turntable has no such port (ports: {', '.join(turntable.ports) or 'none'})")
        elif isinstance(item, Element) and item_port is None:
            out[port] = (item, None)
        elif isinstance(item, BondGraph) and item_port in item.ports:
            out[port] = (item, item_port)
        else:
            problems.append(f"{port}: found {spec!r}, expected an element (Se, Sf...) or (component, its port)")
    for port in turntable.ports:
        if port not in terminals:
            problems.append(f"{port}: not connected; pass terminals={{{port!r}: ...}} (a valve's work port, "
                            "a pressure source, a blocked port Sf(..., 0))")
    if problems:
        raise ParameterError(problems, subject=f"turntable {turntable.name!r}: terminals")
    return out


def _without(part: Part, names: list[str]) -> Part:
    """A shallow copy of a part without the named elements and their bonds (the part itself
    is not modified; the elements and displacement handles are shared)."""
    if not names:
        return part
    clone = copy.copy(part)
    clone.children = {k: v for k, v in part.children.items() if k not in names}
    clone.bonds = [b for b in part.bonds if b.tail.partition("/")[0] not in names
                   and b.head.partition("/")[0] not in names]
    return clone


def _velocity(bg: BondGraph, tag: str, terms: list[tuple[str, Any]], inertia) -> None:
    """A 1-junction ``tag`` whose flow is ``Σ modulus·flow(source)``, with ``inertia`` on it."""
    bg.add(Zero(f"{tag}_s"), One(tag), I(f"{tag}_m", inertia))
    for i, (src, mod) in enumerate(terms):
        tf = f"{tag}_t{i}"
        bg.add(MTF(tf, mod))
        bg.connect(src, f"{tf}/1")
        bg.connect(f"{tf}/2", f"{tag}_s")
    bg.connect(f"{tag}_s", tag)
    bg.connect(tag, f"{tag}_m")


def with_swing(mechanism: Mechanism, turntable: Turntable, *,
               tensors: Mapping[str, Any] | None = None,
               terminals: Mapping[str, Any] | None = None) -> SwingMechanism:
    """The planar front ``mechanism`` riding on ``turntable`` (see the module's notes).

    Parameters
    ----------
    mechanism : Mechanism
        The front, its cylinders driven as for a planar run (it is not modified).
    turntable : Turntable
        The upper structure, its swing drive, bearing and brake.
    tensors : dict, optional
        In-plane inertia tensors of parts (:func:`inertia_defaults`); the others are taken
        as slender along their pin lines.
    terminals : dict, optional
        What the turntable's exposed ports connect to (a swing motor's ``A``, ``B``; a
        ``drive="port"`` turntable's ``M``): port → an element (``Se("p_A", 200e5)``,
        ``Sf("blocked", 0.0)``) or ``(component, its port)``. Every exposed port needs one.

    Returns
    -------
    SwingMechanism

    Raises
    ------
    ParameterError
        A bad tensor; a part of a template the coupling does not know; a turntable port
        without its terminal, or a terminal for no port.

    Examples
    --------
    >>> from components import Turntable
    >>> from mechanisms.examples import single_boom
    >>> swung = with_swing(single_boom("extension"), Turntable("swing", inertia=2.0e4))
    >>> from mechanisms import MechanismModel
    >>> MechanismModel.build(swung).model.report.summary()
    "causality of 'boom_lift': sound; 1 independent states, 4 displacement states, 6 dependent storage elements, 0 algebraic loops, 0 conflicts"
    """
    if not isinstance(mechanism, Mechanism):
        raise ParameterError(f"with_swing: found {type(mechanism).__name__}, expected a Mechanism (the front)")
    if not isinstance(turntable, Turntable):
        raise ParameterError(f"with_swing: found {type(turntable).__name__}, expected a Turntable")
    return SwingMechanism(mechanism, turntable, tensors, terminals)


def swing_inertia(mechanism: SwingMechanism, pose: Pose, *, front_only: bool = False,
                  params: Mapping[str, float] | None = None) -> float:
    """The inertia about the swing axis at a pose (kg·m²): the turntable's (with its motor's
    through the gear, ``i²·J_motor``) plus, for every part, ``Σ m·r²`` of its masses and its rotational inertia about the vertical
    (:meth:`PartInertia.about_vertical`).

    Parameters
    ----------
    mechanism : SwingMechanism
    pose : Pose
        A pose of the front.
    front_only : bool
        Leave the turntable's own inertia out.
    params : dict, optional
        Values of run-time parameters (masses, inertias given as symbols), by name: a
        machine's :attr:`Machine.params <mechanisms.machine.Machine.params>`.

    Raises
    ------
    ParameterError
        A run-time parameter without a value (all of them named).

    Examples
    --------
    >>> from components import Turntable
    >>> from mechanisms.examples import single_boom
    >>> swung = with_swing(single_boom(), Turntable("swing", inertia=0.0, axis_x=-0.164))
    >>> pose = swung.solve_pose({"boom_cyl": 3.2}, guess={"boom": 0.4})
    >>> round(swing_inertia(swung, pose), 1)
    18276.7
    """
    tt = mechanism.turntable
    values = dict(params or {})
    missing: set[str] = set()

    def num(x) -> float:
        x = sp.sympify(x)
        free = {str(f) for f in x.free_symbols if f not in subs}
        missing.update(free - set(values))
        x = x.xreplace({f: sp.Float(values[str(f)]) for f in x.free_symbols if str(f) in values})
        return float(x.xreplace(subs)) if not free - set(values) else 0.0

    subs = {}
    states = pose.states()
    for name, part in mechanism.parts.items():
        for coord, local in part.coordinate_states.items():
            subs[part.coordinates[coord]] = sp.Float(states[f"{mechanism.name}/{name}/{local}"])
    J = 0.0 if front_only else num(tt.inertia) + tt.gear_ratio ** 2 * num(tt.motor_inertia)
    frames = _frames(mechanism)
    inertias = mechanism.inertias
    for name, part in mechanism.parts.items():
        for _e, _j, m, (xw, _yw) in _masses(part, frames[name]):
            J += num(m) * (num(xw) - tt.axis_x) ** 2
        pi = inertias[name]
        a = pose.angle(name) + pi.angle
        J += num(pi.along) * math.sin(a) ** 2 + num(pi.across) * math.cos(a) ** 2
    if missing:
        raise ParameterError([f"run-time parameter {n!r} has no value; pass params={{{n!r}: ...}}"
                              for n in sorted(missing)], subject="swing_inertia")
    return J
