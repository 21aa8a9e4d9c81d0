"""The main-body template (boom, arm, bucket, rocker...).

Bond graph (all names local to the body):

* ``Rx``, ``Ry`` — 1-junctions of the root velocity; they *are* the ``Rt``
  ports (flow-in: the parent or the chassis imposes the root velocity);
* ``w`` — 1-junction of the angular velocity, with the displacement state
  ``theta`` (the body frame's angle) and the inertia ``J`` about the centre of
  gravity;
* ``Gx``, ``Gy`` — 1-junctions of the centre-of-gravity velocity with the
  inertias ``m_x``, ``m_y`` and gravity ``g`` (``Se = −m·g`` on ``Gy``), reached
  from the root through the 0-junctions ``Gx_s``, ``Gy_s`` and MTFs from ``w``;
* for every other point ``P``: 0-junctions ``P_x``, ``P_y`` summing the root
  velocity and ``ω × r`` through MTFs; for the ``Pd`` point the two components
  are taken in the frame of the part it connects to (normal ``P_x``, axial
  ``P_y``; see :mod:`components.ports`), whose angle is bound at connection.

Moduli are written with the paper's ``(L, α)`` pairs about the centre of
gravity: the x/y offsets of point ``P`` from the root are
``L_P·cos(α_P+θ) − L_Rt·cos(α_Rt+θ)`` and likewise with ``sin``, so each MTF
modulus is a difference of the paper's ``−L·sin(α+θ)`` / ``L·cos(α+θ)`` terms.

Examples
--------
>>> import math
>>> boom = MainBody.from_polar("boom", mass=1.0, inertia=1.0, points={
...     "C": ("Rt", 3.020, math.radians(258)), "B": ("Pd", 0.591, math.radians(231)),
...     "D": ("Li", 0.367, math.radians(91)), "F": ("Li", 3.020, math.radians(40))})
>>> pts = boom.world_points((0.0, 0.0, 0.0))   # frame at the CoG, θ = 0
>>> round(math.dist(pts["C"], pts["F"]), 4)
5.7109
"""

from __future__ import annotations

import math
from typing import Mapping

import numpy as np
import sympy as sp

from bondgraph import MTF, I, One, Se, Zero
from bondgraph.checks import Check, number_problems

from .geometry import polar_from_cog
from .part import Part, as_amount, in_si, numeric_only, pair_in_si, pair_problems, present, raise_problems
from .ports import PortClass

__all__ = ["MainBody"]


def _scalar_problems(mass, inertia, gravity, theta0) -> list[str]:
    """Numbers checked; symbols (run-time parameters) are checked where their values are given.
    Gravity acts along −y: a negative value would pull upwards (turn the frame instead)."""
    return number_problems("", numeric_only({
        "mass": (mass, Check(">=0", "kg")), "inertia": (inertia, Check(">=0", "kg·m²")),
        "gravity": (gravity, Check(">=0", "m/s², acting along −y")),
        "theta0": (theta0, Check("finite", "rad"))}))


