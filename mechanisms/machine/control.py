"""Machine control software for valve-driven runs: an operator that tracks a lengths cycle.

:func:`tracking_controller` is the "machine control software" of the Toshiba hybrid-simulation patent as a
sampled controller (zero-order hold at its own rate): each valve command is a
feedforward from the reference rate (the flow the cylinder needs, over the
valve's gain at a nominal metering drop) plus a proportional correction on the
pin-to-pin length, clipped to −1…1. It works for any machine of the description
format whose circuit gives its valve gains and areas (``type = "fixed"`` does).

Examples
--------
>>> from mechanisms.machine import Machine, DATA
>>> m = Machine.from_file(DATA / "excavator.toml", mode="valves")
>>> ctrl = tracking_controller(m, m.cycle(mode="extensions"))
>>> ctrl.period, ctrl.inputs
(0.01, ('boom.cmd', 'arm.cmd', 'bucket.cmd'))
"""

from __future__ import annotations

import math

import numpy as np

from bondgraph import ParameterError
from bondgraph.hybrid import Controller

__all__ = ["tracking_controller"]


def tracking_controller(machine, reference, *, kp: float = 4.0, dp_nominal: float | None = None,
                        period: float = 0.01, kp_swing: float | None = 2.0) -> Controller:
    """A sampled P + feedforward controller tracking a lengths cycle.

    Parameters
    ----------
    machine : Machine
        Built in mode ``valves``.
    reference : Cycle
        Mode ``extensions``: the pin-to-pin lengths to follow.
    kp : float
        Command per metre of length error (1/m).
    dp_nominal : float, optional
        Metering drop (Pa) assumed by the feedforward; default the circuit's own
        (``metering_drop``: what a load-sensing circuit's compensators hold), else 20 bar.
    period : float
        Sample period (s).
    kp_swing : float
        A swinging machine (``[swing]``, the circuit's swing section): command per radian of
        swing-angle error. The swing is one more tracked function: its reference angle is the
        cycle's ``swing`` column (none: held at 0, the valve centred unless it drifts), the
        feedforward the motor's flow for the reference rate, ``i·D/2π·φ̇``, over the swing
        valve's gain. ``None``: the swing is not the controller's (its command is the run
        cycle's ``swing`` column).

    Examples
    --------
    Following the dig cycle's lengths through the valves, the boom within 60 mm of its
    prescribed length over the first two seconds:

    >>> import numpy as np
    >>> from mechanisms.machine import DATA, Machine
    >>> m = Machine.from_file(DATA / "excavator.toml", mode="valves")
    >>> ref = m.cycle(mode="extensions")
    >>> run = m.run(controller=tracking_controller(m, ref), t_end=2.0, progress=False)
    >>> err = run.table()["boom_length"] - ref.sample(run.t)["boom"]
    >>> bool(np.max(np.abs(err)) < 0.06)
    True
    """
    if machine.mode != "valves":
        raise ParameterError(f"tracking_controller: the machine is built for mode {machine.mode!r}, "
                             "expected 'valves'")
    if reference.mode != "extensions":
        raise ParameterError(f"tracking_controller: reference cycle is for mode {reference.mode!r}, "
                             "expected 'extensions' (lengths)")
    circ = machine.circuit
    missing = [f for f in machine.functions if f not in circ.valve_gains]
    if missing:
        raise ParameterError(f"tracking_controller: the circuit gives no valve gain for {', '.join(missing)}")
    if dp_nominal is None:
        dp_nominal = getattr(circ, "metering_drop", None) or 20e5
    sig = reference.signals()
    gains = {f: circ.valve_gains[f] * math.sqrt(dp_nominal) for f in machine.functions}
    names = {f: machine.model.state(machine.cylinder_of[f], "s") for f in machine.functions}

    swing = None if kp_swing is None else _swing_tracker(machine, reference, dp_nominal, kp_swing)

    def fn(t, y):
        out = {}
        for f in machine.functions:
            rate = sig[f].derivative(t)
            a_cap, a_rod = circ.areas[f]
            q = rate * (a_cap if rate > 0 else a_rod)
            u = q / gains[f] + kp * (sig[f].value(t) - y[names[f]])
            out[f"{f}.cmd"] = float(np.clip(u, -1.0, 1.0))
        if swing is not None:
            out["swing.cmd"] = swing(t, y)
        return out

    inputs = [f"{f}.cmd" for f in machine.functions] + (["swing.cmd"] if swing is not None else [])
    return Controller(fn, inputs, period=period)


def _swing_tracker(machine, reference, dp_nominal: float, kp: float):
    """``(t, y) → swing.cmd`` following the reference's swing angle (0 without a column);
    ``None`` for a machine without a swing section."""
    circ = machine.circuit
    drive = getattr(circ, "swing", None)
    if drive is None:
        return None
    from bondgraph import Spline

    # motor flow per swing rate (m³/rad): i·D/2π; over the valve's flow per opening at the drop
    per_rate = machine.turntable.gear_ratio * drive.motor.torque_per_pressure
    gain = circ.valve_gains["swing"] * math.sqrt(dp_nominal)
    angle = machine.mechanism.swing_state("angle")
    ref = None if reference.swing is None else Spline(reference.time, reference.swing, name="swing angle")

    def cmd(t, y):
        if ref is None:
            return float(np.clip(kp * (0.0 - y[angle]), -1.0, 1.0))
        u = ref.derivative(t) * per_rate / gain + kp * (ref.value(t) - y[angle])
        return float(np.clip(u, -1.0, 1.0))

    return cmd
