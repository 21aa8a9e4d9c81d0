"""An operator that holds the path: follow a lengths cycle through the valves, pacing when the machine cannot keep up.

A "same motion" comparison of two circuits is only fair when both machines trace the
same path. :class:`TrackingOperator` drives a machine built in mode ``valves`` along the
pin-to-pin lengths of a cycle (mode ``extensions``):

* **Feedforward from the machine's state.** Each sample it asks: which spool opening
  gives the rate the reference needs *now*? The flow is the rate times the inflow area;
  the metering drop comes from the circuit: a compensated (load-sensing) section holds
  its metering drop, and a load that runs ahead (a boom lowering under its own weight)
  is metered by the outlet edge at the load pressure. A fixed supply is metered in series
  by both edges of a 4/3 spool. For that case the drop follows from the supply pressure
  and the cylinder's load force ``F``:

  .. math::

     \\Delta p_{in} = \\frac{p_s A_{cap} - F}{A_{cap} + \\varphi^2 A_{rod}},
     \\qquad \\varphi = A_{rod}/A_{cap}\\ \\text{(extending)}.

  An **open centre** has no supply pressure to meter against: the pump pressure is where
  the negative-control pump's flow, the centre gallery's and the sections' balance, and
  every spool moves it. The operator solves that balance for all spools at once with the
  circuit's own laws (:class:`~mechanisms.machine.open_centre_law.OpenCentreLaw`): the
  openings that give the wanted rates at the pump pressure they settle to. (Not yet on a
  machine with a swing section, whose motor rocks on its trapped oil: there each function is
  metered from the measured supply pressure, as for a fixed pump.)
* **The load force** ``F`` is predicted from the reference: the cylinder forces of the
  pure-kinematics run along it (gravity, payload, soil, inertia; the inertia scaled by the
  pace squared, from a second run four times slower), corrected by the first-order filtered
  difference to the force the chamber pressures give. A filter on the measured force alone
  lags a bucket that fills or dumps by the filter's time constant.
* **Feedback per function**: the reference rate plus ``bandwidth`` × the length error
  plus ``integral`` × its integral, turned into a command the same way.
* **Pacing.** The operator slows its own clock instead of letting the machine fall behind.
  It does so when a function's feedforward would need more than ``max_command`` of its
  spool, now or ``look_ahead`` further along the reference (on an open centre: the largest
  pace at which the balance gives every rate within ``max_command``), and it slows in
  proportion to the largest length error. So the tip traces the
  reference *path*, and the cycle takes as long as the machine needs. :attr:`clock` maps
  run time to reference time, and :meth:`tracking` measures the tip's distance to the
  reference path at that reference time.

* **The swing** (a machine with ``[swing]``, its circuit's swing section): one more tracked
  function, its reference the cycle's ``swing`` angle column (none: held at 0). The flow is
  the rate times the motor's displacement per swing radian through the gear, ``i·D/2π``;
  the metering drop as for a cylinder (the motor's two ports have equal "areas"). Its error
  counts in the pacing as the arc it makes at ``swing_radius``.

The reference path in :meth:`tracking` is computed independently of the operator and of the
hydraulics: it is the same machine in mode ``extensions`` (pure kinematics), run on the
reference lengths (and swing angle: the distance is then taken in space, the tip at its
radius turned by the swing angle).

Examples
--------
>>> from mechanisms.machine import DATA, Machine
>>> m = Machine.from_file(DATA / "excavator.toml", mode="valves")
>>> op = TrackingOperator(m, m.cycle(mode="extensions"))
>>> op.controller.period, op.controller.inputs
(0.01, ('boom.cmd', 'arm.cmd', 'bucket.cmd'))
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from bondgraph import ParameterError
from bondgraph.hybrid import Controller

__all__ = ["TrackingOperator", "Tracking"]

#: lowest metering drop the feedforward assumes (Pa): a stalled function is not divided by zero
_MIN_DROP = 1e5
#: solves of the open-centre law per pacing estimate, and the slowest pace it gives
_PACE_STEPS, _MIN_PACE = 7, 0.05
#: how much slower the second kinematic run goes, that separates the inertial forces (∝ pace²)
_SLOW = 4.0


@dataclass(frozen=True)
class Tracking:
    """How closely a run traced the reference path.

    Attributes
    ----------
    time : ndarray
        Run time of each sample (s), up to the end of the cycle.
    clock : ndarray
        The operator's reference time at each sample (s).
    distance : ndarray
        The tip's distance to the reference path at that reference time (m).
    cycle_time : float
        Run time at which the reference's end was reached (s); ``nan`` if it never was.
    reference_time : float
        Duration of the reference cycle (s).

    Examples
    --------
    >>> import numpy as np
    >>> t = Tracking(np.array([0.0, 1.0]), np.array([0.0, 0.9]), np.array([0.0, 0.02]), 11.0, 10.0)
    >>> print(t.text())
    tip within 10 mm of the reference path (median), 19 mm at the 95th percentile, 20 mm at worst; cycle 11.00 s for a 10.00 s reference (pace 91%)
    """

    time: np.ndarray
    clock: np.ndarray
    distance: np.ndarray
    cycle_time: float
    reference_time: float

    @property
    def median(self) -> float:
        """Median distance (m)."""
        return float(np.median(self.distance))

    @property
    def p95(self) -> float:
        """95th percentile of the distance (m)."""
        return float(np.percentile(self.distance, 95))

    @property
    def worst(self) -> float:
        """Largest distance (m)."""
        return float(np.max(self.distance))

    def text(self) -> str:
        """One line: median, 95th percentile and worst distance, cycle time against the reference's."""
        if math.isfinite(self.cycle_time):
            pace = (f"cycle {self.cycle_time:.2f} s for a {self.reference_time:.2f} s reference "
                    f"(pace {self.reference_time / self.cycle_time:.0%})")
        else:
            pace = (f"the reference's end ({self.reference_time:.2f} s) was not reached: at the run's "
                    f"end the operator was at {self.clock[-1]:.2f} s of it")
        return (f"tip within {self.median * 1e3:.0f} mm of the reference path (median), "
                f"{self.p95 * 1e3:.0f} mm at the 95th percentile, {self.worst * 1e3:.0f} mm at worst; {pace}")