class MainBody(Part):
    """A rigid body with one ``Rt``, one ``Pd`` and any number of ``Li`` points.

    Parameters
    ----------
    name : str
    mass : float or sympy symbol
        kg (0 allowed: massless). A symbol makes it a run-time parameter of the
        compiled model (give its value to ``build(..., params)``).
    inertia : float or sympy symbol
        kg·m² about the centre of gravity.
    cog : (float, float)
        Centre of gravity in the body frame.
    points : dict
        ``name -> (class, (x, y))`` in the body frame, class ``"Rt"``, ``"Pd"``
        or ``"Li"`` (spelled exactly so). Use :meth:`from_polar` for the paper's
        ``(L, α)`` form.
    gravity : float or sympy symbol
        m/s² ≥ 0, acting along −y of the *world* frame (0 to switch off).
    theta0 : float
        Initial frame angle (rad); the mechanism's position analysis sets it.
    point_masses : dict, optional
        ``name -> (mass, (x, y))``: extra point masses carried by the body (a payload),
        each on centre-of-gravity junctions of its own so that its mass stays a
        run-time parameter; ``(x, y)`` in the body frame.

    Notes
    -----
    A body's velocities and forces are in the world frame (x forward, y up); the body
    frame only places its points: its origin and orientation are the pose
    ``(ox, oy, θ)`` of :meth:`world_points`, θ measured from the world x axis.

    Examples
    --------
    >>> boom = MainBody("boom", mass="1307 kg", inertia="8060 kg*m^2", cog=("3.44 m", "0.65 m"),
    ...                 points={"C": ("Rt", (0, 0)), "B": ("Pd", ("2.85 m", "1.18 m")),
    ...                         "F": ("Li", "7.11 m", "0 m")})
    >>> boom.mass, sorted(boom.ports)
    (1307.0, ['B.x', 'B.y', 'C.x', 'C.y', 'F.x', 'F.y'])
    >>> x, y = boom.world_points((0.0, 0.0, math.pi / 2))["F"]      # turned 90°: F straight up
    >>> round(float(x), 12), round(float(y), 12)
    (0.0, 7.11)
    """

    kind = "body"

    def __init__(self, name: str, *, mass, inertia, cog: tuple[float, float],
                 points: Mapping[str, tuple], gravity=9.81, theta0: float = 0.0,
                 point_masses: Mapping[str, tuple] | None = None):
        super().__init__(name)
        unit_problems: list[str] = []
        v = in_si({"mass": (mass, "kg"), "inertia": (inertia, "kg*m^2"), "gravity": (gravity, "m/s^2"),
                   "theta0": (theta0, "rad")}, unit_problems)
        mass, inertia, gravity, theta0 = v["mass"], v["inertia"], v["gravity"], v["theta0"]
        cog = pair_in_si("cog", cog, unit_problems)
        numeric = unit_problems + _scalar_problems(mass, inertia, gravity, theta0)
        numeric += pair_problems("cog", cog)
        self.point_masses: dict[str, tuple] = {}
        for pm, spec in (point_masses or {}).items():
            try:
                m, xy = spec
            except (TypeError, ValueError):
                numeric.append(f"point mass {pm!r}: found {spec!r}, expected (mass, (x, y))")
                continue
            label = f"point mass {pm!r}"
            bad: list[str] = []
            m = in_si({label: (m, "kg")}, bad)[label]        # "450 kg" as the body's own mass
            xy = pair_in_si(f"{label} position", xy, bad)
            bad += number_problems("", numeric_only({label: (m, Check(">=0", "kg"))}))
            bad += pair_problems(f"{label} position", xy)
            numeric += bad
            if not bad:
                self.point_masses[pm] = (as_amount(m), (float(xy[0]), float(xy[1])))
        rules = self._declare_points(points, numeric)
        if not rules and not numeric:
            rules = self.check_rules()
        raise_problems(numeric, rules, f"body {name!r}")
        self.mass, self.inertia = as_amount(mass), as_amount(inertia)
        self.cog = (float(cog[0]), float(cog[1]))
        self.gravity = as_amount(gravity)
        self._spec = dict(mass=self.mass, inertia=self.inertia, cog=self.cog,
                          points={n: (p.cls.value, p.local) for n, p in self.points.items()},
                          gravity=self.gravity, theta0=float(theta0), point_masses=dict(self.point_masses))
        self._build(theta0)

    @classmethod
    def from_polar(cls, name: str, *, mass: float, inertia: float,
                   points: Mapping[str, tuple], gravity: float = 9.81,
                   theta0: float = 0.0) -> "MainBody":
        """Body from the paper's form: ``name -> (class, L, α)`` about the CoG (m, rad).

        The body frame then has its origin at the centre of gravity.
        """
        if not isinstance(points, Mapping):  # reported by the constructor
            return cls(name, mass=mass, inertia=inertia, cog=(0.0, 0.0), points=points,
                       gravity=gravity, theta0=theta0)
        local, numeric, rules = {}, [], []
        for pname, spec in points.items():
            try:
                c, L, a = spec
            except (TypeError, ValueError):
                rules.append(f"{name}/{pname}: spec {spec!r}, expected (class, L, alpha)")
                continue
            bad = number_problems(f"point {pname!r}", {"L": (L, Check(">=0", "m")),
                                                        "alpha": (a, Check("finite", "rad"))})
            numeric += bad
            if not bad:
                local[pname] = (c, (float(L) * math.cos(a), float(L) * math.sin(a)))
        if numeric or rules:
            numeric += _scalar_problems(mass, inertia, gravity, theta0)
            raise_problems(numeric, rules, f"body {name!r}")
        return cls(name, mass=mass, inertia=inertia, cog=(0.0, 0.0), points=local,
                   gravity=gravity, theta0=theta0)

    # ---------------------------------------------------------------- bond graph
    def polar(self, point: str) -> tuple[float, float]:
        """``(L, α)`` of a point about the centre of gravity (m, rad)."""
        return polar_from_cog(self.hinge(point).local, self.cog)

    def _offset(self, point: str | None, theta) -> tuple[sp.Expr, sp.Expr]:
        """World-frame offset root → point (``point=None``: the CoG), as expressions.

        ``L_P·cos(α_P+θ) − L_Rt·cos(α_Rt+θ)`` (and the ``sin`` twin) is written as the
        rotation by ``θ`` of the constant body-frame vector from the root to the
        point, so each body costs one ``sin θ`` and one ``cos θ``.
        """
        Lr, ar = self.polar(self.root.name)
        Lp, ap = (0.0, 0.0) if point is None else self.polar(point)
        ux = Lp * math.cos(ap) - Lr * math.cos(ar)
        uy = Lp * math.sin(ap) - Lr * math.sin(ar)
        c, s = sp.cos(theta), sp.sin(theta)
        return ux * c - uy * s, ux * s + uy * c

    def _offset_local(self, local: tuple[float, float], theta) -> tuple[sp.Expr, sp.Expr]:
        """World-frame offset root → a body-frame point, as expressions."""
        rx, ry = self.root.local
        ux, uy = local[0] - rx, local[1] - ry
        c, s = sp.cos(theta), sp.sin(theta)
        return ux * c - uy * s, ux * s + uy * c

    def _mass_at(self, tag: str, mass, offset) -> None:
        """Inertias ``m`` in x and y (and gravity) on junctions at ``offset`` from the root."""
        dx, dy = offset
        gx, gy = f"{tag}Gx", f"{tag}Gy"
        self.add(Zero(f"{gx}_s"), Zero(f"{gy}_s"), One(gx), One(gy),
                 MTF(f"{gx}_w", -dy), MTF(f"{gy}_w", dx))
        self.connect("Rx", f"{gx}_s"); self.connect("w", f"{gx}_w/1"); self.connect(f"{gx}_w/2", f"{gx}_s")
        self.connect("Ry", f"{gy}_s"); self.connect("w", f"{gy}_w/1"); self.connect(f"{gy}_w/2", f"{gy}_s")
        self.connect(f"{gx}_s", gx); self.connect(f"{gy}_s", gy)
        self.add(I(f"{tag}m_x", mass), I(f"{tag}m_y", mass))
        self.connect(gx, f"{tag}m_x"); self.connect(gy, f"{tag}m_y")
        if present(self.gravity):
            self.add(Se(f"{tag}g", -mass * self.gravity))
            self.connect(f"{tag}g", gy)

    def _build(self, theta0: float) -> None:
        w = One("w", displacement="theta", initial=theta0)
        th = w.displacement
        self.coordinates["theta"] = th
        self.coordinate_states["theta"] = "w.theta"
        self.add(One("Rx"), One("Ry"), w)
        root = self.root.name
        self.expose(f"{root}.x", "Rx", "flow-in", "Rt: x flow-in")
        self.expose(f"{root}.y", "Ry", "flow-in", "Rt: y flow-in")
        # centre of gravity, then the point masses
        if present(self.mass):
            self._mass_at("", self.mass, self._offset(None, th))
        for pm, (m, xy) in self.point_masses.items():
            if present(m):
                self._mass_at(f"{pm}_", m, self._offset_local(xy, th))
        if present(self.inertia):
            self.add(I("J", self.inertia, prefer="state"))
            self.connect("w", "J")
        # hinge points
        for p in self.points.values():
            if p.cls is PortClass.RT:
                continue
            dx, dy = self._offset(p.name, th)
            if p.cls is PortClass.LI:
                self.add(Zero(f"{p.name}_x"), Zero(f"{p.name}_y"),
                         MTF(f"{p.name}_xw", -dy), MTF(f"{p.name}_yw", dx))
                self.connect("Rx", f"{p.name}_x")
                self.connect("w", f"{p.name}_xw/1"); self.connect(f"{p.name}_xw/2", f"{p.name}_x")
                self.connect("Ry", f"{p.name}_y")
                self.connect("w", f"{p.name}_yw/1"); self.connect(f"{p.name}_yw/2", f"{p.name}_y")
                self.expose(f"{p.name}.x", f"{p.name}_x", "effort-in", "Li: x effort-in")
                self.expose(f"{p.name}.y", f"{p.name}_y", "effort-in", "Li: y effort-in")
            else:  # Pd, in the frame of the part that pushes it
                phi = self.placeholder(sp.Dummy(f"{self.name}.{p.name}.phi", real=True),
                                       f"{self.name}/{p.name} (Pd): its frame is the axis of the "
                                       "Pr part connected to it; connect a Pr")
                self.pd_frame = phi
                s, c = sp.sin(phi), sp.cos(phi)
                # normal x' = (sin φ, −cos φ), axial y' = (cos φ, sin φ); ω×r = ω(−dy, dx)
                mods = {
                    "x": (s, -c, -dy * s - dx * c),
                    "y": (c, s, -dy * c + dx * s),
                }
                for ax, (mx, my, mw) in mods.items():
                    j = f"{p.name}_{ax}"
                    self.add(Zero(j), MTF(f"{j}_Rx", mx), MTF(f"{j}_Ry", my), MTF(f"{j}_w", mw))
                    self.connect("Rx", f"{j}_Rx/1"); self.connect(f"{j}_Rx/2", j)
                    self.connect("Ry", f"{j}_Ry/1"); self.connect(f"{j}_Ry/2", j)
                    self.connect("w", f"{j}_w/1"); self.connect(f"{j}_w/2", j)
                self.expose(f"{p.name}.x", f"{p.name}_x", "effort-in", "Pd: x (normal) effort-in")
                self.expose(f"{p.name}.y", f"{p.name}_y", "flow-in", "Pd: y (axial) flow-in")

    # ---------------------------------------------------------------- kinematics
    def pose_size(self) -> int:
        """3: the frame origin's x, y (m) and the frame angle θ (rad)."""
        return 3

    def world_points(self, pose, names=None) -> dict[str, tuple]:
        ox, oy, th = pose
        c, s = np.cos(th), np.sin(th)
        out = {}
        for p in (self.points.values() if names is None else [self.points[n] for n in names]):
            x, y = p.local
            out[p.name] = (ox + c * x - s * y, oy + s * x + c * y)
        return out

    def point_jacobian(self, pose, point: str):
        ox, oy, th = pose
        x, y = self.hinge(point).local
        c, s = math.cos(th), math.sin(th)
        return np.array([[1.0, 0.0, -s * x - c * y], [0.0, 1.0, c * x - s * y]])

    def world_cog(self, pose) -> tuple:
        """World position of the centre of gravity at a pose (m; numbers or arrays)."""
        ox, oy, th = pose
        c, s = np.cos(th), np.sin(th)
        return ox + c * self.cog[0] - s * self.cog[1], oy + s * self.cog[0] + c * self.cog[1]

    def pose_from_states(self, root_xy, states):
        th = states["theta"]
        rx, ry = self.root.local
        c, s = np.cos(th), np.sin(th)
        return (root_xy[0] - (c * rx - s * ry), root_xy[1] - (s * rx + c * ry), th)

    def states_from_pose(self, pose) -> dict[str, float]:
        return {"w.theta": float(pose[2])}

    def outline(self) -> tuple[int, ...] | None:
        """Indices (in ``points`` order) of the hinge points on the body's outline, the
        convex hull of its points, counter-clockwise; ``None`` when there is none (fewer
        than three points, or all on one line).

        The same at every pose (the body is rigid): found once from the points in the
        body's own frame and kept on the body and in the cache folder
        (:func:`components.outline.hull_order`).

        Examples
        --------
        >>> body = MainBody("plate", mass=1.0, inertia=1.0, cog=(0.5, 0.3), points={
        ...     "C": ("Rt", (0.0, 0.0)), "B": ("Pd", (1.0, 0.0)), "D": ("Li", (0.4, 0.2)),
        ...     "F": ("Li", (0.5, 1.0))})
        >>> [list(body.points)[i] for i in body.outline()]        # D lies inside
        ['C', 'B', 'F']
        """
        local = np.array([p.local for p in self.points.values()], dtype=float).reshape(-1, 2)
        key = local.tobytes()
        kept = getattr(self, "_outline", None)
        if kept is None or kept[0] != key:
            from .outline import hull_order

            kept = self._outline = (key, hull_order(local))
        return kept[1]

    def sketch(self, pose) -> list[list[tuple]]:
        pts = list(self.world_points(pose).values())
        order = self.outline() if len(pts) >= 3 else None
        if order is None:          # fewer than three points, or on one line: a polyline
            return [pts]
        # outline: the convex hull of the hinge points, its vertices found once (outline())
        loop = [pts[i] for i in order]
        return [loop + [loop[0]]]
