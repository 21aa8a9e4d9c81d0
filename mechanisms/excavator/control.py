"""Machine control software for valve-driven runs: an operator that tracks a lengths cycle.

:func:`tracking_controller` is the "machine control software" of seed 001 as a
sampled controller (zero-order hold at its own rate): each valve command is a
feedforward from the reference rate (the flow the cylinder needs, over the
valve's gain at a nominal metering drop) plus a proportional correction on the
pin-to-pin length, clipped to −1…1.

Examples
--------
>>> from mechanisms.excavator import Excavator, Cycle
>>> exc = Excavator(mode="valves")
>>> ctrl = tracking_controller(exc, Cycle.default("extensions"))
>>> ctrl.period, ctrl.inputs
(0.01, ('boom.cmd', 'arm.cmd', 'bucket.cmd'))
"""

from __future__ import annotations

import math

import numpy as np

from bondgraph.hybrid import Controller

from .cycle import Cycle
from .hydraulics import COMMANDS, CYL, FUNCTIONS

__all__ = ["tracking_controller"]


def tracking_controller(exc, reference: Cycle, *, kp: float = 4.0, dp_nominal: float = 20e5,
                        period: float = 0.01) -> Controller:
    """A sampled P + feedforward controller tracking a lengths cycle.

    Parameters
    ----------
    exc : Excavator
        Built in mode ``valves``.
    reference : Cycle
        Mode ``extensions``: the pin-to-pin lengths to follow.
    kp : float
        Command per metre of length error (1/m).
    dp_nominal : float
        Metering drop (Pa) assumed by the feedforward.
    period : float
        Sample period (s).
    """
    if reference.mode != "extensions":
        from bondgraph import ParameterError

        raise ParameterError(f"tracking_controller: reference cycle is for mode {reference.mode!r}, "
                             "expected 'extensions' (lengths)")
    sig = reference.signals()
    hyd = exc.hydraulic
    gains, areas, names = {}, {}, {}
    for f in FUNCTIONS:
        d = hyd.circuit.drives[f]
        v = d.valve
        gains[f] = v.q_nominal * math.sqrt(dp_nominal / v.dp_nominal)
        areas[f] = (d.cylinder.area_A, d.cylinder.area_B)
        names[f] = exc.model.state(CYL[f], "s")

    def fn(t, y):
        out = {}
        for f in FUNCTIONS:
            rate = sig[f].derivative(t)
            q = rate * (areas[f][0] if rate > 0 else areas[f][1])
            u = q / gains[f] + kp * (sig[f].value(t) - y[names[f]])
            out[COMMANDS[f]] = float(np.clip(u, -1.0, 1.0))
        return out

    return Controller(fn, [COMMANDS[f] for f in FUNCTIONS], period=period)
