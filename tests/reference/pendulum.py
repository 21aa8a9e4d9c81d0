"""Single and double pendulum references.

Frames and conventions (all functions): world frame x horizontal, y up,
gravity ``-g`` along y, pivot at the world origin.  **Angles are absolute,
measured from the downward vertical (-y), counter-clockwise positive**, so a
link of length ``L`` at angle ``theta`` points along ``(sin theta, -cos
theta)``.

* *Point-mass pendulum*: massless rod of length ``L``, mass at its end.
* *Rod pendulum*: uniform slender rod of length ``L`` and mass ``m``, pinned
  at one end; centre of gravity at ``L/2``, centroidal inertia ``m L^2/12``
  (so ``m L^2 / 3`` about the pin).  Its period equals that of a point-mass
  pendulum of *equivalent length* ``2 L / 3``.
* *Double pendulum*: two uniform rods in a chain, rod 1 pinned to the ground
  at the origin, rod 2 pinned to the tip of rod 1; no friction.
"""

from __future__ import annotations

import functools

import numpy as np
import sympy as sm
import sympy.physics.mechanics as me
from scipy.integrate import solve_ivp
from scipy.special import ellipk

__all__ = [
    "equivalent_length",
    "pendulum_period_small_angle",
    "pendulum_period_exact",
    "rod_pendulum_kane",
    "double_pendulum_kane",
    "double_pendulum_lagrange",
]


def equivalent_length(L: float, kind: str = "point") -> float:
    """Length of the equivalent simple pendulum: ``L`` for ``kind='point'``,
    ``2 L / 3`` for ``kind='rod'`` (uniform rod pinned at one end)."""
    if kind == "point":
        return float(L)
    if kind == "rod":
        return 2.0 * float(L) / 3.0
    raise ValueError("kind must be 'point' or 'rod'")


def pendulum_period_small_angle(L: float, g: float = 9.81, kind: str = "point") -> float:
    """Small-oscillation period ``2 pi sqrt(L_eq / g)`` [s].

    Examples
    --------
    >>> round(pendulum_period_small_angle(1.0, 9.81), 6)
    2.006067
    >>> round(pendulum_period_small_angle(1.0, 9.81, kind="rod"), 6)
    1.637947
    """
    return float(2.0 * np.pi * np.sqrt(equivalent_length(L, kind) / g))


def pendulum_period_exact(L: float, theta0: float, g: float = 9.81, kind: str = "point") -> float:
    """Exact period for release at rest from amplitude ``theta0`` (|theta0| < pi):
    ``T = 4 sqrt(L_eq / g) K(m)`` with ``m = sin^2(theta0 / 2)`` and ``K`` the
    complete elliptic integral of the first kind in SciPy's *parameter*
    convention (:func:`scipy.special.ellipk`).

    Examples
    --------
    >>> round(pendulum_period_exact(1.0, np.pi / 2) / pendulum_period_small_angle(1.0), 6)
    1.180341
    """
    return float(4.0 * np.sqrt(equivalent_length(L, kind) / g) * ellipk(np.sin(theta0 / 2.0) ** 2))


@functools.lru_cache(maxsize=None)
def _rod_model():
    th = me.dynamicsymbols("theta")
    w = me.dynamicsymbols("omega")
    L, m, g = sm.symbols("L m g")
    N = me.ReferenceFrame("N")
    R = N.orientnew("R", "Axis", (th, N.z))
    R.set_ang_vel(N, w * N.z)
    O = me.Point("O")
    O.set_vel(N, 0)
    G = O.locatenew("G", -L / 2 * R.y)
    G.v2pt_theory(O, N, R)
    rod = me.RigidBody("rod", G, R, m, (me.inertia(R, 0, 0, m * L**2 / 12), G))
    km = me.KanesMethod(N, q_ind=[th], u_ind=[w], kd_eqs=[th.diff() - w])
    km.kanes_equations([rod], [(G, -m * g * N.y)])
    x, v = sm.symbols("x v")
    rep = {th: x, w: v}
    rhs = (km.mass_matrix.inv() * km.forcing)[0].xreplace(rep)
    return sm.lambdify((x, v, L, m, g), rhs, "numpy")


