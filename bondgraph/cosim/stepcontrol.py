"""Communication-step control by step doubling, with rollback.

Each coupled step from ``t`` is taken twice from the same saved state: once with ``H``
and once as two steps of ``H/2``. The difference of the outputs estimates the local
coupling error; if it exceeds the tolerance every subsystem is rolled back
(:meth:`~bondgraph.cosim.Subsystem.restore_state`) and the step is retried with a
smaller ``H``, otherwise the two half steps are kept and ``H`` grows. Needs every
subsystem to save and restore its state; Jacobi order only. The glue runs on the
uneven history of accepted points (the first steps at reduced order). The step
control bounds the coupling error itself, so the energy-residual divergence monitor is
not run (the residual is still recorded). Subsystems that take fewer input derivatives
than the glue order are warned about and their applied inputs recorded, as in the fixed
step master.

Examples
--------
>>> from bondgraph.cosim import Cosimulation, Glue, TimeManager, examples
>>> sim = Cosimulation(list(examples.b3_subsystems()), examples.B3_RELATIONS,
...                    TimeManager(step=1e-3, end=0.02), Glue("quadratic"))
>>> res = sim.run(step_control=StepDoubling(rtol=1e-4, atol=1e-9, max_step=5e-3))
>>> res.info["accepted"] > 0, res.info["max_step"] > res.info["min_step"]
(True, True)
"""

from __future__ import annotations

import math
import time as _time
from dataclasses import dataclass

import numpy as np

from ..errors import CosimulationError, ParameterError
from .catcher import ErrorCatcher
from .glue import taylor_matrix
from .packages import check_times
from .results import CosimResults
from .stepping import checked_outputs, shift_matrix, step_subsystem
from .subsystem import terminate_all

__all__ = ["StepDoubling", "run_adaptive"]


@dataclass(frozen=True)
class StepDoubling:
    """Settings of the step-doubling control of the communication step.

    Parameters
    ----------
    rtol, atol : float
        Tolerance on every output: ``|y_H - y_H/2| <= atol + rtol * scale`` where
        ``scale`` is the largest magnitude the output has had so far.
    min_step, max_step : float
        Bounds on the communication step (``max_step`` None: the time manager's step
        times 2**6).
    safety : float
        Factor applied to the predicted step.
    max_growth : float
        Largest factor by which the step may grow after an accepted step.

    Raises
    ------
    ParameterError
        Every bad setting, listed at once.

    Examples
    --------
    >>> StepDoubling(rtol=1e-5).max_growth
    2.0
    >>> StepDoubling(rtol=0, max_growth=1)
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: step doubling: 2 problems
      - rtol: found 0, expected a positive number
      - max_growth: found 1, expected a factor > 1
    """

    rtol: float = 1e-4
    atol: float = 1e-12
    min_step: float = 1e-7
    max_step: float | None = None
    safety: float = 0.9
    max_growth: float = 2.0

    def __post_init__(self):
        problems = []
        for name in ("rtol", "atol", "min_step", "safety"):
            v = getattr(self, name)
            if not (isinstance(v, (int, float)) and v > 0 and math.isfinite(v)):
                problems.append(f"{name}: found {v!r}, expected a positive number")
        if self.max_step is not None and not (isinstance(self.max_step, (int, float))
                                              and self.max_step >= self.min_step):
            problems.append(f"max_step: found {self.max_step!r}, expected None or a time >= "
                            f"min_step {self.min_step!r}")
        if not (isinstance(self.max_growth, (int, float)) and self.max_growth > 1):
            problems.append(f"max_growth: found {self.max_growth!r}, expected a factor > 1")
        if problems:
            raise ParameterError(problems, subject="step doubling")


class _Stop(Exception):
    pass


