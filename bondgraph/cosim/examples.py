"""Ready-made coupled systems with independent references (B1, B2, B3).

Reused by the tests, the benchmarks, the notebooks and the FMU export.

* **B1** (Elliott's (MDI) co-simulation paper's case in SI units): a mass driven by ``F0 sin(2 pi t)`` (subsystem
  ``mass``, integrated in closed form within each step) and a spring-damper computing
  its force from the mass's position and velocity (subsystem ``spring``). Reference:
  the analytic solution of the whole oscillator.
* **B2**: two masses on springs to ground joined by a stiff spring-damper; ``side1``
  (mass 1 with the coupling) computes the coupling force from ``x2, v2``; ``side2`` is
  mass 2. Reference: matrix exponential of the whole system.
* **B3**: a cylinder lifting a mass; ``mech`` (mass, damper, gravity; in F, out x, v)
  and ``hyd`` (chamber pressure; in v, out F and p). Reference: monolithic
  :func:`scipy.integrate.solve_ivp` with ``rtol=1e-12``.

Examples
--------
>>> round(float(abs(b1_reference(np.linspace(0, 4, 40001))).max()), 6)
0.004081
>>> x, v, p = b3_reference()(1.0)
>>> round(x, 6), round(v, 6), round(p / 1e6, 6)
(0.127053, 0.127128, 1.572725)
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np
from scipy.integrate import solve_ivp
from scipy.linalg import expm

from .linear import StateSpaceSubsystem
from .ode import OdeSubsystem
from .python import PythonSubsystem
from .relations import PowerBond, Relations

__all__ = [
    "B1", "B1_RELATIONS", "OscillatorMass", "SpringDamper", "b1_mass", "b1_spring",
    "b1_subsystems", "b1_reference",
    "B2", "B2_RELATIONS", "b2_subsystems", "b2_reference", "b2_error",
    "B3", "B3_RELATIONS", "b3_subsystems", "b3_ode_subsystems", "b3_reference",
    "b3_energy_balance", "B3_QUOTED",
]

# ----------------------------------------------------------------------------- B1
#: B1 parameters (SI): mass, stiffness, damping, force amplitude and frequency, end time.
B1 = dict(m=0.144378, k=55017.8, c=0.087563, F0=222.411, Omega=2 * math.pi, T=4.0)


class OscillatorMass:
    """Mass driven by ``F0 sin(Omega t)`` plus an input force, stepped in closed form.

    Plain-Python model for :class:`~bondgraph.cosim.PythonSubsystem`: input ``F`` (with
    up to two derivatives), outputs ``x`` and ``v`` (with two derivatives). Within a step
    the input force is the glue polynomial, so the step is exact.

    Examples
    --------
    >>> m = OscillatorMass(m=2.0, F0=0.0, Omega=1.0)
    >>> m.F = 4.0
    >>> m.do_step(0.0, 1.0)
    >>> m.x, m.v
    (1.0, 2.0)
    """

    def __init__(self, m: float, F0: float, Omega: float, x: float = 0.0, v: float = 0.0):
        self.mass, self.F0, self.Omega = float(m), float(F0), float(Omega)
        self.x, self.v = float(x), float(v)
        self._start = (self.x, self.v)
        self.t = 0.0
        self.F = 0.0
        self.dF = (0.0, 0.0)

    def setup(self, t0: float, t_end: float, step: float) -> None:
        """Back to the initial position and velocity at ``t0``.

        Parameters
        ----------
        t0 : float
            Start time (s).
        t_end : float
            End time (s).
        step : float
            Communication step (s).
        """
        self.x, self.v = self._start
        self.t = float(t0)
        self.F, self.dF = 0.0, (0.0, 0.0)

    @property
    def time(self) -> float:
        """The time the last step ended at (checked by the master)."""
        return self.t

    def get_state(self) -> tuple:
        """Everything needed to roll back.

        Returns
        -------
        tuple
        """
        return self.x, self.v, self.t, self.F, self.dF

    def set_state(self, state: tuple) -> None:
        """Roll back to a state from :meth:`get_state`.

        Parameters
        ----------
        state : tuple
            A state from :meth:`save_state`.
        """
        self.x, self.v, self.t, self.F, self.dF = state

    def set_input_derivatives(self, t: float, d: dict) -> None:
        """Store dF/dt and d2F/dt2 at ``t`` (missing orders are zero).

        Parameters
        ----------
        t : float
            Time (s).
        d : dict
        """
        der = tuple(d["F"]) + (0.0, 0.0)
        self.dF = der[:2]

    def _accel(self, t: float) -> float:
        return (self.F0 * math.sin(self.Omega * t) + self.F) / self.mass

    def output_derivatives(self, order: int) -> dict:
        """``{"x": (v, a), "v": (a, da/dt)}`` at the current time.

        Parameters
        ----------
        order : int
            Number of derivative orders.

        Returns
        -------
        dict
        """
        a = self._accel(self.t)
        jerk = (self.F0 * self.Omega * math.cos(self.Omega * self.t) + self.dF[0]) / self.mass
        return {"x": (self.v, a)[:order], "v": (a, jerk)[:order]}

    def do_step(self, t: float, h: float) -> None:
        """Advance exactly from ``t`` to ``t + h`` (sine force + polynomial input).

        Parameters
        ----------
        t : float
            Time (s).
        h : float
            Step (s).
        """
        m, F0, W = self.mass, self.F0, self.Omega
        F, F1, F2 = self.F, self.dF[0], self.dF[1]
        a, w = W * t, W * h
        s2 = math.sin(0.5 * w)
        # v: F0/(m W) (cos a - cos(a + w)), written without cancellation
        dv = F0 / (m * W) * 2.0 * math.sin(a + 0.5 * w) * s2
        # x: F0/(m W^2) (w cos a - sin(a + w) + sin a)
        dx = -F0 / (m * W * W) * (math.cos(a) * (math.sin(w) - w) - 2.0 * math.sin(a) * s2 * s2)
        self.x += self.v * h + dx + (F * h * h / 2 + F1 * h ** 3 / 6 + F2 * h ** 4 / 24) / m
        self.v += dv + (F * h + F1 * h * h / 2 + F2 * h ** 3 / 6) / m
        self.t = t + h
        self.F = F + h * (F1 + 0.5 * h * F2)   # the input polynomial at t + h
        self.dF = (F1 + h * F2, F2)


class SpringDamper:
    """Spring-damper force ``F = -(k x + c v)`` from the other side's motion.

    Plain-Python model: inputs ``x``, ``v`` (with derivatives), output ``F`` (a method,
    so it always reflects the latest inputs: direct feedthrough).

    Examples
    --------
    >>> s = SpringDamper(k=100.0, c=1.0)
    >>> s.x, s.v = 0.01, 0.5
    >>> s.F()
    -1.5
    """

    def __init__(self, k: float, c: float):
        self.k, self.c = float(k), float(c)
        self.time = 0.0
        self.x = 0.0
        self.v = 0.0
        self.dx = (0.0, 0.0)
        self.dv = (0.0, 0.0)

    def get_state(self) -> tuple:
        """Time, inputs and their derivatives (the only state).

        Returns
        -------
        tuple
        """
        return self.time, self.x, self.v, self.dx, self.dv

    def set_state(self, state: tuple) -> None:
        """Roll back to a state from :meth:`get_state`.

        Parameters
        ----------
        state : tuple
            A state from :meth:`save_state`.
        """
        self.time, self.x, self.v, self.dx, self.dv = state

    def setup(self, t0: float, t_end: float, step: float) -> None:
        """Start the clock at ``t0``.

        Parameters
        ----------
        t0 : float
            Start time (s).
        t_end : float
            End time (s).
        step : float
            Communication step (s).
        """
        self.time = float(t0)

    def set_input_derivatives(self, t: float, d: dict) -> None:
        """Store the derivatives of ``x`` and ``v``.

        Parameters
        ----------
        t : float
            Time (s).
        d : dict
        """
        self.dx = (tuple(d["x"]) + (0.0, 0.0))[:2]
        self.dv = (tuple(d["v"]) + (0.0, 0.0))[:2]

    def F(self) -> float:
        """Force on the mass.

        Returns
        -------
        float
        """
        return -(self.k * self.x + self.c * self.v)

    def output_derivatives(self, order: int) -> dict:
        """Derivatives of ``F`` from those of the inputs.

        Parameters
        ----------
        order : int
            Number of derivative orders.

        Returns
        -------
        dict
        """
        return {"F": tuple(-(self.k * self.dx[i] + self.c * self.dv[i]) for i in range(order))}

    def do_step(self, t: float, h: float) -> None:
        """No state: move the inputs to ``t + h`` along their polynomial.

        Parameters
        ----------
        t : float
            Time (s).
        h : float
            Step (s).
        """
        (x1, x2), (v1, v2) = self.dx, self.dv
        self.x += h * (x1 + 0.5 * h * x2)
        self.v += h * (v1 + 0.5 * h * v2)
        self.dx, self.dv = (x1 + h * x2, x2), (v1 + h * v2, v2)
        self.time = t + h


def b1_mass(**overrides) -> PythonSubsystem:
    """The B1 ``mass`` subsystem (sine force inside, spring force in; out x, v), at rest.

    Parameters
    ----------
    **overrides
        Replace entries of :data:`B1` (``m``, ``F0``, ``Omega``).

    Returns
    -------
    PythonSubsystem

    Examples
    --------
    >>> b1_mass()
    <PythonSubsystem 'mass': in (F [N]) -> out (x [m], v [m/s])>
    """
    p = {**B1, **overrides}
    return PythonSubsystem(OscillatorMass(p["m"], p["F0"], p["Omega"]), "mass",
                           inputs=[("F", "N", "spring-damper force")],
                           outputs=[("x", "m", "position"), ("v", "m/s", "velocity")],
                           direct_feedthrough=False, input_derivative_order=2,
                           output_derivative_order=2)


def b1_spring(**overrides) -> PythonSubsystem:
    """The B1 ``spring`` subsystem (in x, v; out F), direct feedthrough.

    Parameters
    ----------
    **overrides
        Replace entries of :data:`B1` (``k``, ``c``).

    Returns
    -------
    PythonSubsystem

    Examples
    --------
    >>> s = b1_spring(k=100.0, c=1.0)
    >>> s.direct_feedthrough, s.input_names, s.output_names
    (True, ('x', 'v'), ('F',))
    """
    p = {**B1, **overrides}
    return PythonSubsystem(SpringDamper(p["k"], p["c"]), "spring",
                           inputs=[("x", "m"), ("v", "m/s")],
                           outputs=[("F", "N", "force on the mass")],
                           direct_feedthrough=True, input_derivative_order=2,
                           output_derivative_order=2)


def b1_subsystems(**overrides) -> tuple[PythonSubsystem, PythonSubsystem]:
    """The two B1 subsystems (``mass`` and ``spring``), from rest.

    Parameters
    ----------
    **overrides
        Replace entries of :data:`B1`.

    Returns
    -------
    (PythonSubsystem, PythonSubsystem)

    Examples
    --------
    See the package :mod:`bondgraph.cosim` (B1 against :func:`b1_reference`).
    """
    return b1_mass(**overrides), b1_spring(**overrides)


#: B1 relations, both directions, and the power bond (force, velocity).
B1_RELATIONS = Relations(["mass.x -> spring.x", "mass.v -> spring.v", "spring.F -> mass.F"],
                         bonds=[PowerBond(effort="spring.F", flow="mass.v")])


def b1_reference(t, **overrides) -> np.ndarray:
    """Analytic displacement of the whole B1 oscillator from rest.

    ``x(t) = X sin(Omega t - phi) + exp(-zeta wn t) (A cos wd t + B sin wd t)``.

    Parameters
    ----------
    t : float or array_like
        Times (s).
    **overrides
        Replace entries of :data:`B1`.

    Returns
    -------
    ndarray
        Position (m).

    Examples
    --------
    The oscillator starts at rest:

    >>> float(b1_reference(0.0))
    0.0
    """
    p = {**B1, **overrides}
    m, k, c, F0, W = p["m"], p["k"], p["c"], p["F0"], p["Omega"]
    wn = math.sqrt(k / m)
    zeta = c / (2 * math.sqrt(k * m))
    wd = wn * math.sqrt(1 - zeta ** 2)
    X = F0 / math.hypot(k - m * W ** 2, c * W)
    phi = math.atan2(c * W, k - m * W ** 2)
    A = X * math.sin(phi)
    B = (zeta * wn * A - X * W * math.cos(phi)) / wd
    t = np.asarray(t, dtype=float)
    return X * np.sin(W * t - phi) + np.exp(-zeta * wn * t) * (A * np.cos(wd * t)
                                                              + B * np.sin(wd * t))


# ----------------------------------------------------------------------------- B2
#: B2 parameters (SI).
B2 = dict(m1=1.0, m2=1.0, k1=100.0, k2=100.0, d1=0.1, d2=0.1, kc=1e4, dc=1.0, x10=0.1,
          T=2.0)


def b2_subsystems() -> tuple[StateSpaceSubsystem, StateSpaceSubsystem]:
    """``side1`` (mass 1 and the coupling spring-damper) and ``side2`` (mass 2).

    Returns
    -------
    (StateSpaceSubsystem, StateSpaceSubsystem)

    Examples
    --------
    Coupled at 1 ms through the stiff spring, the co-simulation follows the exact
    solution within 1 % of the largest displacement:

    >>> from bondgraph.cosim import cosimulate
    >>> res = cosimulate(list(b2_subsystems()), B2_RELATIONS, step=1e-3, end=0.5)
    >>> bool(b2_error(res) < 0.01)
    True
    """
    p = B2
    m1, k1, d1, kc, dc = p["m1"], p["k1"], p["d1"], p["kc"], p["dc"]
    side1 = StateSpaceSubsystem(
        "side1", A=[[0, 1], [-(k1 + kc) / m1, -(d1 + dc) / m1]], B=[[0, 0], [kc / m1, dc / m1]],
        C=[[kc, dc], [1, 0], [0, 1]], D=[[-kc, -dc], [0, 0], [0, 0]], x0=[p["x10"], 0.0],
        inputs=[("x2", "m"), ("v2", "m/s")],
        outputs=[("F", "N", "coupling force on mass 2"), ("x1", "m"), ("v1", "m/s")])
    side2 = StateSpaceSubsystem(
        "side2", A=[[0, 1], [-p["k2"] / p["m2"], -p["d2"] / p["m2"]]], B=[[0], [1 / p["m2"]]],
        C=np.eye(2), D=np.zeros((2, 1)), x0=[0.0, 0.0],
        inputs=[("F", "N")], outputs=[("x", "m"), ("v", "m/s")])
    return side1, side2


#: B2 relations and power bond.
B2_RELATIONS = Relations(["side2.x -> side1.x2", "side2.v -> side1.v2", "side1.F -> side2.F"],
                         bonds=[PowerBond(effort="side1.F", flow="side2.v")])


def b2_reference(t) -> np.ndarray:
    """Positions ``(x1, x2)`` of the whole B2 system, shape (len(t), 2), by expm.

    Parameters
    ----------
    t : float or array_like
        Times (s).

    Returns
    -------
    ndarray, shape (len(t), 2)

    Examples
    --------
    >>> b2_reference([0.0])            # mass 1 released from x10 = 0.1 m
    array([[0.1, 0. ]])
    """
    p = B2
    m1, m2, k1, k2, d1, d2, kc, dc = (p[n] for n in ("m1", "m2", "k1", "k2", "d1", "d2",
                                                      "kc", "dc"))
    A = np.array([[0, 1, 0, 0],
                  [-(k1 + kc) / m1, -(d1 + dc) / m1, kc / m1, dc / m1],
                  [0, 0, 0, 1],
                  [kc / m2, dc / m2, -(k2 + kc) / m2, -(d2 + dc) / m2]])
    z0 = np.array([p["x10"], 0.0, 0.0, 0.0])
    t = np.atleast_1d(np.asarray(t, dtype=float))
    dt = np.diff(t)
    if len(t) > 2 and np.allclose(dt, dt[0], rtol=1e-9, atol=0):
        # evenly spaced: propagate with one matrix exponential (rounding ~1e-13)
        phi = expm(A * dt[0])
        Z = np.empty((len(t), 4))
        Z[0] = expm(A * t[0]) @ z0
        for k in range(1, len(t)):
            Z[k] = phi @ Z[k - 1]
    else:
        Z = np.array([expm(A * ti) @ z0 for ti in t])
    return Z[:, [0, 2]]


def b2_error(res, reference: np.ndarray | None = None) -> float:
    """max over the run and both masses of ``|x - x_ref|``, over ``max |x_ref|``.

    Parameters
    ----------
    res : CosimResults
        A run of :func:`b2_subsystems`.
    reference : ndarray, optional
        :func:`b2_reference` at ``res.time`` if already computed.

    Returns
    -------
    float

    Examples
    --------
    See :func:`b2_subsystems`.
    """
    xr = b2_reference(res.time) if reference is None else reference
    x = np.column_stack([res["side1.x1"], res["side2.x"]])
    return float(np.abs(x - xr).max() / np.abs(xr).max())


# ----------------------------------------------------------------------------- B3
#: B3 parameters (SI).
B3 = dict(V=2e-3, bore=0.1, beta=1.2e9, m=1000.0, c=2e4, leak=1e-12, Q0=1e-3, g=9.81, T=1.0)

#: The quoted reference at T = 1 s: x [m], v [m/s], p [Pa].
B3_QUOTED = (0.127053, 0.127128, 1.572725e6)


def _b3():
    p = B3
    A = math.pi * p["bore"] ** 2 / 4
    return p, A, p["m"] * p["g"] / A


def b3_subsystems() -> tuple[StateSpaceSubsystem, StateSpaceSubsystem]:
    """``mech`` (in F, out x, v) and ``hyd`` (in v, out F, p), exact state-space steps.

    Returns
    -------
    (StateSpaceSubsystem, StateSpaceSubsystem)

    Examples
    --------
    At 1 ms with quadratic glue, the lift matches the quoted monolithic reference to
    better than 0.01 %:

    >>> from bondgraph.cosim import cosimulate
    >>> res = cosimulate(list(b3_subsystems()), B3_RELATIONS, step=1e-3, end=1.0)
    >>> [bool(abs(a / b - 1) < 1e-4) for a, b in zip((res["mech.x"][-1], res["mech.v"][-1],
    ...                                               res["hyd.p"][-1]), B3_QUOTED)]
    [True, True, True]
    """
    p, A, p0 = _b3()
    m, c, b = p["m"], p["c"], p["beta"] / p["V"]
    mech = StateSpaceSubsystem("mech", A=[[0, 1], [0, -c / m]], B=[[0], [1 / m]], C=np.eye(2),
                               D=np.zeros((2, 1)), x0=[0.0, 0.0], offset=[0.0, -p["g"]],
                               inputs=[("F", "N", "rod force")],
                               outputs=[("x", "m", "rod position"),
                                        ("v", "m/s", "rod velocity")])
    hyd = StateSpaceSubsystem("hyd", A=[[-b * p["leak"]]], B=[[-b * A]], C=[[A], [1.0]],
                              D=np.zeros((2, 1)), x0=[p0], offset=[b * p["Q0"]],
                              inputs=[("v", "m/s", "rod velocity")],
                              outputs=[("F", "N", "rod force"), ("p", "Pa", "pressure")])
    return mech, hyd


class _B3Mech(OdeSubsystem):
    def rhs(self, t, x, u):
        p = B3
        return np.array([x[1], (u[0] - p["m"] * p["g"] - p["c"] * x[1]) / p["m"]])

    def output(self, t, x, u):
        return x.copy()


class _B3Hyd(OdeSubsystem):
    def rhs(self, t, x, u):
        p, A, _ = _b3()
        return np.array([p["beta"] / p["V"] * (p["Q0"] - A * u[0] - p["leak"] * x[0])])

    def output(self, t, x, u):
        _, A, _ = _b3()
        return np.array([A * x[0], x[0]])


def b3_ode_subsystems(method: str = "DOP853", rtol: float = 1e-10,
                      atol: float = 1e-12) -> tuple[OdeSubsystem, OdeSubsystem]:
    """The B3 subsystems as :class:`OdeSubsystem` (integrated by solve_ivp).

    Parameters
    ----------
    method : str
        solve_ivp method.
    rtol, atol : float
        Tolerances (the pressure's ``atol`` is scaled by 1e6).

    Returns
    -------
    (OdeSubsystem, OdeSubsystem)

    Examples
    --------
    >>> from bondgraph.cosim import cosimulate
    >>> res = cosimulate(list(b3_ode_subsystems()), B3_RELATIONS, step=2e-3, end=0.2)
    >>> x_ref, _, _ = b3_reference()(0.2)
    >>> bool(abs(res["mech.x"][-1] - x_ref) < 1e-3 * x_ref)
    True
    """
    _, _, p0 = _b3()
    mech = _B3Mech("mech", inputs=[("F", "N")], outputs=[("x", "m"), ("v", "m/s")],
                   x0=[0.0, 0.0], direct_feedthrough=False, method=method, rtol=rtol,
                   atol=atol)
    hyd = _B3Hyd("hyd", inputs=[("v", "m/s")], outputs=[("F", "N"), ("p", "Pa")], x0=[p0],
                 direct_feedthrough=False, method=method, rtol=rtol, atol=atol * 1e6)
    return mech, hyd


def b3_energy_balance(res) -> tuple[np.ndarray, np.ndarray]:
    """Energy the coupling created on B3's bond, and the same from B3's own energy balance.

    The balance is computed from the states alone: stored energy (kinetic, potential,
    compressed oil ``V p**2 / (2 beta)``) minus the supply's work ``Q0 p`` plus what
    leakage and damping dissipated, integrated by the trapezoid rule over the samples.

    Parameters
    ----------
    res : CosimResults
        A run of the B3 subsystems (with the bond ``hyd.F*mech.v``).

    Returns
    -------
    created, balance : ndarray
        Cumulative, at each communication point of ``res``.

    Examples
    --------
    A zero-order hold creates energy; both counts agree on how much:

    >>> from bondgraph.cosim import ErrorPolicy, cosimulate
    >>> res = cosimulate(list(b3_subsystems()), B3_RELATIONS, step=5e-4, end=0.3, glue="zoh",
    ...                  policy=ErrorPolicy(divergence="off"))
    >>> created, balance = b3_energy_balance(res)
    >>> bool(created[-1] > 1.0), bool(abs(created[-1] - balance[-1]) < 5e-3 * abs(balance[-1]))
    (True, True)
    """
    p = B3
    x, v, pr = res["mech.x"], res["mech.v"], res["hyd.p"]
    stored = 0.5 * p["m"] * v ** 2 + p["m"] * p["g"] * x + p["V"] * pr ** 2 / (2 * p["beta"])
    net = p["Q0"] * pr - p["leak"] * pr ** 2 - p["c"] * v ** 2
    work = np.concatenate([[0.0], np.cumsum(0.5 * np.diff(res.time) * (net[1:] + net[:-1]))])
    return res["hyd.F*mech.v"], stored - stored[0] - work


#: B3 relations and power bond.
B3_RELATIONS = Relations(["mech.v -> hyd.v", "hyd.F -> mech.F"],
                         bonds=[PowerBond(effort="hyd.F", flow="mech.v")])


def b3_reference(rtol: float = 1e-12) -> Callable[[float], tuple[float, float, float]]:
    """Monolithic solution; returns ``f(t) -> (x, v, p)`` (vectorised over t).

    Parameters
    ----------
    rtol : float
        Tolerance of the DOP853 solution.

    Returns
    -------
    callable
        ``f(t)``: floats for a scalar ``t``, arrays for an array.

    Examples
    --------
    >>> x, v, p = b3_reference()(0.0)
    >>> x, v, round(p / 1e5, 4)      # at rest, holding m·g/A
    (0.0, 0.0, 12.4905)
    """
    p, A, p0 = _b3()

    def rhs(t, y):
        x, v, pr = y
        return [v, (pr * A - p["m"] * p["g"] - p["c"] * v) / p["m"],
                p["beta"] / p["V"] * (p["Q0"] - A * v - p["leak"] * pr)]

    sol = solve_ivp(rhs, (0.0, p["T"]), [0.0, 0.0, p0], method="DOP853", rtol=rtol,
                    atol=1e-14, dense_output=True)

    def f(t):
        y = sol.sol(t)
        if np.ndim(t) == 0:
            return float(y[0]), float(y[1]), float(y[2])
        return y[0], y[1], y[2]
    return f
