"""The master: initialise, step, sample, check, cross-assign, repeat to the end time.

One communication step from ``t[n]`` to ``t[n+1] = t[n] + H``:

1. the glue turns the last samples of every output into a polynomial around ``t[n]``
   (extrapolation; at start-up with derivatives or reduced order);
2. each subsystem, in the time manager's order, receives an :class:`InputPackage`
   (its inputs' polynomial, re-expanded at every sub-step for multi-rate subsystems)
   and steps; in Gauss-Seidel order, later subsystems see the earlier ones' outputs
   interpolated over the step;
3. each subsystem's outputs come back as an :class:`OutputPackage` stamped with the
   time the subsystem itself reports (the time its step returned, else its own clock,
   :meth:`Subsystem.get_time`); the stamps are checked against ``t[n+1]`` before
   cross-assigning, so a stuck subsystem is caught;
4. direct-feedthrough subsystems get their inputs at ``t[n+1]`` and are sampled again,
   in dependency order, so algebraic outputs are consistent at the communication point;
5. the error catcher checks for non-finite values; the divergence watch
   (:mod:`bondgraph.cosim.divergence`) checks the energy the coupling creates on each
   power bond and the growth of every exchanged signal against their bounds.

A subsystem that takes fewer input derivatives than the glue order (an FMU without
``canInterpolateInputs``) is warned about once (:class:`CosimulationWarning`, a
:class:`~bondgraph.errors.BondGraphWarning`) and the results record the input it really
applied (held or truncated), so the energy residual and the divergence watch see what
the subsystem saw. Outputs in a unit other than the input's (``mm`` into ``m``) are
converted by the factor pint gives.

Every set-up problem (subsystems, relations, units, time manager, glue, policy) is
listed at once in one :class:`~bondgraph.errors.CosimulationError`.

An abort raises :class:`~bondgraph.errors.CosimulationError` whose ``results`` hold
the results up to the last good communication point (``results.aborted`` is True) and
whose ``time`` is that point; error-level events raise the same error at the end with
the full results.

Examples
--------
Two halves of a unit mass on a unit spring, exchanged through a force and a position:

>>> import numpy as np
>>> from bondgraph.cosim import StateSpaceSubsystem, Relations, TimeManager, Glue
>>> mass = StateSpaceSubsystem("mass", A=[[0, 1], [0, 0]], B=[[0], [1]], C=[[1, 0]],
...                            D=[[0]], x0=[1, 0], inputs=[("F", "N")],
...                            outputs=[("x", "m")])
>>> spring = StateSpaceSubsystem("spring", A=np.zeros((0, 0)), B=np.zeros((0, 1)),
...                              C=np.zeros((1, 0)), D=[[-1]], x0=np.zeros(0),
...                              inputs=[("x", "m")], outputs=[("F", "N")])
>>> sim = Cosimulation([mass, spring], Relations(["mass.x -> spring.x",
...                     "spring.F -> mass.F"]), TimeManager(step=0.01, end=1.0),
...                    Glue("quadratic"))
>>> res = sim.run()
>>> bool(abs(res["mass.x"][-1] - np.cos(1.0)) < 1e-5)
True
"""

from __future__ import annotations

import math
import time as _time
import warnings
from graphlib import CycleError, TopologicalSorter
from typing import Callable, Sequence

import numpy as np

from ..errors import BondGraphError, CosimulationError
from .catcher import CosimulationWarning, ErrorCatcher, ErrorPolicy
from .divergence import DivergenceMonitor, DivergenceWatch
from .glue import Glue, taylor_matrix
from .packages import OutputPackage, check_times
from .relations import Relations
from .results import CosimResults
from .stepping import checked_outputs, reported_time, shift_matrix, step_subsystem
from .subsystem import Subsystem, terminate_all
from .timing import TimeManager

__all__ = ["Cosimulation", "cosimulate", "setup_problems"]

Callback = Callable[[CosimResults], None]


class _Abort(Exception):
    """Internal: unwinds the step loop after the catcher asked to stop."""


