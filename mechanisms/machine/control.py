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
                        period: float = 0.01) -> Controller:
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

    def fn(t, y):
        out = {}
        for f in machine.functions:
            rate = sig[f].derivative(t)
            a_cap, a_rod = circ.areas[f]
            q = rate * (a_cap if rate > 0 else a_rod)
            u = q / gains[f] + kp * (sig[f].value(t) - y[names[f]])
            out[f"{f}.cmd"] = float(np.clip(u, -1.0, 1.0))
        return out

    return Controller(fn, [f"{f}.cmd" for f in machine.functions], period=period)
