"""The hydraulic cylinder template, mechanical side: barrel, rod and three ports.

Bond graph: root-velocity 1-junctions ``Rx``, ``Ry`` (``Rt``); the swing
junction ``w`` with the axis angle ``phi`` as displacement state; the
extension junction ``ext`` (flow ``ṡ``) with the pin-to-pin length ``s`` as
displacement state — this junction is the ``I`` port that the hydraulic side
(or a prescribed force or extension) drives, flow-in. The rod eye ``Pr`` has
its components in the cylinder frame: normal
``v_n = v_R·(sin φ, −cos φ) − s·φ̇`` (flow-in: the pushed body sets the swing)
and axial ``v_a = v_R·(cos φ, sin φ) + ṡ`` (effort-in: the cylinder sets the
axial velocity and takes the axial force).

The barrel (mass ``m_barrel``, centre of gravity ``d_barrel`` from the root pin
along the axis, inertia ``J_barrel``) and the rod with piston (``m_rod`` at
``d_rod`` behind the rod eye, ``J_rod``) have their inertias on
centre-of-gravity junctions; all of them end up in derivative causality, which
is how their mass reaches the mechanism's mass matrix.

Examples
--------
>>> cyl = Cylinder("boom_cyl", retracted=2.48, stroke=1.25)
>>> sorted(cyl.ports)
['A.x', 'A.y', 'B.x', 'B.y', 'I']
>>> cyl.length_limits
(2.48, 3.73)
"""

from __future__ import annotations

import math
import re
from typing import Any, Mapping

import numpy as np
import sympy as sp

from bondgraph import MTF, I, One, Se, Zero
from bondgraph.checks import Check, number_problems
from bondgraph.errors import ConnectionRuleError

from .cylinder_keys import DEFAULT_HARDENING, END_STOP_KEYS, FRICTION_KEYS, HYDRAULIC_DATA
from .geometry import Pathway
from .part import Part, as_amount, in_si, numeric_only, present, raise_problems

__all__ = ["Cylinder", "HYDRAULIC_DATA", "FRICTION_KEYS", "END_STOP_KEYS", "DEFAULT_HARDENING"]



