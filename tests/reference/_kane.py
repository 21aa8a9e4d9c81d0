"""Numeric engine around a one-degree-of-freedom ``sympy.physics.mechanics``
:class:`~sympy.physics.mechanics.KanesMethod` with holonomic constraints.

Private helper of :mod:`tests.reference`; it knows nothing of the toolkit under
test.  A mechanism module builds the symbolic model (bodies, loads, loop
closures) and hands it to :func:`compile_model`; this module turns it into fast
numerical callables and provides

* :func:`solve_dependent` -- Newton iteration on Kane's configuration
  constraints for the dependent coordinates, given the independent one;
* :func:`dependent_speeds` -- the velocity constraints solved for the
  dependent speeds;
* :func:`inverse_dynamics` -- Kane's equations ``M(q) u' = f(q, u, F)`` with the
  independent acceleration prescribed and the actuator force ``F`` unknown;
* :func:`forward_dynamics` -- the same equations integrated with a prescribed
  ``F(t)`` by coordinate partitioning: only the independent coordinate and
  speed are integrated, the dependent ones are recovered from the constraints
  at every right-hand-side evaluation (so there is no constraint drift).

Conventions: the generalised coordinates are ordered ``q = [q_ind, *q_dep]``
(exactly one independent coordinate), the generalised speeds are
``u_i = dq_i/dt`` in the same order, and ``F`` is one scalar actuator force
entering the forcing vector linearly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np
import sympy as sm
import sympy.physics.mechanics as me
from scipy.integrate import solve_ivp
from scipy.optimize import brentq

__all__ = [
    "CompiledModel",
    "compile_model",
    "solve_dependent",
    "dependent_speeds",
    "inverse_dynamics",
    "forward_dynamics",
    "scan_roots",
    "evaluate_history",
    "cylinder_bodies",
]


@dataclass
class CompiledModel:
    """Numerical callables of a one-DOF constrained Kane model.

    All callables take plain float sequences ``q`` (length n), ``u`` (length
    n) and ``p`` (parameter values in the order of :attr:`params`).
    """

    n: int
    params: tuple[sm.Symbol, ...]
    mass_matrix: Callable[..., np.ndarray]
    forcing0: Callable[..., np.ndarray]
    forcing_dF: Callable[..., np.ndarray]
    constraints: Callable[..., np.ndarray]
    constraint_jacobian: Callable[..., np.ndarray]
    kinetic_energy: Callable[..., float]
    potential_energy: Callable[..., float]
    points: dict[str, Callable[..., np.ndarray]] = field(default_factory=dict)


def _plain(exprs, q, u, qs, us):
    """Replace ``q_i(t)``, ``u_i(t)`` by plain symbols (and reject leftovers)."""
    rep = dict(zip(q, qs))
    rep.update(dict(zip(u, us)))
    out = sm.Matrix(exprs).xreplace(rep) if isinstance(exprs, (list, tuple, sm.MatrixBase)) else exprs.xreplace(rep)
    leftovers = out.atoms(sm.Derivative) | {a for a in out.atoms(sm.Function) if a.has(me.dynamicsymbols._t)}
    if leftovers:
        raise RuntimeError(f"unexpected time-dependent leftovers: {leftovers}")
    return out


def compile_model(
    km: me.KanesMethod,
    q: Sequence[sm.Function],
    u: Sequence[sm.Function],
    params: Sequence[sm.Symbol],
    force: sm.Symbol,
    configuration_constraints: Sequence[sm.Expr],
    kinetic_energy: sm.Expr,
    potential_energy: sm.Expr,
    points: dict[str, sm.Matrix] | None = None,
) -> CompiledModel:
    """Lambdify the Kane model (``km.kanes_equations`` must have been called).

    Parameters
    ----------
    km
        Kane object with ``q == [q_ind, *q_dep]`` and ``u`` likewise.
    q, u
        The dynamic symbols in the order of ``km.q`` and ``km.u``.
    params
        Constant symbols; their numerical values are passed as ``p``.
    force
        The actuator force symbol (unknown of the inverse problem).
    configuration_constraints
        Expressions that vanish on the constraint manifold (functions of q).
    kinetic_energy, potential_energy
        Scalar expressions in q and u.
    points
        Optional named world positions ``Matrix([x, y])`` (functions of q).
    """
    n = len(q)
    qs = sm.symbols(f"q0:{n}")
    us = sm.symbols(f"u0:{n}")
    ps = tuple(params)
    M = _plain(km.mass_matrix, q, u, qs, us)
    f = _plain(km.forcing, q, u, qs, us)
    dfdF = f.diff(force)
    if any(sm.simplify(e.diff(force)) != 0 for e in dfdF):
        raise RuntimeError("forcing is not linear in the actuator force")
    f0 = f.subs(force, 0)
    cons = _plain(list(configuration_constraints), q, u, qs, us)
    jac = cons.jacobian(sm.Matrix(qs))
    ke = _plain(kinetic_energy, q, u, qs, us)
    pe = _plain(potential_energy, q, u, qs, us)
    args = (qs, us, ps)
    lam = lambda e: sm.lambdify(args, e, modules="numpy", cse=True)  # noqa: E731
    pts = {name: lam(_plain(expr, q, u, qs, us)) for name, expr in (points or {}).items()}
    return CompiledModel(
        n=n,
        params=ps,
        mass_matrix=lam(M),
        forcing0=lam(f0),
        forcing_dF=lam(dfdF),
        constraints=lam(cons),
        constraint_jacobian=lam(jac),
        kinetic_energy=lam(ke),
        potential_energy=lam(pe),
        points=pts,
    )


def solve_dependent(
    model: CompiledModel, q_ind: float, q_dep_guess: Sequence[float], p: Sequence[float], maxit: int = 50
) -> np.ndarray:
    """Newton iteration on the configuration constraints for the dependent
    coordinates; returns the full ``q`` (independent first).

    Newton converges quadratically, so once a correction is below 1e-9 one
    more iteration brings the result to round-off level and it stops.
    """
    q = np.concatenate(([q_ind], np.asarray(q_dep_guess, dtype=float)))
    zero_u = np.zeros(model.n)
    for _ in range(maxit):
        r = np.asarray(model.constraints(q, zero_u, p), dtype=float).ravel()
        J = np.asarray(model.constraint_jacobian(q, zero_u, p), dtype=float)
        dq = np.linalg.solve(J[:, 1:], -r)
        q[1:] += dq
        if np.max(np.abs(dq)) < 1e-9:
            r = np.asarray(model.constraints(q, zero_u, p), dtype=float).ravel()
            J = np.asarray(model.constraint_jacobian(q, zero_u, p), dtype=float)
            q[1:] += np.linalg.solve(J[:, 1:], -r)
            return q
    raise RuntimeError(f"Newton on the loop-closure constraints did not converge (|dq| = {np.max(np.abs(dq)):.3g})")


def dependent_speeds(model: CompiledModel, q: np.ndarray, u_ind: float, p: Sequence[float]) -> np.ndarray:
    """Velocity constraints ``J(q) u = 0`` solved for the dependent speeds;
    returns the full ``u``."""
    J = np.asarray(model.constraint_jacobian(q, np.zeros(model.n), p), dtype=float)
    u_dep = np.linalg.solve(J[:, 1:], -J[:, 0] * u_ind)
    return np.concatenate(([u_ind], u_dep))


def _accelerations_and_force(model: CompiledModel, q, u, udot_ind: float, p) -> tuple[np.ndarray, float]:
    """Solve Kane's equations for the dependent accelerations and ``F``."""
    M = np.asarray(model.mass_matrix(q, u, p), dtype=float)
    f0 = np.asarray(model.forcing0(q, u, p), dtype=float).ravel()
    fF = np.asarray(model.forcing_dF(q, u, p), dtype=float).ravel()
    # unknowns z = [udot_dep..., F]:  M[:,1:] udot_dep - fF * F = f0 - M[:,0] udot_ind
    Amat = np.column_stack((M[:, 1:], -fF))
    rhs = f0 - M[:, 0] * udot_ind
    z = np.linalg.solve(Amat, rhs)
    return np.concatenate(([udot_ind], z[:-1])), float(z[-1])