def rod_pendulum_kane(
    t: np.ndarray, L: float = 1.0, m: float = 1.0, g: float = 9.81, theta0: float = 0.5, omega0: float = 0.0
) -> dict[str, np.ndarray]:
    """Uniform rod pinned at one end (Kane's method), released from ``theta0``.

    Parameters
    ----------
    t
        Output times [s]; ``t[0]`` is the release time.
    L, m, g
        Rod length [m], mass [kg], gravity [m/s^2].
    theta0, omega0
        Initial angle from the downward vertical (CCW positive) [rad] and
        angular velocity [rad/s].

    Returns
    -------
    dict
        ``theta``, ``theta_dot``, ``theta_ddot``; ``cog`` and ``tip`` world
        positions (``(n, 2)``); ``energy`` = ``m L^2/6 theta_dot^2 - m g L/2
        cos(theta)`` [J] (pivot at height 0).

    Notes
    -----
    The EOM Kane's method yields is ``(m L^2 / 3) theta'' = -m g (L/2)
    sin(theta)``; integrated with ``solve_ivp(method='DOP853', rtol=1e-12,
    atol=1e-13)``.
    """
    t = np.asarray(t, float)
    f = _rod_model()
    sol = solve_ivp(lambda _t, y: [y[1], f(y[0], y[1], L, m, g)], (t[0], t[-1]), [theta0, omega0],
                    method="DOP853", t_eval=t, rtol=1e-12, atol=1e-13)
    th, w = sol.y
    acc = np.array([f(a, b, L, m, g) for a, b in zip(th, w)])
    e = np.stack([np.sin(th), -np.cos(th)], axis=-1)
    energy = m * L**2 / 6.0 * w**2 - m * g * L / 2.0 * np.cos(th)
    return {"t": t, "theta": th, "theta_dot": w, "theta_ddot": acc, "cog": L / 2 * e, "tip": L * e, "energy": energy}


@functools.lru_cache(maxsize=None)
def _double_model():
    q1, q2 = me.dynamicsymbols("theta1 theta2")
    u1, u2 = me.dynamicsymbols("omega1 omega2")
    L1, L2, m1, m2, g = sm.symbols("L1 L2 m1 m2 g")
    N = me.ReferenceFrame("N")
    R1 = N.orientnew("R1", "Axis", (q1, N.z))
    R2 = N.orientnew("R2", "Axis", (q2, N.z))
    R1.set_ang_vel(N, u1 * N.z)
    R2.set_ang_vel(N, u2 * N.z)
    O = me.Point("O")
    O.set_vel(N, 0)
    G1 = O.locatenew("G1", -L1 / 2 * R1.y)
    G1.v2pt_theory(O, N, R1)
    P1 = O.locatenew("P1", -L1 * R1.y)
    P1.v2pt_theory(O, N, R1)
    G2 = P1.locatenew("G2", -L2 / 2 * R2.y)
    G2.v2pt_theory(P1, N, R2)
    b1 = me.RigidBody("rod1", G1, R1, m1, (me.inertia(R1, 0, 0, m1 * L1**2 / 12), G1))
    b2 = me.RigidBody("rod2", G2, R2, m2, (me.inertia(R2, 0, 0, m2 * L2**2 / 12), G2))
    km = me.KanesMethod(N, q_ind=[q1, q2], u_ind=[u1, u2], kd_eqs=[q1.diff() - u1, q2.diff() - u2])
    km.kanes_equations([b1, b2], [(G1, -m1 * g * N.y), (G2, -m2 * g * N.y)])
    x1, x2, v1, v2 = sm.symbols("x1 x2 v1 v2")
    rep = {q1: x1, q2: x2, u1: v1, u2: v2}
    args = (x1, x2, v1, v2, L1, L2, m1, m2, g)
    M = sm.lambdify(args, km.mass_matrix.xreplace(rep), "numpy")
    F = sm.lambdify(args, km.forcing.xreplace(rep), "numpy")
    return M, F


def _double_outputs(t, th1, th2, w1, w2, acc, L1, L2, m1, m2, g):
    e1 = np.stack([np.sin(th1), -np.cos(th1)], axis=-1)
    e2 = np.stack([np.sin(th2), -np.cos(th2)], axis=-1)
    cog1 = L1 / 2 * e1
    tip1 = L1 * e1
    cog2 = tip1 + L2 / 2 * e2
    tip2 = tip1 + L2 * e2
    # velocities of the CoGs
    v1 = L1 / 2 * w1[:, None] * np.stack([np.cos(th1), np.sin(th1)], axis=-1)
    vt1 = 2 * v1
    v2 = vt1 + L2 / 2 * w2[:, None] * np.stack([np.cos(th2), np.sin(th2)], axis=-1)
    ke = 0.5 * m1 * np.sum(v1**2, 1) + 0.5 * m1 * L1**2 / 12 * w1**2 + 0.5 * m2 * np.sum(v2**2, 1) + 0.5 * m2 * L2**2 / 12 * w2**2
    pe = g * (m1 * cog1[:, 1] + m2 * cog2[:, 1])
    return {
        "t": t, "theta1": th1, "theta2": th2, "omega1": w1, "omega2": w2,
        "alpha1": acc[:, 0], "alpha2": acc[:, 1],
        "cog1": cog1, "cog2": cog2, "tip1": tip1, "tip2": tip2,
        "kinetic_energy": ke, "potential_energy": pe, "energy": ke + pe,
    }


