"""Hydraulic side of a cylinder: chambers, piston areas, piston, leakage, friction, stops.

Bond graph (local names)::

    A ─ 0(nA) ─ TF_A(1/A_A) ──▶ 1(piston) ──▶ TF_B(A_B) ── 0(nB) ─ B
        │  └ C_A: V_A(x)/β         │ m, friction, end_stop        │ C_B: V_B(x)/β
        └──────── 1(leak_AB): internal leakage ───────────────────┘
        leak_A, leak_B: external leakage to tank

* ``C_A``, ``C_B`` — :class:`~components.hydraulics.chamber.HydraulicCapacitance`
  with ``V_A = V_A0 + A_A·x`` and ``V_B = V_B0 + A_B·(stroke − x)`` (dead volumes
  included), ``x = s − retracted`` with ``s`` the pin-to-pin length handle of
  the mechanical :class:`components.Cylinder` (or the piston junction's own
  displacement state when the cylinder stands alone);
* ``TF_A`` (modulus ``1/A_A``: ``p_A = F/A_A``, ``v = Q/A_A``) and ``TF_B``
  (modulus ``A_B``) — the piston areas;
* ``piston`` — the 1-junction of the rod velocity ``ẋ`` with the axial inertia
  ``m`` (piston + rod; 0 is allowed when a mechanism's reflected mass ends up
  on the same junction), :class:`Friction` and :class:`EndStop`;
* the exposed ``I`` port is that junction: connect it to the mechanical
  cylinder's ``I`` port (``Mechanism.drive_external``) — the hydraulic side
  imposes the extension rate, the mechanism returns the axial load.

Power flows from the cap port ``A`` into the piston and from the piston out
of the rod port ``B``: positive flow at ``A`` goes *in*, at ``B`` *out*
(connect ``valve/A → cyl/A`` and ``cyl/B → valve/B``).

Examples
--------
>>> from components.hydraulics import Oil, HydraulicCylinder
>>> cyl = HydraulicCylinder("boom", bore="135 mm", rod="50 mm", stroke="1.25 m",
...                         oil=Oil(), x0=0.5, piston_mass=10.0)
>>> sorted(cyl.ports), round(cyl.area_A * 1e4, 2), round(cyl.area_B * 1e4, 2)
(['A', 'B', 'I'], 143.14, 123.5)
>>> cyl.state("pA")
'C_A.e'
"""

from __future__ import annotations

import math
from typing import Any

import sympy as sp

from bondgraph import TF, BondGraph, I, Law, One, R, Zero
from bondgraph.errors import ParameterError

from ._values import FINITE, NONNEGATIVE, POSITIVE, raise_all, si
from .chamber import HydraulicCapacitance
from .endstop import EndStop
from .friction import Friction
from .lines import drain
from .oil import Oil

__all__ = ["HydraulicCylinder"]


def _numeric(v: Any) -> bool:
    return isinstance(v, (int, float))


def _sym_or_si(value: Any, unit: str, name: str, problems: list[str], check) -> Any:
    """A sympy symbol passes as it is (a run-time parameter whose value is checked where it
    is given); anything else is read and checked by :func:`si`."""
    if isinstance(value, sp.Basic) and not value.is_number:
        return value
    return si(value, unit, name, problems, check)