def evaluate_history(x, t: np.ndarray) -> np.ndarray:
    """Evaluate ``x`` on ``t``: a callable of time (scalar or vectorised), a
    scalar constant or an array of the same length as ``t``."""
    t = np.asarray(t, dtype=float)
    if callable(x):
        try:
            val = np.asarray(x(t), dtype=float)
            if val.shape == t.shape:
                return val
        except Exception:  # noqa: BLE001 - fall back to scalar calls
            pass
        return np.array([float(x(ti)) for ti in t])
    val = np.asarray(x, dtype=float)
    if val.ndim == 0:
        return np.full(t.shape, float(val))
    if val.shape != t.shape:
        raise ValueError("array history must have the shape of t")
    return val


def inverse_dynamics(
    model: CompiledModel,
    p: Sequence[float],
    t: np.ndarray,
    q_ind,
    u_ind,
    udot_ind,
    q_dep_guess: Sequence[float],
) -> dict[str, np.ndarray]:
    """Prescribed independent coordinate history -> all q, u, u' and ``F``.

    The dependent coordinates are obtained by Newton continuation along ``t``
    starting from ``q_dep_guess``.
    """
    t = np.asarray(t, dtype=float)
    qi = evaluate_history(q_ind, t)
    ui = evaluate_history(u_ind, t)
    ai = evaluate_history(udot_ind, t)
    nt, n = t.size, model.n
    Q = np.empty((nt, n))
    U = np.empty((nt, n))
    A = np.empty((nt, n))
    F = np.empty(nt)
    res = np.empty(nt)
    ke = np.empty(nt)
    pe = np.empty(nt)
    guess = np.asarray(q_dep_guess, dtype=float)
    for k in range(nt):
        q = solve_dependent(model, qi[k], guess, p)
        guess = q[1:]
        u = dependent_speeds(model, q, ui[k], p)
        a, F[k] = _accelerations_and_force(model, q, u, ai[k], p)
        Q[k], U[k], A[k] = q, u, a
        res[k] = np.max(np.abs(np.asarray(model.constraints(q, u, p), dtype=float)))
        ke[k] = model.kinetic_energy(q, u, p)
        pe[k] = model.potential_energy(q, u, p)
    return {"q": Q, "u": U, "udot": A, "F": F, "constraint_residual": res, "kinetic_energy": ke, "potential_energy": pe}


