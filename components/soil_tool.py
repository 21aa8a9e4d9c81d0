"""A cutting edge in soil, as bond-graph elements: cutting, penetration, bucket fill, payload.

:class:`SoilTool` is a component with three ports: ``x`` and ``y`` take the world-frame
velocity of the tool's cutting edge (connect them to the edge point's junctions), ``load``
the vertical velocity of the point where the payload's weight acts. Inside:

* the edge velocity is split on the ground's axes at the edge (tangent ``t``, upward
  normal ``n`` of the ground profile) by modulated transformers;
* **cutting**: a resistor on the tangential velocity ``v_t`` whose effort is the draft
  force of the fundamental earthmoving equation (:mod:`components.soil`),
  ``H(d, α)·tanh(v_t/v₀)``: Coulomb-like, opposing the travel along the ground whatever
  its speed above the creep velocity ``v₀``, and passive (``e·f ≥ 0``);
* **penetration**: a resistor on the normal velocity that resists only motion *into* the
  soil, the pressure :func:`~components.soil.penetration_pressure` on the edge's bearing
  strip ``w × b`` (Winkler's ``k_s·d`` near the surface, at most the soil's ultimate bearing
  capacity at the depth ``d``) times ``tanh(v_n/v₀)·(1 − tanh(v_n/v₀))/2`` (−1 going down,
  0 going up: passive); it grows with the depth, so pushing the edge down needs ever more
  force;
* **fill**: a 1-junction whose displacement is the loose volume in the bucket ``V``; a
  modulated transformer from the cutting junction gives it the flow
  ``w·d·s·v_cut·h(V)`` (``s`` the swell, ``v_cut`` the speed in the cutting direction,
  ``h`` a smooth cap at the heaped capacity: 1 below, 0 above); a modulated flow source
  empties it with the time constant ``τ`` once the face is turned past the dump angle and
  the edge is clear of the ground. These bonds carry no power (their effort is 0);
* **payload**: a modulated effort ``−V·γ/s`` (its weight) on the ``load`` port. Its
  inertia is not modelled (a mass that changes in time carries no momentum balance in a
  1-junction's inertia): only the weight.

The depth is ``d = max(0, (g(x) − y)·cos σ)`` with ``g`` the ground profile, ``σ`` its slope
at the edge; the rake angle is ``α = arccos|cos(ψ − σ)|`` with ``ψ`` the world angle of
the tool's face (from the edge into the bucket), kept in :data:`~components.soil.RAKE_RANGE`.
The blade cuts in the direction its face trails (``−sign(cos(ψ − σ))·t``); the bite it takes
fills the bucket; moving the other way at depth gives soil back. McKyes' N-factors of the
rake are polynomial fits (Chebyshev, relative error below 1e-6 of the largest) of
:func:`components.soil.n_factors`, so the compiled model has no minimisation inside.

Examples
--------
A 1 m blade at 0.2 m depth in loose sand, face at 60° from the ground, dragged
backwards (−x) at a constant speed: the force on the drive is the draft force.

>>> import sympy as sp
>>> from bondgraph import BondGraph, One, Sf, Se, build, simulate
>>> from components.soil import preset, draft_force
>>> bg = BondGraph("cut")
>>> X = One("X", displacement="x", initial=0.0)
>>> tool = SoilTool("soil", preset("loose_sand"), width=1.0, capacity=1.0, position=(X.displacement, -0.2),
...                 face_angle=sp.pi / 3, ground=0.0)
>>> _ = bg.add(X, One("Y"), One("L"), Sf("vx", -0.5), Sf("vy", 0.0), Sf("vl", 0.0), tool)
>>> for a, b in [("vx", "X"), ("vy", "Y"), ("vl", "L"), ("X", "soil/x"), ("Y", "soil/y"), ("L", "soil/load")]:
...     _ = bg.connect(a, b)
>>> res = simulate(build(bg), (0, 1), progress=False)
>>> H = float(draft_force(0.2, 60.0, 1.0, preset("loose_sand"))[0])
>>> bool(abs(abs(res["e[cut/b4]"][-1]) - H) < 1e-6 * H)        # the force on the edge
True
"""

from __future__ import annotations

import functools
import math
from typing import Any, Sequence

import numpy as np
import sympy as sp

from bondgraph import MSe, MSf, MTF, BondGraph, One, R, Zero
from bondgraph.errors import ParameterError

from .soil import RAKE_RANGE, SoilProperties, n_factors, penetration_pressure

__all__ = ["SoilTool", "GroundProfile", "fit_n_factors"]

#: m: the half-width of the smooth change of the slope angle at a ground profile's vertex
VERTEX_WIDTH = 0.005