class HydraulicCylinder(BondGraph):
    """Double- (or single-) acting cylinder, hydraulic side.

    Values may be floats in SI units or text/quantities with units
    (``"135 mm"``, ``"2 L"``, ``"1e-12 m^3/s/Pa"``).

    Parameters
    ----------
    name : str
    bore : float, str or sympy symbol
        Piston diameter (m). A symbol makes it a run-time parameter of the compiled
        model (its value is then passed to ``build(..., params)``; the areas, the
        chamber volumes and the transformer moduli are written in terms of it).
    rod : float, str or sympy symbol, optional
        Rod diameter (m); required unless ``single_acting``.
    stroke : float or str
        (m).
    oil : Oil
    retracted : float or str
        Pin-to-pin length when fully retracted (m), so ``x = length − retracted``;
        0 when ``length`` is the extension itself.
    length : sympy symbol, optional
        Displacement handle of the pin-to-pin length (``Cylinder.length_symbol``
        of the mechanical template). Default: the piston junction gets its own
        displacement state ``piston.s`` (initial ``retracted + x0``).
    x0 : float
        Initial extension (m), used only without ``length``.
    dead_volumes : (float, float)
        Volumes of the cap and rod chambers at zero chamber length (m³),
        e.g. port and hose volumes.
    count : int
        Identical cylinders working in parallel (areas and dead volumes scale).
    piston_mass : float
        Axial inertia on the piston junction (kg), ≥ 0.
    friction : Friction, optional
    end_stop : EndStop, optional
    leakage_internal : float
        Laminar conductance cap ↔ rod chamber (m³/(s·Pa)).
    leakage_external : (float, float)
        Laminar conductances from the cap and rod chambers to tank.
    tank_pressure : float
        Gauge pressure of the external-leakage drain (Pa).
    pressures : (float, float)
        Initial gauge pressures of the cap and rod chambers (Pa).
    single_acting : bool
        No rod chamber (the rod side is vented): ports ``A`` and ``I`` only.

    Attributes
    ----------
    area_A, area_B : float
        Piston areas of the cap and rod sides, times ``count`` (m²).
    length_symbol : sympy.Symbol
        The length handle the chamber volumes and the end stop use.
    extension : sympy expression
        ``x`` in terms of it (m).

    Raises
    ------
    ParameterError
        Listing every bad value.

    Examples
    --------
    Standing alone, fed 0.1 L/s into the cap side against a 5 kN load and a viscous
    friction of 20 kN·s/m, the rod settles at ``v = Q/A_A`` with the cap pressure
    ``p_A = (F + f·v)/A_A``:

    >>> from bondgraph import BondGraph, Sf, Se, Zero, build, simulate
    >>> from components.hydraulics import Friction
    >>> cyl = HydraulicCylinder("cyl", bore="100 mm", rod="60 mm", stroke="0.5 m", oil=Oil(),
    ...                         x0=0.1, piston_mass=50.0, friction=Friction(viscous=2e4))
    >>> rig = BondGraph("rig")
    >>> _ = rig.add(Sf("Q", 1e-4), cyl, Zero("tank"), Se("T", 0.0), Se("load", -5e3))
    >>> for a, b in [("Q", "cyl/A"), ("cyl/B", "tank"), ("T", "tank"), ("load", "cyl/I")]:
    ...     _ = rig.connect(a, b)
    >>> res = simulate(build(rig), (0.0, 0.5), progress=False)
    >>> v, pA = float(res["rig/cyl/m.f"][-1]), float(res["rig/cyl/C_A.e"][-1])
    >>> bool(abs(v / (1e-4 / cyl.area_A) - 1) < 1e-6), bool(abs(pA * cyl.area_A - (5e3 + 2e4 * v)) < 1e-3)
    (True, True)
    >>> HydraulicCylinder("c", bore="100 mm", rod="120 mm", stroke=-1.0, oil=Oil())
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: hydraulic cylinder 'c': 2 problems
      - 'stroke': found -1.0, expected a finite number > 0 (m)
      - 'rod': found '120 mm', expected less than the bore '100 mm'
    """

    @classmethod
    def of(cls, cylinder: Any, oil: Oil, *, name: str = "cyl", **kw: Any) -> "HydraulicCylinder":
        """The hydraulic side of a mechanical :class:`~components.Cylinder`: its stroke,
        retracted length, length handle, ``count``, bore, rod, dead volumes, leakage,
        friction and end stop (with cushion) taken from the template, so none is written
        twice; ``kw`` overrides or adds (``piston_mass``, ``pressures``...).

        Raises
        ------
        ParameterError
            The template has no bore (``Cylinder(..., bore="100 mm", rod="60 mm")``).

        Examples
        --------
        >>> from components import Cylinder
        >>> from components.hydraulics import Oil
        >>> mech_cyl = Cylinder("boom_cyl", retracted="2.48 m", stroke="1.25 m", count=2,
        ...                     bore="135 mm", rod="50 mm")
        >>> hc = HydraulicCylinder.of(mech_cyl, Oil())
        >>> hc.count, hc.stroke, round(hc.area_A, 6)                   # two cylinders' area
        (2, 1.25, 0.028628)
        """
        from ..cylinder import END_STOP_KEYS, FRICTION_KEYS

        h = cylinder.hydraulics
        if "bore" not in h:
            raise ParameterError(f"cylinder {cylinder.name!r}: no bore; its hydraulic side needs it: "
                                 f"Cylinder({cylinder.name!r}, ..., bore=\"100 mm\", rod=\"60 mm\")")
        args: dict[str, Any] = dict(bore=h["bore"], rod=h.get("rod"), stroke=cylinder.stroke,
                                    retracted=cylinder.retracted, length=cylinder.length_symbol,
                                    count=h["count"])
        if "dead_volume_cap" in h or "dead_volume_rod" in h:
            args["dead_volumes"] = (h.get("dead_volume_cap", 1e-5), h.get("dead_volume_rod", 1e-5))
        if "leakage_internal" in h:
            args["leakage_internal"] = h["leakage_internal"]
        if "leakage_external" in h:
            args["leakage_external"] = (h["leakage_external"], h["leakage_external"])
        fr = h.get("friction")
        if fr and any(fr.get(k) for k in ("coulomb", "viscous", "breakaway")):
            d = {k: v[2] for k, v in FRICTION_KEYS.items()}
            d.update(fr)
            args["friction"] = Friction(coulomb=d["coulomb"], breakaway=d["breakaway"],
                                        breakaway_velocity=d["breakaway_velocity"], viscous=d["viscous"])
        args["end_stop"] = cylinder.end_stop(hydraulic=True)
        args.update(kw)
        return cls(name, oil=oil, **args)

    def __init__(self, name: str, *, bore: Any, stroke: Any, oil: Oil, rod: Any = None,
                 retracted: Any = 0.0, length: sp.Symbol | None = None, x0: float = 0.0,
                 dead_volumes: tuple[Any, Any] = (1e-5, 1e-5), count: int = 1,
                 piston_mass: float = 0.0, friction: Friction | None = None,
                 end_stop: EndStop | None = None, leakage_internal: Any = 0.0,
                 leakage_external: tuple[Any, Any] = (0.0, 0.0), tank_pressure: Any = 0.0,
                 pressures: tuple[float, float] = (0.0, 0.0), single_acting: bool = False):
        super().__init__(name)
        p: list[str] = []
        bore_ = _sym_or_si(bore, "m", "bore", p, POSITIVE)
        stroke_ = si(stroke, "m", "stroke", p, POSITIVE)
        retr = si(retracted, "m", "retracted", p, NONNEGATIVE)
        rod_ = math.nan
        if single_acting:
            if rod is not None:
                rod_ = si(rod, "m", "rod", p, NONNEGATIVE)
        elif rod is None:
            p.append("'rod': missing (a double-acting cylinder needs its rod diameter in m)")
        else:
            rod_ = _sym_or_si(rod, "m", "rod", p, NONNEGATIVE)
            if (_numeric(bore_) and _numeric(rod_) and bore_ > 0 and rod_ >= 0
                    and not rod_ < bore_):  # both valid numbers: compare them
                p.append(f"'rod': found {rod!r}, expected less than the bore {bore!r}")
        try:
            vA_in, vB_in = dead_volumes
        except (TypeError, ValueError):
            p.append(f"'dead_volumes': found {dead_volumes!r}, expected (cap, rod) volumes in m³")
            vA_in = vB_in = 1e-5
        vA = si(vA_in, "m^3", "dead_volumes[0]", p, POSITIVE)
        vB = si(vB_in, "m^3", "dead_volumes[1]", p, NONNEGATIVE if single_acting else POSITIVE)
        g_int = si(leakage_internal, "m^3/s/Pa", "leakage_internal", p, NONNEGATIVE)
        try:
            gA_in, gB_in = leakage_external
        except (TypeError, ValueError):
            p.append(f"'leakage_external': found {leakage_external!r}, expected (cap, rod) "
                     "conductances in m³/(s·Pa)")
            gA_in = gB_in = 0.0
        g_a = si(gA_in, "m^3/s/Pa", "leakage_external[0]", p, NONNEGATIVE)
        g_b = si(gB_in, "m^3/s/Pa", "leakage_external[1]", p, NONNEGATIVE)
        p_t = si(tank_pressure, "Pa", "tank_pressure", p, FINITE)
        mass = si(piston_mass, "kg", "piston_mass", p, NONNEGATIVE)
        x0 = si(x0, "m", "x0", p, FINITE)
        try:
            pA0, pB0 = pressures
        except (TypeError, ValueError):
            p.append(f"'pressures': found {pressures!r}, expected (cap, rod) pressures in Pa")
            pA0 = pB0 = 0.0
        pA0 = si(pA0, "Pa", "pressures[0]", p, FINITE)
        pB0 = si(pB0, "Pa", "pressures[1]", p, FINITE)
        if isinstance(count, bool) or not (isinstance(count, int) and count >= 1):
            p.append(f"'count': found {count!r}, expected an integer ≥ 1")
        if not isinstance(oil, Oil):
            p.append(f"'oil': found {oil!r}, expected an Oil")
        if friction is not None and not isinstance(friction, Friction):
            p.append(f"'friction': found {friction!r}, expected a Friction or None")
        if end_stop is not None and not isinstance(end_stop, EndStop):
            p.append(f"'end_stop': found {end_stop!r}, expected an EndStop or None")
        if single_acting and g_int:
            p.append("'leakage_internal': a single-acting cylinder has no rod chamber to leak to")
        if length is not None and not isinstance(length, sp.Symbol):
            p.append(f"'length': found {length!r}, expected the length handle (a sympy symbol) "
                     "of the mechanical Cylinder, or None")
        raise_all(p, f"hydraulic cylinder {name!r}")

        self.bore, self.rod, self.stroke, self.retracted = bore_, rod_, stroke_, retr
        self.count, self.single_acting, self.oil = count, single_acting, oil
        self.area_A = count * math.pi * bore_**2 / 4
        self.area_B = 0.0 if single_acting else count * math.pi * (bore_**2 - rod_**2) / 4
        self.dead_volumes = (count * vA, count * vB)

        piston = One("piston", displacement="s", initial=retr + x0) if length is None else One("piston")
        s = piston.displacement if length is None else length
        self.length_symbol = s
        x = s - retr
        #: extension expression (m) in terms of the length handle
        self.extension = x
        self.add(piston, I("m", mass))
        self.connect("piston", "m")

        self.add(Zero("nA"), HydraulicCapacitance("C_A", self.dead_volumes[0] + self.area_A * x, oil,
                                                 initial=pA0),
                 TF("TF_A", 1.0 / self.area_A))
        self.connect("nA", "C_A")
        self.connect("nA", "TF_A/1")
        self.connect("TF_A/2", "piston")
        self.expose("A", "nA")
        if not single_acting:
            self.add(Zero("nB"), HydraulicCapacitance(
                "C_B", self.dead_volumes[1] + self.area_B * (stroke_ - x), oil,
                initial=pB0), TF("TF_B", self.area_B))
            self.connect("nB", "C_B")
            self.connect("piston", "TF_B/1")
            self.connect("TF_B/2", "nB")
            self.expose("B", "nB")
        if friction is not None and (friction.viscous or not friction.is_viscous):
            if friction.is_viscous:
                self.add(R("friction", friction.viscous))
            else:
                self.add(R("friction", effort=Law(friction.law, not_invertible=(
                    "Coulomb/Stribeck friction has no closed-form inverse (and is not monotonic "
                    "with a break-away hump), so the rod velocity is not a function of the "
                    "friction force; let the piston inertia give it the velocity"))))
            self.connect("piston", "friction")
        if end_stop is not None:
            self.add(R("end_stop", effort=Law(lambda v: end_stop.law(v, x, stroke_), not_invertible=(
                "an end stop exerts no force inside the stroke, so the rod velocity is not a "
                "function of its force"))))
            self.connect("piston", "end_stop")
        if g_int:
            self.add(One("leak_AB"), R("G_AB", 1.0 / g_int))
            self.connect("nA", "leak_AB")
            self.connect("leak_AB", "nB")
            self.connect("leak_AB", "G_AB")
        for side, g in (("A", g_a), ("B", g_b)):
            if g and not (side == "B" and single_acting):
                drain(self, f"n{side}", f"leak_{side}", g, p_t)
        self.expose("I", "piston")

    _STATES = {"pA": "C_A.e", "pB": "C_B.e", "v": "m.f", "s": "piston.s"}

    def state(self, what: str) -> str:
        """Local state name: ``"pA"``, ``"pB"`` (pressures), ``"v"`` (rod velocity),
        ``"s"`` (own length state, only without ``length``). Prefix it with the
        component's path in the model (``f"{model}/{...}/{name}/"``).

        Parameters
        ----------
        what : {"pA", "pB", "v", "s"}

        Returns
        -------
        str

        Raises
        ------
        ParameterError
            Another name.

        Examples
        --------
        >>> cyl = HydraulicCylinder("c", bore=0.1, rod=0.06, stroke=0.5, oil=Oil())
        >>> cyl.state("pB"), cyl.state("v")
        ('C_B.e', 'm.f')
        """
        if what not in self._STATES:
            raise ParameterError(f"cylinder {self.name!r}: state {what!r}: expected one of "
                                 f"{', '.join(self._STATES)}")
        return self._STATES[what]

    def force(self, pA: float, pB: float) -> float:
        """Hydraulic force (N, positive extending) for the chamber pressures.

        Parameters
        ----------
        pA, pB : float
            Cap and rod chamber pressures (Pa).

        Returns
        -------
        float

        Examples
        --------
        >>> import math
        >>> cyl = HydraulicCylinder("c", bore=0.1, rod=0.06, stroke=0.5, oil=Oil())
        >>> bool(abs(cyl.force(100e5, 0.0) - 100e5 * math.pi * 0.1**2 / 4) < 1e-6)
        True
        """
        return pA * self.area_A - pB * self.area_B
