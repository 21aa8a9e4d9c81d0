"""Running a machine in its mode, and what a run returns.

:func:`run_machine` checks the cycle against the strokes and reachability, finds the start
state from the model (:mod:`.start`), integrates with the stroke ends watched by
root finding, and returns a :class:`MachineRun`: the generic
:class:`~bondgraph.Results` plus read-outs named by function (:mod:`.table`), the
end-stop contacts, the energy split and the timings of each stage (build, start
state, integration, output; "× real time" from the integration alone). In mode
extensions the poses at the output times are closed exactly at the prescribed
lengths (:func:`exact_poses`): the integrator's drift (about its tolerance) never
reaches the read-outs.

A failed integration raises :class:`~bondgraph.SimulationError` whose message adds
the physical cause where it is visible (a stroke left, a toggle position named by
its loop) and whose ``run`` attribute is the partial :class:`MachineRun`.

Examples
--------
>>> from mechanisms.machine import Machine, DATA
>>> m = Machine.from_file(DATA / "excavator.toml", mode="extensions")
>>> run = m.run(t_end=0.5, progress=False)
>>> tab = run.table()
>>> round(float(tab["boom_length"][0]), 3), run.units["boom_force"], sorted(run.timings)
(3.668, 'N', ['build', 'integration', 'output', 'start'])
"""

from __future__ import annotations

import math
import time
import warnings
from typing import Any, Callable, Mapping

import numpy as np

from bondgraph import Results, simulate
from bondgraph.errors import BondGraphWarning, ParameterError, SimulationError
from bondgraph.events import Flag

from .cycle import Cycle
from ..strokes import explain
from .strokes import Contact, contact_events, contacts

__all__ = ["run_machine", "MachineRun", "Interrupt", "PRESSURE_ATOL_SCALE", "exact_poses"]

#: the absolute tolerance of pressure states (Pa) is ``atol`` times this: states are in SI
#: units, and a pressure's pascal is 1e5–1e8 times smaller than a metre or a radian of the
#: others. With the default ``atol = 1e-8`` a pressure near zero (a vented LS gallery, a
#: chamber at tank pressure) is resolved to 1 Pa, not to 1e-8 Pa, which only cost steps:
#: on the excavator's load-sensing cycle 18 % of the RHS evaluations, the tip path
#: unchanged (5e-5 m from a 1e-10 reference either way; ``benchmarks/excavator_ls.py``).
PRESSURE_ATOL_SCALE = 1e8


class Interrupt(Flag):
    """A terminal event that ends a run cleanly when :attr:`requested` becomes true
    (the CLI sets it from Ctrl-C): the run stops at the next step Python sees (every step
    on the Python path, at least every 0.1 s natively) with its results.

    Examples
    --------
    >>> from mechanisms.machine import Machine, DATA
    >>> stop = Interrupt()
    >>> stop.requested = True                 # as if Ctrl-C had come before the run
    >>> run = Machine.from_file(DATA / "excavator.toml", mode="forces").run(
    ...     t_end=1.0, interrupt=stop, progress=False)
    >>> run.interrupted, float(run.t[-1]) < 1.0
    (True, True)
    """


def _interruptible(ctrl: Any, interrupt: Interrupt) -> Any:
    """The sampled controller ``ctrl`` that also ends its run at the first sample after
    ``interrupt`` was requested (its own ``until`` still asked)."""
    from bondgraph.hybrid import Controller

    own = ctrl.until
    return Controller(ctrl.fn, ctrl.inputs, ctrl.period,
                      until=lambda t, y: bool(interrupt.requested or (own is not None and own(t, y))))


def _t_eval(t0: float, t_end: float, dt: float) -> np.ndarray:
    """``t0, t0 + dt, ...`` up to ``t_end`` (included; a last step within 1e-9 of ``t_end``
    in rounding lands on it: 0.1·6 is 0.6000000000000001, beyond a 0.6 s run)."""
    n = int(math.floor((t_end - t0) / dt + 1e-9))
    t = np.minimum(t0 + dt * np.arange(n + 1), t_end)
    if t_end - t[-1] > 1e-9 * max(1.0, abs(t_end)):
        t = np.append(t, t_end)
    else:
        t[-1] = t_end
    return t


