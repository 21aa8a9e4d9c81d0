"""Four-bar linkage driven by a hydraulic cylinder on the crank: Kane
(sympy.physics.mechanics) inverse and forward dynamics, and closed-form
kinematics.

Model (planar, world frame: x horizontal, y up, gravity ``-g`` along y,
angles counter-clockwise positive from world x):

* Ground pivots ``O1`` and ``O2`` (world points).
* **Crank** ``O1 -> P``, length ``a``, absolute angle ``theta_a``:
  ``P = O1 + a e(theta_a)`` with ``e(x) = (cos x, sin x)``.  Its body frame
  has origin ``O1`` and x axis along ``O1 -> P``.
* **Coupler** ``P -> Q``, length ``b``, absolute angle ``theta_b``:
  ``Q = P + b e(theta_b)``.
* **Rocker** ``O2 -> Q``, length ``c``, absolute angle ``theta_c``:
  ``Q = O2 + c e(theta_c)``.
* The three links are uniform slender bars: centre of gravity at the
  midpoint, mass ``m_a, m_b, m_c``, centroidal inertia ``m L^2 / 12`` unless
  ``I_a, I_b, I_c`` are given.
* **Cylinder** from the ground point ``A`` to the crank point ``D``
  (``D_body`` in the crank frame): pin-to-pin length ``s = |D - A|``, axis
  angle ``phi`` of ``A -> D``; barrel (``m1``, CoG at ``d1`` from ``A``,
  centroidal inertia ``J1``) and rod (``m2``, CoG at ``d2`` from ``D`` back
  along the axis, ``J2``) exactly as in :mod:`.boom`; massless when all four
  are zero.  Actuator force ``F`` positive pushing (extending ``s``).
* No friction; ideal pins.

Kane's method with ``q = (s, theta_a, theta_b, theta_c, phi)``, ``u = q'``,
**independent coordinate ``s``**, and four holonomic loop-closure
constraints

    O1 + a e(theta_a) + b e(theta_b) - O2 - c e(theta_c) = 0,
    A + s e(phi) - O1 - R(theta_a) D_body = 0.

Assembly branches
-----------------
``branch`` (four-bar): +1 when ``Q`` is to the left of the directed line
``P -> O2`` (``cross(O2 - P, Q - P) > 0``); with the default data that is the
open, "elbow-up" assembly with ``Q`` above the ground line.  ``cyl_branch``
(cylinder/crank triangle): +1 when ``cross(A - O1, D - O1) > 0`` (``D``
counter-clockwise of ``A`` seen from ``O1``); on it ``ds/dtheta_a > 0``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable

import numpy as np
import sympy as sm
import sympy.physics.mechanics as me

from ._kane import (
    CompiledModel,
    compile_model,
    cylinder_bodies,
    evaluate_history,
    forward_dynamics,
    inverse_dynamics,
    scan_roots,
)

__all__ = [
    "FourBarCylinder",
    "DEFAULT_FOURBAR",
    "fourbar_crank_from_length",
    "fourbar_length_from_crank",
    "fourbar_angles",
    "fourbar_kinematics",
    "fourbar_static_force",
    "fourbar_lagrange_force",
    "fourbar_cylinder_inverse",
    "fourbar_cylinder_forward",
]


@dataclass(frozen=True)
class FourBarCylinder:
    """Data of the cylinder-driven four-bar (SI units).

    Attributes
    ----------
    O1, O2 : tuple of float
        Crank and rocker ground pivots, world frame [m].
    a, b, c : float
        Crank ``O1-P``, coupler ``P-Q`` and rocker ``O2-Q`` lengths [m].
    m_a, m_b, m_c : float
        Link masses [kg] (uniform bars, CoG at the midpoint).
    I_a, I_b, I_c : float or None
        Centroidal inertias [kg m^2]; ``None`` means ``m L^2 / 12``.
    A : tuple of float
        Cylinder root on the ground, world frame [m].
    D_body : tuple of float
        Rod-eye pin on the crank, crank frame (origin ``O1``, x axis toward
        ``P``) [m].
    g : float
        Gravity [m/s^2] along world -y.
    m1, d1, J1, m2, d2, J2 : float
        Barrel and rod data as in :class:`.boom.BoomCylinder` (illustrative).

    Notes
    -----
    Defaults: ``O1 = (0, 0)``, ``O2 = (1, 0)``, ``a = 0.3``, ``b = 1.0``,
    ``c = 0.8`` -- a Grashof crank-rocker (0.3 + 1.0 <= 0.8 + 1.0, crank
    shortest) whose transmission angle stays within about 44 deg .. 92 deg for
    every crank angle, so the linkage itself is never singular.  The cylinder
    ``A = (0.6, -0.1)``, ``D_body = (0.2, 0.04)`` reaches its dead centre at
    ``theta_a ~ 159 deg`` (``s ~ 0.812``) and ``-21 deg`` (``s ~ 0.404``); the
    recommended stroke is ``s`` in ``[0.46, 0.76]`` m (``theta_a`` about
    15 deg .. 111 deg, ``ds/dtheta_a >= 0.12`` m/rad).  Masses: crank 2 kg,
    coupler 5 kg, rocker 4 kg, barrel 3 kg, rod 2 kg (all illustrative).
    """

    O1: tuple[float, float] = (0.0, 0.0)
    O2: tuple[float, float] = (1.0, 0.0)
    a: float = 0.3
    b: float = 1.0
    c: float = 0.8
    m_a: float = 2.0
    m_b: float = 5.0
    m_c: float = 4.0
    I_a: float | None = None
    I_b: float | None = None
    I_c: float | None = None
    A: tuple[float, float] = (0.6, -0.1)
    D_body: tuple[float, float] = (0.2, 0.04)
    g: float = 9.81
    m1: float = 3.0
    d1: float = 0.15
    J1: float = 0.02
    m2: float = 2.0
    d2: float = 0.15
    J2: float = 0.01

    def inertias(self) -> tuple[float, float, float]:
        """Centroidal inertias actually used (``m L^2 / 12`` where ``None``)."""
        f = lambda I, m, L: float(m * L**2 / 12.0 if I is None else I)  # noqa: E731
        return f(self.I_a, self.m_a, self.a), f(self.I_b, self.m_b, self.b), f(self.I_c, self.m_c, self.c)

    def values(self) -> tuple[float, ...]:
        """Flat parameter vector in the order of the symbolic model."""
        Ia, Ib, Ic = self.inertias()
        return tuple(
            float(x)
            for x in (
                *self.O1, *self.O2, self.a, self.b, self.c, self.m_a, self.m_b, self.m_c, Ia, Ib, Ic,
                *self.A, *self.D_body, self.g, self.m1, self.d1, self.J1, self.m2, self.d2, self.J2,
            )
        )


#: Default crank-rocker with a cylinder of illustrative mass.
DEFAULT_FOURBAR = FourBarCylinder()


def _e(x):
    return np.stack([np.cos(x), np.sin(x)], axis=-1)


def _cross(a, b):
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


# ----------------------------------------------------------------------------
# closed-form kinematics
# ----------------------------------------------------------------------------
def _cyl_triangle(geom: FourBarCylinder):
    O1 = np.asarray(geom.O1, float)
    A = np.asarray(geom.A, float)
    Db = np.asarray(geom.D_body, float)
    rD = float(np.hypot(*Db))
    dA = float(np.hypot(*(A - O1)))
    psiA = float(np.arctan2(A[1] - O1[1], A[0] - O1[0]))
    betaD = float(np.arctan2(Db[1], Db[0]))
    return O1, A, Db, rD, dA, psiA, betaD


def fourbar_length_from_crank(geom: FourBarCylinder, theta_a) -> np.ndarray:
    """Cylinder length ``|O1 + R(theta_a) D_body - A|`` [m].

    Examples
    --------
    >>> round(float(fourbar_length_from_crank(DEFAULT_FOURBAR, np.pi / 2)), 6)
    0.706824
    """
    O1, A, Db, rD, dA, psiA, betaD = _cyl_triangle(geom)
    gamma = np.asarray(theta_a, float) + betaD - psiA
    return np.sqrt(rD**2 + dA**2 - 2 * rD * dA * np.cos(gamma))


def fourbar_crank_from_length(geom: FourBarCylinder, s, cyl_branch: int = 1) -> np.ndarray:
    """Crank angle from the cylinder length (law of cosines in the triangle
    ``O1, A, D``): ``theta_a = atan2(A - O1) + cyl_branch * acos((rD^2 + dA^2 -
    s^2) / (2 rD dA)) - atan2(D_body)``, wrapped to ``(-pi, pi]``."""
    O1, A, Db, rD, dA, psiA, betaD = _cyl_triangle(geom)
    s = np.asarray(s, float)
    gamma = np.arccos((rD**2 + dA**2 - s**2) / (2 * rD * dA))
    return np.angle(np.exp(1j * (psiA + cyl_branch * gamma - betaD)))


def fourbar_angles(geom: FourBarCylinder, theta_a, branch: int = 1) -> dict[str, np.ndarray]:
    """Closed-form position analysis for a given crank angle (intersection of
    the circles ``|Q - P| = b`` and ``|Q - O2| = c``).

    Returns ``theta_b``, ``theta_c`` [rad] and world points ``P``, ``Q``
    (shape ``(..., 2)``).  Raises ``ValueError`` if the loop cannot close.

    Examples
    --------
    >>> r = fourbar_angles(DEFAULT_FOURBAR, np.pi / 2)
    >>> round(float(np.degrees(r["theta_b"])), 4), round(float(np.degrees(r["theta_c"])), 4)
    (29.3194, 99.2139)
    """
    O1 = np.asarray(geom.O1, float)
    O2 = np.asarray(geom.O2, float)
    th = np.asarray(theta_a, float)
    P = O1 + geom.a * _e(th)
    dvec = O2 - P
    d = np.hypot(dvec[..., 0], dvec[..., 1])
    alpha = (geom.b**2 - geom.c**2 + d**2) / (2 * d)
    h2 = geom.b**2 - alpha**2
    if np.any(h2 < 0):
        raise ValueError("four-bar cannot be assembled at this crank angle")
    h = np.sqrt(h2)
    ex = dvec / d[..., None]
    ny = np.stack([-ex[..., 1], ex[..., 0]], axis=-1)
    Q = P + alpha[..., None] * ex + branch * h[..., None] * ny
    thb = np.arctan2(Q[..., 1] - P[..., 1], Q[..., 0] - P[..., 0])
    thc = np.arctan2(Q[..., 1] - O2[1], Q[..., 0] - O2[0])
    return {"theta_b": thb, "theta_c": thc, "P": P, "Q": Q}


def fourbar_kinematics(
    geom: FourBarCylinder, s, s_dot=0.0, s_ddot=0.0, branch: int = 1, cyl_branch: int = 1
) -> dict[str, np.ndarray]:
    """Closed-form kinematics from the cylinder length history.

    Returns
    -------
    dict
        ``theta_a/b/c``, ``omega_a/b/c`` (angular velocities), ``alpha_a/b/c``
        (angular accelerations), ``phi``, ``phi_dot`` (cylinder axis ``A -> D``)
        and ``ds_dtheta_a``.

    Notes
    -----
    Crank: ``s' = rD dA sin(gamma) / s`` (``gamma = theta_a + atan2(D_body) -
    atan2(A - O1)``), ``s'' = (rD dA cos(gamma) - s'^2) / s``,
    ``omega_a = s_dot / s'``, ``alpha_a = (s_ddot - s'' omega_a^2) / s'``.
    Loop ``a e_a + b e_b - c e_c = const`` differentiated and dotted with
    ``e_c`` and ``e_b``:
    ``omega_b = a omega_a sin(th_c - th_a) / (b sin(th_b - th_c))``,
    ``omega_c = a omega_a sin(th_b - th_a) / (c sin(th_b - th_c))``, and
    ``alpha_b = [a alpha_a sin(th_c - th_a) - a omega_a^2 cos(th_a - th_c)
    - b omega_b^2 cos(th_b - th_c) + c omega_c^2] / (b sin(th_b - th_c))``,
    ``alpha_c = [a alpha_a sin(th_b - th_a) - a omega_a^2 cos(th_a - th_b)
    - b omega_b^2 + c omega_c^2 cos(th_b - th_c)] / (c sin(th_b - th_c))``.
    """
    O1, A, Db, rD, dA, psiA, betaD = _cyl_triangle(geom)
    s = np.asarray(s, float)
    sd = np.broadcast_to(np.asarray(s_dot, float), s.shape)
    sdd = np.broadcast_to(np.asarray(s_ddot, float), s.shape)
    tha = fourbar_crank_from_length(geom, s, cyl_branch)
    gamma = tha + betaD - psiA
    s1 = rD * dA * np.sin(gamma) / s
    s2 = (rD * dA * np.cos(gamma) - s1**2) / s
    wa = sd / s1
    aa = (sdd - s2 * wa**2) / s1
    ang = fourbar_angles(geom, tha, branch)
    thb, thc = ang["theta_b"], ang["theta_c"]
    a, b, c = geom.a, geom.b, geom.c
    sbc = np.sin(thb - thc)
    wb = a * wa * np.sin(thc - tha) / (b * sbc)
    wc = a * wa * np.sin(thb - tha) / (c * sbc)
    ab = (a * aa * np.sin(thc - tha) - a * wa**2 * np.cos(tha - thc) - b * wb**2 * np.cos(thb - thc) + c * wc**2) / (b * sbc)
    ac = (a * aa * np.sin(thb - tha) - a * wa**2 * np.cos(tha - thb) - b * wb**2 + c * wc**2 * np.cos(thb - thc)) / (c * sbc)
    Dw = O1 + rD * _e(tha + betaD)
    DA = Dw - A
    Ddot = wa[..., None] * np.stack([-(Dw[..., 1] - O1[1]), Dw[..., 0] - O1[0]], axis=-1)
    phi = np.arctan2(DA[..., 1], DA[..., 0])
    phid = _cross(DA, Ddot) / s**2
    return {
        "theta_a": tha, "theta_b": thb, "theta_c": thc,
        "omega_a": wa, "omega_b": wb, "omega_c": wc,
        "alpha_a": aa, "alpha_b": ab, "alpha_c": ac,
        "phi": phi, "phi_dot": phid, "ds_dtheta_a": s1,
        "P": ang["P"], "Q": ang["Q"], "D": Dw,
    }


def fourbar_static_force(geom: FourBarCylinder, s, branch: int = 1, cyl_branch: int = 1) -> np.ndarray:
    """Axial cylinder force [N] (positive pushing) holding the linkage at rest
    at length ``s``, by virtual work with the closed-form velocity ratios:
    ``F = dV/ds = sum_i m_i g dy_i/ds`` over crank, coupler, rocker, barrel
    and rod centres of gravity.
    """
    k = fourbar_kinematics(geom, s, 1.0, 0.0, branch, cyl_branch)  # rates = d/ds
    a, b, c, g = geom.a, geom.b, geom.c, geom.g
    s = np.asarray(s, float)
    ya = 0.5 * a * np.cos(k["theta_a"]) * k["omega_a"]
    yb = a * np.cos(k["theta_a"]) * k["omega_a"] + 0.5 * b * np.cos(k["theta_b"]) * k["omega_b"]
    yc = 0.5 * c * np.cos(k["theta_c"]) * k["omega_c"]
    y1 = geom.d1 * np.cos(k["phi"]) * k["phi_dot"]
    y2 = np.sin(k["phi"]) + (s - geom.d2) * np.cos(k["phi"]) * k["phi_dot"]
    return g * (geom.m_a * ya + geom.m_b * yb + geom.m_c * yc + geom.m1 * y1 + geom.m2 * y2)


def _fourbar_effective_mass(geom: FourBarCylinder, s, branch: int, cyl_branch: int) -> np.ndarray:
    k = fourbar_kinematics(geom, s, 1.0, 0.0, branch, cyl_branch)  # rates per unit s_dot
    Ia, Ib, Ic = geom.inertias()
    a, b, c = geom.a, geom.b, geom.c
    wa, wb, wc, wp = k["omega_a"], k["omega_b"], k["omega_c"], k["phi_dot"]
    s = np.asarray(s, float)
    vgb2 = a**2 * wa**2 + b**2 / 4 * wb**2 + a * b * wa * wb * np.cos(k["theta_a"] - k["theta_b"])
    return (
        (geom.m_a * a**2 / 4 + Ia) * wa**2
        + geom.m_b * vgb2 + Ib * wb**2
        + (geom.m_c * c**2 / 4 + Ic) * wc**2
        + (geom.m1 * geom.d1**2 + geom.J1 + geom.m2 * (s - geom.d2) ** 2 + geom.J2) * wp**2
        + geom.m2
    )


def fourbar_lagrange_force(
    geom: FourBarCylinder, s, s_dot, s_ddot, branch: int = 1, cyl_branch: int = 1, h: float = 1e-6
) -> np.ndarray:
    """Actuator force from Lagrange's equation in the single coordinate ``s``
    with the closed-form kinematics (independent of Kane):
    ``F = m(s) s'' + 1/2 m'(s) s'^2 + dV/ds`` where ``2 T = m(s) s'^2`` sums
    crank (about ``O1``), coupler (CoG velocity ``v_P + (b/2) omega_b e_b^perp``),
    rocker (about ``O2``), barrel and rod; ``dV/ds`` =
    :func:`fourbar_static_force`; ``m'(s)`` by central differences (step
    ``h``; relative accuracy about 1e-9).
    """
    s = np.asarray(s, float)
    sd = np.asarray(s_dot, float)
    sdd = np.asarray(s_ddot, float)
    m = _fourbar_effective_mass(geom, s, branch, cyl_branch)
    dm = (_fourbar_effective_mass(geom, s + h, branch, cyl_branch) - _fourbar_effective_mass(geom, s - h, branch, cyl_branch)) / (2 * h)
    return m * sdd + 0.5 * dm * sd**2 + fourbar_static_force(geom, s, branch, cyl_branch)


# ----------------------------------------------------------------------------
# Kane model
# ----------------------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def _model() -> CompiledModel:
    t = me.dynamicsymbols._t
    s, tha, thb, thc, ph = me.dynamicsymbols("s theta_a theta_b theta_c phi")
    us, ua, ub, uc, uph = me.dynamicsymbols("u_s u_a u_b u_c u_phi")
    O1x, O1y, O2x, O2y, a, b, c = sm.symbols("O1_x O1_y O2_x O2_y a b c")
    ma, mb, mc, Ia, Ib, Ic = sm.symbols("m_a m_b m_c I_a I_b I_c")
    Ax, Ay, Dx, Dy, g = sm.symbols("A_x A_y D_x D_y g")
    m1, d1, J1, m2, d2, J2, F = sm.symbols("m_1 d_1 J_1 m_2 d_2 J_2 F")
    params = (O1x, O1y, O2x, O2y, a, b, c, ma, mb, mc, Ia, Ib, Ic, Ax, Ay, Dx, Dy, g, m1, d1, J1, m2, d2, J2)
    N = me.ReferenceFrame("N")
    Fa = N.orientnew("Crank", "Axis", (tha, N.z))
    Fb = N.orientnew("Coupler", "Axis", (thb, N.z))
    Fc = N.orientnew("Rocker", "Axis", (thc, N.z))
    for fr, w in ((Fa, ua), (Fb, ub), (Fc, uc)):
        fr.set_ang_vel(N, w * N.z)
    O = me.Point("O")
    O.set_vel(N, 0)
    O1 = O.locatenew("O1", O1x * N.x + O1y * N.y)
    O1.set_vel(N, 0)
    O2 = O.locatenew("O2", O2x * N.x + O2y * N.y)
    O2.set_vel(N, 0)
    Ap = O.locatenew("A", Ax * N.x + Ay * N.y)
    Ap.set_vel(N, 0)
    P = O1.locatenew("P", a * Fa.x)
    P.v2pt_theory(O1, N, Fa)
    Ga = O1.locatenew("Ga", a / 2 * Fa.x)
    Ga.v2pt_theory(O1, N, Fa)
    Dp = O1.locatenew("D", Dx * Fa.x + Dy * Fa.y)
    Dp.v2pt_theory(O1, N, Fa)
    Gb = P.locatenew("Gb", b / 2 * Fb.x)
    Gb.v2pt_theory(P, N, Fb)
    Q = P.locatenew("Q", b * Fb.x)
    Q.v2pt_theory(P, N, Fb)
    Gc = O2.locatenew("Gc", c / 2 * Fc.x)
    Gc.v2pt_theory(O2, N, Fc)
    Qc = O2.locatenew("Qc", c * Fc.x)
    crank = me.RigidBody("crank", Ga, Fa, ma, (me.inertia(Fa, 0, 0, Ia), Ga))
    coupler = me.RigidBody("coupler", Gb, Fb, mb, (me.inertia(Fb, 0, 0, Ib), Gb))
    rocker = me.RigidBody("rocker", Gc, Fc, mc, (me.inertia(Fc, 0, 0, Ic), Gc))
    cyl_bodies, cyl_loads, cyl_pe, cyl_pts = cylinder_bodies(N, Ap, ph, s, uph, us, m1, d1, J1, m2, d2, J2, g, F, O)
    Cyl = cyl_bodies[0].frame
    loop1 = Q.pos_from(O) - Qc.pos_from(O)
    loop2 = Ap.pos_from(O) + s * Cyl.x - Dp.pos_from(O)
    conf = [loop1.dot(N.x), loop1.dot(N.y), loop2.dot(N.x), loop2.dot(N.y)]
    qs = [s, tha, thb, thc, ph]
    uu = [us, ua, ub, uc, uph]
    qd = {qi.diff(t): ui for qi, ui in zip(qs, uu)}
    vel = [sm.diff(cc, t).xreplace(qd) for cc in conf]
    km = me.KanesMethod(
        N,
        q_ind=[s],
        u_ind=[us],
        kd_eqs=[qi.diff(t) - ui for qi, ui in zip(qs, uu)],
        q_dependent=qs[1:],
        configuration_constraints=conf,
        u_dependent=uu[1:],
        velocity_constraints=vel,
    )
    bodies = [crank, coupler, rocker, *cyl_bodies]
    loads = [(Ga, -ma * g * N.y), (Gb, -mb * g * N.y), (Gc, -mc * g * N.y), *cyl_loads]
    km.kanes_equations(bodies, loads)
    ke = sum(bd.kinetic_energy(N) for bd in bodies)
    pe = g * (ma * Ga.pos_from(O).dot(N.y) + mb * Gb.pos_from(O).dot(N.y) + mc * Gc.pos_from(O).dot(N.y)) + cyl_pe
    xy = lambda Pt: sm.Matrix([Pt.pos_from(O).dot(N.x), Pt.pos_from(O).dot(N.y)])  # noqa: E731
    points = {"P": xy(P), "Q": xy(Q), "D": xy(Dp), "barrel_cog": xy(cyl_pts["barrel_cog"]), "rod_cog": xy(cyl_pts["rod_cog"])}
    return compile_model(km, qs, uu, params, F, conf, ke, pe, points)


def _initial_guess(geom: FourBarCylinder, s0: float, branch: int, cyl_branch: int) -> np.ndarray:
    """(theta_a, theta_b, theta_c, phi) for length ``s0`` by numerical scans
    (independent of the closed-form formulas above)."""
    O1 = np.asarray(geom.O1, float)
    O2 = np.asarray(geom.O2, float)
    A = np.asarray(geom.A, float)
    Db = np.asarray(geom.D_body, float)
    rot = lambda x: np.array([[np.cos(x), -np.sin(x)], [np.sin(x), np.cos(x)]])  # noqa: E731
    Dw = lambda x: O1 + rot(x) @ Db  # noqa: E731
    tha = None
    for x in scan_roots(lambda x: float(np.linalg.norm(Dw(x) - A) - s0), -np.pi, np.pi):
        if np.sign(_cross(A - O1, Dw(x) - O1)) == cyl_branch:
            tha = x
            break
    if tha is None:
        raise ValueError(f"cylinder length {s0} m cannot be assembled on cyl_branch {cyl_branch}")
    P = O1 + geom.a * _e(tha)
    Qw = lambda x: O2 + geom.c * _e(x)  # noqa: E731
    for thc in scan_roots(lambda x: float(np.linalg.norm(Qw(x) - P) - geom.b), -np.pi, np.pi):
        Q = Qw(thc)
        if np.sign(_cross(O2 - P, Q - P)) == branch:
            D = Dw(tha)
            return np.array([tha, np.arctan2(Q[1] - P[1], Q[0] - P[0]), thc, np.arctan2(D[1] - A[1], D[0] - A[0])])
    raise ValueError(f"four-bar cannot be assembled on branch {branch} at s = {s0}")


def _pack(res: dict, t: np.ndarray, geom: FourBarCylinder, model: CompiledModel) -> dict[str, np.ndarray]:
    Q, U, Ad = res["q"], res["u"], res["udot"]
    p = geom.values()
    out = {"t": t, "length": Q[:, 0], "length_dot": U[:, 0], "length_ddot": Ad[:, 0]}
    for i, nm in enumerate(("a", "b", "c"), start=1):
        out[f"theta_{nm}"] = Q[:, i]
        out[f"omega_{nm}"] = U[:, i]
        out[f"alpha_{nm}"] = Ad[:, i]
    out.update(
        phi=Q[:, 4], phi_dot=U[:, 4], phi_ddot=Ad[:, 4], F=res["F"],
        constraint_residual=res["constraint_residual"],
        kinetic_energy=res["kinetic_energy"], potential_energy=res["potential_energy"],
    )
    for name, fun in model.points.items():
        out[name] = np.array([np.asarray(fun(q, u, p), float).ravel() for q, u in zip(Q, U)])
    return out


def fourbar_cylinder_inverse(
    geom: FourBarCylinder,
    s_of_t: Callable[[np.ndarray], np.ndarray] | np.ndarray,
    s_dot: Callable[[np.ndarray], np.ndarray] | np.ndarray,
    s_ddot: Callable[[np.ndarray], np.ndarray] | np.ndarray,
    t: np.ndarray,
    branch: int = 1,
    cyl_branch: int = 1,
) -> dict[str, np.ndarray]:
    """Inverse dynamics: prescribed cylinder length -> all angles, rates and
    the axial actuator force.

    Parameters
    ----------
    geom
        See :class:`FourBarCylinder`.
    s_of_t, s_dot, s_ddot
        Length [m] and its time derivatives (callables of time, scalars or
        arrays shaped like ``t``; mutually consistent).
    t
        Time grid [s].
    branch, cyl_branch
        Assembly branches (module docstring).

    Returns
    -------
    dict
        On ``t``: ``length``, ``length_dot``, ``length_ddot``;
        ``theta_a/b/c``, ``omega_a/b/c``, ``alpha_a/b/c`` (absolute link angles
        from world x and their derivatives); ``phi``, ``phi_dot``,
        ``phi_ddot`` (cylinder axis); ``F`` [N] (positive pushing);
        ``kinetic_energy``, ``potential_energy`` [J]; ``constraint_residual``;
        world points ``P``, ``Q``, ``D``, ``barrel_cog``, ``rod_cog``
        (shape ``(n, 2)``).
    """
    t = np.asarray(t, float)
    model = _model()
    s0 = float(evaluate_history(s_of_t, t)[0])
    res = inverse_dynamics(model, geom.values(), t, s_of_t, s_dot, s_ddot, _initial_guess(geom, s0, branch, cyl_branch))
    return _pack(res, t, geom, model)


def fourbar_cylinder_forward(
    geom: FourBarCylinder,
    F_of_t: Callable[[float], float],
    t: np.ndarray,
    s0: float,
    s_dot0: float = 0.0,
    branch: int = 1,
    cyl_branch: int = 1,
    rtol: float = 1e-12,
    atol: float = 1e-14,
) -> dict[str, np.ndarray]:
    """Forward dynamics: prescribed axial force ``F_of_t(t)`` [N] (positive
    pushing) -> motion, from rest (or ``s_dot0``) at length ``s0``.

    Same outputs as :func:`fourbar_cylinder_inverse`.  Integrated by
    coordinate partitioning (``s, s'`` with ``solve_ivp(method='DOP853')``);
    no end stops.
    """
    t = np.asarray(t, float)
    model = _model()
    res = forward_dynamics(
        model, geom.values(), t, F_of_t, s0, s_dot0, _initial_guess(geom, s0, branch, cyl_branch), rtol=rtol, atol=atol
    )
    out = _pack(res, t, geom, model)
    out["nfev"] = res["nfev"]
    return out
