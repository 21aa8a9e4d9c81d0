"""Soil cutting by a flat blade: the fundamental earthmoving equation (McKyes' N-factors).

A blade of width ``w`` with its edge at depth ``d`` below the soil surface, its face at the
rake angle ``α`` to the direction of travel, moves through soil. The soil in front fails
along a plane at the angle ``β`` to the surface (a two-dimensional Coulomb wedge); the
force on the blade is the *fundamental earthmoving equation* (Reece 1964; McKyes 1985,
ch. 4):

.. math::

    P = w\\,(\\gamma d^2 N_\\gamma + c\\,d\\,N_c + c_a d\\,N_{ca} + q\\,d\\,N_q)

with the unit weight ``γ``, cohesion ``c``, soil–tool adhesion ``c_a``, surcharge ``q``
and, for a planar failure surface (McKyes 1985; φ internal friction, δ soil–tool
friction)::

    D   = cos(α+δ) + sin(α+δ)·cot(β+φ)
    Nγ  = (cot α + cot β) / (2·D)
    Nc  = (1 + cot β·cot(β+φ)) / D
    Nca = (1 − cot α·cot(β+φ)) / D
    Nq  = (cot α + cot β) / D            (= 2·Nγ)

``P`` acts on the blade at the angle δ from its normal; with the adhesion along the face
the horizontal (draft) and vertical forces on a blade moving horizontally are
``H = P·sin(α+δ) + c_a·d·w·cot α`` and ``V = P·cos(α+δ) − c_a·d·w``.

The wedge angle ``β`` is the one that minimises ``Nγ`` (and ``Nq = 2·Nγ``, the same β);
``Nc`` and ``Nca`` are taken at that β. (Minimising the whole sum instead gives a β that
depends on the depth; the two differ by a few per cent for cohesive soils.)

References
----------
* Reece, A. R. (1964). The fundamental equation of earth-moving mechanics. *Proc. Inst.
  Mech. Eng.* 179(3F), 16–22.
* McKyes, E. (1985). *Soil Cutting and Tillage*. Developments in Agricultural Engineering 7,
  Elsevier, Amsterdam (ch. 4: the two-dimensional blade, N-factors).
* Bowles, J. E. (1996). *Foundation Analysis and Design*, 5th ed., McGraw-Hill (Table 9-1:
  modulus of subgrade reaction).
* Das, B. M. (2010). *Principles of Geotechnical Engineering*, 7th ed., Cengage (typical
  unit weights and friction angles of sands, gravels and clays).
* Vesić, A. S. (1973). Analysis of ultimate loads of shallow foundations. *J. Soil Mech.
  Found. Div.* 99(SM1), 45–73 (the bearing capacity factors Nc, Nq, Nγ of
  :func:`bearing_factors`).

The edge's **penetration** (:func:`penetration_pressure`): pressed into the soil, the edge's
bearing strip (thickness ``b``) meets Winkler's subgrade pressure ``k_s·d`` at first and at
most the soil's ultimate bearing capacity at that depth (Terzaghi's strip formula with
Vesić's factors), ``q_ult = c·Nc + (γ·d + q)·Nq + ½·γ·b·Nγ``; the two are joined by a smooth
minimum. Without the cap a linear Winkler law would ask tens of MPa of a strip 0.35 m deep.

Examples
--------
A vertical blade (α = 90°) in cohesionless soil:

>>> soil = SoilProperties(unit_weight=16e3, cohesion=0.0, friction_angle=30.0,
...                       tool_friction_angle=0.0, adhesion=0.0, surcharge=0.0)
>>> N = n_factors(90.0, soil)
>>> round(float(N["beta"]), 3)                 # Rankine's passive wedge: 45° − φ/2
30.0
>>> round(float(N["N_gamma"]), 4)              # the passive coefficient K_p/2 = 3/2
1.5
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

from bondgraph.errors import ParameterError, UnknownNameError

__all__ = ["SoilProperties", "PRESETS", "PRESET_SOURCES", "preset", "n_factors", "blade_force",
           "draft_force", "bearing_factors", "bearing_capacity", "penetration_pressure", "RAKE_RANGE"]

#: the rake angles (deg) the equation is used in; a rake outside is taken at the nearer end
#: (below 10° the blade lies nearly flat and the wedge model does not hold)
RAKE_RANGE = (10.0, 90.0)


@dataclass(frozen=True)
class SoilProperties:
    """The soil of the fundamental earthmoving equation (SI units, angles in degrees).

    Parameters
    ----------
    unit_weight : float
        γ, N/m³ (the soil in place, "bank").
    cohesion : float
        c, Pa (≥ 0).
    friction_angle : float
        φ, internal friction angle, deg (0 ≤ φ < 90).
    tool_friction_angle : float
        δ, soil–steel friction angle, deg (0 ≤ δ ≤ φ when φ > 0; < 90).
    adhesion : float
        c_a, soil–tool adhesion, Pa (≥ 0, at most the cohesion).
    surcharge : float
        q, Pa on the surface in front of the blade (≥ 0).
    swell : float
        Loose volume over bank volume (≥ 1): what a bucket holds of a cut.
    subgrade_modulus : float
        k_s, N/m³: the pressure per metre of sinkage of a plate pressed into the soil
        (Winkler); the penetration resistance of the edge.

    Raises
    ------
    ParameterError
        Every value out of its range, named, at once.

    Examples
    --------
    >>> SoilProperties(unit_weight=16e3, cohesion=-1.0, friction_angle=95.0,
    ...                tool_friction_angle=0.0, adhesion=0.0, surcharge=0.0)
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: soil: 2 problems
      - 'cohesion': found -1.0 Pa, expected ≥ 0
      - 'friction_angle': found 95.0 deg, expected 0 ≤ φ < 90
    """

    unit_weight: float
    cohesion: float
    friction_angle: float
    tool_friction_angle: float
    adhesion: float
    surcharge: float
    swell: float = 1.0
    subgrade_modulus: float = 2.0e7

    def __post_init__(self):
        problems = self.problems()
        if problems:
            raise ParameterError(problems, subject="soil")

    def problems(self) -> list[str]:
        """What is wrong with the values (empty when they are usable)."""
        out = []
        vals = {f.name: getattr(self, f.name) for f in fields(self)}
        for k, v in vals.items():
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                out.append(f"{k!r}: found {v!r}, expected a finite number")
        if out:
            return out
        if not self.unit_weight > 0:
            out.append(f"'unit_weight': found {self.unit_weight!r} N/m^3, expected > 0")
        for k in ("cohesion", "adhesion", "surcharge"):
            if vals[k] < 0:
                out.append(f"{k!r}: found {vals[k]!r} Pa, expected ≥ 0")
        if not 0 <= self.friction_angle < 90:
            out.append(f"'friction_angle': found {self.friction_angle!r} deg, expected 0 ≤ φ < 90")
        if not 0 <= self.tool_friction_angle < 90:
            out.append(f"'tool_friction_angle': found {self.tool_friction_angle!r} deg, expected 0 ≤ δ < 90")
        elif 0 < self.friction_angle < 90 and self.tool_friction_angle > self.friction_angle:
            out.append(f"'tool_friction_angle': found {self.tool_friction_angle!r} deg, expected at most "
                       f"the internal friction angle {self.friction_angle!r} deg (the soil would fail "
                       "inside itself before sliding on steel)")
        if self.cohesion >= 0 and self.adhesion > self.cohesion:
            out.append(f"'adhesion': found {self.adhesion!r} Pa, expected at most the cohesion "
                       f"{self.cohesion!r} Pa")
        if not self.swell >= 1:
            out.append(f"'swell': found {self.swell!r}, expected ≥ 1 (loose over bank volume)")
        if not self.subgrade_modulus > 0:
            out.append(f"'subgrade_modulus': found {self.subgrade_modulus!r} N/m^3, expected > 0")
        return out

    @property
    def density(self) -> float:
        """Bank density γ/g (kg/m³, with g = 9.81 m/s²)."""
        return self.unit_weight / 9.81

    def with_values(self, **values: float) -> "SoilProperties":
        """A copy with some values changed (checked again).

        Examples
        --------
        >>> preset("loose_sand").with_values(cohesion=2e3).cohesion
        2000.0
        """
        return replace(self, **values)


#: named soils: representative mid-range values of the sources in :data:`PRESET_SOURCES`
PRESETS: dict[str, SoilProperties] = {
    "loose_sand": SoilProperties(unit_weight=15.5e3, cohesion=0.0, friction_angle=30.0,
                                 tool_friction_angle=20.0, adhesion=0.0, surcharge=0.0,
                                 swell=1.12, subgrade_modulus=1.0e7),
    "dense_clay": SoilProperties(unit_weight=19.5e3, cohesion=50e3, friction_angle=20.0,
                                 tool_friction_angle=12.0, adhesion=25e3, surcharge=0.0,
                                 swell=1.35, subgrade_modulus=3.6e7),
    "gravel": SoilProperties(unit_weight=19.0e3, cohesion=0.0, friction_angle=38.0,
                             tool_friction_angle=25.0, adhesion=0.0, surcharge=0.0,
                             swell=1.15, subgrade_modulus=1.0e8),
}
#: where the presets' values come from
PRESET_SOURCES: dict[str, str] = {
    "loose_sand": ("γ 15.5 kN/m³, φ 30° (loose sand: Das 2010, typical unit weights and drained "
                   "friction angles 28–32°); δ 20° ≈ 2φ/3 (McKyes 1985, soil–steel friction); "
                   "swell 12 % (earthmoving handbooks' sand, 10–15 %); k_s 10 MN/m³ (Bowles 1996, "
                   "Table 9-1, loose sand 4.8–16 MN/m³)"),
    "dense_clay": ("γ 19.5 kN/m³, c 50 kPa, φ 20° (stiff clay: Das 2010); c_a = c/2 and δ ≈ 0.6 φ "
                   "(McKyes 1985: adhesion a fraction of the cohesion); swell 35 % (handbooks' clay, "
                   "30–40 %); k_s 36 MN/m³ (Bowles 1996, Table 9-1, clay 200–800 kPa: 24–48 MN/m³)"),
    "gravel": ("γ 19 kN/m³, φ 38° (dense sandy gravel: Das 2010, 35–40°); δ 25° ≈ 2φ/3 (McKyes "
               "1985); swell 15 % (handbooks' dry gravel, 12–15 %); k_s 100 MN/m³ (Bowles 1996, "
               "Table 9-1, dense sand and gravel 64–128 MN/m³)"),
}


def preset(name: str) -> SoilProperties:
    """A named soil of :data:`PRESETS`.

    Raises
    ------
    UnknownNameError
        An unknown name (the presets are listed).

    Examples
    --------
    >>> preset("dense_clay").cohesion
    50000.0
    >>> preset("peat")
    Traceback (most recent call last):
    ...
    bondgraph.errors.UnknownNameError: soil preset 'peat': unknown (presets: loose_sand, dense_clay, gravel)
    """
    if name not in PRESETS:
        raise UnknownNameError(f"soil preset {name!r}: unknown (presets: {', '.join(PRESETS)})")
    return PRESETS[name]


def _factors(a: float, b: float, phi: float, delta: float) -> tuple[float, float, float, float]:
    """``(Nγ, Nc, Nca, Nq)`` at rake ``a`` and wedge angle ``b`` (radians)."""
    D = math.cos(a + delta) + math.sin(a + delta) / math.tan(b + phi)
    cot_a, cot_b, cot_bp = 1 / math.tan(a), 1 / math.tan(b), 1 / math.tan(b + phi)
    n_g = (cot_a + cot_b) / (2 * D)
    return n_g, (1 + cot_b * cot_bp) / D, (1 - cot_a * cot_bp) / D, 2 * n_g


def _wedge(a: float, phi: float, delta: float) -> float:
    """The wedge angle β (rad) minimising Nγ at rake ``a``: inside (0, π − α − δ − φ)."""
    top = math.pi - a - delta - phi
    if not top > 0:
        raise ParameterError(f"rake {math.degrees(a):g} deg with φ + δ = {math.degrees(phi + delta):g} deg: "
                             "no failure wedge (α + δ + φ must stay below 180°)")
    from scipy.optimize import minimize_scalar   # imported here: reading a machine file needs no solver

    r = minimize_scalar(lambda b: _factors(a, b, phi, delta)[0], bounds=(1e-6, top - 1e-6),
                        method="bounded", options={"xatol": 1e-12})
    return float(r.x)


def n_factors(rake_deg: Any, soil: SoilProperties) -> dict[str, np.ndarray]:
    """McKyes' N-factors and the wedge angle at one or more rake angles.

    Parameters
    ----------
    rake_deg : float or array
        α, deg, in :data:`RAKE_RANGE` (the blade face to the direction of travel).
    soil : SoilProperties

    Returns
    -------
    dict
        ``N_gamma``, ``N_c``, ``N_ca``, ``N_q`` and ``beta`` (deg), arrays shaped as
        ``rake_deg``.

    Examples
    --------
    >>> N = n_factors([45.0, 90.0], preset("dense_clay"))
    >>> [round(float(x), 3) for x in N["N_c"]]
    [1.627, 4.055]
    """
    a = np.atleast_1d(np.asarray(rake_deg, dtype=float))
    phi, delta = math.radians(soil.friction_angle), math.radians(soil.tool_friction_angle)
    out = {k: np.empty_like(a) for k in ("N_gamma", "N_c", "N_ca", "N_q", "beta")}
    for i, ad in enumerate(a.flat):
        ar = math.radians(ad)
        b = _wedge(ar, phi, delta)
        vals = _factors(ar, b, phi, delta)
        for k, v in zip(("N_gamma", "N_c", "N_ca", "N_q"), vals):
            out[k].flat[i] = v
        out["beta"].flat[i] = math.degrees(b)
    shape = np.shape(rake_deg)
    return {k: v.reshape(shape) for k, v in out.items()}


def blade_force(depth: Any, rake_deg: Any, width: float, soil: SoilProperties) -> np.ndarray:
    """The fundamental earthmoving equation: the force ``P`` (N) on a blade.

    Parameters
    ----------
    depth : float or array
        d ≥ 0, m: the edge below the soil surface.
    rake_deg : float or array
        α, deg.
    width : float
        w, m.
    soil : SoilProperties

    Examples
    --------
    >>> round(float(blade_force(0.3, 60.0, 1.0, preset("loose_sand"))), 1)
    2169.9
    """
    d = np.asarray(depth, dtype=float)
    N = n_factors(rake_deg, soil)
    s = soil
    return width * (s.unit_weight * d**2 * N["N_gamma"] + s.cohesion * d * N["N_c"]
                    + s.adhesion * d * N["N_ca"] + s.surcharge * d * N["N_q"])


def draft_force(depth: Any, rake_deg: Any, width: float, soil: SoilProperties) -> tuple[np.ndarray, np.ndarray]:
    """Horizontal (draft) and vertical forces (N) on a blade moving horizontally.

    ``H = P·sin(α+δ) + c_a·d·w·cot α`` resists the travel; ``V = P·cos(α+δ) − c_a·d·w``
    (positive: the soil pushes the blade down).

    Examples
    --------
    >>> H, V = draft_force(0.3, 60.0, 1.0, preset("loose_sand"))
    >>> round(float(H), 1), round(float(V), 1)
    (2136.9, 376.8)
    """
    d = np.asarray(depth, dtype=float)
    a = np.radians(np.asarray(rake_deg, dtype=float))
    delta = math.radians(soil.tool_friction_angle)
    P = blade_force(d, rake_deg, width, soil)
    ca = soil.adhesion * d * width
    return P * np.sin(a + delta) + ca / np.tan(a), P * np.cos(a + delta) - ca


def bearing_factors(friction_angle: float) -> tuple[float, float, float]:
    """The bearing capacity factors ``(Nc, Nq, Nγ)`` of a strip: Prandtl–Reissner ``Nq`` and
    ``Nc``, Vesić's ``Nγ`` (Vesić 1973).

    ``Nq = e^(π tan φ)·tan²(45° + φ/2)``, ``Nc = (Nq − 1)·cot φ`` (``π + 2`` at φ = 0),
    ``Nγ = 2·(Nq + 1)·tan φ``.

    Parameters
    ----------
    friction_angle : float
        φ, degrees.

    Examples
    --------
    >>> [round(v, 2) for v in bearing_factors(30.0)]
    [30.14, 18.4, 22.4]
    >>> [round(v, 2) for v in bearing_factors(0.0)]
    [5.14, 1.0, 0.0]
    """
    phi = math.radians(float(friction_angle))
    nq = math.exp(math.pi * math.tan(phi)) * math.tan(math.pi / 4 + phi / 2) ** 2
    nc = (nq - 1) / math.tan(phi) if phi > 0 else math.pi + 2
    return nc, nq, 2 * (nq + 1) * math.tan(phi)


def bearing_capacity(depth: Any, thickness: float, soil: SoilProperties) -> Any:
    """Ultimate bearing pressure (Pa) under a strip of width ``thickness`` (m) at ``depth`` (m):
    ``q_ult = c·Nc + (γ·d + q)·Nq + ½·γ·b·Nγ`` (Terzaghi's strip, Vesić's factors).

    ``depth`` may be a number, an array or a sympy expression.

    Examples
    --------
    >>> round(float(bearing_capacity(0.35, 0.025, preset("gravel"))) / 1e3, 1)      # kPa
    343.9
    """
    nc, nq, ng = bearing_factors(soil.friction_angle)
    return (soil.cohesion * nc + (soil.unit_weight * depth + soil.surcharge) * nq
            + 0.5 * soil.unit_weight * float(thickness) * ng)


def penetration_pressure(depth: Any, thickness: float, soil: SoilProperties) -> Any:
    """Pressure (Pa) on an edge's bearing strip pressed into the soil at ``depth`` (m):
    Winkler's ``k_s·d`` joined to the :func:`bearing_capacity` ``q_ult`` by the smooth minimum
    ``k_s·d·q_ult / ((k_s·d)⁴ + q_ult⁴)^(1/4)`` (0 at the surface; within 1 % of the smaller
    of the two once one is 3.2 times the other).

    Examples
    --------
    >>> soil = preset("gravel")
    >>> round(float(penetration_pressure(1e-5, 0.025, soil)), 1)    # Winkler near the surface: k_s·d
    1000.0
    >>> round(float(penetration_pressure(0.35, 0.025, soil)) / 1e3, 1)    # the bearing capacity
    343.9
    """
    a = soil.subgrade_modulus * depth
    b = bearing_capacity(depth, thickness, soil)
    return a * b / (a**4 + b**4) ** 0.25
