"""Boom lifted by one hydraulic cylinder: Kane (sympy.physics.mechanics)
inverse and forward dynamics, and closed-form kinematics.

Model (planar, world frame ``N``: x horizontal, y up, gravity ``-g`` along y,
angles counter-clockwise positive from world x):

* **Boom**: a rigid body pinned to the chassis at the world point ``C``.  Its
  body frame has its origin at ``C`` and its x axis at angle ``theta`` from
  world x, so a body point ``r_body`` is at ``C + R(theta) r_body`` with
  ``R`` the usual rotation matrix.  Mass ``m_b``, centre of gravity ``G_body``
  (body frame), centroidal moment of inertia ``I_G`` (about z).  The rod eye
  ``B_body`` (body frame) is where the cylinder rod is pinned.
* **Cylinder**: root ``A`` pinned to the chassis (world point), rod eye
  pinned to the boom at ``B``.  Pin-to-pin length ``s = |B - A|`` and axis
  angle ``phi`` (direction ``A -> B``, from world x).  Barrel: mass ``m1``,
  CoG on the axis at ``d1`` from ``A``, centroidal inertia ``J1``.  Rod: mass
  ``m2``, CoG on the axis at ``d2`` from ``B`` back towards ``A`` (i.e. at
  ``s - d2`` from ``A``), centroidal inertia ``J2``.  Barrel and rod rotate
  together with the axis and slide relative to each other along it.
* **Actuator force** ``F``: the hydraulic axial force between barrel and rod,
  positive when pushing (tending to extend ``s``): ``+F`` along ``A -> B`` on
  the rod, ``-F`` on the barrel.
* No friction anywhere; all pins ideal.

Kane's method with generalized coordinates ``q = (s, theta, phi)``, speeds
``u = (s', theta', phi')``; the **independent coordinate is the cylinder
length** ``s``; ``theta`` and ``phi`` are dependent through the two
holonomic loop-closure constraints

    A + s (cos phi, sin phi) - C - R(theta) B_body = 0,

and their time derivatives are the velocity constraints.  The assembly branch
(``branch = +1`` default) is the solution with ``cross(A - C, B - C) > 0``,
i.e. ``B`` lies counter-clockwise of ``A`` seen from ``C``; on that branch
``ds/dtheta > 0`` (extending the cylinder raises the boom).  Kane's equations
break down at the dead centre ``ds/dtheta = 0`` (``B``, ``C`` and ``A``
collinear).  For the default geometry the dead centres are at ``theta ~
-64.0 deg`` (``s = |rB - dA| ~ 1.991 m``) and ``theta ~ 116.0 deg`` (``s = rB
+ dA ~ 4.178 m``), with ``rB = |B_body|`` and ``dA = |A - C|``; keep well
inside, e.g. ``s`` in ``[2.3, 3.9]`` m.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, fields
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
    "BoomCylinder",
    "OPENHYDRAULICS_BOOM",
    "OPENHYDRAULICS_BOOM_MASSLESS_CYLINDER",
    "boom_length_from_theta",
    "boom_theta_from_length",
    "boom_kinematics",
    "boom_static_force",
    "boom_lagrange_force",
    "boom_cylinder_inverse",
    "boom_cylinder_forward",
]


@dataclass(frozen=True)
class BoomCylinder:
    """Geometry and inertia of the boom + cylinder system (SI units).

    Attributes
    ----------
    C : tuple of float
        Boom foot pin, world frame [m].
    A : tuple of float
        Cylinder root pin on the chassis, world frame [m].
    B_body : tuple of float
        Rod-eye pin in the boom body frame (origin ``C``, x axis at ``theta``) [m].
    G_body : tuple of float
        Boom centre of gravity in the boom body frame [m].
    m_b : float
        Boom mass [kg].
    I_G : float
        Boom moment of inertia about its centre of gravity (z axis) [kg m^2].
    g : float
        Gravitational acceleration [m/s^2] (acting along world -y).
    m1, d1, J1 : float
        Barrel mass [kg], distance of its CoG from ``A`` along the axis [m],
        centroidal inertia [kg m^2].
    m2, d2, J2 : float
        Rod mass [kg], distance of its CoG from ``B`` back along the axis [m],
        centroidal inertia [kg m^2].

    Notes
    -----
    The defaults are the OpenHydraulics excavator boom (``C``, ``A``,
    ``B_body``, ``G_body``, ``m_b``, ``I_G``); the cylinder masses and
    inertias (60 kg barrel, 40 kg rod, CoGs 0.6 m from their pins, 5 kg m^2
    each) are **illustrative** values, not published data.
    """

    C: tuple[float, float] = (-0.164, 1.428)
    A: tuple[float, float] = (0.655, 0.703)
    B_body: tuple[float, float] = (2.85, 1.18)
    G_body: tuple[float, float] = (3.44, 0.65)
    m_b: float = 1307.0
    I_G: float = 8060.0
    g: float = 9.81
    m1: float = 60.0
    d1: float = 0.6
    J1: float = 5.0
    m2: float = 40.0
    d2: float = 0.6
    J2: float = 5.0

    def values(self) -> tuple[float, ...]:
        """Flat parameter vector in the order of the symbolic model."""
        out: list[float] = []
        for f in fields(self):
            v = getattr(self, f.name)
            out.extend(v if isinstance(v, tuple) else (v,))
        return tuple(float(x) for x in out)


#: OpenHydraulics excavator boom with the illustrative cylinder masses.
OPENHYDRAULICS_BOOM = BoomCylinder()
#: Same boom with a massless cylinder (m1 = m2 = J1 = J2 = 0).
OPENHYDRAULICS_BOOM_MASSLESS_CYLINDER = BoomCylinder(m1=0.0, J1=0.0, m2=0.0, J2=0.0)


def _rot(th: float) -> np.ndarray:
    return np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]])


def _cross(a, b) -> float:
    return float(a[0] * b[1] - a[1] * b[0])


# ----------------------------------------------------------------------------
# closed-form kinematics (law of cosines)
# ----------------------------------------------------------------------------
def _triangle(geom: BoomCylinder):
    C = np.asarray(geom.C, float)
    A = np.asarray(geom.A, float)
    Bb = np.asarray(geom.B_body, float)
    rB = float(np.hypot(*Bb))
    dA = float(np.hypot(*(A - C)))
    psiA = float(np.arctan2(A[1] - C[1], A[0] - C[0]))
    betaB = float(np.arctan2(Bb[1], Bb[0]))
    return C, A, Bb, rB, dA, psiA, betaB


def boom_length_from_theta(geom: BoomCylinder, theta) -> np.ndarray:
    """Cylinder pin-to-pin length ``s = |C + R(theta) B_body - A|`` [m].

    Examples
    --------
    >>> round(float(boom_length_from_theta(OPENHYDRAULICS_BOOM, 0.0)), 6)
    2.784598
    """
    C, A, Bb, rB, dA, psiA, betaB = _triangle(geom)
    gamma = np.asarray(theta, float) + betaB - psiA
    return np.sqrt(rB**2 + dA**2 - 2.0 * rB * dA * np.cos(gamma))


def boom_theta_from_length(geom: BoomCylinder, s, branch: int = 1) -> np.ndarray:
    """Boom angle from cylinder length by the law of cosines.

    ``theta = atan2(A - C) + branch * acos((rB^2 + dA^2 - s^2) / (2 rB dA))
    - atan2(B_body)``, with ``rB = |B_body|``, ``dA = |A - C|``, wrapped to
    ``(-pi, pi]``.
    """
    C, A, Bb, rB, dA, psiA, betaB = _triangle(geom)
    s = np.asarray(s, float)
    gamma = np.arccos((rB**2 + dA**2 - s**2) / (2.0 * rB * dA))
    th = psiA + branch * gamma - betaB
    return np.angle(np.exp(1j * th))


def boom_kinematics(geom: BoomCylinder, s, s_dot=0.0, s_ddot=0.0, branch: int = 1) -> dict[str, np.ndarray]:
    """Closed-form kinematics from the cylinder length history.

    Returns
    -------
    dict
        ``theta``, ``theta_dot``, ``theta_ddot`` (boom), ``phi``, ``phi_dot``
        (cylinder axis angle, direction ``A -> B``), ``ds_dtheta``,
        ``d2s_dtheta2`` (derivatives of ``s(theta)``), ``B`` (rod eye, world,
        shape ``(..., 2)``).

    Notes
    -----
    ``ds/dtheta = rB dA sin(gamma) / s`` with ``gamma = theta + atan2(B_body)
    - atan2(A - C)``, ``d2s/dtheta2 = (rB dA cos(gamma) - (ds/dtheta)^2) / s``,
    ``theta_dot = s_dot / s'``, ``theta_ddot = (s_ddot - s'' theta_dot^2) / s'``,
    ``phi_dot = cross(B - A, B_dot) / s^2`` with ``B_dot = theta_dot z x (B - C)``.
    """
    C, A, Bb, rB, dA, psiA, betaB = _triangle(geom)
    s = np.asarray(s, float)
    sd = np.broadcast_to(np.asarray(s_dot, float), s.shape)
    sdd = np.broadcast_to(np.asarray(s_ddot, float), s.shape)
    th = boom_theta_from_length(geom, s, branch)
    gamma = th + betaB - psiA
    s1 = rB * dA * np.sin(gamma) / s
    s2 = (rB * dA * np.cos(gamma) - s1**2) / s
    thd = sd / s1
    thdd = (sdd - s2 * thd**2) / s1
    ang = th + betaB
    Bx = C[0] + rB * np.cos(ang)
    By = C[1] + rB * np.sin(ang)
    phi = np.arctan2(By - A[1], Bx - A[0])
    # B_dot = thd * (-(B - C)_y, (B - C)_x)
    Bdx = -thd * (By - C[1])
    Bdy = thd * (Bx - C[0])
    phid = ((Bx - A[0]) * Bdy - (By - A[1]) * Bdx) / s**2
    return {
        "theta": th,
        "theta_dot": thd,
        "theta_ddot": thdd,
        "phi": phi,
        "phi_dot": phid,
        "ds_dtheta": s1,
        "d2s_dtheta2": s2,
        "B": np.stack([Bx, By], axis=-1),
    }


def boom_static_force(geom: BoomCylinder, theta) -> np.ndarray:
    """Axial cylinder force [N] (positive pushing) that holds the boom at
    rest at angle ``theta``, by virtual work (closed form, independent of
    Kane): ``F = (dV/dtheta) / (ds/dtheta)`` with ``V`` the gravitational
    potential of boom, barrel and rod.

    Examples
    --------
    >>> round(float(boom_static_force(OPENHYDRAULICS_BOOM_MASSLESS_CYLINDER, 0.5)), 1)
    34195.6
    """
    C, A, Bb, rB, dA, psiA, betaB = _triangle(geom)
    th = np.asarray(theta, float)
    g = geom.g
    Gb = np.asarray(geom.G_body, float)
    # boom CoG relative to C, rotated
    Gx = np.cos(th) * Gb[0] - np.sin(th) * Gb[1]
    dyG = Gx  # d/dtheta of y_G = x-component of (G - C)
    ang = th + betaB
    BCx, BCy = rB * np.cos(ang), rB * np.sin(ang)
    BAx, BAy = C[0] + BCx - A[0], C[1] + BCy - A[1]
    s = np.hypot(BAx, BAy)
    phi = np.arctan2(BAy, BAx)
    ds = (BAx * (-BCy) + BAy * BCx) / s  # e_phi . dB/dtheta
    dphi = (BAx * BCx - BAy * (-BCy)) / s**2  # cross(B - A, dB/dtheta) / s^2
    dV = g * (
        geom.m_b * dyG
        + geom.m1 * geom.d1 * np.cos(phi) * dphi
        + geom.m2 * (ds * np.sin(phi) + (s - geom.d2) * np.cos(phi) * dphi)
    )
    return dV / ds


def _boom_effective_mass(geom: BoomCylinder, s, branch: int) -> np.ndarray:
    k = boom_kinematics(geom, s, 1.0, 0.0, branch)  # rates per unit s_dot
    th1, ph1 = k["theta_dot"], k["phi_dot"]
    s = np.asarray(s, float)
    Ic = geom.m_b * float(np.dot(geom.G_body, geom.G_body)) + geom.I_G  # boom inertia about C
    Icyl = geom.m1 * geom.d1**2 + geom.J1 + geom.m2 * (s - geom.d2) ** 2 + geom.J2
    return Ic * th1**2 + Icyl * ph1**2 + geom.m2


def boom_lagrange_force(geom: BoomCylinder, s, s_dot, s_ddot, branch: int = 1, h: float = 1e-5) -> np.ndarray:
    """Actuator force from Lagrange's equation in the single coordinate ``s``
    with the closed-form kinematics (a route independent of Kane):

    ``F = m(s) s'' + 1/2 m'(s) s'^2 + dV/ds``,
    ``m(s) = (m_b |G_body|^2 + I_G) (dtheta/ds)^2 + (m1 d1^2 + J1 + m2 (s -
    d2)^2 + J2) (dphi/ds)^2 + m2``, ``dV/ds`` = :func:`boom_static_force`;
    ``m'(s)`` by a central difference of step ``h`` (relative accuracy about
    1e-9).
    """
    s = np.asarray(s, float)
    sd = np.asarray(s_dot, float)
    sdd = np.asarray(s_ddot, float)
    m = _boom_effective_mass(geom, s, branch)
    dm = (_boom_effective_mass(geom, s + h, branch) - _boom_effective_mass(geom, s - h, branch)) / (2 * h)
    return m * sdd + 0.5 * dm * sd**2 + boom_static_force(geom, boom_theta_from_length(geom, s, branch))


# ----------------------------------------------------------------------------
# Kane model
# ----------------------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def _model() -> CompiledModel:
    s, th, ph = me.dynamicsymbols("s theta phi")
    us, uth, uph = me.dynamicsymbols("u_s u_theta u_phi")
    Cx, Cy, Ax, Ay, Bx, By, Gx, Gy = sm.symbols("C_x C_y A_x A_y B_x B_y G_x G_y")
    mb, IG, g, m1, d1, J1, m2, d2, J2, F = sm.symbols("m_b I_G g m_1 d_1 J_1 m_2 d_2 J_2 F")
    params = (Cx, Cy, Ax, Ay, Bx, By, Gx, Gy, mb, IG, g, m1, d1, J1, m2, d2, J2)
    N = me.ReferenceFrame("N")
    Bf = N.orientnew("Boom", "Axis", (th, N.z))
    Bf.set_ang_vel(N, uth * N.z)
    O = me.Point("O")
    O.set_vel(N, 0)
    Cp = O.locatenew("C", Cx * N.x + Cy * N.y)
    Cp.set_vel(N, 0)
    Ap = O.locatenew("A", Ax * N.x + Ay * N.y)
    Ap.set_vel(N, 0)
    Gp = Cp.locatenew("G", Gx * Bf.x + Gy * Bf.y)
    Gp.v2pt_theory(Cp, N, Bf)
    Bp = Cp.locatenew("B", Bx * Bf.x + By * Bf.y)
    Bp.v2pt_theory(Cp, N, Bf)
    boom = me.RigidBody("boom", Gp, Bf, mb, (me.inertia(Bf, 0, 0, IG), Gp))
    cyl_bodies, cyl_loads, cyl_pe, cyl_pts = cylinder_bodies(N, Ap, ph, s, uph, us, m1, d1, J1, m2, d2, J2, g, F, O)
    Cyl = cyl_bodies[0].frame
    loop = Ap.pos_from(O) + s * Cyl.x - Bp.pos_from(O)
    conf = [loop.dot(N.x), loop.dot(N.y)]
    t = me.dynamicsymbols._t
    qd = {s.diff(t): us, th.diff(t): uth, ph.diff(t): uph}
    vel = [sm.diff(c, t).xreplace(qd) for c in conf]
    km = me.KanesMethod(
        N,
        q_ind=[s],
        u_ind=[us],
        kd_eqs=[s.diff(t) - us, th.diff(t) - uth, ph.diff(t) - uph],
        q_dependent=[th, ph],
        configuration_constraints=conf,
        u_dependent=[uth, uph],
        velocity_constraints=vel,
    )
    bodies = [boom, *cyl_bodies]
    km.kanes_equations(bodies, [(Gp, -mb * g * N.y), *cyl_loads])
    ke = sum(b.kinetic_energy(N) for b in bodies)
    pe = mb * g * Gp.pos_from(O).dot(N.y) + cyl_pe
    xy = lambda P: sm.Matrix([P.pos_from(O).dot(N.x), P.pos_from(O).dot(N.y)])  # noqa: E731
    points = {"B": xy(Bp), "G": xy(Gp), "barrel_cog": xy(cyl_pts["barrel_cog"]), "rod_cog": xy(cyl_pts["rod_cog"])}
    return compile_model(km, [s, th, ph], [us, uth, uph], params, F, conf, ke, pe, points)


def _initial_guess(geom: BoomCylinder, s0: float, branch: int) -> np.ndarray:
    """(theta, phi) for length ``s0`` by a numerical scan of ``|B(theta) - A| - s0``
    over ``theta`` in ``[-pi, pi]`` (independent of the law of cosines)."""
    C = np.asarray(geom.C, float)
    A = np.asarray(geom.A, float)
    Bb = np.asarray(geom.B_body, float)
    Bw = lambda th: C + _rot(th) @ Bb  # noqa: E731
    roots = scan_roots(lambda th: float(np.linalg.norm(Bw(th) - A) - s0), -np.pi, np.pi)
    for th in roots:
        if np.sign(_cross(A - C, Bw(th) - C)) == branch:
            B = Bw(th)
            return np.array([th, np.arctan2(B[1] - A[1], B[0] - A[0])])
    raise ValueError(f"cylinder length {s0} m cannot be assembled on branch {branch}")


def _pack(res: dict, t: np.ndarray, geom: BoomCylinder, model: CompiledModel) -> dict[str, np.ndarray]:
    Q, U, Ad = res["q"], res["u"], res["udot"]
    p = geom.values()
    out = {
        "t": t,
        "length": Q[:, 0],
        "length_dot": U[:, 0],
        "length_ddot": Ad[:, 0],
        "theta": Q[:, 1],
        "theta_dot": U[:, 1],
        "theta_ddot": Ad[:, 1],
        "phi": Q[:, 2],
        "phi_dot": U[:, 2],
        "phi_ddot": Ad[:, 2],
        "F": res["F"],
        "constraint_residual": res["constraint_residual"],
        "kinetic_energy": res["kinetic_energy"],
        "potential_energy": res["potential_energy"],
    }
    for name, fun in model.points.items():
        out[name] = np.array([np.asarray(fun(q, u, p), float).ravel() for q, u in zip(Q, U)])
    return out


def boom_cylinder_inverse(
    geom: BoomCylinder,
    s_of_t: Callable[[np.ndarray], np.ndarray] | np.ndarray,
    s_dot: Callable[[np.ndarray], np.ndarray] | np.ndarray,
    s_ddot: Callable[[np.ndarray], np.ndarray] | np.ndarray,
    t: np.ndarray,
    branch: int = 1,
) -> dict[str, np.ndarray]:
    """Inverse dynamics: prescribed cylinder length history -> motion and force.

    Parameters
    ----------
    geom
        System data, see :class:`BoomCylinder`.
    s_of_t, s_dot, s_ddot
        Pin-to-pin length [m], its first and second time derivatives: callables
        of time (vectorised or scalar), scalars, or arrays shaped like ``t``.
        They must be mutually consistent (not checked).
    t
        Time grid [s].
    branch
        Assembly branch (+1: ``B`` counter-clockwise of ``A`` seen from ``C``).

    Returns
    -------
    dict
        Arrays on ``t``: ``theta``, ``theta_dot``, ``theta_ddot`` [rad, rad/s,
        rad/s^2] (boom frame x axis from world x); ``phi``, ``phi_dot``,
        ``phi_ddot`` (cylinder axis ``A -> B`` from world x); ``length``,
        ``length_dot``, ``length_ddot``; ``F`` [N], the axial actuator force
        (positive pushing) solved from Kane's equation for the independent
        speed; ``kinetic_energy``, ``potential_energy`` [J] (PE = sum m g y,
        y from the world origin); ``constraint_residual`` [m]; world positions
        (shape ``(n, 2)``) ``B`` (rod eye), ``G`` (boom CoG), ``barrel_cog``,
        ``rod_cog``.

    Notes
    -----
    ``theta`` and ``phi`` are found by Newton iteration on the two
    loop-closure constraints (continuation along ``t``, first point from a
    numerical scan), the dependent speeds from the velocity constraints, and
    ``(theta'', phi'', F)`` from the 3x3 linear system formed by Kane's
    dynamical equation and the two acceleration constraints.
    """
    t = np.asarray(t, float)
    model = _model()
    s0 = float(evaluate_history(s_of_t, t)[0])
    res = inverse_dynamics(model, geom.values(), t, s_of_t, s_dot, s_ddot, _initial_guess(geom, s0, branch))
    return _pack(res, t, geom, model)


def boom_cylinder_forward(
    geom: BoomCylinder,
    F_of_t: Callable[[float], float],
    t: np.ndarray,
    s0: float,
    s_dot0: float = 0.0,
    branch: int = 1,
    rtol: float = 1e-12,
    atol: float = 1e-14,
) -> dict[str, np.ndarray]:
    """Forward dynamics: prescribed axial force -> motion.

    Parameters
    ----------
    geom
        System data, see :class:`BoomCylinder`.
    F_of_t
        Actuator force [N] (positive pushing), a callable of scalar time.
    t
        Output time grid [s]; ``t[0]`` is the initial time.
    s0, s_dot0
        Initial cylinder length [m] and extension speed [m/s] (default at rest).
    branch
        Assembly branch, as in :func:`boom_cylinder_inverse`.
    rtol, atol
        Tolerances of ``solve_ivp(method='DOP853')``.

    Returns
    -------
    dict
        Same keys as :func:`boom_cylinder_inverse`, with ``F`` the applied
        force and ``length_ddot`` etc. from Kane's equations.

    Notes
    -----
    Coordinate partitioning: ``(s, s')`` is integrated; ``theta``, ``phi`` and
    their rates are recovered from the constraints at every evaluation, so the
    loop closure holds to round-off.  No end stops: the caller keeps ``s``
    within the physical stroke.
    """
    t = np.asarray(t, float)
    model = _model()
    res = forward_dynamics(model, geom.values(), t, F_of_t, s0, s_dot0, _initial_guess(geom, s0, branch), rtol=rtol, atol=atol)
    out = _pack(res, t, geom, model)
    out["nfev"] = res["nfev"]
    return out
