"""Small linear systems with exact solutions: mass-spring-damper (closed
form), DC motor and lever (matrix exponential).

All inputs are constant for ``t >= t[0] = 0`` (steps applied at ``t = 0``);
``t`` is measured from the step.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import expm

__all__ = ["mass_spring_damper", "linear_step_response", "dc_motor", "lever"]


def mass_spring_damper(m: float, k: float, c: float, x0: float, v0: float, F0: float, t: np.ndarray) -> dict[str, np.ndarray]:
    """Closed-form free + step response of ``m x'' + c x' + k x = F0``.

    Parameters
    ----------
    m, k, c
        Mass [kg] (> 0), stiffness [N/m] (> 0), viscous damping [N s/m] (>= 0).
    x0, v0
        Position [m] (spring deflection, ``x = 0`` unstretched) and velocity
        [m/s] at ``t = 0``.
    F0
        Constant force [N] applied from ``t = 0`` (``F0 = 0``: free response).
    t
        Times [s] since the step (``t >= 0``).

    Returns
    -------
    dict
        ``x``, ``v``, ``a`` (acceleration), ``regime`` (``'under'``,
        ``'critical'`` or ``'over'``; critical when ``|zeta - 1| < 1e-12``),
        ``omega_n``, ``zeta``.

    Notes
    -----
    With ``y = x - F0/k``, ``omega_n = sqrt(k/m)``, ``zeta = c / (2 sqrt(k m))``,
    ``sigma = zeta omega_n``:

    * under-damped: ``y = e^{-sigma t} (y0 cos(wd t) + (v0 + sigma y0) sin(wd t) / wd)``,
      ``wd = omega_n sqrt(1 - zeta^2)``;
    * critical: ``y = e^{-omega_n t} (y0 + (v0 + omega_n y0) t)``;
    * over-damped: ``y = e^{-sigma t} (y0 cosh(mu t) + (v0 + sigma y0) sinh(mu t) / mu)``,
      ``mu = omega_n sqrt(zeta^2 - 1)``, evaluated in overflow-free exponential form.

    Examples
    --------
    >>> r = mass_spring_damper(1.0, 4.0, 0.0, 1.0, 0.0, 0.0, np.array([0.0, np.pi / 2]))
    >>> np.round(r["x"], 12).tolist()
    [1.0, -1.0]
    """
    t = np.asarray(t, float)
    wn = np.sqrt(k / m)
    zeta = c / (2.0 * np.sqrt(k * m))
    sig = zeta * wn
    y0 = x0 - F0 / k
    b = v0 + sig * y0
    if abs(zeta - 1.0) < 1e-12:
        regime = "critical"
        E = np.exp(-wn * t)
        y = E * (y0 + (v0 + wn * y0) * t)
        v = E * (v0 - wn * (v0 + wn * y0) * t)
    elif zeta < 1.0:
        regime = "under"
        wd = wn * np.sqrt(1.0 - zeta**2)
        E = np.exp(-sig * t)
        C, S = np.cos(wd * t), np.sin(wd * t)
        y = E * (y0 * C + b * S / wd)
        # v = y' = e^{-sig t} (v0 cos - (sig v0 + wn^2 y0) sin / wd)
        v = E * (v0 * C - (sig * v0 + wn**2 * y0) * S / wd)
    else:
        regime = "over"
        mu = wn * np.sqrt(zeta**2 - 1.0)
        r1 = -sig + mu  # slow root (<= 0)
        E1 = np.exp(r1 * t)
        em = -np.expm1(-2.0 * mu * t)  # 1 - e^{-2 mu t}
        ch = 0.5 * E1 * (2.0 - em)  # e^{-sig t} cosh(mu t)
        sh = 0.5 * E1 * em / mu  # e^{-sig t} sinh(mu t) / mu
        y = y0 * ch + b * sh
        v = v0 * ch - (sig * v0 + wn**2 * y0) * sh
    x = y + F0 / k
    a = (F0 - c * v - k * x) / m
    return {"x": x, "v": v, "a": a, "regime": regime, "omega_n": wn, "zeta": zeta}


def linear_step_response(Amat: np.ndarray, Bvec: np.ndarray, x0: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Exact solution of ``x' = A x + b`` (constant ``b``) on ``t`` via the
    augmented matrix exponential ``expm([[A, b], [0, 0]] t)``; returns an
    array of shape ``(len(t), n)``."""
    Amat = np.asarray(Amat, float)
    n = Amat.shape[0]
    Aug = np.zeros((n + 1, n + 1))
    Aug[:n, :n] = Amat
    Aug[:n, n] = np.asarray(Bvec, float)
    z0 = np.concatenate((np.asarray(x0, float), [1.0]))
    return np.array([expm(Aug * ti) @ z0 for ti in np.asarray(t, float)])[:, :n]


