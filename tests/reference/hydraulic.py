"""Vertical single-chamber hydraulic cylinder lifting a mass with a flow step.

Model (x up, gravity ``-g``)::

    x' = v
    m v' = p A - m g - c v
    p' = beta / V(x) * (Q0 - A v - G_leak p)

* ``A = pi bore^2 / 4``; chamber volume ``V(x) = V0 + A x``
  (``variable_volume=True``) or ``V = V0`` (``variable_volume=False``);
* ``p`` is the chamber **gauge** pressure; the rod side / outside is at zero
  gauge pressure, the leakage ``G_leak p`` goes to tank (at 0);
* constant bulk modulus ``beta``; linear viscous friction ``c``;
* the inflow ``Q0`` is a step at ``t = 0``; initially at rest at ``x0 = 0``
  with the pressure that holds the load, ``p0 = m g / A``;
* no end stops, no cavitation model.

Oil mass: with the density law ``rho(p) = rho0 exp((p - p0) / beta)``
(``rho0`` = density at the initial pressure ``p0``) the chamber oil mass is
``m_oil = rho(p) V(x)``.  It is exactly consistent with the pressure equation:
``d(rho V)/dt = rho (Q0 - G_leak p)``, i.e. the volumetric in- and leak flows
are counted at the chamber density.  In the constant-volume variant the
piston displacement flow ``A v`` is an outflow of the fixed control volume,
so there ``d(rho V0)/dt = rho (Q0 - A v - G_leak p)``.
"""

from __future__ import annotations

import numpy as np
from scipy.integrate import solve_ivp

__all__ = ["lifted_mass_cylinder"]


def lifted_mass_cylinder(
    t: np.ndarray,
    variable_volume: bool = True,
    *,
    bore: float = 0.1,
    V0: float = 2e-3,
    beta: float = 1.2e9,
    m: float = 1000.0,
    c: float = 2e4,
    leak: float = 1e-12,
    Q0: float = 1e-3,
    g: float = 9.81,
    rho0: float = 870.0,
    x0: float = 0.0,
    v0: float = 0.0,
    p0: float | None = None,
    rtol: float = 1e-12,
    atol: float = 1e-15,
) -> dict[str, np.ndarray]:
    """Integrate the lifted-mass cylinder (see the module docstring).

    Parameters
    ----------
    t
        Output times [s]; ``t[0]`` is the flow-step instant.
    variable_volume
        ``True``: ``V = V0 + A x``; ``False``: ``V = V0``.
    bore, V0, beta, m, c, leak, Q0, g
        Bore [m] (0.1), dead volume [m^3] (2 L), bulk modulus [Pa] (1.2 GPa),
        load mass [kg] (1000), viscous coefficient [N s/m] (2e4), leakage
        conductance to tank [m^3/(s Pa)] (1e-12), inflow [m^3/s] (1 L/s),
        gravity [m/s^2] (9.81).
    rho0
        Oil density at ``p0`` [kg/m^3] (only for ``oil_mass``).
    x0, v0, p0
        Initial state; ``p0=None`` means ``m g / A`` (static equilibrium).
    rtol, atol
        Tolerances; ``atol`` is scaled per state (x: 1, v: 1, p: 1e7).

    Returns
    -------
    dict
        ``x`` [m], ``v`` [m/s], ``p`` [Pa], ``V`` [m^3], ``rho`` [kg/m^3],
        ``oil_mass`` [kg], ``oil_mass_balance`` [kg] (the same mass obtained by
        integrating the mass balance above, a consistency check), ``area``
        [m^2] and ``p0`` [Pa].

    Notes
    -----
    Integrated with ``solve_ivp(method='DOP853')`` (the system is a lightly
    damped ~31 Hz oscillation, not stiff).  Reproduces, at ``t = 1 s``:
    variable volume ``x = 0.1270547 m``, ``v = 0.1271287 m/s``,
    ``p = 1.572784 MPa``; constant volume ``x = 0.127053``, ``v = 0.127128``,
    ``p = 1.572725 MPa``.
    """
    t = np.asarray(t, float)
    A = np.pi * bore**2 / 4.0
    if p0 is None:
        p0 = m * g / A
    m_oil0 = rho0 * np.exp((p0 - p0) / beta) * ((V0 + A * x0) if variable_volume else V0)

    def rhs(_t, y):
        x, v, p, mo = y
        V = V0 + A * x if variable_volume else V0
        rho = rho0 * np.exp((p - p0) / beta)
        net = Q0 - leak * p if variable_volume else Q0 - leak * p - A * v
        return [v, (p * A - m * g - c * v) / m, beta / V * (Q0 - A * v - leak * p), rho * net]

    scale = np.array([1.0, 1.0, 1e7, 1.0])
    sol = solve_ivp(rhs, (t[0], t[-1]), [x0, v0, p0, m_oil0], method="DOP853", t_eval=t, rtol=rtol, atol=atol * scale)
    if not sol.success:
        raise RuntimeError(sol.message)
    x, v, p, mo = sol.y
    V = V0 + A * x if variable_volume else np.full_like(x, V0)
    rho = rho0 * np.exp((p - p0) / beta)
    return {"t": t, "x": x, "v": v, "p": p, "V": V, "rho": rho, "oil_mass": rho * V, "oil_mass_balance": mo,
            "area": A, "p0": p0}
