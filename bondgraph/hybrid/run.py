"""The step loop of a hybrid run: segments between switches, located guards, the log.

:class:`_HybridRun` integrates one run of :func:`~.simulate.simulate_hybrid` segment by
segment. Each pass of its loop

1. fires the transitions that hold at once (a guard already true at a restart, a timed
   transition due now; repeated while one fires, at most ``max_burst + 2`` times);
2. chooses the next hard stop: the end, the next scheduled time, the next breakpoint of an
   input, the next controller sample, the end of a dwell time;
3. integrates up to it with the enabled guards as terminal events
   (:func:`~bondgraph.stepping.run_segment`, in Python or in C);
4. fires the transition whose guard was located, or samples the controller at a sample time.

Every switch is logged (:class:`~.records.TransitionRecord`) and checked for chattering;
the samples are recorded with the parameters and modes they were computed in, so the
results (:class:`~.records.HybridResults`) know each sample's mode.
"""

from __future__ import annotations

import math
import time as _time
from typing import TYPE_CHECKING, Mapping

import numpy as np

from ..errors import ParameterError, SimulationError, UserCallableError
from ..signals import call_user, describe_callable
from ..stepping import Failure, Watch, run_segment
from .eventsets import _guard_set, _native_guards, _wrap_guard
from .records import HybridResults, TransitionRecord, _RecordedInputs

if TYPE_CHECKING:
    from .control import Controller
    from .model import HybridModel
    from .rhs import _Rhs

__all__: list[str] = []