def _problems_of(make) -> tuple[object, list[str]]:
    """Call ``make()``; return (result, []) or (None, its problems) for our errors."""
    try:
        return make(), []
    except BondGraphError as exc:
        head = f"{exc.subject}: " if exc.subject else ""
        return None, [head + p for p in exc.problems]


def setup_problems(subsystems, relations, timing, glue=None, policy=None,
                   monitor=None) -> list[str]:
    """Every problem of a co-simulation set-up, without raising.

    Checks the types of the parts, the relations against the subsystems (names, units,
    every input fed once, power bonds) and the schedule against the subsystems
    (substeps, sequence, internal steps).

    Parameters
    ----------
    subsystems, relations, timing, glue, policy, monitor
        As for :class:`Cosimulation`.

    Returns
    -------
    list of str
        Empty for a sound set-up.

    Examples
    --------
    >>> from bondgraph.cosim import Relations, TimeManager, examples
    >>> setup_problems(list(examples.b1_subsystems()),
    ...                Relations(["mass.x -> spring.x", "spring.F -> mass.F"]),
    ...                TimeManager(step=1e-3, end=0.01))
    ['relations: input spring.v [m/s] is fed by no relation']
    """
    problems = []
    if isinstance(subsystems, (str, bytes)) or not isinstance(subsystems, Sequence):
        problems.append(f"subsystems: found {type(subsystems).__name__}, expected a list of "
                        "Subsystem")
        subs = []
    else:
        subs = list(subsystems)
        problems += [f"subsystems[{i}]: found {type(s).__name__}, expected a Subsystem"
                     for i, s in enumerate(subs) if not isinstance(s, Subsystem)]
        if not subs:
            problems.append("subsystems: found none, expected at least one Subsystem")
    good = [s for s in subs if isinstance(s, Subsystem)]
    for label, value, cls in (("relations", relations, Relations),
                              ("timing", timing, TimeManager), ("glue", glue, Glue),
                              ("policy", policy, ErrorPolicy),
                              ("monitor", monitor, DivergenceMonitor)):
        if value is not None and not isinstance(value, cls):
            problems.append(f"{label}: found {type(value).__name__}, expected {cls.__name__}")
    if isinstance(relations, Relations):
        rel_problems = relations.problems(good)
        problems += [f"relations: {p}" for p in rel_problems]
        if not rel_problems and len(good) == len(subs):
            loop = _feedthrough_order(good, relations)[1]
            if loop:
                problems.append(f"relations: {loop}")
    if isinstance(timing, TimeManager):
        problems += [f"time manager: {p}" for p in timing.problems(good)]
    return problems