class Cylinder(Part):
    """Linear actuator between a root pin and a rod-eye pin.

    Parameters
    ----------
    name : str
    retracted : float
        Pin-to-pin length fully retracted (m).
    stroke : float
        Stroke (m); the length runs from ``retracted`` to ``retracted + stroke``.
    m_barrel, m_rod : float or sympy symbol
        Masses (kg), default 0 (massless, as in the source data); a symbol is a
        run-time parameter of the compiled model.
    d_barrel, d_rod : float, optional
        Centre of gravity of the barrel measured from the root pin (base), and of the
        rod (with its piston) measured back from the rod eye, both along the axis (m).
        Default: a quarter of the retracted length each — the barrel's centre a
        quarter of the way out from the base, the rod's a quarter of the way in from
        the eye (a rough split for a cylinder whose rod is as long as its barrel).
    J_barrel, J_rod : float or sympy symbol
        Inertias about their centres of gravity (kg·m²).
    gravity : float
    root, tip : str
        Names of the ``Rt`` and ``Pr`` points (default ``"A"``, ``"B"``).
    phi0, s0 : float
        Initial axis angle and length (set by the position analysis).
    function : str, optional
        The machine function the cylinder serves (``"boom"``, ``"lift"``): a machine's
        read-outs, cycles and valves are named by it. Default: the cylinder's name.
    count : int
        Identical cylinders working in parallel as this one part (default 1): the masses
        above are their totals, the areas of ``bore``/``rod`` are multiplied by it.
    bore, rod : float or str, optional
        Piston and rod diameters (m, or text with a unit: ``"135 mm"``). Not used by the
        mechanical model; a :class:`~mechanisms.machine.Machine` made from the mechanism
        needs them (pressures, the hydraulic circuit).
    dead_volume_cap, dead_volume_rod, leakage_internal, leakage_external : optional
        Hydraulic data as in a machine file's cylinder table (m³, m³/(s·Pa)); the
        machine file's defaults when not given.
    friction : dict, optional
        Seal friction for the hydraulic circuit, keys of :data:`FRICTION_KEYS` with units
        (``{"coulomb": "1 kN", "viscous": "5000 N*s/m"}``).
    end_stop : dict, optional
        The stroke-end stops, keys of :data:`END_STOP_KEYS` with units; default: the
        documented defaults (1e9 N/m, 1e6 N·s/m, no cushion; on a force drive the spring
        hardens over 1 mm). :meth:`end_stop` gives the stop a drive uses.

    Examples
    --------
    >>> boom_cyl = Cylinder("boom_cylinder", retracted="2.48 m", stroke="1.25 m", count=2,
    ...                     bore="135 mm", rod="50 mm", m_rod="20 kg", function="boom")
    >>> boom_cyl.length_limits, boom_cyl.function, boom_cyl.hydraulics["bore"]
    ((2.48, 3.73), 'boom', 0.135)
    >>> boom_cyl.pathway((0.0, 0.0, 0.0, 3.0)).length     # pose: root x, y, axis angle, length
    3.0
    """

    kind = "cylinder"

    def __init__(self, name: str, *, retracted: float, stroke: float, m_barrel: float = 0.0,
                 m_rod: float = 0.0, d_barrel: float | None = None, d_rod: float | None = None,
                 J_barrel: float = 0.0, J_rod: float = 0.0, gravity: float = 9.81,
                 root: str = "A", tip: str = "B", phi0: float = 0.0, s0: float | None = None,
                 function: str | None = None, count: int = 1, bore: float | str | None = None,
                 rod: float | str | None = None, dead_volume_cap: float | str | None = None,
                 dead_volume_rod: float | str | None = None, leakage_internal: float | str | None = None,
                 leakage_external: float | str | None = None, friction: Mapping[str, Any] | None = None,
                 end_stop: Mapping[str, Any] | None = None):
        super().__init__(name)
        unit_problems: list[str] = []
        hyd, hyd_problems = _hydraulic_data(name, function, count, dict(
            bore=bore, rod=rod, dead_volume_cap=dead_volume_cap, dead_volume_rod=dead_volume_rod,
            leakage_internal=leakage_internal, leakage_external=leakage_external), friction, end_stop)
        v = in_si({"retracted": (retracted, "m"), "stroke": (stroke, "m"), "m_barrel": (m_barrel, "kg"),
                   "m_rod": (m_rod, "kg"), "d_barrel": (d_barrel, "m"), "d_rod": (d_rod, "m"),
                   "J_barrel": (J_barrel, "kg*m^2"), "J_rod": (J_rod, "kg*m^2"),
                   "gravity": (gravity, "m/s^2"), "phi0": (phi0, "rad"), "s0": (s0, "m")}, unit_problems)
        retracted, stroke, m_barrel, m_rod = v["retracted"], v["stroke"], v["m_barrel"], v["m_rod"]
        d_barrel, d_rod, J_barrel, J_rod = v["d_barrel"], v["d_rod"], v["J_barrel"], v["J_rod"]
        gravity, phi0, s0 = v["gravity"], v["phi0"], v["s0"]
        values = {"retracted": (retracted, Check(">0", "m")), "stroke": (stroke, Check(">0", "m")),
                  "m_barrel": (m_barrel, Check(">=0", "kg")), "m_rod": (m_rod, Check(">=0", "kg")),
                  "J_barrel": (J_barrel, Check(">=0", "kg·m²")), "J_rod": (J_rod, Check(">=0", "kg·m²")),
                  "gravity": (gravity, Check(">=0", "m/s², acting along −y")),
                  "phi0": (phi0, Check("finite", "rad"))}
        for pname, v in (("d_barrel", d_barrel), ("d_rod", d_rod), ("s0", s0)):
            if v is not None:
                values[pname] = (v, Check("finite", "m"))
        raise_problems(unit_problems + number_problems("", numeric_only(values)) + hyd_problems, [],
                       f"cylinder {name!r}")
        self.retracted, self.stroke = float(retracted), float(stroke)
        self.m_barrel, self.m_rod = as_amount(m_barrel), as_amount(m_rod)
        self.d_barrel = float(retracted / 4 if d_barrel is None else d_barrel)
        self.d_rod = float(retracted / 4 if d_rod is None else d_rod)
        self.J_barrel, self.J_rod = as_amount(J_barrel), as_amount(J_rod)
        self.gravity = as_amount(gravity)
        self.tip = tip
        #: hydraulic data for the machine layer (SI, only what was given; ``count`` always)
        self.hydraulics: dict[str, Any] = hyd
        self._function = function
        self._declare_points({root: ("Rt", (0.0, 0.0)), tip: ("Pr", (self.retracted, 0.0))})
        self._spec = dict(retracted=self.retracted, stroke=self.stroke, m_barrel=self.m_barrel,
                          m_rod=self.m_rod, d_barrel=self.d_barrel, d_rod=self.d_rod,
                          J_barrel=self.J_barrel, J_rod=self.J_rod, gravity=self.gravity, root=root,
                          tip=tip, phi0=float(phi0), s0=None if s0 is None else float(s0),
                          function=function, count=hyd["count"],
                          **{k: hyd.get(k) for k in HYDRAULIC_DATA},
                          friction=hyd.get("friction"), end_stop=hyd.get("end_stop"))
        self._build(phi0, self.retracted if s0 is None else s0)

    @property
    def function(self) -> str:
        """The machine function this cylinder serves (default its name)."""
        return self._function or self.name

    def end_stop(self, hydraulic: bool = False):
        """The :class:`~components.hydraulics.EndStop` of this cylinder's ``end_stop`` data.

        ``hydraulic=False`` (a force drive): stiffness and damping, the spring hardening
        over ``hardening_length`` (default :data:`DEFAULT_HARDENING`), no cushion (the
        cushion throttles oil: a hydraulic effect). ``hydraulic=True``: stiffness, damping
        and the cushion, a linear spring.

        Examples
        --------
        >>> Cylinder("c", retracted=1.0, stroke=0.5).end_stop()
        EndStop(stiffness=1000000000.0, damping=1000000.0, cushion_length=0.0, cushion_damping=0.0, hardening_length=0.001)
        >>> Cylinder("c", retracted=1.0, stroke=0.5, end_stop={"stiffness": "2e8 N/m"}).end_stop().stiffness
        200000000.0
        """
        from .hydraulics import EndStop

        es = {k: v[2] for k, v in END_STOP_KEYS.items()}
        es.update(self.hydraulics.get("end_stop") or {})
        if hydraulic:
            return EndStop(es["stiffness"], es["damping"], es["cushion_length"], es["cushion_damping"])
        return EndStop(es["stiffness"], es["damping"],
                       hardening_length=es["hardening_length"] or DEFAULT_HARDENING)

    @property
    def length_limits(self) -> tuple[float, float]:
        """Shortest and longest pin-to-pin length (m)."""
        return self.retracted, self.retracted + self.stroke

    def _build(self, phi0: float, s0: float) -> None:
        w = One("w", displacement="phi", initial=phi0)
        ext = One("ext", displacement="s", initial=s0)
        phi, s_ = w.displacement, ext.displacement
        self.axis_angle, self.length_symbol = phi, s_
        self.coordinates.update(phi=phi, s=s_)
        self.coordinate_states.update(phi="w.phi", s="ext.s")
        self.add(One("Rx"), One("Ry"), w, ext)
        r = self.root.name
        self.expose(f"{r}.x", "Rx", "flow-in", "Rt: x flow-in")
        self.expose(f"{r}.y", "Ry", "flow-in", "Rt: y flow-in")
        self.expose("I", "ext", "flow-in", "I: extension rate flow-in")
        sn, cs = sp.sin(phi), sp.cos(phi)
        # rod eye
        for ax, (mx, my, mw) in {"x": (sn, -cs, -s_), "y": (cs, sn, None)}.items():
            j = f"{self.tip}_{ax}"
            self.add(Zero(j), MTF(f"{j}_Rx", mx), MTF(f"{j}_Ry", my))
            self.connect("Rx", f"{j}_Rx/1"); self.connect(f"{j}_Rx/2", j)
            self.connect("Ry", f"{j}_Ry/1"); self.connect(f"{j}_Ry/2", j)
            if mw is not None:
                self.add(MTF(f"{j}_w", mw))
                self.connect("w", f"{j}_w/1"); self.connect(f"{j}_w/2", j)
            else:
                self.connect("ext", j)
        self.expose(f"{self.tip}.x", f"{self.tip}_x", "flow-in", "Pr: x (normal) flow-in")
        self.expose(f"{self.tip}.y", f"{self.tip}_y", "effort-in", "Pr: y (axial) effort-in")
        # barrel and rod masses
        bodies = []
        if present(self.m_barrel):
            bodies.append(("barrel", self.m_barrel, self.d_barrel, False))
        if present(self.m_rod):
            bodies.append(("rod", self.m_rod, s_ - self.d_rod, True))
        for nm, m, dist, moves in bodies:
            for ax, (trig_e, trig_w) in {"x": (cs, -sn), "y": (sn, cs)}.items():
                js, j = f"{nm}_{ax}s", f"{nm}_{ax}"
                self.add(Zero(js), One(j), MTF(f"{js}_w", dist * trig_w), I(f"m_{nm}_{ax}", m))
                self.connect("Rx" if ax == "x" else "Ry", js)
                self.connect("w", f"{js}_w/1"); self.connect(f"{js}_w/2", js)
                if moves:
                    self.add(MTF(f"{js}_s", trig_e))
                    self.connect("ext", f"{js}_s/1"); self.connect(f"{js}_s/2", js)
                self.connect(js, j)
                self.connect(j, f"m_{nm}_{ax}")
                if ax == "y" and present(self.gravity):
                    self.add(Se(f"g_{nm}", -m * self.gravity))
                    self.connect(f"g_{nm}", j)
        Jt = self.J_barrel + self.J_rod
        if present(Jt):
            self.add(I("J", Jt, prefer="state"))
            self.connect("w", "J")

    # ---------------------------------------------------------------- kinematics
    def pose_size(self) -> int:
        """4: the root pin's x, y (m), the axis angle φ (rad) and the pin-to-pin length s (m)."""
        return 4

    def world_points(self, pose, names=None) -> dict[str, tuple]:
        rx, ry, phi, s = pose
        return {self.root.name: (rx, ry), self.tip: (rx + s * np.cos(phi), ry + s * np.sin(phi))}

    def hinge(self, name: str):
        """The hinge point ``name``; ``"I"`` is named for what it is (the extension interface)."""
        if name == "I" and name not in self.points:
            raise ConnectionRuleError(
                f"{self.name}/I (I): the cylinder's extension interface is driven (force, "
                "extension or the hydraulic side), not hinged (rule: a cylinder has exactly one "
                "Rt, one Pr and one I)")
        return super().hinge(name)

    def point_jacobian(self, pose, point: str):
        rx, ry, phi, s = pose
        if point == self.tip:
            c, sn = math.cos(phi), math.sin(phi)
            return np.array([[1.0, 0.0, -s * sn, c], [0.0, 1.0, s * c, sn]])
        self.hinge(point)
        return np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]])

    def pathway(self, pose) -> Pathway:
        """The cylinder's line at a pose (:class:`~components.Pathway`)."""
        pts = self.world_points(pose)
        return Pathway(tuple(map(float, pts[self.root.name])), tuple(map(float, pts[self.tip])))

    def pose_from_states(self, root_xy, states):
        return (root_xy[0], root_xy[1], states["phi"], states["s"])

    def states_from_pose(self, pose) -> dict[str, float]:
        return {"w.phi": float(pose[2]), "ext.s": float(pose[3])}

    def sketch(self, pose) -> list[list[tuple]]:
        rx, ry, phi, s = pose
        c, sn = np.cos(phi), np.sin(phi)
        barrel = min(self.retracted * 0.9, s)
        return [[(rx, ry), (rx + barrel * c, ry + barrel * sn)],
                [(rx + (s - self.retracted * 0.9) * c, ry + (s - self.retracted * 0.9) * sn),
                 (rx + s * c, ry + s * sn)]]