def double_pendulum_kane(
    t: np.ndarray,
    L1: float = 1.0,
    L2: float = 1.0,
    m1: float = 1.0,
    m2: float = 1.0,
    g: float = 9.81,
    theta1_0: float = np.pi / 2,
    theta2_0: float = 0.0,
    omega1_0: float = 0.0,
    omega2_0: float = 0.0,
    rtol: float = 1e-12,
    atol: float = 1e-13,
) -> dict[str, np.ndarray]:
    """Double pendulum of two uniform rods (Kane's method).

    Rod ``i``: length ``L_i``, mass ``m_i``, CoG at its midpoint, centroidal
    inertia ``m_i L_i^2 / 12``.  Rod 1 pinned at the origin, rod 2 pinned at
    the tip of rod 1.  ``theta1``, ``theta2`` are **absolute** angles from the
    downward vertical, CCW positive (``theta2`` is *not* relative to rod 1).
    Defaults: 1 m, 1 kg each, g = 9.81, released at rest from
    ``theta1 = 90 deg`` (rod 1 horizontal pointing to +x), ``theta2 = 0``
    (rod 2 hanging straight down).

    Returns
    -------
    dict
        On ``t``: ``theta1``, ``theta2``, ``omega1``, ``omega2``, ``alpha1``,
        ``alpha2``; world positions ``cog1``, ``cog2``, ``tip1`` (the
        inter-rod pin), ``tip2`` (free end), each ``(n, 2)``;
        ``kinetic_energy``, ``potential_energy`` (``sum m g y_cog``, pivot at
        y = 0) and ``energy`` [J].

    Notes
    -----
    ``solve_ivp(method='DOP853', rtol=1e-12, atol=1e-13)`` by default; the
    total energy is conserved to ~1e-11 relative over 2 s.
    """
    t = np.asarray(t, float)
    M, F = _double_model()
    par = (L1, L2, m1, m2, g)

    def acc(y):
        return np.linalg.solve(np.asarray(M(*y, *par), float), np.asarray(F(*y, *par), float).ravel())

    sol = solve_ivp(lambda _t, y: [y[2], y[3], *acc(y)], (t[0], t[-1]), [theta1_0, theta2_0, omega1_0, omega2_0],
                    method="DOP853", t_eval=t, rtol=rtol, atol=atol)
    th1, th2, w1, w2 = sol.y
    a = np.array([acc(y) for y in sol.y.T])
    return _double_outputs(t, th1, th2, w1, w2, a, L1, L2, m1, m2, g)


def double_pendulum_lagrange(
    t: np.ndarray,
    L1: float = 1.0,
    L2: float = 1.0,
    m1: float = 1.0,
    m2: float = 1.0,
    g: float = 9.81,
    theta1_0: float = np.pi / 2,
    theta2_0: float = 0.0,
    omega1_0: float = 0.0,
    omega2_0: float = 0.0,
    rtol: float = 1e-12,
    atol: float = 1e-13,
) -> dict[str, np.ndarray]:
    """Same system as :func:`double_pendulum_kane` from hand-derived Lagrange
    equations (an independent cross-check, no sympy):

    ``[m1 L1^2/3 + m2 L1^2,  m2 L1 L2/2 cos(d)] [a1]   [-m2 L1 L2/2 sin(d) w2^2 - (m1/2 + m2) g L1 sin(th1)]``
    ``[m2 L1 L2/2 cos(d),    m2 L2^2/3       ] [a2] = [ m2 L1 L2/2 sin(d) w1^2 - m2 g L2/2 sin(th2)       ]``

    with ``d = th1 - th2``.  Returns the same keys.
    """
    t = np.asarray(t, float)

    def acc(y):
        th1, th2, w1, w2 = y
        d = th1 - th2
        k = m2 * L1 * L2 / 2 * np.cos(d)
        Mm = np.array([[m1 * L1**2 / 3 + m2 * L1**2, k], [k, m2 * L2**2 / 3]])
        s = m2 * L1 * L2 / 2 * np.sin(d)
        f = np.array([-s * w2**2 - (m1 / 2 + m2) * g * L1 * np.sin(th1), s * w1**2 - m2 * g * L2 / 2 * np.sin(th2)])
        return np.linalg.solve(Mm, f)

    sol = solve_ivp(lambda _t, y: [y[2], y[3], *acc(y)], (t[0], t[-1]), [theta1_0, theta2_0, omega1_0, omega2_0],
                    method="DOP853", t_eval=t, rtol=rtol, atol=atol)
    th1, th2, w1, w2 = sol.y
    a = np.array([acc(y) for y in sol.y.T])
    return _double_outputs(t, th1, th2, w1, w2, a, L1, L2, m1, m2, g)