def held_after_end(cycle: Cycle, t_end: float) -> str:
    """What a run to ``t_end`` past the cycle's end does from there on (the cycle's last
    values held), or ``""`` if ``t_end`` is within the cycle."""
    if t_end <= cycle.end + 1e-9 * max(1.0, abs(cycle.end)):
        return ""
    unit = {"extensions": "m", "forces": "N", "valves": ""}.get(cycle.mode, "")
    last = ", ".join(f"{f} = {cycle.values[f][-1]:.4g}{(' ' + unit) if unit else ''}" for f in cycle.functions)
    return (f"t_end = {t_end:g} s is past the end of cycle {cycle.source} ({cycle.end:g} s): from "
            f"{cycle.end:g} s on its last values are held ({last})")


def run_machine(machine, cycle: Cycle, t_end: float | None = None, *, dt: float = 0.01,
                t_eval: np.ndarray | None = None, rtol: float = 1e-6, atol: float = 1e-8,
                method: str = "CVODE", controller: Callable | None = None, start=None,
                progress: bool = True, energy: bool = True, check: bool = True,
                interrupt: Interrupt | None = None, live: Any = None) -> "MachineRun":
    """Run ``cycle`` on ``machine`` (its mode must be the cycle's).

    Parameters
    ----------
    machine : Machine
    cycle : Cycle
    t_end : float, optional
        Stop time (default: the cycle's last time); finite and after the cycle's start.
        Past the cycle's end its last values are held, which a ``BondGraphWarning`` and
        the report say.
    dt : float
        Output step (s), default 0.01; or ``t_eval`` for explicit output times.
    rtol, atol : float
        Integrator tolerances (``0 < rtol < 1``, ``atol > 0``).
    method : str
        ``"CVODE"`` (default) or a :func:`scipy.integrate.solve_ivp` method.
    controller : callable, optional
        Mode ``valves`` only (another mode is a ``ParameterError``): ``u = controller(t, y)`` (a :class:`bondgraph.Controller` or a
        callable returning ``{"<function>.cmd": value}``) instead of the cycle's table.
    start : Pose, optional
        Modes forces and valves: start from this pose (default the machine's start pose); in
        mode extensions the cycle's first lengths set it, and a ``start`` is a ``ParameterError``.
    check : bool
        Check the cycle against the strokes and reachability first (mode extensions).
    interrupt : Interrupt, optional
        Lets a caller stop the run cleanly (partial results kept, ``run.interrupted``). A run
        a sampled controller drives (the tracking operator) stops at its next sample; with a
        continuous controller it is refused (``ParameterError``): such a run cannot be stopped.
    progress : bool
        A progress bar (simulated time, time left) on a run that takes over a second;
        ``False`` silences it.
    live : list of str or LiveRun, optional
        Read-outs of the table (``["boom_cap_pressure", "tip_y"]``) plotted while the run
        advances, at most four redraws a second (:class:`.live.LiveRun`; the run keeps it
        as ``run.live``). Causal formulation, cycle-driven runs.
    """
    if cycle.mode != machine.mode:
        raise ParameterError(f"cycle {cycle.source} is for mode {cycle.mode!r}; the machine was built "
                             f"for {machine.mode!r}")
    if tuple(cycle.functions) != tuple(machine.functions):
        raise ParameterError(f"cycle {cycle.source}: functions {', '.join(cycle.functions)}, expected "
                             f"{', '.join(machine.functions)}")
    if controller is not None and machine.mode != "valves":
        raise ParameterError(f"controller: given to a run in mode {machine.mode!r}, which takes no spool "
                             f"commands; expected mode 'valves' (the cycle {cycle.source} prescribes the "
                             f"{'lengths' if machine.mode == 'extensions' else 'forces'})")
    if start is not None and machine.mode == "extensions":
        raise ParameterError(f"start: a start pose given to a run in mode 'extensions', whose start pose is "
                             f"the cycle's first lengths ({cycle.source}); expected mode 'forces' or 'valves'")
    t0 = cycle.start
    t_end = cycle.end if t_end is None else t_end
    if isinstance(t_end, bool) or not isinstance(t_end, (int, float)) or not math.isfinite(t_end) \
            or not t_end > t0:
        raise ParameterError(f"t_end = {t_end!r}: expected a finite time after the cycle's start "
                             f"{t0:g} s (the cycle ends at {cycle.end:g} s)")
    t_end = float(t_end)
    held = held_after_end(cycle, t_end) if controller is None else ""
    if held:
        warnings.warn(BondGraphWarning(held), stacklevel=3)
    if isinstance(dt, bool) or not (isinstance(dt, (int, float)) and math.isfinite(dt) and dt > 0):
        raise ParameterError(f"output step dt = {dt!r}: expected a finite time > 0 s")
    for name, v, ok in (("rtol", rtol, lambda v: 0 < v < 1), ("atol", atol, lambda v: v > 0)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or not ok(v):
            raise ParameterError(f"{name} = {v!r}: expected {'0 < rtol < 1' if name == 'rtol' else 'atol > 0'}")
    timings = {"build": machine.build_time}
    T = time.perf_counter()
    if check:
        machine.check_cycle(cycle, t_end)
    if t_eval is None:
        t_eval = _t_eval(t0, t_end, dt)
    sig = cycle.signals()
    mm = machine.model
    desc = machine.description
    causal = machine.formulation == "causal"
    if machine.formulation == "cartesian":
        energy = False  # no bond graph to account power on; the report says so
    events = contact_events(machine) if (machine.mode != "extensions" and causal) else []
    # a run a controller drives locates them as hybrid transitions (the same ends)
    all_events = events + ([interrupt] if interrupt is not None else [])
    watcher = _live(live, machine, cycle, sig, controller) if live is not None else None
    if watcher is not None:
        all_events.append(watcher)
    atol = _atol(machine, atol)
    swing_x0: dict[str, float] = {}
    swing_u: dict[str, Any] = {}
    # the turntable's and the carrier's inputs (their modules only where there is either,
    # or a cycle column for one: a machine without [swing] refuses a swing column there)
    if getattr(machine, "turntable", None) is not None or getattr(cycle, "swing", None) is not None:
        from .swing import swing_inputs

        swing_u.update(swing_inputs(machine, cycle, swing_x0))
    if getattr(machine, "carrier", None) is not None or getattr(cycle, "travel", None) is not None:
        from .travel import travel_inputs

        swing_u.update(travel_inputs(machine, cycle))
    kw = dict(t_eval=t_eval, rtol=rtol, atol=atol, method=method, energy=energy, progress=progress)
    res = None
    try:
        if machine.mode == "extensions":
            lengths = {desc.cylinder_of[f]: s for f, s in sig.items()}
            pose = machine.pose_at_lengths({f: s.value(t0) for f, s in sig.items()})
            timings["start"] = time.perf_counter() - T
            T = time.perf_counter()
            if causal:
                inputs = {f"{c}.rate": s.rate(name=f"{c}.rate") for c, s in lengths.items()}
                res = simulate(mm.model, (t0, t_end), x0={**mm.initial_state(pose), **swing_x0},
                               inputs={**inputs, **swing_u},
                               events=all_events or None, **kw)
            else:
                guess = {n: pose.angle(n) for n in machine.mechanism.parts}
                res = mm.simulate_extensions(lengths, (t0, t_end), guess=guess, **kw)
        elif machine.mode == "forces":
            pose = start or machine.start_pose
            if start is not None:
                machine._check_pose(pose, "start pose of the run")
            timings["start"] = time.perf_counter() - T
            T = time.perf_counter()
            forces = {f"{desc.cylinder_of[f]}.force": s for f, s in sig.items()}
            if causal:
                res = simulate(mm.model, (t0, t_end), x0=machine.start_state(pose), inputs={**forces, **swing_u},
                               events=all_events or None, **kw)
            else:
                res = mm.simulate_forces({desc.cylinder_of[f]: s for f, s in sig.items()}, (t0, t_end),
                                         pose, **kw)
        else:
            pose = start or machine.start_pose
            if start is not None:
                machine._check_pose(pose, "start pose of the run")
            x0 = machine.start_state(pose)
            timings["start"] = time.perf_counter() - T
            T = time.perf_counter()
            inputs = {f"{f}.cmd": s for f, s in sig.items()}
            if controller is not None:
                from bondgraph.hybrid import Controller, HybridModel, simulate_hybrid

                from .strokes import contact_transitions

                ctrl = controller if isinstance(controller, Controller) else \
                    Controller(controller, list(inputs))
                if interrupt is not None and ctrl.period is None:
                    raise ParameterError("interrupt: a continuous controller (period None) cannot be stopped "
                                         "cleanly; expected a sampled controller (Controller(..., period=...)), "
                                         "which ends at its next sample, or no interrupt")
                if interrupt is not None:
                    ctrl = _interruptible(ctrl, interrupt)
                # the stroke ends as transitions: the contacts are located as in a table-driven run
                hm = HybridModel(mm.model, *contact_transitions(machine))
                rest = {k: v for k, v in swing_u.items() if k not in ctrl.inputs}   # a swing the controller leaves
                res = simulate_hybrid(hm, (t0, t_end), x0=x0, controller=ctrl, t_eval=t_eval, rtol=rtol,
                                      atol=atol, method=method, energy=energy, inputs=rest or None)
            else:
                res = simulate(mm.model, (t0, t_end), x0=x0, inputs={**inputs, **swing_u},
                               events=all_events or None, **kw)
    except SimulationError as exc:
        timings.setdefault("start", time.perf_counter() - T)
        timings["integration"] = time.perf_counter() - T
        partial = exc.results
        run = MachineRun(machine, partial, cycle, timings, events) if partial is not None and len(partial.t) else None
        if run is not None:
            run.controlled = controller is not None
        err = explain(exc, mm)           # the physical cause first (a stroke left, a toggle)
        err.results = partial
        err.run = run
        raise err from None
    timings["integration"] = time.perf_counter() - T
    T = time.perf_counter()
    if machine.mode == "extensions" and causal:
        exact_poses(machine, res, {desc.cylinder_of[f]: s for f, s in sig.items()})
        if getattr(machine, "turntable", None) is not None:
            from .swing import exact_swing

            exact_swing(machine, res, cycle)
    if hasattr(mm, "state_units"):   # the states' units, for Results.plot (reference formulations: none)
        res.units.update(mm.state_units())
        if machine.circuit is not None:
            res.units.update({f"{mm.name}/hyd/{k}": "Pa" for k in machine.circuit.pressure_states()})
    run = MachineRun(machine, res, cycle, timings, events)
    run.controlled = controller is not None
    if controller is None and causal:     # what a replay of a contact needs (:func:`replay_contacts`)
        run.solver_options = dict(rtol=rtol, atol=atol, method=method)
    run.interrupted = bool(interrupt is not None and interrupt.requested)
    run.table()
    run.timings["output"] = time.perf_counter() - T
    if watcher is not None:
        watcher.finish(run)
        run.live = watcher
    return run


def _live(live, machine, cycle: Cycle, sig, controller):
    """The :class:`.live.LiveRun` of ``run_machine(..., live=...)``, checked and prepared."""
    from .live import LiveRun

    if machine.formulation != "causal" or controller is not None:
        raise ParameterError(f"live: curves during a run follow the causal model's states; found formulation "
                             f"{machine.formulation!r}{' and a controller' if controller is not None else ''}, "
                             "expected formulation 'causal' and a cycle (plot run.table() after the run instead)")
    watcher = live if isinstance(live, LiveRun) else LiveRun(live)
    desc = machine.description
    if machine.mode == "extensions":
        inputs = {f"{desc.cylinder_of[f]}.rate": s.rate(name=f"{desc.cylinder_of[f]}.rate") for f, s in sig.items()}
    elif machine.mode == "forces":
        inputs = {f"{desc.cylinder_of[f]}.force": s for f, s in sig.items()}
    else:
        inputs = {f"{f}.cmd": s for f, s in sig.items()}
    from .swing import swing_inputs

    from .travel import travel_inputs

    watcher.prepare(machine, cycle, {**inputs, **swing_inputs(machine, cycle), **travel_inputs(machine, cycle)})
    return watcher


def exact_poses(machine, res: Results, lengths: Mapping[str, Any]) -> None:
    """Mode extensions: the poses at the output times closed exactly at the prescribed lengths.

    The integrator follows the lengths through their rates, so its angles drift from the
    loop closure by about the tolerance (5e-6 m on the excavator's cycle at the default
    ``rtol``). The lengths are known at every time: the cylinders' length states are set
    to them and every part's angle to the one that closes the loops there
    (:meth:`Mechanism.close_loops <mechanisms.Mechanism.close_loops>`, Newton from the
    integrated angles, so on their branch). The read-outs (forces, energies) are then
    evaluated at exact poses; the integrated energy accounting is the solver's.

    Raises
    ------
    SimulationError
        A pose that does not close near the integrated one (naming the times).
    """
    if not len(res.t):
        return
    mm = machine.model
    mech = machine.mechanism
    names = mm.model.state_names
    L = {c: s.values_at(res.t) for c, s in lengths.items()}
    angles = {}
    for part, p in mech.parts.items():
        c = mm.coordinates(res, part)
        angles[part] = c["theta"] if "theta" in c else c["phi"]
    closed, gap = mech.close_loops(angles, L)
    bad = np.flatnonzero(gap > 1e-9)
    if len(bad):
        at = ", ".join(f"{res.t[i]:.6g} s" for i in bad[:5]) + (" ..." if len(bad) > 5 else "")
        raise SimulationError(f"{machine.name}: the loops do not close near the integrated pose at t = {at} "
                              f"(gap up to {float(np.max(gap)):.3g} m): the prescribed lengths leave the "
                              "assembly branch or pass a dead centre there", time=float(res.t[bad[0]]),
                              results=res)
    for part, p in mech.parts.items():
        coord = "theta" if "theta" in p.coordinate_states else "phi"
        res.x[:, names.index(mm.state(part, coord))] = closed[part]
        if part in L:
            res.x[:, names.index(mm.state(part, "s"))] = L[part]
    res._out = None


def _atol(machine, atol: float):
    """``atol`` per state: pressures of the circuit (mode valves) scaled by
    :data:`PRESSURE_ATOL_SCALE`; a plain number when no state is a pressure."""
    circ = machine.circuit
    if machine.mode != "valves" or circ is None or machine.formulation != "causal":
        return atol
    names = machine.model.model.state_names
    prefix = f"{machine.mechanism.name}/{circ.name}/"
    vec = np.full(len(names), float(atol))
    for local in circ.pressure_states():
        vec[names.index(prefix + local)] = atol * PRESSURE_ATOL_SCALE
    return vec


class MachineRun:
    """One run: results, named read-outs, contacts, energy, timings.

    Attributes
    ----------
    machine : Machine
    results : bondgraph.Results
    cycle : Cycle
    timings : dict
        Seconds: ``build`` (the machine's), ``start`` (cycle check and start state),
        ``integration``, ``output`` (the table).
    contacts : list of Contact
    interrupted : bool

    Examples
    --------
    >>> from mechanisms.machine import Machine, DATA
    >>> run = Machine.from_file(DATA / "excavator.toml", mode="forces").run(t_end=0.3, progress=False)
    >>> run.mode, run.units["boom_cap_pressure_required"], float(run.t[-1])
    ('forces', 'Pa', 0.3)
    >>> "energy over the run" in run.report()
    True
    """

    def __init__(self, machine, results: Results, cycle: Cycle, timings: Mapping[str, float],
                 events: list | None = None):
        self.machine = machine
        self.results = results
        self.cycle = cycle
        self.timings = dict(timings)
        self.interrupted = False
        #: a controller gave the commands (the cycle's table was not used)
        self.controlled = False
        self._events = events or []
        self._table: dict[str, np.ndarray] | None = None
        self.units: dict[str, str] = {}
        self._contacts: list[Contact] | None = None
        self._replays: list[Results] | None = None
        #: integrator options a replay of a contact uses (None: not replayable, e.g. a controller run)
        self.solver_options: dict[str, Any] | None = None
        #: the live curves of the run (:class:`.live.LiveRun`), when asked for
        self.live = None

    @property
    def t(self) -> np.ndarray:
        """The output times (s)."""
        return self.results.t

    @property
    def mode(self) -> str:
        """The machine's driving mode (``"extensions"``, ``"forces"``, ``"valves"``)."""
        return self.machine.mode

    @property
    def real_time_factor(self) -> float:
        """Simulated time over integration wall time."""
        span = float(self.t[-1] - self.t[0]) if len(self.t) else 0.0
        return span / max(self.timings.get("integration", 0.0), 1e-12)

    @property
    def contacts(self) -> list[Contact]:
        """End-stop contacts, located by the integrator; each one's depth from the contact
        integrated again with a fine output step (:meth:`replays`) where possible."""
        if self._contacts is None:
            self._contacts = contacts(self.machine, self.results, self._events, self.replays())
        return self._contacts

    def replays(self) -> list[Results]:
        """The windows of output times around the contacts integrated again from the run's
        state before them, finely sampled (:func:`.strokes.replay_contacts`); empty
        without contacts or for a run a controller drove."""
        if self._replays is None:
            from .strokes import replay_contacts

            coarse = contacts(self.machine, self.results, self._events)
            self._replays = replay_contacts(self, coarse)
        return self._replays

    def positions(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """World position of every hinge point (``"part/point"``) along the run."""
        return self.machine.model.positions(self.results)

    def table(self) -> dict[str, np.ndarray]:
        """Named series (``time``, ``tip_x``, ``boom_force``...); units in :attr:`units`."""
        if self._table is None:
            from .table import run_table

            self._table, self.units = run_table(self)
        return self._table

    def to_csv(self, path) -> Any:
        """Write the table atomically, with units in the header (``tip_x [m]``)."""
        from .table import write_csv

        return write_csv(self, path)

    def loop_closure(self) -> float:
        """Largest loop gap over the run (m)."""
        gaps = self.machine.model.loop_closure(self.results)
        return max((float(np.max(g)) for g in gaps.values()), default=0.0)

    def energy_balance(self):
        """:func:`bondgraph.power_balance` of the run (the source work includes gravity)."""
        from bondgraph import power_balance

        return power_balance(self.results)

    def energy_split(self):
        """Actuator work, potential, kinetic, oil, relief, throttling... (:mod:`.energy`)."""
        from .energy import energy_split

        return energy_split(self)

    def report(self) -> str:
        """The text report with its flags (:mod:`.report`)."""
        from .report import text_report

        return text_report(self)

    def _repr_html_(self) -> str:
        from ..display import run_html

        return run_html(self)

    def __repr__(self) -> str:
        return (f"MachineRun({self.machine.name!r}, mode {self.mode!r}, cycle {self.cycle.source}, "
                f"{self.t[0]:.3g}…{self.t[-1]:.3g} s, {len(self.contacts)} end-stop contacts)")