class Cosimulation:
    """A configured co-simulation: subsystems, relations, time manager, glue, catcher.

    Parameters
    ----------
    subsystems : sequence of Subsystem
        The coupled subsystems (names unique).
    relations : Relations
        Which output feeds which input; power bonds to monitor.
    timing : TimeManager
        Communication step, end time, scheme, substeps.
    glue : Glue, optional
        Extrapolation / interpolation of the coupling signals (default quadratic,
        derivative start).
    policy : ErrorPolicy, optional
        Level of each kind of event (default: abort on everything but tolerance;
        ``divergence="off"`` switches the divergence watch off).
    monitor : DivergenceMonitor, optional
        Bounds of the divergence watch (:mod:`bondgraph.cosim.divergence`).

    Raises
    ------
    CosimulationError
        Listing every set-up problem at once: parts of the wrong type, relations that do
        not fit the subsystems (names, units, inputs fed twice or never, bonds), a
        schedule that does not fit them, or direct-feedthrough subsystems in an
        algebraic loop.

    Examples
    --------
    >>> from bondgraph.cosim import Relations, TimeManager, examples
    >>> sim = Cosimulation(list(examples.b1_subsystems()), examples.B1_RELATIONS,
    ...                    TimeManager(step=1e-3, end=0.01))
    >>> print(sim.table())
    mass -> spring
      mass.x [m]    -> spring.x [m]
      mass.v [m/s]  -> spring.v [m/s]
    spring -> mass
      spring.F [N]  -> mass.F [N]
    power bonds
      spring.F [N] * mass.v [m/s]
    >>> float(sim.run().time[-1])
    0.01
    >>> Cosimulation(list(examples.b1_subsystems()),
    ...              Relations(["mass.x -> spring.x", "mass.v -> spring.q", "spring.F -> mass.F"]),
    ...              TimeManager(step=1e-3, end=0.01))
    Traceback (most recent call last):
    ...
    bondgraph.errors.CosimulationError: co-simulation set-up: 2 problems
      - relations: relation mass.v -> spring.q: subsystem 'spring' has no input 'q' (inputs: x, v)
      - relations: input spring.v [m/s] is fed by no relation
    """

    def __init__(self, subsystems: Sequence[Subsystem], relations: Relations,
                 timing: TimeManager, glue: Glue | None = None,
                 policy: ErrorPolicy | None = None, monitor: DivergenceMonitor | None = None):
        problems = setup_problems(subsystems, relations, timing, glue, policy, monitor)
        if problems:
            raise CosimulationError(problems, subject="co-simulation set-up")
        self.subsystems: list[Subsystem] = timing.order(subsystems)
        self.relations = relations
        self.timing = timing
        self.glue = glue if glue is not None else Glue()
        self.policy = policy if policy is not None else ErrorPolicy()
        self.monitor = monitor if monitor is not None else DivergenceMonitor()
        self._culprit: Subsystem | None = None
        self._layout()

    # ------------------------------------------------------------------ layout
    def _layout(self) -> None:
        subs = self.subsystems
        out_index: dict[str, int] = {}
        self.out_slices: list[slice] = []
        self.in_slices: list[slice] = []
        o = i = 0
        for s in subs:
            self.out_slices.append(slice(o, o + len(s.outputs)))
            self.in_slices.append(slice(i, i + len(s.inputs)))
            for p in s.outputs:
                out_index[f"{s.name}.{p.name}"] = o
                o += 1
            i += len(s.inputs)
        self.output_names = tuple(f"{s.name}.{p.name}" for s in subs for p in s.outputs)
        self.output_units = tuple(p.unit for s in subs for p in s.outputs)
        self.input_names = tuple(f"{s.name}.{p.name}" for s in subs for p in s.inputs)
        self.input_units = tuple(p.unit for s in subs for p in s.inputs)
        feed = {r.target: r.source for r in self.relations}
        self.src = np.array([out_index[feed[n]] for n in self.input_names], dtype=np.intp)
        self.src_slices = [self.src[sl] for sl in self.in_slices]
        factors = self.relations.factors(subs)
        self.scale = np.array([factors[n] for n in self.input_names], dtype=float)
        self.scaled = bool(np.any(self.scale != 1.0))
        self.scale_slices = [self.scale[sl] for sl in self.in_slices]
        in_index = {n: k for k, n in enumerate(self.input_names)}
        bonds = self.relations.bonds
        e_in, f_in = [], []
        for b in bonds:
            es, fs = b.effort.split(".")[0], b.flow.split(".")[0]
            e_in.append(next(in_index[r.target] for r in self.relations
                             if r.source == b.effort and r.target_subsystem == fs))
            f_in.append(next(in_index[r.target] for r in self.relations
                             if r.source == b.flow and r.target_subsystem == es))
        self.bond_names = tuple(b.name for b in bonds)
        self.e_out = np.array([out_index[b.effort] for b in bonds], dtype=np.intp)
        self.f_out = np.array([out_index[b.flow] for b in bonds], dtype=np.intp)
        self.e_in = np.array(e_in, dtype=np.intp)
        self.f_in = np.array(f_in, dtype=np.intp)
        self.ft_order, _ = _feedthrough_order(subs, self.relations)
        self.non_ft = [k for k in range(len(subs)) if not subs[k].direct_feedthrough]

    def table(self) -> str:
        """The relations as a table, with units (and unit factors where they differ).

        Returns
        -------
        str
        """
        return self.relations.table(self.subsystems)

    # ------------------------------------------------------------------ helpers
    def _inputs(self, values: np.ndarray, k: int | None = None) -> np.ndarray:
        """Source values (columns ``src``) in the inputs' units (all, or subsystem k's)."""
        if not self.scaled:
            return values
        return values * (self.scale if k is None else self.scale_slices[k])

    def _results(self, T, Y, U, R, n_last: int, catcher: ErrorCatcher, status: str,
                 reason: str, info: dict, copy: bool = True) -> CosimResults:
        k = n_last + 1
        c = np.copy if copy else (lambda a: a)
        return CosimResults(time=c(T[:k]), outputs=c(Y[:k]),
                            output_names=self.output_names, output_units=self.output_units,
                            inputs=c(U[:k]), input_names=self.input_names,
                            input_units=self.input_units, energy_residual=c(R[:k]),
                            bond_names=self.bond_names, events=tuple(catcher.events),
                            status=status, reason=reason, info=info)

    def _derivatives(self, t: float, Y: np.ndarray, D: np.ndarray, need: int) -> None:
        """Fill D (need rows, n_out) with output derivatives at t (NaN where unknown).

        Inputs are set to their values at t with the input derivatives known so far;
        two passes let derivatives flow through one level of feedthrough and back.
        """
        D[:] = np.nan
        order_all = self.non_ft + self.ft_order
        for _ in range(2):
            for k in order_all:
                s = self._culprit = self.subsystems[k]
                src = self.src_slices[k]
                din = D[:need, src]
                known = 0
                while known < din.shape[0] and np.all(np.isfinite(din[known])):
                    known += 1
                s.set_inputs(t, self._inputs(Y[src], k),
                             self._inputs(din[:min(known, s.input_derivative_order)], k))
                order = min(need, s.output_derivative_order)
                if s.direct_feedthrough:
                    order = min(order, known)
                if order >= 1:
                    D[:order, self.out_slices[k]] = s.get_output_derivatives(order)
        self._culprit = None

    def residual_power(self, Y: np.ndarray, U: np.ndarray) -> np.ndarray:
        """Power the coupling creates on each bond, ``e_used f_sent - e_sent f_used``.

        What the effort's receiver used times the flow it sent, minus what the flow's
        receiver used times the effort it was sent (values in the outputs' units). Rows
        of ``Y`` and ``U`` are communication points.

        Parameters
        ----------
        Y : ndarray, shape (k, n_outputs)
        U : ndarray, shape (k, n_inputs)

        Returns
        -------
        ndarray, shape (k, n_bonds)
        """
        e_used = U[:, self.e_in]
        f_used = U[:, self.f_in]
        if self.scaled:
            e_used = e_used / self.scale[self.e_in]
            f_used = f_used / self.scale[self.f_in]
        return e_used * Y[:, self.f_out] - Y[:, self.e_out] * f_used

    def _energy(self, T, Y, U, U0, R, X, a: int, b: int) -> None:
        """Created (signed) and carried energy on every bond for points a..b-1 (a >= 1).

        Over the step ending at point i the receivers applied polynomials that started at
        ``U0[i]`` (at ``T[i-1]``) and ended at ``U[i]``; the created power is integrated
        by the trapezoid rule over each step with those end values, so a held input
        counts as held over its whole step.
        """
        r0 = self.residual_power(Y[a - 1:b - 1], U0[a:b])
        r1 = self.residual_power(Y[a:b], U[a:b])
        x = np.abs(Y[a - 1:b, self.e_out] * Y[a - 1:b, self.f_out])
        dt = np.diff(T[a - 1:b])[:, None]
        R[a:b] = R[a - 1] + np.cumsum(0.5 * dt * (r0 + r1), axis=0)
        X[a:b] = X[a - 1] + np.cumsum(0.5 * dt * (x[1:] + x[:-1]), axis=0)

    def _nonfinite(self, y: np.ndarray) -> str:
        bad = [f"{self.output_names[j]}={y[j]}" for j in np.flatnonzero(~np.isfinite(y))]
        return "found " + ", ".join(bad) + ", expected finite values"

    def watch(self, step: float) -> DivergenceWatch | None:
        """The divergence watch for a run at communication step ``step`` (None if off).

        Returns
        -------
        DivergenceWatch or None

        Parameters
        ----------
        step : float
            Communication step (s).
        """
        if not (self.monitor.enabled and self.policy.checks("divergence")):
            return None
        return DivergenceWatch(self.monitor, self.output_names, self.src, self.bond_names,
                               self.e_out, self.f_out, step)

    def held_inputs(self) -> dict[str, str]:
        """Subsystems that take fewer input derivatives than the glue order, warned once.

        Returns ``{name: what happens to its inputs}`` (also put in ``results.info``).

        Returns
        -------
        dict

        Warns
        -----
        CosimulationWarning
            For each such subsystem.
        """
        p = self.glue.order
        held = {}
        for s in self.subsystems:
            d = min(s.input_derivative_order, p)
            if d >= p or not s.inputs:
                continue
            how = ("held constant (zero-order hold)" if d == 0 else
                   "extrapolated linearly (the curvature is dropped)")
            held[s.name] = how
            warnings.warn(
                f"subsystem {s.name!r} takes {s.input_derivative_order} input derivative "
                f"order(s), but the glue is {self.glue.name} (order {p}): over each of its "
                f"steps its inputs {', '.join(s.input_names)} are {how} instead of following "
                "the glue's polynomial. The results record the inputs it applied, so the "
                "energy residual and the divergence watch see it; give it input derivatives "
                "(an FMU with canInterpolateInputs, or der() inputs), sub-steps, or a lower "
                "glue order", CosimulationWarning, stacklevel=3)
        return held

    def check_start(self, catcher: ErrorCatcher, t0: float, step: float) -> bool:
        """Compare every subsystem's own clock with the start time; True to abort.

        Parameters
        ----------
        catcher : ErrorCatcher
            Receives a ``time_mismatch`` event per subsystem that disagrees.
        t0, step : float

        Returns
        -------
        bool
        """
        stop = False
        for s in self.subsystems:
            self._culprit = s
            clock = reported_time(s)
            if clock is not None:
                for who, msg in check_times([OutputPackage(s.name, clock, None, "clock")],
                                            t0, step):
                    stop |= catcher.report("time_mismatch", t0, f"subsystem {who!r}",
                                           msg.replace("after the step", "after setup"))
        self._culprit = None
        return stop

    # ------------------------------------------------------------------ run
    def run(self, *, progress: bool = True, callback: Callback | None = None,
            callback_every: int | None = None, step_control=None) -> CosimResults:
        """Run from the start to the end time.

        Parameters
        ----------
        progress : bool, optional
            A progress bar (``tqdm.auto``: a widget in a notebook) with the steps done and
            the time left, shown once the run has taken a second; ``False`` silences it.
        callback : callable, optional
            Called as ``callback(results_so_far)`` every ``callback_every`` steps and at
            the end (e.g. :class:`bondgraph.cosim.LiveCurves`).
        callback_every : int, optional
            Default: about 50 calls per run.
        step_control : StepDoubling, optional
            Vary the communication step by step doubling with rollback (see
            :mod:`bondgraph.cosim.stepcontrol`); the time manager's step is the first
            step tried.

        Returns
        -------
        CosimResults

        Raises
        ------
        CosimulationError
            On an abort (``.results`` up to the last good point, ``.time`` that point)
            or, at the end, if error-level events occurred (``.results`` complete).

        Warns
        -----
        CosimulationWarning
            Once per run for each subsystem that takes fewer input derivatives than the
            glue order, and for events at level ``"warning"``.
        """
        if step_control is not None:
            from .stepcontrol import run_adaptive

            prepare = getattr(callback, "prepare", None)
            if callable(prepare):
                prepare(self)
            return run_adaptive(self, step_control, progress=progress, callback=callback)
        tm, glue = self.timing, self.glue
        subs = self.subsystems
        H, N, t0 = tm.step, tm.n_steps, tm.start
        p = glue.order
        gs = tm.scheme == "gauss-seidel"
        interp = gs and glue.interpolate
        ny, nu, nb = len(self.output_names), len(self.input_names), len(self.bond_names)
        T = tm.times()
        Y = np.zeros((N + 1, ny))
        U = np.zeros((N + 1, nu))        # inputs applied when the outputs Y were taken
        U0 = np.zeros((N + 1, nu))       # inputs applied at the start of the step to row n
        R = np.zeros((N + 1, nb))         # cumulative energy created by the coupling
        X = np.zeros((N + 1, nb))         # cumulative energy carried through the bond
        done = 1                          # energy bookkeeping is done below this index
        catcher = ErrorCatcher(self.policy)
        watch = self.watch(H)
        window = self.monitor.window
        gwindow = self.monitor.growth_window
        names = [s.name for s in subs]
        ks = [tm.substeps_of(n) for n in names]
        dords = [min(s.input_derivative_order, p) for s in subs]
        out_sl, in_sl, src_sl = self.out_slices, self.in_slices, self.src_slices
        src = self.src
        ft_order, non_ft = self.ft_order, self.non_ft
        use_der = glue.start == "derivatives" and p > 0
        D = np.full((max(p, 1), ny), np.nan)
        empty = [np.zeros((0, len(s.inputs))) for s in subs]
        W_ex = taylor_matrix(T[:p + 1] - T[p], 0.0, p)             # steady extrapolation
        W_in = taylor_matrix(T[:p + 1] - T[p], -H, p) if p else W_ex  # GS interpolation
        shift = {(k, j): shift_matrix(p, j * H / k) for k in set(ks) for j in range(1, k)}
        every = callback_every or max(1, N // 50)
        prepare = getattr(callback, "prepare", None)
        if callable(prepare):
            prepare(self)
        held = self.held_inputs()
        bar = None
        if progress:
            from tqdm.auto import tqdm
            bar = tqdm(total=N, unit="step", desc="co-simulation", leave=False, delay=1.0)
        bar_every = max(1, N // 200)
        info = {"scheme": tm.scheme, "glue": glue.name, "step": H, "substeps": dict(tm.substeps),
                "held_inputs": held}
        n = 0
        current = None
        cause = None
        self._culprit = None
        wall0 = _time.perf_counter()
        try:
            # ---------------- initialisation at t0
            for k, s in enumerate(subs):
                current = s
                s.setup(t0, tm.end, H / ks[k])
            current = None
            if self.check_start(catcher, t0, H):
                raise _Abort
            for k in non_ft:
                current = subs[k]
                Y[0, out_sl[k]] = checked_outputs(subs[k])
            for k in ft_order:
                current = subs[k]
                subs[k].set_inputs(t0, self._inputs(Y[0, src_sl[k]], k), empty[k])
                Y[0, out_sl[k]] = checked_outputs(subs[k])
            current = None
            U[0] = self._inputs(Y[0, src])
            if not math.isfinite(Y[0].sum()):
                catcher.report("non_finite", t0, "initial outputs", self._nonfinite(Y[0]))
                if catcher.abort_event:
                    raise _Abort
            C = np.zeros((p + 1, ny))
            # ---------------- communication steps
            for n in range(N):
                t = T[n]
                t1 = T[n + 1]
                if n >= p:
                    np.dot(W_ex, Y[n - p:n + 1], out=C)
                else:
                    self._startup(C, T, Y, D, n, p, use_der)
                Cu = self._inputs(C[:, src])
                sent = []
                for k, s in enumerate(subs):
                    current = s
                    U0[n + 1, in_sl[k]] = Cu[0, in_sl[k]]
                    out, U[n + 1, in_sl[k]] = step_subsystem(s, Cu[:, in_sl[k]], t, H, ks[k],
                                                             dords[k], shift, t1)
                    sent.append(out)
                    if interp and k + 1 < len(subs):
                        # later subsystems read this one interpolated over the step
                        sl = out_sl[k]
                        Y[n + 1, sl] = out.values
                        if n + 1 >= p:
                            C[:, sl] = W_in @ Y[n + 1 - p:n + 2, sl]
                        else:
                            C[:, sl] = taylor_matrix(T[:n + 2], t, p) @ Y[:n + 2, sl]
                        Cu = self._inputs(C[:, src])
                current = None
                mismatch = check_times(sent, t1, H)
                if mismatch:
                    stop = False
                    for who, msg in mismatch:
                        stop |= catcher.report("time_mismatch", t1, f"subsystem {who!r}", msg)
                    if stop:
                        raise _Abort
                for k, out in enumerate(sent):
                    Y[n + 1, out_sl[k]] = out.values
                for k in ft_order:
                    s = current = subs[k]
                    U[n + 1, in_sl[k]] = self._inputs(Y[n + 1, src_sl[k]], k)
                    s.set_inputs(t1, U[n + 1, in_sl[k]], empty[k])
                    Y[n + 1, out_sl[k]] = checked_outputs(s)
                current = None
                if not math.isfinite(Y[n + 1].sum()):
                    if catcher.report("non_finite", t1, "exchanged outputs",
                                      self._nonfinite(Y[n + 1])):
                        raise _Abort
                found = []
                if nb and (n + 1) % window == 0:
                    self._energy(T, Y, U, U0, R, X, done, n + 2)
                    done = n + 2
                    if watch is not None:
                        found += watch.energy(n + 1, T, Y, R, X)
                if watch is not None and (n + 1) % gwindow == 0:
                    found += watch.growth(n + 1, T, Y)
                if found:
                    stop = False
                    for subject, msg in found:
                        stop |= catcher.report("divergence", t1, subject, msg)
                    if stop:
                        n += 1  # the step itself succeeded: keep it
                        raise _Abort
                if callback is not None and (n + 1) % every == 0:
                    callback(self._results(T, Y, U, R, n + 1, catcher, "running", "", info,
                                           copy=False))
                if bar is not None and (n + 1) % bar_every == 0:
                    bar.update(bar_every)
            n = N
        except _Abort:
            pass
        except Exception as exc:  # a hook raised: classify by the subsystem's kind
            current = current if current is not None else self._culprit
            if current is None:
                raise
            catcher.hook_failed(current, T[n + 1] if n < N else T[n], exc)
            cause = exc
        finally:
            terminate_all(subs)
            if bar is not None:
                bar.close()
        info["wall_time"] = _time.perf_counter() - wall0
        if nb and done < N + 1:
            self._energy(T, Y, U, U0, R, X, done, N + 1)
        ev = catcher.abort_event
        if ev is not None:
            last = min(n, N)
            res = self._results(T, Y, U, R, last, catcher, "aborted", str(ev), info)
            if callback is not None:
                callback(res)
            raise CosimulationError(
                [f"{ev.kind} at {ev}", f"results kept up to the last good point "
                 f"t={T[last]:.9g} s ({last} of {N} steps)"],
                subject="co-simulation aborted", time=float(T[last]), results=res) from cause
        errors = catcher.errors
        status = "error" if errors else "completed"
        reason = "; ".join(str(e) for e in errors)
        res = self._results(T, Y, U, R, N, catcher, status, reason, info)
        if callback is not None:
            callback(res)
        if errors:
            raise CosimulationError([f"{e.kind} at {e}" for e in errors],
                                    subject="co-simulation finished with errors",
                                    time=float(T[N]), results=res)
        return res

    def _startup(self, C, T, Y, D, n: int, p: int, use_der: bool) -> None:
        """Coefficients at t[n] with fewer than p + 1 samples (first steps)."""
        k = n + 1
        need = p + 1 - k
        C[:] = 0.0
        if use_der:
            self._derivatives(T[n], Y[n], D, need)
            avail = np.zeros(Y.shape[1], dtype=int)
            for d in range(need):
                avail += np.all(np.isfinite(D[:d + 1]), axis=0)
        else:
            avail = np.zeros(Y.shape[1], dtype=int)
        samples = Y[:k]
        for j in np.unique(avail):
            cols = np.flatnonzero(avail == j)
            W = taylor_matrix(T[:k], T[n], p, int(j))
            rows = np.vstack([samples[:, cols], D[:j, cols]]) if j else samples[:, cols]
            C[:, cols] = W @ rows


def _feedthrough_order(subs: Sequence[Subsystem], relations: Relations
                       ) -> tuple[list[int], str | None]:
    """Order in which direct-feedthrough subsystems are re-sampled, or the loop they form."""
    ft = {k for k, s in enumerate(subs) if s.direct_feedthrough}
    owner = {f"{s.name}.{p.name}": k for k, s in enumerate(subs) for p in s.outputs}
    feeds: dict[int, set[int]] = {k: set() for k in ft}
    by_name = {s.name: k for k, s in enumerate(subs)}
    for r in relations:
        k = by_name.get(r.target_subsystem)
        j = owner.get(r.source)
        if k in ft and j in ft:
            feeds[k].add(j)
    try:
        return list(TopologicalSorter(feeds).static_order()), None
    except CycleError as exc:
        cycle = " -> ".join(subs[k].name for k in exc.args[1])
        return [], (f"algebraic loop between direct-feedthrough subsystems: {cycle}; expected "
                    "at least one subsystem in the loop without direct feedthrough")


def cosimulate(subsystems: Sequence[Subsystem], relations: Relations | Sequence[str],
               step: float, end: float, *, glue: Glue | str | int = "quadratic",
               scheme: str = "jacobi", substeps: dict | None = None,
               policy: ErrorPolicy | None = None, progress: bool = True,
               callback: Callback | None = None, bonds: Sequence = ()) -> CosimResults:
    """One-call co-simulation (see :class:`Cosimulation`).

    Parameters
    ----------
    subsystems : sequence
        The coupled subsystems.
    relations : Relations or Sequence[str]
    step : float
        Communication step (s).
    end : float
    glue : Glue or str or int, optional
    scheme : str, optional
    substeps : dict, optional
    policy : ErrorPolicy, optional
    progress : bool, optional
    callback : Callback, optional
    bonds : Sequence, optional

    Returns
    -------
    CosimResults

    Raises
    ------
    CosimulationError
        Listing every problem of the set-up at once (relations, units, step, end time,
        glue, scheme, substeps, subsystems), or when the run aborts or ends with errors.

    Examples
    --------
    >>> from bondgraph.cosim.python import PythonSubsystem
    >>> class Clock:
    ...     def __init__(self): self.t = 0.0; self.u = 0.0
    ...     def do_step(self, t, h): self.t = t + h
    >>> a = PythonSubsystem(Clock(), "a", [("u", "s")], [("t", "s")], direct_feedthrough=False)
    >>> b = PythonSubsystem(Clock(), "b", [("u", "s")], [("t", "s")], direct_feedthrough=False)
    >>> res = cosimulate([a, b], ["a.t -> b.u", "b.t -> a.u"], step=0.1, end=1.0, glue="zoh")
    >>> float(res["b.u"][-1])           # b held a's clock from t = 0.9 s
    0.9
    """
    problems: list[str] = []
    if not isinstance(relations, Relations):
        relations, more = _problems_of(lambda: Relations(relations, bonds=bonds))
        problems += more
    g, more = _problems_of(lambda: glue if isinstance(glue, Glue) else Glue(glue))
    problems += more
    timing, more = _problems_of(lambda: TimeManager(step=step, end=end, scheme=scheme,
                                                    substeps=substeps or {}))
    problems += more
    for p in setup_problems(subsystems, relations, timing, None, policy):
        if p not in problems:
            problems.append(p)
    if problems:
        raise CosimulationError(problems, subject="co-simulation set-up")
    sim = Cosimulation(subsystems, relations, timing, g, policy)
    return sim.run(progress=progress, callback=callback)
