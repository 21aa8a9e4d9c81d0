"""Measuring formulations side by side: stiffness, accuracy, cost.

* :func:`eigenvalues` / :func:`stiffness_ratio` — of the model's Jacobian
  ``∂ẋ/∂x`` at the first point of a run (analytic, from the compiled code);
* :func:`tip_error` — largest distance between a run's point trajectory and a
  reference trajectory;
* :func:`spline_bundle` — many input histories as one vectorised spline, so
  evaluating the inputs costs one call per RHS evaluation, the same for every
  formulation (it would otherwise dominate a chain of 30 cylinders);
* :func:`cost` — wall time, RHS and Jacobian evaluations of a run;
* :func:`force_histories`, :func:`cheapest_run`, :func:`compare` — the
  accuracy-matched comparison the benchmark and the notebook run. Mode
  ``"forces"``: the case's motion gives the cylinder forces (causal inverse
  dynamics) and the forces drive every formulation forward; mode
  ``"extensions"``: every formulation follows the prescribed lengths. Each
  formulation gets the cheapest integrator and tolerance that keep its tip
  within ``tol`` of a tight reference (the stiff-joint form also the softest
  joints that can).

Stiffness ratio: ``max|μ| / min|μ|`` over the eigenvalues ``μ`` of the
Jacobian, ignoring those with ``|μ| < floor`` (default 1e-6 1/s): a formulation
that integrates redundant coordinates (the causal one keeps every part's angle
as a state; the Cartesian one keeps ``(x, y, θ)`` of every body) has exact
zero eigenvalues along them, which say nothing about stiffness.

Examples
--------
>>> from mechanisms.formulations import build_formulation, double_pendulum
>>> mech, pose = double_pendulum()
>>> ratios = {}
>>> for kind in ("causal", "stiff"):
...     f = build_formulation(mech, kind)
...     res = f.simulate_forces({}, (0.0, 1e-3), pose)
...     ratios[kind] = stiffness_ratio(f.model, res)[0]
>>> ratios["causal"] < 10, ratios["stiff"] > 1e4
(True, True)
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import numpy as np
from scipy.interpolate import CubicSpline

from bondgraph import Model, ParameterError, Results, Signal

from .base import Formulation
from .cases import Case

__all__ = ["eigenvalues", "stiffness_ratio", "tip_error", "spline_bundle", "cost",
           "force_histories", "cheapest_run", "compare", "Comparison", "RTOLS", "METHODS",
           "STIFFNESSES", "EXPLICIT", "Deadline"]

#: Tolerance ladder of the accuracy-matched search (loosest first, half decades).
RTOLS = (1e-3, 3e-4, 1e-4, 3e-5, 1e-5, 3e-6, 1e-6, 3e-7, 1e-7, 3e-8, 1e-8, 1e-9, 1e-10)
#: Integrators tried for every formulation.
METHODS = ("LSODA", "CVODE", "Radau", "BDF", "DOP853", "RK45")
#: Explicit methods: not tried on the stiff-joint formulation (stability-bound steps).
EXPLICIT = ("DOP853", "RK45")
#: Joint stiffness ladder of the stiff-joint formulation (N/m).
STIFFNESSES = (1e8, 1e9, 1e10, 1e11, 1e12)


def eigenvalues(model: Model, res: Results, index: int = 0) -> np.ndarray:
    """Eigenvalues of ``∂ẋ/∂x`` at point ``index`` of a run (its inputs included).

    Parameters
    ----------
    model : Model
    res : Results
        A run of ``model``.
    index : int
        Which output point.

    Returns
    -------
    ndarray of complex

    Examples
    --------
    The hanging double pendulum oscillates at ``2π·0.4266`` and ``2π·1.1441`` rad/s (the
    hand-derived modes of :func:`~mechanisms.formulations.double_pendulum`):

    >>> from mechanisms.formulations import build_formulation, double_pendulum
    >>> mech, pose = double_pendulum(theta1=0.0, theta2=0.0)
    >>> f = build_formulation(mech, "causal")
    >>> res = f.simulate_forces({}, (0.0, 1e-3), pose, progress=False)
    >>> np.round(np.sort(np.abs(eigenvalues(f.model, res).imag)) / (2 * np.pi), 4)
    array([0.4266, 0.4266, 1.1441, 1.1441])
    """
    t = float(res.t[index])
    x = np.asarray(res.x[index], dtype=float)
    if res.inputs.names:
        u, du = res.inputs(t)
        model.system.set_inputs(u, du)
    return np.linalg.eigvals(model.system.jac(t, x))


def stiffness_ratio(model: Model, res: Results, floor: float = 1e-6) -> tuple[float, float, float]:
    """``(ratio, largest |μ|, smallest |μ| ≥ floor)`` at the start of a run.

    Parameters
    ----------
    model : Model
    res : Results
    floor : float
        Eigenvalues below it (1/s) are left out (redundant coordinates).

    Returns
    -------
    (float, float, float)

    Examples
    --------
    See the module (the stiff joints' ratio is four decades above the causal form's).
    """
    mag = np.abs(eigenvalues(model, res))
    mag = mag[mag >= floor]
    if mag.size == 0:
        return 1.0, 0.0, 0.0
    return float(mag.max() / mag.min()), float(mag.max()), float(mag.min())


def tip_error(t: np.ndarray, xy: np.ndarray, ref_t: np.ndarray, ref_xy: np.ndarray) -> float:
    """Largest distance (m) between ``xy(t)`` and the reference, interpolated to ``t``.

    Parameters
    ----------
    t : ndarray
    xy : ndarray, shape (len(t), 2)
    ref_t : ndarray
    ref_xy : ndarray, shape (len(ref_t), 2)

    Returns
    -------
    float

    Examples
    --------
    >>> t = np.linspace(0, 1, 11)
    >>> tip_error(t, np.column_stack([t, 0 * t + 1e-3]), t, np.column_stack([t, 0 * t]))
    0.001
    """
    rx = np.interp(t, ref_t, ref_xy[:, 0])
    ry = np.interp(t, ref_t, ref_xy[:, 1])
    return float(np.max(np.hypot(xy[:, 0] - rx, xy[:, 1] - ry)))


class _Bundle:
    """One vectorised cubic spline with a one-entry cache per evaluation time."""

    def __init__(self, times: np.ndarray, values: np.ndarray, bc_type: str):
        self.cs = CubicSpline(times, values, axis=0, bc_type=bc_type)
        self.d1 = self.cs.derivative(1)
        self.t0, self.t1 = float(times[0]), float(times[-1])
        self._t = None
        self._v = None
        self._td = None
        self._d = None

    def value(self, t: float, i: int) -> float:
        if t != self._t:
            self._t, self._v = t, self.cs(min(max(t, self.t0), self.t1))
        return float(self._v[i])

    def derivative(self, t: float, i: int) -> float:
        if t != self._td:
            self._td, self._d = t, self.d1(min(max(t, self.t0), self.t1))
        return float(self._d[i])


def spline_bundle(times: np.ndarray, values: Mapping[str, np.ndarray],
                  bc_type: str = "not-a-knot") -> dict[str, Signal]:
    """Signals for many histories on one time grid, evaluated together (cubic splines,
    held at the end values outside the grid).

    Parameters
    ----------
    times : ndarray
    values : mapping
        Name → values on ``times``.
    bc_type : str
        scipy's boundary condition.

    Returns
    -------
    dict
        Name → :class:`~bondgraph.Signal` (with its derivative).

    Examples
    --------
    >>> t = np.linspace(0, 1, 5)
    >>> sig = spline_bundle(t, {"a": t, "b": 2 * t})
    >>> round(sig["b"].value(0.5), 12), round(sig["a"].value(0.5), 12)
    (1.0, 0.5)
    """
    names = list(values)
    bundle = _Bundle(np.asarray(times, float), np.column_stack([np.asarray(values[n], float)
                                                                for n in names]), bc_type)
    out = {}
    for i, n in enumerate(names):
        out[n] = Signal(lambda t, i=i: bundle.value(t, i), lambda t, i=i: bundle.derivative(t, i),
                        name=n)
    return out


def cost(res: Results) -> dict[str, float]:
    """``wall_time`` (s, integration only), ``nfev`` and ``njev`` of a run.

    Parameters
    ----------
    res : Results

    Returns
    -------
    dict

    Examples
    --------
    >>> from bondgraph import BondGraph, Se, One, I, build, simulate
    >>> bg = BondGraph("p")
    >>> _ = bg.add(Se("F", 1.0), One("v"), I("m", 1.0))
    >>> _ = bg.connect("F", "v"); _ = bg.connect("v", "m")
    >>> sorted(cost(simulate(build(bg), (0.0, 1.0), progress=False)))
    ['nfev', 'njev', 'wall_time']
    """
    return {k: res.stats.get(k, float("nan")) for k in ("wall_time", "nfev", "njev")}


# ---------------------------------------------------------------------- comparison
class Deadline(Exception):
    """A trial ran out of its time budget (raised by the event function of a timed trial).

    Examples
    --------
    >>> issubclass(Deadline, Exception)
    True
    """


def _deadline(seconds: float | None) -> list:
    """An event function that aborts a run after ``seconds`` of wall time (None: no limit)."""
    if seconds is None:
        return []
    end = time.perf_counter() + seconds

    def check(t, x):
        if time.perf_counter() > end:
            raise Deadline(f"over {seconds:g} s")
        return 1.0
    return [check]


def force_histories(case: Case, grid: np.ndarray) -> dict[str, np.ndarray]:
    """Cylinder forces of the case's motion (causal inverse dynamics, rtol 1e-11).

    Parameters
    ----------
    case : Case
    grid : ndarray
        Output times.

    Returns
    -------
    dict
        Cylinder → force (N) on ``grid``.

    Examples
    --------
    Driving the boom forward with these forces reproduces the motion (3.4 m at 1 s,
    to the interpolation of the forces between grid points):

    >>> from mechanisms.formulations import build_formulation
    >>> from mechanisms.formulations.cases import boom_case
    >>> case = boom_case()
    >>> grid = np.linspace(0.0, case.t_end, 201)
    >>> forces = spline_bundle(grid, force_histories(case, grid))
    >>> mech = case.mechanism("force")
    >>> f = build_formulation(mech, "causal")
    >>> res = f.simulate_forces(forces, (0.0, 1.0), case.pose(mech), t_eval=[1.0], rtol=1e-10,
    ...                         atol=1e-12, progress=False)
    >>> bool(abs(f.coordinates(res, "boom_cyl")["s"][0] - 3.4) < 1e-4)
    True
    """
    from . import build_formulation

    f = build_formulation(case.mechanism("extension"), "causal")
    inv = f.simulate_extensions(case.lengths, (0.0, case.t_end), guess=case.guess, rtol=1e-11,
                                atol=1e-13, t_eval=grid, progress=False)
    return {c: f.cylinder_force(inv, c) for c in case.lengths}


@dataclass
class _Scenario:
    """How to run one case: forward with forces, or inverse with the prescribed lengths."""

    case: Case
    mode: str
    t_end: float
    grid: np.ndarray
    forces: dict | None = None
    pose: object = None

    def run(self, f: Formulation, method: str, rtol: float, deadline: float | None = None,
            atol_scale: float = 1e-2) -> Results:
        kw = dict(method=method, rtol=rtol, atol=rtol * atol_scale, t_eval=self.grid,
                  progress=False, events=_deadline(deadline) or None)
        if self.mode == "forces":
            return f.simulate_forces(self.forces, (0.0, self.t_end), self.pose, **kw)
        return f.simulate_extensions(self.case.lengths, (0.0, self.t_end), guess=self.case.guess,
                                     **kw)


def cheapest_run(f: Formulation, scenario: _Scenario, ref_tip: np.ndarray, tol: float, *,
                 methods: Sequence[str] = METHODS, rtols: Sequence[float] = RTOLS,
                 deadline: float = 120.0, log: Callable[[str], None] = lambda s: None):
    """The fastest ``(method, rtol, wall, tip error)`` whose tip stays within ``tol``; or None.

    For each method the ladder is walked from loose to tight and stops at the
    first passing tolerance, when a trial is already slower than the best
    found, when the error stops falling (a floor: the stiff joints' deflection),
    or at the deadline.

    Parameters
    ----------
    f : Formulation
    scenario : object
        How to run the case (made by :func:`compare`).
    ref_tip : ndarray
        The reference tip trajectory on the scenario's grid.
    tol : float
        Largest tip error (m).
    methods, rtols : sequence
        Integrators and the tolerance ladder.
    deadline : float
        Wall-clock budget of one trial (s).
    log : callable
        Receives a line per trial.

    Returns
    -------
    tuple or None

    Examples
    --------
    See :func:`compare`.
    """
    best = None
    tip = scenario.case.tip
    for method in methods:
        last, stall = None, 0
        for rtol in rtols:
            try:
                res = scenario.run(f, method, rtol, deadline)
                err = tip_error(res.t, f.point(res, tip), scenario.grid, ref_tip)
            except Exception as exc:  # noqa: BLE001 - a failed trial: tighter, or give up
                log(f"    {method:6s} rtol={rtol:.0e}: failed ({type(exc).__name__}: "
                    f"{str(exc).splitlines()[0][:80]})")
                if isinstance(exc, Deadline):
                    break
                continue
            wall = res.stats["wall_time"]
            log(f"    {method:6s} rtol={rtol:.0e}: tip error {err:.2e} m, {wall:.4f} s, "
                f"{res.stats['nfev']} RHS, {res.stats['njev']} Jac")
            if err <= tol:
                if best is None or wall < best[2]:
                    best = (method, rtol, wall, err)
                break
            if best is not None and wall > best[2]:
                break
            stall = stall + 1 if last is not None and err > 0.8 * last else 0
            if stall >= 2:
                break  # the error no longer falls with the tolerance: a floor
            last = err
    return best


@dataclass
class Comparison:
    """One formulation's accuracy-matched cost on one case.

    Attributes
    ----------
    case, mode, formulation : str
    states : int
    method : str
        The cheapest integrator found (``"-"``: none reached the tolerance).
    rtol, stiffness, tip_error : float
    wall : float
        Median wall time of the chosen configuration (s).
    walls : list
    nfev, njev : int
    ratio, eig_max : float
        Stiffness ratio and largest eigenvalue magnitude at the start.
    build : float
        Build time (s).
    note : str

    Examples
    --------
    See :func:`compare`.
    """

    case: str
    mode: str
    formulation: str
    states: int
    method: str = "-"
    rtol: float = float("nan")
    stiffness: float = float("nan")
    tip_error: float = float("nan")
    wall: float = float("nan")
    walls: list = field(default_factory=list)
    nfev: int = 0
    njev: int = 0
    ratio: float = float("nan")
    eig_max: float = float("nan")
    build: float = float("nan")
    note: str = ""


def compare(case: Case, tol: float = 1e-4, *, mode: str = "forces", t_end: float | None = None,
            repeats: int = 5, deadline: float = 120.0, methods: Sequence[str] = METHODS,
            stiffnesses: Sequence[float] = STIFFNESSES, n_out: int = 201,
            log: Callable[[str], None] = lambda s: None) -> list[Comparison]:
    """Accuracy-matched cost of the three formulations on one case (see the module text).

    ``mode="forces"``: forward dynamics driven by the forces of the case's
    motion; ``"extensions"``: the prescribed lengths themselves (inverse
    dynamics). ``t_end`` shortens the run (a forward run of an unstable machine
    drifts off its path). The reference tip trajectory is the causal run at
    rtol 1e-12 (DOP853); the Cartesian one at the same tolerance is logged
    beside it. Walls are medians of ``repeats`` runs of the chosen configuration
    (integration only; the compiled model is cached).

    Parameters
    ----------
    case : Case
    tol : float
        Largest tip error (m).
    mode : {"forces", "extensions"}
    t_end : float, optional
    repeats : int
    deadline : float
        Wall-clock budget of one trial (s).
    methods, stiffnesses : sequence
        Integrators tried; joint stiffnesses of the stiff form (softest first).
    n_out : int
        Output points.
    log : callable

    Returns
    -------
    list of Comparison
        Causal, Cartesian, stiff.

    Raises
    ------
    ParameterError
        Another mode.

    Examples
    --------
    >>> from mechanisms.formulations.cases import boom_case
    >>> rows = compare(boom_case(), tol=1e-3, t_end=1.0, methods=("LSODA",), repeats=1,
    ...                stiffnesses=(1e9,))
    >>> [(r.formulation, r.states, bool(r.tip_error <= 1e-3)) for r in rows]
    [('causal', 4, True), ('cartesian', 6, True), ('stiff', 8, True)]
    """
    from . import build_formulation

    if mode not in ("forces", "extensions"):
        raise ParameterError(f"mode {mode!r}: expected 'forces' or 'extensions'")
    t_end = case.t_end if t_end is None else float(t_end)
    grid = np.linspace(0.0, t_end, n_out)
    log(f"== {case.name} ({mode}, {t_end:g} s)")
    sc = _Scenario(case, mode, t_end, grid)
    drive = "force" if mode == "forces" else "extension"
    mech = case.mechanism(drive)
    if mode == "forces":
        full = np.linspace(0.0, case.t_end, max(n_out, 201))
        sc.forces = spline_bundle(full, force_histories(case, full))
        sc.pose = case.pose(mech)
    ref = build_formulation(mech, "causal")
    ref_tip = ref.point(sc.run(ref, "DOP853", 1e-12, atol_scale=1e-2), case.tip)
    rows = []
    for kind in ("causal", "cartesian", "stiff"):
        chosen, f = None, None
        for k in (stiffnesses if kind == "stiff" else (None,)):
            t0 = time.perf_counter()
            f = build_formulation(mech, kind, **({"stiffness": k} if k else {}))
            build = time.perf_counter() - t0
            log(f"  {kind}" + (f" k={k:.0e}" if k else "") + f" (build {build:.2f} s)")
            if kind == "cartesian":
                try:
                    cres = sc.run(f, "DOP853", 1e-12, deadline)
                    log("    reference check: Cartesian vs causal tip "
                        f"{tip_error(grid, f.point(cres, case.tip), grid, ref_tip):.2e} m")
                except Deadline:
                    log(f"    reference check: Cartesian at rtol 1e-12 took over {deadline:g} s")
            # explicit methods on stiff joints are held to a step of order √(m/k): they are
            # tried only if the caller asks for nothing else
            usable = [m for m in methods if kind != "stiff" or m not in EXPLICIT] or list(methods)
            best = cheapest_run(f, sc, ref_tip, tol, methods=usable, deadline=deadline, log=log)
            if best is not None:
                chosen = (f, k, build, best)
                break
        row = Comparison(case.name, mode, kind, len(f.model.state_names))
        if chosen is None:
            row.note = f"no run reached {tol:g} m (deadline {deadline:g} s per run)"
            rows.append(row)
            continue
        f, k, build, (method, rtol, _, err) = chosen
        walls = []
        for _ in range(repeats):
            res = sc.run(f, method, rtol)
            walls.append(res.stats["wall_time"])
        ratio, eig_max, _ = stiffness_ratio(f.model, res)
        row.method, row.rtol, row.tip_error, row.build = method, rtol, err, build
        row.stiffness = float(k) if k else float("nan")
        row.wall, row.walls = statistics.median(walls), walls
        row.nfev, row.njev = int(res.stats["nfev"]), int(res.stats["njev"])
        row.ratio, row.eig_max = ratio, eig_max
        rows.append(row)
    return rows
