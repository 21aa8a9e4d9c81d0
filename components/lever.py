"""The lever (link) template: a rigid bar with an ``Rt`` and a ``Pr`` point.

Bond graph: root-velocity 1-junctions ``Rx``, ``Ry`` (the ``Rt`` ports);
rotation junction ``w`` with the displacement ``phi`` (axis angle) and the
inertia ``J``; optional centre-of-gravity junctions ``Gx``, ``Gy`` with
``m_x``, ``m_y`` and gravity; the ``Pr`` point's normal (``P_x``) and axial
(``P_y``) components in the lever's own frame:
``v_n = v_R·(sin φ, −cos φ) − L·ω``, ``v_a = v_R·(cos φ, sin φ)``.
The normal component is flow-in (the pushed body sets the swing rate
``ω = (v_R·n̂ − v_n)/L``), the axial one effort-in (the lever passes the axial
force and imposes the axial velocity of its root).

Examples
--------
>>> lk = Lever("link", length=0.674, mass=50.0)
>>> sorted(lk.ports)
['P.x', 'P.y', 'R.x', 'R.y']
"""

from __future__ import annotations


import math

import numpy as np
import sympy as sp

from bondgraph import MTF, I, One, Se, Zero
from bondgraph.checks import Check, number_problems

from .part import Part, as_amount, in_si, numeric_only, pair_in_si, pair_problems, present, raise_problems

__all__ = ["Lever"]