def forward_dynamics(
    model: CompiledModel,
    p: Sequence[float],
    t: np.ndarray,
    force: Callable[[float], float],
    q_ind0: float,
    u_ind0: float,
    q_dep_guess: Sequence[float],
    rtol: float = 1e-12,
    atol: float = 1e-14,
    method: str = "DOP853",
    max_cond: float = 1e6,
    max_evaluations: int = 50_000,
) -> dict[str, np.ndarray]:
    """Integrate Kane's equations with prescribed ``F(t)`` (coordinate
    partitioning: state = independent coordinate and speed).

    Raises ``RuntimeError`` when the dependent-coordinate Jacobian becomes
    ill-conditioned (condition number above ``max_cond``) or the integrator
    needs more than ``max_evaluations`` right-hand sides -- both symptoms of a
    dead centre where the independent coordinate stops parametrising the
    motion."""
    t = np.asarray(t, dtype=float)
    last = {"dep": np.asarray(q_dep_guess, dtype=float)}
    counter = {"n": 0}

    def full_state(ti: float, y: np.ndarray):
        if not np.all(np.isfinite(y)):
            raise RuntimeError(f"non-finite state at t = {ti}")
        q = solve_dependent(model, y[0], last["dep"], p)
        last["dep"] = q[1:].copy()
        Jd = np.asarray(model.constraint_jacobian(q, np.zeros(model.n), p), dtype=float)[:, 1:]
        counter["n"] += 1
        if np.linalg.cond(Jd) > max_cond:
            raise RuntimeError(f"mechanism (nearly) singular at t = {ti}: q = {q} (dead centre of the independent coordinate?)")
        if counter["n"] > max_evaluations:
            raise RuntimeError(f"more than {max_evaluations} right-hand-side evaluations at t = {ti}, q = {q}: the motion is "
                               "probably approaching a dead centre of the independent coordinate")
        u = dependent_speeds(model, q, y[1], p)
        M = np.asarray(model.mass_matrix(q, u, p), dtype=float)
        Fi = float(force(ti))
        f = np.asarray(model.forcing0(q, u, p), dtype=float).ravel() + Fi * np.asarray(model.forcing_dF(q, u, p), dtype=float).ravel()
        a = np.linalg.solve(M, f)
        return q, u, a, Fi

    def rhs(ti, y):
        _, _, a, _ = full_state(ti, y)
        return [y[1], a[0]]

    sol = solve_ivp(rhs, (t[0], t[-1]), [q_ind0, u_ind0], method=method, t_eval=t, rtol=rtol, atol=atol)
    if not sol.success:
        raise RuntimeError(sol.message)
    nt, n = t.size, model.n
    Q = np.empty((nt, n))
    U = np.empty((nt, n))
    A = np.empty((nt, n))
    F = np.empty(nt)
    res = np.empty(nt)
    ke = np.empty(nt)
    pe = np.empty(nt)
    last["dep"] = np.asarray(q_dep_guess, dtype=float)
    for k in range(nt):
        q, u, a, F[k] = full_state(t[k], sol.y[:, k])
        Q[k], U[k], A[k] = q, u, a
        res[k] = np.max(np.abs(np.asarray(model.constraints(q, u, p), dtype=float)))
        ke[k] = model.kinetic_energy(q, u, p)
        pe[k] = model.potential_energy(q, u, p)
    return {"q": Q, "u": U, "udot": A, "F": F, "constraint_residual": res, "kinetic_energy": ke, "potential_energy": pe, "nfev": sol.nfev}


