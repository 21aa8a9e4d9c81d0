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
from .part import Part, pair_problems, raise_problems
from .ports import PortClass

__all__ = ["MainBody"]


def _scalar_problems(mass, inertia, gravity, theta0) -> list[str]:
    return number_problems("", {
        "mass": (mass, Check(">=0", "kg")), "inertia": (inertia, Check(">=0", "kg·m²")),
        "gravity": (gravity, Check("finite", "m/s²")), "theta0": (theta0, Check("finite", "rad"))})


class MainBody(Part):
    """A rigid body with one ``Rt``, one ``Pd`` and any number of ``Li`` points.

    Parameters
    ----------
    name : str
    mass : float
        kg (0 allowed: massless).
    inertia : float
        kg·m² about the centre of gravity.
    cog : (float, float)
        Centre of gravity in the body frame.
    points : dict
        ``name -> (class, (x, y))`` in the body frame, class ``"Rt"``, ``"Pd"``
        or ``"Li"``. Use :meth:`from_polar` for the paper's ``(L, α)`` form.
    gravity : float
        m/s², acting along −y (0 to switch off).
    theta0 : float
        Initial frame angle (rad); the mechanism's position analysis sets it.
    """

    kind = "body"

    def __init__(self, name: str, *, mass: float, inertia: float, cog: tuple[float, float],
                 points: Mapping[str, tuple], gravity: float = 9.81, theta0: float = 0.0):
        super().__init__(name)
        numeric = _scalar_problems(mass, inertia, gravity, theta0)
        numeric += pair_problems("cog", cog)
        rules = self._declare_points(points, numeric)
        if not rules and not numeric:
            rules = self.check_rules()
        raise_problems(numeric, rules, f"body {name!r}")
        self.mass, self.inertia = float(mass), float(inertia)
        self.cog = (float(cog[0]), float(cog[1]))
        self.gravity = float(gravity)
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

    def _build(self, theta0: float) -> None:
        w = One("w", displacement="theta", initial=theta0)
        th = w.displacement
        self.coordinates["theta"] = th
        self.coordinate_states["theta"] = "w.theta"
        self.add(One("Rx"), One("Ry"), w)
        root = self.root.name
        self.expose(f"{root}.x", "Rx", "flow-in", "Rt: x flow-in")
        self.expose(f"{root}.y", "Ry", "flow-in", "Rt: y flow-in")
        # centre of gravity
        if self.mass > 0:
            dx, dy = self._offset(None, th)
            self.add(Zero("Gx_s"), Zero("Gy_s"), One("Gx"), One("Gy"),
                     MTF("Gx_w", -dy), MTF("Gy_w", dx))
            self.connect("Rx", "Gx_s"); self.connect("w", "Gx_w/1"); self.connect("Gx_w/2", "Gx_s")
            self.connect("Ry", "Gy_s"); self.connect("w", "Gy_w/1"); self.connect("Gy_w/2", "Gy_s")
            self.connect("Gx_s", "Gx"); self.connect("Gy_s", "Gy")
            self.add(I("m_x", self.mass), I("m_y", self.mass))
            self.connect("Gx", "m_x"); self.connect("Gy", "m_y")
            if self.gravity != 0.0:
                self.add(Se("g", -self.mass * self.gravity))
                self.connect("g", "Gy")
        if self.inertia > 0:
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
        return 3  # frame origin x, y and angle θ

    def world_points(self, pose) -> dict[str, tuple]:
        ox, oy, th = pose
        c, s = np.cos(th), np.sin(th)
        out = {}
        for p in self.points.values():
            x, y = p.local
            out[p.name] = (ox + c * x - s * y, oy + s * x + c * y)
        return out

    def world_cog(self, pose) -> tuple:
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

    def sketch(self, pose) -> list[list[tuple]]:
        pts = list(self.world_points(pose).values())
        if len(pts) < 3:
            return [pts]
        # outline: convex hull of the hinge points
        arr = np.array(pts, dtype=float)
        from scipy.spatial import ConvexHull

        try:
            hull = ConvexHull(arr)
            loop = [tuple(arr[i]) for i in hull.vertices]
            return [loop + [loop[0]]]
        except Exception:  # collinear points
            return [pts]