class _HybridRun:
    """One event-driven integration of ``hm`` from ``(t0, y)`` to ``t1``: the loop, the
    recorded samples and the transition log. :meth:`run` returns the results or raises
    (a failure, chattering, a user callable's error) with the partial results attached."""

    def __init__(self, hm: "HybridModel", rhs: "_Rhs", native, watch: Watch, *, t0: float, t1: float,
                 y: np.ndarray, t_eval, jac, controller: "Controller | None", method: str, rtol, atol,
                 max_step: float, max_events: int, max_burst: int, burst_window: float):
        self.hm, self.model, self.rhs, self.native, self.watch = hm, hm.model, rhs, native, watch
        self.t0, self.t1, self.y0 = t0, t1, y
        self.te_all = None if t_eval is None else np.asarray(t_eval, dtype=float)
        self.jac, self.controller = jac, controller
        self.method, self.rtol, self.atol, self.max_step = method, rtol, atol, max_step
        self.max_events, self.max_burst, self.burst_window = max_events, max_burst, burst_window
        # bound guards
        self.bound = [None if tr.guard.timed else _wrap_guard(tr, tr.guard.bind(rhs.probe))
                      for tr in hm.transitions]
        self.shifted = [None if b is None else (lambda t, x, b=b, tol=tr.guard.tolerance(): b(t, x) - tol)
                        for b, tr in zip(self.bound, hm.transitions)]
        self.last_change = {n: -math.inf for n in hm.variables}
        self.log: list[TransitionRecord] = []
        # the recorded samples: times, states, their parameter and mode rows, inputs
        self.ts: list[np.ndarray] = []
        self.ys: list[np.ndarray] = []
        self.pidx: list[int] = []
        self.U_rows: list[np.ndarray] = []
        self.du_rows: list[np.ndarray] = []
        self.param_rows: list[np.ndarray] = []
        self.mode_rows: list[dict] = []
        self.midx: list[int] = []
        # the switches as events of the results
        self.ev_t: list[float] = []
        self.ev_i: list[int] = []
        self.ev_y: list[np.ndarray] = []
        # schedules
        self.timed = sorted({tt for tr in hm.transitions if tr.guard.timed for tt in tr.guard.times
                             if t0 <= tt <= t1})
        self.breaks = sorted({float(b) for b in rhs.inputs.breakpoints() if t0 < b < t1})
        self.period = controller.period if controller is not None else None
        self.k_sample = 0
        self.ended: float | None = None   # the sample time at which the controller's until ended the run
        self.n_seg = 0
        self.sampled_once = False
        self.eps_t = 1e-12 * max(1.0, abs(t1))

    # -------------------------------------------------------------- recording
    def _mode_index(self) -> int:
        for k, row in enumerate(self.mode_rows):
            if row == self.hm._modes:
                return k
        self.mode_rows.append(dict(self.hm._modes))
        return len(self.mode_rows) - 1

    def _param_index(self) -> int:
        p = self.model.system.params
        for k, row in enumerate(self.param_rows):
            if np.array_equal(row, p):
                return k
        self.param_rows.append(p.copy())
        return len(self.param_rows) - 1

    def record(self, tt, yy) -> None:
        """Keep samples ``tt``, ``yy`` with the current parameters, modes and inputs."""
        if len(tt) == 0:
            return
        k = self._param_index()
        self.midx.extend([self._mode_index()] * len(tt))
        T = np.asarray(tt, dtype=float).ravel()
        Y = np.asarray(yy, dtype=float).reshape(len(T), -1)
        U, DU = self.rhs.inputs_many(T, Y)
        self.U_rows.extend(U)
        self.du_rows.extend(DU)
        self.ts.append(T)
        self.ys.append(Y)
        self.pidx.extend([k] * len(tt))

    def results(self, message: str) -> HybridResults:
        """The samples recorded so far as :class:`HybridResults`."""
        model, hm, watch = self.model, self.hm, self.watch
        t_arr = np.concatenate(self.ts) if self.ts else np.zeros(0)
        y_arr = np.vstack(self.ys) if self.ys else np.zeros((0, self.rhs.n))
        U = np.array(self.U_rows) if self.U_rows else np.zeros((0, len(model.input_names)))
        rec = _RecordedInputs(model.input_names, t_arr, U.reshape(len(t_arr), -1))
        mv = {}
        for n in hm.variables:
            mv[n] = np.array([self.mode_rows[k][n] for k in self.midx], dtype=object)
        stats = {"nfev": watch.nfev, "njev": watch.njev, "steps": watch.steps,
                 "wall_time": _time.perf_counter() - watch.start, "events": len(self.log),
                 "segments": self.n_seg, "backend": "native" if self.native is not None else "python",
                 "method": self.method}
        return HybridResults(model, t_arr, y_arr, rec, stats=stats, message=message, energy=self.rhs.energy,
                             events=(np.array(self.ev_t), np.array(self.ev_i, dtype=int),
                                     np.array(self.ev_y) if self.ev_y else np.zeros((0, model.system.nx))),
                             transitions=list(self.log), mode_values=mv, param_rows=list(self.param_rows),
                             param_index=np.array(self.pidx, dtype=int),
                             du_rows=(np.array(self.du_rows).reshape(len(t_arr), -1) if self.du_rows else
                                      np.zeros((0, len(model.equations.input_derivatives)))))

    # -------------------------------------------------------------- switching
    def enabled(self, i: int, t: float) -> bool:
        """Transition ``i`` may fire at ``t``: its variable is in its source mode (or, for
        ``"*"``, not in its target) and its dwell time has passed."""
        tr = self.hm.transitions[i]
        cur = self.hm._modes[tr.variable]
        if tr.source == "*":
            if cur == tr.target:
                return False
        elif cur != tr.source:
            return False
        return t >= self.last_change[tr.variable] + tr.dwell - 1e-15 * max(1.0, abs(t))

    def fire(self, i: int, t: float, yv: np.ndarray, cause: str) -> np.ndarray:
        """Switch transition ``i`` at ``t``; log it, apply its reset; the state after."""
        hm = self.hm
        tr = hm.transitions[i]
        src = hm._modes[tr.variable]
        hm.set_modes({tr.variable: tr.target})
        self.last_change[tr.variable] = t
        self.log.append(TransitionRecord(t, tr.variable, src, tr.target, cause))
        self.ev_t.append(t)
        self.ev_i.append(i)
        self.ev_y.append(yv.copy())
        if tr.reset is not None:
            what = f"reset of transition {tr.label!r}"
            nx = self.rhs.nx          # the reset sees the states, not the energy integrals after them
            new = call_user(tr.reset, (t, yv[:nx].copy()), what, t)
            try:
                new = np.asarray(new, dtype=float)
            except (TypeError, ValueError):
                new = np.full(0, np.nan)
            if new.shape != (nx,) or not np.all(np.isfinite(new)):
                raise UserCallableError(f"{what}: {describe_callable(tr.reset)} returned "
                                        f"{new!r} at t = {t:.9g} s; expected {nx} finite "
                                        "state values", time=t)
            yv = np.concatenate([new, yv[nx:]])
        self.check_burst(t, yv)
        return yv

    def external(self, t: float, yv: np.ndarray, changes: Mapping[str, str]) -> None:
        """Mode changes commanded by the controller (external events), logged."""
        hm = self.hm
        for n, lab in changes.items():
            if hm._modes[n] != lab:
                src = hm._modes[n]
                hm.set_modes({n: lab})
                self.last_change[n] = t
                self.log.append(TransitionRecord(t, n, src, lab, "controller"))
                self.ev_t.append(t)
                self.ev_i.append(-1)
                self.ev_y.append(yv.copy())
                self.check_burst(t, yv)

    def check_burst(self, t: float, yv: np.ndarray) -> None:
        """Stop on too many transitions, or on more than ``max_burst`` within ``burst_window``."""
        log, max_burst = self.log, self.max_burst
        if len(log) > self.max_events:
            self.fail(t, yv, f"more than {self.max_events} transitions (max_events)")
        if len(log) > max_burst and t - log[-max_burst - 1].time <= self.burst_window:
            names = sorted({f"{r.variable}: {r.source} → {r.target}" for r in log[-max_burst - 1:]})
            self.fail(t, yv, f"chattering: {max_burst + 1} transitions within {self.burst_window:.3g} s "
                             f"({'; '.join(names)}); add a hysteresis band or a dwell time")

    def fail(self, t: float, yv: np.ndarray, why: str):
        model = self.model
        res = self.results(f"failed: {why}")
        raise SimulationError(f"hybrid model {model.name!r}: {why} at t = {t:.9g} s", time=t,
                              state=dict(zip(model.state_names, map(float, yv))), results=res)

    def callable_error(self, t: float, y: np.ndarray, err: UserCallableError) -> SimulationError:
        """The run's error for a user callable that failed at ``t``, with the partial results."""
        return self.watch.error(f"hybrid model {self.model.name!r}",
                                Failure("callable", t, str(err), state=y, error=err),
                                self.results(f"failed: {err}"))

    # -------------------------------------------------------------- controller
    def sample(self, t: float, yv: np.ndarray) -> None:
        """A sample of the controller: its inputs held, its mode commands applied."""
        hm, model, rhs, controller = self.hm, self.model, self.rhs, self.controller
        out = rhs.control(t, yv)
        changes = {}
        for k, v in out.items():
            if k in hm.variables:
                hm.variables[k].value(v)  # validates the label
                changes[k] = v
            elif k in model.input_names and model.input_names.index(k) in rhs.ctrl_idx:
                rhs.held[rhs.ctrl_idx.index(model.input_names.index(k))] = rhs.control_value(t, k, v)
            else:
                raise ParameterError(f"controller output {k!r}: not one of its inputs "
                                     f"({', '.join(controller.inputs) or 'none'}) or a discrete "
                                     f"variable ({', '.join(hm.variables) or 'none'})")
        if not self.sampled_once:  # a zero-order hold needs a first value of every input it sets
            missing = [model.input_names[j] for j in rhs.ctrl_idx if model.input_names[j] not in out]
            if missing:
                raise UserCallableError(
                    f"controller (inputs {', '.join(controller.inputs)}): "
                    f"{describe_callable(controller.fn)} gave no value for {', '.join(map(repr, missing))} "
                    f"at its first sample, t = {t:.9g} s; expected a value for each of its inputs "
                    "(later samples may leave one out to hold it)", time=t)
            self.sampled_once = True
        if self.native is not None and rhs.ctrl_idx:  # the held values, in their tables
            model.system._native[0][rhs.held_slots] = rhs.held
        self.external(t, yv, changes)

    # -------------------------------------------------------------- the loop
    def start(self, t: float, y: np.ndarray) -> None:
        """The first controller sample and the start checks (R0 of :mod:`bondgraph.stepping`)."""
        try:
            if self.controller is not None and self.period is not None:
                self.sample(t, y)
                self.k_sample = 1
            start_fail = self.watch.check_start(t, y, self.rhs)
        except UserCallableError as err:
            start_fail = Failure("callable", t, str(err), state=y, error=err)
        if start_fail is not None:
            self.record(np.array([t]), y[None, :])
            raise self.watch.error(f"hybrid model {self.model.name!r}", start_fail,
                                   self.results(f"failed: {start_fail.cause}"))

    def fire_instantaneous(self, t: float, y: np.ndarray) -> np.ndarray:
        """Fire, one at a time, the transitions that hold at ``t`` (guards already true,
        timed transitions due now); the state after."""
        hm, eps_t = self.hm, self.eps_t
        for _ in range(self.max_burst + 2):
            fired = False
            for i, tr in enumerate(hm.transitions):
                if not self.enabled(i, t):
                    continue
                if tr.guard.timed:
                    due = any(abs(tt - t) <= eps_t for tt in tr.guard.times)
                    if due and not any(r.time == t and r.cause == tr.label for r in self.log):
                        y = self.fire(i, t, y, tr.label)
                        fired = True
                        break
                elif self.bound[i](t, y) > tr.guard.tolerance():
                    y = self.fire(i, t, y, tr.guard.describe())
                    fired = True
                    break
            if not fired:
                break
        return y

    def next_stop(self, t: float) -> float:
        """The next time the integration must stop at: the end, a scheduled time, an input
        breakpoint, a controller sample, the end of a dwell time."""
        eps_t = self.eps_t
        stops = [self.t1]
        stops += [tt for tt in self.timed if tt > t + eps_t][:1]
        stops += [b for b in self.breaks if b > t + eps_t][:1]
        if self.period is not None:
            stops.append(self.t0 + self.k_sample * self.period)
        for tr in self.hm.transitions:
            if tr.dwell:
                en = self.last_change[tr.variable] + tr.dwell
                if en > t + eps_t:
                    stops.append(en)
        return min(stops)

    def segment(self, t: float, t_next: float, y: np.ndarray):
        """Integrate from ``t`` to ``t_next`` with the enabled guards as terminal events;
        ``(segment, active transitions)``, the segment's samples recorded."""
        hm = self.hm
        active = [i for i, tr in enumerate(hm.transitions) if not tr.guard.timed and self.enabled(i, t)]
        seg_eval = None
        if self.te_all is not None:
            lo = self.te_all >= t if not self.ts else self.te_all > t
            seg_eval = self.te_all[lo & (self.te_all <= t_next)]
        else:
            self.record(np.array([t]), y[None, :])
        self.n_seg += 1
        if self.native is None:
            events = _guard_set(hm, self.shifted, active) if active else None
        else:
            events = _native_guards(hm, self.native, active)
        seg = run_segment(self.method, self.rhs, self.jac, t, t_next, y, self.watch, rtol=self.rtol,
                          atol=self.atol, max_step=self.max_step, first_step=None, t_eval=seg_eval,
                          events=events, native=self.native)
        self.record(seg.t, seg.y)
        return seg, active

    def until(self, t: float, yv: np.ndarray) -> bool:
        """The controller's ``until`` at a sample time: ``True`` ends the run there."""
        from .control import Measurements

        c = self.controller
        what = f"controller (inputs {', '.join(c.inputs) or 'none'}): its until"
        return bool(call_user(c.until, (t, Measurements(self.rhs.probe, t, yv[: self.rhs.nx])), what, t))

    def run(self) -> HybridResults:
        """The whole run: :meth:`start`, then segments between switches to ``t1`` (or to the
        sample at which the controller's ``until`` ends it)."""
        t, y = self.t0, self.y0
        self.start(t, y)
        what = f"hybrid model {self.model.name!r}"
        while True:
            try:
                y = self.fire_instantaneous(t, y)
            except UserCallableError as err:
                if not self.ts:
                    self.record(np.array([t]), y[None, :])
                raise self.callable_error(t, y, err) from None
            if t >= self.t1 - self.eps_t:
                break
            t_next = self.next_stop(t)
            seg, active = self.segment(t, t_next, y)
            if seg.failure is not None:
                raise self.watch.error(what, seg.failure, self.results(f"failed: {seg.failure.cause}"))
            if seg.hit is not None:
                te, gi, ye = seg.hit
                t, y = te, ye
                try:
                    y = self.fire(active[gi], t, y, self.hm.transitions[active[gi]].guard.describe())
                except UserCallableError as err:
                    raise self.callable_error(t, y, err) from None
                continue
            t, y = t_next, seg.y_end
            if (self.period is not None and abs(t - (self.t0 + self.k_sample * self.period)) <= self.eps_t
                    and t < self.t1 - self.eps_t):
                try:
                    if self.controller.until is not None and self.until(t, y):
                        self.t1, self.ended = t, t       # the end: as a run to this time
                        continue
                    self.sample(t, y)
                except UserCallableError as err:
                    raise self.callable_error(t, y, err) from None
                self.k_sample += 1
        return self.results("ok" if self.ended is None else f"ended by the controller at t = {self.ended:.9g} s")