_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


def _table(name: str, what: str, table: Any, keys: Mapping[str, tuple], problems: list[str]) -> dict | None:
    """A friction or end-stop table with units → SI, every bad key and value named."""
    if table is None:
        return None
    if not isinstance(table, Mapping):
        problems.append(f"{what}: found {table!r}, expected a dict of {', '.join(keys)} with units")
        return None
    out = {}
    for k, v in table.items():
        if k not in keys:
            problems.append(f"{what}.{k}: unknown key (known: {', '.join(keys)})")
            continue
        unit, rule = keys[k][:2]
        bad: list[str] = []
        x = in_si({f"{what}.{k}": (v, unit)}, bad)[f"{what}.{k}"]
        bad += number_problems("", {f"{what}.{k}": (x, Check(rule, unit))}) if not bad else []
        problems += bad
        if not bad:
            out[k] = float(x)
    return out


def _hydraulic_data(name, function, count, values, friction, end_stop) -> tuple[dict, list[str]]:
    """The cylinder's hydraulic data in SI, and every problem with it."""
    problems: list[str] = []
    if function is not None and not (isinstance(function, str) and _NAME.match(function)):
        problems.append(f"function: found {function!r}, expected a name of letters, digits and '_' "
                        "starting with a letter")
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        problems.append(f"count: found {count!r}, expected a whole number ≥ 1 (cylinders in parallel)")
        count = 1
    out: dict[str, Any] = {"count": count}
    for k, v in values.items():
        if v is None:
            continue
        unit, rule = HYDRAULIC_DATA[k]
        bad: list[str] = []
        x = in_si({k: (v, unit)}, bad)[k]
        bad += number_problems("", {k: (x, Check(rule, unit))}) if not bad else []
        problems += bad
        if not bad:
            out[k] = float(x)
    if "bore" in out and "rod" in out and not out["rod"] < out["bore"]:
        problems.append(f"rod: {out['rod'] * 1e3:.4g} mm, expected smaller than the bore "
                        f"{out['bore'] * 1e3:.4g} mm")
    fr = _table(name, "friction", friction, FRICTION_KEYS, problems)
    if fr is not None:
        if "breakaway" in fr and fr["breakaway"] < fr.get("coulomb", 0.0):
            problems.append(f"friction.breakaway: {fr['breakaway']:g} N, expected ≥ the coulomb force "
                            f"{fr.get('coulomb', 0.0):g} N")
        out["friction"] = fr
    es = _table(name, "end_stop", end_stop, END_STOP_KEYS, problems)
    if es is not None:
        out["end_stop"] = es
    return out, problems