class GroundProfile:
    """The ground line: a level, or points ``(x, y)`` joined by straight lines (world frame),
    level beyond the first and last point.

    Parameters
    ----------
    points : float or sequence of (x, y)
        A level (m), or at least two points with x strictly increasing.

    Raises
    ------
    ParameterError
        Fewer than two points, x not increasing (every such pair named), non-finite values.

    Examples
    --------
    >>> g = GroundProfile([(0.0, 0.0), (2.0, 0.0), (3.0, -1.0), (4.0, -1.0)])   # a trench edge
    >>> [float(g.height(x)) for x in (-1.0, 2.5, 9.0)], float(g.slope(2.5))
    ([0.0, -0.5, -1.0], -1.0)
    >>> GroundProfile([(0.0, 0.0), (2.0, 0.0), (1.0, 1.0)])
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: ground profile: 1 problem
      - point 3 (x = 1 m) is not to the right of point 2 (x = 2 m): expected x strictly increasing
    """

    def __init__(self, points: float | Sequence[Sequence[float]]):
        if isinstance(points, (int, float)) and not isinstance(points, bool):
            if not math.isfinite(points):
                raise ParameterError(f"ground level: found {points!r}, expected a finite number (m)")
            self.points = [(-1.0, float(points)), (1.0, float(points))]
            self.level = True
            return
        pts = [tuple(p) for p in points]
        problems = []
        if len(pts) < 2:
            problems.append(f"found {len(pts)} point(s), expected at least 2 [x, y] points")
        for i, p in enumerate(pts):
            if len(p) != 2 or not all(isinstance(v, (int, float)) and math.isfinite(v) for v in p):
                problems.append(f"point {i + 1}: found {p!r}, expected [x, y] finite numbers (m)")
        if not problems:
            for i in range(1, len(pts)):
                if not pts[i][0] > pts[i - 1][0]:
                    problems.append(f"point {i + 1} (x = {pts[i][0]:g} m) is not to the right of point {i} "
                                    f"(x = {pts[i - 1][0]:g} m): expected x strictly increasing")
        if problems:
            raise ParameterError(problems, subject="ground profile")
        self.points = [(float(x), float(y)) for x, y in pts]
        self.level = all(y == self.points[0][1] for _, y in self.points)

    def height(self, x):
        """Ground height at ``x`` (numbers or arrays)."""
        xs, ys = zip(*self.points)
        return np.interp(x, xs, ys)

    def slope(self, x):
        """dy/dx of the segment under ``x`` (0 beyond the ends)."""
        xs, ys = np.array(self.points).T
        k = np.clip(np.searchsorted(xs, x, side="right") - 1, 0, len(xs) - 1)
        s = np.append(np.diff(ys) / np.diff(xs), 0.0)
        return np.where((x < xs[0]) | (x >= xs[-1]), 0.0, s[k])

    def expressions(self, x: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
        """``(g(x), σ(x))`` as sympy expressions: height and slope angle (rad). The height is
        exact (ramps); the angle changes at a vertex over about ``±2·VERTEX_WIDTH`` (a tanh
        step), exact farther away (to 1e-12 beyond 7 widths)."""
        if self.level:
            return sp.Float(self.points[0][1]), sp.Integer(0)
        xs, ys = zip(*self.points)
        slopes = [(ys[i + 1] - ys[i]) / (xs[i + 1] - xs[i]) for i in range(len(xs) - 1)]
        # height: level left of the first point, ramps at the vertices, level right of the last
        g = sp.Float(ys[0])
        prev = 0.0
        for xi, si in zip(xs[:-1], slopes):
            g += (si - prev) * sp.Max(x - xi, 0)
            prev = si
        g += (0.0 - prev) * sp.Max(x - xs[-1], 0)
        # slope angle: a smooth step of each change of angle at its vertex (over ±2·VERTEX_WIDTH),
        # not a Piecewise: the angle sits inside cos, |·| and the rake's clamps, whose switches
        # would each hold the whole profile in their conditions
        angles = [0.0] + [math.atan(si) for si in slopes] + [0.0]
        sigma = sp.Integer(0)
        for xi, a0, a1 in zip(xs, angles[:-1], angles[1:]):
            if a1 != a0:
                sigma += (a1 - a0) * _step(x - xi, VERTEX_WIDTH)
        return g, sigma


def fit_n_factors(soil: SoilProperties, degree: int = 20) -> dict[str, np.polynomial.Chebyshev]:
    """Chebyshev fits of ``N·sin α`` for ``N_gamma``, ``N_c``, ``N_ca`` over the rake α
    (radians) in :data:`~components.soil.RAKE_RANGE` (``N·sin α`` is smooth where ``N``
    grows as ``cot α``), checked on a fine grid.

    Raises
    ------
    ParameterError
        A fit off by more than 1e-6 of the factor's largest value (not expected for
        soils that pass :class:`~components.soil.SoilProperties`).

    Examples
    --------
    >>> from components.soil import preset, n_factors
    >>> fits = fit_n_factors(preset("gravel"))
    >>> a = 47.3
    >>> a_r = math.radians(a)
    >>> bool(abs(fits["N_gamma"](a_r) / math.sin(a_r) - n_factors(a, preset("gravel"))["N_gamma"]) < 1e-6)
    True
    """
    return dict(_fits(soil, degree))


@functools.lru_cache(maxsize=16)
def _fits(soil: SoilProperties, degree: int) -> tuple:
    """:func:`fit_n_factors` as ``(name, fit)`` pairs, kept per soil (a machine built again fits once)."""
    lo, hi = (math.radians(v) for v in RAKE_RANGE)
    nodes = np.polynomial.chebyshev.chebpts1(80) * (hi - lo) / 2 + (hi + lo) / 2
    N = n_factors(np.degrees(nodes), soil)
    fine = np.linspace(lo, hi, 401)
    Nf = n_factors(np.degrees(fine), soil)
    out, bad = {}, []
    for k in ("N_gamma", "N_c", "N_ca"):
        fit = np.polynomial.Chebyshev.fit(nodes, N[k] * np.sin(nodes), degree, domain=[lo, hi])
        err = float(np.max(np.abs(fit(fine) / np.sin(fine) - Nf[k])) / max(np.max(np.abs(Nf[k])), 1e-12))
        if err > 1e-6:
            bad.append(f"{k}: fit off by {err:.1e} of its largest value")
        out[k] = fit
    if bad:
        raise ParameterError(bad, subject="soil N-factor fits")
    return tuple(out.items())


def _poly(fit: np.polynomial.Chebyshev, a: sp.Expr) -> sp.Expr:
    """The fit as a Horner polynomial of the scaled variable ``u ∈ [−1, 1]``."""
    lo, hi = fit.domain
    if a.is_number:      # a fixed rake: one number, not a nested expression of π
        return sp.Float(float(fit(float(a))))
    u = (2 * a - (lo + hi)) / (hi - lo)
    coeffs = np.polynomial.chebyshev.cheb2poly(fit.coef)
    expr = sp.Float(coeffs[-1])
    for c in coeffs[-2::-1]:
        expr = expr * u + sp.Float(c)
    return expr


def _step(x, width):
    """Smooth 0 → 1 around ``x = 0`` over about ``±2·width``."""
    return (1 + sp.tanh(x / width)) / 2


class SoilTool(BondGraph):
    """A cutting edge in soil (see the module text for the elements and laws).

    Parameters
    ----------
    name : str
    soil : SoilProperties
    width : float
        w, m: the cutting width.
    capacity : float
        Heaped capacity, m³ (loose volume).
    position : (expr, expr)
        The edge's world x and y as expressions of the model's displacement handles.
    face_angle : expr
        ψ: the world angle (rad) of the tool's face, from the edge into the bucket.
    ground : float, sequence of (x, y) or GroundProfile
    creep_velocity : float
        v₀, m/s: the speed below which the Coulomb-like forces fade (regularisation).
    edge_thickness : float
        b, m: the bearing strip of the edge for the penetration resistance.
    dump_angle : float
        rad: the payload leaves once ψ is above it and the edge ``dump_clearance`` above
        the ground.
    dump_time : float
        τ, s.
    dump_clearance : float
        m.

    Attributes
    ----------
    fill : sympy symbol
        The handle of the loose volume in the bucket (m³).
    depth, rake : sympy expressions
        The cutting depth (m) and rake (rad) in terms of the handles.

    Examples
    --------
    >>> import sympy as sp
    >>> from components.soil import preset
    >>> x, y = sp.symbols("x y")
    >>> tool = SoilTool("soil", preset("gravel"), width=1.2, capacity=1.0, position=(x, y),
    ...                 face_angle=sp.pi / 4, ground=-1.7)
    >>> sorted(tool.ports)
    ['load', 'x', 'y']
    >>> SoilTool("soil", preset("gravel"), width=0.0, capacity=-1.0, position=(x, y), face_angle=0, ground=0)
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: soil tool 'soil': 2 problems
      - 'width': found 0.0 m, expected > 0
      - 'capacity': found -1.0 m^3, expected > 0
    """

    def __init__(self, name: str, soil: SoilProperties, *, width: float, capacity: float,
                 position: tuple[Any, Any], face_angle: Any, ground: Any,
                 creep_velocity: float = 0.02, edge_thickness: float = 0.025,
                 dump_angle: float = math.radians(60.0), dump_time: float = 0.3,
                 dump_clearance: float = 0.2):
        super().__init__(name)
        problems = []
        for key, v, unit in (("width", width, "m"), ("capacity", capacity, "m^3"),
                             ("creep_velocity", creep_velocity, "m/s"), ("edge_thickness", edge_thickness, "m"),
                             ("dump_time", dump_time, "s"), ("dump_clearance", dump_clearance, "m")):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or not v > 0:
                problems.append(f"{key!r}: found {v!r} {unit}, expected > 0")
        if not isinstance(soil, SoilProperties):
            problems.append(f"'soil': found {type(soil).__name__}, expected SoilProperties")
        if problems:
            raise ParameterError(problems, subject=f"soil tool {name!r}")
        self.soil, self.width, self.capacity = soil, float(width), float(capacity)
        profile = ground if isinstance(ground, GroundProfile) else GroundProfile(ground)
        self.ground = profile
        x, y = (sp.sympify(v) for v in position)
        psi = sp.sympify(face_angle)
        g, sigma = profile.expressions(x)
        ct, st = sp.cos(sigma), sp.sin(sigma)
        d = sp.Max((g - y) * ct, 0)
        lo, hi = (math.radians(v) for v in RAKE_RANGE)
        cos_face = sp.cos(psi - sigma)
        c = sp.Min(sp.Max(sp.Abs(cos_face), math.cos(hi)), math.cos(lo))
        a = sp.acos(c)
        fits = fit_n_factors(soil)
        sin_a = sp.sqrt(1 - c**2)
        Ng, Nc, Nca = (_poly(fits[k], a) / sin_a for k in ("N_gamma", "N_c", "N_ca"))
        s = soil
        delta = math.radians(s.tool_friction_angle)
        # the terms of the soil's nonzero properties: 0·N would make sympy ask whether N is finite,
        # the longest part of the tool's build (a cohesionless soil has no c and no adhesion)
        P = s.unit_weight * d**2 * Ng
        if s.cohesion:
            P = P + s.cohesion * d * Nc
        if s.adhesion:
            P = P + s.adhesion * d * Nca
        if s.surcharge:
            P = P + s.surcharge * d * 2 * Ng
        P = self.width * P
        H = P * (sin_a * math.cos(delta) + c * math.sin(delta))
        if s.adhesion:
            H = H + s.adhesion * d * self.width * c / sin_a
        self.depth, self.rake, self.draft = d, a, H
        v0 = float(creep_velocity)
        F_pen = self.width * float(edge_thickness) * penetration_pressure(d, float(edge_thickness), s)
        # the cutting direction: the face trails it (sign of cos(ψ − σ), smoothed)
        sgn = sp.tanh(cos_face / 0.01)
        fill = One("fill", displacement="volume", initial=0.0)
        V = fill.displacement
        self.fill = V
        cap = self.capacity
        keep = (1 - sp.tanh((V - cap) / (0.001 * cap))) / 2
        clear = y - g
        dumping = _step(psi - dump_angle, math.radians(3.0)) * _step(clear - dump_clearance, 0.02)
        self.add(One("vx"), One("vy"), Zero("t"), Zero("n"), One("cut"), fill, Zero("fill_in"),
                 MTF("xt", ct), MTF("yt", st), MTF("xn", -st), MTF("yn", ct),
                 R("cutting", effort=lambda f: H * sp.tanh(f / v0)),
                 R("penetration", effort=lambda f: F_pen * sp.tanh(f / v0) * (1 - sp.tanh(f / v0)) / 2),
                 MTF("sweep", -self.width * d * s.swell * sgn * keep),
                 MSf("dump", -V / float(dump_time) * dumping),
                 One("vload"), MSe("payload", -V * s.unit_weight / s.swell))
        for a_, b_ in [("vx", "xt/1"), ("xt/2", "t"), ("vy", "yt/1"), ("yt/2", "t"),
                       ("vx", "xn/1"), ("xn/2", "n"), ("vy", "yn/1"), ("yn/2", "n"),
                       ("t", "cut"), ("cut", "cutting"), ("n", "penetration"),
                       ("cut", "sweep/1"), ("sweep/2", "fill_in"), ("dump", "fill_in"), ("fill_in", "fill"),
                       ("payload", "vload")]:
            self.connect(a_, b_)
        self.expose("x", "vx", "flow-in", "edge x velocity")
        self.expose("y", "vy", "flow-in", "edge y velocity")
        self.expose("load", "vload", "flow-in", "payload point y velocity")