def run_adaptive(sim, control: StepDoubling, *, progress: bool = True,
                 callback=None) -> CosimResults:
    """Run ``sim`` (a :class:`~bondgraph.cosim.Cosimulation`) with step doubling.

    Called by ``Cosimulation.run(step_control=...)``; see there for the errors.

    Parameters
    ----------
    sim : Cosimulation
        Jacobi order; every subsystem able to save and restore its state.
    control : StepDoubling
    progress : bool
    callback : callable, optional
        As for :meth:`~bondgraph.cosim.Cosimulation.run`.

    Returns
    -------
    CosimResults
        ``info`` has ``accepted``, ``rejected``, ``min_step`` and ``max_step``.

    Raises
    ------
    ParameterError
        A subsystem that cannot roll back, or Gauss-Seidel order.
    CosimulationError
        As :meth:`~bondgraph.cosim.Cosimulation.run`.

    Examples
    --------
    B2 (stiff coupling) at a relative tolerance of 1e-4 stays within 0.1 % of the
    exact solution, the step adapting by a factor of more than ten:

    >>> from bondgraph.cosim import Cosimulation, Glue, TimeManager, examples
    >>> sim = Cosimulation(list(examples.b2_subsystems()), examples.B2_RELATIONS,
    ...                    TimeManager(step=1e-3, end=0.1), Glue("quadratic"))
    >>> res = run_adaptive(sim, StepDoubling(rtol=1e-4, atol=1e-9))
    >>> bool(examples.b2_error(res) < 1e-3), bool(res.info["max_step"] > 10 * res.info["min_step"])
    (True, True)
    """
    subs = sim.subsystems
    tm, glue = sim.timing, sim.glue
    problems = [f"subsystem {s.name!r}: cannot save and restore its state, which step "
                "doubling needs for rollback" for s in subs if not s.can_save_state]
    if tm.scheme != "jacobi":
        problems.append(f"scheme {tm.scheme!r}: step doubling supports 'jacobi' only")
    if problems:
        raise ParameterError(problems, subject="step-size control")
    p = glue.order
    t0, t_end = tm.start, tm.end
    h_max = control.max_step if control.max_step is not None else tm.step * 64
    H = min(tm.step, h_max)
    names = [s.name for s in subs]
    ks = [tm.substeps_of(n) for n in names]
    dords = [min(s.input_derivative_order, p) for s in subs]
    src, in_sl, out_sl, src_sl = sim.src, sim.in_slices, sim.out_slices, sim.src_slices
    empty = [np.zeros((0, len(s.inputs))) for s in subs]
    catcher = ErrorCatcher(sim.policy)
    ny = len(sim.output_names)
    Ts: list[float] = [t0]
    Ys: list[np.ndarray] = []
    Us: list[np.ndarray] = []
    U0s: list[np.ndarray] = []
    accepted = rejected = 0
    steps: list[float] = []
    current = None
    cause = None
    info = {"scheme": tm.scheme, "glue": glue.name, "step_control": control,
            "held_inputs": sim.held_inputs()}
    wall0 = _time.perf_counter()
    bar = None
    if progress:
        from tqdm.auto import tqdm
        bar = tqdm(total=t_end - t0, unit="s", desc="co-simulation", leave=False, delay=1.0)

    def refresh(t, y, u):
        nonlocal current
        for k in sim.ft_order:
            current = subs[k]
            u[in_sl[k]] = sim._inputs(y[src_sl[k]], k)
            subs[k].set_inputs(t, u[in_sl[k]], empty[k])
            y[out_sl[k]] = checked_outputs(subs[k])
        current = None

    def coupled(t, h, times, values):
        """One Jacobi step from t over h; returns the outputs at t + h and the inputs
        applied at t + h and at t."""
        nonlocal current
        k = min(len(times), p + 1)
        C = taylor_matrix(times[-k:], t, p) @ np.array(values[-k:])
        Cu = sim._inputs(C[:, src])
        u_end = np.empty(len(src))
        shifts = {(n, j): shift_matrix(p, j * h / n) for n in set(ks) for j in range(1, n)}
        y = np.empty(ny)
        sent = []
        for i, s in enumerate(subs):
            current = s
            out, u_end[in_sl[i]] = step_subsystem(s, Cu[:, in_sl[i]], t, h, ks[i], dords[i],
                                                  shifts, t + h)
            sent.append(out)
        current = None
        bad = check_times(sent, t + h, h)
        if bad:
            stop = False
            for who, msg in bad:
                stop |= catcher.report("time_mismatch", t + h, f"subsystem {who!r}", msg)
            if stop:
                raise _Stop
        for i, out in enumerate(sent):
            y[out_sl[i]] = out.values
        refresh(t + h, y, u_end)
        if not math.isfinite(float(y.sum())):
            if catcher.report("non_finite", t + h, "exchanged outputs", sim._nonfinite(y)):
                raise _Stop
        return y, u_end, Cu[0].copy()

    try:
        for i, s in enumerate(subs):
            current = s
            s.setup(t0, t_end, h_max / ks[i])
        current = None
        if sim.check_start(catcher, t0, H):
            raise _Stop
        y0 = np.empty(ny)
        for k in sim.non_ft:
            current = subs[k]
            y0[out_sl[k]] = checked_outputs(subs[k])
        u0 = sim._inputs(y0[src]).copy()
        refresh(t0, y0, u0)
        Ys.append(y0)
        Us.append(u0)
        U0s.append(u0.copy())
        scale = np.abs(y0)
        t = t0
        while t < t_end - 1e-12 * max(1.0, abs(t_end)):
            H = min(H, t_end - t)
            saved = []
            for s in subs:
                current = s
                saved.append(s.save_state())
            current = None
            y_full, _, _ = coupled(t, H, Ts, Ys)
            for s, st in zip(subs, saved):
                current = s
                s.restore_state(st)
            y_half, u_half, s_half = coupled(t, H / 2, Ts, Ys)
            y_two, u_two, s_two = coupled(t + H / 2, H / 2, Ts + [t + H / 2], Ys + [y_half])
            sc = np.maximum(scale, np.abs(y_two))
            err = float(np.max(np.abs(y_two - y_full) / (control.atol + control.rtol * sc)))
            fac = control.safety * (err if err > 0 else 1e-300) ** (-1.0 / (p + 2))
            if err <= 1.0 or H <= control.min_step * (1 + 1e-12):
                if err > 1.0:
                    catcher.report("tolerance", t + H, "step-size control",
                                   f"error estimate {err:.3g} times the tolerance at the "
                                   f"minimum step {control.min_step:g} s; expected at most 1")
                    if catcher.abort_event:
                        raise _Stop
                Ts += [t + H / 2, t + H]
                Ys += [y_half, y_two]
                Us += [u_half, u_two]
                U0s += [s_half, s_two]
                scale = sc
                steps.append(H)
                accepted += 1
                t += H
                H = min(h_max, H * min(control.max_growth, fac))
                if bar is not None:
                    bar.update(steps[-1])
                if callback is not None and accepted % 50 == 0:
                    callback(_results(sim, Ts, Ys, Us, U0s, catcher, "running", "", info))
            else:
                for s, st in zip(subs, saved):
                    current = s
                    s.restore_state(st)
                current = None
                rejected += 1
                H = max(control.min_step, H * max(0.2, min(1.0, fac)))
    except _Stop:
        pass
    except Exception as exc:  # a hook raised
        if current is None:
            raise
        catcher.hook_failed(current, Ts[-1], exc)
        cause = exc
    finally:
        terminate_all(subs)
        if bar is not None:
            bar.close()
    info.update(wall_time=_time.perf_counter() - wall0, accepted=accepted, rejected=rejected,
                min_step=min(steps) if steps else math.nan,
                max_step=max(steps) if steps else math.nan)
    ev = catcher.abort_event
    if ev is not None:
        res = _results(sim, Ts, Ys, Us, U0s, catcher, "aborted", str(ev), info)
        raise CosimulationError([f"{ev.kind} at {ev}", f"results kept up to the last good "
                                 f"point t={Ts[-1]:.9g} s"], subject="co-simulation aborted",
                                time=Ts[-1], results=res) from cause
    errors = catcher.errors
    res = _results(sim, Ts, Ys, Us, U0s, catcher, "error" if errors else "completed",
                   "; ".join(str(e) for e in errors), info)
    if callback is not None:
        callback(res)
    if errors:
        raise CosimulationError([f"{e.kind} at {e}" for e in errors],
                                subject="co-simulation finished with errors", time=Ts[-1],
                                results=res)
    return res


def _results(sim, Ts, Ys, Us, U0s, catcher: ErrorCatcher, status: str, reason: str,
             info: dict) -> CosimResults:
    n = min(len(Ts), len(Ys), len(Us), len(U0s))
    T = np.array(Ts[:n])
    Y = np.array(Ys[:n])
    U = np.array(Us[:n])
    nb = len(sim.bond_names)
    R = np.zeros((n, nb))
    if nb and n > 1:
        sim._energy(T, Y, U, np.array(U0s[:n]), R, np.zeros((n, nb)), 1, n)
    return CosimResults(time=T, outputs=Y, output_names=sim.output_names,
                        output_units=sim.output_units, inputs=U, input_names=sim.input_names,
                        input_units=sim.input_units, energy_residual=R,
                        bond_names=sim.bond_names, events=tuple(catcher.events), status=status,
                        reason=reason, info=dict(info))