def dc_motor(
    V: float, R: float, L: float, K: float, J: float, b: float, t: np.ndarray,
    i0: float = 0.0, omega0: float = 0.0, tau_load: float = 0.0,
) -> dict[str, np.ndarray]:
    """Permanent-magnet DC motor switched onto a constant voltage at ``t = 0``.

    Topology (bond graph): ``Se(V) -> 1_elec {R: R, I: L} -> GY(K) ->
    1_mech {I: J, R: b, Se(-tau_load)}``; the gyrator gives ``tau = K i`` and
    back-emf ``e = K omega``.  Equations::

        L i'     = V - R i - K omega
        J omega' = K i - b omega - tau_load

    Parameters
    ----------
    V, R, L
        Supply voltage [V], armature resistance [Ohm], inductance [H].
    K
        Torque/back-emf constant (gyrator modulus) [N m/A = V s/rad].
    J, b
        Rotor inertia [kg m^2], viscous friction [N m s/rad].
    t
        Times [s] since switch-on.
    i0, omega0
        Initial current [A] and speed [rad/s].
    tau_load
        Constant load torque opposing positive rotation [N m].

    Returns
    -------
    dict
        ``i`` [A], ``omega`` [rad/s], ``flux_linkage = L i`` [V s],
        ``angular_momentum = J omega`` [N m s], and the steady state ``i_ss``,
        ``omega_ss`` (``omega_ss = (K V - R tau_load) / (R b + K^2)``).

    Examples
    --------
    >>> r = dc_motor(12.0, 1.0, 0.5e-3, 0.05, 1e-4, 1e-5, np.array([0.0, 5.0]))
    >>> round(float(r["omega"][-1]), 6) == round(float(r["omega_ss"]), 6)
    True
    """
    A = np.array([[-R / L, -K / L], [K / J, -b / J]])
    B = np.array([V / L, -tau_load / J])
    X = linear_step_response(A, B, [i0, omega0], t)
    den = R * b + K**2
    omega_ss = (K * V - R * tau_load) / den
    i_ss = (b * V + K * tau_load) / den
    return {"i": X[:, 0], "omega": X[:, 1], "flux_linkage": L * X[:, 0], "angular_momentum": J * X[:, 1],
            "i_ss": i_ss, "omega_ss": omega_ss}


def lever(
    m1: float, k: float, n: float, F1: float, t: np.ndarray,
    c: float = 0.0, x1_0: float = 0.0, v1_0: float = 0.0,
) -> dict[str, np.ndarray]:
    """Mass on one arm of a massless rigid lever, spring (and optional
    damper) to ground on the other arm; small-motion (linear) kinematics.

    Topology (bond graph): ``Se(F1) -> 1_1 {I: m1} -> TF(n) -> 1_2 {C: 1/k,
    R: c}`` with the transformer ``v2 = n v1`` and ``F_at_1 = n F2`` (``n`` =
    arm-2 length / arm-1 length; the sign of the lever's reversal is absorbed
    in the coordinates: ``v2`` is the spring-end velocity in the direction
    that compresses the spring when ``v1 > 0``).  Equations::

        x2' = n v1                     (spring deflection, x2(0) = n x1_0)
        m1 v1' = F1 - n (k x2 + c n v1)

    i.e. ``m1 x1'' + n^2 c x1' + n^2 k x1 = F1``.

    Parameters
    ----------
    m1 : float
        Mass [kg] on arm 1 (velocity ``v1``).
    k, c : float
        Spring stiffness [N/m] and damper [N s/m] at the end of arm 2.
    n : float
        Lever (transformer) ratio ``v2 / v1``.
    F1 : float
        Constant force on the mass from ``t = 0`` [N] (e.g. ``-m1 g`` for gravity).
    t : ndarray
        Times [s].
    x1_0, v1_0 : float
        Initial mass displacement [m] and velocity [m/s] (spring relaxed when
        ``x1 = 0``).

    Returns
    -------
    dict
        ``x1``, ``v1``, ``x2`` (= ``n x1``), ``v2``, ``p1 = m1 v1`` [N s],
        ``spring_force = k x2`` [N] and the static deflection ``x1_ss = F1 /
        (n^2 k)``.

    Examples
    --------
    >>> r = lever(2.0, 100.0, 2.0, 10.0, np.array([0.0]))
    >>> float(r["x1_ss"])
    0.025
    """
    A = np.array([[0.0, n], [-n * k / m1, -n * n * c / m1]])
    B = np.array([0.0, F1 / m1])
    X = linear_step_response(A, B, [n * x1_0, v1_0], t)
    x2, v1 = X[:, 0], X[:, 1]
    return {"x1": x2 / n, "v1": v1, "x2": x2, "v2": n * v1, "p1": m1 * v1, "spring_force": k * x2,
            "x1_ss": F1 / (n * n * k)}