class Lever(Part):
    """A two-pin link.

    Parameters
    ----------
    name : str
    length : float
        Pin-to-pin length (m), > 0.
    mass : float or sympy symbol
        kg (0: massless, the default of the source data); a symbol is a run-time parameter.
    inertia : float or sympy symbol, optional
        About the centre of gravity; default that of a uniform bar ``m·L²/12``.
    cog : (float, float), optional
        Centre of gravity in the lever frame (x along root → Pr); default mid-length.
    gravity : float
        m/s² along −y.
    root, tip : str
        Names of the ``Rt`` and ``Pr`` points (default ``"R"``, ``"P"``).
    phi0 : float
        Initial axis angle (rad).

    Examples
    --------
    >>> link = Lever("link", length="674 mm", mass="50 kg", root="J", tip="N")
    >>> link.inertia == 50 * 0.674**2 / 12, link.points["N"].cls.value    # a uniform bar, Pr at the tip
    (True, 'Pr')
    """

    kind = "lever"

    def __init__(self, name: str, *, length: float, mass: float = 0.0, inertia: float | None = None,
                 cog: tuple[float, float] | None = None, gravity: float = 9.81,
                 root: str = "R", tip: str = "P", phi0: float = 0.0):
        super().__init__(name)
        unit_problems: list[str] = []
        v = in_si({"length": (length, "m"), "mass": (mass, "kg"), "inertia": (inertia, "kg*m^2"),
                   "gravity": (gravity, "m/s^2"), "phi0": (phi0, "rad")}, unit_problems)
        length, mass, inertia, gravity, phi0 = v["length"], v["mass"], v["inertia"], v["gravity"], v["phi0"]
        values = {"length": (length, Check(">0", "m")), "mass": (mass, Check(">=0", "kg")),
                  "gravity": (gravity, Check(">=0", "m/s², acting along −y")),
                  "phi0": (phi0, Check("finite", "rad"))}
        if inertia is not None:
            values["inertia"] = (inertia, Check(">=0", "kg·m²"))
        if cog is not None:
            cog = pair_in_si("cog", cog, unit_problems)
        problems = unit_problems + number_problems("", numeric_only(values))
        if cog is not None:
            problems += pair_problems("cog", cog)
        raise_problems(problems, [], f"lever {name!r}")
        self.length = float(length)
        self.mass = as_amount(mass)
        self.inertia = self.mass * self.length**2 / 12 if inertia is None else as_amount(inertia)
        self.cog = (self.length / 2, 0.0) if cog is None else (float(cog[0]), float(cog[1]))
        self.gravity = as_amount(gravity)
        self._declare_points({root: ("Rt", (0.0, 0.0)), tip: ("Pr", (self.length, 0.0))})
        self.tip = tip
        self._spec = dict(length=self.length, mass=self.mass, inertia=None if inertia is None else self.inertia,
                          cog=None if cog is None else self.cog, gravity=self.gravity, root=root, tip=tip,
                          phi0=float(phi0))
        self._build(phi0)

    def _build(self, phi0: float) -> None:
        w = One("w", displacement="phi", initial=phi0)
        phi = w.displacement
        self.axis_angle = phi
        self.coordinates["phi"] = phi
        self.coordinate_states["phi"] = "w.phi"
        self.add(One("Rx"), One("Ry"), w)
        r = self.root.name
        self.expose(f"{r}.x", "Rx", "flow-in", "Rt: x flow-in")
        self.expose(f"{r}.y", "Ry", "flow-in", "Rt: y flow-in")
        s, c = sp.sin(phi), sp.cos(phi)
        if present(self.mass):
            gx, gy = self.cog
            dx, dy = gx * c - gy * s, gx * s + gy * c
            self.add(Zero("Gx_s"), Zero("Gy_s"), One("Gx"), One("Gy"), MTF("Gx_w", -dy),
                     MTF("Gy_w", dx), I("m_x", self.mass), I("m_y", self.mass))
            for a, b in [("Rx", "Gx_s"), ("w", "Gx_w/1"), ("Gx_w/2", "Gx_s"), ("Gx_s", "Gx"),
                         ("Ry", "Gy_s"), ("w", "Gy_w/1"), ("Gy_w/2", "Gy_s"), ("Gy_s", "Gy"),
                         ("Gx", "m_x"), ("Gy", "m_y")]:
                self.connect(a, b)
            if present(self.gravity):
                self.add(Se("g", -self.mass * self.gravity))
                self.connect("g", "Gy")
        if present(self.inertia):
            self.add(I("J", self.inertia, prefer="state"))
            self.connect("w", "J")
        L = self.length
        mods = {"x": (s, -c, -L), "y": (c, s, None)}
        for ax, (mx, my, mw) in mods.items():
            j = f"{self.tip}_{ax}"
            self.add(Zero(j), MTF(f"{j}_Rx", mx), MTF(f"{j}_Ry", my))
            self.connect("Rx", f"{j}_Rx/1"); self.connect(f"{j}_Rx/2", j)
            self.connect("Ry", f"{j}_Ry/1"); self.connect(f"{j}_Ry/2", j)
            if mw is not None:
                self.add(MTF(f"{j}_w", mw))
                self.connect("w", f"{j}_w/1"); self.connect(f"{j}_w/2", j)
        self.expose(f"{self.tip}.x", f"{self.tip}_x", "flow-in", "Pr: x (normal) flow-in")
        self.expose(f"{self.tip}.y", f"{self.tip}_y", "effort-in", "Pr: y (axial) effort-in")

    # ---------------------------------------------------------------- kinematics
    def pose_size(self) -> int:
        """3: the root pin's x, y (m) and the axis angle φ (rad)."""
        return 3

    def world_points(self, pose, names=None) -> dict[str, tuple]:
        rx, ry, phi = pose
        return {self.root.name: (rx, ry),
                self.tip: (rx + self.length * np.cos(phi), ry + self.length * np.sin(phi))}

    def point_jacobian(self, pose, point: str):
        rx, ry, phi = pose
        if point == self.tip:
            L = self.length
            return np.array([[1.0, 0.0, -L * math.sin(phi)], [0.0, 1.0, L * math.cos(phi)]])
        self.hinge(point)
        return np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])

    def world_cog(self, pose) -> tuple:
        """World position of the centre of gravity at a pose (m; numbers or arrays)."""
        rx, ry, phi = pose
        c, s = np.cos(phi), np.sin(phi)
        return rx + c * self.cog[0] - s * self.cog[1], ry + s * self.cog[0] + c * self.cog[1]

    def pose_from_states(self, root_xy, states):
        return (root_xy[0], root_xy[1], states["phi"])

    def states_from_pose(self, pose) -> dict[str, float]:
        return {"w.phi": float(pose[2])}