class TrackingOperator:
    """Drive a valves machine along a lengths cycle, pacing to hold the path.

    Parameters
    ----------
    machine : Machine
        Built in mode ``valves``; its circuit gives valve gains and areas.
    reference : Cycle
        Mode ``extensions``: the pin-to-pin lengths to follow.
    bandwidth : float
        Feedback on the length error (1/s): the error's decay rate. Keep it well below
        the valves' and the loaded cylinders' own frequencies.
    lead : float
        How far ahead the feedforward reads the reference rate (s): it makes up for the
        spool's lag (a 10 Hz spool, damping 1, lags about 30 ms).
    pressure_filter : float
        Time constant (s) of the filter on the pressures the feedforward reads (and on the
        difference between the measured and the predicted load force).
    period : float
        Sample period (s): the commands are held between samples.
    pace : bool
        Slow the reference clock when the machine cannot keep up (default). With
        ``False`` the reference runs in real time and the machine falls behind where it
        must.
    max_command : float
        Spool opening the pacing keeps the feedforward under (0 … 1).
    slow_on_error : float
        Length error (m) that halves the pace.
    integral : float
        Integral feedback on the length error (1/s²): removes the steady error a
        feedforward with the wrong gain leaves.
    pace_time : float
        Time constant (s) with which the pace follows what the machine can do.
    look_ahead : float
        How far ahead in the reference (s) the pacing looks for what the machine cannot
        give, so that it slows before it gets there.
    load_model : bool
        Predict the load force from the kinematic reference run (default); ``False``: the
        filtered measured force alone.
    swing_bandwidth : float
        A swinging machine: feedback on the swing-angle error (1/s). Keep it well below the
        swing's own frequency on the oil trapped in its motor (about 1 Hz on the excavator).
    swing_radius : float
        A swinging machine: the radius (m) at which a swing-angle error counts as a length
        error in the pacing.

    Attributes
    ----------
    controller : bondgraph.hybrid.Controller
        Pass it to :meth:`Machine.run` (``controller=op.controller``).

    Raises
    ------
    ParameterError
        A machine not in mode ``valves``, a reference not in mode ``extensions``, a
        circuit without valve gains, or a parameter out of range.

    Examples
    --------
    The excavator's fixed-pump circuit traces the dig–lift–dump path to a few
    centimetres over its first 3 s (the whole cycle in ``tests/machines/test_operator.py``):

    >>> from mechanisms.machine import DATA, Machine
    >>> m = Machine.from_file(DATA / "excavator.toml", mode="valves")
    >>> op = TrackingOperator(m, m.cycle(mode="extensions"))
    >>> run = m.run(controller=op.controller, t_end=3.0, progress=False)
    >>> bool(op.tracking(run).median < 0.03)
    True
    """

    def __init__(self, machine: Any, reference: Any, *, bandwidth: float = 4.0, lead: float = 0.06,
                 pressure_filter: float = 0.3, period: float = 0.01, pace: bool = True,
                 max_command: float = 0.9, slow_on_error: float = 0.02, integral: float = 4.0,
                 pace_time: float = 1.0, look_ahead: float = 0.5, load_model: bool = True,
                 swing_bandwidth: float = 1.0, swing_radius: float = 1.0) -> None:
        problems = []
        if machine.mode != "valves":
            problems.append(f"the machine is built for mode {machine.mode!r}, expected 'valves'")
        if reference.mode != "extensions":
            problems.append(f"reference cycle is for mode {reference.mode!r}, expected 'extensions' (lengths)")
        for name, value, hi in (("bandwidth", bandwidth, math.inf), ("pressure_filter", pressure_filter, math.inf),
                                ("period", period, 1.0), ("max_command", max_command, 1.0),
                                ("slow_on_error", slow_on_error, math.inf), ("pace_time", pace_time, math.inf),
                                ("swing_bandwidth", swing_bandwidth, math.inf), ("swing_radius", swing_radius, math.inf)):
            if not (isinstance(value, (int, float)) and math.isfinite(value) and 0 < value <= hi):
                problems.append(f"{name} = {value!r}: expected a number > 0" + (f" and ≤ {hi}" if hi < math.inf else ""))
        if not (isinstance(integral, (int, float)) and math.isfinite(integral) and integral >= 0):
            problems.append(f"integral = {integral!r}: expected a number ≥ 0 (1/s²)")
        if not (isinstance(look_ahead, (int, float)) and 0 <= look_ahead <= 5):
            problems.append(f"look_ahead = {look_ahead!r}: expected 0 … 5 s")
        if not (isinstance(lead, (int, float)) and 0 <= lead <= 1):
            problems.append(f"lead = {lead!r}: expected 0 … 1 s")
        circ = machine.circuit if machine.mode == "valves" else None
        if circ is not None:
            missing = [f for f in machine.functions if f not in circ.valve_gains]
            if missing:
                problems.append(f"the circuit gives no valve gain for {', '.join(missing)}")
            if not getattr(circ, "metering_drop", None) and "pu/C_P.e" not in circ.supply:
                problems.append(f"circuit {type(circ).__name__} has neither a held metering drop nor a "
                                "supply pressure state (pu/C_P.e) to meter against")
        if reference.mode == "extensions":
            unknown = sorted(set(machine.functions) - set(reference.functions))
            if unknown:
                problems.append(f"the reference has no lengths for {', '.join(unknown)}")
        if problems:
            raise ParameterError("TrackingOperator: " + "; ".join(problems))
        self.machine, self.reference = machine, reference
        self.bandwidth, self.lead, self.filter_time = float(bandwidth), float(lead), float(pressure_filter)
        self.pace_on, self.max_command, self.slow_on_error = bool(pace), float(max_command), float(slow_on_error)
        self._circ = circ
        self.integral, self.pace_time, self.look_ahead = float(integral), float(pace_time), float(look_ahead)
        self.load_model, self._kin, self._slow = bool(load_model), None, None
        prefix = f"{machine.mechanism.name}/{circ.name}"
        self._drop = getattr(circ, "metering_drop", None)
        self._supply = f"{prefix}/pu/C_P.e" if "pu/C_P.e" in circ.supply else None
        self._signals = reference.signals()
        # the same clamped cubic splines of all the lengths as one (the same values as the signals',
        # to the bit: tests/machines/test_operator.py), read once a sample instead of once per function
        from scipy.interpolate import CubicSpline

        self._spline = CubicSpline(reference.time, np.column_stack([reference.values[f] for f in machine.functions]),
                                   bc_type="clamped", extrapolate=False)
        self._spline_rate = self._spline.derivative()
        self.reference_time = float(reference.time[-1])
        self._length = {f: machine.model.state(machine.cylinder_of[f], "s") for f in machine.functions}
        self._chambers = {f: tuple(f"{prefix}/{s}" for s in circ.chambers[f]) for f in machine.functions}
        self._swing = self._swing_setup(machine, reference, circ, prefix, float(swing_bandwidth),
                                        float(swing_radius))
        # an open centre: the circuit's steady law, solved for all spools at once. (Not yet with a
        # swing: its motor rocks on the trapped oil at about 1 Hz, which the steady balance does
        # not hold; such a machine meters each function from the measured supply pressure.)
        self._oc = None
        if hasattr(getattr(circ, "hydraulic", None), "control") and self._swing is None:
            from .open_centre_law import OpenCentreLaw

            sw = self._swing      # the swing motor's "areas": its displacement per swing radian
            self._oc = OpenCentreLaw(circ, None if sw is None else {"swing": (sw["flow"], sw["flow"])})
            speed = [k for k in circ.supply if k.startswith("engine/")]
            self._speed = (f"{prefix}/{speed[0]}", circ.supply[speed[0]]) if speed else None
        self._reset()
        names = [f"{f}.cmd" for f in machine.functions] + (["swing.cmd"] if self._swing else [])
        self.controller = Controller(self._step, names, period=period)

    @staticmethod
    def _swing_setup(machine, reference, circ, prefix: str, bandwidth: float, radius: float) -> dict | None:
        """What the swing's tracking needs (``None`` for a machine without a swing section)."""
        drive = getattr(circ, "swing", None)
        if drive is None or getattr(machine, "turntable", None) is None:
            return None
        from bondgraph import Spline

        ref = None if reference.swing is None else Spline(reference.time, reference.swing, name="swing angle")
        return {"ref": ref, "angle": machine.mechanism.swing_state("angle"),
                "flow": machine.turntable.gear_ratio * drive.motor.torque_per_pressure,     # m³ per swing rad
                "ports": tuple(f"{prefix}/{drive.name}/{drive.state(s)}" for s in ("pA", "pB")),
                "gain": circ.valve_gains["swing"], "bandwidth": bandwidth, "radius": radius}

    # ----------------------------------------------------------------- the operator
    def _reset(self) -> None:
        self._filtered: dict[str, float] = {}
        self._last: float | None = None
        self._clock, self._pace = 0.0, 1.0
        self._sum = {f: 0.0 for f in self.machine.functions}
        self._sum["swing"] = 0.0
        self._log_t: list[float] = []
        self._log_clock: list[float] = []
        self._oc_start: dict[str, float] = {}   # per open-centre solve site: its last pump pressure

    def _pressure(self, name: str, y, dt: float) -> float:
        x = float(y[name])
        if name not in self._filtered:
            self._filtered[name] = x
        else:
            self._filtered[name] += (x - self._filtered[name]) * min(1.0, dt / self.filter_time)
        return self._filtered[name]

    def _load(self, f: str, y, dt: float, c: float) -> float:
        """The load force on function ``f``'s rod (N) the feedforward meters against."""
        a_cap, a_rod = self._circ.areas[f]
        measured = float(y[self._chambers[f][0]]) * a_cap - float(y[self._chambers[f][1]]) * a_rod
        model = 0.0
        if self.load_model:
            if self._kin is None:
                self._kin = self._kinematic_run()
            if self._slow is None:
                self._slow = self._kinematic_run(_SLOW)
            full = float(np.interp(c, self._kin["time"], self._kin[f"{f}_force"]))
            slow = float(np.interp(c * _SLOW, self._slow["time"], self._slow[f"{f}_force"]))
            inertia = (full - slow) / (1.0 - 1.0 / _SLOW ** 2)   # ∝ acceleration: pace² at the pace
            model = full - inertia * (1.0 - self._pace ** 2)
        key = f"load/{f}"
        if key not in self._filtered:
            self._filtered[key] = measured - model
        else:
            self._filtered[key] += (measured - model - self._filtered[key]) * min(1.0, dt / self.filter_time)
        return model + self._filtered[key]

    def _kinematic_run(self, slower: float = 1.0) -> Mapping[str, np.ndarray]:
        """The reference run in mode ``extensions`` (pure kinematics): path and cylinder forces;
        ``slower`` stretches its time. Made once per machine description (its circuit aside) and
        reference: operators on circuit variants share it (:func:`.reference_runs.kinematic_run`)."""
        from .reference_runs import kinematic_run

        return kinematic_run(self.machine, self.reference, slower)

    def _per_rate(self, f: str, v: float, force: float, ps: float | None) -> float:
        """Spool opening per m/s of rod speed that gives rate ``v`` against the load ``force``."""
        circ = self._circ
        a_cap, a_rod = circ.areas[f]
        if self._drop:  # compensated sections; a load running ahead is metered at its outlet
            if v < 0 and force > 0:
                drop, area = max(force / a_cap, self._drop), a_cap
            elif v > 0 and force < 0:
                drop, area = max(-force / a_rod, self._drop), a_rod
            else:
                drop, area = self._drop, (a_cap if v > 0 else a_rod)
        else:  # both edges of the spool in series between supply and tank
            phi = a_rod / a_cap
            if v >= 0:
                drop, area = (ps * a_cap - force) / (a_cap + phi ** 2 * a_rod), a_cap
            else:
                drop, area = (ps * a_rod + force) / (a_rod + a_cap / phi ** 2), a_rod
        return area / (circ.valve_gains[f] * math.sqrt(max(drop, _MIN_DROP)))

    def _swing_per_rate(self, w: float, y, dt: float, ps: float | None) -> float:
        """Swing spool opening per rad/s of swing rate ``w`` in the present state."""
        sw = self._swing
        load = self._pressure(sw["ports"][0], y, dt) - self._pressure(sw["ports"][1], y, dt)
        if self._drop:   # a compensated section; a swing running ahead is metered at its outlet
            drop = max(-load if w > 0 else load, self._drop)
        else:            # both edges in series around the motor's pressure drop
            drop = 0.5 * (ps - load if w >= 0 else ps + load)
        return sw["flow"] / (sw["gain"] * math.sqrt(max(drop, _MIN_DROP)))

    def _step(self, t: float, y) -> dict[str, float]:
        if self._last is None or t < self._last:  # a new run
            self._reset()
        dt = 0.0 if self._last is None else t - self._last
        self._last = t
        self._clock = min(self._clock + self._pace * dt, self.reference_time)
        c, end = self._clock, self.reference_time
        fns = tuple(self.machine.functions)
        sw = self._swing
        fs = fns + (("swing",) if sw is not None else ())   # the swing: one more function, in radians
        ps = self._pressure(self._supply, y, dt) if self._supply is not None else None
        inside = c >= self.reference.time[0]     # (before the reference's start: its signals' extrapolation)
        if inside:
            ref = self._spline(c)
            err = {f: float(ref[i]) - float(y[self._length[f]]) for i, f in enumerate(fns)}
        else:
            err = {f: self._signals[f].value(c) - float(y[self._length[f]]) for f in fns}
        if sw is not None:
            ref = sw["ref"]
            err["swing"] = (ref.value(c) if ref is not None else 0.0) - float(y[sw["angle"]])
        for f in fs:
            self._sum[f] += err[f] * dt

        # the reference's rates now and, when pacing, at the two looks ahead: one read of the spline
        ahead = (c, *(c + k * self.look_ahead / 2 for k in (1, 2))) if self.pace_on else (c,)
        read = self._spline_rate([min(w + self.lead, end) for w in ahead]) if inside else None

        def rates_at(when: float) -> dict[str, float]:
            if read is not None:
                row = read[ahead.index(when)]
                r = {f: (float(row[i]) if when < end else 0.0) for i, f in enumerate(fns)}
            else:
                r = {f: (self._signals[f].derivative(min(when + self.lead, end)) if when < end else 0.0)
                     for f in fns}
            if sw is not None:
                r["swing"] = (sw["ref"].derivative(min(when + self.lead, end))
                              if (sw["ref"] is not None and when < end) else 0.0)
            return r

        rate = rates_at(c)
        fb = {f: self.bandwidth * err[f] + self.integral * self._sum[f] for f in fns}
        if sw is not None:
            # PI on the angle: the integral (its gain the cylinders' scaled to the swing's slower
            # bandwidth) opens the valve past what the feedforward misses (an open centre's check)
            fb["swing"] = (sw["bandwidth"] * err["swing"]
                           + self.integral * (sw["bandwidth"] / self.bandwidth) ** 2 * self._sum["swing"])
        force = {f: self._load(f, y, dt, c) for f in fns}
        per = {} if self._oc is not None else {f: self._per_rate(f, rate[f] + fb[f], force[f], ps) for f in fns}
        if sw is not None:    # the swing metered from the supply pressure (on an open centre too)
            per["swing"] = self._swing_per_rate(rate["swing"] + fb["swing"], y, dt, ps)
        if self._oc is not None:
            if sw is not None:   # the motor's pressure drop times its displacement per swing radian
                force["swing"] = (self._pressure(sw["ports"][0], y, dt)
                                  - self._pressure(sw["ports"][1], y, dt)) * sw["flow"]
            command, capacity = self._open_centre_law(y, fns, force, fb, per)
        else:

            def command(r: Mapping[str, float], s: float) -> tuple[dict[str, float], tuple]:
                u = {f: math.copysign(per[f] * abs(r[f] * s + fb[f]), r[f] * s + fb[f]) for f in fs}
                return u, tuple(f for f in fs if abs(u[f]) > 1.0)

            def capacity(r: Mapping[str, float]) -> float:
                need = max(abs(r[f]) * per[f] for f in fs) / self.max_command
                return 1.0 / need if need > 1.0 else 1.0
        pace = 1.0
        if self.pace_on:   # what the machine can give now and a little ahead, slowed by the error
            pace = min(capacity(rate), *(capacity(rates_at(c + k * self.look_ahead / 2)) for k in (1, 2)))
            errors = [abs(err[f]) for f in fns] + ([abs(err["swing"]) * sw["radius"]] if sw else [])
            pace /= 1.0 + max(errors) / self.slow_on_error
            if dt > 0:     # the pace eases down and up, so it does not chase the error
                pace = self._pace + (pace - self._pace) * min(1.0, dt / self.pace_time)
        self._pace = pace
        self._log_t.append(t)
        self._log_clock.append(c)
        u, saturated = command(rate, pace)
        for f in saturated:    # no wind-up against a saturated spool
            self._sum[f] -= err[f] * dt
        return {f"{f}.cmd": float(np.clip(u.get(f, 0.0), -1.0, 1.0)) for f in fs}

    def _open_centre_law(self, y, fs: tuple, force: Mapping[str, float], fb: Mapping[str, float],
                         per: Mapping[str, float]):
        """The open-centre command and capacity: every cylinder's spool from the circuit's steady
        law at once; a swing section (``per``: its opening per rad/s) is metered from the supply
        pressure, its opening held in the balance."""
        law = self._oc
        ratio = float(y[self._speed[0]]) / self._speed[1] if self._speed else 1.0

        def held(r: Mapping[str, float], s: float) -> dict[str, float]:
            return {f: float(np.clip(math.copysign(k * abs(r[f] * s + fb[f]), r[f] * s + fb[f]), -1.0, 1.0))
                    for f, k in per.items()}

        def solve(r: Mapping[str, float], s: float, x_max: float, site: str):
            # each site's bracket starts at its last answer (the previous sample's or pace's)
            state = law.openings({f: r[f] * s + fb[f] for f in fs}, force, ratio, x_max, held(r, s),
                                 start=self._oc_start.get(site), gallery=False)
            self._oc_start[site] = state.pump_pressure
            return state

        def command(r: Mapping[str, float], s: float) -> tuple[dict[str, float], tuple]:
            state = solve(r, s, 1.0, "command")
            over = tuple(f for f, k in per.items() if k * abs(r[f] * s + fb[f]) > 1.0)
            return state.openings, state.saturated + over

        sites = iter(("capacity 0", "capacity 1", "capacity 2"))   # now and the two looks ahead

        def capacity(r: Mapping[str, float]) -> float:
            need = max([abs(r[f]) * k for f, k in per.items()] + [0.0]) / self.max_command
            return min(1.0 / need if need > 1.0 else 1.0, _law_capacity(r, next(sites, "capacity")))

        def _law_capacity(r: Mapping[str, float], site: str) -> float:
            ok, bad, s = 0.0, 1.0, 1.0
            for _ in range(_PACE_STEPS):   # the largest pace at which no spool saturates, bracketed
                state = solve(r, s, self.max_command, site)
                if state.saturated:
                    bad = s
                else:
                    if s == 1.0:
                        return 1.0
                    ok = s
                if ok == 0.0:              # first guesses: the share the saturated functions got
                    got = [state.rates[f] / (r[f] * s + fb[f]) for f in state.saturated
                           if r[f] * s + fb[f] != 0.0]
                    s = s * min([max(g, 0.0) for g in got] + [1.0])
                    s = s if 0.0 < s < bad else 0.5 * bad
                else:
                    s = 0.5 * (ok + bad)
            return max(ok, _MIN_PACE)

        return command, capacity

    # ----------------------------------------------------------------- a whole cycle
    def drive(self, t_max: float | None = None, **run_kw: Any):
        """Run the machine through the whole reference, ending when the operator reaches its end.

        The run is made to ``t_max`` (default twice the reference's duration) and ends one
        sample period after the operator reached the end of the reference, so that energy and
        fuel are those of one cycle (the controller's ``until``: one run, the same as a run
        made again to that end time).

        Parameters
        ----------
        t_max : float, optional
            Longest run (s).
        **run_kw
            Passed to :meth:`Machine.run` (``progress``, ``energy``, ``method``...).

        Returns
        -------
        MachineRun
            Check :attr:`cycle_time`: ``nan`` means the end was not reached by ``t_max``. Its
            ``tracking`` attribute is :meth:`tracking` of it (comparisons state it).

        Raises
        ------
        ParameterError
            ``t_max`` not longer than zero.

        Examples
        --------
        >>> from mechanisms.machine import DATA, Machine
        >>> m = Machine.from_file(DATA / "excavator.toml", mode="valves")
        >>> op = TrackingOperator(m, m.cycle(mode="extensions"))
        >>> run = op.drive(progress=False)
        >>> bool(0 < run.t[-1] - op.cycle_time <= 0.01 + 1e-9), bool(op.cycle_time < 13.0)
        (True, True)
        """
        t_max = 2.0 * self.reference_time if t_max is None else t_max
        if not (isinstance(t_max, (int, float)) and math.isfinite(t_max) and t_max > 0):
            raise ParameterError(f"TrackingOperator.drive: t_max = {t_max!r}, expected a time > 0 s")
        from .cycle import Cycle

        fns = tuple(self.machine.functions)
        # the spool commands are the operator's: the run's cycle only names what it follows
        commands = Cycle("valves", [0.0, float(t_max)], {f: [0.0, 0.0] for f in fns}, fns,
                         source=f"tracking operator on {self.reference.source}")
        # one sample more than the sample that reached the end: the operator logs the end
        ctrl = Controller(self.controller.fn, self.controller.inputs, period=self.controller.period,
                          until=self._reached)
        run = self.machine.run(commands, controller=ctrl, t_end=float(t_max), **run_kw)
        run.tracking = self.tracking(run)     # what a comparison states beside the run
        return run

    def _reached(self, t: float, y) -> bool:
        """The last sample reached the reference's end (asked at the next sample: the run ends)."""
        return bool(self._log_clock) and self._log_t[-1] < t and \
            self._log_clock[-1] >= self.reference_time - 1e-9

    # ----------------------------------------------------------------- read-outs
    def clock(self, t: np.ndarray) -> np.ndarray:
        """Reference time (s) the operator had reached at run times ``t`` (of its last run).

        Examples
        --------
        Before a run the clock stands at zero:

        >>> from mechanisms.machine import DATA, Machine
        >>> m = Machine.from_file(DATA / "excavator.toml", mode="valves")
        >>> TrackingOperator(m, m.cycle(mode="extensions")).clock([0.0, 1.0]).tolist()
        [0.0, 0.0]
        """
        t = np.asarray(t, dtype=float)
        if not self._log_t:
            return np.zeros_like(t)
        c = np.interp(t, self._log_t, self._log_clock)
        after = t > self._log_t[-1]  # after the last sample the held pace goes on
        c[after] = np.minimum(self._log_clock[-1] + self._pace * (t[after] - self._log_t[-1]),
                              self.reference_time)
        return c

    @property
    def cycle_time(self) -> float:
        """Run time (s) at which the reference's end was reached in the last run (``nan``: not reached)."""
        if not self._log_clock or self._log_clock[-1] < self.reference_time - 1e-9:
            return math.nan
        i = int(np.searchsorted(self._log_clock, self.reference_time - 1e-9))
        return float(self._log_t[i])

    def tracking(self, run: Any, path: Mapping[str, np.ndarray] | None = None, point: str = "tip") -> Tracking:
        """The tip's distance to the reference path over the last run's cycle.

        Parameters
        ----------
        run : machine run
            The run this operator drove.
        path : table, optional
            The reference path: a table with ``time``, ``<point>_x``, ``<point>_y``.
            Default: the same machine in mode ``extensions`` run on the reference lengths
            (kinematics only, no hydraulics).
        point : str
            The output point compared (default ``tip``).

        Returns
        -------
        Tracking

        Examples
        --------
        See the class.
        """
        if path is None:
            if self._kin is None:
                self._kin = self._kinematic_run()
            path = self._kin
        tab = run.table()
        t = np.asarray(tab["time"], dtype=float)
        clock = self.clock(t)
        done = self.cycle_time
        keep = t <= (done + 1e-12 if math.isfinite(done) else np.inf)
        px, py = f"{point}_x", f"{point}_y"
        rx, ry = (np.interp(clock[keep], path["time"], path[k]) for k in (px, py))
        if "swing_angle" in tab and "swing_angle" in path:   # in space: the radius turned by the swing
            x0 = self.machine.turntable.axis_x
            phi, ref_phi = tab["swing_angle"][keep], np.interp(clock[keep], path["time"], path["swing_angle"])
            r, ref_r = tab[px][keep] - x0, rx - x0
            d = np.sqrt((r * np.cos(phi) - ref_r * np.cos(ref_phi)) ** 2 + (tab[py][keep] - ry) ** 2
                        + (r * np.sin(phi) - ref_r * np.sin(ref_phi)) ** 2)
        else:
            d = np.hypot(tab[px][keep] - rx, tab[py][keep] - ry)
        return Tracking(t[keep], clock[keep], d, done, self.reference_time)