def scan_roots(fun: Callable[[float], float], lo: float, hi: float, n: int = 721) -> list[float]:
    """All sign-change roots of a scalar function on ``[lo, hi]`` (grid scan of
    ``n`` points, each bracket refined with :func:`scipy.optimize.brentq`)."""
    x = np.linspace(lo, hi, n)
    y = np.array([fun(xi) for xi in x])
    roots = []
    for i in range(n - 1):
        if y[i] == 0.0:
            roots.append(float(x[i]))
        elif y[i] * y[i + 1] < 0.0:
            roots.append(float(brentq(fun, x[i], x[i + 1], xtol=1e-15, rtol=4 * np.finfo(float).eps)))
    return roots


def cylinder_bodies(
    N: me.ReferenceFrame,
    root: me.Point,
    phi,
    s,
    u_phi,
    u_s,
    m1: sm.Symbol,
    d1: sm.Symbol,
    J1: sm.Symbol,
    m2: sm.Symbol,
    d2: sm.Symbol,
    J2: sm.Symbol,
    g: sm.Symbol,
    F: sm.Symbol,
    origin: me.Point,
):
    """Barrel + rod of a hydraulic cylinder whose root ``root`` is fixed in
    ``N`` (velocity zero), axis angle ``phi`` from ``N.x`` and pin-to-pin
    length ``s``.

    Barrel: mass ``m1``, centre of gravity on the axis at ``d1`` from the root,
    centroidal inertia ``J1``.  Rod: mass ``m2``, centre of gravity on the axis
    at ``d2`` back from the rod eye (i.e. at ``s - d2`` from the root),
    centroidal inertia ``J2``.  Both rotate with the cylinder axis.  Gravity
    ``-g N.y``.  The actuator force ``F`` (positive = pushing the rod out)
    acts ``+F`` along the axis on the rod and ``-F`` on the barrel (same line
    of action, so it exerts no net moment).

    ``origin`` is the world origin (potential energies are ``m g y`` with
    ``y`` measured from it).  Returns ``(bodies, loads, potential_energy,
    points)``.
    """
    Cf = N.orientnew("Cyl", "Axis", (phi, N.z))
    Cf.set_ang_vel(N, u_phi * N.z)
    P1 = root.locatenew("BarrelCoG", d1 * Cf.x)
    P1.v2pt_theory(root, N, Cf)
    P2 = root.locatenew("RodCoG", (s - d2) * Cf.x)
    P2.set_vel(N, u_s * Cf.x + (s - d2) * u_phi * Cf.y)
    barrel = me.RigidBody("barrel", P1, Cf, m1, (me.inertia(Cf, 0, 0, J1), P1))
    rod = me.RigidBody("rod", P2, Cf, m2, (me.inertia(Cf, 0, 0, J2), P2))
    loads = [(P1, -m1 * g * N.y - F * Cf.x), (P2, -m2 * g * N.y + F * Cf.x)]
    O = origin
    pe = m1 * g * P1.pos_from(O).dot(N.y) + m2 * g * P2.pos_from(O).dot(N.y)
    pts = {"barrel_cog": P1, "rod_cog": P2}
    return [barrel, rod], loads, pe, pts
