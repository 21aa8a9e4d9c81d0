"""Linearisation at an operating point: ``ẋ ≈ A·δx + B·δu``, modes, frequencies.

``A`` is the model's analytic Jacobian (``model.system.jac``, the compiled
forward tangents through the block-triangular equations); ``B`` is obtained
by central differences of the compiled right-hand side with respect to each
input value (input *derivatives*, where a model uses them, are held).

:meth:`LinearModel.modes` gives, per eigenvalue (one row per complex pair),
the undamped natural frequency ``|λ|/2π``, the damping ratio ``−Re λ/|λ|``
and the states that take part most (participation factors
``|v_k·w_k|``, scale-free, so pressures and velocities compare fairly).
:func:`equilibrium` finds an operating point: it solves ``ẋ = 0`` for the
states you free, holding the others.

Examples
--------
>>> from bondgraph import BondGraph, Se, One, I, C, R, build
>>> bg = BondGraph("msd")
>>> _ = bg.add(Se("F", 0.0), One("v"), I("m", 1.0), C.spring("k", (2 * 3.141592653589793) ** 2),
...            R("b", 0.2))
>>> for a, b in [("F", "v"), ("v", "m"), ("v", "k"), ("v", "b")]:
...     _ = bg.connect(a, b)
>>> lin = linearize(build(bg))
>>> mode = lin.modes()[0]
>>> round(mode.frequency, 6), round(mode.damping, 6)        # 1 Hz, ζ = b/(2·√(k·m))
(1.0, 0.015915)
>>> print(lin.table())                                        # doctest: +NORMALIZE_WHITESPACE
linearisation of 'msd' at t = 0: 2 states, 0 inputs
mode  eigenvalue              f_n [Hz]  zeta      tau [s]  dominant states
1     -0.1 ± 6.282j           1         0.01592   -        msd/m.f 50%, msd/k.e 50%
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from .errors import ParameterError, SimulationError
from .model import Model, _near
from .signals import InputSet

__all__ = ["ModeInfo", "LinearModel", "linearize", "equilibrium"]


@dataclass(frozen=True)
class ModeInfo:
    """One eigenvalue (or complex pair) of a linearised model.

    Attributes
    ----------
    eigenvalue : complex
        ``λ`` (with ``Im λ ≥ 0`` for a pair).
    frequency : float
        Undamped natural frequency ``|λ|/2π`` (Hz); 0 for a real eigenvalue.
    damped_frequency : float
        ``Im λ/2π`` (Hz).
    damping : float
        Damping ratio ``−Re λ/|λ|`` (1 for a real stable eigenvalue, NaN at 0).
    time_constant : float
        ``−1/Re λ`` for a real eigenvalue (s); ``inf`` at 0; NaN for a pair.
    oscillatory : bool
    dominant : tuple of (state, share)
        States with the largest participation (shares sum to 1 over all states).

    Examples
    --------
    A mass on a damper alone has one real mode, ``λ = −b/m``:

    >>> from bondgraph import BondGraph, One, I, R, build
    >>> bg = BondGraph("coast")
    >>> _ = bg.add(One("v"), I("m", 2.0), R("b", 4.0))
    >>> _ = bg.connect("v", "m"); _ = bg.connect("v", "b")
    >>> (mode,) = linearize(build(bg)).modes()
    >>> mode.eigenvalue, mode.time_constant, mode.oscillatory, mode.dominant
    ((-2+0j), 0.5, False, (('coast/m.f', 1.0),))
    """

    eigenvalue: complex
    frequency: float
    damped_frequency: float
    damping: float
    time_constant: float
    oscillatory: bool
    dominant: tuple[tuple[str, float], ...]


@dataclass(frozen=True)
class LinearModel:
    """``ẋ = A·x + B·u`` about ``(t, x, u)``; see :func:`linearize`.

    Attributes
    ----------
    name : str
        The model's name.
    A : ndarray, shape (n_states, n_states)
    B : ndarray, shape (n_states, n_inputs)
    state_names, input_names : tuple of str
    x, u : ndarray
        The operating point.
    t : float

    Examples
    --------
    A force input on a mass–damper: ``A = [−b/m]``, ``B = [1/m]``:

    >>> from bondgraph import BondGraph, MSe, One, I, R, Input, build
    >>> bg = BondGraph("cart")
    >>> _ = bg.add(MSe("F", Input("force")), One("v"), I("m", 2.0), R("b", 4.0))
    >>> for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
    ...     _ = bg.connect(a, b)
    >>> lin = linearize(build(bg), inputs={"force": 1.0})
    >>> lin.A, lin.B.round(9), lin.input_names
    (array([[-2.]]), array([[0.5]]), ('force',))
    >>> lin.eigenvalues()
    array([-2.])
    """

    name: str
    A: np.ndarray
    B: np.ndarray
    state_names: tuple[str, ...]
    input_names: tuple[str, ...]
    x: np.ndarray
    u: np.ndarray
    t: float

    def eigenvalues(self) -> np.ndarray:
        """Eigenvalues of ``A``, sorted by magnitude.

        Returns
        -------
        ndarray of complex or float
        """
        lam = np.linalg.eigvals(self.A)
        return lam[np.argsort(np.abs(lam), kind="stable")]

    def modes(self, *, min_frequency: float = 0.0, oscillatory_only: bool = False,
              top: int = 3, zero_tol: float = 1e-9) -> list[ModeInfo]:
        """Modes sorted by natural frequency (complex pairs once, real modes after).

        Parameters
        ----------
        min_frequency : float
            Drop oscillatory modes below this natural frequency (Hz).
        oscillatory_only : bool
            Only complex pairs.
        top : int
            How many dominant states to list per mode.
        zero_tol : float
            ``|λ|`` below this (relative to the largest) counts as zero.

        Returns
        -------
        list of ModeInfo

        Examples
        --------
        See :class:`ModeInfo` and the module.
        """
        A = np.asarray(self.A, dtype=float)
        if A.size == 0:
            return []
        lam, V = np.linalg.eig(A)
        try:
            W = np.linalg.inv(V)
        except np.linalg.LinAlgError:
            W = np.linalg.pinv(V)
        part = np.abs(V * W.T)  # part[k, i] = |V[k, i]·W[i, k]|
        scale = max(float(np.max(np.abs(lam))), 1e-300)
        out: list[ModeInfo] = []
        for i, l in enumerate(lam):
            if l.imag < -1e-12 * scale:
                continue  # keep one of each pair
            osc = abs(l.imag) > 1e-12 * scale
            if oscillatory_only and not osc:
                continue
            mag = abs(l)
            fn = mag / (2 * np.pi) if osc else 0.0
            if osc and fn < min_frequency:
                continue
            zero = mag <= zero_tol * scale
            damping = float("nan") if zero else float(-l.real / mag)
            tau = float("nan") if osc else (float("inf") if zero or l.real == 0 else float(-1.0 / l.real))
            p = part[:, i]
            tot = float(p.sum()) or 1.0
            order = np.argsort(-p, kind="stable")[:top]
            dom = tuple((self.state_names[k], float(p[k] / tot)) for k in order if p[k] / tot >= 0.01)
            out.append(ModeInfo(complex(l), float(fn), float(abs(l.imag) / (2 * np.pi)), damping,
                                tau, bool(osc), dom))
        out.sort(key=lambda m: (not m.oscillatory, m.frequency if m.oscillatory else -abs(m.eigenvalue)))
        return out

    def table(self, **kw: Any) -> str:
        """A readable table of :meth:`modes` (same keyword arguments).

        Returns
        -------
        str
            One line per mode: eigenvalue, natural frequency, damping ratio, time
            constant, dominant states (see the module example).

        Parameters
        ----------
        **kw
        """
        lines = [f"linearisation of {self.name!r} at t = {self.t:g}: {len(self.state_names)} states, "
                 f"{len(self.input_names)} inputs",
                 f"{'mode':<5} {'eigenvalue':<23} {'f_n [Hz]':<9} {'zeta':<9} {'tau [s]':<8} dominant states"]
        for i, m in enumerate(self.modes(**kw), 1):
            l = m.eigenvalue
            ev = f"{l.real:.4g} ± {abs(l.imag):.4g}j" if m.oscillatory else f"{l.real:.4g}"
            fn = f"{m.frequency:.4g}" if m.oscillatory else "-"
            z = "-" if np.isnan(m.damping) else f"{m.damping:.4g}"
            tau = "-" if np.isnan(m.time_constant) else f"{m.time_constant:.4g}"
            dom = ", ".join(f"{n} {100 * s:.0f}%" for n, s in m.dominant)
            lines.append(f"{i:<5} {ev:<23} {fn:<9} {z:<9} {tau:<8} {dom}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()


def _state(model: Model, x: Mapping[str, float] | np.ndarray | None, what: str,
           problems: list[str]) -> np.ndarray:
    from .stepping import _x0_problems

    bad = _x0_problems(model, x) if x is not None else []
    if bad:
        problems += [p.replace("x0", "x", 1) for p in bad]
        return np.zeros(len(model.state_names))
    return model.initial_state(x)


def _check(problems: list[str], what: str, model: Model) -> None:
    if problems:
        raise ParameterError(problems, subject=f"{what}({model.name!r})")


def _time(t: Any, problems: list[str]) -> float:
    from .stepping import _real

    if not _real(t) or not np.isfinite(float(t)):
        problems.append(f"t = {t!r}: expected a finite time")
        return 0.0
    return float(t)


def _inputs(model: Model, inputs: Mapping[str, Any] | None, t: float) -> tuple[np.ndarray, np.ndarray]:
    inp = InputSet(model.input_names, model.equations.input_derivatives, inputs)
    u, du = inp(t)
    return u.copy(), du.copy()


def linearize(model: Model, x: Mapping[str, float] | np.ndarray | None = None,
              inputs: Mapping[str, Any] | None = None, t: float = 0.0, *,
              eps: float = 1e-6) -> LinearModel:
    """Linearise ``model`` at ``(t, x, u)``.

    Parameters
    ----------
    model : Model
    x : dict or array, optional
        Operating point (named overrides of the initial state, or a full vector).
    inputs : dict, optional
        Input values or signals (evaluated at ``t``); every model input is needed.
    t : float
    eps : float
        Relative step of the central differences for ``B``.

    Returns
    -------
    LinearModel

    Raises
    ------
    ParameterError
        Unknown states or inputs, missing inputs, a non-finite ``t`` or state, ``eps``
        outside (0, 0.1] (all listed at once).
    SimulationError
        The model cannot be evaluated at that point (singular block...).

    Examples
    --------
    A pendulum of unit inertia under the gravity torque ``−g·sin θ`` (``m = L = 1``),
    linearised hanging down, oscillates at ``√g/2π ≈ 0.4985 Hz``, undamped:

    >>> import math
    >>> import sympy as sp
    >>> from bondgraph import BondGraph, MSe, One, I, build
    >>> bg = BondGraph("pend")
    >>> w = One("w", displacement="theta")
    >>> _ = bg.add(w, I("J", 1.0), MSe("grav", -9.81 * sp.sin(w.displacement)))
    >>> _ = bg.connect("w", "J"); _ = bg.connect("grav", "w")
    >>> (mode,) = linearize(build(bg)).modes()
    >>> bool(abs(mode.frequency - math.sqrt(9.81) / (2 * math.pi)) < 1e-9), mode.damping
    (True, 0.0)

    Upside down (``θ = π``) it is unstable: one real eigenvalue ``+√g``:

    >>> lam = linearize(build(bg), x={"pend/w.theta": math.pi}).eigenvalues()
    >>> bool(abs(max(lam.real) - math.sqrt(9.81)) < 1e-9)
    True
    """
    from .stepping import require_model

    require_model(model, "linearize")
    problems: list[str] = []
    t = _time(t, problems)
    from .stepping import _real

    if not _real(eps) or not 0 < float(eps) <= 0.1:
        problems.append(f"eps = {eps!r}: expected a relative step in (0, 0.1]")
    x0 = _state(model, x, "linearize", problems)
    _check(problems, "linearize", model)
    u, du = _inputs(model, inputs, t)
    sysm = model.system
    sysm.set_inputs(u, du)
    try:
        A = sysm.jac(t, x0)
        f0 = sysm.rhs(t, x0)
    except FloatingPointError as exc:
        raise SimulationError(f"model {model.name!r}: cannot linearise at t = {t}: {exc}",
                              time=t, state=dict(zip(model.state_names, map(float, x0)))) from None
    names = model.state_names
    if not np.all(np.isfinite(A)):
        bad = [f"d(der {names[i]})/d({names[j]})" for i, j in zip(*np.nonzero(~np.isfinite(A)))]
        raise SimulationError(f"model {model.name!r}: non-finite Jacobian at t = {t}: "
                              f"{', '.join(bad[:5])}" + (f" and {len(bad) - 5} more" if len(bad) > 5 else ""),
                              time=t, state=dict(zip(names, map(float, x0))))
    B = np.zeros((len(x0), len(u)))
    try:
        for j in range(len(u)):
            h = eps * max(1.0, abs(u[j]))
            up, um = u.copy(), u.copy()
            up[j] += h
            um[j] -= h
            try:
                sysm.set_inputs(up, du)
                fp = sysm.rhs(t, x0)
                sysm.set_inputs(um, du)
                fm = sysm.rhs(t, x0)
            except FloatingPointError as exc:
                raise SimulationError(f"model {model.name!r}: cannot linearise at t = {t} with respect "
                                      f"to input {model.input_names[j]!r} = {u[j]:g} ± {h:g}: {exc}",
                                      time=t, state=dict(zip(names, map(float, x0)))) from None
            B[:, j] = (fp - fm) / (2 * h)
            if not np.all(np.isfinite(B[:, j])):
                raise SimulationError(f"model {model.name!r}: non-finite response to input "
                                      f"{model.input_names[j]!r} = {u[j]:g} ± {h:g} at t = {t}",
                                      time=t, state=dict(zip(names, map(float, x0))))
    finally:
        sysm.set_inputs(u, du)
    del f0
    return LinearModel(model.name, A, B, tuple(model.state_names), tuple(model.input_names),
                       x0, u, float(t))


def _row_scale(J: np.ndarray) -> np.ndarray:
    """Each residual row's sensitivity to the free states (1 where it has none): the scale
    :func:`equilibrium` divides the rates by."""
    row = np.linalg.norm(J, axis=1)
    row[row == 0] = 1.0
    return row


def _accepted(resid: float, free_values: np.ndarray, tol: float) -> bool:
    """:func:`equilibrium`'s acceptance: the scaled residual below ``tol`` × the largest free
    state (or ``tol``)."""
    return bool(resid < tol * max(1.0, float(np.max(np.abs(free_values)))))


def equilibrium(model: Model, x: Mapping[str, float] | np.ndarray | None = None,
                free: Sequence[str] = (), inputs: Mapping[str, Any] | None = None,
                t: float = 0.0, *, tol: float = 1e-8) -> np.ndarray:
    """An operating point: solve ``ẋ = 0`` for the ``free`` states, others held.

    The residual ``ẋ`` is scaled per row by its sensitivity to the free states,
    so pressures and velocities weigh alike. Returns the full state vector.

    Parameters
    ----------
    model : Model
    x : dict or array, optional
        Starting point and the values of the held states.
    free : sequence of str
        The states solved for.
    inputs : dict, optional
        Input values or signals (at ``t``).
    t : float
    tol : float
        Largest scaled residual accepted, in (0, 1).

    Returns
    -------
    ndarray
        The full state vector at the equilibrium.

    Raises
    ------
    ParameterError
        Unknown, repeated or missing free state names, a non-finite ``t`` or state, ``tol``
        outside (0, 1) (all listed at once).
    SimulationError
        No point found with a scaled residual below ``tol`` (the message gives it).

    Examples
    --------
    >>> from bondgraph import BondGraph, Se, One, I, C, build
    >>> bg = BondGraph("hang")
    >>> _ = bg.add(Se("g", -9.81), One("v"), I("m", 1.0), C.spring("k", 100.0))
    >>> for a, b in [("g", "v"), ("v", "m"), ("v", "k")]:
    ...     _ = bg.connect(a, b)
    >>> round(float(equilibrium(build(bg), free=["hang/k.e"])[1]), 6)   # spring force = m·g
    -9.81
    """
    from scipy.optimize import least_squares

    from .stepping import _real, require_model

    require_model(model, "equilibrium")
    problems: list[str] = []
    t = _time(t, problems)
    if not _real(tol) or not 0 < float(tol) < 1:
        problems.append(f"tol = {tol!r}: expected a scaled residual in (0, 1)")
    if isinstance(free, str):
        problems.append(f"free = {free!r}: expected a list of state names, not one string")
        free = [free]
    free = list(free)
    if not free:
        problems.append("free: no free states given; name the states to solve for")
    names = model.state_names
    for n in free:
        if n not in names:
            problems.append(f"free: {n!r} is not a state of {model.name!r}"
                            + _near(n, names))
    dup = sorted({n for n in free if free.count(n) > 1})
    if dup:
        problems.append(f"free: {', '.join(map(repr, dup))} given more than once")
    x0 = _state(model, x, "equilibrium", problems)
    _check(problems, "equilibrium", model)
    idx = [model.state_index(n) for n in free]
    u, du = _inputs(model, inputs, t)
    sysm = model.system
    sysm.set_inputs(u, du)

    def rhs(z):
        xx = x0.copy()
        xx[idx] = z
        return sysm.rhs(t, xx)

    try:
        J = sysm.jac(t, x0)[:, idx]
    except FloatingPointError as exc:
        raise SimulationError(f"model {model.name!r}: equilibrium search cannot start at t = {t}: "
                              f"{exc}", time=t,
                              state=dict(zip(model.state_names, map(float, x0)))) from None
    row = _row_scale(J)
    zscale = np.maximum(np.abs(x0[idx]), 1.0)
    try:
        sol = least_squares(lambda z: rhs(z * zscale) / row, x0[idx] / zscale, xtol=1e-15,
                            ftol=1e-15, gtol=1e-15, max_nfev=200)
        out = x0.copy()
        out[idx] = sol.x * zscale
        resid = float(np.max(np.abs(rhs(out[idx]) / row)))
    except (FloatingPointError, ValueError) as exc:
        raise SimulationError(f"model {model.name!r}: equilibrium search for {', '.join(free)} "
                              f"failed at t = {t}: {exc}", time=t) from None
    if not _accepted(resid, out[idx], tol):
        raise SimulationError(f"model {model.name!r}: no equilibrium for {', '.join(free)} "
                              f"(scaled residual {resid:.3g}, expected < {tol:g}); free other "
                              "states or change the operating point")
    return out
