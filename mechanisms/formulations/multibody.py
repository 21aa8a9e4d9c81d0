"""The rigid-body view of a mechanism, shared by the stiff-joint and Cartesian formulations.

:class:`Multibody` reads a :class:`~mechanisms.assembly.Mechanism` — the same
parts, pins, hinges and drives the causal bond graph is built from — and
restates it the way a general multibody code sees it:

* **bodies** with absolute coordinates ``(x, y, θ)``: the centre of gravity in
  the world frame and the angle of the body frame;
* **constraints** ``Φ(q) = 0``, one scalar row each, all written from the same
  part geometry: a revolute joint gives two rows (x and y of the pin gap), a
  massless lever one (its length), a cylinder with mass two (a prismatic
  joint: equal angles, no offset normal to the axis), an extension drive one
  (pin-to-pin length minus the prescribed length);
* **actuators**: each cylinder's axial force along its line of action, the
  pin-to-pin distance ``s(q)``; its generalized force is ``F·∂s/∂q``.

How parts map (the design decision for cylinder and lever masses):

============================  ==================================================
part                           rigid-body view
============================  ==================================================
MainBody / FreeBody            one body (mass and inertia must be > 0)
Lever with mass                one body (mass and inertia > 0)
Lever, massless                a distance constraint between its two pins
Cylinder, massless             a line force between its two pins
Cylinder with mass and J       two bodies, barrel (frame at the root pin) and rod
                               (frame at the rod eye), joined by a prismatic
                               joint; the line force acts between their pins.
                               Needs ``m_barrel``, ``m_rod``, ``J_barrel``,
                               ``J_rod`` all > 0.
Cylinder with mass, J = 0      the line force between its pins, and a point mass
                               for the barrel (at ``d_barrel`` from the root pin)
                               and for the rod (``d_rod`` behind the rod eye),
                               each held on the pin-to-pin line by two rows
============================  ==================================================

A massless part cannot be a free body (an inertia of zero in integral
causality, or a singular mass matrix), and a massless two-force member needs
no coordinates of its own; both cases are exact restatements of the causal
templates' physics (compare :class:`~components.Cylinder`, whose barrel and
rod turn together and slide along the axis).

Examples
--------
>>> from mechanisms.examples import four_bar
>>> mb = Multibody(four_bar())
>>> list(mb.bodies), len(mb.constraints), list(mb.actuators)
(['crank', 'coupler', 'rocker'], 8, ['cyl'])
>>> [c.name for c in mb.constraints][:2]
['crank_O1__chassis_x', 'crank_O1__chassis_y']
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping

import numpy as np
import symengine as se
import sympy as sp

from bondgraph import AssemblyError, ConnectionRuleError, ParameterError
from components import Cylinder, Lever, MainBody

from ..assembly import Mechanism, Pose

__all__ = ["Body", "Anchor", "Constraint", "Actuator", "Multibody"]


@dataclass(frozen=True)
class Body:
    """A rigid body with absolute coordinates ``(x, y, θ)`` (CoG and frame angle).

    ``cog`` and ``points`` are in the body frame; ``part`` is the mechanism
    part it belongs to (a cylinder with mass gives two bodies).

    Attributes
    ----------
    name, part : str
    mass : float
        kg.
    inertia : float
        About the centre of gravity (kg·m²).
    cog : (float, float)
    points : dict
        Point → body-frame position (m).
    gravity : float
    point : bool
        A point mass (no angle coordinate).

    Examples
    --------
    >>> from mechanisms.examples import single_boom
    >>> boom = Multibody(single_boom()).bodies["boom"]
    >>> boom.coordinates, boom.masses(), boom.offset(boom.points["C"])
    (('x', 'y', 'theta'), (1307.0, 1307.0, 8060.0), (-3.44, -0.65))
    """

    name: str
    part: str
    mass: float
    inertia: float
    cog: tuple[float, float]
    points: dict[str, tuple[float, float]]
    gravity: float
    point: bool = False

    @property
    def coordinates(self) -> tuple[str, ...]:
        """``("x", "y", "theta")``, or ``("x", "y")`` for a point mass."""
        return ("x", "y") if self.point else ("x", "y", "theta")

    def masses(self) -> tuple[float, ...]:
        """Diagonal of the body's mass matrix, coordinate by coordinate.

        Returns
        -------
        tuple
        """
        return (self.mass, self.mass) if self.point else (self.mass, self.mass, self.inertia)

    def offset(self, local: tuple[float, float]) -> tuple[float, float]:
        """Vector from the centre of gravity to a body-frame point, in the body frame.

        Parameters
        ----------
        local : tuple

        Returns
        -------
        tuple
        """
        return local[0] - self.cog[0], local[1] - self.cog[1]


@dataclass(frozen=True)
class Anchor:
    """A point fixed in a body (``body`` name, body-frame ``local``) or in the
    chassis (``body=None``, ``local`` = world position).

    Attributes
    ----------
    body : str or None
    local : (float, float)
    label : str
        How messages name it.

    Examples
    --------
    >>> from mechanisms.examples import single_boom
    >>> act = Multibody(single_boom()).actuators["boom_cyl"]
    >>> act.root.body, act.tip.label
    (None, 'boom/B')
    """

    body: str | None
    local: tuple[float, float]
    label: str


@dataclass(frozen=True)
class Constraint:
    """One scalar constraint row ``Φ(q) = 0`` (a drive row depends on time through
    the cylinder's prescribed length).

    Attributes
    ----------
    name : str
    joint : str
        The joint (or drive) it belongs to.
    kind : str
        ``"revolute x"``, ``"revolute y"``, ``"distance"``, ``"prismatic normal"``,
        ``"prismatic angle"``, ``"point"``, ``"drive"``.
    expr : sympy expression
        ``Φ`` in the coordinates.
    cylinder : str or None
        The driven cylinder of a drive row.

    Examples
    --------
    >>> from mechanisms.examples import single_boom
    >>> [(c.joint, c.kind) for c in Multibody(single_boom()).constraints]
    [('boom/C–chassis', 'revolute x'), ('boom/C–chassis', 'revolute y')]
    """

    name: str
    joint: str
    kind: str
    expr: sp.Expr
    cylinder: str | None = None


@dataclass(frozen=True)
class Actuator:
    """A cylinder's axial force along the line between its two pins.

    Attributes
    ----------
    cylinder : str
    root, tip : Anchor
    drive : str
        ``"force"`` or ``"extension"``.
    length : sympy expression
        Pin-to-pin length ``s(q)``.

    Examples
    --------
    >>> from mechanisms.examples import single_boom
    >>> act = Multibody(single_boom()).actuators["boom_cyl"]
    >>> act.drive, sorted(str(s) for s in act.length.free_symbols)
    ('force', ['boom.theta', 'boom.x', 'boom.y'])
    """

    cylinder: str
    root: Anchor
    tip: Anchor
    drive: str
    length: sp.Expr


def _sym(name: str) -> sp.Symbol:
    return sp.Symbol(name, real=True)


def _safe(label: str) -> str:
    return label.replace("/", "_").replace(" ", "")


@dataclass
class _Numeric:
    G: object
    hv: object
    s: object
    ds: object
    phi: object


class Multibody:
    """Bodies, constraint rows and actuators of a mechanism (see the module text).

    Parameters
    ----------
    mechanism : Mechanism

    Raises
    ------
    ParameterError
        A part cannot be a rigid body here (zero mass or inertia), a cylinder
        has some masses but not all, or a drive kind is not supported.
    ConnectionRuleError
        Two massless parts are hinged to each other, or a body name clashes.

    Examples
    --------
    A pose's coordinates give back its cylinder length and a closed pivot; released
    from rest the boom starts to turn about its pivot as a pendulum,
    ``θ̈ = −m·g·r_x/(J + m·r²)`` (``r`` from the pivot to the centre of gravity):

    >>> import numpy as np
    >>> from mechanisms.examples import single_boom
    >>> mech = single_boom()
    >>> mb = Multibody(mech)
    >>> q = mb.coordinates_from_pose(mech.solve_pose({"boom_cyl": 3.0}, guess={"boom": 0.2}))
    >>> round(mb.lengths(q)["boom_cyl"], 12), float(mb.joint_gaps(q[None, :])["boom/C–chassis"][0])
    (3.0, 0.0)
    >>> qdd, lam = mb.rigid_solution(q, np.zeros(mb.n_coordinates), forces={"boom_cyl": 0.0})
    >>> b = mb.bodies["boom"]
    >>> dx, dy = b.offset(b.points["C"])
    >>> c, s = np.cos(q[2]), np.sin(q[2])
    >>> rx, ry = -(c * dx - s * dy), -(s * dx + c * dy)
    >>> bool(abs(qdd[2] + b.mass * b.gravity * rx / (b.inertia + b.mass * (rx**2 + ry**2))) < 1e-9)
    True
    >>> v = mb.consistent_velocities(q, {"boom_cyl": 0.1})          # extend at 0.1 m/s
    >>> mb.length_gradients(q) @ v
    array([0.1])
    """

    def __init__(self, mechanism: Mechanism):
        mechanism.check()
        self.mechanism = mechanism
        self.name = mechanism.name
        self.bodies: dict[str, Body] = {}
        self.massless: dict[str, str] = {}
        self.constraints: list[Constraint] = []
        self.actuators: dict[str, Actuator] = {}
        problems: list[str] = []
        for part in mechanism.parts.values():
            self._add_part(part, problems)
        for cyl, d in mechanism.drives.items():
            if d.kind == "external":
                problems.append(f"{cyl}/I: driven by an external component; the stiff and "
                                "Cartesian formulations take a force or an extension drive")
            if d.kind == "force" and d.piston_mass > 0:
                problems.append(f"{cyl}: piston_mass = {d.piston_mass} on the drive; the stiff "
                                "and Cartesian formulations take the cylinder's barrel and rod "
                                "masses instead (piston_mass = 0)")
        if problems:
            raise ParameterError(problems, subject=f"mechanism {self.name!r} as rigid bodies")
        self.coords: list[sp.Symbol] = []
        for b in self.bodies.values():
            self.coords += [_sym(f"{b.name}.{c}") for c in b.coordinates]
        self.index = {s.name: i for i, s in enumerate(self.coords)}
        self._joints(problems)
        if problems:
            raise ConnectionRuleError(problems, subject=f"mechanism {self.name!r} as rigid bodies")
        self._num: _Numeric | None = None

    # ------------------------------------------------------------------ parts
    def _add_body(self, body: Body, problems: list[str]) -> None:
        if body.name in self.bodies:
            problems.append(f"{body.part}: its body name {body.name!r} clashes with a body of "
                            f"part {self.bodies[body.name].part!r}")
            return
        if not (body.mass > 0 and (body.inertia > 0 or body.point)):
            problems.append(f"{body.part}: mass = {body.mass}, inertia = {body.inertia}; a rigid "
                            "body needs both > 0 (massless bodies are only possible in the causal "
                            "formulation)")
            return
        self.bodies[body.name] = body

    def _add_part(self, part, problems: list[str]) -> None:
        if isinstance(part, Cylinder):
            masses = (part.m_barrel, part.m_rod, part.J_barrel, part.J_rod)
            if part.J_barrel == 0 and part.J_rod == 0:  # a line force, plus point masses
                self.massless[part.name] = "cylinder"
                for end, m in (("barrel", part.m_barrel), ("rod", part.m_rod)):
                    if m > 0:
                        self._add_body(Body(f"{part.name}_{end}", part.name, m, 0.0, (0.0, 0.0),
                                            {}, part.gravity, point=True), problems)
                return
            if not all(m > 0 for m in masses):
                problems.append(f"{part.name}: m_barrel = {part.m_barrel}, m_rod = {part.m_rod}, "
                                f"J_barrel = {part.J_barrel}, J_rod = {part.J_rod}; a cylinder is "
                                "massless, point masses (J_barrel = J_rod = 0) or barrel and rod "
                                "bodies (all four > 0)")
                return
            root, tip = part.root.name, part.tip
            self._add_body(Body(f"{part.name}_barrel", part.name, part.m_barrel, part.J_barrel,
                                (part.d_barrel, 0.0), {root: (0.0, 0.0)}, part.gravity), problems)
            self._add_body(Body(f"{part.name}_rod", part.name, part.m_rod, part.J_rod,
                                (-part.d_rod, 0.0), {tip: (0.0, 0.0)}, part.gravity), problems)
        elif isinstance(part, Lever):
            if part.mass == 0 and part.inertia == 0:
                self.massless[part.name] = "lever"
                return
            pts = {n: hp.local for n, hp in part.points.items()}
            self._add_body(Body(part.name, part.name, part.mass, part.inertia, part.cog, pts,
                                part.gravity), problems)
        elif isinstance(part, MainBody):
            pts = {n: hp.local for n, hp in part.points.items()}
            self._add_body(Body(part.name, part.name, part.mass, part.inertia, part.cog, pts,
                                part.gravity), problems)
        else:  # pragma: no cover - Mechanism.add accepts only these
            problems.append(f"{part.name}: {type(part).__name__} has no rigid-body form")

    def _anchor(self, part: str, point: str) -> Anchor | None:
        """The body point a part's hinge point is, or None for a massless part."""
        if part in self.massless:
            return None
        p = self.mechanism.parts[part]
        if isinstance(p, Cylinder):
            if point == p.root.name:
                return Anchor(f"{part}_barrel", (0.0, 0.0), f"{part}/{point}")
            return Anchor(f"{part}_rod", (0.0, 0.0), f"{part}/{point}")
        return Anchor(part, p.hinge(point).local, f"{part}/{point}")

    def _partner(self, part: str, point: str, problems: list[str]) -> Anchor | None:
        """Where a massless part's pin is: the chassis or the body point it is hinged to."""
        at = self.mechanism.fixed.get((part, point))
        if at is not None:
            return Anchor(None, at, f"chassis ({at[0]:g}, {at[1]:g})")
        for a, b in self.mechanism.hinges:
            for mine, other in ((a, b), (b, a)):
                if mine.part == part and mine.name == point:
                    anc = self._anchor(other.part, other.name)
                    if anc is None:
                        problems.append(f"{part}/{point} – {other}: two massless parts hinged "
                                        "together have no body between them")
                    return anc
        problems.append(f"{part}/{point}: not connected")
        return None

    # ------------------------------------------------------------------ geometry
    def point(self, anchor: Anchor) -> tuple[sp.Expr, sp.Expr]:
        """World position of an anchor as expressions of the coordinates.

        Parameters
        ----------
        anchor : Anchor

        Returns
        -------
        tuple
        """
        if anchor.body is None:
            return sp.Float(anchor.local[0]), sp.Float(anchor.local[1])
        b = self.bodies[anchor.body]
        if b.point:
            return _sym(f"{b.name}.x"), _sym(f"{b.name}.y")
        x, y, th = (_sym(f"{b.name}.{c}") for c in ("x", "y", "theta"))
        dx, dy = b.offset(anchor.local)
        c, s = sp.cos(th), sp.sin(th)
        return x + dx * c - dy * s, y + dx * s + dy * c

    def _joints(self, problems: list[str]) -> None:
        mech = self.mechanism
        chassis = []
        for (part, pt), at in mech.fixed.items():
            a = self._anchor(part, pt)
            if a is not None:
                chassis.append((a, Anchor(None, at, "chassis")))
        pairs = []
        for ha, hb in mech.hinges:
            a, b = self._anchor(ha.part, ha.name), self._anchor(hb.part, hb.name)
            if a is not None and b is not None:
                pairs.append((a, b))
        for a, b in chassis + pairs:
            pa, pb = self.point(a), self.point(b)
            name = f"{_safe(a.label)}__{_safe(b.label)}"
            joint = f"{a.label}–{b.label}"
            for ax, ea, eb in (("x", pa[0], pb[0]), ("y", pa[1], pb[1])):
                self.constraints.append(Constraint(f"{name}_{ax}", joint, f"revolute {ax}", ea - eb))
        for part, kind in self.massless.items():
            p = mech.parts[part]
            root = self._partner(part, p.root.name, problems)
            tip = self._partner(part, p.tip, problems)
            if root is None or tip is None:
                continue
            (rx, ry), (tx, ty) = self.point(root), self.point(tip)
            dist = sp.sqrt((tx - rx) ** 2 + (ty - ry) ** 2)
            if kind == "lever":
                self.constraints.append(Constraint(f"{part}_length", f"{part} (lever)", "distance",
                                                   dist - sp.Float(p.length)))
                continue
            self._actuator(part, root, tip, dist)
            for end, base, d in (("barrel", (rx, ry), p.d_barrel), ("rod", (tx, ty), -p.d_rod)):
                if f"{part}_{end}" not in self.bodies:
                    continue
                px, py = self.point(Anchor(f"{part}_{end}", (0.0, 0.0), ""))
                joint = f"{part} ({end} mass on the axis)"
                for ax, pc, bc, dc in (("x", px, base[0], tx - rx), ("y", py, base[1], ty - ry)):
                    self.constraints.append(Constraint(f"{part}_{end}_{ax}", joint, f"on axis {ax}",
                                                       pc - bc - d * dc / dist))
        for part, p in mech.parts.items():
            if isinstance(p, Cylinder) and part not in self.massless:
                b, r = self.bodies[f"{part}_barrel"], self.bodies[f"{part}_rod"]
                thb, thr = _sym(f"{b.name}.theta"), _sym(f"{r.name}.theta")
                A = Anchor(b.name, (0.0, 0.0), f"{part}/{p.root.name}")
                B = Anchor(r.name, (0.0, 0.0), f"{part}/{p.tip}")
                (ax_, ay_), (bx_, by_) = self.point(A), self.point(B)
                joint = f"{part} (barrel–rod)"
                self.constraints.append(Constraint(f"{part}_slide_angle", joint,
                                                   "prismatic angle", thr - thb))
                self.constraints.append(Constraint(
                    f"{part}_slide_offset", joint, "prismatic offset",
                    -sp.sin(thb) * (bx_ - ax_) + sp.cos(thb) * (by_ - ay_)))
                self._actuator(part, A, B, sp.sqrt((bx_ - ax_) ** 2 + (by_ - ay_) ** 2))

    def _actuator(self, cyl: str, root: Anchor, tip: Anchor, length: sp.Expr) -> None:
        d = self.mechanism.drives[cyl]
        self.actuators[cyl] = Actuator(cyl, root, tip, d.kind, length)
        if d.kind == "extension":
            self.constraints.append(Constraint(f"{cyl}_drive", f"{cyl} (drive)", "drive",
                                               length - _sym(f"{cyl}.length"), cyl))

    # ------------------------------------------------------------------ views
    @property
    def n_coordinates(self) -> int:
        """Number of coordinates (3 per body, 2 per point mass)."""
        return len(self.coords)

    def mass_vector(self) -> np.ndarray:
        """Diagonal of the mass matrix, in coordinate order ``(m, m, J)`` per body.

        Returns
        -------
        ndarray
        """
        return np.array([v for b in self.bodies.values() for v in b.masses()])

    def lightest_mass(self) -> float:
        """Smallest body mass (kg).

        Returns
        -------
        float
        """
        return min(b.mass for b in self.bodies.values())

    def gravity_forces(self) -> list[sp.Expr]:
        """Generalized gravity force per coordinate (``−m·g`` on each ``y``).

        Returns
        -------
        list
        """
        out: list[sp.Expr] = []
        for b in self.bodies.values():
            out += [sp.Integer(0), sp.Float(-b.mass * b.gravity)] + [sp.Integer(0)] * (not b.point)
        return out

    def gradient(self, expr: sp.Expr) -> dict[int, sp.Expr]:
        """Non-zero partial derivatives of an expression by coordinate index.

        Parameters
        ----------
        expr : sp.Expr

        Returns
        -------
        dict
        """
        out = {}
        for s in expr.free_symbols:
            i = self.index.get(s.name)
            if i is not None:
                d = sp.diff(expr, s)
                if d != 0:
                    out[i] = d
        return dict(sorted(out.items()))

    # ------------------------------------------------------------------ poses
    def coordinates_from_pose(self, pose: Pose) -> np.ndarray:
        """Coordinate vector ``q`` of an assembled pose.

        Parameters
        ----------
        pose : Pose

        Returns
        -------
        ndarray
        """
        q = np.zeros(self.n_coordinates)
        mech = self.mechanism
        for b in self.bodies.values():
            part = mech.parts[b.part]
            pv = pose.values[b.part]
            if isinstance(part, Cylinder):
                ax, ay, phi, s = pv
                ox, oy = (ax, ay) if b.name.endswith("_barrel") else \
                    (ax + s * math.cos(phi), ay + s * math.sin(phi))
                th = phi
                if b.point:  # on the axis, d_barrel from the root or d_rod behind the eye
                    d = part.d_barrel if b.name.endswith("_barrel") else -part.d_rod
                    ox, oy = ox + d * math.cos(phi), oy + d * math.sin(phi)
            else:
                ox, oy, th = pv
            c, sn = math.cos(th), math.sin(th)
            i = self.index[f"{b.name}.x"]
            vals = (ox + c * b.cog[0] - sn * b.cog[1], oy + sn * b.cog[0] + c * b.cog[1], th)
            q[i:i + len(b.coordinates)] = vals[: len(b.coordinates)]
        return q

    def part_poses(self, q: np.ndarray) -> dict[str, tuple]:
        """Each part's pose (as :class:`~mechanisms.assembly.Pose` stores it) from
        coordinates ``q`` (shape ``(n,)`` or ``(n_times, n)``).

        Parameters
        ----------
        q : ndarray
            Coordinates.

        Returns
        -------
        dict
        """
        q = np.asarray(q, dtype=float)
        col = (lambda i: q[..., i])
        mech = self.mechanism

        def frame(b: Body):
            i = self.index[f"{b.name}.x"]
            x, y, th = col(i), col(i + 1), col(i + 2)
            c, s = np.cos(th), np.sin(th)
            return x - (c * b.cog[0] - s * b.cog[1]), y - (s * b.cog[0] + c * b.cog[1]), th

        def anchor_xy(a: Anchor):
            if a.body is None:
                return np.full(q.shape[:-1], a.local[0]), np.full(q.shape[:-1], a.local[1])
            ox, oy, th = frame(self.bodies[a.body])
            c, s = np.cos(th), np.sin(th)
            return ox + c * a.local[0] - s * a.local[1], oy + s * a.local[0] + c * a.local[1]

        out: dict[str, tuple] = {}
        for name, part in mech.parts.items():
            if isinstance(part, Cylinder):
                if name in self.massless:
                    act = self.actuators[name]
                    (ax, ay), (bx, by) = anchor_xy(act.root), anchor_xy(act.tip)
                else:
                    ax, ay = anchor_xy(Anchor(f"{name}_barrel", (0.0, 0.0), ""))
                    bx, by = anchor_xy(Anchor(f"{name}_rod", (0.0, 0.0), ""))
                out[name] = (ax, ay, np.arctan2(by - ay, bx - ax), np.hypot(bx - ax, by - ay))
            elif name in self.massless:  # lever as a distance constraint
                probs: list[str] = []
                (rx, ry), (tx, ty) = (anchor_xy(self._partner(name, part.root.name, probs)),
                                      anchor_xy(self._partner(name, part.tip, probs)))
                out[name] = (rx, ry, np.arctan2(ty - ry, tx - rx))
            else:
                out[name] = frame(self.bodies[name])
        return out

    # ------------------------------------------------------------------ numbers
    def _numeric(self) -> _Numeric:
        if self._num is None:
            q = [se.Symbol(s.name) for s in self.coords]
            v = [se.Symbol(f"v{i}") for i in range(len(q))]
            L = [se.Symbol(f"{c}.length") for c in self.actuators]
            rows = [se.sympify(c.expr) for c in self.constraints]
            G = [[se.diff(r, qi) for qi in q] for r in rows]
            Gv = [sum((g * vi for g, vi in zip(row, v)), se.Integer(0)) for row in G]
            hv = [sum((se.diff(e, qi) * vi for qi, vi in zip(q, v)), se.Integer(0)) for e in Gv]
            lengths = [se.sympify(a.length) for a in self.actuators.values()]
            ds = [[se.diff(s_, qi) for qi in q] for s_ in lengths]
            args = q + v + L
            flat = lambda m: [e for row in m for e in row]  # noqa: E731
            geometric = [r for r, c in zip(rows, self.constraints) if c.kind != "drive"]
            self._num = _Numeric(
                phi=se.Lambdify(q, geometric or [se.Integer(0)]),
                G=se.Lambdify(args, flat(G) or [se.Integer(0)]),
                hv=se.Lambdify(args, hv or [se.Integer(0)]),
                s=se.Lambdify(args, lengths or [se.Integer(0)]),
                ds=se.Lambdify(args, flat(ds) or [se.Integer(0)]))
        return self._num

    def _args(self, q, v=None, lengths: Mapping[str, float] | None = None) -> np.ndarray:
        v = np.zeros(self.n_coordinates) if v is None else v
        L = [float((lengths or {}).get(c, 0.0)) for c in self.actuators]
        return np.concatenate([q, v, L])

    def constraint_jacobian(self, q: np.ndarray) -> np.ndarray:
        """``∂Φ/∂q`` at ``q`` (rows in :attr:`constraints` order).

        Parameters
        ----------
        q : ndarray
            Coordinates.

        Returns
        -------
        ndarray
        """
        n, m = self.n_coordinates, len(self.constraints)
        if m == 0:
            return np.zeros((0, n))
        return np.asarray(self._numeric().G(self._args(q)), dtype=float).reshape(m, n)

    def lengths(self, q: np.ndarray) -> dict[str, float]:
        """Pin-to-pin length of every cylinder at ``q``.

        Parameters
        ----------
        q : ndarray
            Coordinates.

        Returns
        -------
        dict
        """
        vals = np.asarray(self._numeric().s(self._args(q)), dtype=float).ravel()
        return {c: float(v) for c, v in zip(self.actuators, vals)}

    def length_gradients(self, q: np.ndarray) -> np.ndarray:
        """``∂s/∂q`` of every cylinder (rows in :attr:`actuators` order).

        Parameters
        ----------
        q : ndarray
            Coordinates.

        Returns
        -------
        ndarray
        """
        n, k = self.n_coordinates, len(self.actuators)
        if k == 0:
            return np.zeros((0, n))
        return np.asarray(self._numeric().ds(self._args(q)), dtype=float).reshape(k, n)

    def joint_gaps(self, q: np.ndarray) -> dict[str, np.ndarray]:
        """Position error of every joint along a run (``q`` of shape ``(n_times, n)``).

        A revolute joint reports the distance between its two pins (m), a
        massless lever its length error, a prismatic joint its offset normal
        to the axis (m) and its angle error (rad); drives are not joints.

        Parameters
        ----------
        q : ndarray
            Coordinates.

        Returns
        -------
        dict
        """
        q = np.atleast_2d(np.asarray(q, dtype=float))
        rows = [c for c in self.constraints if c.kind != "drive"]
        if not rows:
            return {}
        fn = self._numeric().phi
        vals = np.array([np.asarray(fn(qi), dtype=float).ravel()[: len(rows)] for qi in q])
        out: dict[str, np.ndarray] = {}
        for j, c in enumerate(rows):
            if c.kind.startswith("revolute"):
                out[c.joint] = np.hypot(out[c.joint], vals[:, j]) if c.joint in out else np.abs(vals[:, j])
            elif c.kind == "prismatic angle":
                out[f"{c.joint} angle"] = np.abs(vals[:, j])
            else:
                out[c.joint] = np.abs(vals[:, j])
        return out

    def consistent_velocities(self, q: np.ndarray, rates: Mapping[str, float] | None = None,
                              tol: float = 1e-9) -> np.ndarray:
        """Velocities ``v`` with ``Φ̇ = 0`` and the given cylinder extension rates.

        Extension-driven cylinders take their prescribed rate, force-driven
        ones ``rates[cyl]`` (default 0). Where the rows leave freedom (free
        bodies), the smallest velocity is taken — at rest, zero.

        Parameters
        ----------
        q : ndarray
            Coordinates.
        rates : mapping, optional
        tol : float, optional

        Returns
        -------
        ndarray

        Raises
        ------
        AssemblyError
            The rates cannot be met (a dead centre: the cylinders do not move
            the mechanism there).
        """
        rates = dict(rates or {})
        G = self.constraint_jacobian(q)
        b = np.zeros(len(self.constraints))
        for i, c in enumerate(self.constraints):
            if c.kind == "drive":
                b[i] = float(rates.get(c.cylinder, 0.0))
        extra_rows, extra_b = [], []
        grads = self.length_gradients(q)
        for k, (cyl, act) in enumerate(self.actuators.items()):
            if act.drive == "force":
                extra_rows.append(grads[k])
                extra_b.append(float(rates.get(cyl, 0.0)))
        A = np.vstack([G] + ([np.array(extra_rows)] if extra_rows else []))
        rhs = np.concatenate([b, extra_b])
        v, *_ = np.linalg.lstsq(A, rhs, rcond=None)
        resid = np.max(np.abs(A @ v - rhs), initial=0.0)
        if resid > tol * max(1.0, np.max(np.abs(rhs), initial=0.0)):
            raise AssemblyError(f"{self.name}: no velocities meet the cylinder rates "
                                f"{rates} (residual {resid:.3g}); the pose may be at a dead centre")
        return v

    def rigid_solution(self, q: np.ndarray, v: np.ndarray, forces: Mapping[str, float] | None = None,
                       lengths: Mapping[str, tuple[float, float, float]] | None = None
                       ) -> tuple[np.ndarray, np.ndarray]:
        """Accelerations and multipliers of the rigid system at one state.

        Solves ``[M Φ_qᵀ; Φ_q 0]·[q̈; λ] = [Q; γ]`` with gravity and the given
        cylinder ``forces`` in ``Q``; ``lengths[cyl] = (L, L̇, L̈)`` for
        extension drives. ``λ`` is the force each constraint row carries (the
        generalized constraint force is ``−Φ_qᵀ·λ``); for a drive row it is
        minus the cylinder force.

        Returns
        -------
        (q̈, λ)

        Parameters
        ----------
        q : ndarray
            Coordinates.
        v : ndarray
            Velocities.
        forces : mapping, optional
        lengths : mapping, optional
        """
        forces, lengths = dict(forces or {}), dict(lengths or {})
        n, m = self.n_coordinates, len(self.constraints)
        Lval = {c: val[0] for c, val in lengths.items()}
        args = self._args(q, v, Lval)
        G = self.constraint_jacobian(q)
        hv = np.asarray(self._numeric().hv(args), dtype=float).ravel()[:m]
        Q = np.array([float(e) for e in self.gravity_forces()])
        grads = self.length_gradients(q)
        for k, (cyl, act) in enumerate(self.actuators.items()):
            if act.drive == "force":
                Q += float(forces.get(cyl, 0.0)) * grads[k]
        gamma = -hv
        for i, c in enumerate(self.constraints):
            if c.kind == "drive":
                gamma[i] += float(lengths[c.cylinder][2])
        K = np.zeros((n + m, n + m))
        K[:n, :n] = np.diag(self.mass_vector())
        K[:n, n:] = G.T
        K[n:, :n] = G
        sol = np.linalg.solve(K, np.concatenate([Q, gamma]))
        return sol[:n], sol[n:]
